// engine run with --otlp: the run's spans reach a collector on loopback as one tree (the root agent, its model
// calls, its tools, and under each tool the workflow it runs), and a collector that is down costs a warning, never
// the answer.
#include <catch2/catch.hpp>

#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "engine/core/json_parse.h"
#include "support/mock_llm_server.h"
#include "support/otlp_receiver.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;


TEST_CASE("otlp e2e: a run with workflows as tools arrives as one tree of spans", "[e2e][otlp]") {
  test::OtlpReceiver receiver;
  auto r = run_engine("run workflows/research_team.yaml -q --otlp " + receiver.base_url());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(receiver.content_type() == "application/json");
  std::vector<Value> spans = receiver.spans();
  std::map<std::string, const Value*> by_id;
  std::map<std::string, std::vector<const Value*>> by_name;
  for (const Value& span : spans) {
    by_id[span["spanId"]] = &span;
    by_name[span["name"]].push_back(&span);
  }
  REQUIRE(by_name["invoke_workflow research_team"].size() == 1);
  const Value& root = *by_name["invoke_workflow research_team"][0];
  CHECK_FALSE(root.contains("parentSpanId"));
  auto parent_name = [&](const Value& span) -> std::string {
    auto it = by_id.find(span.value("parentSpanId", ""));
    return it == by_id.end() ? "" : it->second->at("name").get<std::string>();
  };
  CHECK(parent_name(*by_name["invoke_agent research_team"].at(0)) == "invoke_workflow research_team");
  // The scripted provider's calls are named for the workflow's model, as a real model's would be (the lead's three
  // under the lead's agent).
  int lead_calls = 0;
  for (const Value* chat : by_name["chat scripted-lead"]) {
    CHECK((*chat)["kind"] == 3);
    if (parent_name(*chat) == "invoke_agent research_team") ++lead_calls;
  }
  CHECK(lead_calls == 3);
  REQUIRE(by_name["execute_tool researcher"].size() == 1);
  CHECK(parent_name(*by_name["execute_tool researcher"][0]) == "invoke_agent research_team");
  REQUIRE(by_name.count("invoke_workflow researcher"));
  CHECK(parent_name(*by_name["invoke_workflow researcher"][0]) == "execute_tool researcher");
  REQUIRE(by_name.count("invoke_workflow writer"));
  CHECK(parent_name(*by_name["invoke_workflow writer"][0]) == "execute_tool writer");
  for (const Value& span : spans) {
    CHECK(span["traceId"] == root["traceId"]);
    if (span.contains("parentSpanId")) CHECK(by_id.count(span["parentSpanId"]) == 1);  // every parent was sent
    CHECK(std::stoull(span["endTimeUnixNano"].get<std::string>()) >=
          std::stoull(span["startTimeUnixNano"].get<std::string>()));
  }
}

TEST_CASE("otlp e2e: a collector that is down leaves the answer alone and is reported", "[e2e][otlp]") {
  auto r = run_engine("run workflows/calculator.yaml -q --input 'What is 12 * 7 + 3?' --otlp http://127.0.0.1:" +
                      std::to_string(test::free_port()));
  CHECK(r.exit_code == 0);
  CHECK(r.out == "87\n");
  CHECK(r.err.find("spans could not be sent to the OpenTelemetry collector") != std::string::npos);
  auto bad = run_engine("run workflows/calculator.yaml -q --input x --otlp collector:4318");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "engine: error[usage]: --otlp must be an http:// or https:// URL, got 'collector:4318'\n");
}

TEST_CASE("otlp e2e: model requests carry their span's traceparent, and content is sent only when asked for",
          "[e2e][otlp]") {
  for (bool content : {false, true}) {
    INFO("content: " << content);
    test::OtlpReceiver receiver;
    test::MockLlmServer server;
    server.enqueue(test::MockLlmServer::chat(" I should use the calculator.\nAction: calculator\nAction Input: 12 * 7 + 3"));
    server.enqueue(test::MockLlmServer::chat(" I now know the final answer.\nFinal Answer: 87"));
    std::string env = "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-otlp-secret-key-0123456789" +
                      (content ? " OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true" : "");
    auto r = run_engine("run workflows/calculator.yaml -q --no-stream --llm openai:test-model --input 'What is 12 * 7 + 3? My key is sk-otlp-secret-key-0123456789'"
                        " --otlp " + receiver.base_url(), "", env);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::vector<test::MockLlmServer::Request> requests = server.requests();
    REQUIRE(requests.size() == 2);
    std::vector<Value> spans = receiver.spans();
    std::vector<const Value*> chats;
    for (const Value& span : spans)
      if (span["name"] == "chat test-model") chats.push_back(&span);
    REQUIRE(chats.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
      // The request named the span of its own call: the provider's tracing joins the run's trace there.
      const Value& chat = *chats[i];
      CHECK(requests[i].traceparent == "00-" + chat["traceId"].get<std::string>() + "-" +
                                           chat["spanId"].get<std::string>() + "-01");
      std::map<std::string, Value> attributes = test::OtlpReceiver::attributes(chat);
      CHECK(attributes["gen_ai.response.model"] == Value{{"stringValue", "test-model-0613"}});
      CHECK(attributes["gen_ai.response.id"] == Value{{"stringValue", "chatcmpl-test"}});
      CHECK(attributes["gen_ai.request.stop_sequences"]["arrayValue"]["values"][0] == Value{{"stringValue", "\nObservation:"}});
      CHECK(attributes.count("gen_ai.input.messages") == (content ? 1u : 0u));
      CHECK(attributes.count("gen_ai.output.messages") == (content ? 1u : 0u));
      if (content) {
        CHECK(attributes["gen_ai.input.messages"]["stringValue"].get<std::string>().find("What is 12 * 7 + 3?") != std::string::npos);
      }
    }
    std::string all;
    for (const Value& span : spans) all += span.dump();
    CHECK((all.find("What is 12 * 7 + 3?") != std::string::npos) == content);
    CHECK(all.find("otlp-secret") == std::string::npos);
  }
}
