// Every malformed workflow ends in one clear, located error. The whole text is asserted so it never degrades.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "engine/core/error.h"
#include "engine/spec/workflow_spec.h"
#include "support/test_support.h"

using namespace engine;

namespace {

const std::string kLlm = "llm:\n  provider: scripted\n  scripted:\n    replies: ['Final Answer: x']\n";

std::string workflow_error(const std::string& yaml) {
  try {
    spec::parse_workflow(yaml, "w.yaml", ".");
  } catch (const Error& e) {
    return e.formatted();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a minimal workflow loads with LangChain's defaults", "[spec]") {
  auto w = spec::parse_workflow("inputs:\n  input: the question\n" + kLlm + "agent:\n  kind: react\n", "w.yaml", ".");
  CHECK(w.agent.max_iterations == 15);
  CHECK(w.agent.stop == std::vector<std::string>{"\nObservation:"});
  CHECK(w.agent.early_stopping.value == "force");
  CHECK(w.inputs.size() == 1);
  CHECK_FALSE(w.inputs[0].default_value);
}

TEST_CASE("an input's declared type is one of JSON's, and its default is of it", "[spec][types]") {
  const std::string agent = "agent:\n  prompt: '{{ n }}'\n";
  CHECK(workflow_error("inputs:\n  n:\n    type: int\n" + kLlm + agent) ==
        "w.yaml:3:11: inputs.n.type must be one of 'string', 'integer', 'number', 'boolean', 'array', 'object', got "
        "'int'\n      type: int\n            ^");
  CHECK(workflow_error("inputs:\n  n:\n    type: integer\n    default: many\n" + kLlm + agent) ==
        "w.yaml:4:14: inputs.n.default must be an integer (the input's type), got a string\n"
        "      default: many\n               ^");
  CHECK(workflow_error("inputs:\n  n:\n    type: number\n    required: false\n" + kLlm + agent) ==
        "w.yaml:4:15: inputs.n: an optional input of type number needs a default of that type (without one it would "
        "be \"\")\n      required: false\n                ^");
  CHECK(workflow_error("inputs:\n  n:\n    type: number\n    default: 3\n  s:\n    type: string\n    required: false\n" +
                       kLlm + agent) == "no error");
}

TEST_CASE("malformed YAML names the line and column", "[spec]") {
  std::string e = workflow_error("name: x\n  bad indent: [\n");
  CHECK(e ==
        "w.yaml:2:3: invalid YAML: this line is indented 2 spaces, which lines up with no key above it (they are at 0); keys of one mapping line up, and a key ending its line with ':' opens a deeper one\n"
        "    bad indent: [\n"
        "    ^");
  CHECK(e.find("invalid YAML") != std::string::npos);
}

TEST_CASE("a tab used to indent is named, at the tab, on its own line", "[spec]") {
  // yaml-cpp alone says "illegal map value", at the value's colon.
  CHECK(workflow_error("inputs:\n  input: q\nllm:\n\tprovider: scripted\n") ==
        "w.yaml:4:1: invalid YAML: a tab indents this line; YAML indents with spaces only\n  \tprovider: scripted\n  ^");
  CHECK(workflow_error(kLlm + "agent:\n  kind: react\n  \tstop: [x]\n") ==
        "w.yaml:7:3: invalid YAML: a tab indents this line; YAML indents with spaces only\n    \tstop: [x]\n    ^");
  // A tab inside a value is text like any other.
  CHECK(workflow_error("inputs:\n  input: 'a\tb'\n" + kLlm + "agent:\n  kind: react\n") == "no error");
}

TEST_CASE("a line indented to no level above it is named, on its own line, with the levels there are", "[spec]") {
  std::string levels = "; keys of one mapping line up, and a key ending its line with ':' opens a deeper one\n";
  // One space too many: yaml-cpp says "illegal map value", at the colon.
  CHECK(workflow_error("llm:\n  provider: scripted\n   model: x\nagent: {}\n") ==
        "w.yaml:3:4: invalid YAML: this line is indented 3 spaces, which lines up with no key above it (they are at "
        "2 or 0)" + levels + "     model: x\n     ^");
  // One too few: yaml-cpp says "end of map not found".
  CHECK(workflow_error("llm:\n  provider: scripted\n model: x\nagent: {}\n") ==
        "w.yaml:3:2: invalid YAML: this line is indented 1 space, which lines up with no key above it (they are at "
        "2 or 0)" + levels + "   model: x\n   ^");
  // A list item's keys line up after its '- '.
  CHECK(workflow_error("tools:\n  - lua: a.lua\n   limits: {}\n") ==
        "w.yaml:3:4: invalid YAML: this line is indented 3 spaces, which lines up with no key above it (they are at "
        "4, 2 or 0)" + levels + "     limits: {}\n     ^");
  // A block of text is not structure: its lines may sit at any depth under their key.
  CHECK(workflow_error("agent:\n  prompt: |\n    Question:\n        deeper\n  kind: react\n   stop: x\n") ==
        "w.yaml:6:4: invalid YAML: this line is indented 3 spaces, which lines up with no key above it (they are at "
        "2 or 0)" + levels + "     stop: x\n     ^");
  // Deeper after a key that opens a mapping, a plain value continued on the next lines: both fine.
  CHECK(workflow_error(kLlm + "description: a long\n    text on two lines\nagent:\n      kind: react\n") ==
        "no error");
}

TEST_CASE("a second ': ' in a plain value asks for quotes", "[spec]") {
  CHECK(workflow_error("description: ratio: 3\n" + kLlm + "agent: {}\n") ==
        "w.yaml:1:19: invalid YAML: a second ': ' on this line; a value holding ': ' must be quoted (\"...\" or "
        "'...')\n  description: ratio: 3\n                    ^");
}

TEST_CASE("a key one level too deep or too shallow, or in the mapping beside, says where it belongs", "[spec]") {
  CHECK(workflow_error("model: x\n" + kLlm + "agent: {}\n") ==
        "w.yaml:1:1: unknown key 'model' in the workflow (did you mean to indent it under llm?)\n  model: x\n  ^");
  CHECK(workflow_error("llm:\n  provider: scripted\n  scripted: {replies: [a], temperature: 0}\nagent: {}\n") ==
        "w.yaml:3:28: unknown key 'temperature' in llm.scripted (did you mean to outdent it? it is a key of llm)\n"
        "    scripted: {replies: [a], temperature: 0}\n                             ^");
  CHECK(workflow_error(kLlm + "steps:\n  a:\n    kind: agent\n    agent: {when: x}\n") ==
        "w.yaml:8:13: unknown key 'when' in steps.a.agent (did you mean to outdent it? it is a key of steps.a)\n"
        "      agent: {when: x}\n              ^");
  CHECK(workflow_error(kLlm + "  max_iterations: 3\nagent: {}\n") ==
        "w.yaml:5:3: unknown key 'max_iterations' in llm (it is a key of agent)\n    max_iterations: 3\n    ^");
}

TEST_CASE("an unknown key suggests the close one", "[spec]") {
  CHECK(workflow_error(kLlm + "agent:\n  stopp: ['x']\n") ==
        "w.yaml:6:3: unknown key 'stopp' in agent (did you mean 'stop'?)\n    stopp: ['x']\n    ^");
  CHECK(workflow_error("nmae: x\n" + kLlm + "agent: {}\n") ==
        "w.yaml:1:1: unknown key 'nmae' in the workflow (did you mean 'name'?)\n  nmae: x\n  ^");
}

TEST_CASE("a wrong type names the key path and what was found", "[spec]") {
  CHECK(workflow_error(kLlm + "agent:\n  max_iterations: ten\n") ==
        "w.yaml:6:19: agent.max_iterations must be an integer, got 'ten'\n    max_iterations: ten\n                    ^");
  CHECK(workflow_error(kLlm + "agent:\n  parser: [a, b]\n") ==
        "w.yaml:6:12: agent.parser[0] must be a mapping, got 'a'\n    parser: [a, b]\n             ^");
  CHECK(workflow_error(kLlm + "agent:\n  parser: {kind: json_blob, final_answer: x}\n") ==
        "w.yaml:6:29: unknown key 'final_answer' in agent.parser\n"
        "    parser: {kind: json_blob, final_answer: x}\n"
        "                              ^");
  CHECK(workflow_error(kLlm + "agent:\n  max_iterations: 0\n") ==
            "w.yaml:6:19: agent.max_iterations must be between 1 and 10000, got 0\n"
            "    max_iterations: 0\n"
            "                    ^");
  CHECK(workflow_error(kLlm + "agent:\n  early_stopping: generat\n") ==
            "w.yaml:6:19: agent.early_stopping must be one of 'force', 'generate', got 'generat' (did you mean "
            "'generate'?)\n"
            "    early_stopping: generat\n"
            "                    ^");
}

TEST_CASE("a missing required key is named at its parent", "[spec]") {
  CHECK(workflow_error(kLlm) == "w.yaml:1:1: missing required key 'agent' in the workflow\n  llm:\n  ^");
  CHECK(workflow_error("llm:\n  provider: scripted\nagent: {}\n") ==
            "w.yaml:2:3: the scripted provider needs llm.scripted.replies or llm.scripted.rules\n"
            "    provider: scripted\n"
            "    ^");
}

TEST_CASE("a duplicate key is an error, not a silent override", "[spec]") {
  CHECK(workflow_error(kLlm + "agent:\n  max_iterations: 1\n  max_iterations: 2\n") ==
            "w.yaml:7:3: duplicate key 'max_iterations' in agent\n"
            "    max_iterations: 2\n"
            "    ^");
}

TEST_CASE("references to undeclared tools are errors", "[spec]") {
  std::string tools = "tools:\n  - builtin: echo\n";
  CHECK(workflow_error(kLlm + tools + "agent:\n  tools: [ecko]\n") ==
        "w.yaml:8:11: unknown tool 'ecko' in agent.tools (did you mean 'echo'?)\n    tools: [ecko]\n            ^");
  CHECK(workflow_error(kLlm + tools + "agent:\n  return_direct: search\n") ==
            "w.yaml:8:18: unknown tool 'search' in agent.return_direct\n"
            "    return_direct: search\n"
            "                   ^");
}

TEST_CASE("HTTP provider keys are read and checked", "[spec]") {
  CHECK(workflow_error("llm:\n  provider: replay\nagent: {}\n") ==
            "w.yaml:2:3: the replay provider needs llm.recording: FILE (a file written by --record)\n"
            "    provider: replay\n"
            "    ^");
  CHECK(workflow_error("llm:\n  provider: openai\n  endpoint: completion\nagent: {}\n") ==
            "w.yaml:3:13: llm.endpoint must be one of 'chat', 'completions', got 'completion' (did you mean "
            "'completions'?)\n"
            "    endpoint: completion\n"
            "              ^");
  CHECK(workflow_error("llm:\n  provider: openai\n  response_format: json\nagent: {}\n") ==
            "w.yaml:3:20: llm.response_format must be one of 'text', 'json_object', got 'json'\n"
            "    response_format: json\n"
            "                     ^");
  CHECK(workflow_error("llm:\n  provider: openai\n  response_format: {json_schema: {}}\nagent: {}\n") ==
            "w.yaml:3:20: llm.response_format needs a type (json_object, json_schema or text)\n"
            "    response_format: {json_schema: {}}\n"
            "                     ^");
  CHECK(workflow_error("llm:\n  provider: openai\n  prices: {gpt-x: {prompt: 1}}\nagent: {}\n") ==
            "w.yaml:3:19: missing required key 'completion' in llm.prices.gpt-x\n"
            "    prices: {gpt-x: {prompt: 1}}\n"
            "                    ^");
  CHECK(workflow_error("llm:\n  provider: openai\n  prices: {gpt-x: {prompt: 1, completion: 2, cached: 3}}\nagent: {}\n") ==
            "w.yaml:3:46: unknown key 'cached' in llm.prices.gpt-x\n"
            "    prices: {gpt-x: {prompt: 1, completion: 2, cached: 3}}\n"
            "                                               ^");
  auto a = spec::parse_workflow(
      "llm:\n  provider: anthropic\n  model: claude\n  seed: 3\n  response_format: json_object\n"
      "  tool_choice: required\n  parallel_tool_calls: false\n  read_timeout: 5\n"
      "  prices: {claude: {prompt: 0.8, completion: 4}}\nagent: {max_tokens_total: 900, max_cost: 0.01}\n",
      "w.yaml", ".");
  CHECK(a.llm.provider.value == "anthropic");
  auto nulls = spec::parse_workflow("llm:\n  provider: openai\n  extra: {stream_options: null, seed: ~}\nagent: {}\n",
                                    "w.yaml", ".");
  CHECK(nulls.llm.extra == Value{{"stream_options", nullptr}, {"seed", nullptr}});
  CHECK(a.llm.seed == 3);
  CHECK(a.llm.response_format == Value{{"type", "json_object"}});
  CHECK(a.llm.tool_choice.value == "required");
  CHECK(a.llm.parallel_tool_calls == false);
  CHECK(a.llm.read_timeout_s == 5);
  REQUIRE(a.llm.prices.size() == 1);
  CHECK(a.llm.prices[0].second.completion == 4);
  CHECK(a.agent.max_tokens_total == 900);
  CHECK(a.agent.max_cost == 0.01);
  CHECK(workflow_error("llm:\n  provider: scriptd\nagent: {}\n") ==
            "w.yaml:2:13: unknown llm.provider 'scriptd' (did you mean 'scripted'?)\n"
            "    provider: scriptd\n"
            "              ^");
  auto w = spec::parse_workflow("llm:\n  provider: ollama\n  model: llama3.2\n  max_retries: 5\n  timeout: 30\n"
                                "  extra: {seed: 7}\nagent: {}\n",
                                "w.yaml", ".");
  CHECK(w.llm.max_retries == 5);
  CHECK(w.llm.extra == Value{{"seed", 7}});
  CHECK(workflow_error("llm:\n  provider: ollama\n  extra: [1]\nagent: {}\n") ==
        "w.yaml:3:10: llm.extra must be a mapping of request keys\n"
        "    extra: [1]\n"
        "           ^");
}

TEST_CASE("a binary file is refused before parsing", "[spec]") {
  CHECK(workflow_error(std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10)) ==
        "w.yaml:1:8: not a YAML text file: NUL byte (is it a binary file?)");
  CHECK(workflow_error("name: caf\xe9\n") == "w.yaml:1:10: not a YAML text file: invalid UTF-8 byte 0xe9 (is it a binary file?)");
}

TEST_CASE("deeply nested YAML is refused", "[spec]") {
  std::string deep = "name: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  CHECK(workflow_error(deep) ==
            "w.yaml:1:200007: YAML nested too deeply (yaml-cpp stops at 500 levels)\n"
            "  ...]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n"
            "                                                                                                    "
            "                                                                 ^");
}

TEST_CASE("an alias bomb and a self-referencing alias are refused", "[spec]") {
  std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  std::string prev = "a";
  for (char c : std::string("bcdefghi")) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) bomb += (i ? ", *" : "*") + prev;
    bomb += "]\n";
    prev = std::string(1, c);
  }
  // The anchors sit under an input's default, where any YAML value is allowed.
  std::string nested = "inputs:\n  x:\n    default:\n";
  std::istringstream lines(bomb);
  std::string line;
  while (std::getline(lines, line)) nested += "      " + line + "\n";
  CHECK(workflow_error(nested + kLlm + "agent: {}\n") ==
            "w.yaml:4:19: inputs.x.default.f[0][3][3][7][2][1] expands to more than 100000 values (an alias "
            "bomb?)\n"
            "        a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
            "                    ^");
  CHECK(workflow_error("inputs:\n  x:\n    default: &a [1, *a]\n" + kLlm + "agent: {}\n") ==
            "w.yaml:3:18: inputs.x.default[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][0] is nested deeper than 64 levels (a self-referencing alias?)\n"
            "      default: &a [1, *a]\n"
            "                   ^");
}

TEST_CASE("environment variables are interpolated, with defaults", "[spec]") {
  setenv("ENGINE_TEST_MODEL", "m-1", 1);
  unsetenv("ENGINE_TEST_UNSET");
  auto w = spec::parse_workflow(
      "name: ${ENGINE_TEST_UNSET:-fallback}\nllm:\n  provider: scripted\n  model: ${ENGINE_TEST_MODEL}\n"
      "  scripted:\n    replies: ['$${LITERAL}']\nagent: {}\n",
      "w.yaml", ".");
  CHECK(w.name == "fallback");
  CHECK(w.llm.model == "m-1");
  CHECK(w.llm.replies[0].text.value == "${LITERAL}");
  auto raw = spec::parse_workflow(kLlm + "agent:\n  prompt: 'cost: ${PRICE}'\n  parser: {final_answer: 'A\\$\\{x}(.*)'}\n",
                                  "w.yaml", ".");
  CHECK(raw.agent.prompt.text == "cost: ${PRICE}");  // templates and regexes are taken as written
  CHECK(raw.agent.parsers[0].final_answer.value == "A\\$\\{x}(.*)");
  CHECK(workflow_error("name: ${ENGINE_TEST_UNSET}\n" + kLlm + "agent: {}\n") ==
        "w.yaml:1:7: environment variable 'ENGINE_TEST_UNSET' is not set (use ${ENGINE_TEST_UNSET:-default}) in "
        "name\n  name: ${ENGINE_TEST_UNSET}\n        ^");
}

TEST_CASE("a missing template file is named with its key and where it was looked for", "[spec]") {
  std::string here = std::filesystem::current_path().string();
  CHECK(workflow_error(kLlm + "agent:\n  prompt: {file: ./nope.j2}\n") ==
        "w.yaml:6:18: agent.prompt.file: './nope.j2' not found in " + here + "\n    prompt: {file: ./nope.j2}\n"
        "                   ^");
}

TEST_CASE("an empty file and a missing file are clear errors", "[spec]") {
  CHECK(workflow_error("") == "w.yaml: the workflow file is empty");
  try {
    spec::load_workflow("/nonexistent/w.yaml");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "/nonexistent/w.yaml: cannot read '/nonexistent/w.yaml': No such file or directory");
  }
}

TEST_CASE("a workflow names files only in its folder and the search path", "[spec]") {
  namespace fs = std::filesystem;
  std::string here = fs::canonical(".").string(), up = fs::canonical("..").string();
  CHECK(workflow_error(kLlm + "tools:\n  - lua: ../x.lua\nagent: {}\n") ==
        "w.yaml:6:10: tools[0].lua: '../x.lua' resolves to '" + up + "/x.lua', outside the folders a workflow may "
        "read (" + here + ")\n    - lua: ../x.lua\n           ^");
  std::string environ = workflow_error(kLlm + "tools:\n  - lua: /proc/self/environ\nagent: {}\n");
  CHECK(environ == "w.yaml:6:10: tools[0].lua: '/proc/self/environ' resolves to '/proc/" + std::to_string(::getpid()) +
                   "/environ', a system folder no workflow may read\n    - lua: /proc/self/environ\n           ^");
  CHECK(environ.find("', a system folder no workflow may read\n") != std::string::npos);
  CHECK(workflow_error(kLlm + "agent:\n  prompt: {file: /etc/hostname}\n") ==
            "w.yaml:6:18: agent.prompt.file: '/etc/hostname' resolves to '/etc/hostname', outside the folders a "
            "workflow may read (" + std::filesystem::current_path().string() + ")\n"
            "    prompt: {file: /etc/hostname}\n"
            "                   ^");
  CHECK(workflow_error("llm:\n  provider: replay\n  recording: /dev/stdin\nagent: {}\n") ==
            "w.yaml:3:14: llm.recording: '/dev/stdin' resolves to '/dev/null', a system folder no workflow may "
            "read\n"
            "    recording: /dev/stdin\n"
            "               ^");
}

TEST_CASE("a Lua parser names its script, inside the workflow's reach, and its limits", "[spec][parse]") {
  test::TempDir dir;
  auto script = dir.write("plugins/p.lua", "return {read = function(text) return nil end}\n");
  auto w = spec::parse_workflow(kLlm + "agent:\n  parser:\n    - kind: json_blob\n    - kind: lua\n"
                                       "      script: plugins/p.lua\n      function: read\n"
                                       "      limits: {instructions: 5000, timeout_ms: 50}\n",
                                "w.yaml", dir.path());
  REQUIRE(w.agent.parsers.size() == 2);
  const auto& lua = w.agent.parsers[1];
  CHECK(lua.kind.value == "lua");
  CHECK(lua.path == "agent.parser[1]");
  CHECK(lua.script_file == std::filesystem::canonical(script));
  CHECK(lua.function == "read");
  CHECK(lua.limits.instructions == 5000);
  CHECK(lua.limits.timeout_ms == 50);
  CHECK(lua.limits.memory_mb == 32);
  CHECK(workflow_error(kLlm + "agent:\n  parser: {kind: lua}\n") ==
        "w.yaml:6:11: missing required key 'script' in agent.parser\n    parser: {kind: lua}\n            ^");
  CHECK(workflow_error(kLlm + "agent:\n  parser: {kind: lua, script: p.lua, action: x}\n") ==
            "w.yaml:6:38: unknown key 'action' in agent.parser\n"
            "    parser: {kind: lua, script: p.lua, action: x}\n"
            "                                       ^");
  CHECK(workflow_error(kLlm + "agent:\n  parser: {kind: lua, script: /etc/passwd}\n") ==
            "w.yaml:6:31: agent.parser.script: '/etc/passwd' resolves to '/etc/passwd', outside the folders a "
            "workflow may read (" + std::filesystem::current_path().string() + ")\n"
            "    parser: {kind: lua, script: /etc/passwd}\n"
            "                                ^");
  CHECK(workflow_error(kLlm + "agent:\n  parser: {kind: lua, script: plugins/calculator.lua, limits: {memory_mb: 0}}\n") ==
            "w.yaml:6:75: agent.parser.limits.memory_mb must be between 1 and 4096, got 0\n"
            "    parser: {kind: lua, script: plugins/calculator.lua, limits: {memory_mb: 0}}\n"
            "                                                                            ^");
}

TEST_CASE("the search path widens what a workflow may name", "[spec]") {
  namespace fs = std::filesystem;
  std::string yaml = kLlm + "tools:\n  - lua: ../plugins/calculator.lua\nagent: {}\n";
  auto w = spec::parse_workflow(yaml, "w.yaml", "workflows", {{"plugins"}});
  CHECK(w.tools[0].lua_file == fs::canonical("plugins/calculator.lua"));
  CHECK_THROWS_WITH(spec::parse_workflow(yaml, "w.yaml", "workflows"),
                    Catch::Contains("outside the folders a workflow may read"));
}

TEST_CASE("a bare file name is looked for beside the workflow, then on the search path in order", "[spec]") {
  namespace fs = std::filesystem;
  test::TempDir dir;
  dir.write("flow/beside.lua", "return function() end\n");
  dir.write("first/tool.lua", "return function() end\n");
  dir.write("first/beside.lua", "return function() end\n");
  dir.write("second/tool.lua", "return function() end\n");
  dir.write("second/only.lua", "return function() end\n");
  dir.write("second/prompts/react.j2", "{{ input }}");
  fs::path root = fs::canonical(dir.path());
  std::vector<fs::path> search = {root / "first", root / "second"};
  auto load = [&](const std::string& tools, const std::string& agent = "{}") {
    return spec::parse_workflow(kLlm + "tools:\n" + tools + "agent: " + agent + "\n", "w.yaml", root / "flow",
                                {search});
  };
  auto w = load("  - lua: beside.lua\n  - lua: tool.lua\n  - lua: only.lua\n",
                "{prompt: {file: prompts/react.j2}}");
  CHECK(w.tools[0].lua_file == root / "flow/beside.lua");  // the workflow's own folder first
  CHECK(w.tools[1].lua_file == root / "first/tool.lua");   // then the search path, in its order
  CHECK(w.tools[2].lua_file == root / "second/only.lua");
  CHECK(w.agent.prompt.text == "{{ input }}");
  auto error = [&](const std::string& tools) {
    try {
      load(tools);
    } catch (const Error& e) {
      return e.formatted();
    }
    return std::string("no error");
  };
  CHECK(error("  - lua: missing.lua\n") ==
        "w.yaml:6:10: tools[0].lua: 'missing.lua' not found in " + (root / "flow").string() + ", " +
            (root / "first").string() + " or " + (root / "second").string() +
            "; put the folder that holds it on ENGINE_PATH (folders separated by ':'), or name it by its path from the workflow's folder (./lib/missing.lua)" "\n    - lua: missing.lua\n           ^");
  // A name that says where it is (./, ../) is looked for there alone.
  CHECK(error("  - lua: ./only.lua\n") == "w.yaml:6:10: tools[0].lua: './only.lua' not found in " +
                                               (root / "flow").string() + "\n    - lua: ./only.lua\n           ^");
}

TEST_CASE("a prompt may be a list of messages, roles are checked", "[spec]") {
  auto w = spec::parse_workflow(kLlm + "agent:\n  prompt:\n    - {role: system, content: 'Be brief.'}\n"
                                       "    - role: user\n      content: '{{ input }}'\n",
                                "w.yaml", ".");
  REQUIRE(w.agent.messages.size() == 2);
  CHECK(w.agent.messages[1].role.value == "user");
  CHECK(w.agent.messages[1].content.text == "{{ input }}");
  CHECK(w.agent.messages[1].content.origin == "w.yaml (agent.prompt[1].content)");
  CHECK(workflow_error(kLlm + "agent:\n  prompt:\n    - {role: usr, content: x}\n") ==
        "w.yaml:7:14: agent.prompt[0].role must be one of 'system', 'user', 'assistant', got 'usr' (did you mean "
        "'user'?)\n      - {role: usr, content: x}\n               ^");
  CHECK(workflow_error(kLlm + "agent:\n  prompt:\n    - {role: user}\n") ==
            "w.yaml:7:7: missing required key 'content' in agent.prompt[0]\n"
            "      - {role: user}\n"
            "        ^");
}

TEST_CASE("a tool_calling agent: its defaults, and react keys refused", "[spec][tool_calling]") {
  auto w = spec::parse_workflow("llm:\n  provider: openai\nagent:\n  kind: tool_calling\n", "w.yaml", ".");
  REQUIRE(w.agent.messages.size() == 3);
  CHECK(w.agent.messages[0].role.value == "system");
  CHECK(w.agent.messages[1].placeholder.value == "history");  // as the hub prompt's optional chat_history
  CHECK(w.agent.messages[2].content.text == "{{ input }}");
  CHECK(w.agent.stop.empty());
  CHECK(w.agent.observation_prefix.empty());
  CHECK(workflow_error("llm:\n  provider: openai\nagent:\n  kind: tool_calling\n  parser: {final_answer: x}\n") ==
            "w.yaml:5:11: agent.parser is for react agents; a tool_calling agent reads the model's tool calls, "
            "not its text\n"
            "    parser: {final_answer: x}\n"
            "            ^");
  CHECK(workflow_error("llm:\n  provider: openai\nagent:\n  kind: toolcalling\n") ==
            "w.yaml:4:9: agent.kind must be one of 'react', 'tool_calling', got 'toolcalling' (did you mean "
            "'tool_calling'?)\n"
            "    kind: toolcalling\n"
            "          ^");
}

TEST_CASE("scripted replies and rules may call tools", "[spec][tool_calling]") {
  auto w = spec::parse_workflow(
      "llm:\n  scripted:\n    replies:\n      - {content: 'Let me see.', tool_calls: [{name: calc, arguments: {input: '1+1'}}]}\n"
      "      - 'It is 2.'\nagent: {kind: tool_calling}\n",
      "w.yaml", ".");
  REQUIRE(w.llm.replies.size() == 2);
  CHECK(w.llm.replies[0].text.value == "Let me see.");
  REQUIRE(w.llm.replies[0].tool_calls.size() == 1);
  CHECK(w.llm.replies[0].tool_calls[0].name.value == "calc");
  CHECK(w.llm.replies[0].tool_calls[0].arguments.value == "{\"input\":\"1+1\"}");
  auto rules = spec::parse_workflow(
      "llm:\n  scripted:\n    rules:\n      - {match: x, tool_calls: [{name: calc, arguments: '{\"input\": {{ x | tojson }}}'}]}\n"
      "agent: {kind: tool_calling}\n",
      "w.yaml", ".");
  CHECK(rules.llm.rules[0].tool_calls[0].arguments.value == "{\"input\": {{ x | tojson }}}");
  CHECK(workflow_error("llm:\n  scripted:\n    rules:\n      - {match: x}\nagent: {}\n") ==
            "w.yaml:4:9: missing required key 'reply' in llm.scripted.rules[0]\n"
            "        - {match: x}\n"
            "          ^");
  CHECK(workflow_error("llm:\n  scripted:\n    replies:\n      - {tool_calls: []}\nagent: {}\n") ==
            "w.yaml:4:22: llm.scripted.replies[0].tool_calls must be a list of {name, arguments}\n"
            "        - {tool_calls: []}\n"
            "                       ^");
}

TEST_CASE("tool parameters are a JSON Schema checked at load, a problem located at its node with its key path",
          "[spec][parameters]") {
  std::string tools = "tools:\n  - builtin: echo\n    name: add\n    parameters:\n      type: object\n"
                      "      properties:\n        x: {type: number}\n        y: {type: nummber}\n      requried: [x]\n";
  CHECK(workflow_error(kLlm + tools) ==
        "w.yaml:12:19: tools[0].parameters.properties.y.type: 'type' must be one of null, boolean, object, array, "
        "number, string, integer, or an array of them\n"
        "          y: {type: nummber}\n"
        "                    ^");
  std::string good = "tools:\n  - builtin: echo\n    name: add\n    parameters:\n      type: object\n"
                     "      properties:\n        x: {type: number, minimum: 0}\n      required: [x]\n";
  auto w = spec::parse_workflow(kLlm + good + "agent:\n  kind: react\n", "w.yaml", ".");
  CHECK(w.tools[0].parameters == Value::parse(R"({"type": "object", "properties": {"x": {"type": "number",
                                                  "minimum": 0}}, "required": ["x"]})"));
  CHECK(workflow_error(kLlm + "tools:\n  - builtin: echo\n    parameters: [x]\n") ==
            "w.yaml:7:17: tools[0].parameters must be a JSON Schema: a mapping such as {type: object, "
            "properties: ...}\n"
            "      parameters: [x]\n"
            "                  ^");
  CHECK(workflow_error(kLlm + "tools:\n  - builtin: echo\n    parameters: {requried: [x]}\n") ==
            "w.yaml:7:28: tools[0].parameters.requried: unknown keyword 'requried' (did you mean 'required'?) "
            "(extensions are written x-name)\n"
            "      parameters: {requried: [x]}\n"
            "                             ^");
}

TEST_CASE("agent.memory: its kind, the keys each kind takes, and prompt placeholders", "[spec][memory]") {
  auto w = spec::parse_workflow(kLlm + "agent:\n  memory: {kind: window, k: 2, human_prefix: User, ai_prefix: Bot}\n"
                                       "  prompt:\n    - {role: system, content: hi}\n    - {placeholder: history}\n",
                                "w.yaml", ".");
  CHECK(w.agent.memory.kind.value == "window");
  CHECK(w.agent.memory.k == 2);
  CHECK(w.agent.memory.human_prefix == "User");
  CHECK(w.agent.memory.ai_prefix == "Bot");
  REQUIRE(w.agent.messages.size() == 2);
  CHECK(w.agent.messages[1].placeholder.value == "history");
  CHECK(workflow_error(kLlm + "agent:\n  memory: {kind: full, k: 2}\n") ==
            "w.yaml:6:27: agent.memory.k is for kind: window\n"
            "    memory: {kind: full, k: 2}\n"
            "                            ^");
  CHECK(workflow_error(kLlm + "agent:\n  memory: {kind: window, max_tokens: 2}\n") ==
            "w.yaml:6:38: agent.memory.max_tokens is for kind: token_limit\n"
            "    memory: {kind: window, max_tokens: 2}\n"
            "                                       ^");
  CHECK(workflow_error(kLlm + "agent:\n  memory: {k: 2}\n") ==
            "w.yaml:6:11: missing required key 'kind' in agent.memory\n"
            "    memory: {k: 2}\n"
            "            ^");
  CHECK(workflow_error(kLlm + "agent:\n  memory: {kind: buffer}\n") ==
            "w.yaml:6:18: agent.memory.kind must be one of 'none', 'full', 'window', 'token_limit', got "
            "'buffer'\n"
            "    memory: {kind: buffer}\n"
            "                   ^");
  CHECK(workflow_error(kLlm + "agent:\n  memory: {kind: window, k: 0}\n") ==
            "w.yaml:6:29: agent.memory.k must be between 1 and 100000, got 0\n"
            "    memory: {kind: window, k: 0}\n"
            "                              ^");
  CHECK(workflow_error(kLlm + "agent:\n  prompt:\n    - {placeholder: history, role: user}\n") ==
            "w.yaml:7:36: agent.prompt[0] is a placeholder; it takes no role (the messages it stands for have "
            "theirs)\n"
            "      - {placeholder: history, role: user}\n"
            "                                     ^");
}

TEST_CASE("steps: each is a kind with its own key, and every mistake is located", "[spec][steps]") {
  CHECK(workflow_error("steps:\n  a: {kind: lmm, prompt: x}\n") ==
        "w.yaml:2:13: steps.a.kind must be one of 'template', 'llm', 'agent', 'tool', 'lua', 'loop', 'workflow', got 'lmm' (did you mean 'llm'?)\n"
        "    a: {kind: lmm, prompt: x}\n"
        "              ^");
  CHECK(workflow_error("steps:\n  a: {kind: llm, template: x}\n") ==
        "w.yaml:2:28: steps.a.template is not for kind: llm (it takes prompt)\n"
        "    a: {kind: llm, template: x}\n"
        "                             ^");
  CHECK(workflow_error("steps:\n  a: {template: x}\n") ==
        "w.yaml:2:6: missing required key 'kind' in steps.a\n"
        "    a: {template: x}\n"
        "       ^");
  CHECK(workflow_error("steps:\n  a: {kind: agent, agent: {}, inputs: [x]}\n") ==
        "w.yaml:2:39: steps.a.inputs must map the step's inputs to templates\n"
        "    a: {kind: agent, agent: {}, inputs: [x]}\n"
        "                                        ^");
  CHECK(workflow_error("steps:\n  a: {kind: agent, agent: {max_iteratons: 3}}\n") ==
        "w.yaml:2:28: unknown key 'max_iteratons' in steps.a.agent (did you mean 'max_iterations'?)\n"
        "    a: {kind: agent, agent: {max_iteratons: 3}}\n"
        "                             ^");
}

TEST_CASE("steps: a model is needed only by steps that call one, and a file has steps or one agent", "[spec][steps]") {
  CHECK(workflow_error("steps:\n  a: {kind: template, template: x}\n") == "no error");
  CHECK(workflow_error("steps:\n  a: {kind: llm, prompt: x}\n") ==
        "w.yaml:2:13: steps.a (kind: llm) needs a model: add an llm block to the workflow\n"
        "    a: {kind: llm, prompt: x}\n"
        "              ^");
  CHECK(workflow_error(kLlm + "agent: {}\nsteps:\n  a: {kind: template, template: x}\n") ==
        "w.yaml:5:8: a workflow has steps or one agent, not both: make the agent a step (kind: agent)\n"
        "  agent: {}\n"
        "         ^");
  std::string many = "steps:\n";
  for (int i = 0; i <= 1000; ++i) many += "  s" + std::to_string(i) + ": {kind: template, template: x}\n";
  CHECK(workflow_error(many) == "w.yaml:2:3: a workflow has at most 1000 steps, got 1001\n"
        "    s0: {kind: template, template: x}\n"
        "    ^");
}

TEST_CASE("steps: retry and on_error are checked where they are written", "[spec][steps]") {
  CHECK(workflow_error("steps:\n  a: {kind: template, template: x, retry: {attempts: 11}}\n") ==
        "w.yaml:2:54: steps.a.retry.attempts must be between 1 and 10, got 11\n"
        "    a: {kind: template, template: x, retry: {attempts: 11}}\n"
        "                                                       ^");
  CHECK(workflow_error("steps:\n  a: {kind: template, template: x, retry: {backoff: 2}}\n") ==
        "w.yaml:2:43: missing required key 'attempts' in steps.a.retry\n"
        "    a: {kind: template, template: x, retry: {backoff: 2}}\n"
        "                                            ^");
  CHECK(workflow_error("steps:\n  a: {kind: template, template: x, on_error: ignore}\n") ==
        "w.yaml:2:46: steps.a.on_error must be one of 'fail', 'continue', got 'ignore'\n"
        "    a: {kind: template, template: x, on_error: ignore}\n"
        "                                               ^");
  auto w = spec::parse_workflow("steps:\n  a: {kind: template, template: x, retry: {attempts: 3, backoff: 0.5}, "
                                "on_error: continue}\n",
                                "w.yaml", ".");
  CHECK(w.steps[0].attempts == 3);
  CHECK(w.steps[0].backoff == 0.5);
  CHECK(w.steps[0].continue_on_error);
  CHECK_FALSE(w.steps[0].timeout);
}

TEST_CASE("steps: a timeout is seconds, more than none and at most a day", "[spec][steps]") {
  CHECK(workflow_error("steps:\n  a: {kind: template, template: x, timeout: 0}\n") ==
        "w.yaml:2:45: steps.a.timeout is seconds, more than 0 and at most 86400\n"
        "    a: {kind: template, template: x, timeout: 0}\n"
        "                                              ^");
  CHECK(workflow_error("steps:\n  a: {kind: template, template: x, timeout: soon}\n") ==
            "w.yaml:2:45: steps.a.timeout must be a number, got 'soon'\n"
            "    a: {kind: template, template: x, timeout: soon}\n"
            "                                              ^");
  auto w = spec::parse_workflow("steps:\n  a: {kind: template, template: x, timeout: 2.5}\n", "w.yaml", ".");
  CHECK(w.steps[0].timeout == 2.5);
}

TEST_CASE("steps: a tool step names a declared tool and takes an input, which other kinds do not", "[spec][steps]") {
  CHECK(workflow_error("tools:\n  - builtin: echo\nsteps:\n  a: {kind: tool, tool: ecko}\n") ==
        "w.yaml:4:25: unknown tool 'ecko' in steps.a.tool (did you mean 'echo'?)\n"
        "    a: {kind: tool, tool: ecko}\n"
        "                          ^");
  CHECK(workflow_error("steps:\n  a: {kind: template, template: x, input: y}\n") ==
        "w.yaml:2:43: steps.a.input is not for kind: template (it takes template)\n"
        "    a: {kind: template, template: x, input: y}\n"
        "                                            ^");
  auto w = spec::parse_workflow("tools:\n  - builtin: echo\nsteps:\n  a: {kind: tool, tool: echo}\n", "w.yaml", ".");
  CHECK(w.steps[0].tool.value == "echo");
  CHECK(w.steps[0].text.text.empty());
}

TEST_CASE("steps: a loop needs until and max_iterations, holds no loop, and its steps' names are the file's",
          "[spec][steps]") {
  std::string head = "steps:\n  refine:\n    kind: loop\n";
  CHECK(workflow_error(head + "    until: 'true'\n    steps:\n      a: {kind: template, template: x}\n") ==
        "w.yaml:3:5: missing required key 'max_iterations' in steps.refine\n"
        "      kind: loop\n"
        "      ^");
  CHECK(workflow_error(head + "    until: 'true'\n    max_iterations: 101\n    steps:\n      a: {kind: template, template: x}\n") ==
        "w.yaml:5:21: steps.refine.max_iterations must be between 1 and 100, got 101\n"
        "      max_iterations: 101\n"
        "                      ^");
  CHECK(workflow_error(head + "    until: 'true'\n    max_iterations: 2\n    steps:\n"
                              "      inner: {kind: loop, until: 'true', max_iterations: 2, steps: {x: {kind: template, template: x}}}\n") ==
        "w.yaml:7:21: steps.refine.steps.inner: a loop inside a loop is not supported\n"
        "        inner: {kind: loop, until: 'true', max_iterations: 2, steps: {x: {kind: template, template: x}}}\n"
        "                      ^");
  CHECK(workflow_error(head + "    until: 'true'\n    max_iterations: 2\n    steps:\n      refine: {kind: template, template: x}\n") ==
        "w.yaml:7:7: duplicate step 'refine' (a step's name is one in the whole file)\n"
        "        refine: {kind: template, template: x}\n"
        "        ^");
}

TEST_CASE("steps: a lua step names a script within the workflow's reach, its limits are its own", "[spec][steps]") {
  CHECK(workflow_error("steps:\n  a: {kind: lua}\n") ==
        "w.yaml:2:6: missing required key 'lua' in steps.a\n"
        "    a: {kind: lua}\n"
        "       ^");
  CHECK(workflow_error("steps:\n  a: {kind: template, template: x, limits: {timeout_ms: 5}}\n") ==
        "w.yaml:2:44: steps.a.limits is not for kind: template (it takes template)\n"
        "    a: {kind: template, template: x, limits: {timeout_ms: 5}}\n"
        "                                             ^");
  CHECK(workflow_error("steps:\n  a: {kind: lua, lua: /etc/passwd}\n") ==
            "w.yaml:2:23: steps.a.lua: '/etc/passwd' resolves to '/etc/passwd', outside the folders a workflow "
            "may read (" + std::filesystem::current_path().string() + ")\n"
            "    a: {kind: lua, lua: /etc/passwd}\n"
            "                        ^");
}

// A time past the clock's range made a deadline in the past: `max_execution_time: 1e300` stopped every run at once.
TEST_CASE("numbers in a workflow are finite and in range: times at most a day, .inf and 1e300 refused", "[spec]") {
  std::string agent = "inputs:\n  input: q\n" + kLlm + "agent:\n  max_execution_time: ";
  CHECK(workflow_error(agent + "1e300\n") ==
            "w.yaml:8:23: agent.max_execution_time must be at most 86400, got 1e300\n"
            "    max_execution_time: 1e300\n"
            "                        ^");
  CHECK(workflow_error(agent + ".inf\n") ==
            "w.yaml:8:23: agent.max_execution_time must be at most 86400, got .inf\n"
            "    max_execution_time: .inf\n"
            "                        ^");
  CHECK(workflow_error(agent + "86400\n") == "no error");
  std::string llm = "inputs:\n  input: q\nllm:\n  provider: openai\n  model: m\n  timeout: ";
  CHECK(workflow_error(llm + "1e300\nagent: {}\n") ==
            "w.yaml:6:12: llm.timeout must be at most 86400, got 1e300\n"
            "    timeout: 1e300\n"
            "             ^");
  CHECK(workflow_error("inputs:\n  input: q\n" + kLlm + "agent:\n  max_cost: .inf\n") ==
            "w.yaml:8:13: agent.max_cost must be at most 1e+15, got .inf\n"
            "    max_cost: .inf\n"
            "              ^");
}
