// Which requests a server answers by their Host and Origin headers: loopback names, a page rebound to 127.0.0.1,
// another site's page, the server's own page, origins allowed by name or all at once.
#include <catch2/catch.hpp>

#include "engine/core/json_parse.h"
#include "engine/server/request_origin.h"

using namespace engine;
using namespace engine::server;

namespace {

HttpRequest request(HeaderList headers) {
  HttpRequest r;
  r.method = "GET";
  r.path = "/v1/models";
  r.headers = std::move(headers);
  return r;
}

// The refusal's error code, or "" for a request answered.
std::string refusal_code(const HeaderList& headers, const OriginPolicy& policy) {
  auto refused = refusal_by_origin(request(headers), policy);
  if (!refused) return "";
  CHECK(refused->status == 403);
  return parse_json(refused->body)["error"]["code"];
}

}  // namespace

TEST_CASE("request origin: the loopback names are localhost, 127.x and ::1", "[server][origin]") {
  for (const char* name : {"localhost", "LocalHost", "127.0.0.1", "127.1.2.3", "::1"}) CHECK(is_loopback_host(name));
  for (const char* name : {"", "0.0.0.0", "::", "localhost.attacker.example", "128.0.0.1", "10.0.0.1", "::2"})
    CHECK_FALSE(is_loopback_host(name));
  CHECK(host_name("127.0.0.1:8080") == "127.0.0.1");
  CHECK(host_name("[::1]:8080") == "::1");
  CHECK(host_name("[::1") == "");
  CHECK(host_name("localhost") == "localhost");
}

TEST_CASE("request origin: on loopback without tokens only a Host naming this machine is answered", "[server][origin]") {
  OriginPolicy local{.local_hosts_only = true};
  CHECK(refusal_code({{"host", "127.0.0.1:8080"}}, local) == "");
  CHECK(refusal_code({{"host", "localhost:1"}}, local) == "");
  CHECK(refusal_code({{"host", "[::1]:8080"}}, local) == "");
  CHECK(refusal_code({{"host", "attacker.example:8080"}}, local) == "host_not_local");
  CHECK(refusal_code({{"host", "localhost.attacker.example"}}, local) == "host_not_local");
  CHECK(refusal_code({}, local) == "host_not_local");
  // Served on another address or with tokens, any Host is.
  CHECK(refusal_code({{"host", "agents.example.com"}}, OriginPolicy{}) == "");
}

TEST_CASE("request origin: a page of another origin is refused, the server's own and those allowed are not",
          "[server][origin]") {
  OriginPolicy local{.local_hosts_only = true};
  HeaderList own{{"host", "127.0.0.1:8080"}, {"origin", "http://127.0.0.1:8080"}};
  CHECK(refusal_code(own, local) == "");
  CHECK(refusal_code({{"host", "localhost:8080"}, {"origin", "http://LOCALHOST:8080"}}, local) == "");
  for (const char* origin : {"https://attacker.example", "http://127.0.0.1:9999", "http://localhost:8080",
                             "null", "file://", "http://127.0.0.1:8080/path", "http://user@127.0.0.1:8080", ""}) {
    INFO(origin);
    CHECK(refusal_code({{"host", "127.0.0.1:8080"}, {"origin", origin}}, local) == "origin_not_allowed");
  }
  auto refused = refusal_by_origin(request({{"host", "127.0.0.1:8080"}, {"origin", "https://attacker.example"}}), local);
  REQUIRE(refused);
  CHECK(parse_json(refused->body)["error"]["message"] ==
        "requests from the web page at https://attacker.example are not answered: only the server's own pages and "
        "the origins given with --allow-origin may call it");
  // With tokens, or on another address, an Origin is checked all the same.
  CHECK(refusal_code({{"host", "agents.example.com"}, {"origin", "https://attacker.example"}}, OriginPolicy{}) ==
        "origin_not_allowed");
  CHECK(refusal_code({{"host", "agents.example.com"}, {"origin", "https://agents.example.com"}}, OriginPolicy{}) == "");
  OriginPolicy allowed{.local_hosts_only = true, .allowed_origins = {"https://app.example.com"}};
  CHECK(refusal_code({{"host", "127.0.0.1:8080"}, {"origin", "https://app.example.com"}}, allowed) == "");
  CHECK(refusal_code({{"host", "127.0.0.1:8080"}, {"origin", "https://app.example.com.attacker.example"}}, allowed) ==
        "origin_not_allowed");
  // "*" opens the server to every page, never to a rebound Host.
  OriginPolicy open{.local_hosts_only = true, .allowed_origins = {"*"}};
  CHECK(refusal_code({{"host", "127.0.0.1:8080"}, {"origin", "https://anyone.example"}}, open) == "");
  CHECK(refusal_code({{"host", "attacker.example"}, {"origin", "https://attacker.example"}}, open) == "host_not_local");
}
