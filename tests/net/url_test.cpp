// The strict URL parser grants are checked with: what it takes apart, and what it refuses before anything is sent.
#include <catch2/catch.hpp>

#include "engine/net/url.h"

using namespace engine::net;

TEST_CASE("url: scheme, host, port, path and query, rebuilt as sent", "[net][url]") {
  auto u = parse_url("HTTPS://API.Example.com/v1/tickets?id=4&x=%20y#frag");
  REQUIRE(u);
  CHECK(u->scheme == "https");
  CHECK(u->host == "api.example.com");
  CHECK(u->port == 443);
  CHECK(u->path == "/v1/tickets");
  CHECK(u->query == "id=4&x=%20y");
  CHECK(u->text() == "https://api.example.com/v1/tickets?id=4&x=%20y");
  auto local = parse_url("http://127.0.0.1:8080");
  REQUIRE(local);
  CHECK(local->port == 8080);
  CHECK(local->path == "/");
  CHECK(local->text() == "http://127.0.0.1:8080/");
  auto v6 = parse_url("http://[::1]:9000/x");
  REQUIRE(v6);
  CHECK(v6->host == "[::1]");
  CHECK(v6->port == 9000);
}

TEST_CASE("url: user info, dot segments, encoded dots and slashes and odd bytes are refused", "[net][url]") {
  struct Case {
    const char* url;
    const char* why;
  };
  for (const Case& c : {Case{"https://api.example.com@evil.com/", "has user info"},
                        Case{"https://api.example.com/v1/../admin", "has a '.' or '..' segment"},
                        Case{"https://api.example.com/v1/./x", "has a '.' or '..' segment"},
                        Case{"https://api.example.com/v1/%2e%2e/admin", "encoded '.', '/' or '\\'"},
                        Case{"https://api.example.com/v1%2Fadmin", "encoded '.', '/' or '\\'"},
                        Case{"https://api.example.com/v1/%5cadmin", "encoded '.', '/' or '\\'"},
                        Case{"https://api.example.com\\@evil.com/", "backslash"},
                        Case{"https://api.example.com/a b", "a space"},
                        Case{"https://api.example.com/\xc3\xa9", "non-ASCII"},
                        Case{"ftp://api.example.com/", "http:// or https://"},
                        Case{"file:///etc/passwd", "http:// or https://"},
                        Case{"api.example.com/v1", "http:// or https://"},
                        Case{"https://:443/", "has no host"},
                        Case{"https://api.example.com:99999/", "port out of range"},
                        Case{"https://api.example.com:/", "empty port"},
                        Case{"https://api.example.com:8o/", "not a number"},
                        Case{"https://api.exa_mple.com/", "cannot hold"},
                        Case{"https://api.example.com/%zz", "broken percent escape"},
                        Case{"https://api.example.com/x?a=%2", "broken percent escape"}}) {
    INFO(c.url);
    std::string why;
    CHECK_FALSE(parse_url(c.url, &why));
    CHECK(why.find(c.why) != std::string::npos);
  }
  std::string why;
  CHECK_FALSE(parse_url("https://a.com/" + std::string(9000, 'a'), &why));
  CHECK(why == "is longer than 8 KB");
}

TEST_CASE("url: a path lies under a prefix only at a segment's edge", "[net][url]") {
  CHECK(path_under("/v1/x", "/v1/"));
  CHECK(path_under("/v1/", "/v1/"));
  CHECK_FALSE(path_under("/v1", "/v1/"));
  CHECK(path_under("/v1", "/v1"));
  CHECK(path_under("/v1/x", "/v1"));
  CHECK_FALSE(path_under("/v1x", "/v1"));
  CHECK_FALSE(path_under("/v2/x", "/v1"));
  CHECK(path_under("/anything", "/"));
}
