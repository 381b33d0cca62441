#include "engine/assemble/build_steps.h"

#include <algorithm>

#include "engine/assemble/build_agent.h"
#include "engine/assemble/build_llm.h"
#include "engine/assemble/spec_errors.h"
#include "engine/assemble/template_checks.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/workflow/executor.h"
#include "engine/workflow/step_kinds.h"

namespace engine::assemble {
namespace {

const std::vector<std::string> kStepFields = {"output", "status"};

// An agent step is an agent as a one-agent workflow would build it: the workflow's model and tools, the step's agent
// block, and the step's inputs as the agent's declared inputs.
std::shared_ptr<const workflow::Executor> agent_executor(const spec::StepSpec& st, const spec::WorkflowSpec& s,
                                                         const tools::ToolRegistry& registry,
                                                         std::shared_ptr<const llm::LlmClient> llm) {
  spec::WorkflowSpec one = s;
  one.steps.clear();
  one.outputs.clear();
  one.agent = *st.agent;
  one.inputs.clear();
  std::vector<workflow::Input> inputs;
  for (const auto& [name, value] : st.inputs) {
    one.inputs.push_back(spec::InputSpec{name, "", std::nullopt, value.loc});
    inputs.push_back({name, "", std::nullopt});
  }
  workflow::Executor::Parts parts;
  parts.name = st.name;
  parts.inputs = std::move(inputs);
  parts.tools = registry;
  parts.agent = build_agent(one, registry, std::move(llm));
  return std::make_shared<workflow::Executor>(std::move(parts));
}

tmpl::Template step_template(const spec::TemplateSource& src, const spec::WorkflowSpec& s) {
  return compile_template(src, spec::TemplateFlags{}, s);
}

}  // namespace

std::vector<size_t> step_references(const tmpl::Template& t, const std::string& what, const SourceLoc& loc,
                                    const spec::WorkflowSpec& s, const std::string& self,
                                    const std::vector<std::string>& item_names) {
  std::vector<std::string> names;
  for (const auto& st : s.steps) names.push_back(st.name);
  std::vector<std::string> inputs = input_names(s);
  auto fail = [&](const std::string& message) {
    throw Error("spec.bad_reference", what + " reads " + message, loc, quoted_line(s, loc));
  };
  std::vector<std::string> provided = {"inputs", "steps"};
  provided.insert(provided.end(), item_names.begin(), item_names.end());
  check_free_names(t, inputs, provided, what, loc, s);
  std::vector<size_t> reads;
  for (const auto& path : t.free_paths()) {
    const auto& p = path.parts;
    std::string read = join(p, ".");
    if (p[0] == "inputs" && p.size() > 1 && std::find(inputs.begin(), inputs.end(), p[1]) == inputs.end())
      fail("'" + read + "', and the workflow has no input '" + p[1] + "'" +
           (did_you_mean(p[1], inputs).empty()
                ? " (declared inputs: " + (inputs.empty() ? std::string("none") : join(inputs, ", ")) + ")"
                : did_you_mean(p[1], inputs)));
    if (p[0] != "steps") continue;
    if (p.size() < 3)
      fail("'" + read + "': a step is read as steps.NAME.output (or steps.NAME.status), so the graph knows the step");
    auto at = std::find(names.begin(), names.end(), p[1]);
    if (at == names.end())
      fail("'" + read + "', and there is no step '" + p[1] + "'" +
           (did_you_mean(p[1], names).empty() ? " (steps: " + join(names, ", ") + ")" : did_you_mean(p[1], names)));
    if (p[1] == self) fail("'" + read + "', its own output: a step cannot read itself");
    if (std::find(kStepFields.begin(), kStepFields.end(), p[2]) == kStepFields.end())
      fail("'" + read + "': a step has output and status" + did_you_mean(p[2], kStepFields));
    size_t index = static_cast<size_t>(at - names.begin());
    if (std::find(reads.begin(), reads.end(), index) == reads.end()) reads.push_back(index);
  }
  return reads;
}

std::vector<workflow::Step> build_steps(const spec::WorkflowSpec& s, const tools::ToolRegistry& registry,
                                        std::shared_ptr<const llm::LlmClient> llm) {
  std::vector<workflow::Step> steps;
  for (const auto& st : s.steps) {
    std::string path = "steps." + st.name;
    workflow::Step step{st.name, st.kind.value, nullptr, std::nullopt, {}};
    step.attempts = st.attempts;
    step.backoff = std::chrono::milliseconds(static_cast<long long>(st.backoff * 1000));
    step.continue_on_error = st.continue_on_error;
    // A for_each step's templates read the item too; its for_each expression and when do not.
    std::vector<std::string> item_names;
    if (!st.for_each.value.empty()) item_names = {"item", "item_index"};
    auto read = [&](const tmpl::Template& t, const std::string& what, const SourceLoc& loc,
                    bool per_item = true) {
      for (size_t r : step_references(t, what, loc, s, st.name, per_item ? item_names : std::vector<std::string>{}))
        if (std::find(step.reads.begin(), step.reads.end(), r) == step.reads.end()) step.reads.push_back(r);
    };
    if (st.kind.value == "template") {
      tmpl::Template t = step_template(st.text, s);
      read(t, path + ".template", st.text.loc);
      step.work = std::make_shared<workflow::TemplateWork>(std::move(t));
    } else if (st.kind.value == "llm") {
      tmpl::Template t = step_template(st.text, s);
      read(t, path + ".prompt", st.text.loc);
      agent::RunLimits limits;
      limits.temperature = s.llm.temperature;
      limits.max_tokens = s.llm.max_tokens;
      if (auto price = model_price(s.llm)) limits.price = llm::Price{price->prompt, price->completion};
      step.work = std::make_shared<workflow::LlmWork>(llm, std::move(t), std::move(limits));
    } else if (st.kind.value == "tool") {
      std::shared_ptr<const tools::Tool> tool;  // shared: the step keeps its tool alive
      for (const auto& t : registry.all())
        if (t->name() == st.tool.value) tool = t;
      if (!tool)
        throw Error("spec.unknown_tool",
                    "unknown tool '" + st.tool.value + "' in " + path + ".tool" + did_you_mean(st.tool.value, registry.names()),
                    st.tool.loc, quoted_line(s, st.tool.loc));
      tmpl::Template t = step_template(st.text, s);
      read(t, path + ".input", st.text.loc);
      step.work = std::make_shared<workflow::ToolWork>(std::move(tool), std::move(t));
    } else {
      std::vector<std::pair<std::string, tmpl::Template>> inputs;
      for (const auto& [name, value] : st.inputs) {
        tmpl::Template t = step_template(value, s);
        read(t, path + ".inputs." + name, value.loc);
        inputs.emplace_back(name, std::move(t));
      }
      step.work = std::make_shared<workflow::SubRunWork>(agent_executor(st, s, registry, llm), std::move(inputs));
    }
    if (!st.when.value.empty()) {
      tmpl::TemplateOptions o;
      o.scope = s.scope;
      o.include_dir = s.dir;
      step.when = tmpl::Template::compile_expression(st.when.value, s.display_path + " (" + path + ".when)", o);
      read(*step.when, path + ".when", st.when.loc, false);
    }
    if (!st.for_each.value.empty()) {
      tmpl::TemplateOptions o;
      o.scope = s.scope;
      o.include_dir = s.dir;
      step.for_each =
          tmpl::Template::compile_expression(st.for_each.value, s.display_path + " (" + path + ".for_each)", o);
      read(*step.for_each, path + ".for_each", st.for_each.loc, false);
      step.concurrency = static_cast<size_t>(st.concurrency);
    }
    steps.push_back(std::move(step));
  }
  auto cycle = workflow::find_cycle(steps);
  if (!cycle.empty()) {
    std::vector<std::string> names;
    for (size_t i : cycle) names.push_back(steps[i].name);
    const SourceLoc& loc = s.steps[cycle.front()].loc;
    throw Error("spec.cycle", "the steps read each other in a cycle: " + join(names, " -> "), loc, quoted_line(s, loc));
  }
  return steps;
}

}  // namespace engine::assemble
