// The HTTP client for every user: any method, request and response headers, a body bound the caller chooses.
#include <catch2/catch.hpp>

#include <httplib.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/core/error.h"
#include "engine/net/http_client.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::net;

namespace {

// A loopback server that answers every method with what it received.
class EchoServer {
 public:
  EchoServer() {
    auto echo = [](const httplib::Request& req, httplib::Response& res) {
      std::string seen = req.method + " " + req.path + " [" + req.get_header_value("X-Probe") + "] " + req.body;
      res.set_header("X-Seen-Method", req.method);
      res.set_content(req.method == "HEAD" ? "" : seen, "text/plain");
      if (req.path == "/big") res.set_content(std::string(5000, 'b'), "text/plain");
    };
    server_.Get(".*", echo);
    server_.Post(".*", echo);
    server_.Put(".*", echo);
    server_.Patch(".*", echo);
    server_.Delete(".*", echo);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // cpp-httplib 0.11 has no wait_until_ready(); bounded, so a server that never starts fails the test.
    test::wait_until([&] { return server_.is_running(); }, 5000);
  }
  ~EchoServer() {
    server_.stop();
    thread_.join();
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace

TEST_CASE("http: any method with its headers and body, and the response's headers", "[net][http]") {
  EchoServer server;
  HttpClient client;
  auto send = [&](const std::string& method, const std::string& body = "") {
    return client.send(HttpRequest{method, server.url("/mcp"), {"X-Probe: p1", "Content-Type: text/plain"}, body});
  };
  HttpResponse got = send("GET");
  CHECK(got.status == 200);
  CHECK(got.body == "GET /mcp [p1] ");
  CHECK(*got.header("x-seen-method") == "GET");
  CHECK(send("POST", "{}").body == "POST /mcp [p1] {}");
  CHECK(send("PUT", "x").body == "PUT /mcp [p1] x");
  CHECK(send("PATCH", "y").body == "PATCH /mcp [p1] y");
  CHECK(send("DELETE").body == "DELETE /mcp [p1] ");  // MCP ends a session with DELETE
  CHECK(send("DELETE").header("x-seen-method") != nullptr);
}

TEST_CASE("http: the caller bounds the body, and a method must be one", "[net][http]") {
  EchoServer server;
  HttpClient client;
  HttpRequest big{"GET", server.url("/big")};
  CHECK(client.send(big).body.size() == 5000);
  big.max_response_bytes = 4096;
  CHECK_THROWS_WITH(client.send(big), "the server's answer passed 4096 bytes; the transfer was stopped");
  for (const char* bad : {"get", "GET /x HTTP/1.1\r\nHost: y", "", "PO ST"}) {
    INFO(bad);
    try {
      client.send(HttpRequest{bad, server.url("/")});
      FAIL("sent");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::HttpBadRequest);
    }
  }
  // The client still works after refusing.
  CHECK(client.send(HttpRequest{"GET", server.url("/after")}).body == "GET /after [] ");
}

TEST_CASE("http: a sink that has what it wanted lets the body end within its linger, and cuts one that goes on",
          "[net][http]") {
  httplib::Server server;
  // One piece, then either the end or a silence until the test is over.
  std::mutex mu;
  std::condition_variable over;
  bool test_over = false, hold_ended = false;
  server.Get("/(end|hold)", [&](const httplib::Request& req, httplib::Response& res) {
    bool hold = req.matches[1] == "hold";
    res.set_chunked_content_provider("text/event-stream", [&, hold](size_t offset, httplib::DataSink& sink) {
      if (offset == 0) {
        sink.write("data: answer\n\n", 14);
        return true;
      }
      if (hold) {
        std::unique_lock lock(mu);
        over.wait_for(lock, std::chrono::seconds(60), [&] { return test_over; });
        hold_ended = true;
      }
      sink.done();
      return true;
    });
  });
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { server.listen_after_bind(); });
  test::wait_until([&] { return server.is_running(); }, 5000);
  HttpClient client;
  auto fetch = [&](const std::string& path) {
    HttpRequest r{"GET", "http://127.0.0.1:" + std::to_string(port) + path, {}, ""};
    r.linger = std::chrono::milliseconds(200);
    std::string seen;
    HttpResponse got = client.send(r, [&](std::string_view piece) {
      seen += piece;
      return false;  // the first piece is all it wants
    });
    CHECK(got.aborted_by_sink);
    CHECK(seen == "data: answer\n\n");
  };
  fetch("/end");
  // A body that goes on is cut after its linger: the client is back while the server still holds the body.
  fetch("/hold");
  {
    std::lock_guard lock(mu);
    CHECK_FALSE(hold_ended);
    test_over = true;
  }
  over.notify_all();
  server.stop();
  serving.join();
}

