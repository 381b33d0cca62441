#include "engine/tools/journaled_call.h"

#include <cctype>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::tools {
namespace {

// The run's id and the call's name, with every byte a header value must not hold (a model chose the call's id)
// made `_`, at most 200 bytes.
std::string idempotency_key(const std::string& run, const std::string& call) {
  std::string key = run + ":" + call;
  for (char& c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_.:/#[]", c))) c = '_';
  if (key.size() > 200) key.resize(200);
  return key;
}

}  // namespace

Value result_to_json(const ToolResult& r) {
  Value v{{"output", r.output}};
  if (r.error_kind) v["error_kind"] = name_of(*r.error_kind);
  return v;
}

ToolResult result_from_json(const Value& recorded) {
  ToolResult r;
  if (!recorded.is_object() || !recorded.contains("output"))
    throw Error(ErrorKind::JournalCorrupt, "a recorded tool result is not {output, error_kind}");
  r.output = recorded["output"];
  if (auto k = recorded.find("error_kind"); k != recorded.end()) {
    auto kind = k->is_string() ? error_kind_named(k->get_ref<const std::string&>()) : std::nullopt;
    if (!kind) throw Error(ErrorKind::JournalCorrupt, "a recorded tool result names no error kind");
    r.error_kind = *kind;
  }
  return r;
}

ToolResult call_journaled(ToolInstance& instance, const Tool& tool, Effect effect, const Value& input,
                          const std::string& span_id, const JournalScope& journal, const std::string& call_id,
                          const Cancel* cancel) {
  if (!journal) return instance.invoke(input, span_id);
  Journal& j = *journal.journal;
  CallContext call{span_id, journal.under(call_id), idempotency_key(j.run_id(), call_name(journal.path, call_id))};
  std::string asked = to_json_text(input);
  if (const JournalEntry* result = j.recorded(journal.path, JournalKind::ToolResult, call_id, asked))
    return result_from_json(result->value);
  if (j.recorded(journal.path, JournalKind::ToolIntent, call_id, asked)) {
    // Started by a run that died inside it: whether it happened is not known.
    if (effect == Effect::Once) {
      // A model chose the call's id: shown printable, as any text from outside.
      std::string call = printable_excerpt(call_name(journal.path, call_id), 200);
      throw Error(ErrorKind::JournalInDoubt,
                  "tool '" + tool.name() + "' (call " + call + ") was started and never ended, and its effect is once: "
                  "whether it happened cannot be known. Say which with `engine runs resolve " + j.run_id() + " " + call +
                  " --happened RESULT_JSON` or `--not-happened`, then resume the run");
    }
  } else {
    j.write({journal.path, JournalKind::ToolIntent, call_id, asked,
             Value{{"tool", tool.name()}, {"effect", name_of(effect)}}});
  }
  ToolResult r = instance.invoke(input, call);
  if (cancel && cancel->stopped()) return r;
  j.write({journal.path, JournalKind::ToolResult, call_id, std::move(asked), result_to_json(r)});
  return r;
}

ToolResult call_approved(ToolInstance& instance, const Tool& tool, Effect effect, CallApproval approval,
                         const Value& input, const std::string& span_id, const JournalScope& journal,
                         const std::string& call_id, const Cancel* cancel) {
  if (approval.approval == Approval::Deny)
    return ToolResult::failure(ErrorKind::ToolDenied, "tool '" + tool.name() + "' may not be called here (its approve: "
                                                      "denies it); answer without it");
  if (approval.approval == Approval::Allow || approval.approve_asked)
    return call_journaled(instance, tool, effect, input, span_id, journal, call_id, cancel);
  std::string asked = to_json_text(input);
  const JournalEntry* decision =
      journal ? journal.journal->recorded(journal.path, JournalKind::Decision, call_id, asked) : nullptr;
  std::optional<Value> given;  // a decision made in place
  if (!decision && approval.decide && *approval.decide) {
    if (std::optional<ToolDecision> d = (*approval.decide)(tool.name(), input)) {
      given = Value{{"approved", d->approved}, {"by", d->by}};
      if (!d->reason.empty()) (*given)["reason"] = d->reason;
      if (journal) journal.journal->write({journal.path, JournalKind::Decision, call_id, asked, *given});
    }
  }
  if (!decision && !given && !journal)
    throw Error(ErrorKind::ToolNeedsApproval, "tool '" + tool.name() + "' asks for a person's approval, and this run "
                                              "cannot wait for one: give --yes to approve what asks, or keep the run "
                                              "store on so that the run waits");
  if (!decision && !given) {
    Journal& j = *journal.journal;
    j.write({journal.path, JournalKind::Ask, call_id, asked, Value{{"tool", tool.name()}, {"arguments", input}}});
    std::string call = printable_excerpt(call_name(journal.path, call_id), 200);
    throw Error(ErrorKind::RunWaiting, "run " + j.run_id() + " waits for a person to approve tool '" + tool.name() +
                                           "' (call " + call + "): `engine runs approve " + j.run_id() + " " + call +
                                           "` or `engine runs reject " + j.run_id() + " " + call +
                                           " --reason TEXT`, then `engine runs resume " + j.run_id() + "`");
  }
  const Value& d = given ? *given : decision->value;
  if (!d.value("approved", false)) {
    std::string reason = d.value("reason", "");
    return ToolResult::failure(ErrorKind::ToolRejected, "a person rejected this call of tool '" + tool.name() + "'" +
                                                            (reason.empty() ? std::string() : ": " + reason));
  }
  auto edited = d.find("arguments");
  return call_journaled(instance, tool, effect, edited != d.end() ? *edited : input, span_id, journal, call_id, cancel);
}

}  // namespace engine::tools
