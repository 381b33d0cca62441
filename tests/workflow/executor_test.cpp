// The runtime executor: inputs resolved against the declared ones, runs that keep nothing in the executor, outputs.
#include <catch2/catch.hpp>

#include "engine/assemble/build_executor.h"
#include "engine/core/error.h"
#include "support/test_support.h"

using namespace engine;

namespace {

std::shared_ptr<const workflow::Executor> executor_of(const std::string& yaml) {
  return assemble::build_executor(spec::parse_workflow(yaml, "w.yaml", "."));
}

}  // namespace

TEST_CASE("inputs: defaults apply, unknown and missing ones are errors", "[workflow]") {
  auto exec = executor_of(
      "inputs:\n  question: q\n  tone:\n    default: calm\nllm:\n  provider: scripted\n  scripted:\n"
      "    replies: ['Final Answer: x']\nagent:\n  prompt: '{{ question }} {{ tone }}'\n");
  CHECK(exec->resolve_inputs({{"question", "why"}}) == Value{{"question", "why"}, {"tone", "calm"}});
  auto error = [&](const Value& v) {
    try {
      exec->resolve_inputs(v);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error(Value::object()) == "missing input 'question' (q)");
  CHECK(error({{"question", "x"}, {"tonee", "y"}}) == "unknown input 'tonee' (did you mean 'tone'?)");
}


TEST_CASE("inputs: a declared type checks what is given and reads a text as it", "[workflow][types]") {
  auto exec = executor_of(
      "inputs:\n  count:\n    type: integer\n  tags:\n    type: array\n    default: []\n  note: any value\n"
      "llm:\n  provider: scripted\n  scripted:\n    replies: ['Final Answer: x']\nagent:\n"
      "  prompt: '{{ count + 1 }} {{ tags | length }} {{ note }}'\n");
  // The command line, a CSV row and a step give text: read as JSON of the type.
  CHECK(exec->resolve_inputs({{"count", "41"}, {"tags", "[\"a\", \"b\"]"}, {"note", "5"}}) ==
        Value{{"count", 41}, {"tags", Value::array({"a", "b"})}, {"note", "5"}});
  CHECK(exec->resolve_inputs({{"count", 7}, {"note", Value::array({1})}}) ==
        Value{{"count", 7}, {"tags", Value::array()}, {"note", Value::array({1})}});
  auto error = [&](const Value& v) {
    try {
      exec->resolve_inputs(v);
    } catch (const Error& e) {
      return std::string(e.kind_name()) + ": " + e.what();
    }
    return std::string("no error");
  };
  CHECK(error({{"count", "ten"}, {"note", ""}}) == "input.wrong_type: input 'count' must be an integer, got a string: 'ten'");
  CHECK(error({{"count", 2.5}, {"note", ""}}) == "input.wrong_type: input 'count' must be an integer, got a number: 2.5");
  CHECK(error({{"count", 1}, {"tags", {{"a", 1}}}, {"note", ""}}) ==
        "input.wrong_type: input 'tags' must be an array, got an object: {\"a\":1}");
}

TEST_CASE("memory: a run sees the session's history through its memory, and the executor keeps none of it",
          "[workflow][memory]") {
  auto executor = executor_of(
      "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    rules:\n"
      "      - {match: '(?s).*', reply: \"Final Answer: {{ groups[0] | length }}\"}\n"
      "agent:\n  prompt: \"{{ history_text }}|{{ history | length }}|{{ input }}\"\n  memory: {kind: window, k: 2}\n");
  std::vector<agent::Exchange> history = {{"one", "1"}, {"two", "2"}, {"three", "3"}};
  CHECK(executor->render_first_prompt(executor->resolve_inputs({{"input", "four"}})) == "|0|four");
  test::EventLog log;
  auto r = executor->run(executor->resolve_inputs({{"input", "four"}}), log, agent::RunOptions{.history = history});
  REQUIRE(r.ok());
  REQUIRE(log.events[1].type == "llm_start");
  CHECK(log.events[1].data["prompt"] == "Human: two\nAI: 2\nHuman: three\nAI: 3|4|four");
  auto again = executor->run(executor->resolve_inputs({{"input", "four"}}), log);
  CHECK(again.output != r.output);  // no history given, none seen: nothing stayed behind in the executor
}

TEST_CASE("outputs read the run's output and steps over its inputs, by name and as inputs", "[workflow]") {
  auto executor = executor_of(
      "inputs:\n  input: q\n  output: a declared input that the run's own output hides\nllm:\n  provider: scripted\n"
      "  scripted:\n    replies: [\"Action: echo\\nAction Input: hi\", 'Final Answer: done']\ntools:\n  - builtin: echo\n"
      "agent:\n  prompt: '{{ input }} {{ output }}{{ agent_scratchpad }}'\n"
      "outputs:\n  summary: {value: '{{ output }}/{{ inputs.output }}/{{ input }}/{{ intermediate_steps | length }}/"
      "{{ stopped_reason }}'}\n");
  NullSink sink;
  auto r = executor->run(executor->resolve_inputs({{"input", "q1"}, {"output", "o1"}}), sink);
  REQUIRE(r.ok());
  CHECK(r.outputs == Value{{"summary", "done/o1/q1/1/finish"}});
}

TEST_CASE("a replayed recording serves each run from its start, whatever ran before it", "[workflow][replay]") {
  test::TempDir dir;
  std::string recording;
  for (const char* answer : {"no", "no", "yes"})
    recording += std::string(R"({"request": {"messages": [{"role": "user", "content": "Again?"}]}, "response": {"text": ")") +
                 answer + "\"}}\n";
  dir.write("calls.jsonl", recording);
  auto exec = assemble::build_executor(spec::parse_workflow(
      "llm:\n  provider: replay\n  recording: calls.jsonl\nsteps:\n  ask_again:\n    kind: loop\n    max_iterations: 3\n"
      "    until: \"steps.ask.output == 'yes'\"\n    steps:\n      ask: {kind: llm, prompt: 'Again?'}\n",
      "w.yaml", dir.path()));
  NullSink sink;
  for (int run = 1; run <= 2; ++run) {
    INFO("run " << run);
    auto r = exec->run(exec->resolve_inputs(Value::object()), sink);
    REQUIRE(r.ok());
    CHECK(r.steps["ask_again"]["iterations"] == 3);  // no, no, yes: the second run too, not "yes" at once
    CHECK(r.steps["ask_again"]["until_met"] == true);
  }
}

// Every model call a run makes is counted when it ends: an attempt whose answer was refused and tried again, and a
// step that then failed, spent what they spent.
TEST_CASE("usage counts the model calls of a failed attempt and of a failed step", "[workflow][usage]") {
  auto exec = executor_of(
      "llm:\n  provider: scripted\n  model: m\n  prices: {m: {prompt: 1000000, completion: 0}}\n"
      "  scripted: {replies: ['not json', 'not json', 'not json']}\n"
      "steps:\n"
      "  ask:\n    kind: llm\n    prompt: 'give n'\n    output_schema: {type: object, required: [n]}\n"
      "    retry: {attempts: 3, backoff: 0}\n    on_error: continue\n"
      "  after: {kind: template, template: 'went on: {{ steps.ask.status }}'}\n");
  NullSink quiet;
  agent::RunResult r = exec->run(exec->resolve_inputs(Value::object()), quiet);
  CHECK(r.ok());
  CHECK(r.output == "went on: failed");
  CHECK(r.llm_calls == 3);  // three attempts of a step that failed: each call was made, and paid for
  REQUIRE(r.cost_usd);
  CHECK(r.usage.prompt_tokens > 0);
  CHECK(*r.cost_usd == Approx(static_cast<double>(r.usage.prompt_tokens)));
}

// A sub-workflow used as a tool spends for the agent that called it: its calls are in the agent's usage, and the
// agent's max_cost binds on them.
TEST_CASE("usage and max_cost count the model calls of a sub-workflow used as a tool", "[workflow][usage]") {
  test::TempDir dir;
  dir.write("expensive.yaml",
            "inputs:\n  topic: t\nllm:\n  provider: scripted\n  model: big\n  prices: {big: {prompt: 1000000, completion: 0}}\n"
            "  scripted: {replies: ['a long study']}\n"
            "steps:\n  study: {kind: llm, prompt: 'study {{ inputs.topic }} at length'}\n");
  auto w = dir.write("w.yaml",
                     "inputs:\n  input: q\ntools:\n  - {workflow: expensive.yaml, name: study}\n"
                     "llm:\n  provider: scripted\n  model: small\n  prices: {small: {prompt: 0, completion: 0}}\n"
                     "  scripted:\n    replies: [\"Thought: study it\\nAction: study\\nAction Input: cats\", "
                     "\"Thought: again\\nAction: study\\nAction Input: dogs\", \"Final Answer: done\"]\n"
                     "agent: {max_cost: 1}\n");
  auto exec = assemble::build_executor(spec::load_workflow(w, {}));
  NullSink quiet;
  agent::RunResult r = exec->run(exec->resolve_inputs(Value{{"input", "go"}}), quiet);
  // The study's prompt costs a dollar a token: after the first study the budget is spent, and the agent stops
  // before its next call.
  CHECK(r.stopped_reason == StoppedReason::MaxCost);
  CHECK(r.intermediate_steps.size() == 1);
  CHECK(r.llm_calls == 2);  // the agent's first call, and the study's
  REQUIRE(r.cost_usd);
  CHECK(*r.cost_usd >= 1);
}

// Retries, tested offline: the scripted provider fails the first calls of each run as a 503 would.
TEST_CASE("scripted.fail answers the first calls of each run with a server's failure, so a retried step recovers",
          "[workflow][usage]") {
  auto exec = executor_of(
      "llm:\n  provider: scripted\n  scripted: {replies: ['ok'], fail: {status: 503, times: 2}}\n"
      "steps:\n  ask: {kind: llm, prompt: 'say ok', retry: {attempts: 3, backoff: 0}}\n");
  NullSink quiet;
  for (int run = 0; run < 2; ++run) {  // each run starts its count again
    agent::RunResult r = exec->run(exec->resolve_inputs(Value::object()), quiet);
    CHECK(r.ok());
    CHECK(r.output == "ok");
  }
  auto hopeless = executor_of("llm:\n  provider: scripted\n  scripted: {replies: ['ok'], fail: {status: 401, times: 5}}\n"
                              "steps:\n  ask: {kind: llm, prompt: 'say ok', retry: {attempts: 2, backoff: 0}}\n");
  agent::RunResult r = hopeless->run(hopeless->resolve_inputs(Value::object()), quiet);
  REQUIRE(r.error);
  CHECK(r.error->kind == ErrorKind::LlmHttpError);
  CHECK(r.error->message == "step 'ask' failed: scripted: the server answered 401 (scripted failure 2 of 5)");
}

// A workflow's model calls take the scripted replies in the order they come, across its steps (as a test's replies
// do): not each step the first reply.
TEST_CASE("scripted replies answer a workflow's calls in order across its steps", "[workflow]") {
  auto exec = executor_of(
      "llm:\n  provider: scripted\n  scripted: {replies: ['first answer', 'second answer']}\n"
      "steps:\n  one: {kind: llm, prompt: 'one'}\n"
      "  two: {kind: llm, prompt: 'two after {{ steps.one.output }}'}\n"
      "  both: {kind: template, template: '{{ steps.one.output }} / {{ steps.two.output }}'}\n");
  NullSink quiet;
  for (int run = 0; run < 2; ++run) {  // each run takes them from the first again
    agent::RunResult r = exec->run(exec->resolve_inputs(Value::object()), quiet);
    CHECK(r.ok());
    CHECK(r.output == "first answer / second answer");
  }
}
