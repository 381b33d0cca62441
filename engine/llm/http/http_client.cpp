#include "engine/llm/http/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>

#include "engine/core/error.h"

namespace engine::llm::http {
namespace {

// curl_global_init is not thread-safe; doing it once, before any handle, is what libcurl asks.
struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
  ~CurlGlobal() { curl_global_cleanup(); }
};
void ensure_curl_global() { static CurlGlobal global; }

size_t write_body(char* data, size_t size, size_t n, void* ud) {
  static_cast<std::string*>(ud)->append(data, size * n);
  return size * n;
}

size_t write_header(char* data, size_t size, size_t n, void* ud) {
  auto* headers = static_cast<std::vector<std::pair<std::string, std::string>>*>(ud);
  std::string line(data, size * n);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    size_t b = value.find_first_not_of(" \t"), e = value.find_last_not_of(" \t\r\n");
    headers->emplace_back(name, b == std::string::npos ? "" : value.substr(b, e - b + 1));
  }
  return size * n;
}

}  // namespace

struct HttpClient::Handle {
  CURL* curl = curl_easy_init();
  ~Handle() {
    if (curl) curl_easy_cleanup(curl);
  }
};

const std::string* HttpResponse::header(const std::string& name) const {
  for (const auto& [k, v] : headers)
    if (k == name) return &v;
  return nullptr;
}

HttpClient::HttpClient() { ensure_curl_global(); }
HttpClient::~HttpClient() = default;

std::unique_ptr<HttpClient::Handle> HttpClient::acquire() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.empty()) return std::make_unique<Handle>();
  auto h = std::move(idle_.back());
  idle_.pop_back();
  return h;
}

void HttpClient::release(std::unique_ptr<Handle> h) const {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(h));
}

HttpResponse HttpClient::post(const std::string& url, const std::vector<std::string>& headers, const std::string& body,
                              const HttpTimeouts& timeouts) const {
  auto handle = acquire();
  if (!handle->curl) throw Error("http.transport", "cannot create a curl handle");
  CURL* c = handle->curl;
  curl_easy_reset(c);  // keeps the connection cache; clears the previous request's options
  HttpResponse response;
  curl_slist* list = nullptr;
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, write_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeouts.connect.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeouts.total.count()));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM, safe in threads
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(list);
  if (rc != CURLE_OK) {
    std::string reason = error[0] ? error : curl_easy_strerror(rc);
    // A handle whose transfer failed may hold a broken connection; let it go instead of reusing it.
    throw Error("http.transport", reason);
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  release(std::move(handle));
  return response;
}

}  // namespace engine::llm::http
