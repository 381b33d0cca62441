#include "engine/tools/mcp/stdio_channel.h"

#include <stop_token>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"

namespace engine::tools::mcp {
namespace {

// How long a last word to the server (a cancellation) may wait for the pipe.
constexpr auto kStdioNoticeWait = std::chrono::milliseconds(1000);

// The last few lines a server wrote to stderr: what it said before it went, for the message of the call that saw it.
std::string last_lines(const std::string& tail) {
  constexpr size_t kLines = 5, kBytes = 1000;
  std::string_view t = trim(tail);
  size_t start = t.size(), lines = 0;
  while (start > 0 && lines < kLines && t.size() - start < kBytes) {
    start = t.rfind('\n', start - 1);
    if (start == std::string_view::npos) {
      start = 0;
      break;
    }
    ++lines;
  }
  std::string_view last = trim(t.substr(start));
  if (last.size() > kBytes) last = last.substr(last.size() - kBytes);
  return std::string(last);
}

}  // namespace

StdioChannel::StdioChannel(const net::ProcessSpec& spec, net::DescriptorWatch& watch, size_t max_message_bytes,
                           ServerMessages messages)
    : max_message_(max_message_bytes), messages_(std::move(messages)) {
  process_ = std::make_unique<net::ChildProcess>(spec, watch);
  process_->follow_lines(
      max_message_, [this](std::string_view line) { on_line(line); }, [this](const std::string& why) { on_end(why); });
}

StdioChannel::~StdioChannel() { process_->stop(); }

bool StdioChannel::alive() const {
  std::lock_guard lock(mu_);
  return !closed_;
}

void StdioChannel::on_line(std::string_view line) {
  if (trim(line).empty()) return;
  net::jsonrpc::Incoming in = net::jsonrpc::classify(parse_json(line));
  if (in.kind == net::jsonrpc::Incoming::Kind::Invalid && utf8::find_invalid(line) != std::string_view::npos) {
    // JSON but for bytes that are not UTF-8: a line that answers a call fails it at once, as the same answer over
    // HTTP does, rather than leave it waiting for an answer that has come.
    net::jsonrpc::Incoming readable = net::jsonrpc::classify(parse_json(utf8::replace_invalid(line)));
    if (readable.kind == net::jsonrpc::Incoming::Kind::Response && readable.message["id"].is_number_integer()) {
      std::lock_guard lock(mu_);
      if (auto it = pending_.find(readable.message["id"].get<int64_t>()); it != pending_.end()) {
        it->second->broken = "its answer is not valid UTF-8";
        it->second->changed.notify_one();
      }
    }
    return;
  }
  switch (in.kind) {
    case net::jsonrpc::Incoming::Kind::Response: {
      const Value& id = in.message["id"];
      if (!id.is_number_integer()) return;  // not an id this client gave
      std::lock_guard lock(mu_);
      auto it = pending_.find(id.get<int64_t>());
      if (it == pending_.end()) return;  // an answer to a call that gave up, or to none
      it->second->response = std::move(in.message);
      it->second->changed.notify_one();
      return;
    }
    case net::jsonrpc::Incoming::Kind::Request:
      answer(messages_.on_request(in));
      return;
    case net::jsonrpc::Incoming::Kind::Notification: {
      if (in.method == "notifications/tools/list_changed") {
        if (messages_.on_tools_changed) messages_.on_tools_changed();
        return;
      }
      if (in.method != "notifications/progress") return;  // logging, resources: nothing a tool call needs
      const Value& params = field(in.message, "params");
      const Value& token = field(params, "progressToken");
      if (!token.is_number_integer()) return;
      std::lock_guard lock(mu_);
      auto it = pending_.find(token.get<int64_t>());
      if (it == pending_.end() || it->second->progress.size() >= 64) return;  // a flood is dropped, not held
      it->second->progress.push_back(params);
      it->second->changed.notify_one();
      return;
    }
    case net::jsonrpc::Incoming::Kind::Invalid:
      return;  // not JSON-RPC: a stray line (a banner, a log), read past as the SDKs do
  }
}

void StdioChannel::on_end(const std::string& why) {
  std::lock_guard lock(mu_);
  closed_ = true;
  closed_why_ = why;
  for (auto& [id, p] : pending_) p->changed.notify_one();
  write_turn_.notify_all();
}

void StdioChannel::throw_closed(const CallWait& wait) {
  std::string why;
  {
    std::lock_guard lock(mu_);
    why = closed_why_;
  }
  std::string said = last_lines(process_->stderr_tail());
  throw Error(ErrorKind::McpClosed, "went away" + (wait.what.empty() ? std::string() : " during " + wait.what) + ": " + why +
                                (said.empty() ? "" : "; its last words on stderr: " + said));
}

void StdioChannel::answer(const Value& response) {
  std::string line = to_json_text(response) + "\n";
  std::unique_lock lock(mu_);
  if (closed_) return;
  outbox_ += line;
  if (writing_) return;  // the writer sends it with its own line
  writing_ = true;
  std::string out = std::move(outbox_);
  outbox_.clear();
  lock.unlock();
  size_t written = 0;
  try {
    written = process_->write_some(out);
  } catch (const Error&) {
    written = out.size();  // it reads no more: the reader will see it end
  }
  lock.lock();
  outbox_.insert(0, out, written, std::string::npos);
  // Answers queued while this one was written go now, as far as the pipe takes them: nobody else may write again.
  while (written == out.size() && !outbox_.empty() && !closed_) {
    out = std::move(outbox_);
    outbox_.clear();
    lock.unlock();
    try {
      written = process_->write_some(out);
    } catch (const Error&) {
      written = out.size();
    }
    lock.lock();
    outbox_.insert(0, out, written, std::string::npos);
  }
  writing_ = false;
  lock.unlock();
  write_turn_.notify_one();
}

void StdioChannel::send(const Value& message, const CallWait& wait) {
  std::string line = to_json_text(message) + "\n";
  std::unique_lock lock(mu_);
  while (writing_ && !closed_) {
    if (wait.cancel && wait.cancel->stopped()) {
      lock.unlock();
      throw_stopped(*wait.cancel);
    }
    if (wait.deadline && std::chrono::steady_clock::now() >= *wait.deadline)
      throw Error(ErrorKind::McpTimeout, "did not read " + wait.what + " in time");
    write_turn_.wait_until(lock, wait.deadline);
  }
  if (closed_) {
    lock.unlock();
    throw_closed(wait);
  }
  writing_ = true;
  std::string out = std::move(outbox_);
  outbox_.clear();
  out += line;
  lock.unlock();
  bool whole = false;
  std::string failure;
  try {
    process_->write(out, wait.deadline);
    whole = true;
  } catch (const Error& e) {
    failure = e.message();
  }
  lock.lock();
  // What the reader queued meanwhile (answers to the server's requests, which may come the moment our line is read)
  // is sent by this writer before it gives its turn up: left in the box, it would wait for a next call that the
  // server, waiting for its answer, never lets come.
  while (whole && !closed_ && !outbox_.empty()) {
    std::string more = std::move(outbox_);
    outbox_.clear();
    lock.unlock();
    try {
      process_->write(more, wait.deadline);
    } catch (const Error& e) {
      whole = false;
      failure = e.message();
    }
    lock.lock();
  }
  writing_ = false;
  if (!whole && !closed_) {
    // Part of a line may have gone: the stream has no frame left, and the server is not reading anyway.
    closed_ = true;
    closed_why_ = failure;
    for (auto& [id, p] : pending_) p->changed.notify_one();
  }
  lock.unlock();
  write_turn_.notify_all();
  if (!whole) throw_closed(wait);
}

void StdioChannel::tell_cancelled(int64_t id, const std::string& reason) {
  CallWait notice;
  notice.deadline = std::chrono::steady_clock::now() + kStdioNoticeWait;
  try {
    send(net::jsonrpc::make_notification("notifications/cancelled", Value{{"requestId", id}, {"reason", reason}}), notice);
  } catch (const Error&) {
    // The server is gone or not reading: there is nobody to tell.
  }
}

Value StdioChannel::request(std::string_view method, Value params, const CallWait& wait) {
  Pending pending;
  int64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    pending_[id] = &pending;
  }
  struct Leave {  // the reader must not find `pending` once this frame is gone
    StdioChannel* channel;
    int64_t id;
    ~Leave() {
      std::lock_guard lock(channel->mu_);
      channel->pending_.erase(id);
    }
  } leave{this, id};
  if (wait.on_progress) {
    if (!params.is_object()) params = Value::object();
    params["_meta"]["progressToken"] = id;
  }
  // A stop wakes the wait; taking the lock first means it cannot slip in between the check and the wait.
  std::optional<std::stop_callback<std::function<void()>>> on_stop;
  if (wait.cancel)
    on_stop.emplace(wait.cancel->token(), std::function<void()>([this, &pending] {
                      std::lock_guard lock(mu_);
                      pending.changed.notify_one();
                    }));
  send(net::jsonrpc::make_request(id, method, std::move(params)), wait);

  std::optional<SteadyTime> deadline = wait.deadline;
  if (wait.cancel && wait.cancel->deadline() && (!deadline || *wait.cancel->deadline() < *deadline))
    deadline = wait.cancel->deadline();
  std::unique_lock lock(mu_);
  for (;;) {
    if (!pending.progress.empty()) {
      std::vector<Value> progress = std::move(pending.progress);
      pending.progress.clear();
      lock.unlock();
      for (const auto& p : progress) wait.on_progress(p);
      lock.lock();
      continue;
    }
    if (pending.response) return std::move(*pending.response);
    if (!pending.broken.empty())
      throw Error(ErrorKind::McpProtocol, "answered " + wait.what + " badly: " + pending.broken);
    if (closed_) {
      lock.unlock();
      throw_closed(wait);
    }
    bool stopped = wait.cancel && wait.cancel->stopped();
    bool late = deadline && std::chrono::steady_clock::now() >= *deadline;
    if (stopped || late) {
      lock.unlock();
      on_stop.reset();
      tell_cancelled(id, stopped ? "the run stopped" : "the call timed out");
      if (wait.cancel && wait.cancel->stopped()) throw_stopped(*wait.cancel);
      throw Error(ErrorKind::McpTimeout, "did not answer " + wait.what + " in time");
    }
    pending.changed.wait_until(lock, deadline);
  }
}

void StdioChannel::notify(std::string_view method, Value params, const CallWait& wait) {
  send(net::jsonrpc::make_notification(method, std::move(params)), wait);
}

}  // namespace engine::tools::mcp
