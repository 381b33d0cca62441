#pragma once
// URLs the engine checks before it sends anything: a granted API's prefix and each URL a tool asks for. The parser
// is strict on purpose (http and https, a host and port, a path, a query) and the URL sent is the one rebuilt from
// the parts it checked, so what a grant compares is exactly what curl is given: no user info ("api.example.com@
// evil.com"), no backslashes, no dot segments or encoded dots and slashes that a server would resolve past a
// prefix, no control or non-ASCII bytes.
#include <optional>
#include <string>
#include <string_view>

namespace engine::net {

struct Url {
  std::string scheme;  // "http" or "https"
  std::string host;    // lowercased; an IPv6 literal keeps its brackets
  int port = 0;        // explicit or the scheme's default
  std::string path;    // starts with '/'
  std::string query;   // without the '?'; empty when there is none

  // scheme://host[:port]/path[?query], the port left out when it is the scheme's default.
  std::string text() const;
};

// The parts of `text`, or nothing with `why` saying what is wrong ("has user info", "has a '..' segment", ...).
// At most 8 KB; a fragment (#...) is dropped, as a client never sends it.
std::optional<Url> parse_url(std::string_view text, std::string* why = nullptr);

// Whether `path` is `prefix` or lies under it: "/v1/" holds "/v1/x"; "/v1" holds "/v1" and "/v1/x", never "/v1x".
bool path_under(std::string_view path, std::string_view prefix);

}  // namespace engine::net
