#include "engine/server/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/server/mhd_api.h"

namespace engine::server {
namespace {

using Clock = std::chrono::steady_clock;

// The client's own request id when it is a short plain token (so a caller's logs and ours line up), else ours.
std::string request_id_for(const std::string* given) {
  if (given && !given->empty() && given->size() <= 64 &&
      std::all_of(given->begin(), given->end(),
                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }))
    return *given;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(rng()));
  return out;
}

std::string peer_address(const MhdApi& api, MHD_Connection* connection) {
  const MHD_ConnectionInfo* info = api.get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (!info || !info->client_addr) return "";
  char text[INET6_ADDRSTRLEN] = "";
  const sockaddr* sa = info->client_addr;
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
  else if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof text);
  return text;
}

MHD_Result collect_header(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto* headers = static_cast<HeaderList*>(cls);
  std::string name = key ? key : "";
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  headers->emplace_back(std::move(name), value ? value : "");
  return MHD_YES;
}

MHD_Result collect_argument(void* cls, MHD_ValueKind, const char* key, const char* value) {
  static_cast<HeaderList*>(cls)->emplace_back(key ? key : "", value ? value : "");
  return MHD_YES;
}

std::string error_body(const std::string& message, const std::string& type) {
  return to_json_text(Value{{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}}}});
}

struct ListenAddress {
  sockaddr_storage storage{};
  bool ipv6 = false;
};

ListenAddress resolve_listen(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || !found)
    throw Error(ErrorKind::ServeListen, "cannot listen on '" + host + "': " + (rc ? gai_strerror(rc) : "no address"));
  ListenAddress out;
  std::memcpy(&out.storage, found->ai_addr, std::min<size_t>(found->ai_addrlen, sizeof out.storage));
  out.ipv6 = found->ai_family == AF_INET6;
  freeaddrinfo(found);
  if (out.ipv6) reinterpret_cast<sockaddr_in6*>(&out.storage)->sin6_port = htons(port);
  else reinterpret_cast<sockaddr_in*>(&out.storage)->sin_port = htons(port);
  return out;
}

}  // namespace

struct MhdCallbacks {
  static MHD_Result on_access(void* cls, MHD_Connection* connection, const char* url, const char* method,
                              const char*, const char* upload_data, size_t* upload_data_size, void** state) {
    return static_cast<MHD_Result>(
        static_cast<HttpServer*>(cls)->access(connection, url, method, upload_data, upload_data_size, state));
  }

  static void on_completed(void* cls, MHD_Connection* connection, void** state, MHD_RequestTerminationCode termination) {
    auto* server = static_cast<HttpServer*>(cls);
    // A kept-alive connection waits for its next request's head from now.
    if (auto it = server->connections_.find(connection); it != server->connections_.end()) it->second = Clock::now();
    auto* holder = static_cast<std::shared_ptr<Exchange>*>(*state);
    if (!holder) return;
    server->completed(**holder, termination);
    delete holder;
    *state = nullptr;
  }

  // Past the server's own cap a connection is refused as it is accepted (libmicrohttpd closes it at once). At its
  // own limit libmicrohttpd would instead stop accepting, and new clients would wait in the backlog for a slot.
  static MHD_Result on_accept(void* cls, const sockaddr*, socklen_t) {
    auto* server = static_cast<HttpServer*>(cls);
    return server->connections_.size() < server->limits_.max_connections ? MHD_YES : MHD_NO;
  }

  static void on_connection(void* cls, MHD_Connection* connection, void**, MHD_ConnectionNotificationCode code) {
    auto* server = static_cast<HttpServer*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) server->connections_[connection] = Clock::now();
    else server->connections_.erase(connection);
  }

  static ssize_t on_read(void* cls, uint64_t, char* buf, size_t max) {
    auto* e = static_cast<Exchange*>(cls);
    return e->server_->read_stream(*e, buf, max);
  }
};

HttpServer::HttpServer(const std::string& host, uint16_t port, ServerLimits limits, Handler handler,
                       CompletionLog log, std::shared_ptr<const SecretSet> secrets)
    : limits_(limits),
      handler_(std::move(handler)),
      log_(std::move(log)),
      secrets_(std::move(secrets)),
      mailbox_(std::make_shared<ServeLoop>()) {
  const MhdApi& api = mhd_api();
  ListenAddress address = resolve_listen(host, port);
  unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | (address.ipv6 ? MHD_USE_IPv6 : 0);
  // libmicrohttpd's own limit is above the server's, so that what comes past the server's is accepted and closed
  // (on_accept) rather than left waiting.
  unsigned library_limit = limits_.max_connections + std::min(limits_.max_connections, 64u);
  daemon_ = api.start_daemon(
      flags, port, &MhdCallbacks::on_accept, this, &MhdCallbacks::on_access, this,
      MHD_OPTION_NOTIFY_COMPLETED, &MhdCallbacks::on_completed, this,
      MHD_OPTION_NOTIFY_CONNECTION, &MhdCallbacks::on_connection, this,
      MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(limits_.idle_timeout.count()),
      MHD_OPTION_CONNECTION_LIMIT, library_limit,
      MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
      MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&address.storage), MHD_OPTION_END);
  if (!daemon_)
    throw Error(ErrorKind::ServeListen, "cannot listen on " + host + ":" + std::to_string(port) +
                                    " (is the port in use, or the address not this machine's?)");
  const MHD_DaemonInfo* bound = api.get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
  port_ = bound ? bound->port : port;
  const MHD_DaemonInfo* epoll_info = api.get_daemon_info(daemon_, MHD_DAEMON_INFO_EPOLL_FD);
  mailbox_->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (!epoll_info || mailbox_->wake_fd < 0 || epoll_fd_ < 0) {
    api.stop_daemon(daemon_);
    throw Error(ErrorKind::ServeListen, "cannot set up the server's event loop");
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = epoll_info->epoll_fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, epoll_info->epoll_fd, &ev);
  ev.data.fd = mailbox_->wake_fd;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, mailbox_->wake_fd, &ev);
  next_beat_ = Clock::now() + limits_.heartbeat;
  next_sweep_ = Clock::now() + std::chrono::seconds(1);
  thread_ = std::thread([this] { loop(); });
}

HttpServer::~HttpServer() {
  stop();
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  std::lock_guard lock(mailbox_->mu);
  mailbox_->woken.clear();  // each holds the mailbox: a cycle otherwise
  if (mailbox_->wake_fd >= 0) ::close(mailbox_->wake_fd);
  mailbox_->wake_fd = -1;
}

void HttpServer::stop_accepting() {
  {
    std::lock_guard lock(control_mu_);
    stop_accepting_ = true;
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(mailbox_->wake_fd, &one, sizeof one);
}

void HttpServer::stop() {
  {
    std::lock_guard lock(control_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(mailbox_->wake_fd, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

void HttpServer::loop() {
  const MhdApi& api = mhd_api();
  bool closing = false, quiesced = false;
  Clock::time_point close_by{};
  for (;;) {
    int timeout = 1000;
    MHD_UNSIGNED_LONG_LONG mhd_ms = 0;
    if (api.get_timeout(daemon_, &mhd_ms) == MHD_YES) timeout = static_cast<int>(std::min<MHD_UNSIGNED_LONG_LONG>(mhd_ms, 1000));
    auto to_beat = std::chrono::duration_cast<std::chrono::milliseconds>(std::min(next_beat_, next_sweep_) - Clock::now()).count();
    timeout = static_cast<int>(std::clamp<long long>(std::min<long long>(timeout, to_beat), 0, 1000));
    epoll_event events[4];
    ::epoll_wait(epoll_fd_, events, 4, timeout);
    uint64_t drained;
    while (::read(mailbox_->wake_fd, &drained, sizeof drained) > 0) {
    }
    bool stop_now, quiesce_now;
    {
      std::lock_guard lock(control_mu_);
      stop_now = stopping_;
      quiesce_now = stop_accepting_ || stopping_;
    }
    if (quiesce_now && !quiesced) {
      api.quiesce_daemon(daemon_);
      quiesced = true;
    }
    if (stop_now && !closing) {
      // What is still open gets what its run left, or a 503, and the connections close.
      closing = closing_ = true;
      close_by = Clock::now() + std::chrono::seconds(2);
      for (Exchange* e : open_) {
        e->cancel_.cancel();
        resume(*e);
      }
    }
    std::vector<std::shared_ptr<Exchange>> woken;
    {
      std::lock_guard lock(mailbox_->mu);
      woken.swap(mailbox_->woken);
    }
    for (auto& e : woken) resume(*e);
    if (Clock::now() >= next_beat_) beat_hearts();
    if (Clock::now() >= next_sweep_) cut_slow_heads();
    api.run(daemon_);
    if (closing && (open_.empty() || Clock::now() >= close_by)) break;
  }
  // Suspended connections must not outlive the daemon.
  for (Exchange* e : open_) resume(*e);
  api.run(daemon_);
  api.stop_daemon(daemon_);
  daemon_ = nullptr;
}

void HttpServer::resume(Exchange& e) {
  if (!e.suspended_) return;
  e.suspended_ = false;
  mhd_api().resume_connection(e.connection_);
}

void HttpServer::beat_hearts() {
  Clock::time_point now = Clock::now();
  next_beat_ = now + std::min<std::chrono::milliseconds>(limits_.heartbeat, std::chrono::milliseconds(1000));
  for (Exchange* e : open_) {
    if (!e->queued_ || !e->suspended_ || now - e->last_write_ < limits_.heartbeat) continue;
    std::lock_guard lock(e->mu_);
    if (e->phase_ != Exchange::Phase::Streaming || e->heartbeat_.empty()) continue;
    if (e->masking_ && e->masking_->holding()) continue;  // a comment between a held tail and its rest would cut it
    e->heartbeat_due_ = true;
    resume(*e);
  }
}

void HttpServer::cut_slow_heads() {
  Clock::time_point now = Clock::now();
  next_sweep_ = now + std::chrono::seconds(1);
  for (auto& [connection, since] : connections_) {
    if (!since || now - *since < limits_.head_time) continue;
    since.reset();
    // Shut down, not closed: the descriptor stays libmicrohttpd's, which sees the connection end and closes it.
    const MHD_ConnectionInfo* info = mhd_api().get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info) ::shutdown(info->connect_fd, SHUT_RDWR);
  }
}

int HttpServer::access(MHD_Connection* connection, const char* url, const char* method,
                              const char* upload_data, size_t* upload_data_size, void** state) {
  const MhdApi& api = mhd_api();
  auto* holder = static_cast<std::shared_ptr<Exchange>*>(*state);
  if (!holder) {
    if (auto it = connections_.find(connection); it != connections_.end()) it->second.reset();
    HttpRequest request;
    request.method = method ? method : "";
    request.path = url ? url : "";
    api.get_connection_values(connection, MHD_HEADER_KIND, &collect_header, &request.headers);
    api.get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &collect_argument, &request.query);
    request.request_id = request_id_for(request.header("x-request-id"));
    request.client = peer_address(api, connection);
    auto exchange = std::make_shared<Exchange>(std::move(request), mailbox_, limits_.max_stream_queue_bytes, &all_, secrets_);
    exchange->server_ = this;
    exchange->connection_ = connection;
    exchange->started_ = Clock::now();
    open_.insert(exchange.get());
    *state = new std::shared_ptr<Exchange>(exchange);
    // A body declared too large is refused before a byte of it is read.
    if (const std::string* length = exchange->request_.header("content-length")) {
      char* end = nullptr;
      errno = 0;
      unsigned long long n = std::strtoull(length->c_str(), &end, 10);
      if (errno == ERANGE || n > limits_.max_body_bytes) {
        exchange->dispatched_ = true;
        exchange->respond(json_response(
            413, error_body("the request body is larger than the server's limit of " +
                                std::to_string(limits_.max_body_bytes) + " bytes",
                            "invalid_request_error")));
        return advance(*exchange);
      }
    }
    return MHD_YES;
  }
  Exchange& exchange = **holder;
  if (*upload_data_size > 0) {
    // Past the limit (a chunked body declares no length) or past the time a body may take: the connection closes.
    if (exchange.dispatched_ || exchange.request_.body.size() + *upload_data_size > limits_.max_body_bytes ||
        Clock::now() - exchange.started_ > limits_.upload_time)
      return MHD_NO;
    exchange.request_.body.append(upload_data, *upload_data_size);
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (!exchange.dispatched_) {
    exchange.dispatched_ = true;
    handler_(*holder);
  }
  return advance(exchange);
}

int HttpServer::advance(Exchange& e) {
  const MhdApi& api = mhd_api();
  std::unique_lock lock(e.mu_);
  if (e.phase_ == Exchange::Phase::Waiting && closing_) {
    e.phase_ = Exchange::Phase::Respond;
    e.response_ = json_response(503, error_body("the server is shutting down", "server_error"));
  }
  if (e.phase_ == Exchange::Phase::Waiting) {
    e.suspended_ = true;
    api.suspend_connection(e.connection_);
    return MHD_YES;
  }
  MHD_Response* response = nullptr;
  if (e.phase_ == Exchange::Phase::Respond) {
    response = api.create_response_from_buffer(e.response_.body.size(), e.response_.body.data(), MHD_RESPMEM_MUST_COPY);
    e.bytes_out_ = e.response_.body.size();
  } else {
    response = api.create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, &MhdCallbacks::on_read, &e, nullptr);
    e.last_write_ = Clock::now();
  }
  if (!response) return MHD_NO;
  for (const auto& [name, value] : e.response_.headers) api.add_response_header(response, name.c_str(), value.c_str());
  api.add_response_header(response, "x-request-id", e.request_.request_id.c_str());
  e.status_ = e.response_.status;
  e.queued_ = true;
  lock.unlock();
  MHD_Result queued = api.queue_response(e.connection_, static_cast<unsigned>(e.status_), response);
  api.destroy_response(response);
  return queued;
}

ssize_t HttpServer::read_stream(Exchange& e, char* buf, size_t max) {
  std::lock_guard lock(e.mu_);
  size_t available = e.queue_.size() - e.queue_taken_;
  if (available > 0) {
    size_t n = std::min(available, max);
    std::memcpy(buf, e.queue_.data() + e.queue_taken_, n);
    e.queue_taken_ += n;
    if (e.queue_taken_ == e.queue_.size()) {
      e.queue_.clear();
      e.queue_taken_ = 0;
    } else if (e.queue_taken_ > (size_t{64} << 10) && e.queue_taken_ * 2 > e.queue_.size()) {
      e.queue_.erase(0, e.queue_taken_);
      e.queue_taken_ = 0;
    }
    e.last_write_ = Clock::now();
    e.bytes_out_ += n;
    return static_cast<ssize_t>(n);
  }
  if (e.failed_) return MHD_CONTENT_READER_END_WITH_ERROR;
  if (e.stream_ended_) return MHD_CONTENT_READER_END_OF_STREAM;
  if (e.heartbeat_due_ && e.heartbeat_.size() <= max) {
    e.heartbeat_due_ = false;
    std::memcpy(buf, e.heartbeat_.data(), e.heartbeat_.size());
    e.last_write_ = Clock::now();
    return static_cast<ssize_t>(e.heartbeat_.size());
  }
  if (closing_) return MHD_CONTENT_READER_END_WITH_ERROR;
  e.suspended_ = true;
  mhd_api().suspend_connection(e.connection_);
  return 0;
}

void HttpServer::completed(Exchange& e, int termination) {
  open_.erase(&e);
  bool gone = termination != MHD_REQUEST_TERMINATED_COMPLETED_OK;
  bool whole;
  {
    std::lock_guard lock(e.mu_);
    if (gone) e.gone_ = true;
    whole = !gone && !e.failed_;
  }
  if (gone) e.cancel_.cancel();
  if (log_) {
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - e.started_).count();
    log_(Completion{e.request_, e.queued_ ? e.status_ : 0, e.bytes_out_, ms, !whole});
  }
}

}  // namespace engine::server
