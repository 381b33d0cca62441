// The engine's own cost, in process: what one ReAct iteration spends outside the model (render the prompt with
// its scratchpad, parse the model's text, call the Lua tool), and whole runs of the demo with the scripted model.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "engine/assemble/build_executor.h"
#include "engine/spec/search_path.h"
#include "engine/core/fiber.h"
#include "engine/core/file.h"
#include "engine/parse/react_parser.h"
#include "engine/parse/schema_patterns.h"
#include "engine/schema/schema.h"
#include "engine/spec/default_react.h"
#include "engine/template/template.h"
#include "engine/tools/lua/lua_function.h"
#include "engine/tools/lua/lua_tool.h"

using namespace engine;
using Clock = std::chrono::steady_clock;

namespace {

// Median nanoseconds per call of `fn`, over `rounds` rounds of `n` calls.
template <class F>
double median_ns(int rounds, int n, F fn) {
  std::vector<double> per_call;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) fn();
    per_call.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / n);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

}  // namespace

int main() {
  const std::string root = ENGINE_SOURCE_DIR;
  auto spec = spec::load_workflow(root + "/workflows/calculator.yaml", {spec::default_search_path()});

  // The pieces of one iteration, built from the demo workflow's own files.
  auto prompt = tmpl::Template::compile(spec.agent.prompt.text, "react.j2");
  auto scratchpad = tmpl::Template::compile(spec.agent.scratchpad.text, "scratchpad");
  parse::ReactParser parser({spec.agent.parsers[0].final_answer.value, spec.agent.parsers[0].action.value});
  tools::lua::LuaToolConfig cfg;
  cfg.file = root + "/plugins/calculator.lua";
  cfg.display_path = "plugins/calculator.lua";
  auto calculator = tools::lua::LuaTool::load(cfg)->instantiate({});
  // The engine's own cost of a Lua call, without a script's work: a tool that returns its input.
  tools::lua::LuaToolConfig echo_cfg;
  echo_cfg.file = root + "/bench/echo.lua";
  echo_cfg.display_path = "bench/echo.lua";
  auto echo_tool = tools::lua::LuaTool::load(echo_cfg);
  auto echo = echo_tool->instantiate({});

  Value ctx = {{"input", "What is 12 * 7 + 3?"},
               {"tools", {{{"name", "calculator"}, {"description", "Evaluates an arithmetic expression."}}}},
               {"tool_names", "calculator"},
               {"intermediate_steps",
                {{{"action", {{"tool", "calculator"}, {"tool_input", "12 * 7"}, {"log", " I should use the calculator.\n"
                                                                                         "Action: calculator\nAction Input: 12 * 7"}}},
                  {"observation", "84"}}}},
               {"agent_scratchpad", ""}};
  const std::string llm_text = " I should use the calculator for this.\nAction: calculator\nAction Input: 12 * 7 + 3";
  std::string out;

  double render_ns = median_ns(15, 20000, [&] {
    ctx["agent_scratchpad"] = scratchpad.render(ctx);
    out = prompt.render(ctx);
  });
  double parse_ns = median_ns(15, 20000, [&] { (void)parser.parse(llm_text); });
  double tool_ns = median_ns(15, 20000, [&] { (void)calculator->invoke("12 * 7 + 3"); });
  double echo_ns = median_ns(15, 20000, [&] { (void)echo->invoke("12 * 7 + 3"); });
  // What each run pays on its first call of a tool: an instance, and a state taken from the tool's or made.
  double first_call_ns = median_ns(15, 5000, [&] { (void)echo_tool->instantiate({})->invoke("12 * 7 + 3"); });
  // A Lua parser sees the script as loaded for every text (a state no call changed is shared): its whole cost.
  auto plain_answer = tools::lua::LuaFunction::load(
      {root + "/plugins/parsers/plain_answer.lua", "plugins/parsers/plain_answer.lua", "parse", {}});
  double lua_parse_ns = median_ns(15, 2000, [&] { (void)plain_answer->call(Value(llm_text)); });
  double iteration_ns = median_ns(15, 20000, [&] {
    ctx["agent_scratchpad"] = scratchpad.render(ctx);
    out = prompt.render(ctx);
    auto parsed = parser.parse(llm_text);
    (void)calculator->invoke(std::get<parse::AgentAction>(parsed).tool_input);
  });

  // Whole runs in process: executor built once and shared, as batch runs would; the scripted model included.
  std::shared_ptr<const workflow::Executor> executor;
  double build_us = median_ns(5, 20, [&] { executor = assemble::build_executor(spec); }) / 1000;
  Value inputs = executor->resolve_inputs({{"input", "What is 12 * 7 + 3?"}});
  NullSink sink;
  double run_ns = median_ns(11, 500, [&] {
    auto r = executor->run(inputs, sink);
    if (r.output != "87") std::abort();
  });

  // A batch's first wave: a thousand runs start at once on new fiber stacks, each using about 16 KB of its stack.
  double first_wave_ms = median_ns(7, 1, [] {
    FiberPool pool(2);
    for (int i = 0; i < 1024; ++i)
      pool.spawn([] {
        volatile char frame[12 << 10];
        for (size_t at = 0; at < sizeof frame; at += 1024) frame[at] = 1;
      });
    pool.join();
  }) / 1e6;

  // The template benchmark: the same template and context bench/jinja2_render.py gives Jinja2.
  auto react4k = tmpl::Template::compile_file(root + "/bench/data/react_prompt.j2");
  Value react4k_ctx = Value::parse(read_file(root + "/bench/data/react_context.json"));
  std::string rendered;
  double template_ns = median_ns(15, 20000, [&] {
    rendered.clear();
    react4k.render_to(react4k_ctx, rendered);
  });
  std::printf("template: ReAct prompt with 10 tools and 10 scratchpad steps (%zu bytes), median of 15 x 20000:\n",
              rendered.size());
  std::printf("  engine render                                %8.2f us   (target < 20 us)\n", template_ns / 1000);

  // A tool call's arguments checked against its parameters: five properties, a pattern and uniqueItems among them.
  schema::Schema contact = schema::Schema::compile(Value::parse(R"({"type": "object",
      "properties": {"name": {"type": "string", "minLength": 1}, "email": {"type": "string", "pattern": "^[^@ ]+@[^@ ]+$"},
                     "age": {"type": "integer", "minimum": 0}, "tags": {"type": "array", "items": {"type": "string"},
                     "uniqueItems": true}, "active": {"type": "boolean"}},
      "required": ["name", "email"], "additionalProperties": false})"), {parse::schema_patterns()});
  Value good{{"name", "Ada"}, {"email", "ada@example.com"}, {"age", 36}, {"tags", {"math", "engines"}}, {"active", true}};
  Value bad{{"name", ""}, {"email", "ada"}, {"age", -1}, {"tags", {"a", "a"}}, {"active", "yes"}};
  double valid_ns = median_ns(15, 20000, [&] {
    if (!contact.validate(good).empty()) std::abort();
  });
  double invalid_ns = median_ns(15, 20000, [&] {
    if (contact.validate(bad).size() != 5) std::abort();
  });
  std::printf("schema validation of a tool call's arguments (5 properties), median of 15 x 20000:\n");
  std::printf("  valid                                        %8.2f us   (target < 5 us)\n", valid_ns / 1000);
  std::printf("  five violations, described                   %8.2f us\n", invalid_ns / 1000);

  std::printf("engine overhead per ReAct iteration (calculator workflow, median of 15 x 20000):\n");
  std::printf("  render prompt + scratchpad (%zu-byte prompt)  %8.2f us\n", out.size(), render_ns / 1000);
  std::printf("  parse LLM output (PCRE2, JIT)                %8.2f us\n", parse_ns / 1000);
  std::printf("  Lua tool call, engine side (echo script)     %8.2f us\n", echo_ns / 1000);
  std::printf("  Lua tool, a run's first call (echo script)   %8.2f us\n", first_call_ns / 1000);
  std::printf("  Lua parser, per text                         %8.2f us\n", lua_parse_ns / 1000);
  std::printf("  Lua calculator tool call (script included)   %8.2f us\n", tool_ns / 1000);
  std::printf("  one iteration (render + parse + tool)        %8.2f us   (target < 20 us)\n", iteration_ns / 1000);
  std::printf("fibers: 1024 started on new stacks, 16 KB of stack each, and joined (median of 7)  %8.2f ms\n",
              first_wave_ms);
  std::printf("whole runs in process (2 LLM calls, 1 tool call; scripted model included):\n");
  std::printf("  build executor from the parsed spec (median)  %8.1f us\n", build_us);
  std::printf("  one run of the demo                          %8.2f us\n", run_ns / 1000);
  return 0;
}
