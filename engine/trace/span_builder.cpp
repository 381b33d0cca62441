#include "engine/trace/span_builder.h"

#include "engine/core/json_text.h"
#include "engine/core/trace_context.h"
#include "engine/core/utf8.h"
#include "engine/trace/otlp_exporter.h"

namespace engine::trace {
namespace {

// Where a path sits: `greet[3]` under `greet`, `billing/researcher` under `billing`, a step under the run ("").
std::string_view enclosing_path(std::string_view path) {
  if (!path.empty() && path.back() == ']') {
    size_t open = path.rfind('[');
    if (open != std::string_view::npos && open > 0) return path.substr(0, open);
  }
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

void fail_with(Span& span, const events::ErrorInfo& error) {
  span.failed = true;
  span.status_message = error.message;
  if (!error.kind.empty()) span.attributes.set("error.type", error.kind);
}

template <class Usage>
void add_usage(Span& span, const Usage& usage) {
  span.attributes.set_json("gen_ai.usage.input_tokens", Value(usage.prompt_tokens));
  span.attributes.set_json("gen_ai.usage.output_tokens", Value(usage.completion_tokens));
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
Value conventions_message(const std::string& role, const std::string& content,
                          const std::vector<events::ToolCallMade>& calls, const std::string& tool_call_id) {
  Value parts = Value::array();
  if (role == "tool")
    parts.push_back({{"type", "tool_call_response"}, {"id", tool_call_id}, {"response", content}});
  else if (!content.empty())
    parts.push_back({{"type", "text"}, {"content", content}});
  for (const auto& c : calls)
    parts.push_back({{"type", "tool_call"}, {"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  return Value{{"role", role}, {"parts", std::move(parts)}};
}

// What the model was sent: the chat messages, or the text prompt as one user message.
std::string input_messages(const events::LlmStart& start) {
  Value out = Value::array();
  for (const auto& m : start.messages) out.push_back(conventions_message(m.role, m.content, m.tool_calls, m.tool_call_id));
  if (start.messages.empty()) out.push_back(conventions_message("user", start.prompt.value_or(""), {}, ""));
  return to_json_text(out);
}

std::string output_messages(const events::LlmEnd& end) {
  Value message = conventions_message("assistant", end.text, end.tool_calls, "");
  message["finish_reason"] = end.finish_reason;
  return to_json_text(Value::array({std::move(message)}));
}

}  // namespace

SpanBuilder::SpanBuilder(Ended ended, SpanContent content)
    : ended_(std::move(ended)), content_(content), random_(std::random_device{}()) {}

SpanBuilder::SpanBuilder(OtlpExporter& exporter)
    : SpanBuilder([&exporter](Span&& span) { exporter.add(std::move(span)); }, exporter.content()) {}

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
                       const events::ChainStart* chain_start) {
  if (const Span* parent = parent_for(run_id, path)) {
    span.trace_id = parent->trace_id;
    span.parent_id = parent->span_id;
  } else {  // the run's root: the trace its chain_start names (and the caller's span), or one of its own
    auto known = trace_of_run_.find(run_id);
    if (chain_start) span.trace_id = chain_start->trace_id;
    if (span.trace_id.empty()) {
      if (known != trace_of_run_.end()) span.trace_id = known->second;
      else new_id(span.trace_id);
    }
    if (known != trace_of_run_.end()) known->second = span.trace_id;
    else trace_of_run_.emplace(std::string(run_id), span.trace_id);
    if (chain_start) span.parent_id = chain_start->parent_span_id;
    span.remote_parent = !span.parent_id.empty() && !(chain_start && chain_start->parent_local);
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
  auto open_tool_call = [&](const std::string& tool, const std::string& call_id, const std::string& span_id,
                            const Value* input) {
    Span span = make("execute_tool " + tool, SpanKind::Internal, "execute_tool");
    span.span_id = span_id;  // a traced run's, named as the parent of what the tool asks elsewhere
    span.attributes.set("gen_ai.tool.name", tool);
    span.attributes.set("gen_ai.tool.call.id", call_id);
    if (input && content_.enabled)
      span.attributes.set("gen_ai.tool.call.arguments", bounded(as_text(*input), content_.limit));
    open(run_id, path, "tool:" + call_id, std::move(span));
  };
  std::lock_guard lock(mutex_);
  // A run whose caller asked for no recording (an unsampled traceparent) makes no spans, nor do its parts.
  if (auto unsampled = unsampled_.find(run_id); unsampled != unsampled_.end()) {
    if (event.type() == EventType::ChainEnd && path.empty()) unsampled_.erase(unsampled);
    return;
  }
  switch (event.type()) {
    case EventType::ChainStart: {
      const auto& d = *event.as<events::ChainStart>();
      if (path.empty() && d.sampled == false) {
        unsampled_.emplace(run_id);
        return;
      }
      Stack* here = open_at(run_id, path);
      bool inside_step = here && !here->empty();
      // A run, or a workflow run by a step or as a tool; an agent step's chain is the agent alone.
      bool agent = d.chain == ChainKind::Agent;
      if (!inside_step || !agent) {
        Span run = make("invoke_workflow " + d.name, SpanKind::Internal, "invoke_workflow");
        run.attributes.set("gen_ai.workflow.name", d.name);
        run.attributes.set("engine.run_id", std::string(run_id));
        open(run_id, path, "run", std::move(run), &d);
      }
      if (agent) {
        Span span = make("invoke_agent " + d.name, SpanKind::Internal, "invoke_agent");
        span.attributes.set("gen_ai.agent.name", d.name);
        open(run_id, path, "agent", std::move(span));
      }
      break;
    }
    case EventType::ChainEnd: {
      const auto& d = *event.as<events::ChainEnd>();
      auto finish = [&](Span& span) {
        if (d.error) fail_with(span, *d.error);
        span.attributes.set("engine.stopped_reason", std::string(name_of(d.stopped_reason)));
        add_usage(span, d.usage);
      };
      close(run_id, path, "agent", event.at, finish);
      close(run_id, path, "run", event.at, finish);
      if (auto trace = trace_of_run_.find(run_id); path.empty() && !open_at(run_id, path) && trace != trace_of_run_.end())
        trace_of_run_.erase(trace);
      break;
    }
    case EventType::StepStart: {
      const auto& d = *event.as<events::StepStart>();
      Span span = make(d.step, SpanKind::Internal, nullptr);
      span.attributes.set("engine.step.kind", std::string(name_of(d.kind)));
      open(run_id, path, "step", std::move(span));
      break;
    }
    case EventType::StepEnd: {
      const auto& d = *event.as<events::StepEnd>();
      close(run_id, path, "step", event.at, [&](Span& span) {
        span.attributes.set("engine.step.status", std::string(name_of(d.status)));
        if (d.error) fail_with(span, *d.error);
      });
      break;
    }
    case EventType::LlmStart: {
      const auto& d = *event.as<events::LlmStart>();
      size_t colon = d.llm.find(':');
      std::string provider = d.llm.substr(0, colon), model = colon == std::string::npos ? "" : d.llm.substr(colon + 1);
      Span span = make(model.empty() ? "chat" : "chat " + model, SpanKind::Client, "chat");
      span.span_id = d.span_id;  // a traced run's, sent with the request as its traceparent
      span.attributes.set("gen_ai.provider.name", provider);
      if (!model.empty()) span.attributes.set("gen_ai.request.model", model);
      if (d.stream) span.attributes.set("gen_ai.request.stream", true);
      if (d.temperature) span.attributes.set_json("gen_ai.request.temperature", Value(*d.temperature));
      if (d.max_tokens) span.attributes.set_json("gen_ai.request.max_tokens", Value(*d.max_tokens));
      if (!d.stop.empty()) span.attributes.set_json("gen_ai.request.stop_sequences", Value(d.stop));
      if (content_.enabled) span.attributes.set("gen_ai.input.messages", bounded(input_messages(d), content_.limit));
      open(run_id, path, "llm:" + std::to_string(d.call), std::move(span));
      break;
    }
    case EventType::LlmEnd: {
      const auto& d = *event.as<events::LlmEnd>();
      close(run_id, path, "llm:" + std::to_string(d.call), event.at, [&](Span& span) {
        if (d.error) return fail_with(span, *d.error);
        if (!d.finish_reason.empty())
          span.attributes.set("gen_ai.response.finish_reasons", std::vector<std::string>{d.finish_reason});
        add_usage(span, d.usage);
        if (!d.model.empty()) span.attributes.set("gen_ai.response.model", d.model);
        if (!d.id.empty()) span.attributes.set("gen_ai.response.id", d.id);
        if (content_.enabled) span.attributes.set("gen_ai.output.messages", bounded(output_messages(d), content_.limit));
      });
      break;
    }
    case EventType::ToolStart: {
      const auto& d = *event.as<events::ToolStart>();
      open_tool_call(d.tool, d.call_id, d.span_id, &d.input);
      break;
    }
    case EventType::ToolEnd: {
      const auto& d = *event.as<events::ToolEnd>();
      std::string key = "tool:" + d.call_id;
      bool started = false;
      if (Stack* here = open_at(run_id, path))
        for (const Open& o : *here) started = started || o.key == key;
      if (!started) open_tool_call(d.tool, d.call_id, "", nullptr);  // refused before it ran: a span of no length
      close(run_id, path, key, event.at, [&](Span& span) {
        if (content_.enabled) span.attributes.set("gen_ai.tool.call.result", bounded(as_text(d.observation), content_.limit));
        if (d.failed()) {
          span.failed = true;
          span.status_message = d.error;
          span.attributes.set("error.type", d.error);
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
