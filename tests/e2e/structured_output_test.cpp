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
  CHECK(failed.err == "engine: error: the run reached max_iterations before an answer that matches the output schema\n");
  CHECK(stubborn.requests().size() == 3);
}
