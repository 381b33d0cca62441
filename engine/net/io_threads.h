#pragma once
// The I/O threads a process shares, however many workflows, models, grants and MCP servers it builds: one transport
// thread drives every HTTP client's transfers from fibers, one thread watches every child process's pipes, one runs
// the fibers of I/O that no run waits for (an MCP server's answers to its own requests), and one does the blocking
// work fibers hand over (a document index's SQLite queries and updates). A front end makes one
// and hands it to everything it builds (assemble's BuildOptions); each thread starts with its first use and stops
// when the last holder lets go. What is built without one makes its own.
#include <memory>
#include <mutex>

#include "engine/core/blocking_worker.h"
#include "engine/core/fiber.h"
#include "engine/net/descriptor_watch.h"

namespace engine::net {

class Transport;

class IoThreads {
 public:
  IoThreads();
  ~IoThreads();  // no transfer may still be in flight, no descriptor still watched
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  // Started with the first transfer from a fiber; throws Error "http.transport" when curl cannot start.
  Transport& transport();
  DescriptorWatch& pipes() { return pipes_; }
  // One thread's fibers, started with the first use, for short work that waits on I/O and answers to no run: what
  // runs there must end within a bounded time (its transfers have deadlines) and must not outlive what it uses.
  FiberPool& fibers();
  // Work that blocks its thread, run off the fibers' threads when called from a fiber (core/blocking_worker.h).
  BlockingWorker& blocking() { return blocking_; }

 private:
  std::mutex mu_;
  std::unique_ptr<Transport> transport_;
  DescriptorWatch pipes_;
  BlockingWorker blocking_;
  std::unique_ptr<FiberPool> fibers_;  // after the transport: its fibers' transfers end before the transport does
};

}  // namespace engine::net
