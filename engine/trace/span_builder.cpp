#include "engine/trace/span_builder.h"

#include "engine/core/json_text.h"
#include "engine/core/trace_context.h"
#include "engine/core/utf8.h"

namespace engine::trace {
namespace {

std::string_view view_of(const Value& d, const char* key) {
  auto it = d.find(key);
  return it != d.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>()) : std::string_view();
}

std::string text_of(const Value& d, const char* key) { return std::string(view_of(d, key)); }

bool flag_of(const Value& d, const char* key) {
  auto it = d.find(key);
  return it != d.end() && it->is_boolean() && it->get<bool>();
}

// Where a path sits: `greet[3]` under `greet`, `billing/researcher` under `billing`, a step under the run ("").
std::string_view enclosing_path(std::string_view path) {
  if (!path.empty() && path.back() == ']') {
    size_t open = path.rfind('[');
    if (open != std::string_view::npos && open > 0) return path.substr(0, open);
  }
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

void fail_with(Span& span, const Value& error) {
  span.failed = true;
  span.status_message = text_of(error, "message");
  if (std::string kind = text_of(error, "kind"); !kind.empty()) span.attributes.set("error.type", kind);
}

void add_usage(Span& span, const Value& usage) {
  if (!usage.is_object()) return;
  if (auto in = usage.find("prompt_tokens"); in != usage.end() && in->is_number())
    span.attributes.set_json("gen_ai.usage.input_tokens", *in);
  if (auto out = usage.find("completion_tokens"); out != usage.end() && out->is_number())
    span.attributes.set_json("gen_ai.usage.output_tokens", *out);
}

// Text for a content attribute: at most `limit` bytes, cut where a UTF-8 sequence starts.
std::string bounded(std::string text, size_t limit) {
  if (text.size() <= limit) return text;
  text.resize(utf8::cut(text, limit));
  return text;
}

std::string as_text(const Value& v) { return v.is_string() ? v.get<std::string>() : to_json_text(v); }

// A message as the conventions write it: {role, parts}, each part text, a tool call the assistant makes, or a tool's
// response to one.
Value conventions_message(const Value& m) {
  std::string role = text_of(m, "role"), content = text_of(m, "content");
  Value parts = Value::array();
  if (role == "tool")
    parts.push_back({{"type", "tool_call_response"}, {"id", text_of(m, "tool_call_id")}, {"response", content}});
  else if (!content.empty())
    parts.push_back({{"type", "text"}, {"content", content}});
  if (auto calls = m.find("tool_calls"); calls != m.end() && calls->is_array())
    for (const auto& c : *calls)
      parts.push_back({{"type", "tool_call"}, {"id", text_of(c, "id")}, {"name", text_of(c, "name")},
                       {"arguments", text_of(c, "arguments")}});
  return Value{{"role", role}, {"parts", std::move(parts)}};
}

// What the model was sent: the chat messages, or the text prompt as one user message.
std::string input_messages(const Value& start) {
  Value out = Value::array();
  if (auto messages = start.find("messages"); messages != start.end() && messages->is_array()) {
    for (const auto& m : *messages) out.push_back(conventions_message(m));
  } else {
    out.push_back(conventions_message(Value{{"role", "user"}, {"content", text_of(start, "prompt")}}));
  }
  return to_json_text(out);
}

std::string output_messages(const Value& end) {
  Value reply{{"role", "assistant"}, {"content", text_of(end, "text")}};
  if (auto calls = end.find("tool_calls"); calls != end.end()) reply["tool_calls"] = *calls;
  Value message = conventions_message(reply);
  message["finish_reason"] = text_of(end, "finish_reason");
  return to_json_text(Value::array({std::move(message)}));
}

}  // namespace

SpanBuilder::SpanBuilder(Ended ended, SpanContent content)
    : ended_(std::move(ended)), content_(content), random_(std::random_device{}()) {}

template <size_t N>
void SpanBuilder::new_id(HexId<N>& id) {
  static constexpr char kHex[] = "0123456789abcdef";
  char* out = id.data();
  bool zero = true;
  for (size_t i = 0; i < N; i += 16) {
    uint64_t bits = random_();
    zero = zero && bits == 0;
    for (size_t j = 0; j < 16 && i + j < N; ++j, bits >>= 4) out[i + j] = kHex[bits & 15];
  }
  if (zero) out[N - 1] = '1';  // all zeros is an invalid id
}

SpanBuilder::Stack* SpanBuilder::open_at(std::string_view run_id, std::string_view path) {
  place_.assign(run_id).append(1, '\x1f').append(path);
  auto it = open_.find(place_);
  return it == open_.end() ? nullptr : &it->second;
}

const Span* SpanBuilder::parent_for(std::string_view run_id, std::string_view path) {
  for (std::string_view at = path;; at = enclosing_path(at)) {
    if (Stack* stack = open_at(run_id, at); stack && !stack->empty()) return &stack->back().span;
    if (at.empty()) return nullptr;
  }
}

void SpanBuilder::open(std::string_view run_id, std::string_view path, std::string key, Span span,
                       const Value* chain_start) {
  if (const Span* parent = parent_for(run_id, path)) {
    span.trace_id = parent->trace_id;
    span.parent_id = parent->span_id;
  } else {  // the run's root: the trace its chain_start names (and the caller's span), or one of its own
    auto known = trace_of_run_.find(run_id);
    if (chain_start) span.trace_id = view_of(*chain_start, "trace_id");
    if (span.trace_id.empty()) {
      if (known != trace_of_run_.end()) span.trace_id = known->second;
      else new_id(span.trace_id);
    }
    if (known != trace_of_run_.end()) known->second = span.trace_id;
    else trace_of_run_.emplace(std::string(run_id), span.trace_id);
    if (chain_start) span.parent_id = view_of(*chain_start, "parent_span_id");
    span.remote_parent = !span.parent_id.empty() && !(chain_start && flag_of(*chain_start, "parent_local"));
  }
  if (span.span_id.empty()) new_id(span.span_id);
  Stack* stack = open_at(run_id, path);
  if (!stack) stack = &open_.emplace(place_, Stack()).first->second;
  stack->push_back(Open{std::move(key), std::move(span)});
}

template <class Finish>
void SpanBuilder::close(std::string_view run_id, std::string_view path, std::string_view key,
                        std::chrono::steady_clock::time_point at, const Finish& finish) {
  Stack* stack = open_at(run_id, path);
  if (!stack) return;
  size_t i = stack->size();
  while (i > 0 && (*stack)[i - 1].key != key) --i;
  if (i == 0) return;
  // Anything opened inside it and never ended (a start without its end) ends with it.
  while (stack->size() > i) {
    Span inner = std::move(stack->back().span);
    stack->pop_back();
    inner.end = at;
    inner.failed = true;
    inner.status_message = "it did not end before what holds it";
    ended_(std::move(inner));
  }
  Span span = std::move(stack->back().span);
  stack->pop_back();
  if (stack->empty()) open_.erase(place_);
  span.end = at;
  finish(span);
  ended_(std::move(span));
}

void SpanBuilder::receive(const Event& event, const EventPlace& place) {
  const Value& d = event.data;
  std::string_view run_id = place.run_id, path = place.step;
  auto make = [&](std::string name, SpanKind kind, const char* operation) {
    Span span;
    span.name = std::move(name);
    span.kind = kind;
    span.start = event.at;
    if (operation) span.attributes.set("gen_ai.operation.name", operation);
    return span;
  };
  // A tool call's span, from its tool_start (or from the tool_end of a call refused before it ran).
  auto open_tool_call = [&] {
    std::string tool = text_of(d, "tool");
    Span span = make("execute_tool " + tool, SpanKind::Internal, "execute_tool");
    span.span_id = text_of(d, "span_id");  // a traced run's, named as the parent of what the tool asks elsewhere
    span.attributes.set("gen_ai.tool.name", tool);
    span.attributes.set("gen_ai.tool.call.id", text_of(d, "call_id"));
    if (auto input = d.find("input"); content_.enabled && input != d.end())
      span.attributes.set("gen_ai.tool.call.arguments", bounded(as_text(*input), content_.limit));
    open(run_id, path, "tool:" + text_of(d, "call_id"), std::move(span));
  };
  std::lock_guard lock(mutex_);
  // A run whose caller asked for no recording (an unsampled traceparent) makes no spans, nor do its parts.
  if (auto unsampled = unsampled_.find(run_id); unsampled != unsampled_.end()) {
    if (event.type == EventType::ChainEnd && path.empty()) unsampled_.erase(unsampled);
    return;
  }
  if (event.type == EventType::ChainStart && path.empty())
    if (auto sampled = d.find("sampled"); sampled != d.end() && *sampled == false) {
      unsampled_.emplace(run_id);
      return;
    }
  switch (event.type) {
    case EventType::ChainStart: {
      std::string name = text_of(d, "name");
      bool agent = text_of(d, "chain") == "AgentExecutor";
      Stack* here = open_at(run_id, path);
      bool inside_step = here && !here->empty();
      // A run, or a workflow run by a step or as a tool; an agent step's chain is the agent alone.
      if (!inside_step || !agent) {
        Span run = make("invoke_workflow " + name, SpanKind::Internal, "invoke_workflow");
        run.attributes.set("gen_ai.workflow.name", name);
        run.attributes.set("engine.run_id", std::string(run_id));
        open(run_id, path, "run", std::move(run), &d);
      }
      if (agent) {
        Span span = make("invoke_agent " + name, SpanKind::Internal, "invoke_agent");
        span.attributes.set("gen_ai.agent.name", name);
        open(run_id, path, "agent", std::move(span));
      }
      break;
    }
    case EventType::ChainEnd: {
      auto finish = [&](Span& span) {
        if (auto error = d.find("error"); error != d.end()) fail_with(span, *error);
        if (std::string reason = text_of(d, "stopped_reason"); !reason.empty())
          span.attributes.set("engine.stopped_reason", reason);
        if (auto usage = d.find("usage"); usage != d.end()) add_usage(span, *usage);
      };
      close(run_id, path, "agent", event.at, finish);
      close(run_id, path, "run", event.at, finish);
      if (auto trace = trace_of_run_.find(run_id); path.empty() && !open_at(run_id, path) && trace != trace_of_run_.end())
        trace_of_run_.erase(trace);
      break;
    }
    case EventType::StepStart: {
      Span span = make(text_of(d, "step"), SpanKind::Internal, nullptr);
      span.attributes.set("engine.step.kind", text_of(d, "kind"));
      open(run_id, path, "step", std::move(span));
      break;
    }
    case EventType::StepEnd:
      close(run_id, path, "step", event.at, [&](Span& span) {
        span.attributes.set("engine.step.status", text_of(d, "status"));
        if (auto error = d.find("error"); error != d.end()) fail_with(span, *error);
      });
      break;
    case EventType::LlmStart: {
      std::string llm = text_of(d, "llm");
      size_t colon = llm.find(':');
      std::string provider = llm.substr(0, colon), model = colon == std::string::npos ? "" : llm.substr(colon + 1);
      Span span = make(model.empty() ? "chat" : "chat " + model, SpanKind::Client, "chat");
      span.span_id = text_of(d, "span_id");  // a traced run's, sent with the request as its traceparent
      span.attributes.set("gen_ai.provider.name", provider);
      if (!model.empty()) span.attributes.set("gen_ai.request.model", model);
      if (d.value("stream", false)) span.attributes.set("gen_ai.request.stream", true);
      if (auto t = d.find("temperature"); t != d.end()) span.attributes.set_json("gen_ai.request.temperature", *t);
      if (auto m = d.find("max_tokens"); m != d.end()) span.attributes.set_json("gen_ai.request.max_tokens", *m);
      if (auto stop = d.find("stop"); stop != d.end()) span.attributes.set_json("gen_ai.request.stop_sequences", *stop);
      if (content_.enabled) span.attributes.set("gen_ai.input.messages", bounded(input_messages(d), content_.limit));
      open(run_id, path, "llm:" + std::to_string(d.value("call", 0)), std::move(span));
      break;
    }
    case EventType::LlmEnd:
      close(run_id, path, "llm:" + std::to_string(d.value("call", 0)), event.at, [&](Span& span) {
        if (auto error = d.find("error"); error != d.end()) return fail_with(span, *error);
        if (std::string reason = text_of(d, "finish_reason"); !reason.empty())
          span.attributes.set("gen_ai.response.finish_reasons", std::vector<std::string>{reason});
        if (auto usage = d.find("usage"); usage != d.end()) add_usage(span, *usage);
        if (std::string model = text_of(d, "model"); !model.empty()) span.attributes.set("gen_ai.response.model", model);
        if (std::string id = text_of(d, "id"); !id.empty()) span.attributes.set("gen_ai.response.id", id);
        if (content_.enabled) span.attributes.set("gen_ai.output.messages", bounded(output_messages(d), content_.limit));
      });
      break;
    case EventType::ToolStart: open_tool_call(); break;
    case EventType::ToolEnd: {
      std::string key = "tool:" + text_of(d, "call_id");
      bool started = false;
      if (Stack* here = open_at(run_id, path))
        for (const Open& o : *here) started = started || o.key == key;
      if (!started) open_tool_call();  // refused before it ran: a span of no length says so
      close(run_id, path, key, event.at, [&](Span& span) {
        if (auto result = d.find("observation"); content_.enabled && result != d.end())
          span.attributes.set("gen_ai.tool.call.result", bounded(as_text(*result), content_.limit));
        if (std::string kind = text_of(d, "error"); !kind.empty()) {
          span.failed = true;
          span.status_message = kind;
          span.attributes.set("error.type", kind);
        }
      });
      break;
    }
    default: break;
  }
}

void SpanBuilder::close_all(std::chrono::steady_clock::time_point at) {
  std::lock_guard lock(mutex_);
  for (auto& [where, stack] : open_)
    while (!stack.empty()) {
      Span span = std::move(stack.back().span);
      stack.pop_back();
      span.end = at;
      span.failed = true;
      span.status_message = "the run ended before this span did";
      ended_(std::move(span));
    }
  open_.clear();
  trace_of_run_.clear();
  unsampled_.clear();
}

}  // namespace engine::trace
