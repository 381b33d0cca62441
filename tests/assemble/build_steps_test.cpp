// A workflow of steps is checked whole before any call: references followed along their attribute paths, the
// graph's cycles named with their path, every error at its YAML key with the whole message asserted.
#include <catch2/catch.hpp>

#include "engine/assemble/build_executor.h"
#include "engine/core/error.h"

using namespace engine;

namespace {

const std::string kSteps = "inputs:\n  message: m\nsteps:\n";

std::string steps_error(const std::string& steps, const std::string& rest = "") {
  try {
    assemble::build_executor(spec::parse_workflow(kSteps + steps + rest, "w.yaml", "."));
  } catch (const Error& e) {
    return e.formatted();
  }
  return "no error";
}

}  // namespace

TEST_CASE("steps: a reference to a step that does not exist names the step and the ones there are", "[assemble][steps]") {
  CHECK(steps_error("  classify: {kind: template, template: x}\n"
                    "  reply: {kind: template, template: '{{ steps.clasify.output }}'}\n") ==
        "w.yaml:5:41: steps.reply.template reads 'steps.clasify.output', and there is no step 'clasify' "
        "(did you mean 'classify'?)\n"
        "    reply: {kind: template, template: '{{ steps.clasify.output }}'}\n"
        "                                          ^");
}

TEST_CASE("steps: the path past a step's name is checked, and a step cannot read itself", "[assemble][steps]") {
  CHECK(steps_error("  a: {kind: template, template: x}\n  b: {kind: template, template: '{{ steps.a.outptu }}'}\n") ==
        "w.yaml:5:37: steps.b.template reads 'steps.a.outptu': a step has output and status (did you mean 'output'?)\n"
        "    b: {kind: template, template: '{{ steps.a.outptu }}'}\n"
        "                                      ^");
  CHECK(steps_error("  a: {kind: template, template: '{{ steps.a }}'}\n") ==
        "w.yaml:4:37: steps.a.template reads 'steps.a': a step is read as steps.NAME.output (or steps.NAME.status), "
        "so the graph knows the step\n"
        "    a: {kind: template, template: '{{ steps.a }}'}\n"
        "                                      ^");
  CHECK(steps_error("  a: {kind: template, template: '{{ steps.a.output }}'}\n") ==
        "w.yaml:4:37: steps.a.template reads 'steps.a.output', its own output: a step cannot read itself\n"
        "    a: {kind: template, template: '{{ steps.a.output }}'}\n"
        "                                      ^");
}

TEST_CASE("steps: inputs are read as inputs.NAME or by name, and only declared ones", "[assemble][steps]") {
  CHECK(steps_error("  a: {kind: template, template: '{{ inputs.mesage }}'}\n") ==
        "w.yaml:4:37: steps.a.template reads 'inputs.mesage', and the workflow has no input 'mesage' "
        "(did you mean 'message'?)\n"
        "    a: {kind: template, template: '{{ inputs.mesage }}'}\n"
        "                                      ^");
  CHECK(steps_error("  a: {kind: template, template: '{{ mesage }}'}\n") ==
        "w.yaml:4:33: steps.a.template uses 'mesage', which is not a declared input (did you mean 'message'?)\n"
        "    a: {kind: template, template: '{{ mesage }}'}\n"
        "                                  ^");
  CHECK(steps_error("  a: {kind: template, template: '{{ message }} {{ inputs.message }}'}\n") == "no error");
}

TEST_CASE("steps: a cycle is refused with its path, in the order data flows", "[assemble][steps]") {
  CHECK(steps_error("  draft: {kind: template, template: '{{ steps.revise.output }}'}\n"
                    "  critique: {kind: template, template: '{{ steps.draft.output }}'}\n"
                    "  revise: {kind: template, template: '{{ steps.critique.output }}'}\n") ==
        "w.yaml:4:3: the steps read each other in a cycle: draft -> critique -> revise -> draft\n"
        "    draft: {kind: template, template: '{{ steps.revise.output }}'}\n"
        "    ^");
}

TEST_CASE("steps: when is an expression whose references are checked like the rest", "[assemble][steps]") {
  CHECK(steps_error("  a: {kind: template, template: x}\n"
                    "  b: {kind: template, template: y, when: \"steps.z.output == 'x'\"}\n") ==
        "w.yaml:5:43: steps.b.when reads 'steps.z.output', and there is no step 'z' (did you mean 'a'?)\n"
        "    b: {kind: template, template: y, when: \"steps.z.output == 'x'\"}\n"
        "                                            ^");
  CHECK(steps_error("  a: {kind: template, template: x, when: 'a =='}\n") ==
        "w.yaml:4:47: steps.a.when: expected an expression, got '}}'\n"
        "    a: {kind: template, template: x, when: 'a =='}\n"
        "                                                ^");
}

TEST_CASE("steps: the declared outputs read steps as step templates do", "[assemble][steps]") {
  CHECK(steps_error("  a: {kind: template, template: x}\n", "outputs:\n  answer: {value: '{{ steps.b.output }}'}\n") ==
        "w.yaml:6:23: outputs.answer.value reads 'steps.b.output', and there is no step 'b' (did you mean 'a'?)\n"
        "    answer: {value: '{{ steps.b.output }}'}\n"
        "                        ^");
}

TEST_CASE("steps: an agent step's prompt reads the step's own inputs, which are checked", "[assemble][steps]") {
  std::string llm = "llm:\n  provider: scripted\n  scripted:\n    replies: ['Final Answer: x']\n";
  CHECK(steps_error("  ask:\n    kind: agent\n    inputs: {question: '{{ inputs.message }}'}\n"
                    "    agent: {prompt: '{{ questio }}{{ agent_scratchpad }}'}\n",
                    llm) ==
        "w.yaml:7:21: steps.ask.agent.prompt uses 'questio', which is not a declared input (did you mean 'question'?)\n"
        "      agent: {prompt: '{{ questio }}{{ agent_scratchpad }}'}\n"
        "                      ^");
}

TEST_CASE("steps: only a for_each step's templates read item, and its for_each reads what any template may",
          "[assemble][steps]") {
  CHECK(steps_error("  a: {kind: template, template: '{{ item }}'}\n") ==
        "w.yaml:4:33: steps.a.template uses 'item', which is not a declared input (declared inputs: message)\n"
        "    a: {kind: template, template: '{{ item }}'}\n"
        "                                  ^");
  CHECK(steps_error("  a: {kind: template, for_each: 'inputs.message.split()', template: '{{ item_index }}. {{ item }}'}\n") ==
        "no error");
  CHECK(steps_error("  a: {kind: template, for_each: 'item', template: x}\n") ==
        "w.yaml:4:33: steps.a.for_each uses 'item', which is not a declared input (declared inputs: message)\n"
        "    a: {kind: template, for_each: 'item', template: x}\n"
        "                                  ^");
}

TEST_CASE("steps: a loop's body reads previous.NAME of its own steps, and what it reads outside is the loop's edge",
          "[assemble][steps]") {
  std::string loop = "  refine:\n    kind: loop\n    max_iterations: 2\n    until: 'steps.b.output == 1'\n    steps:\n";
  CHECK(steps_error(loop + "      b: {kind: template, template: '{{ previous.c.output }}'}\n") ==
        "w.yaml:9:41: steps.refine.steps.b.template reads 'previous.c.output': the previous iteration is read as "
        "previous.NAME.output (or .status), NAME a step of the loop (b)\n"
        "        b: {kind: template, template: '{{ previous.c.output }}'}\n"
        "                                          ^");
  // after reads the loop, and the loop's body reads after: a cycle through the loop
  CHECK(steps_error(loop + "      b: {kind: template, template: '{{ steps.after.output }}'}\n"
                           "  after: {kind: template, template: '{{ steps.refine.output.b }}'}\n") ==
        "w.yaml:4:3: the steps read each other in a cycle: refine -> after -> refine\n"
        "    refine:\n"
        "    ^");
  CHECK(steps_error(loop + "      b: {kind: template, template: '{{ previous.b.output }} {{ iteration }} {{ message }}'}\n"
                           "  after: {kind: template, template: '{{ steps.refine.output.b }}'}\n") == "no error");
  CHECK(steps_error("  a: {kind: template, template: '{{ iteration }}'}\n") ==
        "w.yaml:4:33: steps.a.template reads 'iteration', which exists only inside a loop's steps (kind: loop)\n"
        "    a: {kind: template, template: '{{ iteration }}'}\n"
        "                                  ^");
}

// A reference error inside a block template points at the read, on its own line, not at the key.
TEST_CASE("steps: a bad reference in a block template is located at its own line and column", "[assemble][steps]") {
  CHECK(steps_error("  first: {kind: template, template: a}\n"
                    "  second:\n    kind: template\n    template: |\n      Hello {{ inputs.message }}\n"
                    "      and {{ steps.frist.output }}\n") ==
        "w.yaml:9:14: steps.second.template reads 'steps.frist.output', and there is no step 'frist' (did you mean "
        "'first'?)\n"
        "        and {{ steps.frist.output }}\n"
        "               ^");
}

TEST_CASE("steps: previous outside a loop says it exists only inside one", "[assemble][steps]") {
  CHECK(steps_error("  a: {kind: template, template: '{{ previous.a.output }}'}\n") ==
        "w.yaml:4:33: steps.a.template reads 'previous', which exists only inside a loop's steps (kind: loop)\n"
        "    a: {kind: template, template: '{{ previous.a.output }}'}\n"
        "                                  ^");
}
