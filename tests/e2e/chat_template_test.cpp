// A workflow whose model's chat template gets what transformers passes: the agent's tools (llm.chat_template_tools),
// the template's own variables, add_generation_prompt, the steps as tool calls and tool results
// ({placeholder: agent_scratchpad}), and conversations given as inputs with tool calls and content parts.
#include <catch2/catch.hpp>

#include <fstream>

#include "engine/core/file.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

// The prompts of a run's model calls, from its trace.
std::vector<std::string> prompts_of(const std::filesystem::path& trace) {
  std::vector<std::string> out;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    Value e = Value::parse(line);
    if (e["type"] == "llm_start") out.push_back(e["prompt"]);
  }
  return out;
}

const std::string kQwenTail = "<|im_start|>assistant\n<think>\n\n</think>\n\n";

}  // namespace

TEST_CASE("a completion-style model's chat template lists the tools and shows each step as a tool call and result",
          "[e2e][chat_template]") {
  test::TempDir dir;
  auto trace = dir.path() / "t.jsonl";
  auto r = run_engine("run workflows/chat_template_tools.yaml -q --input 'What is 6 * 7?' --trace " +
                      shell_quote(trace.string()));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "The answer is 42.\n");
  auto prompts = prompts_of(trace);
  REQUIRE(prompts.size() == 2);
  CHECK(prompts[0].find("<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"calculator\", \"description\": "
                        "\"Evaluates an arithmetic expression") != std::string::npos);
  CHECK(prompts[0].find("\"parameters\": {\"type\": \"object\", \"properties\": {\"input\": {\"type\": \"string\"") !=
        std::string::npos);
  CHECK(prompts[0].size() > kQwenTail.size());
  CHECK(prompts[0].compare(prompts[0].size() - kQwenTail.size(), kQwenTail.size(), kQwenTail) == 0);
  CHECK(prompts[1].find("<|im_start|>user\nWhat is 6 * 7?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n"
                        "{\"name\": \"calculator\", \"arguments\": {\"input\": \"6 * 7\"}}\n</tool_call><|im_end|>\n"
                        "<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n" + kQwenTail) !=
        std::string::npos);
}

TEST_CASE("a conversation given as an input reaches the chat template with its tool calls and content parts",
          "[e2e][chat_template]") {
  test::TempDir dir;
  dir.write("chat.jinja",
            "{% for m in messages %}[{{ m.role }}]{% if m.content is string %}{{ m.content }}{% elif m.content %}"
            "{% for p in m.content %}<{{ p.type }}:{{ p.text | default('') }}>{% endfor %}{% endif %}"
            "{% for c in m.tool_calls | default([]) %}call {{ c.function.name }} {{ c.function.arguments | tojson }}"
            "{% endfor %}{% if m.tool_call_id is defined %} for {{ m.tool_call_id }}{% endif %}\n{% endfor %}"
            "{% if tools is not none %}tools: {{ tools | map(attribute='function.name') | join(',') }}\n{% endif %}"
            "{% if add_generation_prompt %}[assistant]{% endif %}{{ mood | default('') }}"
            "{% if documents is not none %} docs: {{ documents | map(attribute='title') | join(',') }}{% endif %}");
  std::string head = "inputs:\n  conversation: {}\nllm:\n  provider: scripted\n  chat_template: {file: chat.jinja}\n";
  std::string tail = "  scripted: {replies: ['Final Answer: ok']}\n"
                     "tools:\n  - {builtin: echo}\n"
                     "agent:\n  prompt:\n    - {role: system, content: Be brief.}\n"
                     "    - {placeholder: conversation}\n";
  auto w = dir.write("w.yaml", head + "  chat_template_tools: [echo]\n  add_generation_prompt: false\n"
                                      "  chat_template_kwargs: {mood: ' (calm)', documents: [{title: a, text: b}]}\n" +
                                      tail);
  auto inputs = dir.write("in.json", R"({"conversation": [
      {"role": "user", "content": [{"type": "text", "text": "What is this?"}, {"type": "image"}]},
      {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "echo", "arguments": {"input": "hi"}}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "hi"}]})");
  auto r = run_engine("render " + shell_quote(w.string()) + " --inputs " + shell_quote(inputs.string()));
  REQUIRE(r.exit_code == 0);
  // (trim_blocks takes the line break after each {% endif %}, as transformers renders)
  CHECK(r.out == "[system]Be brief.[user]<text:What is this?><image:>[assistant]call echo {\"input\": \"hi\"}"
                 "[tool]hi for c1tools: echo\n (calm) docs: a\n");

  // Sent to a chat API instead, such a conversation is refused: the API takes {role, content} text.
  auto chat_api = dir.write("api.yaml", "inputs:\n  conversation: {}\nllm:\n  provider: scripted\n" + tail);
  auto refused = run_engine("run " + shell_quote(chat_api.string()) + " -q --inputs " + shell_quote(inputs.string()));
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("conversation[0] must be {role, content} with text content") != std::string::npos);
}

TEST_CASE("what a workflow gives a chat template is checked when it is built", "[e2e][chat_template]") {
  test::TempDir dir;
  dir.write("chat.jinja", "{% for m in messages %}{{ m.content }}{% endfor %}");
  std::string head = "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted: {replies: ['Final Answer: ok']}\n";
  std::string prompt = "agent:\n  prompt:\n    - {role: user, content: '{{ input }}'}\n";
  auto error_of = [&](const std::string& name, const std::string& yaml) {
    auto r = run_engine("validate " + shell_quote(dir.write(name, yaml).string()));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("engine: error[spec.") == 0);
    return r.err;
  };
  CHECK(error_of("a.yaml", head + "  chat_template: {file: chat.jinja}\n  chat_template_tools: [echoo]\n"
                                  "tools:\n  - {builtin: echo}\n" + prompt)
            .find("a.yaml:7:25: unknown tool 'echoo' in llm.chat_template_tools: not one of the agent's "
                  "tools (did you mean 'echo'?)") != std::string::npos);
  CHECK(error_of("b.yaml", head + "  chat_template_tools: all\ntools:\n  - {builtin: echo}\n" + prompt)
            .find("b.yaml:6:24: llm.chat_template_tools lists tools for a chat template, but "
                  "llm.chat_template is not given") != std::string::npos);
  CHECK(error_of("c.yaml", head + "  chat_template: {file: chat.jinja}\n  chat_template_kwargs: {documents: [], tools: []}\n" + prompt)
            .find("c.yaml:7:48: llm.chat_template_kwargs.tools is given by the engine "
                  "(llm.chat_template_tools)") != std::string::npos);
  CHECK(error_of("d.yaml", head + prompt + "    - {placeholder: agent_scratchpad}\n")
            .find("d.yaml:9:21: {placeholder: agent_scratchpad} gives a ReAct agent's steps as tool calls "
                  "and tool results, which only a chat template (llm.chat_template) can render") != std::string::npos);
  CHECK(error_of("e.yaml", head + "  chat_template_tools: 3\n" + prompt)
            .find("llm.chat_template_tools must be `all` or a list of the agent's tools") != std::string::npos);
}
