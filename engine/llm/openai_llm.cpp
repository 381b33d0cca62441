#include "engine/llm/openai_llm.h"

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/llm/sse_reader.h"

namespace engine::llm {
namespace {

Value message_json(const ChatMessage& m) {
  Value out{{"role", m.role}};
  if (m.role == "tool") {
    out["tool_call_id"] = m.tool_call_id;
    out["content"] = m.content;
    return out;
  }
  if (m.tool_calls.empty()) {
    out["content"] = m.content;
    return out;
  }
  out["content"] = m.content.empty() ? Value() : Value(m.content);
  Value calls = Value::array();
  for (const auto& c : m.tool_calls)
    calls.push_back(Value{{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
  out["tool_calls"] = std::move(calls);
  return out;
}

Value tool_choice_json(const std::string& choice) {
  if (choice == "auto" || choice == "none" || choice == "required") return choice;
  if (choice == "any") return "required";  // Anthropic's word for it
  return Value{{"type", "function"}, {"function", {{"name", choice}}}};
}

std::string finish_reason_of(const Value& choice) {
  std::string r = string_field(choice, "finish_reason");
  return r == "function_call" ? "tool_calls" : r;
}

// The usage a server reports, or an estimate.
void read_usage(const Value& usage, const LlmRequest& request, LlmResponse& out) {
  auto count = [&](const char* key) { return token_count(field(usage, key)); };
  if (usage.is_object() && usage.contains("prompt_tokens")) {
    out.usage.prompt_tokens = count("prompt_tokens");
    out.usage.completion_tokens = count("completion_tokens");
    return;
  }
  long prompt = estimate_tokens(request.prompt);
  for (const auto& m : request.messages) prompt += estimate_tokens(m.content);
  out.usage.prompt_tokens = prompt;
  out.usage.completion_tokens = estimate_tokens(out.text);
  out.usage_estimated = true;
}

class OpenAiWholeReader : public ResponseReader {
 public:
  OpenAiWholeReader(const OpenAiConfig& cfg, const LlmRequest& request, const ApiEndpoint& api)
      : cfg_(cfg), request_(request), api_(api) {}

  LlmResponse finish(const net::HttpResponse& r) override {
    JsonError why_not;
    Value body = parse_json(r.body, &why_not);
    auto bad = [&](const std::string& why) {
      return Error(ErrorKind::LlmBadResponse, cfg_.provider + ": " + why + ": " + quote_excerpt(api_.redact(r.body), 200));
    };
    if (body.is_discarded()) throw bad(why_not.too_deep ? "the server's answer is JSON " + why_not.message : "the server's answer is not JSON");
    if (body.is_object() && body.contains("error") && !body.contains("choices"))
      throw_server_error(cfg_.provider, body["error"], api_.redact(r.body));
    if (!body.is_object() || !body.contains("choices") || !body["choices"].is_array() || body["choices"].empty())
      throw bad("the server's answer has no choices");
    const Value& choice = body["choices"][0];
    LlmResponse out;
    if (choice.contains("message") && choice["message"].is_object()) {
      const Value& message = choice["message"];
      const Value& content = field(message, "content");
      if (content.is_string()) out.text = content.get<std::string>();
      if (message.contains("tool_calls") && message["tool_calls"].is_array()) {
        for (const auto& c : message["tool_calls"]) {
          const Value& fn = field(c, "function");
          if (!fn.is_object()) throw bad("a tool call has no function");
          ToolCall call{string_field(c, "id"), string_field(fn, "name"), ""};
          const Value& args = field(fn, "arguments");
          call.arguments = args.is_string() ? args.get<std::string>() : args.is_null() ? "" : args.dump();
          out.tool_calls.push_back(std::move(call));
        }
      }
    } else if (choice.contains("text") && choice["text"].is_string()) {
      out.text = choice["text"].get<std::string>();
    } else {
      throw bad("the first choice has neither a message nor text");
    }
    out.finish_reason = finish_reason_of(choice);
    if (out.finish_reason.empty()) out.finish_reason = out.tool_calls.empty() ? "stop" : "tool_calls";
    // Servers accept a few stop sequences at most; the rest are applied here, exactly as a server would.
    if (cut_at_stop(out.text, request_.stop)) out.finish_reason = "stop";
    read_usage(field(body, "usage"), request_, out);
    out.model = string_field(body, "model");
    out.id = string_field(body, "id");
    return out;
  }

 private:
  const OpenAiConfig& cfg_;
  const LlmRequest& request_;
  const ApiEndpoint& api_;
};

// A streamed answer: text deltas shown as they come (stop sequences honoured across deltas), tool-call deltas
// assembled by index, usage from the final chunk, and the end marker required.
class OpenAiStreamReader : public SseReader {
 public:
  OpenAiStreamReader(const OpenAiConfig& cfg, const LlmRequest& request, const ApiEndpoint& api)
      : SseReader(request, *api.redactor()), cfg_(cfg), request_(request), api_(api) {}

 private:
  LlmResponse read_whole(const net::HttpResponse& r) override { return OpenAiWholeReader(cfg_, request_, api_).finish(r); }

  LlmResponse end_of_stream() override {
    if (!text_.stopped() && !done_ && finish_reason_.empty())
      throw RetryableError(ErrorKind::LlmStreamCut, cfg_.provider + ": the stream ended before its end marker");
    text_.finish();
    LlmResponse out;
    out.finish_reason = text_.stopped() ? "stop" : finish_reason_;
    if (out.finish_reason.empty()) out.finish_reason = calls_.empty() ? "stop" : "tool_calls";
    out.text = text_.take_text();
    out.tool_calls = std::move(calls_);
    read_usage(usage_, request_, out);
    out.model = std::move(model_);
    out.id = std::move(id_);
    return out;
  }

  void on_event(const net::SseEvent& e) override {
    if (done_) return;  // the answer is complete: whatever follows cannot change or fail it
    if (e.data == "[DONE]") {
      done_ = true;
      return;
    }
    JsonError why_not;
    Value chunk = parse_json(e.data, &why_not);
    if (chunk.is_discarded())
      throw Error(ErrorKind::LlmBadResponse, cfg_.provider + ": a stream event is " + (why_not.too_deep ? "JSON " + why_not.message : "not JSON") +
                                          ": " + quote_excerpt(api_.redact(e.data), 200));
    if (!chunk.is_object()) return;
    if (chunk.contains("error")) throw_server_error(cfg_.provider, chunk["error"], api_.redact(e.data));
    if (const Value& usage = field(chunk, "usage"); usage.is_object()) usage_ = usage;
    if (model_.empty()) model_ = string_field(chunk, "model");
    if (id_.empty()) id_ = string_field(chunk, "id");
    const Value& choices = field(chunk, "choices");
    if (!choices.is_array() || choices.empty()) return;
    const Value& choice = choices[0];
    std::string reason = finish_reason_of(choice);
    if (!reason.empty()) finish_reason_ = reason;
    if (const Value& text = field(choice, "text"); text.is_string()) text_.add(text.get_ref<const std::string&>());
    const Value& delta = field(choice, "delta");
    if (const Value& content = field(delta, "content"); content.is_string())
      text_.add(content.get_ref<const std::string&>());
    const Value& calls = field(delta, "tool_calls");
    if (!calls.is_array()) return;
    for (const auto& c : calls) {
      if (!c.is_object()) continue;
      const Value& at = c.contains("index") ? c["index"] : Value(calls_.size());
      if (!at.is_number_unsigned() || at.get<size_t>() > calls_.size() + 64)
        throw Error(ErrorKind::LlmBadResponse, cfg_.provider + ": a tool call delta has a bad index: " + at.dump());
      size_t index = at.get<size_t>();
      if (index >= calls_.size()) calls_.resize(index + 1);
      ToolCall& call = calls_[index];
      if (std::string id = string_field(c, "id"); !id.empty()) call.id = std::move(id);
      const Value& fn = field(c, "function");
      call.name += string_field(fn, "name");
      call.arguments += string_field(fn, "arguments");
    }
  }

  const OpenAiConfig& cfg_;
  const LlmRequest& request_;
  const ApiEndpoint& api_;
  bool done_ = false;
  std::string finish_reason_;
  std::string model_, id_;  // from the first chunk that names them
  Value usage_;
  std::vector<ToolCall> calls_;
};

}  // namespace

OpenAiLlm::OpenAiLlm(OpenAiConfig config)
    : cfg_(std::move(config)), api_(cfg_.provider, cfg_.api_key_env, cfg_.timeouts, cfg_.retry, cfg_.io) {}

std::string OpenAiLlm::url() const {
  return cfg_.base_url + (cfg_.endpoint == OpenAiEndpoint::Chat ? "/chat/completions" : "/completions");
}

Value OpenAiLlm::request_body(const LlmRequest& request) const {
  Value body = Value::object();
  body["model"] = cfg_.model;
  if (cfg_.endpoint == OpenAiEndpoint::Completions) {
    if (request.prompt.empty() && !request.messages.empty())
      throw Error(ErrorKind::LlmBadRequest, cfg_.provider +
                                         ": the completions endpoint takes a text prompt, and this prompt is chat "
                                         "messages; give llm.chat_template or use endpoint: chat");
    body["prompt"] = request.prompt;
  } else {
    Value messages = Value::array();
    if (request.messages.empty()) messages.push_back(Value{{"role", "user"}, {"content", request.prompt}});
    for (const auto& m : request.messages) messages.push_back(message_json(m));
    body["messages"] = std::move(messages);
  }
  if (!request.stop.empty()) {
    Value stop = Value::array();
    for (size_t i = 0; i < request.stop.size() && i < cfg_.max_stop_sequences; ++i) stop.push_back(request.stop[i]);
    body["stop"] = std::move(stop);
  }
  auto temperature = request.temperature ? request.temperature : cfg_.temperature;
  if (temperature) body["temperature"] = *temperature;
  auto max_tokens = request.max_tokens ? request.max_tokens : cfg_.max_tokens;
  if (max_tokens) body[cfg_.endpoint == OpenAiEndpoint::Chat ? cfg_.max_tokens_field : "max_tokens"] = *max_tokens;
  if (cfg_.seed) body["seed"] = *cfg_.seed;
  if (!cfg_.response_format.is_null()) body["response_format"] = cfg_.response_format;
  if (!request.tools.empty()) {
    Value tools = Value::array();
    for (const auto& t : request.tools)
      tools.push_back(Value{{"type", "function"},
                            {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
    body["tools"] = std::move(tools);
    if (!request.tool_choice.empty()) body["tool_choice"] = tool_choice_json(request.tool_choice);
    if (cfg_.parallel_tool_calls) body["parallel_tool_calls"] = *cfg_.parallel_tool_calls;
  }
  if (request.stream) {
    body["stream"] = true;
    body["stream_options"] = Value{{"include_usage", true}};  // the usage arrives in a last chunk
  }
  apply_extra(body, cfg_.extra);
  return body;
}

LlmResponse OpenAiLlm::complete(const LlmRequest& request) const {
  const std::string& key = api_.require_api_key();
  std::vector<std::string> headers = {"Content-Type: application/json",
                                      request.stream ? "Accept: text/event-stream" : "Accept: application/json"};
  if (!key.empty()) headers.push_back("Authorization: Bearer " + key);
  if (!request.traceparent.empty()) headers.push_back("traceparent: " + request.traceparent);
  std::string body = to_json_text(request_body(request));
  return api_.send(url(), headers, body, request, [&]() -> std::unique_ptr<ResponseReader> {
    if (request.stream) return std::make_unique<OpenAiStreamReader>(cfg_, request, api_);
    return std::make_unique<OpenAiWholeReader>(cfg_, request, api_);
  });
}

LlmResponse OpenAiLlm::read_answer(const LlmRequest& request, const std::vector<std::string_view>& pieces) const {
  if (request.stream) {
    OpenAiStreamReader reader(cfg_, request, api_);
    return read_body(reader, pieces);
  }
  OpenAiWholeReader reader(cfg_, request, api_);
  return read_body(reader, pieces);
}

}  // namespace engine::llm
