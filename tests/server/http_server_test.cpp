// The HTTP server under engine serve, driven by raw sockets and cpp-httplib: answers from other threads reaching
// suspended connections, streams in order, a client that leaves or reads too slowly losing its exchange, and the
// hostile clients (a body declared too large, a chunked body past the limit, a connection that sends nothing,
// many idle connections).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <httplib.h>
#include <thread>

#include "engine/server/http_server.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::server;
using namespace std::chrono_literals;

namespace {

// A connected socket to the server, closed when it dies.
class RawClient {
 public:
  explicit RawClient(uint16_t port, int receive_buffer = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receive_buffer > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawClient() { close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;
  bool connected() const { return connected_; }
  bool send_text(const std::string& text) {
    return ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }
  // What arrives until the peer closes, `limit` bytes are read, or 5 s pass.
  std::string read_some(size_t limit = 1 << 16) {
    std::string out;
    char buf[4096];
    while (out.size() < limit) {
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = n == 0 || errno == ECONNRESET;
        break;
      }
      out.append(buf, static_cast<size_t>(n));
      if (out.find("\r\n\r\n") != std::string::npos && limit == (1 << 16)) break;
    }
    return out;
  }
  bool closed_by_peer() const { return closed_; }
  // Whether the peer closes the connection within `wait` (with nothing to read before it).
  bool wait_closed(timeval wait) {
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    char c;
    ssize_t n = ::recv(fd_, &c, 1, 0);
    closed_ = n == 0 || (n < 0 && errno == ECONNRESET);
    return closed_;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
};

bool stopped_within(const Cancel& cancel, std::chrono::milliseconds wait) {
  return test::wait_until([&] { return cancel.stopped(); }, static_cast<int>(wait.count()));
}

ServerLimits quick_limits() {
  ServerLimits limits;
  limits.heartbeat = 50ms;
  limits.idle_timeout = 1s;
  return limits;
}

}  // namespace

TEST_CASE("http server: an answer given later on another thread reaches the waiting client", "[server][http]") {
  std::vector<std::thread> answerers;
  HttpServer http("127.0.0.1", 0, quick_limits(), [&](const std::shared_ptr<Exchange>& e) {
    answerers.emplace_back([e] {
      std::this_thread::sleep_for(50ms);
      e->respond(json_response(201, "{\"path\":\"" + e->request().path + "\",\"body\":\"" + e->request().body + "\"}"));
    });
  });
  httplib::Client client("127.0.0.1", http.port());
  auto r = client.Post("/x/y", "hello", "text/plain");
  REQUIRE(r);
  CHECK(r->status == 201);
  CHECK(r->body == R"({"path":"/x/y","body":"hello"})");
  CHECK(r->get_header_value("Content-Type") == "application/json");
  CHECK(r->get_header_value("x-request-id").size() == 16);
  // The client's own request id is kept when it is a plain token, so both sides' logs name one request.
  auto named = client.Get("/", {{"X-Request-Id", "my-id.42"}});
  REQUIRE(named);
  CHECK(named->get_header_value("x-request-id") == "my-id.42");
  auto odd = client.Get("/", {{"X-Request-Id", "has space"}});
  REQUIRE(odd);
  CHECK(odd->get_header_value("x-request-id") != "has space");
  http.stop();
  for (auto& t : answerers) t.join();
}

TEST_CASE("http server: a stream's pieces arrive whole and in order", "[server][http]") {
  std::vector<std::thread> writers;
  HttpServer http("127.0.0.1", 0, quick_limits(), [&](const std::shared_ptr<Exchange>& e) {
    writers.emplace_back([e] {
      e->open_stream({200, {{"Content-Type", "text/plain"}}, ""});
      for (int i = 0; i < 2000; ++i) e->send(std::to_string(i) + "\n");
      e->end_stream();
    });
  });
  httplib::Client client("127.0.0.1", http.port());
  auto r = client.Get("/stream");
  REQUIRE(r);
  std::string expected;
  for (int i = 0; i < 2000; ++i) expected += std::to_string(i) + "\n";
  CHECK(r->body == expected);
  http.stop();
  for (auto& t : writers) t.join();
}

// The exchange is where a response leaves the process: no handler masks, and none can forget to.
TEST_CASE("http server: with a secret set, whole answers, their headers and streams cut anywhere are masked",
          "[server][http][redaction]") {
  const std::string key = "sk-exchange-secret-0123456789";
  auto secrets = test::secrets_of({key});
  std::vector<std::thread> writers;
  HttpServer http(
      "127.0.0.1", 0, quick_limits(),
      [&](const std::shared_ptr<Exchange>& e) {
        if (e->request().path == "/whole")
          return e->respond({200, {{"Content-Type", "text/plain"}, {"X-Echo", key}}, "{\"said\":\"" + key + "\"}"});
        writers.emplace_back([e, key] {
          e->open_stream({200, {{"Content-Type", "text/plain"}}, ""});
          // The key cut across sends at every few bytes: the tail that could begin it waits for the next piece.
          std::string text = "data: " + key + " and " + key.substr(0, 12) + "\n\n";
          for (size_t at = 0; at < text.size(); at += 3) e->send(text.substr(at, 3));
          e->send("data: ends sk-exchange");
          e->end_stream();  // the held tail, decided
        });
      },
      {}, secrets);
  httplib::Client client("127.0.0.1", http.port());
  auto whole = client.Get("/whole");
  REQUIRE(whole);
  CHECK(whole->body == "{\"said\":\"***\"}");
  CHECK(whole->get_header_value("X-Echo") == "***");
  auto stream = client.Get("/stream");
  REQUIRE(stream);
  CHECK(stream->body == "data: *** and ***\n\ndata: ends ***");
  http.stop();
  for (auto& t : writers) t.join();
}

TEST_CASE("http server: a client that leaves a quiet stream is noticed by the heartbeat and its exchange cancelled",
          "[server][http]") {
  std::shared_ptr<Exchange> held;
  std::mutex mu;
  HttpServer http("127.0.0.1", 0, quick_limits(), [&](const std::shared_ptr<Exchange>& e) {
    e->open_stream({200, {{"Content-Type", "text/event-stream"}}, ""});
    std::lock_guard lock(mu);
    held = e;
  });
  {
    RawClient client(http.port());
    REQUIRE(client.connected());
    REQUIRE(client.send_text("GET /events HTTP/1.1\r\nHost: x\r\n\r\n"));
    std::string head = client.read_some();
    CHECK(head.find("200") != std::string::npos);
    std::string beats = client.read_some(8);  // heartbeats: SSE comments
    CHECK(beats.find(":\n\n") != std::string::npos);
  }
  std::shared_ptr<Exchange> e;
  {
    std::lock_guard lock(mu);
    e = held;
  }
  REQUIRE(e);
  CHECK(stopped_within(e->cancel(), 3s));
  CHECK(e->gone());
  CHECK_FALSE(e->send("late"));
  http.stop();
}

TEST_CASE("http server: a body declared larger than the limit is refused with 413 before it is read",
          "[server][http][hostile]") {
  ServerLimits limits = quick_limits();
  limits.max_body_bytes = 1000;
  std::atomic<int> handled{0};
  HttpServer http("127.0.0.1", 0, limits, [&](const std::shared_ptr<Exchange>& e) {
    ++handled;
    e->respond(json_response(200, "{}"));
  });
  RawClient client(http.port());
  REQUIRE(client.send_text("POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: 10737418240\r\n\r\n"));
  std::string reply = client.read_some();
  CHECK(reply.rfind("HTTP/1.1 413", 0) == 0);
  CHECK(handled == 0);
  httplib::Client ok("127.0.0.1", http.port());
  auto small = ok.Post("/v1/x", std::string(1000, 'a'), "text/plain");
  REQUIRE(small);
  CHECK(small->status == 200);
  http.stop();
}

TEST_CASE("http server: a chunked body past the limit, or one that never ends, closes its connection",
          "[server][http][hostile]") {
  ServerLimits limits = quick_limits();
  limits.max_body_bytes = 64 * 1024;
  limits.upload_time = 1s;
  std::atomic<int> handled{0};
  HttpServer http("127.0.0.1", 0, limits, [&](const std::shared_ptr<Exchange>& e) {
    ++handled;
    e->respond(json_response(200, "{}"));
  });
  SECTION("past the limit") {
    RawClient client(http.port());
    REQUIRE(client.send_text("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"));
    std::string piece = "1000\r\n" + std::string(0x1000, 'a') + "\r\n";
    for (int i = 0; i < 64 && client.send_text(piece); ++i) {
    }
    client.read_some(1 << 20);
    CHECK(client.closed_by_peer());
  }
  SECTION("a trickle that never ends") {
    RawClient client(http.port());
    REQUIRE(client.send_text("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"));
    auto start = std::chrono::steady_clock::now();
    bool open = true;
    while (open && std::chrono::steady_clock::now() - start < 5s) {
      open = client.send_text("1\r\na\r\n");
      std::this_thread::sleep_for(100ms);
    }
    CHECK_FALSE(open);  // cut off after upload_time, though never idle
  }
  CHECK(handled == 0);
  http.stop();
}

TEST_CASE("http server: a connection that sends nothing, or half a request, is closed after the idle timeout",
          "[server][http][hostile]") {
  HttpServer http("127.0.0.1", 0, quick_limits(), [](const std::shared_ptr<Exchange>& e) {
    e->respond(json_response(200, "{}"));
  });
  RawClient silent(http.port());
  RawClient slowloris(http.port());
  REQUIRE(slowloris.send_text("GET / HTTP/1.1\r\nHost: x\r\n"));
  silent.read_some();
  slowloris.read_some();
  CHECK(silent.closed_by_peer());
  CHECK(slowloris.closed_by_peer());
  http.stop();
}

TEST_CASE("http server: a head sent a byte at a time is cut at the head deadline, however often bytes come",
          "[server][http][hostile]") {
  ServerLimits limits = quick_limits();
  limits.idle_timeout = 30s;  // never idle: a byte comes every 50 ms
  limits.head_time = 1s;
  std::atomic<int> requests{0};
  HttpServer http("127.0.0.1", 0, limits, [&](const std::shared_ptr<Exchange>& e) {
    ++requests;
    e->respond(json_response(200, "{}"));
  });
  RawClient slowloris(http.port());
  REQUIRE(slowloris.connected());
  timeval tv{0, 50000};
  const std::string head = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(400, 'a');  // 20 s of bytes
  size_t sent = 0;
  bool cut = false;
  while (sent < head.size() && !cut) {
    if (!slowloris.send_text(head.substr(sent, 1))) break;
    ++sent;
    cut = slowloris.wait_closed(tv);  // the pace: the client waits 50 ms for the server to hang up
  }
  CHECK(cut);
  CHECK(sent < head.size());
  CHECK(requests == 0);
  // A kept-alive connection waits for its next request's head no longer than that either.
  RawClient kept(http.port());
  REQUIRE(kept.send_text("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  CHECK(kept.read_some().rfind("HTTP/1.1 200", 0) == 0);
  kept.read_some();
  CHECK(kept.closed_by_peer());
  CHECK(requests == 1);
  http.stop();
}

TEST_CASE("http server: past the connection cap a new connection is closed at once and the open ones go on",
          "[server][http][hostile]") {
  ServerLimits limits = quick_limits();
  limits.idle_timeout = 30s;
  limits.head_time = 30s;
  limits.max_connections = 2;
  HttpServer http("127.0.0.1", 0, limits, [](const std::shared_ptr<Exchange>& e) {
    e->respond(json_response(200, "{}"));
  });
  const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  // Each answered once, so the server has taken both before the third comes.
  auto a = std::make_unique<RawClient>(http.port());
  RawClient b(http.port());
  for (RawClient* c : {a.get(), &b}) {
    REQUIRE(c->send_text(request));
    CHECK(c->read_some().rfind("HTTP/1.1 200", 0) == 0);
  }
  RawClient third(http.port());
  CHECK(third.read_some().empty());
  CHECK(third.closed_by_peer());
  // The two open ones are still served.
  REQUIRE(b.send_text(request));
  CHECK(b.read_some().rfind("HTTP/1.1 200", 0) == 0);
  // Once one leaves, a new client takes its place (as soon as the server has seen it go).
  a.reset();
  bool served = false;
  for (int attempt = 0; attempt < 100 && !served; ++attempt) {
    RawClient next(http.port());
    next.send_text(request);
    served = next.read_some().rfind("HTTP/1.1 200", 0) == 0;
  }
  CHECK(served);
  http.stop();
}

TEST_CASE("http server: a client that reads too slowly loses its stream and the writer is never held",
          "[server][http][hostile]") {
  ServerLimits limits = quick_limits();
  limits.max_stream_queue_bytes = 64 * 1024;
  std::atomic<bool> refused{false};
  std::atomic<size_t> sent{0};
  std::vector<std::thread> writers;
  HttpServer http("127.0.0.1", 0, limits, [&](const std::shared_ptr<Exchange>& e) {
    writers.emplace_back([&, e] {
      e->open_stream({200, {{"Content-Type", "text/plain"}}, ""});
      std::string piece(16 * 1024, 'x');
      for (int i = 0; i < 8192; ++i) {  // 128 MB at most, far past any socket buffer
        if (!e->send(piece)) {
          refused = true;
          break;
        }
        sent += piece.size();
      }
      e->end_stream();
    });
  });
  RawClient client(http.port(), 4096);
  REQUIRE(client.send_text("GET /big HTTP/1.1\r\nHost: x\r\n\r\n"));
  CHECK(test::wait_until([&] { return refused.load(); }));
  CHECK(sent < size_t{64} << 20);
  client.close();
  http.stop();
  for (auto& t : writers) t.join();
}

TEST_CASE("http server: two thousand idle connections are held while others are answered", "[server][http][hostile]") {
  ServerLimits limits = quick_limits();
  limits.idle_timeout = 30s;
  HttpServer http("127.0.0.1", 0, limits, [](const std::shared_ptr<Exchange>& e) {
    e->respond(json_response(200, "{\"ok\":true}"));
  });
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 2000; ++i) {
    idle.push_back(std::make_unique<RawClient>(http.port()));
    REQUIRE(idle.back()->connected());
  }
  httplib::Client client("127.0.0.1", http.port());
  for (int i = 0; i < 20; ++i) {
    auto r = client.Get("/healthz");
    REQUIRE(r);
    CHECK(r->status == 200);
  }
  idle.clear();
  http.stop();
}

TEST_CASE("http server: stopping answers an exchange still waiting with 503", "[server][http]") {
  std::shared_ptr<Exchange> waiting;
  std::atomic<bool> arrived{false};
  HttpServer http("127.0.0.1", 0, quick_limits(), [&](const std::shared_ptr<Exchange>& e) {
    waiting = e;
    arrived = true;
  });
  httplib::Client client("127.0.0.1", http.port());
  std::thread stopper([&] {
    test::wait_until([&] { return arrived.load(); });  // the request is in, waiting for an answer
    http.stop();
  });
  auto r = client.Get("/never");
  stopper.join();
  REQUIRE(r);
  CHECK(r->status == 503);
  REQUIRE(waiting);
  CHECK(waiting->cancel().stopped());
}

TEST_CASE("http server: an address that cannot be listened on is a clear error", "[server][http]") {
  HttpServer first("127.0.0.1", 0, quick_limits(), [](const std::shared_ptr<Exchange>& e) { e->respond({}); });
  CHECK_THROWS_WITH(HttpServer("127.0.0.1", first.port(), quick_limits(), [](const std::shared_ptr<Exchange>&) {}),
                    Catch::Contains("cannot listen on 127.0.0.1:" + std::to_string(first.port())));
  CHECK_THROWS_WITH(HttpServer("no-such-host.invalid", 0, quick_limits(), [](const std::shared_ptr<Exchange>&) {}),
                    Catch::Contains("cannot listen on 'no-such-host.invalid'"));
}
