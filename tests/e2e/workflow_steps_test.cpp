// Workflows of steps through the built `engine`: the shipped examples, a failed step's report, one-agent files as
// before.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include "engine/core/file.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::MockLlmServer;
using engine::test::run_engine;
using engine::test::shell_quote;

TEST_CASE("summarize_and_classify: two model calls at once, joined by a template", "[e2e][steps]") {
  auto r = run_engine("run workflows/summarize_and_classify.yaml --json -q");
  REQUIRE(r.exit_code == 0);
  Value doc = Value::parse(r.out);
  CHECK(doc["output"] ==
        "[BILLING] The customer was charged twice for the March invoice and cannot use the refund form. (15 words)");
  CHECK(doc["outputs"]["category"] == "billing");
  CHECK(doc["usage"]["llm_calls"] == 2);
  for (const char* step : {"summary", "category", "stats", "note"}) CHECK(doc["steps"][step]["status"] == "done");
  Value stats = doc["steps"]["stats"]["output"];  // the Lua table, as JSON
  CHECK(stats["words"] == 15);
  CHECK(stats["sentences"] == 1);
  CHECK(stats["fits"] == true);
  // the console shows both calls starting before either ends: they overlap
  auto shown = run_engine("run workflows/summarize_and_classify.yaml --no-color");
  REQUIRE(shown.exit_code == 0);
  size_t second_start = std::max(shown.err.find("[summary] started"), shown.err.find("[category] started"));
  size_t first_end = std::min(shown.err.find("[summary] done"), shown.err.find("[category] done"));
  CHECK(second_start < first_end);
  CHECK(shown.err.find("[note] started (template)") > first_end);
}

TEST_CASE("support_router: when sends the message to one agent, the other is skipped", "[e2e][steps]") {
  auto billing = run_engine("run workflows/support_router.yaml --json -q");
  REQUIRE(billing.exit_code == 0);
  Value doc = Value::parse(billing.out);
  CHECK(doc["output"] ==
        "Good news: a refund of 49.00 EUR for INV-1042 was approved on 2026-11-20 and reaches the card in 3-5 days.\n"
        "(routed to billing)");
  CHECK(doc["steps"]["technical"] == Value{{"status", "skipped"}, {"output", nullptr}});
  CHECK(doc["usage"]["llm_calls"] == 3);  // classify, then the billing agent's two calls
  auto technical =
      run_engine("run workflows/support_router.yaml -q --input " + shell_quote("The login page times out since this morning"));
  REQUIRE(technical.exit_code == 0);
  CHECK(technical.out ==
        "Thanks for telling us: login is degraded since 09:12 UTC; a fix is being deployed.\n(routed to technical)\n");
}

TEST_CASE("a failed step fails the run with its name and cause, and what reads it does not run", "[e2e][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml",
                     "inputs:\n  topic: t\nllm:\n  provider: scripted\n  scripted:\n    replies: ['one reply only']\n"
                     "steps:\n  ask:\n    kind: agent\n    inputs: {input: '{{ inputs.topic }}'}\n"
                     "    agent: {max_iterations: 2}\n"
                     "  report: {kind: template, template: '{{ steps.ask.output }}'}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " --json -q --input tides");
  CHECK(r.exit_code == 1);
  Value doc = Value::parse(r.out);
  CHECK(doc["error"]["kind"] == "parse.failed");
  CHECK(doc["error"]["message"].get<std::string>() ==
        "step 'ask' failed: could not parse LLM output: it matches neither the final-answer nor the action pattern: 'one reply only'");
  CHECK(doc["steps"]["ask"]["status"] == "failed");
  CHECK(doc["steps"]["ask"]["inputs"] == Value{{"input", "tides"}});  // what it was given, rendered
  CHECK(doc["steps"]["report"]["status"] == "not_run");
  auto shown = run_engine("run " + shell_quote(w.string()) + " --no-color --input tides");
  CHECK(shown.exit_code == 1);
  CHECK(shown.err.find("[ask] failed in ") != std::string::npos);
  CHECK(shown.err.find(" ms (parse.failed)\n  input: tides\n") != std::string::npos);
  CHECK(shown.err.find("engine: error[parse.failed]: step 'ask' failed: ") != std::string::npos);
}

TEST_CASE("engine render says what a workflow of steps is not", "[e2e][steps]") {
  auto r = run_engine("render workflows/summarize_and_classify.yaml");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[usage]: this workflow is a graph of steps; engine render is for a workflow of one agent\n");
}

TEST_CASE("for_each maps a step over an input's list, and the next step reads the list of outputs", "[e2e][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml",
                     "inputs:\n  cities: {default: [Paris, Lima, Oslo]}\nsteps:\n"
                     "  greet: {kind: template, for_each: inputs.cities, concurrency: 2, "
                     "template: '{{ item_index + 1 }}. Hello, {{ item }}'}\n"
                     "  joined: {kind: template, template: \"{{ steps.greet.output | join(', ') }}\"}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " --json -q");
  REQUIRE(r.exit_code == 0);
  Value doc = Value::parse(r.out);
  CHECK(doc["steps"]["greet"]["output"] == Value{"1. Hello, Paris", "2. Hello, Lima", "3. Hello, Oslo"});
  CHECK(doc["output"] == "1. Hello, Paris, 2. Hello, Lima, 3. Hello, Oslo");
}

TEST_CASE("a tool step calls one tool with its rendered input, and needs no model", "[e2e][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml",
                     "inputs:\n  invoice: {default: INV-1042}\ntools:\n  - lua: " + test::source_path("plugins/support/refunds.lua") +
                         "\n  - builtin: echo\nsteps:\n  refund: {kind: tool, tool: refund_status, input: '{{ inputs.invoice }}'}\n"
                         "  told: {kind: tool, tool: echo, input: 'Customer told: {{ steps.refund.output }}'}\n");
  // the plugin lies outside the test's folder, among the shipped plugins, which are on the search path
  auto ok = run_engine("run " + shell_quote(w.string()) + " -q");
  REQUIRE(ok.exit_code == 0);
  CHECK(ok.out ==
        "Customer told: a refund of 49.00 EUR for INV-1042 was approved on 2026-11-20 and reaches the card in 3-5 days\n");
}

TEST_CASE("a tool step that fails, or whose input does not fit, fails the run naming the step and the tool",
          "[e2e][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml",
                     "inputs:\n  n: {default: '1/0'}\ntools:\n  - lua: " + test::source_path("plugins/calculator.lua") +
                         "\nsteps:\n  calc: {kind: tool, tool: calculator, input: '{{ inputs.n }}'}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " -q --input n=nonsense");
  CHECK(r.exit_code == 1);
  CHECK(r.err == "engine: error[tool.error]: step 'calc' failed: tool 'calculator' failed: " +
                   test::source_path("plugins/calculator.lua") + ":45: unknown word 'nonsense'\n");
}

TEST_CASE("refine_loop: draft, critique, revise until approved, the loop ending by until", "[e2e][steps]") {
  auto r = run_engine("run workflows/refine_loop.yaml --json -q");
  REQUIRE(r.exit_code == 0);
  Value doc = Value::parse(r.out);
  CHECK(doc["output"] == "Sun-boiled water for your morning tea.");
  CHECK(doc["steps"]["refine"]["iterations"] == 2);
  CHECK(doc["steps"]["refine"]["until_met"] == true);
  CHECK(doc["steps"]["refine"]["output"]["revise"].is_null());  // skipped in the approving iteration
  CHECK(doc["usage"]["llm_calls"] == 4);  // draft, critique, revise, critique
  auto shown = run_engine("run workflows/refine_loop.yaml --no-color");
  // Iterations are numbered from 0, in event paths as in `iteration` (docs/trace.md).
  CHECK(shown.err.find("[critique[0]] started (llm)") != std::string::npos);
  CHECK(shown.err.find("[critique[1]] started (llm)") != std::string::npos);
  CHECK(shown.err.find("[revise[1]] skipped") != std::string::npos);
  CHECK(shown.err.find("[critique[2]]") == std::string::npos);
}

TEST_CASE("a loop reads its previous iteration, and stops at max_iterations when until never holds",
          "[e2e][steps]") {
  auto counted = [](const std::string& until) {
    test::TempDir dir;
    auto w = dir.write("w.yaml", "steps:\n  count:\n    kind: loop\n    max_iterations: 3\n    until: \"" + until +
                                     "\"\n    steps:\n      n: {kind: template, template: "
                                     "\"{{ (previous.n.output or 0) | int + 1 }}\"}\n");
    auto r = run_engine("run " + shell_quote(w.string()) + " --json -q");
    REQUIRE(r.exit_code == 0);
    return Value::parse(r.out)["steps"]["count"];
  };
  Value ends = counted("steps.n.output | int >= 2");
  CHECK(ends == Value{{"status", "done"}, {"output", {{"n", "2"}}}, {"elapsed_ms", ends["elapsed_ms"]},
                      {"iterations", 2}, {"until_met", true}});
  Value bound = counted("steps.n.output | int >= 10");
  CHECK(bound["output"]["n"] == "3");
  CHECK(bound["iterations"] == 3);
  CHECK(bound["until_met"] == false);
}

TEST_CASE("research_team: a root agent delegates to two workflows used as tools", "[e2e][steps]") {
  auto r = run_engine("run workflows/research_team.yaml --json -q");
  REQUIRE(r.exit_code == 0);
  Value doc = Value::parse(r.out);
  CHECK(doc["output"] ==
        "For a child: The transformer is a neural network architecture built on self-attention, introduced in 2017 "
        "by Vaswani et al. at Google in the paper 'Attention Is All You Need'.");
  REQUIRE(doc["intermediate_steps"].size() == 2);
  CHECK(doc["intermediate_steps"][0]["action"]["tool"] == "researcher");
  CHECK(doc["intermediate_steps"][0]["action"]["tool_input"] == "transformer");  // one input: text
  CHECK(doc["intermediate_steps"][1]["action"]["tool_input"] ==
        Value::parse(R"({"notes": "The transformer is a neural network architecture built on self-attention, )"
                     R"(introduced in 2017 by Vaswani et al. at Google in the paper 'Attention Is All You Need'.", )"
                     R"("audience": "a child"})"));
  auto tools = run_engine("tools workflows/research_team.yaml");
  REQUIRE(tools.exit_code == 0);
  CHECK(tools.out.find("researcher") != std::string::npos);
  CHECK(tools.out.find("writer") != std::string::npos);
}

TEST_CASE("a workflow step runs another workflow file with inputs rendered from the run's", "[e2e][steps]") {
  test::TempDir dir;
  dir.write("child.yaml", "inputs:\n  who: w\n  greeting: {default: Hello}\n"
                          "steps:\n  say: {kind: template, template: '{{ inputs.greeting }}, {{ inputs.who }}!'}\n");
  auto w = dir.write("w.yaml", "inputs:\n  name: n\nsteps:\n"
                               "  hi: {kind: workflow, workflow: child.yaml, inputs: {who: '{{ inputs.name | upper }}'}}\n"
                               "  twice: {kind: template, template: '{{ steps.hi.output }} {{ steps.hi.output }}'}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " -q --input Ada");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "Hello, ADA! Hello, ADA!\n");
}

TEST_CASE("sub-workflows: a missing or unknown input, and a file that includes itself, are refused at load",
          "[e2e][steps]") {
  test::TempDir dir;
  dir.write("child.yaml", "inputs:\n  who: w\nsteps:\n  say: {kind: template, template: '{{ inputs.who }}'}\n");
  auto missing = dir.write("m.yaml", "steps:\n  hi: {kind: workflow, workflow: child.yaml}\n");
  auto r = run_engine("validate " + shell_quote(missing.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("steps.hi gives no value for 'child.yaml' input 'who', which has no default: add it under "
                   "steps.hi.inputs") != std::string::npos);
  auto unknown = dir.write("u.yaml", "steps:\n  hi: {kind: workflow, workflow: child.yaml, inputs: {woh: x}}\n");
  r = run_engine("validate " + shell_quote(unknown.string()));
  CHECK(r.err.find("steps.hi.inputs.woh: 'child.yaml' has no input 'woh' (did you mean 'who'?)") != std::string::npos);
  dir.write("a.yaml", "steps:\n  b: {kind: workflow, workflow: b.yaml}\n");
  dir.write("b.yaml", "tools:\n  - workflow: a.yaml\nsteps:\n  x: {kind: template, template: x}\n");
  r = run_engine("validate " + shell_quote((dir.path() / "a.yaml").string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("b.yaml:2:15: tools[0].workflow: 'a.yaml' includes itself: a.yaml -> b.yaml -> a.yaml") !=
        std::string::npos);
}

TEST_CASE("a run-time error in a template written in the YAML is shown at its line there, with a caret",
          "[e2e][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml",
                     "inputs:\n  n: a number\nsteps:\n  half:\n    kind: template\n    template: |\n"
                     "      n = {{ n }}\n      half = {{ (n | int) // 0 }}\n");
  auto r = run_engine("run w.yaml -q --input n=4", "", "cd " + shell_quote(dir.path().string()) + " &&");
  CHECK(r.exit_code == 1);
  CHECK(r.err ==
        "engine: error[template.render]: w.yaml:8:27: step 'half' failed: steps.half.template: integer division or modulo by zero\n"
        "        half = {{ (n | int) // 0 }}\n"
        "                            ^\n");
  auto json = run_engine("run w.yaml --json --input n=4", "", "cd " + shell_quote(dir.path().string()) + " &&");
  Value doc = Value::parse(json.out);
  CHECK(doc["error"]["at"] == "w.yaml:8:27");
  CHECK(doc["steps"]["half"]["output"]["at"] == "w.yaml:8:27");
}

using test::trace_lines;

TEST_CASE("every event says whose it is: the run's id and the step's path, nested steps under theirs",
          "[e2e][steps][trace]") {
  test::TempDir dir;
  auto file = dir.path() / "trace.jsonl";
  auto r = run_engine("run workflows/support_router.yaml --json -q --trace " + shell_quote(file.string()));
  REQUIRE(r.exit_code == 0);
  std::string run_id = Value::parse(r.out)["run_id"];
  CHECK(run_id.size() == 16);
  auto events = trace_lines(file);
  REQUIRE(!events.empty());
  std::map<std::string, std::set<std::string>> paths;  // type -> the paths it came from
  for (const auto& e : events) {
    CHECK(e["run_id"] == run_id);
    paths[e["type"]].insert(e.value("path", ""));
  }
  CHECK(paths["step_start"] == std::set<std::string>{"classify", "billing", "reply"});
  CHECK(paths["llm_start"] == std::set<std::string>{"classify", "billing"});
  CHECK(paths["tool_end"] == std::set<std::string>{"billing"});
  CHECK(paths["chain_end"] == std::set<std::string>{"", "billing"});  // the workflow's, the agent's
  CHECK(events.front()["type"] == "chain_start");
  CHECK_FALSE(events.front().contains("path"));
  // a sub-workflow used as a tool: its events are under the tool's name
  auto team = dir.path() / "team.jsonl";
  REQUIRE(run_engine("run workflows/research_team.yaml -q --trace " + shell_quote(team.string())).exit_code == 0);
  std::set<std::string> team_paths;
  std::set<std::string> chains;  // path: name (chain) of each chain_start
  for (const auto& e : trace_lines(team)) {
    team_paths.insert(e.value("path", ""));
    if (e["type"] == "chain_start")
      chains.insert(e.value("path", "") + ": " + e["name"].get<std::string>() + " (" + e["chain"].get<std::string>() + ")");
  }
  CHECK(team_paths.count("researcher") == 1);
  CHECK(team_paths.count("writer") == 1);
  // Each chain is named for what runs: the workflow, the agent workflow used as a tool, the workflow of steps.
  CHECK(chains == std::set<std::string>{": research_team (AgentExecutor)", "researcher: researcher (AgentExecutor)",
                                        "writer: writer (Workflow)"});
}

TEST_CASE("the console shows an agent step's chain indented under the step", "[e2e][steps][trace]") {
  auto r = run_engine("run workflows/support_router.yaml --no-stream");
  REQUIRE(r.exit_code == 0);
  // The skipped step runs beside the agent, so its line may fall between the agent's start and its chain.
  size_t started = r.err.find("\n[billing] started (agent)\n");
  REQUIRE(started != std::string::npos);
  CHECK(r.err.find("\n  > Entering new AgentExecutor chain...\n", started) != std::string::npos);
  CHECK(r.err.find("\n  Observation: ") != std::string::npos);
  CHECK(r.err.find("\n[billing] done in ") != std::string::npos);
  CHECK(r.err.find("\n[technical] skipped") != std::string::npos);
}

TEST_CASE("a failed step's report shows what it was given, with the API key masked", "[e2e][steps]") {
  MockLlmServer server;
  server.enqueue({400, R"({"error": {"message": "the prompt is not allowed"}})"});
  server.enqueue({400, R"({"error": {"message": "the prompt is not allowed"}})"});
  test::TempDir dir;
  auto w = dir.write("w.yaml",
                     "inputs:\n  note: n\nllm:\n  provider: openai\n  model: test-model\n"
                     "steps:\n  ask:\n    kind: llm\n    prompt: 'Summarise: {{ note }}'\n");
  const std::string key = "sk-e2e-report-secret-0123456789";
  std::string env = "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=" + key;
  auto r = run_engine("run " + shell_quote(w.string()) + " --json -q --input " + shell_quote("my key is " + key), "", env);
  CHECK(r.exit_code == 1);
  Value doc = Value::parse(r.out);
  CHECK(doc["error"]["kind"] == "llm.http_error");
  CHECK(doc["steps"]["ask"]["inputs"] == Value{{"prompt", "Summarise: my key is ***"}});
  auto shown = run_engine("run " + shell_quote(w.string()) + " --no-color --input " + shell_quote("my key is " + key), "", env);
  CHECK(shown.err.find("[ask] failed in ") != std::string::npos);
  CHECK(shown.err.find("\n  prompt: Summarise: my key is ***\n") != std::string::npos);
  CHECK_FALSE(test::holds_piece_of_key(shown.err + r.out, key));
}

TEST_CASE("a lua step calls a script's function with its inputs, and a script that fails fails the step", "[e2e][steps]") {
  test::TempDir dir;
  dir.write("shout.lua", "return function(inputs) return inputs.word:upper() .. string.rep('!', tonumber(inputs.n)) end\n");
  dir.write("broken.lua", "return function(inputs) error('no ' .. inputs.word) end\n");
  dir.write("spin.lua", "return function(inputs) while true do end end\n");
  auto w = dir.write("w.yaml",
                     "inputs:\n  word: w\nsteps:\n  loud:\n    kind: lua\n    lua: shout.lua\n"
                     "    inputs: {word: '{{ word }}', n: '3'}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " -q --input hey");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "HEY!!!\n");

  auto broken = dir.write("b.yaml", "inputs:\n  word: w\nsteps:\n  fail:\n    kind: lua\n    lua: broken.lua\n"
                                    "    inputs: {word: '{{ word }}'}\n");
  auto b = run_engine("run " + shell_quote(broken.string()) + " --json -q --input hey");
  CHECK(b.exit_code == 1);
  Value doc = Value::parse(b.out);
  CHECK(doc["error"]["kind"] == "tool.error");
  CHECK(doc["error"]["message"].get<std::string>().find("step 'fail' failed: ") == 0);
  CHECK(doc["error"]["message"].get<std::string>().find("no hey") != std::string::npos);
  CHECK(doc["steps"]["fail"]["inputs"] == Value{{"word", "hey"}});

  auto spin = dir.write("s.yaml", "steps:\n  spin:\n    kind: lua\n    lua: spin.lua\n    limits: {timeout_ms: 50, instructions: 1000000000}\n");
  auto s = run_engine("run " + shell_quote(spin.string()) + " --json -q");
  CHECK(s.exit_code == 1);
  CHECK(Value::parse(s.out)["error"]["kind"] == "tool.timeout");
}

TEST_CASE("llm.max_concurrent_calls caps the model calls in flight: three parallel calls at a cap of one queue",
          "[e2e][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml",
                     "llm:\n  provider: scripted\n  max_concurrent_calls: 1\n  scripted:\n    latency_ms: 200\n"
                     "    rules: [{match: '(?s).', reply: ok}]\n"
                     "steps:\n  a: {kind: llm, prompt: a}\n  b: {kind: llm, prompt: b}\n  c: {kind: llm, prompt: c}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " --json -q");
  REQUIRE(r.exit_code == 0);
  // One call at a time: the run cannot take less than the three calls one after another (a lower bound, which a
  // busy machine only lengthens).
  CHECK(Value::parse(r.out)["elapsed_ms"].get<long>() >= 600);
  auto bad = dir.write("bad.yaml", "llm:\n  provider: scripted\n  max_concurrent_calls: 0\nsteps:\n  a: {kind: template, template: x}\n");
  auto e = run_engine("validate " + shell_quote(bad.string()));
  CHECK(e.exit_code == 2);
  CHECK(e.err.find("llm.max_concurrent_calls must be between 1 and 256, got 0") != std::string::npos);
}

TEST_CASE("a step may name its own model, which --llm replaces too", "[e2e][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml",
                     "llm:\n  provider: scripted\n  scripted: {replies: [from the workflow's model]}\n"
                     "steps:\n  usual: {kind: llm, prompt: a}\n"
                     "  special:\n    kind: llm\n    prompt: b\n"
                     "    llm:\n      provider: scripted\n      scripted: {replies: [from the step's model]}\n"
                     "  both: {kind: template, template: '{{ steps.usual.output }} / {{ steps.special.output }}'}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " -q");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "from the workflow's model / from the step's model\n");

  MockLlmServer server;
  server.enqueue(MockLlmServer::chat("served"));
  server.enqueue(MockLlmServer::chat("served"));
  auto o = run_engine("run " + shell_quote(w.string()) + " -q --llm openai:test-model", "",
                      "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key");
  CHECK(o.exit_code == 0);
  CHECK(o.out == "served / served\n");
  CHECK(server.requests().size() == 2);

  auto only_steps = dir.write("s.yaml", "steps:\n  a:\n    kind: llm\n    prompt: x\n"
                                        "    llm: {provider: scripted, scripted: {replies: [own]}}\n");
  auto s = run_engine("run " + shell_quote(only_steps.string()) + " -q");
  CHECK(s.exit_code == 0);  // no workflow model needed when every step has its own
  CHECK(s.out == "own\n");
  auto bad = dir.write("b.yaml", "steps:\n  a:\n    kind: template\n    template: x\n    llm: {provider: scripted}\n");
  auto e = run_engine("validate " + shell_quote(bad.string()));
  CHECK(e.exit_code == 2);
  CHECK(e.err.find("b.yaml:5:10: steps.a.llm is for kinds llm and agent (a step of kind template calls no model)") !=
        std::string::npos);
  auto bad_model = dir.write("m.yaml", "steps:\n  a:\n    kind: llm\n    prompt: x\n    llm: {provider: scripted}\n");
  auto m = run_engine("validate " + shell_quote(bad_model.string()));
  CHECK(m.err.find("needs steps.a.llm.scripted.replies") != std::string::npos);
}

TEST_CASE("an llm step with an output schema answers a value its readers take fields of, or fails checked",
          "[e2e][steps]") {
  test::TempDir dir;
  const std::string head =
      "llm:\n  provider: scripted\n  scripted:\n    replies: [REPLY]\n"
      "steps:\n  triage:\n    kind: llm\n    prompt: 'Triage: charged twice'\n"
      "    output_schema:\n      type: object\n      required: [category, urgent]\n"
      "      properties: {category: {enum: [billing, technical]}, urgent: {type: boolean}}\n"
      "  route: {kind: template, template: '{{ steps.triage.output.category }}/{{ steps.triage.output.urgent }}'}\n";
  auto with_reply = [&](const std::string& name, const std::string& reply) {
    std::string yaml = head;
    yaml.replace(yaml.find("REPLY"), 5, reply);
    return dir.write(name, yaml);
  };
  // in a ``` fence, as models often answer (YAML's double quotes make the \n line ends)
  auto good = with_reply("good.yaml", R"("```json\n{\"category\": \"billing\", \"urgent\": true}\n```")");
  auto r = run_engine("run " + shell_quote(good.string()) + " --json -q");
  REQUIRE(r.exit_code == 0);
  Value doc = Value::parse(r.out);
  CHECK(doc["output"] == "billing/True");
  CHECK(doc["steps"]["triage"]["output"] == Value{{"category", "billing"}, {"urgent", true}});
  auto bad = with_reply("bad.yaml", "'{\"category\": \"shipping\", \"urgent\": true}'");
  auto b = run_engine("run " + shell_quote(bad.string()) + " --json -q");
  CHECK(b.exit_code == 1);
  Value err = Value::parse(b.out)["error"];
  CHECK(err["kind"] == "output.invalid");
  CHECK(err["message"].get<std::string>() ==
        "step 'triage' failed: the answer does not match the output schema: at /category: is not one of the allowed values (enum)");
  auto misplaced = dir.write("m.yaml", "steps:\n  a: {kind: template, template: x, output_schema: {type: object}}\n");
  auto m = run_engine("validate " + shell_quote(misplaced.string()));
  CHECK(m.exit_code == 2);
  CHECK(m.err.find("steps.a.output_schema is for kind: llm (an agent step gives its agent one)") != std::string::npos);
}

// Files that each name the next as ten tools, seven deep: 10^7 tools in all. Each file is loaded and built once,
// and its executor shared by every tool naming it; a file named again deep below stays within the nesting limit.
TEST_CASE("sub-workflows: a file named by many tools is loaded and built once, and the files one load reads are bounded",
          "[e2e][steps]") {
  test::TempDir dir;
  dir.write("w7.yaml", "inputs:\n  q: q\nsteps:\n  say: {kind: template, template: 'leaf {{ inputs.q }}'}\n");
  for (int i = 6; i >= 0; --i) {
    std::string yaml = "inputs:\n  q: q\ntools:\n";
    for (int t = 0; t < 10; ++t) yaml += "  - {workflow: w" + std::to_string(i + 1) + ".yaml, name: t" + std::to_string(t) + "}\n";
    yaml += "steps:\n  use: {kind: tool, tool: t3, input: '{{ inputs.q }}'}\n";
    dir.write("w" + std::to_string(i) + ".yaml", yaml);
  }
  auto r = run_engine("run " + shell_quote((dir.path() / "w0.yaml").string()) + " -q --input hi");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "leaf hi\n");

  // x.yaml is three files deep; named first at depth 1, then again below a chain of six: 1 + 6 + 3 > 8.
  dir.write("x2.yaml", "steps:\n  s: {kind: template, template: x}\n");
  dir.write("x1.yaml", "steps:\n  s: {kind: workflow, workflow: x2.yaml}\n");
  dir.write("x.yaml", "steps:\n  s: {kind: workflow, workflow: x1.yaml}\n");
  dir.write("c6.yaml", "steps:\n  s: {kind: workflow, workflow: x.yaml}\n");
  for (int i = 5; i >= 1; --i)
    dir.write("c" + std::to_string(i) + ".yaml",
              "steps:\n  s: {kind: workflow, workflow: c" + std::to_string(i + 1) + ".yaml}\n");
  dir.write("top.yaml", "steps:\n  a: {kind: workflow, workflow: x.yaml}\n  b: {kind: workflow, workflow: c1.yaml}\n");
  r = run_engine("validate " + shell_quote((dir.path() / "top.yaml").string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("c6.yaml:2:33: steps.s.workflow: workflows nest deeper than 8 files") != std::string::npos);

  std::string wide = "tools:\n";
  for (int i = 0; i < 300; ++i) {
    dir.write("f" + std::to_string(i) + ".yaml", "inputs:\n  q: q\nsteps:\n  s: {kind: template, template: x}\n");
    wide += "  - {workflow: f" + std::to_string(i) + ".yaml, name: f" + std::to_string(i) + "}\n";
  }
  dir.write("wide.yaml", wide + "steps:\n  s: {kind: tool, tool: f0, input: x}\n");
  r = run_engine("validate " + shell_quote((dir.path() / "wide.yaml").string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("wide.yaml:258:16: tools[256].workflow: the workflow and the files it names hold more than 256 "
                   "workflow files") != std::string::npos);
}

TEST_CASE("a for_each that gives no list is a located step.for_each error", "[e2e][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml", "inputs:\n  n: q\nsteps:\n  each:\n    kind: template\n    for_each: \"inputs.n\"\n"
                               "    template: \"{{ item }}\"\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " -q --input n=5");
  CHECK(r.exit_code == 1);
  CHECK(r.err == "engine: error[step.for_each]: " + w.string() +
                     ":6:16: step 'each' failed: steps.each.for_each: for_each gives string, not a list\n"
                     "      for_each: \"inputs.n\"\n"
                     "                 ^\n");
}

// Steps may be written in any order: the answer is the end of the graph, and a skipped one prints no "null".
TEST_CASE("without outputs, the answer is the step nothing reads, and a skipped last step prints nothing",
          "[e2e][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml", "inputs:\n  q: q\nsteps:\n"
                               "  answer: {kind: template, template: 'final: {{ steps.draft.output }}'}\n"
                               "  draft: {kind: template, template: 'draft of {{ inputs.q }}'}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " -q --input x");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "final: draft of x\n");
  auto skipped = dir.write("s.yaml", "inputs:\n  q: q\nsteps:\n  only: {kind: template, template: x, when: 'false'}\n");
  r = run_engine("run " + shell_quote(skipped.string()) + " -q --input x");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "\n");
}

// docs/lua-tools.md's table: an agent's calls share a state for its run; each tool step starts fresh.
TEST_CASE("a Lua tool keeps its state across one agent's calls, and each tool step starts fresh", "[e2e][steps]") {
  test::TempDir dir;
  dir.write("count.lua", "local n = 0\nreturn {name = 'count', description = 'counts its calls',\n"
                         "  run = function(input) n = n + 1 return input .. n end}\n");
  auto steps = dir.write("steps.yaml", "inputs:\n  q: q\ntools:\n  - lua: count.lua\nsteps:\n"
                                       "  a: {kind: tool, tool: count, input: a}\n"
                                       "  b: {kind: tool, tool: count, input: 'b{{ steps.a.output }}'}\n");
  auto r = run_engine("run " + shell_quote(steps.string()) + " -q --input x");
  CHECK(r.out == "ba11\n");  // each step's first call
  auto agent = dir.write("agent.yaml",
                         "inputs:\n  input: q\ntools:\n  - lua: count.lua\nllm:\n  provider: scripted\n  scripted:\n"
                         "    replies: [\"Action: count\\nAction Input: x\", \"Action: count\\nAction Input: y\", "
                         "\"Final Answer: done\"]\nagent: {}\n");
  r = run_engine("run " + shell_quote(agent.string()) + " --json -q --input go");
  REQUIRE(r.exit_code == 0);
  Value doc = Value::parse(r.out);
  CHECK(doc["intermediate_steps"][0]["observation"] == "x1");
  CHECK(doc["intermediate_steps"][1]["observation"] == "y2");  // the same state, its second call
}
