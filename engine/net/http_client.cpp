#include "engine/net/http_client.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <optional>
#include <stop_token>

#include "engine/core/error.h"
#include "engine/core/fiber.h"
#include "engine/core/limits.h"
#include "engine/net/curl_api.h"
#include "engine/net/io_threads.h"
#include "engine/net/transport.h"

namespace engine::net {
namespace {

using Clock = std::chrono::steady_clock;

// What the callbacks of one transfer share.
struct Transfer {
  CURL* curl = nullptr;
  HttpResponse* response = nullptr;
  const BodySink* sink = nullptr;
  std::exception_ptr sink_error;
  Clock::time_point last_byte = Clock::now();
  size_t received = 0;
  size_t max_bytes = limits::kResponseBytes;
  bool too_large = false;
  std::chrono::milliseconds read_timeout{0};
  bool stalled = false;
  std::chrono::milliseconds linger{0};
  std::optional<Clock::time_point> done_at;  // when the sink had what it wanted, with a linger to let the body end
};

std::string size_text(size_t bytes) {
  if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

bool success_status(CURL* c) {
  long status = 0;
  curl_api().easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  return status >= 200 && status < 300;
}

size_t write_body(char* data, size_t size, size_t n, void* ud) {
  auto* t = static_cast<Transfer*>(ud);
  t->last_byte = Clock::now();
  t->received += size * n;
  if (t->received > t->max_bytes) {
    t->too_large = true;
    return 0;  // ends the transfer
  }
  if (t->done_at) return t->last_byte - *t->done_at <= t->linger ? size * n : 0;  // read past, to the body's end
  if (!*t->sink || !success_status(t->curl)) {
    t->response->body.append(data, size * n);
    return size * n;
  }
  try {
    if ((*t->sink)(std::string_view(data, size * n))) return size * n;
    t->response->aborted_by_sink = true;
    if (t->linger.count() > 0) {
      t->done_at = t->last_byte;
      return size * n;
    }
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
  if (t->done_at) return Clock::now() - *t->done_at > t->linger ? 1 : 0;  // lingered long enough: cut
  if (Clock::now() - t->last_byte <= t->read_timeout) return 0;
  t->stalled = true;
  return 1;
}

}  // namespace

// An easy handle and, once a thread drives it, the multi handle it is driven by; the multi holds the connection
// cache, so a handle keeps its connections alive from one request to the next. A handle only ever driven by the
// transport (runs on fibers) never needs a multi of its own.
struct HttpClient::Handle {
  const CurlApi& api = curl_api();
  CURL* curl = api.easy_init();
  CURLM* multi = nullptr;
  ~Handle() {
    if (multi) api.multi_cleanup(multi);
    if (curl) api.easy_cleanup(curl);
  }
};

namespace {

// Wakes a transfer's poll when its run is cancelled; curl_multi_wakeup may be called from any thread.
struct WakeTransfer {
  const CurlApi* api;
  CURLM* multi;
  void operator()() const { api->multi_wakeup(multi); }
};

// Runs the transfer to its end, or until `cancel` stops (then returns false with the transfer unfinished).
bool drive(const CurlApi& api, CURLM* multi, CURL* c, const Cancel* cancel, CURLcode& rc) {
  std::optional<std::stop_callback<WakeTransfer>> wake;
  if (cancel) wake.emplace(cancel->token(), WakeTransfer{&api, multi});
  for (;;) {
    int running = 0;
    if (CURLMcode mc = api.multi_perform(multi, &running); mc != CURLM_OK)
      throw Error(ErrorKind::HttpTransport, api.multi_strerror(mc));
    if (!running) break;
    if (cancel && cancel->stopped()) return false;
    // curl's own timers (timeouts, the progress callback) need a turn at least this often.
    int slice = 1000;
    if (cancel) slice = static_cast<int>(cancel->wait_slice(std::chrono::milliseconds(slice)).count());
    if (CURLMcode mc = api.multi_poll(multi, nullptr, 0, slice, nullptr); mc != CURLM_OK)
      throw Error(ErrorKind::HttpTransport, api.multi_strerror(mc));
  }
  rc = CURLE_OK;
  int left = 0;
  while (CURLMsg* msg = api.multi_info_read(multi, &left))
    if (msg->msg == CURLMSG_DONE && msg->easy_handle == c) rc = msg->data.result;
  return true;
}

}  // namespace

HttpClient::HttpClient(std::shared_ptr<IoThreads> io) : io_(std::move(io)) {}
HttpClient::~HttpClient() = default;

std::unique_ptr<HttpClient::Handle> HttpClient::acquire() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.empty()) return std::make_unique<Handle>();
  auto h = std::move(idle_.back());
  idle_.pop_back();
  return h;
}

IoThreads& HttpClient::io() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!io_) io_ = std::make_shared<IoThreads>();
  return *io_;
}

void HttpClient::release(std::unique_ptr<Handle> h) const {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(h));
}

HttpResponse HttpClient::send(const HttpRequest& request, const BodySink& sink, const Cancel* cancel) const {
  const std::string& method = request.method;
  if (method.empty() || method.size() > 16 ||
      !std::all_of(method.begin(), method.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; }))
    throw Error(ErrorKind::HttpBadRequest, "'" + method.substr(0, 16) + "' is not an HTTP method");
  const HttpTimeouts& timeouts = request.timeouts;
  if (cancel && cancel->stopped()) throw_stopped(*cancel);  // a stopped run sends nothing
  auto handle = acquire();
  if (!handle->curl) throw Error(ErrorKind::HttpTransport, "cannot create a curl handle");
  CURL* c = handle->curl;
  const CurlApi& api = handle->api;
  api.easy_reset(c);  // keeps the connection cache; clears the previous request's options
  HttpResponse response;
  Transfer t{.curl = c, .response = &response, .sink = &sink, .max_bytes = request.max_response_bytes,
             .read_timeout = timeouts.read, .linger = request.linger};
  curl_slist* list = nullptr;
  for (const auto& h : request.headers) list = api.slist_append(list, h.c_str());
  list = api.slist_append(list, "Expect:");  // a large prompt must not wait a round trip for 100 Continue
  api.easy_setopt(c, CURLOPT_URL, request.url.c_str());
  bool with_body = method == "POST" || method == "PUT" || method == "PATCH" || !request.body.empty();
  if (method == "GET") {
    api.easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else if (method == "HEAD") {
    api.easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else {
    if (with_body) {
      api.easy_setopt(c, CURLOPT_POST, 1L);
      api.easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
      api.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    }
    if (method != "POST") api.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  api.easy_setopt(c, CURLOPT_HTTPHEADER, list);
  api.easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
  api.easy_setopt(c, CURLOPT_WRITEDATA, &t);
  api.easy_setopt(c, CURLOPT_HEADERFUNCTION, write_header);
  api.easy_setopt(c, CURLOPT_HEADERDATA, &t);
  if (sink) {
    // A stream sends all along; a whole answer may rightly be silent until the model is done, so only a stream
    // has a read timeout.
    api.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    api.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, check_stall);
    api.easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  }
  api.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeouts.connect.count()));
  api.easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeouts.total.count()));
  api.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM, safe in threads
  api.easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  api.easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
  // No Accept-Encoding: answers are a few KB, and compressing them costs the server more than it saves the wire.
  char error[CURL_ERROR_SIZE] = "";
  api.easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  CURLcode rc = CURLE_OK;
  bool finished = false;
  if (FiberPool::current()) {
    // A run on a fiber hands the transfer over and gives its thread to other runs until the answer is in.
    try {
      finished = io().transport().perform(c, cancel, rc);
    } catch (...) {
      api.slist_free_all(list);
      throw;
    }
  } else {
    if (!handle->multi) handle->multi = api.multi_init();
    if (!handle->multi || api.multi_add_handle(handle->multi, c) != CURLM_OK) {
      api.slist_free_all(list);
      throw Error(ErrorKind::HttpTransport, "cannot start a transfer");
    }
    try {
      finished = drive(api, handle->multi, c, cancel, rc);
    } catch (...) {
      api.multi_remove_handle(handle->multi, c);
      api.slist_free_all(list);
      throw;
    }
    api.multi_remove_handle(handle->multi, c);
  }
  api.slist_free_all(list);
  // An abandoned transfer's connection is in an unknown state: the handle goes with it.
  if (!finished) throw_stopped(*cancel);
  long status = 0;
  api.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  // A handle whose transfer did not end cleanly may hold a broken connection; it is let go, not reused.
  if (t.sink_error) std::rethrow_exception(t.sink_error);
  if (t.too_large)
    throw Error(ErrorKind::HttpTooLarge, "the server's answer passed " + size_text(request.max_response_bytes) +
                                      "; the transfer was stopped");
  if (response.aborted_by_sink) {
    if (rc == CURLE_OK) release(std::move(handle));  // the body ended while it lingered: its connection is whole
    return response;
  }
  if (t.stalled)
    throw Error(ErrorKind::HttpTransport, "the server sent nothing for " + std::to_string(timeouts.read.count()) +
                                      " ms (read timeout)");
  if (rc != CURLE_OK) throw Error(ErrorKind::HttpTransport, error[0] ? error : api.easy_strerror(rc));
  release(std::move(handle));
  return response;
}

}  // namespace engine::net
