#include "engine/net/descriptor_watch.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "engine/core/error.h"

namespace engine::net {

DescriptorWatch::~DescriptorWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    if (wake_fd_ >= 0) {
      uint64_t one = 1;
      (void)!::write(wake_fd_, &one, sizeof one);
    }
  }
  if (thread_.joinable()) thread_.join();
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void DescriptorWatch::start() {
  if (thread_.joinable()) return;
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (epoll_fd_ < 0 || wake_fd_ < 0) throw Error(ErrorKind::ProcessSpawn, std::string("cannot watch pipes: ") + std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_fd_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  thread_ = std::thread([this] { loop(); });
}

void DescriptorWatch::remove(int fd) {
  entries_.erase(fd);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

bool DescriptorWatch::wait(int fd, bool for_write, std::optional<SteadyTime> deadline, const Cancel* cancel) {
  if (cancel && cancel->stopped()) return false;
  if (cancel && cancel->deadline() && (!deadline || *cancel->deadline() < *deadline)) deadline = cancel->deadline();
  Wakeup wakeup;
  {
    std::lock_guard<std::mutex> lock(mu_);
    start();
    entries_[fd].waiter = &wakeup;
    epoll_event ev{};
    ev.events = (for_write ? EPOLLOUT : EPOLLIN) | EPOLLONESHOT;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0 && ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0) {
      entries_.erase(fd);
      return true;  // not a descriptor epoll can watch: the caller's read or write will say what is wrong
    }
  }
  std::optional<std::stop_callback<std::function<void()>>> on_stop;
  if (cancel) on_stop.emplace(cancel->token(), std::function<void()>([&wakeup] { wakeup.signal(); }));
  bool woken = wakeup.wait_until(deadline);
  on_stop.reset();  // before the Wakeup it signals goes away
  {
    std::lock_guard<std::mutex> lock(mu_);  // after this the loop cannot reach `wakeup`
    remove(fd);
  }
  return woken && !(cancel && cancel->stopped());
}

void DescriptorWatch::follow(int fd, std::function<bool()> on_ready) {
  std::lock_guard<std::mutex> lock(mu_);
  start();
  entries_[fd].follower = std::make_shared<std::function<bool()>>(std::move(on_ready));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) entries_.erase(fd);
}

void DescriptorWatch::forget(int fd) {
  std::unique_lock<std::mutex> lock(mu_);
  if (epoll_fd_ >= 0) remove(fd);
  if (std::this_thread::get_id() != thread_.get_id())
    follower_done_.wait(lock, [&] { return running_fd_ != fd; });
}

void DescriptorWatch::loop() {
  std::vector<epoll_event> events(64);
  for (;;) {
    int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    for (int i = 0; i < n; ++i) {
      int fd = events[static_cast<size_t>(i)].data.fd;
      std::shared_ptr<std::function<bool()>> follower;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return;
        if (fd == wake_fd_) continue;
        auto it = entries_.find(fd);
        if (it == entries_.end()) continue;  // its waiter left (a timeout) after epoll saw it
        if (it->second.waiter) {
          it->second.waiter->signal();
          it->second.waiter = nullptr;
          continue;
        }
        follower = it->second.follower;
        running_fd_ = fd;
      }
      // Called without the lock: it reads the pipe, which may take a moment.
      bool keep = follower && (*follower)();
      {
        std::lock_guard<std::mutex> lock(mu_);
        running_fd_ = -1;
        if (!keep && entries_.count(fd) && entries_[fd].follower == follower) remove(fd);
      }
      follower_done_.notify_all();
    }
  }
}

}  // namespace engine::net
