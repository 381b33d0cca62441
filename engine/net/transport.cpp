#include "engine/net/transport.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>

#include "engine/core/error.h"
#include "engine/core/fiber.h"

namespace engine::net {

namespace {

// Lanes enough that curl's walk of a lane's connections stays short at a thousand calls in flight (64 each), few
// enough that a handful of calls still share their connections; a lane opens connections only as its calls need.
constexpr size_t kLanes = 16;
// New transfers taken per turn of the thread: of a thousand runs starting at once, the first requests are sent
// while later ones still connect, instead of every connection being opened before the first request goes out.
constexpr size_t kStartsPerTurn = 64;
constexpr uint32_t kWakeLane = UINT32_MAX;  // marks the eventfd in the epoll set

uint64_t epoll_key(uint32_t lane, int fd) { return (uint64_t{lane} << 32) | static_cast<uint32_t>(fd); }

}  // namespace

Transport::Transport() : api_(curl_api()), lanes_(kLanes) {
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  bool ok = epoll_ >= 0 && wake_fd_ >= 0;
  if (ok) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = epoll_key(kWakeLane, wake_fd_);
    ok = epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_fd_, &ev) == 0;
  }
  for (size_t i = 0; i < lanes_.size() && ok; ++i) {
    Lane& lane = lanes_[i];
    lane.transport = this;
    lane.index = static_cast<uint32_t>(i);
    lane.multi = api_.multi_init();
    ok = lane.multi != nullptr;
    if (!ok) break;
    api_.multi_setopt(lane.multi, CURLMOPT_SOCKETFUNCTION, &Transport::on_socket);
    api_.multi_setopt(lane.multi, CURLMOPT_SOCKETDATA, &lane);
    api_.multi_setopt(lane.multi, CURLMOPT_TIMERFUNCTION, &Transport::on_timer);
    api_.multi_setopt(lane.multi, CURLMOPT_TIMERDATA, &lane);
  }
  if (!ok) {
    for (Lane& lane : lanes_)
      if (lane.multi) api_.multi_cleanup(lane.multi);
    if (epoll_ >= 0) close(epoll_);
    if (wake_fd_ >= 0) close(wake_fd_);
    throw Error(ErrorKind::HttpTransport, "cannot start the transport of concurrent requests");
  }
  thread_ = std::thread([this] { serve(); });
}

Transport::~Transport() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  wake();
  thread_.join();
  for (Lane& lane : lanes_) api_.multi_cleanup(lane.multi);
  close(epoll_);
  close(wake_fd_);
}

void Transport::wake() {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof one);  // a full counter already means "wake"
}

// curl says which of its sockets to watch, and for what.
int Transport::on_socket(CURL*, curl_socket_t s, int what, void* lane_ptr, void*) {
  auto& lane = *static_cast<Lane*>(lane_ptr);
  Transport& t = *lane.transport;
  auto fd = static_cast<size_t>(s);
  if (fd >= t.watched_.size()) t.watched_.resize(fd + 1, 0);
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(t.epoll_, EPOLL_CTL_DEL, s, nullptr);
    t.watched_[fd] = 0;
    return 0;
  }
  epoll_event ev{};
  ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  ev.data.u64 = epoll_key(lane.index, s);
  // A socket curl closed without saying so has left the epoll set by itself, and its number may come back: the
  // other call is the fallback either way.
  if (t.watched_[fd]) {
    if (epoll_ctl(t.epoll_, EPOLL_CTL_MOD, s, &ev) != 0 && errno == ENOENT) epoll_ctl(t.epoll_, EPOLL_CTL_ADD, s, &ev);
  } else if (epoll_ctl(t.epoll_, EPOLL_CTL_ADD, s, &ev) != 0 && errno == EEXIST) {
    epoll_ctl(t.epoll_, EPOLL_CTL_MOD, s, &ev);
  }
  t.watched_[fd] = 1;
  return 0;
}

int Transport::on_timer(CURLM*, long timeout_ms, void* lane_ptr) {
  auto& lane = *static_cast<Lane*>(lane_ptr);
  if (timeout_ms < 0) lane.timer.reset();
  else lane.timer = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  return 0;
}

// One transfer, on the stack of the run that waits for it. The transport touches it until it signals `done` (the
// transfer ended) or `removed` (taken back), whichever the waiter waits for last.
struct Transport::Job {
  CURL* curl = nullptr;
  Lane* lane = nullptr;  // set by the transport thread
  CURLcode result = CURLE_OK;
  std::atomic<bool> finished{false};
  Wakeup woken;    // the transfer ended, or the waiter's run stopped
  Wakeup done;     // the transfer ended, and the transport is through with the job
  Wakeup removed;  // after an abandon: curl has let the handle go
};

bool Transport::perform(CURL* curl, const Cancel* cancel, CURLcode& result) {
  Job job;
  job.curl = curl;
  api_.easy_setopt(curl, CURLOPT_PRIVATE, &job);
  hand_over(starting_, &job);
  {
    std::optional<std::stop_callback<std::function<void()>>> on_stop;
    if (cancel) on_stop.emplace(cancel->token(), [&job] { job.woken.signal(); });
    while (!job.finished) {
      if (cancel && cancel->stopped()) {
        hand_over(abandoning_, &job);
        job.removed.wait_until();
        return false;
      }
      std::optional<SteadyTime> until;
      if (cancel) until = std::chrono::steady_clock::now() + cancel->wait_slice(std::chrono::seconds(1));
      job.woken.wait_until(until);  // a deadline is watched by its slices: it signals nothing
    }
  }
  job.done.wait_until();
  result = job.result;
  return true;
}

void Transport::hand_over(std::vector<Job*>& list, Job* job) {
  bool asleep = false;
  {
    std::lock_guard lock(mutex_);
    list.push_back(job);
    std::swap(asleep, asleep_);
  }
  if (asleep) wake();
}

// curl's handles are touched by this thread alone: the other threads leave requests in the lists.
void Transport::take_requests() {
  std::vector<Job*> starting, abandoning;
  {
    std::lock_guard lock(mutex_);
    if (starting_.size() <= kStartsPerTurn) {
      starting.swap(starting_);
    } else {
      auto cut = starting_.begin() + static_cast<std::ptrdiff_t>(kStartsPerTurn);
      starting.assign(starting_.begin(), cut);
      starting_.erase(starting_.begin(), cut);
    }
    abandoning.swap(abandoning_);
  }
  for (Job* job : starting) {
    Lane* lane = &*std::min_element(lanes_.begin(), lanes_.end(),
                                    [](const Lane& a, const Lane& b) { return a.in_flight < b.in_flight; });
    if (api_.multi_add_handle(lane->multi, job->curl) != CURLM_OK) {
      job->result = CURLE_FAILED_INIT;
      job->finished = true;
      job->woken.signal();
      job->done.signal();
      continue;
    }
    job->lane = lane;
    ++lane->in_flight;
  }
  for (Job* job : abandoning) {
    if (!job->finished) {
      api_.multi_remove_handle(job->lane->multi, job->curl);
      --job->lane->in_flight;
    }
    job->removed.signal();
  }
}

// Hands each ended transfer back to its waiter.
void Transport::finish_done() {
  for (Lane& lane : lanes_) {
    int left = 0;
    while (CURLMsg* msg = api_.multi_info_read(lane.multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Job* job = nullptr;
      CURL* curl = msg->easy_handle;
      CURLcode result = msg->data.result;
      api_.easy_getinfo(curl, CURLINFO_PRIVATE, &job);
      api_.multi_remove_handle(lane.multi, curl);  // ends msg's life too: nothing of it is read after
      --lane.in_flight;
      job->result = result;
      job->finished = true;
      job->woken.signal();
      job->done.signal();
    }
  }
}

// Calls curl back for each lane whose timer is due.
void Transport::run_timers() {
  auto now = std::chrono::steady_clock::now();
  int running = 0;
  for (Lane& lane : lanes_) {
    if (!lane.timer || *lane.timer > now) continue;
    lane.timer.reset();
    api_.multi_socket_action(lane.multi, CURL_SOCKET_TIMEOUT, 0, &running);
  }
}

void Transport::serve() {
  std::vector<epoll_event> ready(256);
  int running = 0;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (closing_) return;
    }
    take_requests();
    int wait_ms = 1000;
    auto now = std::chrono::steady_clock::now();
    for (const Lane& lane : lanes_) {
      if (!lane.timer) continue;
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*lane.timer - now).count();
      wait_ms = static_cast<int>(std::clamp<long>(left, 0, wait_ms));
    }
    {
      std::lock_guard lock(mutex_);
      if (!starting_.empty() || !abandoning_.empty() || closing_) wait_ms = 0;  // left while this thread was busy
      else asleep_ = wait_ms > 0;
    }
    int n = epoll_wait(epoll_, ready.data(), static_cast<int>(ready.size()), wait_ms);
    {
      std::lock_guard lock(mutex_);
      asleep_ = false;
    }
    for (int i = 0; i < n; ++i) {
      uint64_t key = ready[static_cast<size_t>(i)].data.u64;
      uint32_t events = ready[static_cast<size_t>(i)].events;
      auto lane = static_cast<uint32_t>(key >> 32);
      auto fd = static_cast<int>(static_cast<uint32_t>(key));
      if (lane == kWakeLane) {
        uint64_t count;
        [[maybe_unused]] ssize_t r = read(wake_fd_, &count, sizeof count);
        continue;
      }
      int mask = ((events & EPOLLIN) ? CURL_CSELECT_IN : 0) | ((events & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
                 ((events & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
      api_.multi_socket_action(lanes_[lane].multi, fd, mask, &running);
    }
    run_timers();
    finish_done();
  }
}

}  // namespace engine::net
