#include "support/granted_api.h"

#include <chrono>

namespace engine::test {

namespace {

std::string json_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

GrantedApi::GrantedApi() {
  auto echo = [](const httplib::Request& req, httplib::Response& res) {
    res.set_header("X-Echo-Auth", req.get_header_value("Authorization"));
    res.set_content("{\"method\":" + json_quoted(req.method) + ",\"path\":" + json_quoted(req.path) +
                        ",\"auth\":" + json_quoted(req.get_header_value("Authorization")) +
                        ",\"probe\":" + json_quoted(req.get_header_value("X-Probe")) +
                        ",\"body\":" + json_quoted(req.body) + "}",
                    "application/json");
  };
  server_.Get("/v1/echo", echo);
  server_.Post("/v1/echo", echo);
  server_.Delete("/v1/echo", echo);
  server_.Get("/admin", echo);
  server_.Get("/v1/page", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<html><head><script>alert(1)</script></head><body><h1>Refunds</h1><p>Refunds take 14 days.</p>"
                    "</body></html>",
                    "text/html; charset=utf-8");
  });
  server_.Get("/v1/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content("no such page", "text/plain");
  });
  server_.Get("/v1/redirect-in", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/v1/echo"); });
  server_.Post("/v1/see-other", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("echo", 303); });
  server_.Get("/v1/redirect-admin", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/admin"); });
  server_.Get("/v1/redirect-host", [this](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("http://localhost:" + std::to_string(port_) + "/v1/echo");
  });
  server_.Get("/v1/redirect-loop", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/v1/redirect-loop"); });
  server_.Get("/v1/endless", [this](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/octet-stream", [this](size_t, httplib::DataSink& sink) {
      std::string chunk(64 << 10, 'x');
      return !stopping_ && sink.write(chunk.data(), chunk.size());
    });
  });
  server_.Get("/v1/drip", [this](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/plain", [this](size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return !stopping_ && sink.write("d", 1);
    });
  });
  server_.Get("/v1/hang", [this](const httplib::Request&, httplib::Response& res) {
    ++hangs_;
    res.set_chunked_content_provider("text/plain", [this](size_t, httplib::DataSink& sink) {
      for (int i = 0; i < 200 && !stopping_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return !stopping_ && sink.is_writable();
    });
  });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  for (int i = 0; i < 5000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

GrantedApi::~GrantedApi() {
  stopping_ = true;
  server_.stop();
  thread_.join();
}

}  // namespace engine::test
