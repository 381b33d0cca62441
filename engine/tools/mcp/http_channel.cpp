#include "engine/tools/mcp/http_channel.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/net/io_threads.h"
#include "engine/net/sse_parser.h"

namespace engine::tools::mcp {
namespace {

constexpr auto kHttpNoticeWait = std::chrono::milliseconds(2000);

std::chrono::milliseconds until(const std::optional<SteadyTime>& deadline, std::chrono::milliseconds otherwise) {
  if (!deadline) return otherwise;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
  return std::max(left, std::chrono::milliseconds(1));
}

bool passed(const std::optional<SteadyTime>& deadline) {
  return deadline && std::chrono::steady_clock::now() >= *deadline;
}

}  // namespace

HttpChannel::HttpChannel(std::string url, std::vector<std::string> headers, size_t max_message_bytes,
                         ServerMessages messages, std::shared_ptr<net::IoThreads> io)
    : io_(io ? std::move(io) : std::make_shared<net::IoThreads>()),
      http_(io_),
      url_(std::move(url)),
      headers_(std::move(headers)),
      max_message_(max_message_bytes),
      messages_(std::move(messages)) {}

HttpChannel::~HttpChannel() {
  {
    // The answers' fibers use this channel: each ends within kHttpNoticeWait.
    std::unique_lock lock(answers_mu_);
    closing_ = true;
    answered_.wait(lock, [&] { return answering_ == 0; });
  }
  std::string session;
  {
    std::lock_guard lock(mu_);
    if (!lost_) session = session_;
  }
  if (session.empty()) return;
  net::HttpRequest end{"DELETE", url_, request_headers(), "", {}, 4096};
  end.timeouts.connect = end.timeouts.total = kHttpNoticeWait;
  try {
    http_.send(end);
  } catch (const Error&) {
    // The server is gone already: there is no session left to end.
  }
}

bool HttpChannel::alive() const {
  std::lock_guard lock(mu_);
  return !lost_;
}

bool HttpChannel::lost_session() const { return !alive(); }

std::vector<std::string> HttpChannel::request_headers(const Value* message) const {
  std::vector<std::string> h = headers_;
  const Value& params = message ? field(*message, "params") : Value();
  // The trace context in the header as well as in _meta: what an HTTP server or a proxy in front of it reads.
  if (std::string traceparent = string_field(field(params, "_meta"), "traceparent"); !traceparent.empty())
    h.push_back("traceparent: " + traceparent);
  std::string modern = string_field(field(params, "_meta"), "io.modelcontextprotocol/protocolVersion");
  if (!modern.empty()) {
    // 2026-07-28: the headers must say what the body says, or the server refuses the request.
    h.push_back("MCP-Protocol-Version: " + modern);
    h.push_back("Mcp-Method: " + string_field(*message, "method"));
    if (std::string name = string_field(params, "name"); !name.empty()) h.push_back("Mcp-Name: " + name);
    return h;
  }
  std::lock_guard lock(mu_);
  if (!session_.empty()) h.push_back("Mcp-Session-Id: " + session_);
  if (!protocol_version_.empty()) h.push_back("MCP-Protocol-Version: " + protocol_version_);
  return h;
}

void HttpChannel::answer(Value response) {
  {
    std::lock_guard lock(answers_mu_);
    if (closing_ || answering_ >= limits::kMcpQueuedAnswers) return;
    ++answering_;
  }
  auto send = [this, response = std::move(response)] {
    CallWait wait;
    wait.deadline = std::chrono::steady_clock::now() + kHttpNoticeWait;
    wait.what = "an answer to the server's request";
    try {
      post(response, wait, std::nullopt);
    } catch (const std::exception&) {
      // Nobody waits for this answer but the server; if it cannot be given, the server's request times out there.
    }
    std::lock_guard lock(answers_mu_);  // notified under the lock: once it is let go, nothing here touches `this`
    --answering_;
    answered_.notify_all();
  };
  try {
    io_->fibers().spawn(std::move(send));
  } catch (const std::exception&) {  // no stack, or no thread, for it: dropped, as past the bound
    std::lock_guard lock(answers_mu_);
    --answering_;
    answered_.notify_all();
  }
}

void HttpChannel::handle(net::jsonrpc::Incoming in, const CallWait& wait, std::optional<int64_t> id, std::optional<Value>& response) {
  switch (in.kind) {
    case net::jsonrpc::Incoming::Kind::Response: {
      const Value& got = in.message["id"];
      if (id && got.is_number_integer() && got.get<int64_t>() == *id) response = std::move(in.message);
      return;
    }
    case net::jsonrpc::Incoming::Kind::Request:
      answer(messages_.on_request(in));
      return;
    case net::jsonrpc::Incoming::Kind::Notification:
      if (in.method == "notifications/tools/list_changed" && messages_.on_tools_changed) messages_.on_tools_changed();
      if (in.method == "notifications/progress" && wait.on_progress && id) {
        const Value& params = field(in.message, "params");
        const Value& token = field(params, "progressToken");
        if (token.is_number_integer() && token.get<int64_t>() == *id) wait.on_progress(params);
      }
      return;
    case net::jsonrpc::Incoming::Kind::Invalid:
      return;
  }
}

Value HttpChannel::post(const Value& message, const CallWait& wait, std::optional<int64_t> id) {
  std::string what = wait.what.empty() ? std::string(string_field(message, "method")) : wait.what;
  std::optional<Value> response;
  std::string json_body;  // a reply that is one JSON message, not a stream
  bool is_stream = false, decided = false;
  net::SseParser stream([&](const net::SseEvent& e) {
    if (trim(e.data).empty()) return;  // a priming event: an id to resume from, nothing to read
    handle(net::jsonrpc::classify(parse_json(e.data)), wait, id, response);
  });
  net::BodySink sink = [&](std::string_view piece) {
    if (!decided) {
      std::string_view start = trim(piece);
      if (start.empty()) return true;
      decided = true;
      is_stream = start[0] != '{' && start[0] != '[';
    }
    if (!is_stream) {
      json_body.append(piece);
      return true;
    }
    stream.feed(piece);
    return !response;  // the answer is in: the stream may close
  };

  net::HttpRequest r;
  r.url = url_;
  r.headers = request_headers(&message);
  r.headers.insert(r.headers.end(), wait.headers.begin(), wait.headers.end());
  r.headers.push_back("Content-Type: application/json");
  r.headers.push_back("Accept: application/json, text/event-stream");
  r.body = to_json_text(message);
  r.max_response_bytes = max_message_;
  // The server closes the stream once it has answered (as the protocol asks): the end is read, so the connection
  // serves the next call, instead of being cut with the transfer.
  r.linger = std::chrono::milliseconds(200);
  r.timeouts.total = r.timeouts.read = until(wait.deadline, std::chrono::milliseconds(600'000));
  r.timeouts.connect = std::min(r.timeouts.total, std::chrono::milliseconds(10'000));

  net::HttpResponse got;
  std::optional<Error> failed;
  for (int resumes = 0;; ++resumes) {
    try {
      got = http_.send(r, sink, wait.cancel);
    } catch (const Error& e) {
      failed = e;
    }
    if (failed || response || !is_stream || got.status / 100 != 2 || stream.last_event_id().empty() ||
        resumes == limits::kMcpResumes)
      break;
    // The server closed the stream before the answer, having said where it was: ask for the rest.
    if (stream.retry_ms() > 0)
      sleep_or_throw(wait.cancel, std::chrono::milliseconds(std::min<long long>(stream.retry_ms(), 5000)));
    r.method = "GET";
    r.body.clear();
    r.headers = request_headers();
    r.headers.push_back("Accept: text/event-stream");
    r.headers.push_back("Last-Event-ID: " + stream.last_event_id());
    r.timeouts.total = r.timeouts.read = until(wait.deadline, std::chrono::milliseconds(600'000));
  }
  if (failed) {
    bool stopped = wait.cancel && wait.cancel->stopped();
    bool modern = field(field(message, "params"), "_meta").contains("io.modelcontextprotocol/protocolVersion");
    if ((stopped || passed(wait.deadline)) && id && !modern) {
      // Closing the stream cancels a call in 2026-07-28, not in the 2025 era: there the server is told.
      CallWait notice;
      notice.deadline = std::chrono::steady_clock::now() + kHttpNoticeWait;
      Value cancelled = net::jsonrpc::make_notification(
          "notifications/cancelled", Value{{"requestId", *id}, {"reason", stopped ? "the run stopped" : "the call timed out"}});
      try {
        post(cancelled, notice, std::nullopt);
      } catch (const Error&) {
        // It is gone: there is nobody to tell.
      }
    }
    if (stopped) throw_stopped(*wait.cancel);
    if (passed(wait.deadline)) throw Error(ErrorKind::McpTimeout, "did not answer " + what + " in time");
    throw Error(failed->kind(), url_ + ": " + failed->message());
  }
  if (got.status == 404) {
    bool had_session;
    {
      std::lock_guard lock(mu_);
      had_session = !session_.empty();
      lost_ = lost_ || had_session;
    }
    if (had_session) throw Error(ErrorKind::McpClosed, "ended the session (HTTP 404)");
  }
  if (got.status == 400 && id && !is_stream) {
    // 2026-07-28 answers a request it refuses (an unsupported revision, headers that disagree with the body) with
    // HTTP 400 and a JSON-RPC error: that error is the call's answer, which the client reads.
    net::jsonrpc::Incoming refused = net::jsonrpc::classify(parse_json(json_body.empty() ? got.body : json_body));
    if (refused.kind == net::jsonrpc::Incoming::Kind::Response && field(refused.message, "error").is_object()) return std::move(refused.message);
  }
  if (got.status / 100 != 2) {
    std::string body(trim(got.body.substr(0, 500)));
    throw Error(ErrorKind::McpRejected, "answered " + what + " with HTTP " +
                                    std::to_string(got.status) + (body.empty() ? "" : ": " + body));
  }
  if (const std::string* session = got.header("mcp-session-id"); session && !session->empty()) {
    std::lock_guard lock(mu_);
    if (session_.empty()) session_ = *session;
  }
  if (!id) return nullptr;  // a notification or an answer: 202, nothing to read
  if (!is_stream && !json_body.empty()) {
    JsonError why;
    Value parsed = parse_json(json_body, &why);
    if (parsed.is_discarded())
      throw Error(ErrorKind::McpProtocol, "answered " + what + " with JSON it cannot read (" + why.message + ")");
    handle(net::jsonrpc::classify(std::move(parsed)), wait, id, response);
  }
  if (!response)
    throw Error(ErrorKind::McpProtocol, "answered " + what + " without its response");
  return std::move(*response);
}

Value HttpChannel::request(std::string_view method, Value params, const CallWait& wait) {
  int64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
  }
  if (wait.on_progress) {
    if (!params.is_object()) params = Value::object();
    params["_meta"]["progressToken"] = id;
  }
  bool opening = method == "initialize";
  Value response = post(net::jsonrpc::make_request(id, method, std::move(params)), wait, id);
  if (opening) {
    std::string version = string_field(field(response, "result"), "protocolVersion");
    std::lock_guard lock(mu_);
    protocol_version_ = version;
  }
  return response;
}

void HttpChannel::notify(std::string_view method, Value params, const CallWait& wait) {
  post(net::jsonrpc::make_notification(method, std::move(params)), wait, std::nullopt);
}

}  // namespace engine::tools::mcp
