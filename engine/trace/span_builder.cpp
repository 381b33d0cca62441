#include "engine/trace/span_builder.h"

#include "engine/core/json_text.h"
#include "engine/core/trace_context.h"

namespace engine::trace {
namespace {

std::string text_of(const Value& d, const char* key) {
  auto it = d.find(key);
  return it != d.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Where a path sits: `greet[3]` under `greet`, `billing/researcher` under `billing`, a step under the run ("").
std::string enclosing_path(const std::string& path) {
  if (!path.empty() && path.back() == ']') {
    size_t open = path.rfind('[');
    if (open != std::string::npos && open > 0) return path.substr(0, open);
  }
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

void fail_with(Span& span, const Value& error) {
  span.failed = true;
  span.status_message = text_of(error, "message");
  if (std::string kind = text_of(error, "kind"); !kind.empty()) span.attributes["error.type"] = kind;
}

void add_usage(Span& span, const Value& usage) {
  if (!usage.is_object()) return;
  if (auto in = usage.find("prompt_tokens"); in != usage.end() && in->is_number())
    span.attributes["gen_ai.usage.input_tokens"] = *in;
  if (auto out = usage.find("completion_tokens"); out != usage.end() && out->is_number())
    span.attributes["gen_ai.usage.output_tokens"] = *out;
}

// Text for a content attribute: at most `limit` bytes, cut where a UTF-8 sequence starts.
std::string bounded(std::string text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
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

SpanBuilder::SpanBuilder(Ended ended, SpanContent content) : ended_(std::move(ended)), content_(content) {}

const Span* SpanBuilder::parent_for(const std::string& run_id, const std::string& path) const {
  for (std::string at = path;; at = enclosing_path(at)) {
    auto it = open_.find({run_id, at});
    if (it != open_.end() && !it->second.empty()) return &it->second.back().span;
    if (at.empty()) return nullptr;
  }
}

void SpanBuilder::open(const std::string& run_id, const std::string& path, std::string key, Span span,
                       const Value* chain_start) {
  if (const Span* parent = parent_for(run_id, path)) {
    span.trace_id = parent->trace_id;
    span.parent_id = parent->span_id;
  } else {  // the run's root: the trace its chain_start names (and the caller's span), or one of its own
    std::string named = chain_start ? text_of(*chain_start, "trace_id") : std::string();
    auto known = trace_of_run_.find(run_id);
    span.trace_id = !named.empty() ? named : known != trace_of_run_.end() ? known->second : new_trace_id();
    trace_of_run_[run_id] = span.trace_id;
    if (chain_start) span.parent_id = text_of(*chain_start, "parent_span_id");
    span.remote_parent = !span.parent_id.empty();
  }
  if (span.span_id.empty()) span.span_id = new_span_id();
  open_[{run_id, path}].push_back(Open{std::move(key), std::move(span)});
}

void SpanBuilder::close(const std::string& run_id, const std::string& path, const std::string& key,
                        std::chrono::steady_clock::time_point at, const std::function<void(Span&)>& finish) {
  auto it = open_.find({run_id, path});
  if (it == open_.end()) return;
  Stack& stack = it->second;
  size_t i = stack.size();
  while (i > 0 && stack[i - 1].key != key) --i;
  if (i == 0) return;
  // Anything opened inside it and never ended (a start without its end) ends with it.
  while (stack.size() > i) {
    Span inner = std::move(stack.back().span);
    stack.pop_back();
    inner.end = at;
    inner.failed = true;
    inner.status_message = "it did not end before what holds it";
    ended_(std::move(inner));
  }
  Span span = std::move(stack.back().span);
  stack.pop_back();
  if (stack.empty()) open_.erase(it);
  span.end = at;
  finish(span);
  ended_(std::move(span));
}

void SpanBuilder::receive(const Event& event, const EventPlace& place) {
  const Value& d = event.data;
  std::string run_id(place.run_id), path(place.step);
  auto make = [&](std::string name, SpanKind kind, const char* operation) {
    Span span;
    span.name = std::move(name);
    span.kind = kind;
    span.start = event.at;
    if (operation) span.attributes["gen_ai.operation.name"] = operation;
    return span;
  };
  // A tool call's span, from its tool_start (or from the tool_end of a call refused before it ran).
  auto open_tool_call = [&] {
    std::string tool = text_of(d, "tool");
    Span span = make("execute_tool " + tool, SpanKind::Internal, "execute_tool");
    span.attributes["gen_ai.tool.name"] = tool;
    span.attributes["gen_ai.tool.call.id"] = text_of(d, "call_id");
    if (auto input = d.find("input"); content_.enabled && input != d.end())
      span.attributes["gen_ai.tool.call.arguments"] = bounded(as_text(*input), content_.limit);
    open(run_id, path, "tool:" + text_of(d, "call_id"), std::move(span));
  };
  std::lock_guard lock(mutex_);
  // A run whose caller asked for no recording (an unsampled traceparent) makes no spans, nor do its parts.
  if (!unsampled_.empty() && unsampled_.count(run_id)) {
    if (event.type == EventType::ChainEnd && path.empty()) unsampled_.erase(run_id);
    return;
  }
  if (event.type == EventType::ChainStart && path.empty())
    if (auto sampled = d.find("sampled"); sampled != d.end() && *sampled == false) {
      unsampled_.insert(run_id);
      return;
    }
  switch (event.type) {
    case EventType::ChainStart: {
      std::string name = text_of(d, "name");
      bool agent = text_of(d, "chain") == "AgentExecutor";
      auto here = open_.find({run_id, path});
      bool inside_step = here != open_.end() && !here->second.empty();
      // A run, or a workflow run by a step or as a tool; an agent step's chain is the agent alone.
      if (!inside_step || !agent) {
        Span run = make("invoke_workflow " + name, SpanKind::Internal, "invoke_workflow");
        run.attributes["gen_ai.workflow.name"] = name;
        run.attributes["engine.run_id"] = run_id;
        open(run_id, path, "run", std::move(run), &d);
      }
      if (agent) {
        Span span = make("invoke_agent " + name, SpanKind::Internal, "invoke_agent");
        span.attributes["gen_ai.agent.name"] = name;
        open(run_id, path, "agent", std::move(span));
      }
      break;
    }
    case EventType::ChainEnd: {
      auto finish = [&](Span& span) {
        if (auto error = d.find("error"); error != d.end()) fail_with(span, *error);
        if (std::string reason = text_of(d, "stopped_reason"); !reason.empty())
          span.attributes["engine.stopped_reason"] = reason;
        if (auto usage = d.find("usage"); usage != d.end()) add_usage(span, *usage);
      };
      close(run_id, path, "agent", event.at, finish);
      close(run_id, path, "run", event.at, finish);
      if (path.empty() && open_.find({run_id, path}) == open_.end()) trace_of_run_.erase(run_id);
      break;
    }
    case EventType::StepStart: {
      Span span = make(text_of(d, "step"), SpanKind::Internal, nullptr);
      span.attributes["engine.step.kind"] = text_of(d, "kind");
      open(run_id, path, "step", std::move(span));
      break;
    }
    case EventType::StepEnd:
      close(run_id, path, "step", event.at, [&](Span& span) {
        span.attributes["engine.step.status"] = text_of(d, "status");
        if (auto error = d.find("error"); error != d.end()) fail_with(span, *error);
      });
      break;
    case EventType::LlmStart: {
      std::string llm = text_of(d, "llm");
      size_t colon = llm.find(':');
      std::string provider = llm.substr(0, colon), model = colon == std::string::npos ? "" : llm.substr(colon + 1);
      Span span = make(model.empty() ? "chat" : "chat " + model, SpanKind::Client, "chat");
      span.span_id = text_of(d, "span_id");  // a traced run's, sent with the request as its traceparent
      span.attributes["gen_ai.provider.name"] = provider;
      if (!model.empty()) span.attributes["gen_ai.request.model"] = model;
      if (d.value("stream", false)) span.attributes["gen_ai.request.stream"] = true;
      if (auto t = d.find("temperature"); t != d.end()) span.attributes["gen_ai.request.temperature"] = *t;
      if (auto m = d.find("max_tokens"); m != d.end()) span.attributes["gen_ai.request.max_tokens"] = *m;
      if (auto stop = d.find("stop"); stop != d.end()) span.attributes["gen_ai.request.stop_sequences"] = *stop;
      if (content_.enabled) span.attributes["gen_ai.input.messages"] = bounded(input_messages(d), content_.limit);
      open(run_id, path, "llm:" + std::to_string(d.value("call", 0)), std::move(span));
      break;
    }
    case EventType::LlmEnd:
      close(run_id, path, "llm:" + std::to_string(d.value("call", 0)), event.at, [&](Span& span) {
        if (auto error = d.find("error"); error != d.end()) return fail_with(span, *error);
        if (std::string reason = text_of(d, "finish_reason"); !reason.empty())
          span.attributes["gen_ai.response.finish_reasons"] = Value::array({reason});
        if (auto usage = d.find("usage"); usage != d.end()) add_usage(span, *usage);
        if (std::string model = text_of(d, "model"); !model.empty()) span.attributes["gen_ai.response.model"] = model;
        if (std::string id = text_of(d, "id"); !id.empty()) span.attributes["gen_ai.response.id"] = id;
        if (content_.enabled) span.attributes["gen_ai.output.messages"] = bounded(output_messages(d), content_.limit);
      });
      break;
    case EventType::ToolStart: open_tool_call(); break;
    case EventType::ToolEnd: {
      std::string key = "tool:" + text_of(d, "call_id");
      auto here = open_.find({run_id, path});
      bool started = false;
      if (here != open_.end())
        for (const Open& o : here->second) started = started || o.key == key;
      if (!started) open_tool_call();  // refused before it ran: a span of no length says so
      close(run_id, path, key, event.at, [&](Span& span) {
        if (auto result = d.find("observation"); content_.enabled && result != d.end())
          span.attributes["gen_ai.tool.call.result"] = bounded(as_text(*result), content_.limit);
        if (std::string kind = text_of(d, "error"); !kind.empty()) {
          span.failed = true;
          span.status_message = kind;
          span.attributes["error.type"] = kind;
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
