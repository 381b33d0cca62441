#pragma once
// The transfers of runs on fibers, driven by one thread: a thousand calls in flight cost one thread, not a thread
// each. The thread waits in epoll and tells curl which sockets are ready (curl_multi_socket_action), so a wake costs
// the work of the transfers it concerns, not a look at all of them. The transfers are spread over a few curl multi
// handles ("lanes"), each with its own connection cache: curl looks for a free connection by walking every
// connection its cache holds to the host, so one cache of a thousand connections made each call walk a thousand
// (docs/architecture.md, "Runs in flight"). A run on an ordinary thread drives its own transfer instead
// (http_client.cpp); both set a transfer up the same way. Internal to net/.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/fiber.h"
#include "engine/net/curl_api.h"

namespace engine::net {

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
  // A curl multi handle and what its transfers need of the thread: the timer curl asked for, and how many
  // transfers it drives (a new one goes to the lane with the fewest).
  struct Lane {
    Transport* transport = nullptr;
    uint32_t index = 0;
    CURLM* multi = nullptr;
    std::optional<SteadyTime> timer;
    size_t in_flight = 0;
  };
  void serve();
  void run_timers();
  void take_requests();
  void finish_done();
  void wake();
  void hand_over(std::vector<Job*>& list, Job* job);  // leaves `job` in `list`, waking the thread if it sleeps
  static int on_socket(CURL*, curl_socket_t s, int what, void* lane, void*);
  static int on_timer(CURLM*, long timeout_ms, void* lane);

  const CurlApi& api_;
  std::vector<Lane> lanes_;
  std::vector<uint8_t> watched_;  // by socket number: in the epoll set, so a change costs one epoll_ctl
  int epoll_ = -1;
  int wake_fd_ = -1;  // an eventfd: other threads' starts, abandons and the close
  std::mutex mutex_;  // guards the two lists, closing_ and asleep_
  std::vector<Job*> starting_, abandoning_;
  bool closing_ = false;
  // The thread waits in epoll with nothing left in the lists: only then does a request write the eventfd. A
  // thousand runs starting at once leave their requests while it is awake, and it takes them in a few rounds
  // instead of being woken (a syscall, a context switch) for each.
  bool asleep_ = false;
  std::thread thread_;
};

}  // namespace engine::net
