#include "engine/app/run_history.h"

#include <charconv>
#include <cstdio>
#include <ctime>
#include <algorithm>
#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/core/event_json.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/trace/span_builder.h"

namespace engine::app {
namespace {

// "30m", "2h", "7d" before `now`, or a day "2026-11-27" (from its midnight, UTC), in Unix milliseconds.
int64_t since_ms(const std::string& since, std::chrono::system_clock::time_point now) {
  auto refuse = [&] {
    return Error(ErrorKind::Usage, "--since '" + printable_excerpt(since, 40) +
                              "' is neither an age (30m, 2h, 7d) nor a day (2026-11-27)");
  };
  int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  if (since.size() >= 2 && std::string("smhd").find(since.back()) != std::string::npos) {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(since.data(), since.data() + since.size() - 1, n);
    if (ec != std::errc() || end != since.data() + since.size() - 1 || n < 0 || n > 100000) throw refuse();
    int64_t unit = since.back() == 's' ? 1000 : since.back() == 'm' ? 60000 : since.back() == 'h' ? 3600000 : 86400000;
    return now_ms - n * unit;
  }
  std::tm day{};
  const char* end = strptime(since.c_str(), "%Y-%m-%d", &day);
  if (!end || *end != '\0') throw refuse();
  return static_cast<int64_t>(timegm(&day)) * 1000;
}

}  // namespace

std::vector<store::RunRecord> list_runs(store::RunStore& store, const RunQuery& q,
                                        std::chrono::system_clock::time_point now) {
  if (!q.status.empty() && q.status != "ok" && q.status != "failed")
    throw Error(ErrorKind::Usage, "--status is ok or failed, not '" + printable_excerpt(q.status, 40) + "'");
  store::RunFilter filter;
  filter.workflow = q.workflow;
  filter.status = q.status;
  filter.limit = q.limit;
  if (!q.since.empty()) filter.since_ms = since_ms(q.since, now);
  return store.list(filter);
}

store::RunRecord find_run(store::RunStore& store, const std::string& id) {
  std::optional<store::RunRecord> run = store.find(id);
  if (!run)
    throw Error(ErrorKind::StoreNoSuchRun, "no run in " + store.file().string() + " has the id '" +
                                         printable_excerpt(id, 40) + "' (engine runs list shows them)");
  return std::move(*run);
}

void replay_run(const store::RunRecord& run, EventSink& sink, std::chrono::steady_clock::time_point start) {
  for (const std::string& line : run.events) {
    Value record = parse_json(line);
    if (!record.is_object()) continue;
    std::optional<EventType> type = event_type_named(record.value("type", ""));
    if (!type) continue;
    std::string run_id = record.value("run_id", run.id), path = record.value("path", "");
    double t_ms = record.value("t_ms", 0.0);
    Event event = event_from_fields(*type, record);
    event.at = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double, std::milli>(t_ms));
    sink.receive(event, EventPlace{run_id, path});
  }
}

Value journal_steps(store::RunStore& store, const std::string& run_id) {
  Value steps = Value::array();
  try {
    std::optional<store::JournalRun> header = store.find_journal(run_id);
    if (!header || header->id != run_id) return steps;
    std::map<std::string, Value> inputs;  // by path, from each step's start
    for (const store::StoredEntry& stored : store.journal_entries(run_id)) {
      const JournalEntry& e = stored.entry;
      if (e.kind == JournalKind::StepStart && !e.value.is_null()) inputs[e.path] = e.value;
      if (e.kind != JournalKind::StepEnd || !e.value.is_object()) continue;
      Value step{{"step", e.path}};
      for (const auto& [key, value] : e.value.items()) step[key] = value;
      if (auto it = inputs.find(e.path); it != inputs.end()) step["inputs"] = it->second;
      steps.push_back(std::move(step));
    }
  } catch (const Error&) {  // a journal that cannot be read back: the run is shown from its events alone
    return Value::array();
  }
  return steps;
}

Value journal_run_document(const store::JournalRun& run, const Value& steps) {
  return Value{{"id", run.id},
               {"workflow", run.workflow},
               {"source", run.source},
               {"command", run.origin.empty() ? "run" : run.origin},
               {"status", store::name_of(run.state)},
               {"started_ms", run.started_ms},
               {"inputs", run.inputs},
               {"steps", steps}};
}

Value run_document(const store::RunRecord& r, bool with_events, const Value& steps) {
  Value doc{{"id", r.id},
            {"workflow", r.workflow},
            {"source", r.source},
            {"command", r.command},
            {"status", r.status},
            {"stopped_reason", r.stopped_reason},
            {"started_ms", r.started_ms},
            {"elapsed_ms", r.elapsed_ms},
            {"inputs", r.inputs},
            {"output", r.output},
            {"usage", {{"prompt_tokens", r.prompt_tokens}, {"completion_tokens", r.completion_tokens}}}};
  if (r.cost_usd) doc["usage"]["cost_usd"] = *r.cost_usd;
  if (!r.error.is_null()) doc["error"] = r.error;
  if (!r.trace_id.empty()) doc["trace_id"] = r.trace_id;
  if (!steps.empty()) doc["steps"] = steps;
  if (with_events) {
    Value events = Value::array();
    for (const std::string& line : r.events) {
      Value e = parse_json(line);
      if (!e.is_discarded()) events.push_back(std::move(e));
    }
    doc["events"] = std::move(events);
  }
  return doc;
}

namespace {

std::string one_line(const Value& v, size_t max = 60) {
  std::string text = v.is_string() ? v.get<std::string>() : v.is_null() ? "" : to_json_text(v);
  return printable_excerpt(text, max);
}

}  // namespace

Value run_outline(const store::RunRecord& r, const Value& steps) {
  Value rows = Value::array();
  auto row = [&](std::string what, std::string value) {
    rows.push_back(Value{{"what", std::move(what)}, {"value", std::move(value)}});
  };
  char number[64];
  row("workflow", r.workflow);
  row("status", r.status + " (" + r.stopped_reason + ")");
  std::snprintf(number, sizeof number, "%.1f ms", r.elapsed_ms);
  row("time", number);
  row("tokens", std::to_string(r.prompt_tokens) + " in, " + std::to_string(r.completion_tokens) + " out");
  if (r.cost_usd) {
    std::snprintf(number, sizeof number, "$%.6f", *r.cost_usd);
    row("cost", number);
  }
  row("inputs", one_line(r.inputs));
  row("output", one_line(r.output));
  if (!r.error.is_null()) row("error", one_line(r.error.value("kind", "")) + ": " + one_line(r.error.value("message", "")));
  std::map<std::string, int> seen;  // calls of each tool, model calls, by path
  for (const std::string& line : r.events) {
    Value e = parse_json(line);
    if (!e.is_object()) continue;
    std::string type = e.value("type", ""), path = e.value("path", "");
    std::string where = path.empty() ? "" : " (" + path + ")";
    if (type == "step_end") {
      if (steps.empty()) row("step " + e.value("step", path), e.value("status", "") + ": " + one_line(e.value("output", Value())));
    } else if (type == "tool_end") {
      std::string tool = e.value("tool", "");
      int n = ++seen["tool " + tool + where];
      row("tool " + tool + " #" + std::to_string(n) + where,
          one_line(e.value("observation", Value()), 50) + (e.contains("error") ? " [" + one_line(e["error"]) + "]" : ""));
    } else if (type == "llm_end") {
      int n = ++seen["model" + where];
      row("model call #" + std::to_string(n) + where,
          e.contains("error") ? "failed: " + one_line(e["error"].value("kind", ""))
                              : one_line(e.value("text", Value()), 60));
    }
  }
  // The journal's ends, with their outputs (a skipped step with why), after the calls.
  for (const Value& s : steps) {
    std::string status = s.value("status", "");
    row("step " + s.value("step", ""), status + ": " + (s.contains("reason") ? one_line(s["reason"]) : one_line(s.value("output", Value()))));
  }
  return rows;
}

Value diff_runs(const store::RunRecord& a, const store::RunRecord& b, const Value& steps_a, const Value& steps_b) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::string, std::string>> rows;
  auto take = [&](const Value& outline, bool first) {
    for (const Value& row : outline) {
      std::string what = row["what"];
      if (!rows.count(what)) order.push_back(what);
      (first ? rows[what].first : rows[what].second) = row["value"].get<std::string>();
    }
  };
  take(run_outline(a, steps_a), true);
  take(run_outline(b, steps_b), false);
  Value lines = Value::array();
  for (const auto& what : order) {
    const auto& [x, y] = rows[what];
    lines.push_back(Value{{"what", what}, {"a", x}, {"b", y}, {"same", x == y}});
  }
  return Value{{"a", a.id}, {"b", b.id}, {"lines", std::move(lines)}};
}

Value run_spans(const store::RunRecord& run, size_t content_limit) {
  std::vector<trace::Span> spans;
  trace::SpanBuilder builder([&](trace::Span&& span) { spans.push_back(std::move(span)); },
                             trace::SpanContent{true, content_limit});
  auto start = std::chrono::steady_clock::time_point{};
  replay_run(run, builder, start);
  builder.close_all(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double, std::milli>(run.elapsed_ms)));
  auto ms = [&](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(t - start).count();
  };
  // Children of each span, in order of start; roots are the spans whose parent is not among them.
  std::map<std::string, std::vector<const trace::Span*>> children;
  std::set<std::string> ids;
  for (const auto& s : spans) ids.insert(s.span_id.str());
  for (const auto& s : spans)
    children[ids.count(s.parent_id.str()) ? s.parent_id.str() : ""].push_back(&s);
  for (auto& [parent, list] : children)
    std::stable_sort(list.begin(), list.end(), [](const trace::Span* x, const trace::Span* y) { return x->start < y->start; });
  Value out = Value::array();
  std::vector<std::pair<const trace::Span*, int>> pending;  // depth-first, parents first
  auto push_children = [&](const std::string& parent, int depth) {
    auto it = children.find(parent);
    if (it == children.end()) return;
    for (auto s = it->second.rbegin(); s != it->second.rend(); ++s) pending.emplace_back(*s, depth);
  };
  push_children("", 0);
  while (!pending.empty()) {
    auto [span, depth] = pending.back();
    pending.pop_back();
    Value attributes = Value::object();
    for (const auto& item : span->attributes) attributes[item.name] = trace::attribute_json(item.value);
    out.push_back(Value{{"id", span->span_id.str()},
                        {"parent", span->parent_id.str()},
                        {"depth", depth},
                        {"name", span->name},
                        {"kind", span->kind == trace::SpanKind::Client ? "client" : "internal"},
                        {"start_ms", ms(span->start)},
                        {"end_ms", ms(span->end)},
                        {"failed", span->failed},
                        {"status", span->status_message},
                        {"attributes", std::move(attributes)}});
    push_children(span->span_id.str(), depth + 1);
  }
  return out;
}

}  // namespace engine::app
