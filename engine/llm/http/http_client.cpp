#include "engine/llm/http/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <exception>

#include "engine/core/error.h"

namespace engine::llm::http {
namespace {

// curl_global_init is not thread-safe; doing it once, before any handle, is what libcurl asks.
struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
  ~CurlGlobal() { curl_global_cleanup(); }
};
void ensure_curl_global() { static CurlGlobal global; }

using Clock = std::chrono::steady_clock;

// What the callbacks of one transfer share.
struct Transfer {
  CURL* curl = nullptr;
  HttpResponse* response = nullptr;
  const BodySink* sink = nullptr;
  std::exception_ptr sink_error;
  Clock::time_point last_byte = Clock::now();
  std::chrono::milliseconds read_timeout{0};
  bool stalled = false;
};

bool success_status(CURL* c) {
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  return status >= 200 && status < 300;
}

size_t write_body(char* data, size_t size, size_t n, void* ud) {
  auto* t = static_cast<Transfer*>(ud);
  t->last_byte = Clock::now();
  if (!*t->sink || !success_status(t->curl)) {
    t->response->body.append(data, size * n);
    return size * n;
  }
  try {
    if ((*t->sink)(std::string_view(data, size * n))) return size * n;
    t->response->aborted_by_sink = true;
  } catch (...) {
    t->sink_error = std::current_exception();  // an exception must not unwind through curl's C frames
  }
  return 0;  // ends the transfer
}

size_t write_header(char* data, size_t size, size_t n, void* ud) {
  auto* t = static_cast<Transfer*>(ud);
  t->last_byte = Clock::now();
  auto& headers = t->response->headers;
  std::string_view line(data, size * n);
  if (line.substr(0, 5) == "HTTP/") headers.clear();  // a new response (after 100 Continue, say)
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string_view value = line.substr(colon + 1);
    size_t b = value.find_first_not_of(" \t"), e = value.find_last_not_of(" \t\r\n");
    headers.emplace_back(std::move(name), b == std::string::npos ? "" : std::string(value.substr(b, e - b + 1)));
  }
  return size * n;
}

// curl calls this at least once a second while a transfer waits; a server that has sent nothing for longer than
// the read timeout is stalled, which a total timeout alone would only notice minutes later.
int check_stall(void* ud, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(ud);
  if (Clock::now() - t->last_byte <= t->read_timeout) return 0;
  t->stalled = true;
  return 1;
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
                              const HttpTimeouts& timeouts, const BodySink& sink) const {
  auto handle = acquire();
  if (!handle->curl) throw Error("http.transport", "cannot create a curl handle");
  CURL* c = handle->curl;
  curl_easy_reset(c);  // keeps the connection cache; clears the previous request's options
  HttpResponse response;
  Transfer t{.curl = c, .response = &response, .sink = &sink, .read_timeout = timeouts.read};
  curl_slist* list = nullptr;
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  list = curl_slist_append(list, "Expect:");  // a large prompt must not wait a round trip for 100 Continue
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, write_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  if (sink) {
    // A stream sends all along; a whole answer may rightly be silent until the model is done, so only a stream
    // has a read timeout.
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, check_stall);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  }
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeouts.connect.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeouts.total.count()));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM, safe in threads
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
  // No Accept-Encoding: answers are a few KB, and compressing them costs the server more than it saves the wire.
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(list);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  // A handle whose transfer did not end cleanly may hold a broken connection; it is let go, not reused.
  if (t.sink_error) std::rethrow_exception(t.sink_error);
  if (response.aborted_by_sink) return response;
  if (t.stalled)
    throw Error("http.transport", "the server sent nothing for " + std::to_string(timeouts.read.count()) +
                                      " ms (read timeout)");
  if (rc != CURLE_OK) throw Error("http.transport", error[0] ? error : curl_easy_strerror(rc));
  release(std::move(handle));
  return response;
}

}  // namespace engine::llm::http
