#include "engine/app/run_history.h"

#include <charconv>
#include <cstdio>
#include <ctime>
#include <map>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::app {
namespace {

// "30m", "2h", "7d" before `now`, or a day "2026-11-27" (from its midnight, UTC), in Unix milliseconds.
int64_t since_ms(const std::string& since, std::chrono::system_clock::time_point now) {
  auto refuse = [&] {
    return Error("usage", "--since '" + printable_excerpt(since, 40) +
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
    throw Error("usage", "--status is ok or failed, not '" + printable_excerpt(q.status, 40) + "'");
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
    throw Error("store.no_such_run", "no run in " + store.file().string() + " has the id '" +
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
    for (const char* key : {"t_ms", "type", "run_id", "path"}) record.erase(key);
    Event event{*type, std::move(record)};
    event.at = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double, std::milli>(t_ms));
    sink.receive(event, EventPlace{run_id, path});
  }
}

Value run_document(const store::RunRecord& r, bool with_events) {
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

Value run_outline(const store::RunRecord& r) {
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
      row("step " + e.value("step", path), e.value("status", "") + ": " + one_line(e.value("output", Value())));
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
  return rows;
}

}  // namespace engine::app
