// Durable runs (docs/durability.md): a run killed with SIGKILL at each journal write in turn, then resumed, ends as
// an unbroken run does, with no effect of effect `once` made twice and none lost without the run saying so.
#include <catch2/catch.hpp>

#include <regex>

#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/store/run_store.h"
#include "support/effect_service.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

// Model, tool, Lua, agent and sub-workflow steps in a chain (one order of journal writes every time): POSTs of
// effect once (`send`, `agent`, `sub`, and `script` from a Lua step with a POST grant), one declared idempotent
// (`notify`), and a GET that reads what `send` did.
std::filesystem::path write_durable_workflow(const test::TempDir& dir, const std::string& service) {
  std::string grants = "    allow: {http: [{url: \"" + service + "/effects/\", methods: [POST]}]}\n";
  dir.write("count.lua", "return function(inputs) local n = 0 for _ in inputs.text:gmatch('%S+') do n = n + 1 end return {words = n} end\n");
  dir.write("post.lua", "return function(inputs)\n"
                        "  local r = engine.http.request{method = 'POST', url = '" + service + "/effects/script', body = inputs.text}\n"
                        "  return {count = r.json.count, id = engine.call_id()}\nend\n");
  dir.write("sub.yaml",
            "version: 1\nname: notify\ninputs:\n  note: {}\n"
            "tools:\n  - builtin: http_request\n    name: post_effect\n" + grants +
            "steps:\n  post:\n    kind: tool\n    tool: post_effect\n    input: '{\"method\": \"POST\", \"path\": \"sub\"}'\n"
            "  said:\n    kind: template\n    template: \"notified {{ steps.post.output.body.count }}\"\n");
  return dir.write("durable.yaml",
                   "version: 1\nname: durable\ninputs:\n  topic: {default: refunds}\n"
                   "llm:\n  provider: scripted\n  scripted:\n    rules:\n"
                   "      - {match: \"(?s)^user: Draft\", reply: \"Refunds take five days.\"}\n"
                   "      - user: \"(?s)Send\"\n        reply: \"\"\n"
                   "        tool_calls: [{name: post_effect, arguments: '{\"method\": \"POST\", \"path\": \"agent\"}'}]\n"
                   "      - {tool: \"count\", reply: \"sent\"}\n"
                   "tools:\n"
                   "  - builtin: http_request\n    name: post_effect\n" + grants +
                   "  - builtin: http_request\n    name: notify\n    effect: idempotent\n" + grants +
                   "  - builtin: http_request\n    name: read_effect\n"
                   "    allow: {http: [{url: \"" + service + "/effects/\", methods: [GET]}]}\n"
                   "steps:\n"
                   "  draft:\n    kind: llm\n    prompt: \"Draft a note on {{ inputs.topic }}\"\n"
                   "  send:\n    kind: tool\n    tool: post_effect\n"
                   "    input: '{\"method\": \"POST\", \"path\": \"send\", \"body\": {{ steps.draft.output | tojson }}}'\n"
                   "  check:\n    kind: tool\n    tool: read_effect\n    when: \"steps.send.status == 'done'\"\n"
                   "    input: '{\"path\": \"send\"}'\n"
                   "  stats:\n    kind: lua\n    lua: count.lua\n    inputs:\n      text: \"{{ steps.draft.output }} {{ steps.check.status }}\"\n"
                   "  script:\n    kind: lua\n    lua: post.lua\n" + grants +
                   "    inputs:\n      text: \"{{ steps.stats.output.words }}\"\n"
                   "  notify:\n    kind: tool\n    tool: notify\n    when: \"steps.script.status == 'done'\"\n"
                   "    input: '{\"method\": \"POST\", \"path\": \"notify\"}'\n"
                   "  agent:\n    kind: agent\n    inputs:\n      question: \"Send it ({{ steps.stats.output.words }} words, {{ steps.notify.status }})\"\n"
                   "    agent:\n      kind: tool_calling\n      tools: [post_effect]\n"
                   "      prompt:\n        - {role: user, content: \"{{ question }}\"}\n"
                   "  sub:\n    kind: workflow\n    workflow: sub.yaml\n    inputs:\n      note: \"{{ steps.agent.output }}\"\n"
                   "outputs:\n  summary:\n    value: \"{{ steps.draft.output }} | read {{ steps.check.output.body.count }} | "
                   "{{ steps.stats.output.words }} words | {{ steps.agent.output }} | {{ steps.sub.output }}\"\n");
}

// Every effect of effect once done exactly once; the idempotent one once or, made again after a crash inside it,
// twice with the same key. Every POST of a journaled run carries a key.
void check_effects(const test::EffectService& service) {
  for (const char* once : {"send", "script", "agent", "sub"}) {
    INFO(once);
    CHECK(service.count(once) == 1);
    REQUIRE(service.keys_sent(once).size() == 1);
    CHECK_FALSE(service.keys_sent(once)[0].empty());
  }
  std::vector<std::string> keys = service.keys_sent("notify");
  REQUIRE((keys.size() == 1 || keys.size() == 2));
  CHECK(keys.front().find(":notify/call_1") != std::string::npos);
  CHECK(keys.back() == keys.front());
  CHECK(service.counts().size() == 5);
}

// The service, the workflow, a store, and one unbroken run of it: what each case starts from.
struct DurableRig {
  test::EffectService service;
  test::TempDir dir;
  std::filesystem::path workflow = write_durable_workflow(dir, service.base());
  std::filesystem::path store_file = dir.path() / "runs.db";
  std::string store = " --store " + shell_quote(store_file.string());

  // A run of the workflow to its end; its --json result. The service forgets what it did.
  Value run_once() {
    auto run = run_engine("run " + shell_quote(workflow.string()) + " -q --json" + store);
    REQUIRE(run.exit_code == 0);
    service.clear();
    return parse_json(run.out);
  }
};

size_t journal_size(const std::filesystem::path& store_file, const std::string& run) {
  store::RunStore store(store_file);
  return store.journal_entries(run).size();
}

}  // namespace

TEST_CASE("durable e2e: killed at every journal write and resumed, a run ends as an unbroken one with each effect once",
          "[e2e][durable]") {
  test::EffectService service;
  test::TempDir dir;
  std::filesystem::path workflow = write_durable_workflow(dir, service.base());
  std::filesystem::path store_file = dir.path() / "runs.db";
  std::string store = " --store " + shell_quote(store_file.string());
  // Each entry on disk before the run goes on, or grouped: in both a tool's intent is on disk before its effect.
  std::string durability = GENERATE(as<std::string>{}, "async", "sync");
  INFO("durability: " << durability);
  std::string run_args = "run " + shell_quote(workflow.string()) + " -q --json --durability " + durability + store;

  auto unbroken = run_engine(run_args);
  REQUIRE(unbroken.exit_code == 0);
  Value expected = parse_json(unbroken.out);
  CHECK(expected["output"] == "Refunds take five days. | read 1 | 5 words | sent | notified 1");
  check_effects(service);
  CHECK(service.count("notify") == 1);
  size_t writes = journal_size(store_file, expected["run_id"]);
  CHECK(writes == 38);  // the last: the run's answer

  std::regex in_doubt("engine runs resolve ([0-9a-f]+) (\\S+) --happened");
  std::vector<std::string> settled_calls;  // each once call, killed between its effect and its result's write
  int idempotent_again = 0;                // the idempotent call, made again for the same reason
  for (size_t n = 1; n <= writes; ++n) {
    INFO("killed before journal write " << n);
    service.clear();
    auto killed = run_engine(run_args, "", "ENGINE_JOURNAL_DIE_AT=" + std::to_string(n));
    REQUIRE(killed.exit_code == 128 + SIGKILL);
    auto unfinished = run_engine("runs list --unfinished --json" + store);
    REQUIRE(unfinished.exit_code == 0);
    Value listed = parse_json(unfinished.out);
    REQUIRE(listed.size() == 1);
    std::string id = listed[0]["id"];
    test::CommandResult resumed;
    for (int attempt = 0; attempt < 4; ++attempt) {
      resumed = run_engine("runs resume " + id + " -q --json" + store);
      std::smatch m;
      if (resumed.exit_code == 0 || !std::regex_search(resumed.err, m, in_doubt)) break;
      // The test is the person who knows: the service says whether the call in doubt happened.
      std::string call = m[2], key = call.substr(0, call.find('/'));  // send/call_1, agent/..., sub/post/call_1
      settled_calls.push_back(call);
      CHECK(service.count(key) <= 1);
      std::string resolve = "runs resolve " + id + " " + call + store;
      if (service.count(key) == 1)
        resolve += " --happened " + shell_quote("{\"status\": 200, \"body\": {\"key\": \"" + key + "\", \"count\": 1}}");
      else
        resolve += " --not-happened";
      auto settled = run_engine(resolve);
      REQUIRE(settled.exit_code == 0);
    }
    INFO(resumed.err);
    REQUIRE(resumed.exit_code == 0);
    Value result = parse_json(resumed.out);
    CHECK(result["output"] == expected["output"]);
    CHECK(result["run_id"] == id);
    check_effects(service);
    if (service.count("notify") == 2) ++idempotent_again;
    CHECK(parse_json(run_engine("runs list --unfinished --json" + store).out).empty());
  }
  CHECK(settled_calls == std::vector<std::string>{"send/call_1", "script/script", "agent/call_1_1", "sub/post/call_1"});
  CHECK(idempotent_again == 1);
}

TEST_CASE("durable e2e: a run that ended, one unknown, and a changed workflow are refused, changing nothing",
          "[e2e][durable]") {
  DurableRig rig;
  auto& [service, dir, workflow, store_file, store] = rig;
  Value done = rig.run_once();
  std::string id = done["run_id"];
  auto again = run_engine("runs resume " + id + store);
  CHECK(again.exit_code == 2);
  CHECK(again.err == "engine: error[journal.ended]: run " + id +
                         " ended: a run that ended is not resumed (fork it to run it again from a step)\n");
  auto unknown = run_engine("runs resume ffffffffffff" + store);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "engine: error[store.no_such_run]: no journaled run's id starts with 'ffffffffffff' in " +
                           (dir.path() / "runs.db").string() + "\n");

  auto killed = run_engine("run " + shell_quote(workflow.string()) + " -q" + store, "", "ENGINE_JOURNAL_DIE_AT=3");
  REQUIRE(killed.exit_code == 128 + SIGKILL);
  std::string cut = parse_json(run_engine("runs list --unfinished --json" + store).out)[0]["id"];
  // The workflow's own file and a script it names, both changed; a sub-workflow it names, deleted.
  std::string text = read_file(workflow), sub = read_file(dir.path() / "sub.yaml");
  dir.write("durable.yaml", text + "# changed\n");
  dir.write("count.lua", read_file(dir.path() / "count.lua") + "-- changed\n");
  std::filesystem::remove(dir.path() / "sub.yaml");
  auto changed = run_engine("runs resume " + cut + store);
  CHECK(changed.exit_code == 2);
  auto named = [&](const char* file) { return (std::filesystem::canonical(dir.path()) / file).string(); };
  CHECK(changed.err == "engine: error[journal.changed]: run " + cut + "'s workflow changed since it started:\n  " +
                           std::filesystem::absolute(workflow).lexically_normal().string() + "\n  " + named("count.lua") +
                           "\n  " + named("sub.yaml") + " (deleted)" +
                           "\n(--allow-changed replays while its recorded calls still match)\n");
  dir.write("sub.yaml", sub);
  CHECK(service.count("send") == 0);
  auto allowed = run_engine("runs resume " + cut + " --allow-changed -q --json" + store);
  CHECK(allowed.exit_code == 0);
  CHECK(parse_json(allowed.out)["output"] == done["output"]);
}

TEST_CASE("durable e2e: a fork replays its parent up to a step and runs live from there, and so does a fork of a fork",
          "[e2e][durable]") {
  DurableRig rig;
  auto& [service, dir, workflow, store_file, store] = rig;
  Value first = rig.run_once();
  std::string parent = first["run_id"];

  auto fork = run_engine("runs fork " + parent + " --at agent -q --json" + store);
  REQUIRE(fork.exit_code == 0);
  Value forked = parse_json(fork.out);
  CHECK(forked["output"] == first["output"]);
  CHECK(forked["run_id"] != parent);
  CHECK(fork.err == "run " + std::string(forked["run_id"]) + " forked from " + parent + " at step agent\n");
  // What came before the step was answered from the journal: only the agent's and the sub-workflow's calls ran.
  CHECK(service.counts() == std::map<std::string, int>{{"agent", 1}, {"sub", 1}});
  {
    store::RunStore runs(store_file);
    std::optional<store::JournalRun> header = runs.find_journal(forked["run_id"]);
    REQUIRE(header);
    CHECK(header->parent == parent);
    CHECK(header->fork_at == "agent");
    CHECK(header->state == store::JournalState::Ended);
  }

  service.clear();
  auto again = run_engine("runs fork " + std::string(forked["run_id"]) + " --at sub -q --json" + store);
  REQUIRE(again.exit_code == 0);
  CHECK(parse_json(again.out)["output"] == forked["output"]);
  CHECK(service.counts() == std::map<std::string, int>{{"sub", 1}});

  // Another input that the first step reads: it asks something else, so the run is live from there on.
  service.clear();
  auto other = run_engine("runs fork " + parent + " --at stats --input topic=invoices -q --json" + store);
  REQUIRE(other.exit_code == 0);
  CHECK(service.count("send") == 1);

  auto nowhere = run_engine("runs fork " + parent + " --at nowhere" + store);
  CHECK(nowhere.exit_code == 2);
  CHECK(nowhere.err == "engine: error[usage]: run " + parent + " has no step 'nowhere' in its journal (its steps: "
                       "draft, send, check, stats, script, notify, agent, sub)\n");
}

TEST_CASE("durable e2e: a replay makes no call and shows the steps a changed workflow now ends otherwise",
          "[e2e][durable]") {
  DurableRig rig;
  auto& [service, dir, workflow, store_file, store] = rig;
  std::string id = rig.run_once()["run_id"];

  auto same = run_engine("runs replay " + id + " -q" + store);
  CHECK(same.exit_code == 0);
  CHECK(same.out == "replayed run " + id + " against its journal: every step ended as recorded\n");
  CHECK(service.counts().empty());  // offline: not one effect

  // The same answers through a changed template and a changed prompt.
  std::string text = read_file(workflow);
  text.replace(text.find("Draft a note on"), 15, "Draft a memo on");
  text.replace(text.find("{{ steps.stats.output.words }} words |"), 38, "{{ steps.stats.output.words }} WORDS |");
  auto changed = dir.write("changed.yaml", text);
  auto replayed = run_engine("runs replay " + id + " -q --json --workflow " + shell_quote(changed.string()) + store);
  CHECK(replayed.exit_code == 0);  // the steps' ends are the same; only the declared output differs
  Value report = parse_json(replayed.out);
  CHECK(report["differences"].empty());
  CHECK(report["asked_otherwise"] == Value{"llm.0 at draft"});
  CHECK(report["result"]["output"] == "Refunds take five days. | read 1 | 5 WORDS | sent | notified 1");
  CHECK(service.counts().empty());

  // Steps whose output changes: the sub-workflow's template now says otherwise with the same answers.
  std::string sub = read_file(dir.path() / "sub.yaml");
  sub.replace(sub.find("notified"), 8, "told");
  dir.write("sub2.yaml", sub);
  std::string third_text = read_file(workflow);
  third_text.replace(third_text.find("workflow: sub.yaml"), 18, "workflow: sub2.yaml");
  auto third = dir.write("third.yaml", third_text);
  auto differs = run_engine("runs replay " + id + " -q --workflow " + shell_quote(third.string()) + store);
  CHECK(differs.exit_code == 1);
  CHECK(differs.out == "replayed run " + id + " against its journal: 2 steps end otherwise\n"
                       "* sub/said\n    recorded: {\"status\":\"done\",\"output\":\"notified 1\"}\n"
                       "    replayed: {\"status\":\"done\",\"output\":\"told 1\"}\n"
                       "* sub\n    recorded: {\"status\":\"done\",\"output\":\"notified 1\"}\n"
                       "    replayed: {\"status\":\"done\",\"output\":\"told 1\"}\n");
  CHECK(service.counts().empty());
}

TEST_CASE("durable e2e: a run a process holds is not resumed by another, and is once that process is gone",
          "[e2e][durable]") {
  test::EffectService service;
  test::TempDir dir;
  auto workflow = dir.write("slow.yaml",
                            "version: 1\nname: slow\ntools:\n  - builtin: http_request\n    name: read_effect\n"
                            "    allow: {http: [{url: \"" + service.base() + "/effects/\", methods: [GET]}]}\n"
                            "steps:\n  wait:\n    kind: tool\n    tool: read_effect\n    input: '{\"path\": \"slow\"}'\n"
                            "  done:\n    kind: template\n    template: \"waited {{ steps.wait.output.status }}\"\n");
  std::string store = " --store " + shell_quote((dir.path() / "runs.db").string());
  test::EngineProcess held("run " + shell_quote(workflow.string()) + " -q" + store);
  REQUIRE(test::wait_until([&] { return service.slow_waiting() == 1; }));
  Value unfinished = parse_json(run_engine("runs list --unfinished --json" + store).out);
  REQUIRE(unfinished.size() == 1);
  std::string id = unfinished[0]["id"];
  auto busy = run_engine("runs resume " + id + store);
  CHECK(busy.exit_code == 2);
  CHECK(busy.err == "engine: error[journal.busy]: run " + id + " is being run or resumed by another process now\n");

  held.signal(SIGKILL);
  held.wait();
  service.release();
  auto resumed = run_engine("runs resume " + id.substr(0, 8) + " -q" + store);
  CHECK(resumed.exit_code == 0);
  CHECK(resumed.out == "waited 200\n");
}

TEST_CASE("durable e2e: a run of 10,000 journaled steps is resumed from its journal", "[e2e][durable]") {
  test::TempDir dir;
  // One for_each step of 10,000 items, each a step end in the journal, then a step that reads them.
  auto workflow = dir.write("many.yaml",
                            "version: 1\nname: many\nsteps:\n  items:\n    kind: template\n"
                            "    for_each: \"range(10000) | list\"\n    concurrency: 1\n    template: \"{{ item }}\"\n"
                            "  count:\n    kind: template\n    template: \"{{ steps.items.output | length }}\"\n");
  std::filesystem::path store_file = dir.path() / "runs.db";
  std::string store = " --store " + shell_quote(store_file.string());
  // Killed before the journal's last entry: the step `count` never ended.
  auto killed = run_engine("run " + shell_quote(workflow.string()) + " -q" + store, "", "ENGINE_JOURNAL_DIE_AT=10004");
  REQUIRE(killed.exit_code == 128 + SIGKILL);
  std::string id = parse_json(run_engine("runs list --unfinished --json" + store).out)[0]["id"];
  CHECK(journal_size(store_file, id) == 10003);
  auto resumed = run_engine("runs resume " + id + " -q" + store);
  CHECK(resumed.exit_code == 0);
  CHECK(resumed.out == "10000\n");
  CHECK(journal_size(store_file, id) == 10005);  // and the run's answer
}

TEST_CASE("durable e2e: engine runs show and diff give each step's output, skipped steps and for_each items from the journal",
          "[e2e][durable]") {
  test::TempDir dir;
  auto workflow = dir.write("steps.yaml",
                            "version: 1\nname: steps\ninputs:\n  n: {default: \"2\"}\ntools:\n  - builtin: echo\nsteps:\n"
                            "  each:\n    kind: template\n    for_each: \"range(n | int) | list\"\n    template: \"item {{ item }}\"\n"
                            "  never:\n    kind: template\n    when: \"n == '0'\"\n    template: never\n"
                            "  joined:\n    kind: tool\n    tool: echo\n    input: \"{{ steps.each.output | join(', ') }} of {{ n }}\"\n");
  std::string store = " --store " + shell_quote((dir.path() / "runs.db").string());
  auto a = run_engine("run " + shell_quote(workflow.string()) + " -q --json" + store);
  auto b = run_engine("run " + shell_quote(workflow.string()) + " -q --json -i n=3" + store);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  std::string ida = parse_json(a.out)["run_id"], idb = parse_json(b.out)["run_id"];
  auto shown = run_engine("runs show --json " + ida + store);
  REQUIRE(shown.exit_code == 0);
  CHECK(parse_json(shown.out)["steps"] ==
        parse_json(R"([{"step": "each[0]", "status": "done", "output": "item 0"},
                       {"step": "each[1]", "status": "done", "output": "item 1"},
                       {"step": "each", "status": "done", "output": ["item 0", "item 1"]},
                       {"step": "never", "status": "skipped", "reason": "its when was false"},
                       {"step": "joined", "status": "done", "output": "item 0, item 1 of 2",
                        "inputs": {"input": "item 0, item 1 of 2"}}])"));
  auto diff = run_engine("runs diff --json " + ida + " " + idb + store);
  REQUIRE(diff.exit_code == 0);
  INFO(diff.out);
  std::map<std::string, Value> lines;
  Value doc = parse_json(diff.out);
  for (const Value& line : doc["lines"]) lines[line["what"].get<std::string>()] = line;
  CHECK(lines["step joined"] == Value{{"what", "step joined"}, {"a", "done: item 0, item 1 of 2"},
                                     {"b", "done: item 0, item 1, item 2 of 3"}, {"same", false}});
  CHECK(lines["step each[2]"] == Value{{"what", "step each[2]"}, {"a", ""}, {"b", "done: item 2"}, {"same", false}});
  CHECK(lines["step never"]["same"] == true);
}

TEST_CASE("durable e2e: a stored run exported as a journal is a test that replays it offline, no effect made, and "
          "says what a changed workflow does otherwise", "[e2e][durable]") {
  DurableRig rig;
  auto run = run_engine("run " + shell_quote(rig.workflow.string()) + " -q --json" + rig.store);
  REQUIRE(run.exit_code == 0);
  std::string id = parse_json(run.out)["run_id"];
  rig.service.clear();
  auto fixture = rig.dir.path() / "refunds.journal";
  auto exported = run_engine("runs export " + id + " --journal " + shell_quote(fixture.string()) + rig.store);
  CHECK(exported.exit_code == 0);
  CHECK(exported.err == "wrote the 38 journal entries of run " + id + " to " + fixture.string() +
                            " (a test's `journal:` replays it: docs/testing.md)\n");
  rig.dir.write("durable.test.yaml", "version: 1\ntests:\n  as_recorded:\n    journal: refunds.journal\n"
                                     "  with_expectations:\n    journal: refunds.journal\n"
                                     "    expect:\n      steps: {send: done, sub: done}\n");
  std::string test_args = "test " + shell_quote((rig.dir.path() / "durable.test.yaml").string());
  auto passed = run_engine(test_args);
  INFO(passed.out << passed.err);
  CHECK(passed.exit_code == 0);
  CHECK(passed.out.find("2 tests: 2 passed, 0 failed") != std::string::npos);
  CHECK(rig.service.counts().empty());  // every tool call answered from the journal: nothing sent

  // The prompt and a sub-workflow's template changed: the test says where the run now differs from the journal.
  rig.dir.write("durable.yaml", read_file(rig.workflow).replace(read_file(rig.workflow).find("Draft a note"), 12, "Draft a memo"));
  rig.dir.write("sub.yaml", read_file(rig.dir.path() / "sub.yaml").replace(read_file(rig.dir.path() / "sub.yaml").find("notified"), 8, "told"));
  auto failed = run_engine(test_args + " --filter as_recorded");
  INFO(failed.out << failed.err);
  CHECK(failed.exit_code == 1);
  std::string failures = failed.out.substr(failed.out.find(" ms\n") + 4);
  CHECK(failures ==
        "        the run asked otherwise than its journal (refunds.journal) recorded at llm.0 at draft: the workflow or "
        "its inputs changed since run " + id + "\n"
        "        step sub/said: recorded '{\"status\":\"done\",\"output\":\"notified 1\"}', now "
        "'{\"status\":\"done\",\"output\":\"told 1\"}'\n"
        "        step sub: recorded '{\"status\":\"done\",\"output\":\"notified 1\"}', now "
        "'{\"status\":\"done\",\"output\":\"told 1\"}'\n"
        "        output: expected 'Refunds take five days. | read 1 | 5 words | sent | notified 1', got 'Refunds take "
        "five days. | read 1 | 5 words | sent | told 1' (as run " + id + " answered)\n"
        "1 test: 0 passed, 1 failed\n");
  CHECK(rig.service.counts().empty());
}
