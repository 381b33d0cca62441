#pragma once
// What `engine runs` reads from the run store: the runs that match a filter, one run found by its id, and a stored
// run's events played again into a sink (the console, a span builder), at the times they happened.
#include <chrono>
#include <string>
#include <vector>

#include "engine/app/run_recording.h"
#include "engine/core/event.h"
#include "engine/store/run_store.h"

namespace engine::app {

struct RunQuery {
  std::string workflow;
  std::string status;  // ok or failed
  std::string since;   // "30m", "2h", "7d", or a date "2026-11-27"
  size_t limit = 50;
};

// Throws Error "usage" for a status or since it cannot read.
std::vector<store::RunRecord> list_runs(store::RunStore& store, const RunQuery& query,
                                        std::chrono::system_clock::time_point now = std::chrono::system_clock::now());
// Throws Error "store.no_such_run" when no run's id is or starts with `id`, "store.ambiguous" when several do.
store::RunRecord find_run(store::RunStore& store, const std::string& id);
// The run's events into `sink`, each at its place (run id, path), its time `start` + its t_ms. Lines the store
// holds that are not events of this engine are passed over.
void replay_run(const store::RunRecord& run, EventSink& sink,
                std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now());
// The run as one JSON document: its summary, its steps from its journal when it has one (`steps`, below), and its
// events (with --json).
Value run_document(const store::RunRecord& run, bool with_events, const Value& steps = Value::array());

// What a journaled run's steps did, from its journal (docs/durability.md), in the order they ended: [{"step" (its
// path: "draft", "many[3]" for an item, "sub/post" inside a sub-workflow), "status", "output" (or "reason" for a
// skipped step), "inputs" (rendered, when the step renders any)}]. Empty for a run without a journal, or one that
// cannot be read back (show and diff still show its events).
Value journal_steps(store::RunStore& store, const std::string& run_id);

// A journaled run that has no record yet, or whose record an unfinished resume will replace, as one JSON document:
// {"id", "workflow", "source", "command" (what started it: run, serve, serve-async), "status" (its journal's state:
// running, in_doubt, ended), "started_ms", "inputs", "steps"}.
Value journal_run_document(const store::JournalRun& run, const Value& steps);

// What `engine runs diff` sets side by side: a run's summary and then what it did, in order, one line each:
// {"what": "status", "value": "ok"}, {"what": "step plan", "value": "done: ..."}, {"what": "tool calculator #1",
// "value": "12 * 7 -> 84"}, {"what": "model call #2", "value": "..."}. Values are one line, shortened.
// With a journal's `steps`, each step's line (and each for_each item's) holds its output, not only its status.
Value run_outline(const store::RunRecord& run, const Value& steps = Value::array());
// Two runs' outlines paired by what each line is ("tool calculator #2"), in the first run's order and then the
// second's: {"a": id, "b": id, "lines": [{"what", "a", "b", "same"}]} (a line only one run has is "" in the other).
Value diff_runs(const store::RunRecord& a, const store::RunRecord& b, const Value& steps_a = Value::array(),
               const Value& steps_b = Value::array());

// The run's spans as the viewer draws them, parents before their children and each level in order of start:
// [{"id", "parent", "depth", "name", "kind" (internal, client), "start_ms", "end_ms" (from the run's start), "failed",
// "status", "attributes": {...}}], with the conventions' content attributes (the prompts, replies, tool arguments
// and results, each cut at `content_limit` bytes), as the store keeps them: masked.
Value run_spans(const store::RunRecord& run, size_t content_limit = size_t{1} << 20);

}  // namespace engine::app
