#include "engine/assemble/build_executor.h"

#include "engine/assemble/build_agent.h"
#include "engine/assemble/build_memory.h"
#include "engine/assemble/build_tools.h"
#include "engine/assemble/template_checks.h"

namespace engine::assemble {
namespace {

// What an outputs template reads besides the inputs.
const std::vector<std::string> kOutputContext = {"output", "inputs", "intermediate_steps", "stopped_reason"};

}  // namespace

std::shared_ptr<const workflow::Executor> build_executor(const spec::WorkflowSpec& s, const BuildOptions& options) {
  auto llm = build_llm(s, options);
  tools::ToolRegistry registry = build_tools(s);
  std::unique_ptr<agent::Agent> agent = build_agent(s, registry, std::move(llm));
  std::vector<std::string> names = input_names(s);
  std::vector<workflow::OutputTemplate> outputs;
  for (const auto& o : s.outputs) {
    tmpl::Template t = tmpl::Template::compile(o.value.value, s.display_path + " (outputs." + o.name + ".value)");
    check_free_names(t, names, kOutputContext, "outputs." + o.name + ".value", o.value.loc, s);
    outputs.push_back({o.name, std::move(t)});
  }
  std::vector<workflow::Input> inputs;
  for (const auto& i : s.inputs) inputs.push_back({i.name, i.description, i.default_value});
  return std::make_shared<workflow::Executor>(workflow::Executor::Parts{
      .name = s.name,
      .inputs = std::move(inputs),
      .tools = std::move(registry),
      .agent = std::move(agent),
      .outputs = std::move(outputs),
      .redactor = Redactor(llm_secrets(s.llm)),
      .chat_input = chat_input(s),
  });
}

}  // namespace engine::assemble
