#pragma once
// The HTTP server under `engine serve`: libmicrohttpd in its external-epoll mode, driven by one serve thread that
// owns every call into the library. Connections waiting for a run are suspended, so thousands of open requests and
// streams hold no thread each; a run that has bytes for its client wakes the serve thread through an eventfd.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/core/limits.h"
#include "engine/server/exchange.h"

struct MHD_Daemon;

namespace engine::server {

struct ServerLimits {
  size_t max_body_bytes = limits::kRequestBodyBytes;
  // A connection that sends nothing for this long (a slowloris, an idle keep-alive) is closed. A request waiting
  // for its run is not idle.
  std::chrono::seconds idle_timeout{30};
  // A request's head (its line and headers) must have arrived whole this long after the connection opened or the
  // previous response on it ended: a client that sends a byte a second is never idle, and would otherwise hold its
  // connection for ever. An idle kept-alive connection is closed after this long too.
  std::chrono::seconds head_time{10};
  // A body still arriving after this long is cut off (a chunked body that never ends).
  std::chrono::seconds upload_time{60};
  // Past this many open connections a new one is closed as soon as it is accepted.
  unsigned max_connections = 10000;
  size_t max_stream_queue_bytes = limits::kStreamQueueBytes;
  std::chrono::milliseconds heartbeat{15000};
};

// What the access log is told when a request ends.
struct Completion {
  const HttpRequest& request;
  int status;             // 0: no response was sent
  size_t bytes_out;
  double elapsed_ms;
  bool client_gone;       // the connection closed before the response was whole
};

// The serve thread's mailbox: exchanges with something new for their client.
struct ServeLoop {
  int wake_fd = -1;  // an eventfd
  std::mutex mu;
  std::vector<std::shared_ptr<Exchange>> woken;
  void post(std::shared_ptr<Exchange> exchange);
};

class HttpServer {
 public:
  using Handler = std::function<void(const std::shared_ptr<Exchange>&)>;
  using CompletionLog = std::function<void(const Completion&)>;

  // Listens on host:port (port 0: any free one) and starts the serve thread. `handler` is called on the serve thread
  // once a request has arrived whole; it must not block: it answers at once or hands the exchange to a run. Throws
  // Error "serve.listen" when the address cannot be listened on, "serve.library" without libmicrohttpd. `secrets`:
  // what every answer is masked by on its way out (exchange.h); null: nothing is.
  HttpServer(const std::string& host, uint16_t port, ServerLimits limits, Handler handler, CompletionLog log = {},
             std::shared_ptr<const SecretSet> secrets = nullptr);
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const { return port_; }
  // New connections are refused; those open go on.
  void stop_accepting();
  // Cancels every exchange (and so every run started for one); they are still answered.
  void cancel_all() { all_.cancel(); }
  // Cancels every exchange still open, lets the serve thread hand over what their runs answer, closes. The runs
  // must have ended first (their owner waits for them): an exchange answered after this is dropped.
  void stop();

 private:
  friend struct MhdCallbacks;  // libmicrohttpd's callbacks (http_server.cpp), so its types stay out of this header

  // MHD_YES or MHD_NO.
  int access(MHD_Connection* connection, const char* url, const char* method, const char* upload_data,
             size_t* upload_data_size, void** state);
  int advance(Exchange& exchange);  // queue what the exchange has, or suspend it
  ssize_t read_stream(Exchange& exchange, char* buf, size_t max);
  void completed(Exchange& exchange, int termination);
  void loop();
  void resume(Exchange& exchange);
  void beat_hearts();
  // Closes the connections whose request head is overdue (ServerLimits::head_time).
  void cut_slow_heads();

  ServerLimits limits_;
  Cancel all_;  // the parent of every exchange's
  Handler handler_;
  CompletionLog log_;
  std::shared_ptr<const SecretSet> secrets_;
  std::shared_ptr<ServeLoop> mailbox_;
  MHD_Daemon* daemon_ = nullptr;
  int epoll_fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
  std::mutex control_mu_;
  bool stopping_ = false;        // under control_mu_, then read by the serve thread after a wake
  bool stop_accepting_ = false;
  std::unordered_set<Exchange*> open_;  // the serve thread's: every exchange not yet completed
  // The serve thread's: every open connection, with since when it has been waiting for a request's head (none while
  // a request is being read or answered). libmicrohttpd calls back on the serve thread alone (external epoll).
  std::unordered_map<MHD_Connection*, std::optional<std::chrono::steady_clock::time_point>> connections_;
  std::chrono::steady_clock::time_point next_sweep_;
  std::chrono::steady_clock::time_point next_beat_;
  bool closing_ = false;  // the serve thread's: stop() has begun
};

}  // namespace engine::server
