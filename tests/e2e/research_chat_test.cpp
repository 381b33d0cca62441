// The JSON-blob chat example (workflows/research_chat.yaml) against the loopback servers: every parser of its chain
// gets its turn (a fenced blob with object arguments, the keyword fallback, a bare blob, prose read by the Lua
// parser), and a blob too broken for any of them goes back to the model.
#include <catch2/catch.hpp>

#include <fstream>

#include "engine/core/file.h"

#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::MockLlmServer;
using engine::test::run_engine;

namespace {

const std::string kResearch = "run workflows/research_chat.yaml --json -q --input 'Who won the 2024 chemistry Nobel?'";

std::string openai_env(const MockLlmServer& server) {
  return "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key";
}

}  // namespace

TEST_CASE("research_chat against OpenAI: JSON blob, keyword fallback, bare blob, then prose as the answer",
          "[e2e][parse][openai]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat(
      "Papers first.\n```json\n{\"action\": \"papers\", \"action_input\": {\"query\": \"protein structure\", "
      "\"max_results\": 1}}\n```"));
  server.enqueue(MockLlmServer::chat("I will look alphafold up in the encyclopedia."));
  server.enqueue(MockLlmServer::chat("{\"action\": \"web_search\", \"action_input\": \"nobel chemistry 2024 protein\"}"));
  server.enqueue(MockLlmServer::chat("  David Baker, Demis Hassabis and John Jumper shared it.  "));
  auto r = run_engine(kResearch + " --llm openai:test-model", "", openai_env(server));
  REQUIRE(r.exit_code == 0);
  Value j = Value::parse(r.out);
  CHECK(j["output"] == "David Baker, Demis Hassabis and John Jumper shared it.");
  const Value& steps = j["intermediate_steps"];
  REQUIRE(steps.size() == 3);
  CHECK(steps[0]["action"]["tool_input"] == Value{{"query", "protein structure"}, {"max_results", 1}});
  CHECK(steps[0]["observation"][0]["title"] == "Highly accurate protein structure prediction with AlphaFold");
  CHECK(steps[0]["observation"].size() == 1);
  CHECK(steps[1]["action"]["tool"] == "encyclopedia");
  CHECK(steps[1]["action"]["tool_input"] == "alphafold");
  CHECK(steps[2]["observation"].get<std::string>().find("David Baker") != std::string::npos);
  auto sent = server.requests();
  REQUIRE(sent.size() == 4);
  CHECK(sent[0].body["stop"] == Value::array({"\nObservation:"}));
  CHECK(sent[0].body["messages"][0]["role"] == "system");
  CHECK(sent[0].body["messages"][0]["content"].get<std::string>().find("papers: finds research papers") !=
        std::string::npos);
  std::string last = sent[3].body["messages"][1]["content"];
  CHECK(last.find("Observation: [{\"authors\":\"Jumper, Evans, Pritzel et al.\"") != std::string::npos);
  CHECK(last.find("I will look alphafold up in the encyclopedia.\nObservation: AlphaFold is DeepMind's") !=
        std::string::npos);
}

TEST_CASE("research_chat against Anthropic: a broken blob goes back to the model, which then answers in JSON",
          "[e2e][parse][anthropic]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::message("```json\n{\"action\": \"papers\", \"action_input\": {\"query\": \n```"));
  server.enqueue(MockLlmServer::message("```json\n{\"action\": \"Final Answer\", \"action_input\": \"Baker, Hassabis "
                                        "and Jumper\"}\n```"));
  auto r = run_engine(kResearch + " --llm anthropic:claude-test", "",
                      "ANTHROPIC_BASE_URL=" + server.base_url() + " ANTHROPIC_API_KEY=sk-ant-e2e-secret");
  REQUIRE(r.exit_code == 0);
  Value j = Value::parse(r.out);
  CHECK(j["output"] == "Baker, Hassabis and Jumper");
  REQUIRE(j["intermediate_steps"].size() == 1);
  const Value& retry = j["intermediate_steps"][0];
  CHECK(retry["action"]["tool"] == "_Exception");
  std::string feedback = retry["observation"];
  // Each parser of the chain says why it could not read the text, in order.
  CHECK(feedback.find("JSON") != std::string::npos);
  CHECK(feedback.find("no keyword rule matches") != std::string::npos);
  CHECK(feedback.find("the parser workflows/plain_answer.lua") == std::string::npos);
  CHECK(feedback.find("the parser plugins/parsers/plain_answer.lua found no step") != std::string::npos);
  auto sent = server.requests();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].body["stop_sequences"] == Value::array({"\nObservation:"}));
  CHECK(sent[1].body["messages"][0]["content"].get<std::string>().find(feedback) != std::string::npos);
}

TEST_CASE("research_chat's chain through engine parse: each fallback in turn", "[e2e][parse]") {
  auto parse = [](const std::string& text) {
    auto r = run_engine("parse workflows/research_chat.yaml", text);
    Value verdict = Value::parse(r.out);
    CHECK(r.exit_code == (verdict["type"] == "error" ? 1 : 0));
    return verdict;
  };
  CHECK(parse("{\"action\": \"papers\", \"action_input\": {\"query\": \"bert\"}}")["tool_input"] ==
        Value{{"query", "bert"}});
  CHECK(parse("Final Answer: 42\n```json\n{\"action\": ")["output"] == "42");
  CHECK(parse("Let me search the web for nobel 2020.")["tool_input"] == "nobel 2020");
  CHECK(parse("Just an answer.") == Value{{"type", "finish"}, {"output", "Just an answer."}});
  Value broken = parse("{\"action\": oops}");
  CHECK(broken["type"] == "error");
  CHECK(broken["message"].get<std::string>().find("plain_answer.lua found no step") != std::string::npos);
}

TEST_CASE("a Lua parser's syntax error is located in its script, and a runaway one is a bounded parse failure",
          "[e2e][parse][hostile]") {
  test::TempDir dir;
  dir.write("parsers/broken.lua", "return function(text)\n  return {output = text\nend\n");
  dir.write("parsers/spin.lua", "return function(text) while true do end end\n");
  std::string head = "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies: ['hello']\n"
                     "agent:\n  kind: react\n  parser:\n    kind: lua\n";
  auto broken = dir.write("broken.yaml", head + "    script: parsers/broken.lua\n");
  auto v = run_engine("validate " + test::shell_quote(broken.string()));
  CHECK(v.exit_code == 2);
  CHECK(v.err.find("parsers/broken.lua:3: lua syntax error: '}' expected (to close '{' at line 2) near 'end'") !=
        std::string::npos);
  auto spin = dir.write("spin.yaml", head + "    script: parsers/spin.lua\n    limits: {instructions: 100000}\n");
  auto r = run_engine("run " + test::shell_quote(spin.string()) + " -q --input x");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("the parser") != std::string::npos);
  CHECK(r.err.find("spin.lua failed") != std::string::npos);
  CHECK(r.err.find("instruction") != std::string::npos);
}

// plugins/parsers/langchain_react_errors.lua at the end of a ReAct chain: the model reads LangChain's own retry
// words, and the script's engine.log lines reach the trace and the console.
TEST_CASE("a Lua parser ending a chain sends LangChain's retry words and logs to the trace and console",
          "[e2e][parse][lua]") {
  test::TempDir dir;
  dir.write("parsers/langchain_react_errors.lua", read_file("plugins/parsers/langchain_react_errors.lua"));
  auto w = dir.write("w.yaml",
                     "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies:\n"
                     "      - 'Thought: let me think'\n      - \"Thought: add them\\nAction: calculator\"\n"
                     "      - 'Final Answer: 4'\n"
                     "agent:\n  kind: react\n  on_parse_error: retry\n  prompt: \"{{ input }}\\n{{ agent_scratchpad }}\"\n  parser:\n"
                     "    - kind: regex\n    - kind: lua\n      script: parsers/langchain_react_errors.lua\n");
  auto trace = dir.path() / "t.jsonl";
  auto r = run_engine("run " + test::shell_quote(w.string()) + " --json -q --input 'two and two' --trace " +
                      test::shell_quote(trace.string()));
  REQUIRE(r.exit_code == 0);
  Value doc = Value::parse(r.out);
  CHECK(doc["output"] == "4");
  REQUIRE(doc["intermediate_steps"].size() == 2);
  CHECK(doc["intermediate_steps"][0]["observation"] == "Invalid Format: Missing 'Action:' after 'Thought:'");
  CHECK(doc["intermediate_steps"][1]["observation"] == "Invalid Format: Missing 'Action Input:' after 'Action:'");
  std::vector<Value> logs, prompts;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    Value e = Value::parse(line);
    if (e["type"] == "parser_log") logs.push_back(e);
    if (e["type"] == "llm_start") prompts.push_back(e);
  }
  REQUIRE(logs.size() == 2);
  CHECK(logs[0]["parser"] == (dir.path() / "parsers/langchain_react_errors.lua").string());
  CHECK(logs[0]["message"] == "no step after 1 parser(s): could not parse LLM output: it matches neither the "
                              "final-answer nor the action pattern: 'Thought: let me think'");
  REQUIRE(prompts.size() == 3);
  CHECK(prompts[2]["prompt"].get<std::string>().find("Thought: let me think\nObservation: Invalid Format: Missing 'Action:' after "
                               "'Thought:'\nThought: Thought: add them") != std::string::npos);

  auto shown = run_engine("run " + test::shell_quote(w.string()) + " --no-color --input 'two and two'");
  CHECK(shown.exit_code == 0);
  CHECK(shown.err.find("langchain_react_errors.lua] no step after 1 parser(s)") != std::string::npos);

  auto parsed = run_engine("parse " + test::shell_quote(w.string()), "Thought: hm\nAction: calculator");
  CHECK(parsed.exit_code == 1);
  CHECK(Value::parse(parsed.out) ==
        Value{{"type", "error"}, {"message", "Invalid Format: Missing 'Action Input:' after 'Action:'"}});
  CHECK(parsed.err.find("langchain_react_errors.lua] no step after 1 parser(s): could not parse") != std::string::npos);
}
