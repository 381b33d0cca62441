// engine run with --otlp: the run's spans reach a collector on loopback as one tree (the root agent, its model
// calls, its tools, and under each tool the workflow it runs), and a collector that is down costs a warning, never
// the answer.
#include <catch2/catch.hpp>
#include <httplib.h>

#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "engine/core/json_parse.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

// A loopback OTLP/HTTP receiver keeping the spans it is sent.
struct SpanReceiver {
  httplib::Server server;
  std::mutex mutex;
  std::vector<Value> spans;
  std::string content_type;
  int port = 0;
  std::thread thread;

  SpanReceiver() {
    server.Post("/v1/traces", [this](const httplib::Request& req, httplib::Response& res) {
      Value body = parse_json(req.body);
      std::lock_guard lock(mutex);
      content_type = req.get_header_value("Content-Type");
      for (const Value& resource : body["resourceSpans"])
        for (const Value& scope : resource["scopeSpans"])
          for (const Value& span : scope["spans"]) spans.push_back(span);
      res.set_content("{}", "application/json");
    });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
  }
  ~SpanReceiver() {
    server.stop();
    thread.join();
  }
};

}  // namespace

TEST_CASE("otlp e2e: a run with workflows as tools arrives as one tree of spans", "[e2e][otlp]") {
  SpanReceiver receiver;
  auto r = run_engine("run workflows/research_team.yaml -q --otlp http://127.0.0.1:" + std::to_string(receiver.port));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::lock_guard lock(receiver.mutex);
  CHECK(receiver.content_type == "application/json");
  std::map<std::string, const Value*> by_id;
  std::map<std::string, std::vector<const Value*>> by_name;
  for (const Value& span : receiver.spans) {
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
  // The scripted provider names no model: its calls are "chat" spans (the lead's three under the lead's agent).
  int lead_calls = 0;
  for (const Value* chat : by_name["chat"]) {
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
  for (const Value& span : receiver.spans) {
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
