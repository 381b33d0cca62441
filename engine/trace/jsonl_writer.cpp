#include "engine/trace/jsonl_writer.h"

#include "engine/core/json_text.h"

namespace engine::trace {

void JsonlWriter::receive(const Event& e, const EventPlace& place) {
  Value line{{"t_ms", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count()},
             {"type", event_name(e.type)}};
  if (!place.run_id.empty()) line["run_id"] = place.run_id;
  if (!place.step.empty()) line["path"] = place.step;
  if (e.data.is_object())
    for (const auto& [k, v] : e.data.items()) line[k] = v;
  std::lock_guard<std::mutex> lock(mu_);
  out_ << to_json_text(line) << '\n';
  out_.flush();
}

}  // namespace engine::trace
