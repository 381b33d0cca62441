#include "support/mock_llm_server.h"

#include <httplib.h>

#include <chrono>

namespace engine::test {

struct MockLlmServer::Impl {
  httplib::Server server;
  int port = 0;
  std::thread thread;
  mutable std::mutex mu;
  std::deque<Reply> replies;
  std::vector<Request> requests;
};

MockLlmServer::MockLlmServer() : impl_(std::make_unique<Impl>()) {
  impl_->server.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    Reply reply;
    {
      std::lock_guard<std::mutex> lock(impl_->mu);
      impl_->requests.push_back({Value::parse(req.body, nullptr, false), req.get_header_value("Authorization")});
      if (impl_->replies.empty()) {
        reply = {500, R"({"error": {"message": "the mock server has no scripted reply left"}})", {}, 0};
      } else {
        reply = impl_->replies.front();
        impl_->replies.pop_front();
      }
    }
    if (reply.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    res.set_content(reply.body, "application/json");
  });
  impl_->port = impl_->server.bind_to_any_port("127.0.0.1");
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  // cpp-httplib 0.11 has no wait_until_ready(); the loop is bounded so a server that never starts fails the test.
  for (int i = 0; i < 5000 && !impl_->server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

MockLlmServer::~MockLlmServer() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string MockLlmServer::base_url() const { return "http://127.0.0.1:" + std::to_string(impl_->port) + "/v1"; }

void MockLlmServer::enqueue(Reply r) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->replies.push_back(std::move(r));
}

std::vector<MockLlmServer::Request> MockLlmServer::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->requests;
}

MockLlmServer::Reply MockLlmServer::chat(const std::string& content, int prompt_tokens, int completion_tokens) {
  Value body{{"id", "chatcmpl-test"},
             {"object", "chat.completion"},
             {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", "stop"}}}},
             {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens},
                        {"total_tokens", prompt_tokens + completion_tokens}}}};
  return {200, body.dump(), {}, 0};
}

}  // namespace engine::test
