#include "engine/net/url.h"

#include <cctype>

#include "engine/core/limits.h"

namespace engine::net {
namespace {


bool fail(std::string* why, const char* what) {
  if (why) *why = what;
  return false;
}

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// RFC 3986's pchar without '%' (checked apart) and without ':' '@', which a server may read as something else.
bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-._~!$&'()*+,;=/").find(c) != std::string_view::npos;
}

bool query_char(char c) { return path_char(c) || c == ':' || c == '@' || c == '?'; }

// Percent escapes well formed; none that decodes to '.', '/' or '\' (a server decoding them would walk past a
// prefix: "/v1/%2e%2e/admin"); no "." or ".." segment.
bool check_path(std::string_view path, std::string* why) {
  for (size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == '%') {
      if (i + 2 >= path.size() || !is_hex(path[i + 1]) || !is_hex(path[i + 2]))
        return fail(why, "has a broken percent escape");
      int v = std::stoi(std::string(path.substr(i + 1, 2)), nullptr, 16);
      if (v == '.' || v == '/' || v == '\\') return fail(why, "has an encoded '.', '/' or '\\' in its path");
      i += 2;
    } else if (!path_char(c) && c != ':' && c != '@') {
      return fail(why, "has a character a URL path cannot hold (spaces, quotes, backslashes, non-ASCII: escape them)");
    }
  }
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    if (segment == "." || segment == "..") return fail(why, "has a '.' or '..' segment in its path");
    start = end + 1;
  }
  return true;
}

bool parse_host(std::string_view authority, Url& url, std::string* why) {
  if (authority.find('@') != std::string_view::npos) return fail(why, "has user info (user@host): give credentials as headers");
  std::string_view host = authority, port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail(why, "has an IPv6 address without its ']'");
    host = authority.substr(0, close + 1);
    for (char c : host.substr(1, host.size() - 2))
      if (!is_hex(c) && c != ':' && c != '.') return fail(why, "has a malformed IPv6 address");
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return fail(why, "has text after its IPv6 address");
      port = rest.substr(1);
      if (port.empty()) return fail(why, "has an empty port");
    }
  } else {
    size_t colon = authority.find(':');
    if (colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
      if (port.empty()) return fail(why, "has an empty port");
    }
    if (host.empty()) return fail(why, "has no host");
    if (host.size() > 253) return fail(why, "has a host name longer than 253 characters");
    for (char c : host)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.')
        return fail(why, "has a character a host name cannot hold");
  }
  url.host.clear();
  for (char c : host) url.host += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!port.empty()) {
    if (port.size() > 5) return fail(why, "has a port out of range");
    int p = 0;
    for (char c : port) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return fail(why, "has a port that is not a number");
      p = p * 10 + (c - '0');
    }
    if (p < 1 || p > 65535) return fail(why, "has a port out of range");
    url.port = p;
  } else {
    url.port = url.scheme == "https" ? 443 : 80;
  }
  return true;
}

}  // namespace

std::string Url::text() const {
  std::string out = scheme + "://" + host;
  if (port != (scheme == "https" ? 443 : 80)) out += ":" + std::to_string(port);
  out += path;
  if (!query.empty()) out += "?" + query;
  return out;
}

std::optional<Url> parse_url(std::string_view text, std::string* why) {
  if (text.size() > limits::kUrlBytes) return fail(why, "is longer than 8 KB"), std::nullopt;
  for (char c : text)
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f || c == '\\')
      return fail(why, "has a space, a control character, a backslash or a non-ASCII byte"), std::nullopt;
  Url url;
  size_t sep = text.find("://");
  if (sep == std::string_view::npos) return fail(why, "does not start with http:// or https://"), std::nullopt;
  for (char c : text.substr(0, sep)) url.scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (url.scheme != "http" && url.scheme != "https")
    return fail(why, "does not start with http:// or https://"), std::nullopt;
  std::string_view rest = text.substr(sep + 3);
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  size_t path_at = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_at);
  if (!parse_host(authority, url, why)) return std::nullopt;
  rest = path_at == std::string_view::npos ? std::string_view{} : rest.substr(path_at);
  size_t query_at = rest.find('?');
  std::string_view path = rest.substr(0, query_at);
  url.path = path.empty() ? "/" : std::string(path);
  if (!check_path(url.path, why)) return std::nullopt;
  if (query_at != std::string_view::npos) {
    std::string_view query = rest.substr(query_at + 1);
    for (size_t i = 0; i < query.size(); ++i) {
      if (query[i] == '%') {
        if (i + 2 >= query.size() || !is_hex(query[i + 1]) || !is_hex(query[i + 2]))
          return fail(why, "has a broken percent escape"), std::nullopt;
        i += 2;
      } else if (!query_char(query[i])) {
        return fail(why, "has a character a URL query cannot hold"), std::nullopt;
      }
    }
    url.query = query;
  }
  return url;
}

bool path_under(std::string_view path, std::string_view prefix) {
  if (path.substr(0, prefix.size()) != prefix) return false;
  if (path.size() == prefix.size() || prefix.empty() || prefix.back() == '/') return true;
  return path[prefix.size()] == '/';
}

}  // namespace engine::net
