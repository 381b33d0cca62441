#include "engine/assemble/build_executor.h"

#include <algorithm>

#include "engine/assemble/build_agent.h"
#include "engine/assemble/build_memory.h"
#include "engine/assemble/build_steps.h"
#include "engine/assemble/build_tools.h"
#include "engine/assemble/template_checks.h"
#include "engine/core/diagnostics.h"

namespace engine::assemble {
namespace {

// What an outputs template of a one-agent workflow reads besides the inputs.
const std::vector<std::string> kOutputContext = {"output", "inputs", "intermediate_steps", "stopped_reason"};

std::shared_ptr<const workflow::Executor> build(const spec::WorkflowSpec& s, const BuildOptions& given,
                                                const std::shared_ptr<SecretSet>& secrets) {
  if (given.built)
    if (auto it = given.built->find(&s); it != given.built->end()) return it->second;
  BuildOptions options = given;
  if (!options.llm_gate)
    options.llm_gate = std::make_shared<llm::LlmGate>(
        s.llm.max_concurrent_calls ? static_cast<size_t>(*s.llm.max_concurrent_calls) : kDefaultLlmConcurrency);
  if (!options.built) options.built = std::make_shared<BuiltExecutors>();
  if (!options.io) options.io = std::make_shared<net::IoThreads>();
  // Sub-workflows share the cap, what was built and the I/O threads; the recording is the root workflow's alone.
  BuildOptions inner{.record_file = "",
                     .llm_gate = options.llm_gate,
                     .built = options.built,
                     .connect_mcp = options.connect_mcp,
                     .io = options.io};
  // A workflow whose steps call no model (templates, tools) names none, and needs none.
  bool needs_llm = s.steps.empty();
  spec::for_each_step(s.steps, [&](const spec::StepSpec& st) {
    needs_llm = needs_llm || ((st.kind.value == StepKind::Llm || st.kind.value == StepKind::Agent) && !st.llm);
  });
  // A validation notes each part's problem and builds the rest; the executor is then not made.
  Diagnostics* found = given.found;
  size_t problems = found ? found->count() : 0;
  std::shared_ptr<const llm::LlmClient> llm;
  if (needs_llm) noted(found, [&] { llm = build_llm(s, options); });
  workflow::Executor::Parts parts;
  BuildOptions tool_options = inner;
  tool_options.found = found;
  tools::ToolRegistry registry = build_tools(s, tool_options, &parts.warnings);
  parts.name = s.name;
  parts.description = s.description;
  parts.durability = s.durability;
  parts.files = s.files;
  std::vector<std::string> names = input_names(s);
  for (const auto& i : s.inputs) parts.inputs.push_back({i.name, i.description, i.default_value, i.type});
  if (s.steps.empty()) {
    noted(found, [&] {
      if (!found) {
        parts.agent = build_agent(s, registry, std::move(llm), options.io);
        return;
      }
      spec::WorkflowSpec named = s;
      named.agent = named_tools_only(s.agent, registry, found);
      parts.agent = build_agent(named, registry, std::move(llm), options.io);
    });
    parts.chat_input = chat_input(s);
    parts.chat_output = s.agent.memory.output_key;
  } else {
    noted(found, [&] { parts.steps = build_steps(s, registry, std::move(llm), inner, found); });
    // A workflow of steps with an input named `input` is a chat model too: each turn runs it on the message alone
    // (its steps keep no memory of earlier turns).
    if (std::find(names.begin(), names.end(), "input") != names.end()) parts.chat_input = "input";
    if (auto price = model_price(s.llm)) parts.price = llm::Price{price->prompt, price->completion};
  }
  for (const auto& o : s.outputs)
    noted(found, [&] {
      std::string what = "outputs." + o.name + ".value";
      tmpl::TemplateOptions options;
      options.embedding = embedding_in(s, o.value.loc, what);
      tmpl::Template t = tmpl::Template::compile(o.value.value, s.display_path + " (" + what + ")", options);
      if (s.steps.empty()) check_free_names(t, names, kOutputContext, what, o.value.loc, s);
      else step_references(t, what, o.value.loc, s, found);
      parts.outputs.push_back({o.name, std::move(t), o.description});
    });
  if (found && found->count() != problems) return nullptr;
  parts.tools = std::move(registry);
  parts.secrets = secrets;
  auto executor = std::make_shared<const workflow::Executor>(std::move(parts));
  if (given.built) (*given.built)[&s] = executor;  // a sub-workflow: the next step or tool naming it shares it
  return executor;
}

}  // namespace

std::shared_ptr<const workflow::Executor> build_executor(const spec::WorkflowSpec& s, const BuildOptions& given) {
  // The set the load filled, shared by every workflow below: its runs' outputs carry what those workflows answer,
  // and the front end that passed it masks what fails on the way (an MCP server that quotes its key and exits).
  return build(s, given, s.secrets ? s.secrets : SecretSet::with_environment_keys());
}

}  // namespace engine::assemble
