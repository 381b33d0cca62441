// Structured answers as a user gets them: the extraction example offline, and against the loopback OpenAI server,
// where the schema goes out as response_format and a reply that breaks it comes back with the violations.
#include <catch2/catch.hpp>

#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::MockLlmServer;
using engine::test::run_engine;

TEST_CASE("the extraction example answers offline with JSON that matches its schema, after one retry",
          "[e2e][structured]") {
  auto r = run_engine("run workflows/extract_contact.yaml --no-stream");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "{\"name\":\"Ada Lovelace\",\"email\":\"ada@analytical.example\",\"company\":\"Analytical Engines Ltd\"}\n");
  CHECK(r.err.find("Parse error: the answer does not match the output schema: at /company: is required; at /email: is "
                   "required") != std::string::npos);
  auto email = run_engine("run workflows/extract_contact.yaml --json -q");
  CHECK(Value::parse(email.out)["outputs"]["email"] == "ada@analytical.example");
}

TEST_CASE("response_format replies from a server are validated, never passed through unchecked",
          "[e2e][structured][openai]") {
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat(R"({"name": "Ada", "email": "not an address", "company": "AE"})"));
  server.enqueue(MockLlmServer::chat(R"({"name": "Ada", "email": "ada@ae.example", "company": "AE"})"));
  const std::string env = "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key";
  auto r = run_engine("run workflows/extract_contact.yaml --json -q --llm openai:test-model --input 'Ada, AE'", "", env);
  CHECK(r.exit_code == 0);
  CHECK(Value::parse(r.out)["output"] == Value{{"name", "Ada"}, {"email", "ada@ae.example"}, {"company", "AE"}});
  auto sent = server.requests();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].body["response_format"]["type"] == "json_schema");
  CHECK(sent[0].body["response_format"]["json_schema"]["schema"]["required"] == Value::array({"name", "email", "company"}));
  CHECK(sent[1].body["messages"].back()["content"] ==
        "Answer again with JSON that matches the response format: the answer does not match the output schema: at "
        "/email: does not match the pattern '^[^@\\s]+@[^@\\s]+$'");

  // A model that never gets it right: the run fails, bounded, and prints no answer.
  MockLlmServer stubborn;
  for (int i = 0; i < 3; ++i) stubborn.enqueue(MockLlmServer::chat(R"({"name": "Ada"})"));
  auto failed = run_engine("run workflows/extract_contact.yaml -q --llm openai:test-model --input 'Ada'", "",
                           "OPENAI_BASE_URL=" + stubborn.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key");
  CHECK(failed.exit_code == 1);
  CHECK(failed.out.empty());
  CHECK(failed.err == "engine: error[output.missing]: the run reached max_iterations before an answer that matches the output schema\n");
  CHECK(stubborn.requests().size() == 3);
}

namespace {

MockLlmServer::Reply openai_calls(const std::vector<std::pair<std::string, std::string>>& calls) {
  Value list = Value::array();
  int n = 0;
  for (const auto& [name, arguments] : calls)
    list.push_back({{"id", "call_" + std::to_string(++n)}, {"type", "function"},
                    {"function", {{"name", name}, {"arguments", arguments}}}});
  Value body{{"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", list}}},
                           {"finish_reason", "tool_calls"}}}},
             {"usage", {{"prompt_tokens", 50}, {"completion_tokens", 10}}}};
  return {200, body.dump()};
}

}  // namespace

TEST_CASE("the function-calling example: typed tools and a structured answer, offline", "[e2e][structured]") {
  auto r = run_engine("run workflows/function_calling.yaml --no-stream");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "{\"answer\":40,\"tools_used\":[\"add\",\"multiply\"]}\n");
  auto other = run_engine("run workflows/function_calling.yaml --json -q --input 'What is (20 + 1) * 2?'");
  Value j = Value::parse(other.out);
  CHECK(j["outputs"]["answer"] == "42");
  CHECK(j["intermediate_steps"][0]["action"]["tool_input"] == Value{{"x", 20}, {"y", 1}});
  CHECK(j["intermediate_steps"][1]["observation"] == 42);
  auto listed = run_engine("tools workflows/function_calling.yaml");
  CHECK(listed.out == "add (lua): Adds two numbers: x + y.\nmultiply (lua): Multiplies two numbers: x * y.\n"
                      "exponentiate (lua): Raises x to the power of y: x ^ y.\n");
}

TEST_CASE("the function-calling example against OpenAI: number parameters, tool_choice required, a bad call fixed",
          "[e2e][structured][openai]") {
  MockLlmServer server;
  server.enqueue(openai_calls({{"exponentiate", R"({"x": "2", "y": 10})"}}));
  server.enqueue(openai_calls({{"exponentiate", R"({"x": 2, "y": 10})"}}));
  server.enqueue(openai_calls({{"final_answer", R"({"answer": 1024, "tools_used": ["exponentiate"]})"}}));
  auto r = run_engine("run workflows/function_calling.yaml --json -q --llm openai:test-model --input '2^10?'", "",
                      "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key");
  REQUIRE(r.exit_code == 0);
  Value j = Value::parse(r.out);
  CHECK(j["output"] == Value{{"answer", 1024}, {"tools_used", {"exponentiate"}}});
  CHECK(j["intermediate_steps"][0]["observation"] ==
        "tool 'exponentiate' was not run: its arguments do not match its parameters: at /x: has a type the schema "
        "does not allow (a string)");
  CHECK(j["intermediate_steps"][1]["observation"] == 1024);
  auto sent = server.requests();
  REQUIRE(sent.size() == 3);
  const Value& tools = sent[0].body["tools"];
  REQUIRE(tools.size() == 4);
  CHECK(tools[0]["function"]["name"] == "add");
  CHECK(tools[0]["function"]["parameters"]["properties"]["x"]["type"] == "number");
  CHECK(tools[3]["function"]["name"] == "final_answer");
  CHECK(tools[3]["function"]["parameters"]["required"] == Value::array({"answer", "tools_used"}));
  CHECK(sent[0].body["tool_choice"] == "required");
  CHECK(sent[2].body["tool_choice"] == "required");
}

TEST_CASE("the function-calling example against Anthropic: input schemas and tool_choice any",
          "[e2e][structured][anthropic]") {
  MockLlmServer server;
  auto tool_use = [](const std::string& id, const std::string& name, const Value& input) {
    Value body{{"type", "message"}, {"role", "assistant"},
               {"content", {{{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", input}}}},
               {"stop_reason", "tool_use"}, {"usage", {{"input_tokens", 50}, {"output_tokens", 10}}}};
    return MockLlmServer::Reply{200, body.dump()};
  };
  server.enqueue(tool_use("toolu_1", "add", {{"x", 1}, {"y", 2}}));
  server.enqueue(tool_use("toolu_2", "final_answer", {{"answer", 3}, {"tools_used", {"add"}}}));
  auto r = run_engine("run workflows/function_calling.yaml --json -q --llm anthropic:test-model --input '1+2?'", "",
                      "ANTHROPIC_BASE_URL=" + server.base_url() + " ANTHROPIC_API_KEY=sk-e2e-secret-key");
  REQUIRE(r.exit_code == 0);
  CHECK(Value::parse(r.out)["output"] == Value{{"answer", 3}, {"tools_used", {"add"}}});
  auto sent = server.requests();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].body["tools"][1]["name"] == "multiply");
  CHECK(sent[0].body["tools"][1]["input_schema"]["required"] == Value::array({"x", "y"}));
  CHECK(sent[0].body["tool_choice"] == Value{{"type", "any"}});
}
