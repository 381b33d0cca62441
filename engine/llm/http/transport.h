#pragma once
// The transfers of runs on fibers, driven by one thread through one curl multi handle: a thousand calls in flight
// cost one thread, not a thread each, and share one connection cache. The thread waits in epoll and tells curl
// which sockets are ready (curl_multi_socket_action), so a wake costs the work of the transfers it concerns, not a
// look at all of them. A run on an ordinary thread drives its own transfer instead (http_client.cpp); both set a
// transfer up the same way. Internal to llm/http.
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/fiber.h"
#include "engine/llm/http/curl_api.h"

namespace engine::llm::http {

class Transport {
 public:
  Transport();  // starts the thread; throws Error "http.transport" when curl cannot start
  ~Transport();  // no transfer may still be in flight
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Runs `curl`'s transfer (set up, not started) to its end and returns true with curl's result; or, when `cancel`
  // stops first, takes the transfer back from curl and returns false. Meanwhile a fiber gives its thread up.
  bool perform(CURL* curl, const Cancel* cancel, CURLcode& result);

 private:
  struct Job;
  void serve();
  void take_requests();
  void finish_done();
  void wake();
  void hand_over(std::vector<Job*>& list, Job* job);  // leaves `job` in `list`, waking the thread if it sleeps
  static int on_socket(CURL*, curl_socket_t s, int what, void* self, void*);
  static int on_timer(CURLM*, long timeout_ms, void* self);

  const CurlApi& api_;
  CURLM* multi_;
  int epoll_ = -1;
  int wake_fd_ = -1;  // an eventfd: other threads' starts, abandons and the close
  std::optional<SteadyTime> timer_;  // when curl asked to be called back (timeouts, connection steps)
  std::mutex mutex_;  // guards the two lists, closing_ and asleep_
  std::vector<Job*> starting_, abandoning_;
  bool closing_ = false;
  // The thread waits in epoll with nothing left in the lists: only then does a request write the eventfd. A
  // thousand runs starting at once leave their requests while it is awake, and it takes them in a few rounds
  // instead of being woken (a syscall, a context switch) for each.
  bool asleep_ = false;
  std::thread thread_;
};

}  // namespace engine::llm::http
