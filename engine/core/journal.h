#pragma once
// A run written down as it goes (docs/durability.md): each step's start and end, each model call's answer, each
// tool call's intent before its effect and its result after. A run resumed from its journal is the same run made
// again from its inputs, where every call the journal holds returns its recorded result without being made: the
// engine's runs are deterministic but for what those calls return (templates read no clock and no randomness; a
// Lua tool's clock and seeds are inside its recorded result). So the journal holds no snapshot of a run's state,
// only what came from outside, at points named the same way on every pass: the step path events carry ("classify",
// "many[3]", "research/agent") and a key within it (a model call's index, a tool call's id).
//
// Core holds only the interface: store/ keeps journals (store/run_journal.h), agent/ and workflow/ write to one
// through the JournalScope their run options carry.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/value.h"

namespace engine {

// When what a run journals reaches the disk (LangGraph's durability modes).
enum class Durability {
  Sync,   // each write before the run goes on: a tool's intent is on disk before its effect starts
  Async,  // grouped and written off the run's thread; a tool's intent still waits (an effect is never ahead of it)
  Exit,   // at the end only: a crash loses the run, as an unjournaled one
};
std::string_view name_of(Durability durability);
std::optional<Durability> durability_named(std::string_view name);
const std::vector<std::string>& durability_names();

// What an entry records.
enum class JournalKind {
  StepStart,   // value: the step's rendered inputs (null for a step that renders none)
  StepEnd,     // value: {status, output} (or {status: skipped, reason})
  Llm,         // value: the response (llm::response_to_json); asked: the request
  ToolIntent,  // value: {tool, effect}; asked: the arguments. Before the effect
  ToolResult,  // value: {output, error_kind?}. After it
  RunEnd,      // value: the run's answer as `engine run --json` and /invoke give it (app/result_documents.h)
  Ask,         // value: {tool, arguments}; asked: the arguments. A call that waits for a person's decision
  Decision,    // value: {approved, reason?, arguments? (edited), by, at_ms}: the decision, as a person gave it
};
std::string_view name_of(JournalKind kind);
std::optional<JournalKind> journal_kind_named(std::string_view name);

// What a call can change in the world (docs/durability.md): how a resumed run treats a call that started and never
// recorded its end, when it cannot know whether the call happened.
enum class Effect {
  Read,        // changes nothing: made again
  Idempotent,  // made again with the same idempotency key, which the other side uses to act once
  Once,        // never made again by itself: the run stops *in doubt* until a person says what happened
};
std::string_view name_of(Effect effect);
std::optional<Effect> effect_named(std::string_view name);
const std::vector<std::string>& effect_names();

struct JournalEntry {
  std::string path;    // the step path ("" for the run's own)
  JournalKind kind = JournalKind::StepStart;
  std::string key;     // which one at that path: "llm.0", a tool call's id
  // What was asked there (a model request's, a tool call's arguments' JSON text; "" when nothing was): the journal
  // keeps its digest, which a resumed run's same point must ask again.
  std::string asked;
  Value value;
};

class Journal {
 public:
  virtual ~Journal() = default;
  // Keeps `entry`, as the run's durability says; the ToolIntent of a call whose effect is not `read` is on disk
  // (Sync, Async) before this returns, and in Sync every entry is. An
  // entry the resumed journal already holds at the same point is not written again. Throws Error "store.failed"
  // when a write the run must wait for could not be made: an effect must not start without its intent.
  virtual void write(JournalEntry entry) = 0;
  // What the run being resumed recorded of `kind` at `path`/`key`: null when it recorded nothing there (the run
  // goes on live). `asked` is what this pass asks there: a recorded entry that was asked something else means the
  // workflow now takes another path, and throws Error "journal.diverged" naming the point (or, when the resume
  // allows changes, the journal stops replaying from there: null, now and for every later point).
  virtual const JournalEntry* recorded(std::string_view path, JournalKind kind, std::string_view key,
                                       std::string_view asked) = 0;
  virtual const std::string& run_id() const = 0;
};

// A point's key in a journal's index: its path, kind and key, apart.
std::string journal_point(std::string_view path, JournalKind kind, std::string_view key);

// How a call is named to a person (engine runs resolve RUN CALL): its step path and its key, "send/call_1"; the key
// alone at the run's own level.
std::string call_name(std::string_view path, std::string_view key);

// Where in a run's journal a part of the run writes: the journal (null: none) and the step path it is under.
struct JournalScope {
  Journal* journal = nullptr;
  std::string path;

  explicit operator bool() const { return journal != nullptr; }
  // The scope of a part placed under `name` (a step, an item, a tool's sub-workflow): "a" then "a/b".
  JournalScope under(std::string_view name) const;
};

}  // namespace engine
