// HTTP under grants against a loopback server: what is refused and named, redirects checked hop by hop, bodies and
// times bounded, and a grant's header never shown to the tool.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/fiber.h"
#include "engine/tools/http_access.h"
#include "support/granted_api.h"
#include "support/test_support.h"

using namespace engine;
using namespace engine::tools;
using engine::test::GrantedApi;

namespace {

const std::string kToken = "Bearer tok-5f3a9c2e7d1b4a60";

HttpAccess api_access(const GrantedApi& api, std::vector<std::string> methods = {"GET", "POST"},
                      size_t max_bytes = 4 << 20) {
  HttpGrant g;
  g.written = api.base() + "/v1/";
  g.prefix = *net::parse_url(g.written);
  g.methods = std::move(methods);
  g.headers = {{"Authorization", kToken}};
  g.max_response_bytes = max_bytes;
  return HttpAccess({g}, {kToken});
}

SteadyTime in_seconds(int s) { return std::chrono::steady_clock::now() + std::chrono::seconds(s); }

Error http_error(const HttpAccess& access, HttpCall call, SteadyTime deadline = in_seconds(10), const Cancel* cancel = nullptr) {
  try {
    access.request(std::move(call), deadline, cancel);
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error");
  return Error(ErrorKind::EngineInternal, "");
}

}  // namespace

TEST_CASE("http grant: a granted request carries the grant's header, which the tool never sees", "[tools][http]") {
  GrantedApi api;
  HttpAccess access = api_access(api);
  HttpReply reply = access.request(HttpCall{"post", api.base() + "/v1/echo", {{"X-Probe", "p"}}, "hi"}, in_seconds(10), nullptr);
  CHECK(reply.status == 200);
  // The server received the token; what comes back quoting it is masked before the tool reads it.
  CHECK(reply.body == "{\"method\":\"POST\",\"path\":\"/v1/echo\",\"auth\":\"***\",\"probe\":\"p\",\"body\":\"hi\"}");
  bool masked_header = false;
  for (const auto& [name, value] : reply.headers)
    if (name == "x-echo-auth") masked_header = value == "***";
  CHECK(masked_header);
}

TEST_CASE("http grant: an ungranted host, scheme, port, method or path is refused naming the grant", "[tools][http]") {
  GrantedApi api;
  HttpAccess access = api_access(api);
  std::string grant = api.base() + "/v1/";
  std::string port = std::to_string(api.port());
  auto refused = [&](const std::string& method, const std::string& url) {
    Error e = http_error(access, HttpCall{method, url});
    CHECK(e.kind() == ErrorKind::ToolRefused);
    return e.message();
  };
  CHECK(refused("GET", "http://localhost:" + port + "/v1/echo") ==
        "GET http://localhost:" + port + "/v1/echo is not granted: no grant is for host localhost (granted: " + grant + ")");
  CHECK(refused("GET", "https://127.0.0.1:" + port + "/v1/echo") ==
        "GET https://127.0.0.1:" + port + "/v1/echo is not granted: the grant " + grant + " is for http, not https");
  CHECK(refused("GET", "http://127.0.0.1:1/v1/echo").find("is for port " + port + ", not 1") != std::string::npos);
  CHECK(refused("DELETE", api.base() + "/v1/echo").find("the grant " + grant + " allows GET, POST, not DELETE") != std::string::npos);
  CHECK(refused("GET", api.base() + "/admin").find("the path /admin is not under the grant " + grant) != std::string::npos);
  CHECK(refused("GET", api.base() + "/v1x").find("is not under the grant") != std::string::npos);
  CHECK(refused("GET", api.base() + "/v1/%2e%2e/admin").find("encoded '.'") != std::string::npos);
  CHECK(refused("GET", api.base() + "/v1/../admin").find("'..' segment") != std::string::npos);
  CHECK(refused("GET", "http://127.0.0.1:" + port + "@evil.com/v1/").find("user info") != std::string::npos);
  CHECK(refused("G ET", api.base() + "/v1/echo").find("is not an HTTP method") != std::string::npos);
  // A tool may not set the grant's header, nor one that frames the request.
  Error own = http_error(access, HttpCall{"GET", api.base() + "/v1/echo", {{"authorization", "mine"}}});
  CHECK(own.message().find("the header authorization is set by the grant") != std::string::npos);
  Error host = http_error(access, HttpCall{"GET", api.base() + "/v1/echo", {{"Host", "evil.com"}}});
  CHECK(host.message() == "the header Host is set by the engine, not by a tool");
  Error split = http_error(access, HttpCall{"GET", api.base() + "/v1/echo", {{"X-A", "1\r\nAuthorization: x"}}});
  CHECK(split.message() == "the header X-A must be one line of at most 8 KB");
  HttpAccess none({}, {});
  CHECK(http_error(none, HttpCall{"GET", api.base() + "/v1/echo"}).message().find("has no http grant") != std::string::npos);
}

TEST_CASE("http grant: redirects are followed only under a grant", "[tools][http]") {
  GrantedApi api;
  HttpAccess access = api_access(api);
  HttpReply in = access.request(HttpCall{"GET", api.base() + "/v1/redirect-in"}, in_seconds(10), nullptr);
  CHECK(in.status == 200);
  CHECK(in.url == api.base() + "/v1/echo");
  HttpReply other = access.request(HttpCall{"POST", api.base() + "/v1/see-other", {}, "x"}, in_seconds(10), nullptr);
  CHECK(other.body.find("\"method\":\"GET\"") != std::string::npos);  // 303: the next request is a GET
  Error out = http_error(access, HttpCall{"GET", api.base() + "/v1/redirect-host"});
  CHECK(out.kind() == ErrorKind::ToolRefused);
  std::string port = api.base().substr(api.base().rfind(':') + 1);
  CHECK(out.message() == api.base() + "/v1/redirect-host redirects to http://localhost:" + port +
                             "/v1/echo, which is refused: no grant is for host localhost (granted: " + api.base() +
                             "/v1/)");
  Error admin = http_error(access, HttpCall{"GET", api.base() + "/v1/redirect-admin"});
  CHECK(admin.message() == api.base() + "/v1/redirect-admin redirects to " + api.base() +
                               "/admin, which is refused: the path /admin is not under the grant " + api.base() + "/v1/");
  Error loop = http_error(access, HttpCall{"GET", api.base() + "/v1/redirect-loop"});
  CHECK(loop.message().find("more than 5 redirects") != std::string::npos);
}

TEST_CASE("http grant: endless, dripping and silent bodies end at the grant's bounds", "[tools][http]") {
  GrantedApi api;
  HttpAccess access = api_access(api, {"GET"}, 1 << 20);
  Error big = http_error(access, HttpCall{"GET", api.base() + "/v1/endless"});
  CHECK(big.kind() == ErrorKind::HttpTooLarge);
  CHECK(big.message().find("larger than the grant's max_bytes (1048576 bytes)") != std::string::npos);
  // Neither ends on its own: only the bound ends each.
  Error drip = http_error(access, HttpCall{"GET", api.base() + "/v1/drip", {}, "", std::chrono::milliseconds(400)});
  CHECK(drip.kind() == ErrorKind::ToolTimeout);
  Error hang = http_error(access, HttpCall{"GET", api.base() + "/v1/hang"}, std::chrono::steady_clock::now() + std::chrono::milliseconds(300));
  CHECK(hang.kind() == ErrorKind::ToolTimeout);
  // A run's cancel ends the wait too.
  Cancel cancel;
  int hangs_before = api.hangs();
  std::thread stopper([&] {
    test::wait_until([&] { return api.hangs() > hangs_before; });  // the request is in, and waits
    cancel.cancel();
  });
  Error stopped = http_error(access, HttpCall{"GET", api.base() + "/v1/hang"}, in_seconds(30), &cancel);
  stopper.join();
  CHECK(stopped.kind() == ErrorKind::RunCancelled);
}

TEST_CASE("http grant: requests from fibers share the transport thread", "[tools][http]") {
  GrantedApi api;
  HttpAccess access = api_access(api);
  std::atomic<int> ok{0};
  {
    FiberPool pool(2);
    // Six at once: the loopback server answers eight connections at a time.
    for (int f = 0; f < 6; ++f)
      pool.spawn([&, f] {
        for (int i = f * 10; i < f * 10 + 10; ++i) {
          HttpReply r = access.request(HttpCall{"GET", api.base() + "/v1/echo", {{"X-Probe", std::to_string(i)}}},
                                       in_seconds(20), nullptr);
          if (r.body.find("\"probe\":\"" + std::to_string(i) + "\"") != std::string::npos) ++ok;
        }
      });
    pool.join();
  }
  CHECK(ok == 60);
}
