#include "support/otlp_receiver.h"

#include <httplib.h>

#include <condition_variable>
#include <thread>

#include "engine/core/json_parse.h"

namespace engine::test {

struct OtlpReceiver::Impl {
  httplib::Server server;
  mutable std::mutex mutex;
  std::vector<std::string> bodies, authorizations;
  std::string content_type;
  std::vector<Value> spans;
  std::condition_variable released;
  bool held = false;
  int answered = 0;
  int port = 0;
  std::thread thread;
};

OtlpReceiver::OtlpReceiver() : impl_(std::make_unique<Impl>()) {
  impl_->server.set_tcp_nodelay(true);  // as real collectors do: no 40 ms Nagle and delayed-ACK stall per answer
  impl_->server.Post("/v1/traces", [this](const httplib::Request& req, httplib::Response& res) {
    Value body = parse_json(req.body);
    {
      std::unique_lock lock(impl_->mutex);
      impl_->released.wait(lock, [this] { return !impl_->held; });
      ++impl_->answered;
      impl_->bodies.push_back(req.body);
      impl_->authorizations.push_back(req.get_header_value("Authorization"));
      impl_->content_type = req.get_header_value("Content-Type");
      if (body.is_object() && body.contains("resourceSpans"))
        for (const Value& resource : body["resourceSpans"])
          for (const Value& scope : resource["scopeSpans"])
            for (const Value& span : scope["spans"]) impl_->spans.push_back(span);
    }
    res.status = status.load();
    res.set_content(res.status == 200 ? "{}" : "{\"message\": \"refused for key sk-otlp-secret-0123456789\"}",
                    "application/json");
  });
  impl_->port = impl_->server.bind_to_any_port("127.0.0.1");
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
}

OtlpReceiver::~OtlpReceiver() {
  release();
  impl_->server.stop();
  impl_->thread.join();
}

void OtlpReceiver::hold() {
  std::lock_guard lock(impl_->mutex);
  impl_->held = true;
}

void OtlpReceiver::release() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->held = false;
  }
  impl_->released.notify_all();
}

int OtlpReceiver::answered() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->answered;
}

std::string OtlpReceiver::base_url() const { return "http://127.0.0.1:" + std::to_string(impl_->port); }

std::vector<std::string> OtlpReceiver::bodies() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->bodies;
}

std::vector<std::string> OtlpReceiver::authorizations() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->authorizations;
}

std::string OtlpReceiver::content_type() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->content_type;
}

std::vector<Value> OtlpReceiver::spans() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->spans;
}

std::map<std::string, Value> OtlpReceiver::attributes(const Value& span) {
  std::map<std::string, Value> out;
  if (span.contains("attributes"))
    for (const Value& a : span["attributes"]) out[a["key"].get<std::string>()] = a["value"];
  return out;
}

}  // namespace engine::test
