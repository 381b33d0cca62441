#include "engine/llm/http/transport.h"

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

namespace engine::llm::http {

Transport::Transport() : api_(curl_api()), multi_(api_.multi_init()) {
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  if (!multi_ || epoll_ < 0 || wake_fd_ < 0 || epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0) {
    if (multi_) api_.multi_cleanup(multi_);
    if (epoll_ >= 0) close(epoll_);
    if (wake_fd_ >= 0) close(wake_fd_);
    throw Error("http.transport", "cannot start the transport of concurrent requests");
  }
  api_.multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &Transport::on_socket);
  api_.multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  api_.multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &Transport::on_timer);
  api_.multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  thread_ = std::thread([this] { serve(); });
}

Transport::~Transport() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  wake();
  thread_.join();
  api_.multi_cleanup(multi_);
  close(epoll_);
  close(wake_fd_);
}

void Transport::wake() {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof one);  // a full counter already means "wake"
}

// curl says which of its sockets to watch, and for what.
int Transport::on_socket(CURL*, curl_socket_t s, int what, void* self, void*) {
  int epoll = static_cast<Transport*>(self)->epoll_;
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(epoll, EPOLL_CTL_DEL, s, nullptr);
    return 0;
  }
  epoll_event ev{};
  ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  ev.data.fd = s;
  // A socket curl closed without saying so has left the epoll set by itself; its number may come back.
  if (epoll_ctl(epoll, EPOLL_CTL_MOD, s, &ev) != 0 && errno == ENOENT) epoll_ctl(epoll, EPOLL_CTL_ADD, s, &ev);
  return 0;
}

int Transport::on_timer(CURLM*, long timeout_ms, void* self) {
  auto& t = *static_cast<Transport*>(self);
  if (timeout_ms < 0) t.timer_.reset();
  else t.timer_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  return 0;
}

// One transfer, on the stack of the run that waits for it. The transport touches it until it signals `done` (the
// transfer ended) or `removed` (taken back), whichever the waiter waits for last.
struct Transport::Job {
  CURL* curl = nullptr;
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
    starting.swap(starting_);
    abandoning.swap(abandoning_);
  }
  for (Job* job : starting) {
    if (api_.multi_add_handle(multi_, job->curl) != CURLM_OK) {
      job->result = CURLE_FAILED_INIT;
      job->finished = true;
      job->woken.signal();
      job->done.signal();
    }
  }
  for (Job* job : abandoning) {
    if (!job->finished) api_.multi_remove_handle(multi_, job->curl);
    job->removed.signal();
  }
}

// Hands each ended transfer back to its waiter.
void Transport::finish_done() {
  int left = 0;
  while (CURLMsg* msg = api_.multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Job* job = nullptr;
    CURL* curl = msg->easy_handle;
    CURLcode result = msg->data.result;
    api_.easy_getinfo(curl, CURLINFO_PRIVATE, &job);
    api_.multi_remove_handle(multi_, curl);  // ends msg's life too: nothing of it is read after
    job->result = result;
    job->finished = true;
    job->woken.signal();
    job->done.signal();
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
    if (timer_) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*timer_ - std::chrono::steady_clock::now()).count();
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
      int fd = ready[static_cast<size_t>(i)].data.fd;
      uint32_t events = ready[static_cast<size_t>(i)].events;
      if (fd == wake_fd_) {
        uint64_t count;
        [[maybe_unused]] ssize_t r = read(wake_fd_, &count, sizeof count);
        continue;
      }
      int mask = ((events & EPOLLIN) ? CURL_CSELECT_IN : 0) | ((events & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
                 ((events & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
      api_.multi_socket_action(multi_, fd, mask, &running);
    }
    if (timer_ && *timer_ <= std::chrono::steady_clock::now()) {
      timer_.reset();
      api_.multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
    }
    finish_done();
  }
}

}  // namespace engine::llm::http
