// Build-time checks that need more than the YAML: compiled templates and regexes, loaded scripts.
#include <catch2/catch.hpp>

#include "engine/assemble/build_executor.h"
#include "engine/core/error.h"
#include "support/test_support.h"

using namespace engine;

namespace {

const std::string kHead =
    "inputs:\n  question: q\nllm:\n  provider: scripted\n  scripted:\n    replies: ['Final Answer: x']\n";

std::string build_error(const std::string& yaml, const test::TempDir* dir = nullptr) {
  try {
    auto path = dir ? dir->path() : std::filesystem::path(".");
    assemble::build_executor(spec::parse_workflow(yaml, "w.yaml", path));
  } catch (const Error& e) {
    return e.formatted();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a template variable that is not a declared input is caught at build", "[assemble]") {
  CHECK(build_error(kHead + "agent:\n  prompt: 'Q: {{ questoin }}'\n") ==
        "w.yaml:8:11: agent.prompt uses 'questoin', which is not a declared input (did you mean 'question'?)\n"
        "    prompt: 'Q: {{ questoin }}'\n            ^");
  CHECK(build_error(kHead + "agent:\n  prompt: '{{ zzz }}'\n") ==
            "w.yaml:8:11: agent.prompt uses 'zzz', which is not a declared input (declared inputs: question)\n"
            "    prompt: '{{ zzz }}'\n"
            "            ^");
}

TEST_CASE("a template file that reads an undeclared name is located in the file, where it reads it", "[assemble]") {
  test::TempDir dir;
  dir.write("prompt.j2", "Question: {{ question }}\nThought: {{ agent_scratchpad }} {{ questoin }}\n");
  CHECK(build_error(kHead + "agent:\n  prompt: {file: prompt.j2}\n", &dir) ==
        "prompt.j2:2:36: agent.prompt uses 'questoin', which is not a declared input (did you mean 'question'?)\n"
        "  Thought: {{ agent_scratchpad }} {{ questoin }}\n"
        "                                     ^");
}

TEST_CASE("a template syntax error in the YAML points at its line there, under its key", "[assemble]") {
  CHECK(build_error(kHead + "agent:\n  prompt: |\n    line one\n    {% for x in y %}\n") ==
        "w.yaml:10:21: agent.prompt: unclosed 'for' block opened at line 10:5: expected '{% endfor %}' before the end\n"
        "      {% for x in y %}\n"
        "                      ^");
  CHECK(build_error(kHead + "agent:\n  prompt: |\n    line one\n    {{ question | uper }}\n") ==
        "w.yaml:10:17: agent.prompt: unknown filter 'uper' (did you mean 'upper'?)\n"
        "      {{ question | uper }}\n"
        "                  ^");
  // A line the YAML wrote with an escape is not found as it is: the template's own place is given instead.
  CHECK(build_error(kHead + "agent:\n  prompt: \"a\\tb {{ question | uper }}\"\n") ==
            "w.yaml (agent.prompt):1:17: unknown filter 'uper' (did you mean 'upper'?)\n"
            "  a\tb {{ question | uper }}\n"
            "   \t              ^");
}

TEST_CASE("an invalid regex points at the YAML key", "[assemble]") {
  CHECK(build_error(kHead + "agent:\n  prompt: '{{ question }}'\n  parser:\n    action: 'Action: (?P<tool>\\w+'\n") ==
        "w.yaml:10:13: agent.parser.action: invalid regex: missing closing parenthesis at offset 20\n"
        "      action: 'Action: (?P<tool>\\w+'\n              ^");
}

TEST_CASE("an action regex without tool and input groups points at its key", "[assemble]") {
  CHECK(build_error(kHead + "agent:\n  prompt: '{{ question }}'\n  parser:\n    action: 'Action: \\w+'\n") ==
            "w.yaml:10:13: agent.parser.action: action regex needs groups named 'tool' and 'input' (or two "
            "groups), found 0\n"
            "      action: 'Action: \\w+'\n"
            "              ^");
}

TEST_CASE("an invalid scripted rule regex points at the rule", "[assemble]") {
  std::string yaml = "inputs:\n  question: q\nllm:\n  provider: scripted\n  scripted:\n    rules:\n"
                     "      - match: '(unclosed'\n        reply: x\nagent:\n  prompt: '{{ question }}'\n";
  CHECK(build_error(yaml) ==
            "w.yaml:7:16: llm.scripted.rules[0].match: invalid regex: missing closing parenthesis at offset 9\n"
            "        - match: '(unclosed'\n"
            "                 ^");
}

TEST_CASE("a scripted rule reads one of match user or tool and says which when its regex is bad", "[assemble]") {
  std::string head = "inputs:\n  question: q\nllm:\n  provider: scripted\n  scripted:\n    rules:\n";
  std::string tail = "agent:\n  prompt: '{{ question }}'\n";
  CHECK(build_error(head + "      - user: '(unclosed'\n        reply: x\n" + tail) ==
            "w.yaml:7:15: llm.scripted.rules[0].user: invalid regex: missing closing parenthesis at offset 9\n"
            "        - user: '(unclosed'\n"
            "                ^");
  CHECK(build_error(head + "      - tool: '(unclosed'\n        reply: x\n" + tail) ==
            "w.yaml:7:15: llm.scripted.rules[0].tool: invalid regex: missing closing parenthesis at offset 9\n"
            "        - tool: '(unclosed'\n"
            "                ^");
  CHECK(build_error(head + "      - {user: a, tool: b, reply: x}\n" + tail) ==
            "w.yaml:7:9: llm.scripted.rules[0] has user and tool; give one of them\n"
            "        - {user: a, tool: b, reply: x}\n"
            "          ^");
  CHECK(build_error(head + "      - {reply: x}\n" + tail) ==
            "w.yaml:7:9: llm.scripted.rules[0] needs match: (a regex on the whole prompt), user: (on the user's "
            "last message) or tool: (on a tool's result)\n"
            "        - {reply: x}\n"
            "          ^");
}

TEST_CASE("a scripted rule's reply that reads a group its regex does not define points at the reply", "[assemble]") {
  std::string head = "inputs:\n  question: q\nllm:\n  provider: scripted\n  scripted:\n    rules:\n";
  std::string tail = "agent:\n  prompt: '{{ question }}'\n";
  CHECK(build_error(head + "      - match: 'Q: (?P<expr>.*)'\n        reply: 'Final Answer: {{ exp }}'\n" + tail) ==
        "w.yaml:8:16: llm.scripted.rules[0].reply uses 'exp', which its match regex does not define (did you mean "
        "'expr'?) (its groups: expr)\n          reply: 'Final Answer: {{ exp }}'\n                 ^");
  CHECK(build_error(head + "      - match: 'Q: .*'\n        reply: 'Final Answer: {{ q }}'\n" + tail) ==
            "w.yaml:8:16: llm.scripted.rules[0].reply uses 'q', which its match regex does not define (it names "
            "no groups: write (?P<q>...))\n"
            "          reply: 'Final Answer: {{ q }}'\n"
            "                 ^");
  CHECK(build_error(head + "      - match: 'Q: (?P<q>.*)'\n        tool_calls: [{name: t, arguments: '{\"x\": \"{{ y }}\"}'}]\n" + tail) ==
            "w.yaml:8:43: llm.scripted.rules[0].tool_calls[0].arguments uses 'y', which its match regex does not "
            "define (did you mean 'q'?) (its groups: q)\n"
            "          tool_calls: [{name: t, arguments: '{\"x\": \"{{ y }}\"}'}]\n"
            "                                            ^");
  // What every reply may read besides the groups.
  CHECK(build_error(head + "      - match: 'Q: (?P<q>.*)'\n        reply: '{{ q }} {{ groups[0] }} {{ prompt | length }}'\n" + tail) ==
        "no error");
}

TEST_CASE("an unknown builtin tool suggests the close one", "[assemble]") {
  CHECK(build_error(kHead + "tools:\n  - builtin: ecoh\nagent:\n  prompt: '{{ question }}'\n") ==
            "w.yaml:8:14: unknown builtin tool 'ecoh' (did you mean 'echo'?) (available: echo, current_time, "
            "http_request, fetch, read_file, write_file, list_files, search_files, search_docs)\n"
            "    - builtin: ecoh\n"
            "               ^");
}

TEST_CASE("a Lua syntax error points into the script", "[assemble]") {
  test::TempDir dir;
  dir.write("bad.lua", "return function(x)\n  return x +\nend\n");
  CHECK(build_error(kHead + "tools:\n  - lua: bad.lua\nagent:\n  prompt: '{{ question }}'\n", &dir) ==
        "bad.lua:3: lua syntax error: unexpected symbol near 'end'\n  end");
  // Not beside the workflow, and with no search path, looked for nowhere else.
  CHECK(build_error(kHead + "tools:\n  - lua: missing.lua\nagent:\n  prompt: '{{ question }}'\n", &dir) ==
        "w.yaml:8:10: tools[0].lua: 'missing.lua' not found in " + std::filesystem::canonical(dir.path()).string() +
            "; put the folder that holds it on ENGINE_PATH (folders separated by ':'), or name it by its path from the workflow's folder (./lib/missing.lua)" "\n    - lua: missing.lua\n           ^");
}

TEST_CASE("chat prompts: variables are checked per message, a chat template needs messages", "[assemble]") {
  CHECK(build_error(kHead + "agent:\n  prompt:\n    - {role: system, content: ok}\n    - {role: user, content: '{{ qestion }}'}\n") ==
            "w.yaml:10:29: agent.prompt[1].content uses 'qestion', which is not a declared input (did you mean "
            "'question'?)\n"
            "      - {role: user, content: '{{ qestion }}'}\n"
            "                              ^");
  std::string head = kHead;
  head.insert(head.find("  scripted:"), "  chat_template: '{{ messages }}'\n");
  CHECK(build_error(head + "agent:\n  prompt: '{{ question }}'\n") ==
            "w.yaml:5:18: llm.chat_template renders a list of messages, but agent.prompt is a single template; "
            "give agent.prompt as a list of {role, content} or drop the chat template\n"
            "    chat_template: '{{ messages }}'\n"
            "                   ^");
}

TEST_CASE("a template may set its own options, a lenient one may read absent names", "[assemble]") {
  auto exec = assemble::build_executor(spec::parse_workflow(
      kHead + "agent:\n  prompt: {text: '[{{ question }}][{{ maybe }}]', strict_undefined: false}\n", "w.yaml", "."));
  CHECK(exec->render_first_prompt(exec->resolve_inputs({{"question", "q"}})) == "[q][]");
  CHECK(build_error(kHead + "agent:\n  prompt: {text: x, file: y}\n") ==
            "w.yaml:8:11: agent.prompt has both text and file; give one\n"
            "    prompt: {text: x, file: y}\n"
            "            ^");
  auto trimmed = assemble::build_executor(spec::parse_workflow(
      kHead + "agent:\n  prompt:\n    text: \"{% if true %}\\nyes{% endif %}\"\n    trim_blocks: true\n", "w.yaml", "."));
  CHECK(trimmed->render_first_prompt(trimmed->resolve_inputs({{"question", "q"}})) == "yes");
}

TEST_CASE("a cost budget without the model's price is caught at build, at the budget's key", "[assemble][budget]") {
  const std::string llm = "inputs:\n  input: q\nllm:\n  provider: openai\n  model: gpt-x\n";
  CHECK(build_error(llm + "agent:\n  max_cost: 0.5\n") ==
        "w.yaml:7:13: agent.max_cost needs the price of model 'gpt-x' in llm.prices\n"
        "    max_cost: 0.5\n              ^");
  CHECK(build_error(llm + "  prices: {gpt-y: {prompt: 1, completion: 2}}\nagent:\n  max_cost: 0.5\n") ==
            "w.yaml:8:13: agent.max_cost needs the price of model 'gpt-x' in llm.prices (priced: gpt-y)\n"
            "    max_cost: 0.5\n"
            "              ^");
  CHECK(build_error(llm + "  prices: {gpt-x: {prompt: 1, completion: 2}}\nagent:\n  max_cost: 0.5\n") == "no error");
}

TEST_CASE("a chat prompt cannot go to the completions endpoint without a chat template", "[assemble]") {
  CHECK(build_error("inputs:\n  question: q\nllm:\n  provider: openai\n  endpoint: completions\nagent:\n"
                    "  prompt:\n    - {role: user, content: '{{ question }}'}\n") ==
            "w.yaml:5:13: llm.endpoint completions takes a text prompt, and agent.prompt is a list of messages; "
            "give llm.chat_template to render them, or use endpoint: chat\n"
            "    endpoint: completions\n"
            "              ^");
  CHECK(build_error("inputs:\n  question: q\nllm:\n  provider: openai\n  endpoint: completions\nagent:\n"
                    "  prompt: '{{ question }}'\n") == "no error");
}

TEST_CASE("a tool_calling agent needs a chat API: no chat template, no completions endpoint", "[assemble][tool_calling]") {
  CHECK(build_error("llm:\n  provider: openai\n  chat_template: '{{ messages }}'\nagent:\n  kind: tool_calling\n") ==
            "w.yaml:3:18: a tool_calling agent sends its tools and messages to a chat API; llm.chat_template "
            "would turn them into text (use a react agent with a chat template)\n"
            "    chat_template: '{{ messages }}'\n"
            "                   ^");
  CHECK(build_error("llm:\n  provider: openai\n  endpoint: completions\nagent:\n  kind: tool_calling\n") ==
            "w.yaml:3:13: a tool_calling agent needs endpoint: chat; the completions endpoint takes no tools\n"
            "    endpoint: completions\n"
            "              ^");
  CHECK(build_error("llm:\n  scripted:\n    replies: [{tool_calls: [{name: echo, arguments: '{oops'}]}]\n"
                    "tools: [{builtin: echo}]\nagent:\n  kind: tool_calling\n") ==
            "w.yaml:3:53: llm.scripted.replies[0].tool_calls[0].arguments: the arguments are not JSON: '{oops'\n"
            "      replies: [{tool_calls: [{name: echo, arguments: '{oops'}]}]\n"
            "                                                      ^");
}

TEST_CASE("memory: a memory nothing reads, a history read without one, and placeholders are checked at build",
          "[assemble][memory]") {
  const std::string head = "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies: ['Final Answer: x']\n";
  CHECK(build_error(head + "agent:\n  prompt: 'Q: {{ input }}'\n  memory: {kind: window, k: 2}\n") ==
        "w.yaml:9:11: agent.memory is set, but the prompt reads neither history nor history_text, and has no "
        "{placeholder: history}: the model would never see the conversation\n"
        "    memory: {kind: window, k: 2}\n            ^");
  CHECK(build_error(head + "agent:\n  prompt:\n    - {role: system, content: 'Be brief.'}\n"
                           "    - {role: user, content: '{{ history_text }} {{ input }}'}\n") ==
        "w.yaml:10:29: the prompt reads 'history_text', but the agent has no memory, so it would always be empty; add "
        "agent.memory (for instance {kind: window, k: 5})\n"
        "      - {role: user, content: '{{ history_text }} {{ input }}'}\n                              ^");
  CHECK(build_error(head + "agent:\n  prompt:\n    - {placeholder: histroy}\n    - {role: user, content: '{{ input }}'}\n") ==
            "w.yaml:9:21: the placeholder 'histroy' names neither history nor a declared input (did you mean "
            "'history'?)\n"
            "      - {placeholder: histroy}\n"
            "                      ^");
  CHECK(build_error(head + "agent:\n  prompt:\n    - {placeholder: history}\n    - {role: user, content: '{{ input }}'}\n"
                           "  memory: {kind: full}\n") == "no error");
  CHECK(build_error(head + "agent:\n  prompt: '{{ history_text }}{{ input }}'\n  memory: {kind: token_limit, max_tokens: 50}\n") ==
        "no error");
  // The human's message: `input`, the only input, or input_key.
  const std::string two = "inputs:\n  a: x\n  b: y\nllm:\n  provider: scripted\n  scripted:\n    replies: ['Final Answer: x']\n";
  CHECK(build_error(two + "agent:\n  prompt: '{{ history_text }}{{ a }}{{ b }}'\n  memory: {kind: full}\n") ==
            "w.yaml:10:11: agent.memory needs input_key: which input holds the human's message (declared inputs: "
            "a, b)\n"
            "    memory: {kind: full}\n"
            "            ^");
  CHECK(build_error(two + "agent:\n  prompt: '{{ history_text }}{{ a }}{{ b }}'\n  memory: {kind: full, input_key: c}\n") ==
            "w.yaml:10:35: agent.memory.input_key 'c' is not a declared input (did you mean 'a'?)\n"
            "    memory: {kind: full, input_key: c}\n"
            "                                    ^");
  auto chat = assemble::build_executor(spec::parse_workflow(
      two + "agent:\n  prompt: '{{ history_text }}{{ a }}{{ b }}'\n  memory: {kind: full, input_key: b}\n", "w.yaml", "."));
  CHECK(chat->chat_input() == "b");
  auto single = assemble::build_executor(spec::parse_workflow(kHead + "agent:\n  prompt: '{{ question }}'\n", "w.yaml", "."));
  CHECK(single->chat_input() == "question");
}
