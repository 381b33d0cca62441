// Tool calls a person approves (docs/people.md): a call whose `approve:` asks stops the run, which holds no process
// while it waits (exit 3); `engine runs approve` or `reject` decides, `engine runs resume` goes on; `--yes` approves
// what asks and never what is denied; a decision that cannot apply is a clear error that changes nothing.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/core/json_parse.h"
#include "engine/store/run_store.h"
#include "support/effect_service.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

// A tool-calling agent that asks `refund` (a POST to the effect service) once, then answers with what it read.
// `approve` is the tools entry's approve: value.
std::filesystem::path write_refund_workflow(const test::TempDir& dir, const std::string& service,
                                            const std::string& approve) {
  return dir.write("refund.yaml",
                   "version: 1\nname: refund\ninputs:\n  order: {}\n"
                   "llm:\n  provider: scripted\n  scripted:\n    rules:\n"
                   "      - {tool: \"(?s)(?P<said>.+)\", reply: \"done: {{ said }}\"}\n"
                   "      - user: \"(?s)Refund\"\n        reply: \"\"\n"
                   "        tool_calls: [{name: refund, arguments: '{\"method\": \"POST\", \"path\": \"refund\"}'}]\n"
                   "tools:\n  - builtin: http_request\n    name: refund\n"
                   "    allow: {http: [{url: \"" + service + "/effects/\", methods: [POST]}]}\n"
                   "    approve: " + approve + "\n"
                   "agent:\n  kind: tool_calling\n  prompt:\n    - {role: user, content: \"Refund order {{ order }}\"}\n");
}

struct ApprovalRig {
  test::EffectService service;
  test::TempDir dir;
  std::string store = " --store " + shell_quote((dir.path() / "runs.db").string());

  // A run that stops to wait: its id, read from `engine runs list --waiting --json`.
  std::string waiting_run(const std::filesystem::path& workflow) {
    auto run = run_engine("run " + shell_quote(workflow.string()) + " -q -i order=42" + store);
    REQUIRE(run.exit_code == 3);
    Value waiting = parse_json(run_engine("runs list --waiting --json" + store).out);
    REQUIRE(waiting.size() == 1);
    return waiting[0]["id"];
  }
};

}  // namespace

TEST_CASE("approvals e2e: a call that asks waits with no process, and is made once when approved", "[e2e][approvals]") {
  ApprovalRig rig;
  auto workflow = write_refund_workflow(rig.dir, rig.service.base(), "ask");
  auto run = run_engine("run " + shell_quote(workflow.string()) + " -q -i order=42" + rig.store);
  CHECK(run.exit_code == 3);
  Value waiting = parse_json(run_engine("runs list --waiting --json" + rig.store).out);
  REQUIRE(waiting.size() == 1);
  std::string id = waiting[0]["id"];
  CHECK(run.err == "engine: error[run.waiting]: run " + id + " waits for a person to approve tool 'refund' (call "
                   "call_1_1): `engine runs approve " + id + " call_1_1` or `engine runs reject " + id +
                   " call_1_1 --reason TEXT`, then `engine runs resume " + id + "`\n");
  CHECK(waiting[0]["waiting_on"] == parse_json(R"([{"call": "call_1_1", "tool": "refund",
                                                    "arguments": {"method": "POST", "path": "refund"}}])"));
  CHECK(rig.service.count("refund") == 0);  // nothing is made before a person says so

  auto approved = run_engine("runs approve " + id + " --reason 'customer called'" + rig.store);
  CHECK(approved.exit_code == 0);
  CHECK(approved.err == "call call_1_1 of tool 'refund' approved: engine runs resume " + id + " goes on\n");
  {  // the decision is kept in the journal: who, when, why
    store::RunStore journal_store(rig.dir.path() / "runs.db");
    std::vector<store::StoredEntry> entries = journal_store.journal_entries(id);
    auto decision = std::find_if(entries.begin(), entries.end(),
                                 [](const auto& e) { return e.entry.kind == JournalKind::Decision; });
    REQUIRE(decision != entries.end());
    CHECK(decision->entry.key == "call_1_1");
    CHECK(decision->entry.value["approved"] == true);
    CHECK(decision->entry.value["reason"] == "customer called");
    CHECK_FALSE(decision->entry.value["by"].get<std::string>().empty());
    CHECK(decision->entry.value["at_ms"].get<int64_t>() > 0);
  }
  auto resumed = run_engine("runs resume " + id + " -q" + rig.store);
  CHECK(resumed.exit_code == 0);
  CHECK(resumed.out == "done: {\"status\":200,\"body\":{\"key\":\"refund\",\"count\":1}}\n");
  CHECK(rig.service.count("refund") == 1);
  CHECK(parse_json(run_engine("runs list --waiting --json" + rig.store).out).empty());

  // Decided and ended: a decision now changes nothing.
  auto again = run_engine("runs approve " + id + " call_1_1" + rig.store);
  CHECK(again.exit_code == 2);
  CHECK(again.err == "engine: error[journal.not_waiting]: run " + id + " waits for no decision (it ended)\n");
}

TEST_CASE("approvals e2e: a rejected call's reason is what the model reads, and decisions that cannot apply are refused",
          "[e2e][approvals]") {
  ApprovalRig rig;
  auto workflow = write_refund_workflow(rig.dir, rig.service.base(), "ask");
  std::string id = rig.waiting_run(workflow);
  auto other = run_engine("runs reject " + id + " call_9 --reason no" + rig.store);
  CHECK(other.exit_code == 2);
  CHECK(other.err == "engine: error[journal.not_waiting]: run " + id + " waits on no call 'call_9' (it waits on: "
                     "call_1_1)\n");
  auto no_reason = run_engine("runs reject " + id + rig.store);
  CHECK(no_reason.exit_code == 2);
  CHECK(run_engine("runs reject " + id + " call_1_1 --reason 'not today'" + rig.store).exit_code == 0);
  auto twice = run_engine("runs approve " + id + " call_1_1" + rig.store);
  CHECK(twice.exit_code == 2);
  CHECK(twice.err == "engine: error[journal.not_waiting]: call call_1_1 of run " + id + " was decided already (rejected)\n");
  auto resumed = run_engine("runs resume " + id + " -q" + rig.store);
  CHECK(resumed.exit_code == 0);
  CHECK(resumed.out == "done: a person rejected this call of tool 'refund': not today\n");
  CHECK(rig.service.count("refund") == 0);
}

TEST_CASE("approvals e2e: --yes approves what asks and never what is denied, and a run that cannot wait says so",
          "[e2e][approvals]") {
  ApprovalRig rig;
  auto asks = write_refund_workflow(rig.dir, rig.service.base(), "ask");
  auto yes = run_engine("run " + shell_quote(asks.string()) + " -q --yes -i order=42" + rig.store);
  CHECK(yes.exit_code == 0);
  CHECK(rig.service.count("refund") == 1);
  auto unstored = run_engine("run " + shell_quote(asks.string()) + " -q -i order=42 --no-store");
  CHECK(unstored.exit_code == 1);
  CHECK(unstored.err.find("engine: error[tool.needs_approval]: tool 'refund' asks for a person's approval, and this "
                          "run cannot wait for one: give --yes to approve what asks, or keep the run store on so that "
                          "the run waits\n") != std::string::npos);

  auto denies = write_refund_workflow(rig.dir, rig.service.base(), "{deny: [ref*], ask: [refund]}");
  auto denied = run_engine("run " + shell_quote(denies.string()) + " -q --yes -i order=42" + rig.store);
  CHECK(denied.exit_code == 0);
  CHECK(denied.out == "done: tool 'refund' may not be called here (its approve: denies it); answer without it\n");
  CHECK(rig.service.count("refund") == 1);
}

TEST_CASE("approvals e2e: a workflow's tool step waits too, and approve: is checked when the file loads",
          "[e2e][approvals]") {
  ApprovalRig rig;
  auto workflow = rig.dir.write(
      "step.yaml", "version: 1\nname: step\ninputs:\n  order: {}\n"
                   "tools:\n  - builtin: http_request\n    name: refund\n"
                   "    allow: {http: [{url: \"" + rig.service.base() + "/effects/\", methods: [POST]}]}\n"
                   "    approve: {ask: [refund]}\n"
                   "steps:\n  pay:\n    kind: tool\n    tool: refund\n    input: '{\"method\": \"POST\", \"path\": \"refund\"}'\n"
                   "  said:\n    kind: template\n    template: \"paid {{ steps.pay.output.body.count }}\"\n");
  std::string id = rig.waiting_run(workflow);
  CHECK(parse_json(run_engine("runs list --waiting --json" + rig.store).out)[0]["waiting_on"][0]["call"] == "pay/call_1");
  CHECK(run_engine("runs approve " + id + " pay/call_1" + rig.store).exit_code == 0);
  auto resumed = run_engine("runs resume " + id + " -q" + rig.store);
  CHECK(resumed.exit_code == 0);
  CHECK(resumed.out == "paid 1\n");

  auto bad = rig.dir.write("bad.yaml", "version: 1\nname: bad\nllm: {provider: scripted, scripted: {replies: [x]}}\n"
                                       "tools:\n  - builtin: echo\n    approve: maybe\nagent: {kind: tool_calling, prompt: [{role: user, content: x}]}\n");
  auto refused = run_engine("validate " + shell_quote(bad.string()));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("engine: error[spec.bad_value]: " + bad.string() + ":6:14: tools[0].approve must be one of "
                         "'allow', 'ask', 'deny', got 'maybe'\n") == 0);
  auto glob = rig.dir.write("glob.yaml", "version: 1\nname: glob\nllm: {provider: scripted, scripted: {replies: [x]}}\n"
                                        "tools:\n  - builtin: echo\n    approve: {ask: echo}\nagent: {kind: tool_calling, prompt: [{role: user, content: x}]}\n");
  auto listed = run_engine("validate " + shell_quote(glob.string()));
  CHECK(listed.exit_code == 2);
  CHECK(listed.err.find("tools[0].approve.ask must be a list of tool names or globs") != std::string::npos);
}

TEST_CASE("approvals e2e: engine test declares the decisions, approved and rejected, and says when one is missing or "
          "unused", "[e2e][approvals]") {
  ApprovalRig rig;
  write_refund_workflow(rig.dir, rig.service.base(), "ask");
  rig.dir.write("refund.test.yaml",
                "version: 1\ntests:\n"
                "  approved:\n    inputs: {order: \"42\"}\n    decisions: [{tool: refund, approve: true}]\n"
                "    expect: {output_contains: '\"count\":1'}\n"
                "  rejected:\n    inputs: {order: \"42\"}\n    decisions: [{tool: refund, reject: not paid}]\n"
                "    expect: {output: \"done: a person rejected this call of tool 'refund': not paid\"}\n"
                "  undecided:\n    inputs: {order: \"42\"}\n    expect: {output: x}\n"
                "  unused:\n    inputs: {order: \"42\"}\n"
                "    decisions: [{tool: refund, approve: true}, {tool: other, reject: no}]\n"
                "    expect: {output_contains: done}\n");
  auto tested = run_engine("test " + shell_quote((rig.dir.path() / "refund.test.yaml").string()));
  INFO(tested.out << tested.err);
  CHECK(tested.exit_code == 1);
  CHECK(tested.out.find("PASS  approved") != std::string::npos);
  CHECK(tested.out.find("PASS  rejected") != std::string::npos);
  CHECK(tested.out.find("FAIL  undecided") != std::string::npos);
  CHECK(tested.out.find("        the run failed: tool 'refund' asks for a person's approval, and the test gives no "
                        "decision for it (decisions: [{tool: refund, approve: true}])\n") != std::string::npos);
  CHECK(tested.out.find("FAIL  unused") != std::string::npos);
  CHECK(tested.out.find("        decisions[1]: no call of tool 'other' asked for it\n") != std::string::npos);
  CHECK(tested.out.find("4 tests: 2 passed, 2 failed") != std::string::npos);
  CHECK(rig.service.count("refund") == 2);  // the approved test's call, and the unused one's
}
