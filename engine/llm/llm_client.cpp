#include "engine/llm/llm_client.h"

#include <algorithm>

#include "engine/core/error.h"

namespace engine::llm {

bool cut_at_stop(std::string& text, const std::vector<std::string>& stop) {
  size_t cut = std::string::npos;
  for (const auto& s : stop) {
    if (s.empty()) continue;
    size_t at = text.find(s);
    if (at < cut) cut = at;
  }
  if (cut == std::string::npos) return false;
  text.resize(cut);
  return true;
}

long token_count(const Value& v) {
  constexpr unsigned long long kMax = 1'000'000'000'000'000ULL;
  if (v.is_number_unsigned()) return static_cast<long>(std::min(v.get<unsigned long long>(), kMax));
  if (v.is_number_integer()) return std::max(0L, static_cast<long>(std::min<long long>(v.get<long long>(), kMax)));
  return 0;
}

long estimate_tokens(std::string_view text) { return static_cast<long>((text.size() + 3) / 4); }

Value tool_calls_to_json(const std::vector<ToolCall>& calls) {
  Value out = Value::array();
  for (const auto& c : calls) out.push_back(Value{{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  return out;
}

Value request_to_json(const LlmRequest& r) {
  Value j = Value::object();
  if (r.messages.empty()) {
    j["prompt"] = r.prompt;
  } else {
    Value messages = Value::array();
    for (const auto& m : r.messages) {
      Value msg{{"role", m.role}, {"content", m.content}};
      if (!m.tool_calls.empty()) msg["tool_calls"] = tool_calls_to_json(m.tool_calls);
      if (!m.tool_call_id.empty()) msg["tool_call_id"] = m.tool_call_id;
      messages.push_back(std::move(msg));
    }
    j["messages"] = std::move(messages);
  }
  if (!r.stop.empty()) j["stop"] = r.stop;
  if (r.temperature) j["temperature"] = *r.temperature;
  if (r.max_tokens) j["max_tokens"] = *r.max_tokens;
  if (!r.tools.empty()) {
    Value tools = Value::array();
    for (const auto& t : r.tools)
      tools.push_back(Value{{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}});
    j["tools"] = std::move(tools);
  }
  if (!r.tool_choice.empty()) j["tool_choice"] = r.tool_choice;
  return j;
}

Value response_to_json(const LlmResponse& r) {
  Value j{{"text", r.text}, {"finish_reason", r.finish_reason}};
  if (!r.tool_calls.empty()) j["tool_calls"] = tool_calls_to_json(r.tool_calls);
  j["usage"] = {{"prompt_tokens", r.usage.prompt_tokens}, {"completion_tokens", r.usage.completion_tokens}};
  if (r.usage_estimated) j["usage"]["estimated"] = true;
  if (!r.model.empty()) j["model"] = r.model;
  if (!r.id.empty()) j["id"] = r.id;
  return j;
}

LlmResponse response_from_json(const Value& j) {
  if (!j.is_object() || !j.contains("text") || !j["text"].is_string())
    throw Error(ErrorKind::LlmBadRecording, "a recorded response needs a string 'text'");
  LlmResponse r;
  r.text = j["text"].get<std::string>();
  r.finish_reason = string_field(j, "finish_reason");
  if (r.finish_reason.empty()) r.finish_reason = "stop";
  r.model = string_field(j, "model");
  r.id = string_field(j, "id");
  if (j.contains("tool_calls")) {
    if (!j["tool_calls"].is_array()) throw Error(ErrorKind::LlmBadRecording, "a recorded response's tool_calls must be a list");
    for (const auto& c : j["tool_calls"])
      r.tool_calls.push_back({string_field(c, "id"), string_field(c, "name"), string_field(c, "arguments")});
  }
  const Value usage = j.value("usage", Value::object());
  auto count = [&](const char* key) {
    auto it = usage.is_object() ? usage.find(key) : usage.end();
    return usage.is_object() && it != usage.end() && it->is_number_integer() ? it->get<long>() : 0L;
  };
  r.usage.prompt_tokens = count("prompt_tokens");
  r.usage.completion_tokens = count("completion_tokens");
  r.usage_estimated = usage.is_object() && usage.contains("estimated") && usage["estimated"] == true;
  return r;
}

}  // namespace engine::llm
