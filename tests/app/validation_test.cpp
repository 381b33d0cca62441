// Validation as a result, not an exception: a workflow that builds says what it declares, one that does not gives
// its first problem with its place, as JSON for editors and CI.
#include <catch2/catch.hpp>

#include "engine/app/validation.h"
#include "engine/spec/workflow_spec.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// "LINE KIND" for each problem found, in order: what a case checks when the messages are checked elsewhere.
std::vector<std::string> located_kinds(const app::Validation& v) {
  std::vector<std::string> found;
  for (const Error& e : v.errors) found.push_back(std::to_string(e.loc().line) + " " + std::string(e.kind_name()));
  return found;
}

}  // namespace

TEST_CASE("validation: a file that builds, one with a located problem, one that is not there", "[app]") {
  test::TempDir dir;
  auto good = dir.write("good.yaml", "steps:\n  a: {kind: template, template: hi}\n");
  app::Validation ok = app::validate_workflow(good.string());
  CHECK(ok.ok());
  CHECK(ok.to_json() == Value{{"file", good.string()}, {"ok", true}, {"tools", 0}, {"inputs", 0}});

  auto bad = dir.write("bad.yaml", "steps:\n  a:\n    kind: template\n    template: |\n      {{ x | uper }}\n");
  app::Validation v = app::validate_workflow(bad.string());
  REQUIRE_FALSE(v.ok());
  Value e = v.to_json()["errors"][0];
  CHECK(e["kind"] == "template.unknown_filter");
  CHECK(e["line"] == 5);  // the template's line in the YAML file
  CHECK(e["column"] == 12);
  CHECK(e["message"].get<std::string>() == "steps.a.template: unknown filter 'uper' (did you mean 'upper'?)");

  app::Validation missing = app::validate_workflow((dir.path() / "nowhere.yaml").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.to_json()["errors"][0]["kind"].get<std::string>() == "io.read_failed");
}

TEST_CASE("validation reports every problem of independent entries, not only the first, up to a limit", "[app]") {
  test::TempDir dir;
  auto three = dir.write("three.yaml",
                         "version: 1\ninputs:\n  input: {}\nllm:\n  provider: scripted\n  temprature: 0\n"
                         "  scripted:\n    replies: ['Final Answer: x']\n"
                         "tools:\n  - builtin: echo\n    on_eror: fail\n"
                         "agent:\n  max_iterations: lots\n  stop: [\"\\nObservation:\"]\n  prompt: |\n"
                         "    Question: {{ input | uper }}\n    {{ agent_scratchpad }}\n");
  app::Validation v = app::validate_workflow(three.string());
  REQUIRE(v.errors.size() == 4);
  Value errors = v.to_json()["errors"];
  CHECK(errors[0]["message"] == "unknown key 'temprature' in llm (did you mean 'temperature'?)");
  CHECK(errors[0]["line"] == 6);
  CHECK(errors[1]["message"] == "unknown key 'on_eror' in tools[0] (did you mean 'on_error'?)");
  CHECK(errors[1]["line"] == 11);
  CHECK(errors[2]["kind"] == "spec.wrong_type");
  CHECK(errors[2]["line"] == 13);
  CHECK(errors[3]["kind"] == "template.unknown_filter");
  CHECK(errors[3]["line"] == 16);  // in the block, as in the file
  CHECK(errors[3]["source_line"] == "    Question: {{ input | uper }}");
  CHECK(app::validate_workflow(three.string(), 2).errors.size() == 2);
}

TEST_CASE("validation reports one problem in each section of the file, each with its place, in one pass", "[app]") {
  test::TempDir dir;
  auto every = dir.write("every.yaml",
                         "version: 1\n"
                         "inputs:\n  question: {type: strng}\n"
                         "outputs:\n  answer: {value: \"{{ output | nofilter }}\"}\n"
                         "llm:\n  provider: scripted\n  scripted: {replies: ['Final Answer: x']}\n  temperature: hot\n"
                         "tools:\n  - builtin: echo\n    on_error: retry\n  - lua: missing.lua\n    name: lookup\n"
                         "agent:\n  tools: [echo, lookup]\n  max_iterations: 0\n"
                         "  prompt: \"Q: {{ question | uper }} {{ agent_scratchpad }}\"\n");
  app::Validation v = app::validate_workflow(every.string());
  std::vector<std::string> found;
  for (const Error& e : v.errors)
    found.push_back(std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + " " + std::string(e.kind_name()) + " " + e.message());
  std::string looked = dir.path().string() + ", " + test::source_path("plugins") + " or " +
                       test::source_path("templates");
  // The agent's tools name `lookup`, left out for its own problem: that is not another one.
  CHECK(found == std::vector<std::string>{
                     "3:20 spec.bad_value inputs.question.type must be one of 'string', 'integer', 'number', "
                     "'boolean', 'array', 'object', got 'strng' (did you mean 'string'?)",
                     "5:30 template.unknown_filter outputs.answer.value: unknown filter 'nofilter'",
                     "9:16 spec.wrong_type llm.temperature must be a number, got 'hot'",
                     "12:15 spec.bad_value tools[0].on_error must be one of 'observation', 'fail', got 'retry'",
                     "13:10 io.not_found tools[1].lua: 'missing.lua' not found in " + looked +
                         "; put the folder that holds it on ENGINE_PATH (folders separated by ':'), or name it by its "
                         "path from the workflow's folder (./lib/missing.lua)",
                     "17:19 spec.out_of_range agent.max_iterations must be between 1 and 10000, got 0",
                     "18:27 template.unknown_filter agent.prompt: unknown filter 'uper' (did you mean 'upper'?)",
                 });
}

TEST_CASE("validation of steps goes on past a step's problem, and what reads a step left out is no problem", "[app]") {
  test::TempDir dir;
  auto steps = dir.write("steps.yaml",
                         "inputs:\n  topic: {}\n"
                         "tools:\n  - lua: nowhere.lua\n    name: fetch\n"
                         "steps:\n"
                         "  a: {kind: templat, template: x}\n"
                         "  b: {kind: template, template: '{{ steps.a.output }} {{ inputs.topc }}'}\n"
                         "  c: {kind: tool, tool: fetch, input: '{{ steps.b.output }}'}\n"
                         "  g: {kind: template, template: '{{ steps.c.output | nofilter }}', retry: {attempts: 99}}\n"
                         "outputs:\n  out: {value: '{{ steps.g.output }} {{ steps.zz.output }}'}\n");
  app::Validation v = app::validate_workflow(steps.string());
  CHECK(located_kinds(v) == std::vector<std::string>{"4 io.not_found", "7 spec.bad_value", "8 spec.bad_reference",
                                          "10 template.unknown_filter", "10 spec.out_of_range",
                                          "12 spec.bad_reference"});
  CHECK(v.errors[2].message() == "steps.b.template reads 'inputs.topc', and the workflow has no input 'topc' (did you mean 'topic'?)");
  // Every step the file names is a step to the others' reads, a step with a problem too; `a` was left out.
  CHECK(v.errors[5].message() == "outputs.out.value reads 'steps.zz.output', and there is no step 'zz' (steps: b, c, g)");
}

TEST_CASE("validation does not report what a problem causes, such as a required key then missing", "[app]") {
  test::TempDir dir;
  // The provider is unknown: that it then has no script is not another problem.
  auto w = dir.write("w.yaml", "inputs:\n  input: {}\nllm:\n  provider: scriptd\nagent: {}\n");
  app::Validation v = app::validate_workflow(w.string());
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0].message() == "unknown llm.provider 'scriptd' (did you mean 'scripted'?)");
  // A syntax error stops the reading: one problem.
  auto emptied = dir.write("e.yaml", "tools:\n  - lua: a.lua\n   limits: {}\n");
  app::Validation e = app::validate_workflow(emptied.string());
  REQUIRE(e.errors.size() == 1);
  CHECK(e.errors[0].kind() == ErrorKind::SpecYamlSyntax);
  // A cycle names every step in it, once.
  auto cycle = dir.write("c.yaml", "steps:\n  a: {kind: template, template: '{{ steps.b.output }}'}\n"
                                   "  b: {kind: template, template: '{{ steps.a.output }}'}\n");
  app::Validation c = app::validate_workflow(cycle.string());
  REQUIRE(c.errors.size() == 1);
  CHECK(c.errors[0].message() == "the steps read each other in a cycle: a -> b -> a");
  // A step with a problem of its own is still a step to those that read it.
  auto read = dir.write("r.yaml", "steps:\n  a: {kind: template, template: '{{ x | nofilter }}'}\n"
                                  "  b: {kind: template, template: '{{ steps.a.output }}'}\n");
  app::Validation r = app::validate_workflow(read.string());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].kind() == ErrorKind::TemplateUnknownFilter);
  // A tool whose name was to come from its script, left out: the names the agent uses are not judged.
  auto unnamed = dir.write("u.yaml", "inputs:\n  input: {}\nllm: {provider: scripted, scripted: {replies: [x]}}\n"
                                     "tools:\n  - lua: gone.lua\nagent: {tools: [search]}\n");
  app::Validation u = app::validate_workflow(unnamed.string());
  REQUIRE(u.errors.size() == 1);
  CHECK(u.errors[0].kind() == ErrorKind::IoNotFound);
  // A parser left out for its problem: the default stands in, and the agent's prompt is still checked.
  auto parser = dir.write("p.yaml", "inputs:\n  input: {}\nllm: {provider: scripted, scripted: {replies: [x]}}\n"
                                    "agent:\n  parser: {kind: regexx}\n  prompt: '{{ input | uper }}'\n");
  app::Validation p = app::validate_workflow(parser.string());
  CHECK(located_kinds(p) == std::vector<std::string>{"5 spec.bad_value", "6 template.unknown_filter"});
  // A section that cannot be read at all: what names its entries, and what the builder would say of a workflow
  // without it, are not problems of the file.
  auto tools = dir.write("t.yaml", "inputs:\n  input: {}\nllm: {provider: scripted, scripted: {replies: [x]}}\n"
                                   "tools:\n  builtin: echo\nagent:\n  tools: [echo]\n");
  app::Validation t = app::validate_workflow(tools.string());
  REQUIRE(t.errors.size() == 1);
  CHECK(t.errors[0].message() == "tools must be a list");
  auto steps = dir.write("s.yaml", "inputs:\n  input: {}\nsteps: [a, b]\noutputs:\n  o: {value: '{{ steps.a.output }}'}\n");
  app::Validation st = app::validate_workflow(steps.string());
  REQUIRE(st.errors.size() == 1);
  CHECK(st.errors[0].message() == "steps must be a mapping of step names");
}

TEST_CASE("a run still stops at the first problem, as validation's one pass finds it", "[spec]") {
  test::TempDir dir;
  auto w = dir.write("w.yaml", "inputs:\n  input: {type: strng}\nllm:\n  provider: scripted\n  temprature: 0\n"
                               "  scripted: {replies: [x]}\nagent: {}\n");
  try {
    spec::load_workflow(w);
    FAIL("loaded");
  } catch (const Error& e) {
    CHECK(e.message() == "inputs.input.type must be one of 'string', 'integer', 'number', 'boolean', 'array', "
                         "'object', got 'strng' (did you mean 'string'?)");
  }
  CHECK(app::validate_workflow(w.string()).errors.size() == 2);
}
