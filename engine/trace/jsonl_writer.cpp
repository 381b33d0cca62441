#include "engine/trace/jsonl_writer.h"

#include "engine/core/json_text.h"
#include "engine/trace/event_record.h"

namespace engine::trace {

void JsonlWriter::receive(const Event& e, const EventPlace& place) {
  double t_ms = std::chrono::duration<double, std::milli>(e.at - start_).count();
  std::string line = event_line(e, place, t_ms);
  std::lock_guard<std::mutex> lock(mu_);
  out_ << line << '\n';
  out_.flush();
}

}  // namespace engine::trace
