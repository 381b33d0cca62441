#pragma once
// Writes every event as one JSON line: {"t_ms": ..., "type": ..., "run_id": ..., "path": ... (a step's), ...data}.
#include <chrono>
#include <mutex>
#include <ostream>

#include "engine/core/event.h"

namespace engine::trace {

class JsonlWriter : public EventSink {
 public:
  explicit JsonlWriter(std::ostream& out) : out_(out), start_(std::chrono::steady_clock::now()) {}
  void receive(const Event& event, const EventPlace& place) override;

 private:
  std::ostream& out_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;  // batch runs share one trace file
};

}  // namespace engine::trace
