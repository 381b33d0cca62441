// The --trace file as spans need it: each event stamped when it happened, every model and tool call's start paired
// with its end by an id (a failed call ends too), each for_each item under its own path, and a run that fails after
// its agent answered ends as failed.
#include <catch2/catch.hpp>

#include <map>

#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

// The run's events of `type`, in order.
std::vector<Value> of_type(const std::vector<Value>& events, const std::string& type) {
  std::vector<Value> out;
  for (const auto& e : events)
    if (e["type"] == type) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("trace: model and tool calls pair their start and end by id, on times that nest", "[e2e][trace]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml", "inputs: {input: {}}\ntools:\n  - builtin: echo\n"
                               "llm:\n  provider: scripted\n  scripted:\n    replies:\n"
                               "      - \"Thought: echo it\\nAction: echo\\nAction Input: hi\"\n"
                               "      - \"Thought: done\\nFinal Answer: said hi\"\n"
                               "agent: {}\n");
  auto file = dir.path() / "trace.jsonl";
  auto r = run_engine("run " + shell_quote(w.string()) + " -q --input x --trace " + shell_quote(file.string()));
  REQUIRE(r.exit_code == 0);
  auto events = test::trace_lines(file);
  auto starts = of_type(events, "llm_start"), ends = of_type(events, "llm_end");
  REQUIRE(starts.size() == 2);
  REQUIRE(ends.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(starts[i]["call"] == i);
    CHECK(ends[i]["call"] == i);
    CHECK(ends[i]["t_ms"].get<double>() >= starts[i]["t_ms"].get<double>());
  }
  auto tool_start = of_type(events, "tool_start"), tool_end = of_type(events, "tool_end");
  REQUIRE(tool_start.size() == 1);
  REQUIRE(tool_end.size() == 1);
  CHECK(tool_start[0]["call_id"] == "call_1");
  CHECK(tool_end[0]["call_id"] == "call_1");
  // The tool ran between the two model calls, and the run's chain holds them all.
  CHECK(tool_start[0]["t_ms"].get<double>() >= ends[0]["t_ms"].get<double>());
  CHECK(starts[1]["t_ms"].get<double>() >= tool_end[0]["t_ms"].get<double>());
  double last = 0;
  for (const auto& e : events) {
    CHECK(e["t_ms"].get<double>() >= last);  // one run on one thread: its events in the order they happened
    last = e["t_ms"].get<double>();
  }
}

TEST_CASE("trace: a model call that fails ends with its error, and an output that fails after the answer fails the "
          "chain",
          "[e2e][trace]") {
  test::TempDir dir;
  auto failing = dir.write("failing.yaml", "inputs: {input: {}}\nllm:\n  provider: scripted\n  max_retries: 0\n"
                                           "  scripted: {fail: {status: 500, times: 100}, replies: ['Final Answer: no']}\n"
                                           "agent: {}\n");
  auto file = dir.path() / "failing.jsonl";
  auto r = run_engine("run " + shell_quote(failing.string()) + " -q --input x --trace " + shell_quote(file.string()));
  CHECK(r.exit_code == 1);
  auto events = test::trace_lines(file);
  auto ends = of_type(events, "llm_end");
  REQUIRE(ends.size() == 1);
  CHECK(ends[0]["call"] == 0);
  CHECK(ends[0]["error"]["kind"].get<std::string>() == "llm.unavailable");
  CHECK_FALSE(ends[0].contains("text"));

  // The answer is given, then the declared output cannot be rendered (2 ** 67 does not fit): the chain ends failed.
  auto late = dir.write("late.yaml", "inputs: {input: {}}\nllm:\n  provider: scripted\n  scripted: {replies: ['Final Answer: done']}\n"
                                     "agent: {}\noutputs:\n  big: {value: '{{ 2 ** (63 + output | length) }}'}\n");
  auto late_file = dir.path() / "late.jsonl";
  r = run_engine("run " + shell_quote(late.string()) + " -q --input x --trace " + shell_quote(late_file.string()));
  CHECK(r.exit_code == 1);
  auto late_events = test::trace_lines(late_file);
  REQUIRE_FALSE(of_type(late_events, "agent_finish").empty());
  auto chain_end = of_type(late_events, "chain_end");
  REQUIRE(chain_end.size() == 1);
  CHECK(chain_end[0]["stopped_reason"] == "error");
  CHECK(chain_end[0].contains("error"));
  CHECK(of_type(late_events, "error").size() == 1);
}

TEST_CASE("trace: each item of a for_each runs under its own path", "[e2e][trace][steps]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml", "inputs:\n  cities: {default: [Paris, Lima, Oslo]}\ntools:\n  - builtin: echo\n"
                               "steps:\n  greet: {kind: tool, tool: echo, for_each: inputs.cities, concurrency: 3, "
                               "input: 'Hello, {{ item }}'}\n");
  auto file = dir.path() / "trace.jsonl";
  auto r = run_engine("run " + shell_quote(w.string()) + " -q --trace " + shell_quote(file.string()));
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::vector<std::string>> by_path;
  for (const auto& e : test::trace_lines(file))
    if (e["type"] == "tool_start" || e["type"] == "tool_end") by_path[e["path"]].push_back(e["type"]);
  CHECK(by_path.size() == 3);
  for (const std::string path : {"greet[0]", "greet[1]", "greet[2]"})
    CHECK(by_path[path] == std::vector<std::string>{"tool_start", "tool_end"});
}
