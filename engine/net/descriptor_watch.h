#pragma once
// Waiting on a file descriptor (a child process's pipe) without blocking a thread per descriptor: one thread waits
// in epoll for every descriptor handed to it, and wakes the fiber (or thread) that waits on each. A fiber waiting
// here gives its thread to other runs, as it does waiting for an HTTP answer.
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "engine/core/cancel.h"
#include "engine/core/fiber.h"

namespace engine::net {

class DescriptorWatch {
 public:
  DescriptorWatch() = default;  // the thread starts with the first wait or follow
  ~DescriptorWatch();
  DescriptorWatch(const DescriptorWatch&) = delete;
  DescriptorWatch& operator=(const DescriptorWatch&) = delete;

  // Until `fd` is readable (writable when `for_write`; true), `deadline` passes or `cancel` stops (false). One waiter
  // per descriptor at a time. May return true early: the caller reads, finds nothing, and waits again.
  bool wait(int fd, bool for_write, std::optional<SteadyTime> deadline, const Cancel* cancel);

  // Calls `on_ready` on the watch's thread each time `fd` is readable, until it returns false or forget(fd).
  void follow(int fd, std::function<bool()> on_ready);
  // After this, `on_ready` is not running and will not run again: its owner may go away.
  void forget(int fd);

 private:
  struct Entry {
    Wakeup* waiter = nullptr;                     // a wait in progress
    std::shared_ptr<std::function<bool()>> follower;  // or a follower
  };
  void start();  // with mu_ held
  void loop();
  void remove(int fd);  // with mu_ held

  std::mutex mu_;
  std::condition_variable follower_done_;
  int running_fd_ = -1;  // the descriptor whose follower the loop is calling
  std::unordered_map<int, Entry> entries_;
  std::thread thread_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // an eventfd: ends the loop
  bool stopping_ = false;
};

}  // namespace engine::net
