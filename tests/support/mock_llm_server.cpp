#include "support/mock_llm_server.h"
#include "support/test_support.h"

#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace engine::test {

struct MockLlmServer::Impl {
  httplib::Server server;
  int port = 0;
  std::thread thread;
  mutable std::mutex mu;
  std::deque<Reply> replies;
  std::vector<Request> requests;
  std::condition_variable stopping;  // ends a reply's delay when the server stops
  bool stopped = false;
  std::condition_variable arrived;  // a request came
  size_t gate = 0;
  int gate_timeouts = 0;

  void delay(int ms) {
    std::unique_lock<std::mutex> lock(mu);
    stopping.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopped; });
  }

  void serve(const httplib::Request& req, httplib::Response& res) {
    Reply reply;
    {
      std::unique_lock<std::mutex> lock(mu);
      requests.push_back({req.path, Value::parse(req.body, nullptr, false), req.get_header_value("Authorization"),
                          req.get_header_value("x-api-key"), req.get_header_value("anthropic-version"),
                          std::chrono::steady_clock::now(), req.remote_port, req.get_header_value("traceparent")});
      if (replies.empty()) {
        reply = {500, R"({"error": {"message": "the mock server has no scripted reply left"}})"};
      } else {
        reply = replies.front();
        replies.pop_front();
      }
      arrived.notify_all();
      if (gate > 0 && !arrived.wait_for(lock, std::chrono::seconds(20), [&] { return requests.size() >= gate || stopped; }))
        ++gate_timeouts;
    }
    if (reply.delay_ms > 0) delay(reply.delay_ms);
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    if (reply.pieces.empty()) {
      res.set_content(reply.body, "application/json");
      return;
    }
    res.set_chunked_content_provider("text/event-stream", [reply](size_t, httplib::DataSink& sink) {
      for (const auto& piece : reply.pieces) {
        if (!sink.write(piece.data(), piece.size())) return false;  // the client left: a server stops, as this one
        std::this_thread::sleep_for(std::chrono::milliseconds(reply.piece_delay_ms));
      }
      if (reply.stall_after_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(reply.stall_after_ms));
      if (reply.cut) return false;  // httplib drops the connection: the client sees the body end unfinished
      sink.done();
      return true;
    });
  }
};

MockLlmServer::MockLlmServer(size_t connections) : impl_(std::make_unique<Impl>()) {
  impl_->server.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  for (const char* path : {"/v1/chat/completions", "/v1/completions", "/v1/messages"})
    impl_->server.Post(path, [this](const httplib::Request& req, httplib::Response& res) { impl_->serve(req, res); });
  impl_->server.set_keep_alive_max_count(1'000'000);  // one connection per client, as real servers allow
  impl_->server.set_tcp_nodelay(true);
  int listening = -1;
  impl_->server.set_socket_options([&listening](int sock) {
    httplib::default_socket_options(sock);
    listening = sock;
  });
  impl_->port = impl_->server.bind_to_any_port("127.0.0.1");
  // A burst of connections (a batch's runs, a test's fibers) must all be accepted: with httplib's backlog of five
  // the kernel drops the rest, and a dropped connection is tried again only a second later. A second listen() on
  // the socket raises its backlog.
  if (listening >= 0) ::listen(listening, 256);
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  // cpp-httplib 0.11 has no wait_until_ready(); the loop is bounded so a server that never starts fails the test.
  test::wait_until([&] { return impl_->server.is_running(); }, 5000);
}

MockLlmServer::~MockLlmServer() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stopped = true;
  }
  impl_->stopping.notify_all();
  impl_->arrived.notify_all();
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string MockLlmServer::base_url() const { return "http://127.0.0.1:" + std::to_string(impl_->port) + "/v1"; }

void MockLlmServer::enqueue(Reply r) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->replies.push_back(std::move(r));
}

void MockLlmServer::answer_after_requests(size_t count) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->gate = count;
}

int MockLlmServer::gate_timeouts() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->gate_timeouts;
}

std::vector<MockLlmServer::Request> MockLlmServer::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->requests;
}

std::string MockLlmServer::sse(const Value& data, const std::string& event) {
  return (event.empty() ? "" : "event: " + event + "\n") + "data: " + data.dump() + "\n\n";
}

MockLlmServer::Reply MockLlmServer::chat(const std::string& content, int prompt_tokens, int completion_tokens) {
  Value body{{"id", "chatcmpl-test"},
             {"object", "chat.completion"},
             {"model", "test-model-0613"},
             {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}},
             {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens},
                        {"total_tokens", prompt_tokens + completion_tokens}}}};
  return {200, body.dump()};
}

namespace {

Value chat_chunk(Value delta, Value finish) {
  return Value{{"id", "chatcmpl-test"}, {"object", "chat.completion.chunk"}, {"model", "test-model-0613"},
               {"choices", {{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}}}};
}

}  // namespace

std::string MockLlmServer::chat_delta(const std::string& content) {
  return sse(chat_chunk({{"content", content}}, nullptr));
}

MockLlmServer::Reply MockLlmServer::chat_stream(const std::vector<std::string>& deltas, int prompt_tokens,
                                                int completion_tokens) {
  Reply r;
  r.pieces.push_back(sse(chat_chunk({{"role", "assistant"}, {"content", ""}}, nullptr)));
  for (const auto& d : deltas) r.pieces.push_back(chat_delta(d));
  r.pieces.push_back(sse(chat_chunk(Value::object(), "stop")));
  r.pieces.push_back(sse(Value{{"id", "chatcmpl-test"}, {"choices", Value::array()},
                               {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens},
                                          {"total_tokens", prompt_tokens + completion_tokens}}}}));
  r.pieces.push_back("data: [DONE]\n\n");
  return r;
}

MockLlmServer::Reply MockLlmServer::message(const std::string& text, int input_tokens, int output_tokens) {
  Value body{{"id", "msg_test"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-test"},
             {"content", {{{"type", "text"}, {"text", text}}}}, {"stop_reason", "end_turn"}, {"stop_sequence", nullptr},
             {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}};
  return {200, body.dump()};
}

MockLlmServer::Reply MockLlmServer::message_stream(const std::vector<std::string>& deltas, int input_tokens,
                                                   int output_tokens) {
  Reply r;
  r.pieces.push_back(sse({{"type", "message_start"},
                          {"message", {{"id", "msg_test"}, {"type", "message"}, {"role", "assistant"},
                                       {"model", "claude-test"}, {"content", Value::array()},
                                       {"usage", {{"input_tokens", input_tokens}, {"output_tokens", 1}}}}}},
                         "message_start"));
  r.pieces.push_back(sse({{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}},
                         "content_block_start"));
  r.pieces.push_back(sse({{"type", "ping"}}, "ping"));
  for (const auto& d : deltas)
    r.pieces.push_back(sse({{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", d}}}},
                           "content_block_delta"));
  r.pieces.push_back(sse({{"type", "content_block_stop"}, {"index", 0}}, "content_block_stop"));
  r.pieces.push_back(sse({{"type", "message_delta"}, {"delta", {{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}},
                          {"usage", {{"output_tokens", output_tokens}}}},
                         "message_delta"));
  r.pieces.push_back(sse({{"type", "message_stop"}}, "message_stop"));
  return r;
}

}  // namespace engine::test
