#include "engine/tools/http_access.h"

#include <algorithm>
#include <cctype>

#include "engine/core/error.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/net/http_client.h"

namespace engine::tools {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_token(const std::string& name) {
  if (name.empty() || name.size() > 256) return false;
  for (unsigned char c : name)
    if (!std::isalnum(c) && std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos)
      return false;
  return true;
}

// Headers a tool may not set: they would change where the request goes or how its body is framed.
bool framing_header(const std::string& lowercase) {
  return lowercase == "host" || lowercase == "content-length" || lowercase == "transfer-encoding" ||
         lowercase == "connection" || lowercase == "upgrade" || lowercase == "te" || lowercase == "expect";
}

std::string methods_text(const std::vector<std::string>& methods) { return join(methods, ", "); }

// How far `url` and `method` get into `grant`: 0 the scheme differs, 1 the host, 2 the port, 3 the path, 4 the
// method, 5 all match.
int reach(const HttpGrant& grant, const net::Url& url, const std::string& method) {
  if (url.host != grant.prefix.host) return 0;
  if (url.scheme != grant.prefix.scheme) return 1;
  if (url.port != grant.prefix.port) return 2;
  if (!net::path_under(url.path, grant.prefix.path)) return 3;
  if (std::find(grant.methods.begin(), grant.methods.end(), method) == grant.methods.end()) return 4;
  return 5;
}

// A redirect's Location made absolute against the URL it answered.
std::string resolve_location(const net::Url& from, const std::string& location) {
  if (location.find("://") != std::string::npos) return location;
  std::string origin = from.scheme + "://" + from.host +
                       (from.port != (from.scheme == "https" ? 443 : 80) ? ":" + std::to_string(from.port) : "");
  if (location.rfind("//", 0) == 0) return from.scheme + ":" + location;
  if (!location.empty() && location[0] == '/') return origin + location;
  if (!location.empty() && location[0] == '?') return origin + from.path + location;
  return origin + from.path.substr(0, from.path.rfind('/') + 1) + location;
}

}  // namespace

HttpAccess::HttpAccess(std::vector<HttpGrant> grants, std::vector<std::string> secrets, std::shared_ptr<net::IoThreads> io)
    : grants_(std::move(grants)), secrets_(std::move(secrets)), redactor_(secrets_),
      client_(std::make_unique<net::HttpClient>(std::move(io))) {}

HttpAccess::~HttpAccess() = default;

const HttpGrant* HttpAccess::find_grant(const net::Url& url, const std::string& method, std::string& why) const {
  const HttpGrant* nearest = nullptr;
  int best = -1;
  for (const auto& g : grants_) {
    int r = reach(g, url, method);
    if (r == 5) return &g;
    if (r > best) best = r, nearest = &g;
  }
  if (!nearest) {
    why = "this tool has no http grant (give it one with allow: http:)";
    return nullptr;
  }
  const HttpGrant& g = *nearest;
  switch (best) {
    case 0: {
      std::vector<std::string> all;
      for (const auto& each : grants_) all.push_back(each.written);
      why = "no grant is for host " + url.host + " (granted: " + join(all, ", ") + ")";
      break;
    }
    case 1: why = "the grant " + g.written + " is for " + g.prefix.scheme + ", not " + url.scheme; break;
    case 2: why = "the grant " + g.written + " is for port " + std::to_string(g.prefix.port) + ", not " + std::to_string(url.port); break;
    case 3: why = "the path " + url.path + " is not under the grant " + g.written; break;
    default: why = "the grant " + g.written + " allows " + methods_text(g.methods) + ", not " + method;
  }
  return nullptr;
}

const HttpGrant& HttpAccess::grant_for(const net::Url& url, const std::string& method, const std::string& written) const {
  std::string why;
  if (const HttpGrant* g = find_grant(url, method, why)) return *g;
  throw Error(ErrorKind::ToolRefused, method + " " + written + " is not granted: " + why);
}

std::string HttpAccess::resolve(const std::string& url) const {
  if (url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0 || url.find("://") != std::string::npos ||
      grants_.empty())
    return url;
  std::string base = grants_.front().written;
  std::string rest = url;
  while (!rest.empty() && rest[0] == '/') rest.erase(0, 1);
  if (!base.empty() && base.back() != '/' && !rest.empty()) base += '/';
  return base + rest;
}

HttpReply HttpAccess::request(HttpCall call, SteadyTime deadline, const Cancel* cancel) const {
  for (auto& c : call.method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (call.method.empty() || call.method.size() > 16 ||
      !std::all_of(call.method.begin(), call.method.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
    throw Error(ErrorKind::ToolRefused, quote_excerpt(call.method, 40) + " is not an HTTP method");
  for (const auto& [name, value] : call.headers) {
    std::string n = lower(name);
    if (!is_token(name)) throw Error(ErrorKind::ToolRefused, quote_excerpt(name, 60) + " is not a header name");
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos || value.size() > 8192)
      throw Error(ErrorKind::ToolRefused, "the header " + name + " must be one line of at most 8 KB");
    if (framing_header(n)) throw Error(ErrorKind::ToolRefused, "the header " + name + " is set by the engine, not by a tool");
  }
  call.url = resolve(call.url);
  std::string why;
  auto url = net::parse_url(call.url, &why);
  if (!url) throw Error(ErrorKind::ToolRefused, "the URL " + quote_excerpt(redactor_.redact(call.url), 200) + " " + why);
  auto timeout = std::min(call.timeout.value_or(kDefaultTimeout), kDefaultTimeout * 20);
  SteadyTime until = std::min(deadline, std::chrono::steady_clock::now() + timeout);

  for (int hop = 0;; ++hop) {
    const HttpGrant& grant = grant_for(*url, call.method, url->text());
    net::HttpRequest request;
    request.method = call.method;
    request.url = url->text();
    for (const auto& [name, value] : call.headers) {
      for (const auto& [granted, unused] : grant.headers)
        if (lower(granted) == lower(name))
          throw Error(ErrorKind::ToolRefused, "the header " + name + " is set by the grant " + grant.written + ", not by the tool");
      request.headers.push_back(name + ": " + value);
    }
    for (const auto& [name, value] : grant.headers) request.headers.push_back(name + ": " + value);
    if (call.body.empty() && (call.method == "POST" || call.method == "PUT" || call.method == "PATCH"))
      request.headers.push_back("Content-Length: 0");
    request.body = call.body;
    request.max_response_bytes = grant.max_response_bytes;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw Error(ErrorKind::ToolTimeout, call.method + " " + url->text() + ": the tool's time ran out");
    request.timeouts.total = left;
    request.timeouts.connect = std::min(left, request.timeouts.connect);
    net::HttpResponse response;
    try {
      response = client_->send(request, nullptr, cancel);
    } catch (const Error& e) {
      if (cancel && cancel->stopped()) throw;
      if (e.kind() == ErrorKind::HttpTooLarge)
        throw Error(ErrorKind::HttpTooLarge, call.method + " " + url->text() + ": the response is larger than the grant's max_bytes (" +
                                          std::to_string(grant.max_response_bytes) + " bytes)");
      // curl's own clock may end the transfer a few milliseconds before ours says the time is up.
      if (std::chrono::steady_clock::now() + std::chrono::milliseconds(50) >= until)
        throw Error(ErrorKind::ToolTimeout, call.method + " " + url->text() + ": no complete response within the tool's time (" +
                                        redactor_.redact(e.message()) + ")");
      throw Error(e.kind(), call.method + " " + url->text() + ": " + redactor_.redact(e.message()));
    }
    const std::string* location = response.header("location");
    bool redirect = location && (response.status == 301 || response.status == 302 || response.status == 303 ||
                                 response.status == 307 || response.status == 308);
    if (!redirect) {
      HttpReply reply;
      reply.status = response.status;
      reply.url = url->text();
      reply.body = redactor_.empty() ? std::move(response.body) : redactor_.redact(response.body);
      for (auto& [name, value] : response.headers) reply.headers.emplace_back(name, redactor_.redact(value));
      return reply;
    }
    if (hop == limits::kRedirects)
      throw Error(ErrorKind::ToolRefused, call.method + " " + call.url + ": more than " + std::to_string(limits::kRedirects) + " redirects");
    std::string next = resolve_location(*url, *location);
    auto target = net::parse_url(next, &why);
    if (!target) throw Error(ErrorKind::ToolRefused, url->text() + " redirects to " + quote_excerpt(redactor_.redact(next), 200) + ", which " + why);
    if (response.status == 303 || ((response.status == 301 || response.status == 302) && call.method == "POST")) {
      call.method = "GET";
      call.body.clear();
    }
    if (std::string why; !find_grant(*target, call.method, why))
      throw Error(ErrorKind::ToolRefused, url->text() + " redirects to " + target->text() + ", which is refused: " + why);
    url = std::move(target);
  }
}

void add_idempotency_key(HttpCall& call, std::string_view key) {
  if (key.empty() || call.method == "GET" || call.method == "HEAD" || call.method == "OPTIONS") return;
  for (const auto& [name, value] : call.headers)
    if (lower(name) == "idempotency-key") return;
  call.headers.emplace_back("Idempotency-Key", std::string(key));
}

}  // namespace engine::tools
