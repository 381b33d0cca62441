// An executor's MCP tools: started at the build, given to the agent as typed tools, and listed again for the next
// run when the server says they changed (a run already going keeps the list it started with).
#include <catch2/catch.hpp>

#include "engine/assemble/build_executor.h"
#include "engine/core/error.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// A model that calls the tool its question names (grow, or extra), then answers.
const std::string kRules =
    "rules:\n      - {match: 'Observation: (?:grown|extra)', reply: 'Final Answer: done'}\n"
    "      - {match: 'Question: extra', reply: \"Action: extra\\nAction Input: {}\"}\n"
    "      - {match: '.*', reply: \"Action: grow\\nAction Input: {}\"}";

std::string fake_server_workflow(const std::string& agent = "agent: {}\n") {
  return "inputs: {input: {}}\nllm:\n  provider: scripted\n  scripted:\n    " + kRules + "\n" + agent +
         "tools:\n  - mcp:\n      command: node\n      args: [" + test::source_path("tests/tools/mcp/fake_server.mjs") +
         ", good]\n";
}

}  // namespace

TEST_CASE("mcp tools: a server that says its tools changed is listed again for the next run", "[assemble][mcp]") {
  auto executor = assemble::build_executor(spec::parse_workflow(fake_server_workflow(), "w.yaml", "."));
  Value grow = executor->resolve_inputs(Value{{"input", "grow"}});
  Value extra = executor->resolve_inputs(Value{{"input", "extra"}});
  CHECK(executor->render_first_prompt(grow).find("extra: A tool that came later") == std::string::npos);

  // The first run calls grow, which adds a tool and says so; the run itself goes on with the tools it had.
  test::EventLog first;
  auto r1 = executor->run(grow, first);
  REQUIRE(r1.ok());
  REQUIRE(r1.intermediate_steps.size() == 1);
  CHECK(r1.intermediate_steps[0].observation == "grown");

  // The next run sees the new tool in its prompt, and may call it.
  CHECK(executor->render_first_prompt(extra).find("extra: A tool that came later") != std::string::npos);
  test::EventLog second;
  auto r2 = executor->run(extra, second);
  REQUIRE(r2.ok());
  REQUIRE(r2.intermediate_steps.size() == 1);
  CHECK(r2.intermediate_steps[0].observation == "extra!");
}

TEST_CASE("mcp tools: the agent's own tools list keeps a changed server's new tools out", "[assemble][mcp]") {
  auto executor = assemble::build_executor(
      spec::parse_workflow(fake_server_workflow("agent: {tools: [grow, add]}\n"), "w.yaml", "."));
  test::EventLog log;
  REQUIRE(executor->run(executor->resolve_inputs(Value{{"input", "grow"}}), log).ok());
  Value extra = executor->resolve_inputs(Value{{"input", "extra"}});
  CHECK(executor->render_first_prompt(extra).find("extra: A tool that came later") == std::string::npos);
  auto r2 = executor->run(extra, log);
  REQUIRE(r2.intermediate_steps.size() == 1);
  CHECK(r2.intermediate_steps[0].observation == "extra is not a valid tool, try one of [add, grow].");
}
