// The built `engine`, as a user runs it: answers on stdout, steps on stderr, documented exit codes.
#include <catch2/catch.hpp>

#include <algorithm>

#include <fstream>

#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

// Writes `yaml` as a workflow, runs it with --json, and returns the result document (exit code 0 required).
Value run_json(const std::string& yaml) {
  test::TempDir dir;
  auto w = dir.write("w.yaml", yaml);
  auto r = run_engine("run " + shell_quote(w.string()) + " --json -q --input x");
  REQUIRE(r.exit_code == 0);
  return Value::parse(r.out);
}

const char* const kEchoForever =
    "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    latency_ms: LATENCY\n    rules:\n"
    "      - {match: '.', reply: \"Action: echo\\nAction Input: again\"}\n"
    "tools:\n  - builtin: echo\nagent:\n";

std::string echo_forever(int latency_ms, const std::string& agent_keys) {
  std::string yaml = kEchoForever;
  yaml.replace(yaml.find("LATENCY"), 7, std::to_string(latency_ms));
  return yaml + agent_keys;
}

}  // namespace

TEST_CASE("engine run answers the calculator question on stdout alone", "[e2e]") {
  auto r = run_engine("run workflows/calculator.yaml --input " + shell_quote("What is 12 * 7 + 3?"));
  CHECK(r.exit_code == 0);
  CHECK(r.out == "87\n");
  CHECK(r.err.find("> Entering new AgentExecutor chain...") != std::string::npos);
  CHECK(r.err.find("Action: calculator\nAction Input: 12 * 7 + 3\nObservation: 87\n") != std::string::npos);
  CHECK(r.err.find("> Finished chain.") != std::string::npos);
  CHECK(r.err.find("\033[") == std::string::npos);  // NO_COLOR and not a terminal
}

TEST_CASE("any arithmetic question works, and a non-arithmetic one is declined", "[e2e]") {
  CHECK(run_engine("run workflows/calculator.yaml -q --input " + shell_quote("How much is (3 + 4) * 5?")).out == "35\n");
  CHECK(run_engine("run workflows/calculator.yaml -q --input " + shell_quote("calculate 2 ^ 10")).out == "1024\n");
  CHECK(run_engine("run workflows/calculator.yaml -q --input " + shell_quote("What is 7 divided by 2?")).out == "3.5\n");
  CHECK(run_engine("run workflows/calculator.yaml -q").out == "87\n");  // the input's default
  auto r = run_engine("run workflows/calculator.yaml -q --input " + shell_quote("Who won the cup?"));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("I can only answer arithmetic questions") == 0);
}

TEST_CASE("the pirate search and invoice examples run offline", "[e2e]") {
  auto pirate = run_engine("run workflows/pirate_search.yaml -q");
  CHECK(pirate.exit_code == 0);
  CHECK(pirate.out.find("Arrr") == 0);
  CHECK(pirate.out.find("38,781,291") != std::string::npos);
  auto invoice = run_engine("run workflows/invoice.yaml");
  CHECK(invoice.exit_code == 0);
  CHECK(invoice.out == "顧客A、B、Cの請求額の合計は5160円です。\n");
  CHECK(invoice.err.find("行動: GetInvoice[C]\n観察: 560\n思考: ") != std::string::npos);
}

TEST_CASE("run --json prints the result document", "[e2e]") {
  auto r = run_engine("run workflows/calculator.yaml --json -q --input 'What is 2 + 2?'");
  CHECK(r.exit_code == 0);
  Value j = Value::parse(r.out);
  CHECK(j["output"] == "4");
  CHECK(j["outputs"]["answer"] == "4");
  CHECK(j["stopped_reason"] == "finish");
  REQUIRE(j["intermediate_steps"].size() == 1);
  CHECK(j["intermediate_steps"][0]["action"]["tool"] == "calculator");
  CHECK(j["intermediate_steps"][0]["observation"] == "4");
  CHECK(j["usage"]["llm_calls"] == 2);
  // To the microsecond: a scripted run takes well under a millisecond, which whole milliseconds reported as 0.
  CHECK(j["elapsed_ms"].is_number_float());
  CHECK(j["elapsed_ms"].get<double>() > 0);
}

TEST_CASE("run --trace writes every event as JSON lines", "[e2e]") {
  test::TempDir dir;
  auto trace = dir.path() / "t.jsonl";
  auto r = run_engine("run workflows/calculator.yaml -q --trace " + shell_quote(trace.string()));
  CHECK(r.exit_code == 0);
  std::ifstream in(trace);
  std::string line;
  std::vector<std::string> types;
  while (std::getline(in, line)) types.push_back(Value::parse(line)["type"]);
  CHECK(types.front() == "chain_start");
  CHECK(types.back() == "chain_end");
  CHECK(std::count(types.begin(), types.end(), "llm_start") == 2);
}

TEST_CASE("run --input key=value and --inputs FILE", "[e2e]") {
  test::TempDir dir;
  auto f = dir.write("in.json", R"({"input": "What is 9 * 9?"})");
  CHECK(run_engine("run workflows/calculator.yaml -q --inputs " + shell_quote(f.string())).out == "81\n");
  CHECK(run_engine("run workflows/calculator.yaml -q --input 'input=What is 1 + 1?'").out == "2\n");
  auto bad = run_engine("run workflows/calculator.yaml -q --inputs " + shell_quote(dir.write("x.json", "[1]").string()));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("expected a JSON object of inputs") != std::string::npos);
}

TEST_CASE("engine validate checks without calling the LLM", "[e2e]") {
  auto ok = run_engine("validate workflows/invoice.yaml");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == "workflows/invoice.yaml: ok (2 tools, 1 inputs)\n");
  test::TempDir dir;
  auto bad = dir.write("w.yaml", "llm:\n  provider: scripted\n  scripted: {replies: [x]}\nagent:\n  stopp: [x]\n"
                                 "inputs: {input: {}}\n");
  auto r = run_engine("validate " + shell_quote(bad.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[spec.unknown_key]: " + bad.string() +
                     ":5:3: unknown key 'stopp' in agent (did you mean 'stop'?)\n    stopp: [x]\n    ^\n");
}

TEST_CASE("engine validate takes several files, and --json gives each one's result for editors and CI", "[e2e]") {
  test::TempDir dir;
  auto bad = dir.write("w.yaml", "llm:\n  provider: scripted\n  scripted: {replies: [x]}\nagent:\n  stopp: [x]\n"
                                 "inputs: {input: {}}\n");
  auto both = run_engine("validate workflows/invoice.yaml " + shell_quote(bad.string()) + " workflows/calculator.yaml");
  CHECK(both.exit_code == 2);  // one file is wrong: the others are still checked
  CHECK(both.out == "workflows/invoice.yaml: ok (2 tools, 1 inputs)\nworkflows/calculator.yaml: ok (1 tools, 1 inputs)\n");
  CHECK(both.err.find(":5:3: unknown key 'stopp' in agent") != std::string::npos);

  auto json = run_engine("validate --json workflows/invoice.yaml " + shell_quote(bad.string()));
  CHECK(json.exit_code == 2);
  Value doc = Value::parse(json.out);
  CHECK(doc["ok"] == false);
  REQUIRE(doc["files"].size() == 2);
  CHECK(doc["files"][0] == Value{{"file", "workflows/invoice.yaml"}, {"ok", true}, {"tools", 2}, {"inputs", 1}});
  CHECK(doc["files"][1]["ok"] == false);
  CHECK(doc["files"][1]["errors"] ==
        Value::array({{{"kind", "spec.unknown_key"},
                       {"message", "unknown key 'stopp' in agent (did you mean 'stop'?)"},
                       {"file", bad.string()},
                       {"line", 5},
                       {"column", 3},
                       {"source_line", "  stopp: [x]"}}}));
  CHECK(json.err.empty());
  auto good = run_engine("validate --json workflows/calculator.yaml");
  CHECK(good.exit_code == 0);
  CHECK(Value::parse(good.out)["ok"] == true);
}

TEST_CASE("engine validate reports three problems of one file at once, on stderr and in --json", "[e2e]") {
  test::TempDir dir;
  auto bad = dir.write("three.yaml",
                       "llm:\n  provider: scripted\n  temprature: 0\n  scripted: {replies: [x]}\n"
                       "tools:\n  - {builtin: ech}\nagent:\n  stopp: [x]\n  max_iterations: 3\ninputs: {input: {}}\n");
  auto r = run_engine("validate " + shell_quote(bad.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(":3:3: unknown key 'temprature' in llm") != std::string::npos);
  CHECK(r.err.find(":6:") != std::string::npos);
  CHECK(r.err.find(":8:3: unknown key 'stopp' in agent") != std::string::npos);
  auto json = run_engine("validate --json " + shell_quote(bad.string()));
  Value errors = Value::parse(json.out)["files"][0]["errors"];
  REQUIRE(errors.size() == 3);
  CHECK(errors[0]["line"] == 3);
  CHECK(errors[1]["line"] == 6);
  CHECK(errors[2]["line"] == 8);
  CHECK(errors[2]["column"] == 3);
}

TEST_CASE("engine validate takes every shipped file: workflows, their tests and evaluation files, each checked as what it is", "[e2e]") {
  std::string files;
  size_t count = 0;
  for (const char* folder : {"workflows", "workflows/team", "workflows/judges"})
    for (const auto& entry : std::filesystem::directory_iterator(test::source_path(folder)))
      if (entry.path().extension() == ".yaml") {
        files += " " + shell_quote(entry.path().string());
        ++count;
      }
  auto r = run_engine("validate" + files);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n')) == count);
  CHECK(r.out.find("calculator.test.yaml: ok (5 tests)\n") != std::string::npos);
  CHECK(r.out.find("batch_qa.eval.yaml: ok (7 evaluators)\n") != std::string::npos);

  test::TempDir dir;
  dir.write("w.yaml", "llm:\n  provider: scripted\n  scripted: {replies: [x]}\nagent:\n  stopp: [x]\n");
  auto tests = dir.write("w.test.yaml", "tests:\n  a: {expect: {output: x}}\n");
  auto evaluation = dir.write("e.eval.yaml", "evaluators:\n  a: {kind: regex, pattern: '('}\n");
  auto bad = run_engine("validate --json " + shell_quote(tests.string()) + " " + shell_quote(evaluation.string()));
  CHECK(bad.exit_code == 2);
  Value doc = Value::parse(bad.out);
  CHECK(doc["files"][0]["errors"][0]["message"] == "unknown key 'stopp' in agent (did you mean 'stop'?)");  // its workflow
  CHECK(doc["files"][1]["errors"][0]["message"].get<std::string>() ==
        "evaluators.a.pattern: invalid regex: missing closing parenthesis at offset 1");
}

TEST_CASE("engine render prints the first prompt, or one template", "[e2e]") {
  auto r = run_engine("render workflows/calculator.yaml --input 'What is 1 + 2?'");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("calculator: Evaluates an arithmetic expression") != std::string::npos);
  CHECK(r.out.find("Action: the action to take, should be one of [calculator]") != std::string::npos);
  // The prompt ends "Thought:"; the line end after it is the command's, which --json leaves out.
  CHECK(r.out.substr(r.out.size() - 34) == "Question: What is 1 + 2?\nThought:\n");
  auto exact = run_engine("render workflows/calculator.yaml --input 'What is 1 + 2?' --json");
  CHECK(exact.exit_code == 0);
  CHECK(Value::parse(exact.out)["text"] == r.out.substr(0, r.out.size() - 1));

  test::TempDir dir;
  auto t = dir.write("t.j2", "{% for n in names %}{{ n | upper }}{{ ', ' if not loop.last else '' }}{% endfor %}");
  auto v = dir.write("v.json", R"({"names": ["a", "b"]})");
  auto rt = run_engine("render " + shell_quote(t.string()) + " --vars " + shell_quote(v.string()));
  CHECK(rt.exit_code == 0);
  CHECK(rt.out == "A, B\n");
  auto undefined = run_engine("render " + shell_quote(t.string()));
  CHECK(undefined.exit_code == 2);
  CHECK(undefined.err.find(t.string() + ":1:13: undefined variable 'names'") != std::string::npos);
}

TEST_CASE("engine parse prints the parser's verdict", "[e2e]") {
  CHECK(Value::parse(run_engine("parse workflows/calculator.yaml", "Thought: x\nAction: calculator\nAction Input: 1+1").out) ==
        Value{{"type", "action"}, {"tool", "calculator"}, {"tool_input", "1+1"}});
  CHECK(Value::parse(run_engine("parse workflows/calculator.yaml", "Final Answer: 42").out) ==
        Value{{"type", "finish"}, {"output", "42"}});
  auto found = run_engine("parse workflows/calculator.yaml", "Final Answer: 42");
  CHECK(found.exit_code == 0);
  // An error verdict is still printed, and exits 1.
  auto unreadable = run_engine("parse workflows/calculator.yaml", "hmm");
  CHECK(unreadable.exit_code == 1);
  CHECK(Value::parse(unreadable.out)["type"] == "error");
  CHECK(Value::parse(run_engine("parse workflows/invoice.yaml", "思考: x\n行動: GetInvoice[B]").out) ==
        Value{{"type", "action"}, {"tool", "GetInvoice"}, {"tool_input", "B"}});
}

TEST_CASE("engine tools lists and engine tool runs one", "[e2e]") {
  auto list = run_engine("tools workflows/invoice.yaml");
  CHECK(list.out == "GetInvoice (lua): 顧客IDを受け取り、その顧客の請求額（円）を返す\n"
                    "calculator (lua): Evaluates an arithmetic expression such as 12 * 7 + 3 or (2 + 3) ^ 2 and returns "
                    "the number.\n");
  auto listed = run_engine("tools workflows/invoice.yaml --json");
  CHECK(listed.exit_code == 0);
  Value tools = Value::parse(listed.out);
  REQUIRE(tools.size() == 2);
  CHECK(tools[0]["name"] == "GetInvoice");
  CHECK(tools[0]["kind"] == "lua");
  CHECK(tools[0]["description"] == "顧客IDを受け取り、その顧客の請求額（円）を返す");
  CHECK(tools[0]["parameters"].is_null());
  CHECK(tools[1]["name"] == "calculator");
  auto one = run_engine("tool workflows/invoice.yaml GetInvoice --input B");
  CHECK(one.exit_code == 0);
  CHECK(one.out == "3400\n");
  auto failed = run_engine("tool workflows/invoice.yaml GetInvoice --input Z");
  CHECK(failed.exit_code == 1);
  CHECK(failed.err == "engine: error[tool.error]: tool 'GetInvoice' failed: plugins/invoices.lua:10: unknown customer 'Z'\n");
  auto missing = run_engine("tool workflows/invoice.yaml GetInvoce --input B");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no tool named 'GetInvoce' in workflows/invoice.yaml (did you mean 'GetInvoice'?)") !=
        std::string::npos);
}

TEST_CASE("a misbehaving Lua tool becomes an observation and the run goes on", "[e2e]") {
  test::TempDir dir;
  dir.write("loop.lua", "return function() while true do end end");
  auto w = dir.write("w.yaml",
                     "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies:\n"
                     "      - \"Action: loop\\nAction Input: x\"\n      - 'Final Answer: survived'\n"
                     "tools:\n  - lua: loop.lua\n    limits: {timeout_ms: 100}\nagent:\n  kind: react\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " --input go");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "survived\n");
  bool limited = r.err.find("Observation: tool 'loop' failed: instruction limit of 10000000 exceeded") != std::string::npos ||
                 r.err.find("Observation: tool 'loop' failed: time limit of 100 ms exceeded") != std::string::npos;
  CHECK(limited);
}

TEST_CASE("on_error: fail turns a tool failure into a failed run", "[e2e]") {
  test::TempDir dir;
  dir.write("boom.lua", "return function() error('boom') end");
  auto w = dir.write("w.yaml",
                     "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies: [\"Action: boom\\nAction Input: x\"]\n"
                     "tools:\n  - lua: boom.lua\n    on_error: fail\nagent: {}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " -q --input go");
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "engine: error[tool.error]: tool 'boom' failed: " + (dir.path() / "boom.lua").lexically_normal().string() +
                     ":1: boom\n");
}

TEST_CASE("a run that fails exits 1, bad input and usage exit 2", "[e2e]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml",
                     "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies: ['no idea']\nagent: {}\n");
  auto failed = run_engine("run " + shell_quote(w.string()) + " -q --input x");
  CHECK(failed.exit_code == 1);
  CHECK(failed.err ==
        "engine: error[parse.failed]: could not parse LLM output: it matches neither the final-answer nor the action "
        "pattern: 'no idea'\n");
  CHECK(run_engine("run").exit_code == 2);
  CHECK(run_engine("frobnicate").exit_code == 2);
  auto missing = run_engine("run /nonexistent.yaml");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "engine: error[io.read_failed]: /nonexistent.yaml: cannot read '/nonexistent.yaml': No such file or directory\n");
  // a small binary file (the engine's own binary is past the file size limit in a sanitizer build)
  auto bin = dir.write("bin.yaml", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10));
  auto binary = run_engine("validate " + shell_quote(bin.string()));
  CHECK(binary.exit_code == 2);
  CHECK(binary.err.find("not a YAML text file") != std::string::npos);
  auto huge = run_engine("validate " + shell_quote(ENGINE_BIN));
  CHECK(huge.exit_code == 2);
  CHECK((huge.err.find("not a YAML text file") != std::string::npos ||
         huge.err.find("more than the 16 MiB a file may have") != std::string::npos));
}

TEST_CASE("the iteration limit ends the run with LangChain's message", "[e2e]") {
  Value j = run_json(echo_forever(0, "  max_iterations: 3\n"));
  CHECK(j["output"] == "Agent stopped due to iteration limit or time limit.");
  CHECK(j["stopped_reason"] == "max_iterations");
  CHECK(j["intermediate_steps"].size() == 3);
}

TEST_CASE("the time limit ends a slow run with LangChain's message", "[e2e]") {
  Value j = run_json(echo_forever(40, "  max_execution_time: 0.1\n  early_stopping: force\n"));
  CHECK(j["output"] == "Agent stopped due to iteration limit or time limit.");
  CHECK(j["stopped_reason"] == "max_execution_time");
  CHECK(j["intermediate_steps"].size() < 15);
}

TEST_CASE("run --no-color keeps escape codes out, the answer is never coloured", "[e2e]") {
  auto r = run_engine("run workflows/calculator.yaml --no-color");
  CHECK(r.err.find("\033[") == std::string::npos);
  CHECK(r.out == "87\n");
}

TEST_CASE("on a terminal the error's label is red, unless --no-color or NO_COLOR says not to", "[e2e]") {
  // util-linux's script gives the command a terminal; run_command sets NO_COLOR, which the first two undo.
  auto on_tty = [](const std::string& env, const std::string& args) {
    std::string command = std::string(ENGINE_BIN) + " " + args;
    return test::run_command("env " + env + " script -qec " + shell_quote(command) + " /dev/null").out;
  };
  CHECK(on_tty("-u NO_COLOR", "run /nonexistent.yaml").find("engine: \033[1;31merror[io.read_failed]\033[0m: ") !=
        std::string::npos);
  CHECK(on_tty("-u NO_COLOR", "run /nonexistent.yaml --no-color").find("engine: error[io.read_failed]: ") !=
        std::string::npos);
  CHECK(on_tty("-u NO_COLOR", "run /nonexistent.yaml --no-color").find("\033[") == std::string::npos);
  CHECK(on_tty("NO_COLOR=1", "run /nonexistent.yaml").find("\033[") == std::string::npos);
}

TEST_CASE("a chat prompt rendered by the model's chat template runs end to end", "[e2e]") {
  auto r = run_engine("run workflows/chat_template.yaml -q --input 'What is 6 * 7?'");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "42\n");
  auto shown = run_engine("render workflows/chat_template.yaml --input 'What is 1 + 1?'");
  CHECK(shown.out == "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n"
        "\n"
        "Answer the question using these tools:\n"
        "calculator: Evaluates an arithmetic expression such as 12 * 7 + 3 or (2 + 3) ^ 2 and returns the number.\n"
        "\n"
        "Use this format:\n"
        "Question: the question\n"
        "Thought: what to do\n"
        "Action: one of [calculator]\n"
        "Action Input: the input\n"
        "Observation: the result\n"
        "... (repeat as needed)\n"
        "Final Answer: the answer<|eot_id|><|start_header_id|>user<|end_header_id|>\n"
        "\n"
        "Question: What is 1 + 1?\n"
        "Thought:<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n"
        "\n");
  CHECK(shown.out.find("Question: What is 1 + 1?\nThought:<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n") !=
        std::string::npos);
}

TEST_CASE("run --llm points an example workflow at an OpenAI-compatible server", "[e2e][openai]") {
  test::MockLlmServer server;
  server.enqueue(test::MockLlmServer::chat(" I should use the calculator.\nAction: calculator\nAction Input: 12 * 7 + 3"));
  server.enqueue(test::MockLlmServer::chat(" I now know the final answer.\nFinal Answer: 87"));
  auto r = run_engine("run workflows/calculator.yaml --json -q --llm openai:test-model --input 'What is 12 * 7 + 3?'", "",
                      "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key");
  CHECK(r.exit_code == 0);
  Value j = Value::parse(r.out);
  CHECK(j["output"] == "87");
  CHECK(j["intermediate_steps"][0]["observation"] == "87");
  CHECK(j["usage"]["prompt_tokens"] == 22);
  auto sent = server.requests();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].body["model"] == "test-model");
  CHECK(sent[0].body["stop"] == Value::array({"\nObservation:"}));
  CHECK(sent[1].body["messages"][0]["content"].get<std::string>().find("Observation: 87\nThought: ") != std::string::npos);
  CHECK(r.err.find("sk-e2e-secret-key") == std::string::npos);
}

TEST_CASE("run --llm with an unknown provider is a usage error", "[e2e]") {
  auto r = run_engine("run workflows/calculator.yaml --llm opnai:x");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[usage]: --llm takes PROVIDER:MODEL with PROVIDER one of openai, ollama, llamacpp, anthropic, "
                 "replay (did you mean 'openai'?), got 'opnai:x'\n");
  CHECK(run_engine("run workflows/calculator.yaml --llm scripted:x").exit_code == 2);  // --llm is for real models
}

TEST_CASE("run --llm for another provider reads that provider's key variable, never the workflow's", "[e2e]") {
  test::TempDir dir;
  auto w = dir.write("k.yaml", "inputs: {question: q}\nllm: {provider: anthropic, model: claude-x, api_key_env: MY_ANTHROPIC_KEY}\n"
                               "steps:\n  ask: {kind: llm, prompt: '{{ question }}'}\n");
  // Nothing listens at the base URL: the run must stop before any request, for want of OPENAI_API_KEY.
  std::string env = "env -u OPENAI_API_KEY MY_ANTHROPIC_KEY=sk-ant-never-sent-1234567890 MY_OPENAI_KEY= "
                    "OPENAI_BASE_URL=http://127.0.0.1:9/v1";
  auto r = run_engine("run " + shell_quote(w.string()) + " --llm openai:gpt-4o-mini -q --no-store --input q", "", env);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("error[llm.no_api_key]") != std::string::npos);
  CHECK(r.err.find("OPENAI_API_KEY is not set") != std::string::npos);
  CHECK_FALSE(test::holds_piece_of_key(r.err + r.out, "sk-ant-never-sent-1234567890"));
  // The same provider keeps the workflow's variable.
  auto same = dir.write("o.yaml", "inputs: {question: q}\nllm: {provider: openai, model: a, api_key_env: MY_OPENAI_KEY}\n"
                                  "steps:\n  ask: {kind: llm, prompt: '{{ question }}'}\n");
  auto kept = run_engine("run " + shell_quote(same.string()) + " --llm openai:b -q --no-store --input q", "", env);
  CHECK(kept.err.find("MY_OPENAI_KEY is not set") != std::string::npos);
}

TEST_CASE("a failed run shows its steps, then its error once, and no Finished chain", "[e2e]") {
  test::TempDir dir;
  auto w = dir.write("fail.yaml", "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n"
                                  "    replies: [\"Action: echo\\nAction Input: x\"]\ntools:\n  - builtin: echo\n"
                                  "agent:\n  kind: react\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " --input hi");
  CHECK(r.exit_code == 1);
  CHECK(r.err == "\n\n> Entering new AgentExecutor chain...\nAction: echo\nAction Input: x\nObservation: x\nThought: \n"
                 "engine: error[llm.script_exhausted]: the scripted provider has 1 replies, and call 2 asked for one more\n");
}

TEST_CASE("agent.parser as a chain: the ReAct regexes first, then LangChain's JSON blob", "[e2e][parse]") {
  test::TempDir dir;
  auto w = dir.write("chain.yaml", R"yaml(inputs:
  input: q
llm:
  provider: scripted
  scripted:
    replies:
      - "I should echo.\n```json\n{\"action\": \"echo\", \"action_input\": \"ping\"}\n```"
      - "I will just echo hello, no JSON."
      - "Action: echo\nAction Input: pong\nFinal Answer: both"
tools:
  - builtin: echo
agent:
  kind: react
  parser:
    - kind: regex
      both: final_answer
    - kind: json_blob
    - kind: keyword
      rules:
        - match: "echo (?P<word>\\w+)"
          tool: echo
          input: "{{ word | upper }}"
)yaml");
  auto r = run_engine("run " + shell_quote(w.string()) + " --json -q --input hi");
  CHECK(r.exit_code == 0);
  Value j = Value::parse(r.out);
  CHECK(j["output"] == "both");
  CHECK(j["intermediate_steps"][0]["action"]["tool_input"] == "ping");
  CHECK(j["intermediate_steps"][1]["action"]["tool_input"] == "HELLO");

  auto bad = dir.write("bad.yaml", "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies: [x]\n"
                                   "tools:\n  - builtin: echo\nagent:\n  kind: react\n  parser:\n    kind: keyword\n"
                                   "    rules:\n      - {match: x, tool: ecko}\n");
  auto v = run_engine("validate " + shell_quote(bad.string()));
  CHECK(v.exit_code == 2);
  CHECK(v.err.find("bad.yaml:14:26: unknown tool 'ecko' in agent.parser.rules[0].tool (did you mean 'echo'?)") !=
        std::string::npos);
  auto parsed = run_engine("parse " + shell_quote(w.string()), "{\"action\": \"echo\", \"action_input\": {\"a\": 1}}");
  CHECK(Value::parse(parsed.out) == Value{{"type", "action"}, {"tool", "echo"}, {"tool_input", {{"a", 1}}}});
}

TEST_CASE("the pirate example's parser behaves as LangChain's CustomOutputParser: the last final answer wins",
          "[e2e][parse]") {
  auto both = run_engine("parse workflows/pirate_search.yaml",
                         "Action: Search\nAction Input: x\nFinal Answer: Arr, first\nFinal Answer: Arr, the last one");
  CHECK(both.exit_code == 0);
  CHECK(Value::parse(both.out) == Value{{"type", "finish"}, {"output", "Arr, the last one"}});
  auto action = run_engine("parse workflows/pirate_search.yaml", "Action 1: Search\nAction 1 Input: \"canada\"");
  CHECK(Value::parse(action.out) == Value{{"type", "action"}, {"tool", "Search"}, {"tool_input", "canada"}});
}
