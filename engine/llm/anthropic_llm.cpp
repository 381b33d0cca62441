#include "engine/llm/anthropic_llm.h"

#include <map>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/llm/sse_reader.h"

namespace engine::llm {
namespace {

// Anthropic wants a JSON object as a tool_use's input; a model's malformed arguments are kept as a string field.
Value tool_input(const std::string& arguments) {
  Value v = parse_json(arguments);
  if (v.is_object()) return v;
  return Value{{"input", arguments}};
}

// The messages as Anthropic takes them: system text apart, tool results as user content, and consecutive messages
// of one role merged (the API wants the roles to alternate).
Value messages_json(const LlmRequest& request, std::string& system) {
  Value out = Value::array();
  auto append = [&](const std::string& role, Value block) {
    if (out.empty() || out.back()["role"] != role) out.push_back(Value{{"role", role}, {"content", Value::array()}});
    out.back()["content"].push_back(std::move(block));
  };
  if (request.messages.empty()) append("user", Value{{"type", "text"}, {"text", request.prompt}});
  for (const auto& m : request.messages) {
    if (m.role == "system") {
      system += (system.empty() ? "" : "\n\n") + m.content;
    } else if (m.role == "tool") {
      append("user", Value{{"type", "tool_result"}, {"tool_use_id", m.tool_call_id}, {"content", m.content}});
    } else {
      std::string role = m.role == "assistant" ? "assistant" : "user";
      if (!m.content.empty() || m.tool_calls.empty()) append(role, Value{{"type", "text"}, {"text", m.content}});
      for (const auto& c : m.tool_calls)
        append(role, Value{{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", tool_input(c.arguments)}});
    }
  }
  // A lone text block reads better as a plain string, which the API takes too.
  for (auto& m : out)
    if (m["content"].size() == 1 && m["content"][0]["type"] == "text") m["content"] = m["content"][0]["text"];
  return out;
}

std::string finish_reason_of(const std::string& stop_reason) {
  if (stop_reason == "end_turn" || stop_reason == "stop_sequence" || stop_reason.empty()) return "stop";
  if (stop_reason == "max_tokens") return "length";
  if (stop_reason == "tool_use") return "tool_calls";
  return stop_reason;
}

long count(const Value& usage, const char* key) { return token_count(field(usage, key)); }

// Input tokens include what the prompt cache read or wrote, which Anthropic counts apart.
long prompt_tokens(const Value& usage) {
  return count(usage, "input_tokens") + count(usage, "cache_read_input_tokens") +
         count(usage, "cache_creation_input_tokens");
}

class AnthropicWholeReader : public ResponseReader {
 public:
  AnthropicWholeReader(const LlmRequest& request, const ApiEndpoint& api) : request_(request), api_(api) {}

  LlmResponse finish(const net::HttpResponse& r) override {
    JsonError why_not;
    Value body = parse_json(r.body, &why_not);
    auto bad = [&](const std::string& why) {
      return Error(ErrorKind::LlmBadResponse, "anthropic: " + why + ": " + quote_excerpt(api_.redact(r.body), 200));
    };
    if (body.is_discarded()) throw bad(why_not.too_deep ? "the server's answer is JSON " + why_not.message : "the server's answer is not JSON");
    if (body.is_object() && string_field(body, "type") == "error")
      throw_server_error("anthropic", body["error"], api_.redact(r.body));
    if (!body.is_object() || !body.contains("content") || !body["content"].is_array())
      throw bad("the server's answer has no content");
    LlmResponse out;
    for (const auto& block : body["content"]) {
      std::string type = string_field(block, "type");
      if (type == "text") out.text += string_field(block, "text");
      if (type == "tool_use")
        out.tool_calls.push_back({string_field(block, "id"), string_field(block, "name"),
                                  (block.contains("input") ? block["input"] : Value::object()).dump()});
    }
    out.finish_reason = finish_reason_of(string_field(body, "stop_reason"));
    if (cut_at_stop(out.text, request_.stop)) out.finish_reason = "stop";
    const Value& usage = field(body, "usage");
    out.usage.prompt_tokens = prompt_tokens(usage);
    out.usage.completion_tokens = count(usage, "output_tokens");
    out.model = string_field(body, "model");
    out.id = string_field(body, "id");
    return out;
  }

 private:
  const LlmRequest& request_;
  const ApiEndpoint& api_;
};

// message_start, content blocks (text deltas and tool_use input as partial JSON), message_delta with the stop
// reason and usage, message_stop as the end marker; ping events and error events in between.
class AnthropicStreamReader : public SseReader {
 public:
  AnthropicStreamReader(const LlmRequest& request, const ApiEndpoint& api) : SseReader(request, *api.redactor()), request_(request), api_(api) {}

 private:
  LlmResponse read_whole(const net::HttpResponse& r) override { return AnthropicWholeReader(request_, api_).finish(r); }

  LlmResponse end_of_stream() override {
    if (!text_.stopped() && !done_)
      throw RetryableError(ErrorKind::LlmStreamCut, "anthropic: the stream ended before message_stop");
    text_.finish();
    LlmResponse out;
    out.finish_reason = text_.stopped() ? "stop" : finish_reason_of(stop_reason_);
    out.text = text_.take_text();
    for (auto& [index, call] : calls_) out.tool_calls.push_back(std::move(call));
    out.usage = usage_;
    out.model = std::move(model_);
    out.id = std::move(id_);
    return out;
  }

  void on_event(const net::SseEvent& e) override {
    if (done_) return;  // the answer is complete: whatever follows cannot change or fail it
    JsonError why_not;
    Value d = parse_json(e.data, &why_not);
    if (d.is_discarded() || !d.is_object())
      throw Error(ErrorKind::LlmBadResponse, "anthropic: a stream event is " +
                                          (why_not.too_deep ? "JSON " + why_not.message : "not a JSON object") + ": " +
                                          quote_excerpt(api_.redact(e.data), 200));
    std::string type = string_field(d, "type");
    if (type == "error") throw_server_error("anthropic", field(d, "error"), api_.redact(e.data));
    if (type == "message_start") {
      const Value& message = field(d, "message");
      model_ = string_field(message, "model");
      id_ = string_field(message, "id");
      const Value& usage = field(message, "usage");
      usage_.prompt_tokens = prompt_tokens(usage);
      usage_.completion_tokens = count(usage, "output_tokens");
    } else if (type == "content_block_start") {
      const Value& block = field(d, "content_block");
      if (string_field(block, "type") == "tool_use")
        calls_[index_of(d)] = ToolCall{string_field(block, "id"), string_field(block, "name"), ""};
      else if (string_field(block, "type") == "text")
        text_.add(string_field(block, "text"));
    } else if (type == "content_block_delta") {
      const Value& delta = field(d, "delta");
      std::string kind = string_field(delta, "type");
      if (kind == "text_delta") text_.add(string_field(delta, "text"));
      if (kind == "input_json_delta") {
        auto it = calls_.find(index_of(d));
        if (it != calls_.end()) it->second.arguments += string_field(delta, "partial_json");
      }
    } else if (type == "content_block_stop") {
      auto it = calls_.find(index_of(d));
      if (it != calls_.end() && it->second.arguments.empty()) it->second.arguments = "{}";
    } else if (type == "message_delta") {
      std::string reason = string_field(field(d, "delta"), "stop_reason");
      if (!reason.empty()) stop_reason_ = reason;
      const Value& usage = field(d, "usage");
      if (usage.is_object() && usage.contains("output_tokens")) usage_.completion_tokens = count(usage, "output_tokens");
      if (usage.is_object() && usage.contains("input_tokens")) usage_.prompt_tokens = prompt_tokens(usage);
    } else if (type == "message_stop") {
      done_ = true;
    }
  }

  static long index_of(const Value& d) { return count(d, "index"); }

  const LlmRequest& request_;
  const ApiEndpoint& api_;
  bool done_ = false;
  std::string stop_reason_;
  std::string model_, id_;  // from message_start
  TokenUsage usage_;
  std::map<long, ToolCall> calls_;  // by content block index, in order
};

}  // namespace

AnthropicLlm::AnthropicLlm(AnthropicConfig config)
    : cfg_(std::move(config)), api_("anthropic", cfg_.api_key_env, cfg_.timeouts, cfg_.retry, cfg_.io) {}

Value AnthropicLlm::request_body(const LlmRequest& request) const {
  std::string system;
  Value messages = messages_json(request, system);
  Value body{{"model", cfg_.model}};
  body["max_tokens"] = request.max_tokens ? *request.max_tokens : cfg_.max_tokens;
  if (!system.empty()) body["system"] = system;
  body["messages"] = std::move(messages);
  if (!request.stop.empty()) body["stop_sequences"] = request.stop;
  auto temperature = request.temperature ? request.temperature : cfg_.temperature;
  if (temperature) body["temperature"] = *temperature;
  if (!request.tools.empty()) {
    Value tools = Value::array();
    for (const auto& t : request.tools)
      tools.push_back(Value{{"name", t.name}, {"description", t.description}, {"input_schema", t.parameters}});
    body["tools"] = std::move(tools);
    const std::string& choice = request.tool_choice;
    if (!choice.empty() || cfg_.parallel_tool_calls) {
      Value c;
      if (choice.empty() || choice == "auto") c = {{"type", "auto"}};
      else if (choice == "none") c = {{"type", "none"}};
      else if (choice == "required" || choice == "any") c = {{"type", "any"}};
      else c = {{"type", "tool"}, {"name", choice}};
      if (cfg_.parallel_tool_calls && choice != "none") c["disable_parallel_tool_use"] = !*cfg_.parallel_tool_calls;
      body["tool_choice"] = std::move(c);
    }
  }
  if (request.stream) body["stream"] = true;
  apply_extra(body, cfg_.extra);
  return body;
}

LlmResponse AnthropicLlm::complete(const LlmRequest& request) const {
  const std::string& key = api_.require_api_key();
  std::vector<std::string> headers = {"Content-Type: application/json", "anthropic-version: " + cfg_.version,
                                      request.stream ? "Accept: text/event-stream" : "Accept: application/json"};
  if (!key.empty()) headers.push_back("x-api-key: " + key);
  if (!request.traceparent.empty()) headers.push_back("traceparent: " + request.traceparent);
  std::string body = to_json_text(request_body(request));
  return api_.send(url(), headers, body, request, [&]() -> std::unique_ptr<ResponseReader> {
    if (request.stream) return std::make_unique<AnthropicStreamReader>(request, api_);
    return std::make_unique<AnthropicWholeReader>(request, api_);
  });
}

LlmResponse AnthropicLlm::read_answer(const LlmRequest& request, const std::vector<std::string_view>& pieces) const {
  if (request.stream) {
    AnthropicStreamReader reader(request, api_);
    return read_body(reader, pieces);
  }
  AnthropicWholeReader reader(request, api_);
  return read_body(reader, pieces);
}

}  // namespace engine::llm
