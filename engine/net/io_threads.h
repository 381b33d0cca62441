#pragma once
// The I/O threads a process shares, however many workflows, models, grants and MCP servers it builds: one transport
// thread drives every HTTP client's transfers from fibers, one thread watches every child process's pipes. A front
// end makes one and hands it to everything it builds (assemble's BuildOptions); each thread starts with its first use
// and stops when the last holder lets go. What is built without one makes its own.
#include <memory>
#include <mutex>

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

 private:
  std::mutex mu_;
  std::unique_ptr<Transport> transport_;
  DescriptorWatch pipes_;
};

}  // namespace engine::net
