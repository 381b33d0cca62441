#include "engine/net/io_threads.h"

#include "engine/net/transport.h"

namespace engine::net {

IoThreads::IoThreads() = default;
IoThreads::~IoThreads() = default;

Transport& IoThreads::transport() {
  std::lock_guard lock(mu_);
  if (!transport_) transport_ = std::make_unique<Transport>();
  return *transport_;
}

FiberPool& IoThreads::fibers() {
  std::lock_guard lock(mu_);
  if (!fibers_) fibers_ = std::make_unique<FiberPool>(1);
  return *fibers_;
}

}  // namespace engine::net
