#include "engine/assemble/build_steps.h"

#include <algorithm>

#include "engine/assemble/build_grants.h"
#include "engine/assemble/build_agent.h"
#include "engine/assemble/build_executor.h"
#include "engine/assemble/build_llm.h"
#include "engine/assemble/build_tools.h"
#include "engine/assemble/spec_errors.h"
#include "engine/assemble/template_checks.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/parse/schema_patterns.h"
#include "engine/tools/lua/lua_tool.h"
#include "engine/workflow/executor.h"
#include "engine/workflow/step_kinds.h"

namespace engine::assemble {
namespace {

const std::vector<std::string> kStepFields = {"output", "status"};

// An agent step is an agent as a one-agent workflow would build it: the workflow's model and tools, the step's agent
// block, and the step's inputs as the agent's declared inputs.
std::shared_ptr<const workflow::Executor> agent_executor(const spec::StepSpec& st, const spec::WorkflowSpec& s,
                                                         const tools::ToolRegistry& registry,
                                                         std::shared_ptr<const llm::LlmClient> llm,
                                                         const BuildOptions& options, const Diagnostics* found) {
  spec::WorkflowSpec one = s;
  if (st.llm) one.llm = *st.llm;  // the agent's own model: its chat template, tool choice and prices too
  one.steps.clear();
  one.outputs.clear();
  one.agent = named_tools_only(*st.agent, registry, found);
  one.inputs.clear();
  std::vector<workflow::Input> inputs;
  for (const auto& [name, value] : st.inputs) {
    one.inputs.push_back(spec::InputSpec{name, "", std::nullopt, "", value.loc});
    inputs.push_back({name, "", std::nullopt});
  }
  workflow::Executor::Parts parts;
  parts.name = st.name;
  parts.inputs = std::move(inputs);
  parts.tools = registry;
  parts.agent = build_agent(one, registry, std::move(llm), options.io);
  return std::make_shared<workflow::Executor>(std::move(parts));
}

tmpl::Template step_template(const spec::TemplateSource& src, const spec::WorkflowSpec& s) {
  return compile_template(src, spec::TemplateFlags{}, s);
}

// Where a template sits: the steps of its own graph (its edges), and, inside a loop's body, the steps outside it
// (read through the loop) and the body's previous iteration.
struct Scope {
  std::vector<std::string> local;
  std::vector<std::string> outer;
  bool in_loop = false;
  // A validation's: a step the loader left out is no missing step for the steps that read it.
  Diagnostics* found = nullptr;
};

struct References {
  std::vector<size_t> local;  // indices into Scope::local
  std::vector<size_t> outer;  // indices into Scope::outer
};

void add_once(std::vector<size_t>& to, size_t i) {
  if (std::find(to.begin(), to.end(), i) == to.end()) to.push_back(i);
}

References references(const tmpl::Template& t, const std::string& what, const SourceLoc& loc,
                      const spec::WorkflowSpec& s, const Scope& scope, const std::string& self,
                      const std::vector<std::string>& item_names) {
  std::vector<std::string> inputs = input_names(s);
  std::vector<std::string> visible = scope.local;
  visible.insert(visible.end(), scope.outer.begin(), scope.outer.end());
  const tmpl::NamePath* current = nullptr;  // the read being checked: an error points at it, in a block too
  auto fail = [&](const std::string& message) {
    SourceLoc at = loc;
    if (current)
      if (auto place = t.place_in_file(current->line, current->col)) at = *place;
    throw Error(ErrorKind::SpecBadReference, what + " reads " + message, at, quoted_line(s, at));
  };
  std::vector<std::string> provided = {"inputs", "steps"};
  if (scope.in_loop) provided.insert(provided.end(), {"previous", "iteration"});
  if (!scope.in_loop)
    for (const auto& name : t.free_names())
      if ((name == "previous" || name == "iteration") && std::find(inputs.begin(), inputs.end(), name) == inputs.end())
        throw Error(ErrorKind::SpecBadReference,
                    what + " reads '" + name + "', which exists only inside a loop's steps (kind: loop)", loc,
                    quoted_line(s, loc));
  provided.insert(provided.end(), item_names.begin(), item_names.end());
  check_free_names(t, inputs, provided, what, loc, s);
  References refs;
  for (const auto& path : t.free_paths()) {
    current = &path;
    const auto& p = path.parts;
    std::string read = join(p, ".");
    if (p[0] == "inputs" && p.size() > 1 && std::find(inputs.begin(), inputs.end(), p[1]) == inputs.end())
      fail("'" + read + "', and the workflow has no input '" + p[1] + "'" +
           (did_you_mean(p[1], inputs).empty()
                ? " (declared inputs: " + (inputs.empty() ? std::string("none") : join(inputs, ", ")) + ")"
                : did_you_mean(p[1], inputs)));
    if (p[0] == "previous" && scope.in_loop) {
      if (p.size() < 3 || std::find(scope.local.begin(), scope.local.end(), p[1]) == scope.local.end() ||
          std::find(kStepFields.begin(), kStepFields.end(), p[2]) == kStepFields.end())
        fail("'" + read + "': the previous iteration is read as previous.NAME.output (or .status), NAME a step of "
             "the loop (" + join(scope.local, ", ") + ")");
      continue;
    }
    if (p[0] != "steps") continue;
    if (p.size() < 3)
      fail("'" + read + "': a step is read as steps.NAME.output (or steps.NAME.status), so the graph knows the step");
    auto at = std::find(visible.begin(), visible.end(), p[1]);
    if (at == visible.end() && scope.found && scope.found->was_left_out(Diagnostics::Entry::step, p[1])) continue;
    if (at == visible.end())
      fail("'" + read + "', and there is no step '" + p[1] + "'" +
           (did_you_mean(p[1], visible).empty() ? " (steps: " + join(visible, ", ") + ")" : did_you_mean(p[1], visible)));
    if (p[1] == self) fail("'" + read + "', its own output: a step cannot read itself");
    if (std::find(kStepFields.begin(), kStepFields.end(), p[2]) == kStepFields.end())
      fail("'" + read + "': a step has output and status" + did_you_mean(p[2], kStepFields));
    size_t index = static_cast<size_t>(at - visible.begin());
    if (index < scope.local.size()) add_once(refs.local, index);
    else add_once(refs.outer, index - scope.local.size());
  }
  return refs;
}

tmpl::Template expression(const spec::Located<std::string>& src, const std::string& path, const spec::WorkflowSpec& s) {
  tmpl::TemplateOptions o;
  o.scope = s.scope;
  o.include_dir = s.dir;
  o.embedding = embedding_in(s, src.loc, path);
  return tmpl::Template::compile_expression(src.value, s.display_path + " (" + path + ")", o);
}

// A lua step's script, loaded and compiled once: a tool's script (a function, or a table with `run`), called with
// the step's inputs as one table.
std::shared_ptr<const tools::lua::LuaTool> lua_step_script(const spec::StepSpec& st, const spec::WorkflowSpec& s,
                                                           const BuildOptions& options) {
  tools::lua::LuaToolConfig cfg;
  cfg.file = st.lua_file;
  cfg.display_path = script_display_path(s, st.lua.value);
  cfg.name = st.name;
  cfg.limits = granted_limits(lua_limits(st.lua_limits), st.lua_limits, st.allow);
  if (!st.allow.empty()) cfg.capabilities = build_capabilities(st.allow, s, st.path, options.io);
  try {
    return tools::lua::LuaTool::load(cfg);
  } catch (const Error& e) {
    if (e.loc().line > 0) throw;  // a syntax error already points into the script
    throw Error(e.kind(), st.path + ".lua: " + e.message(), st.lua.loc, quoted_line(s, st.lua.loc));
  }
}

void build_step(const spec::StepSpec& st, workflow::Step& step, const Scope& scope, const spec::WorkflowSpec& s,
                const tools::ToolRegistry& registry, const std::shared_ptr<const llm::LlmClient>& llm,
                const BuildOptions& options, std::vector<size_t>* outer_reads);

// The steps of one graph (the workflow's, or a loop's body). A body's reads of steps outside it are gathered in
// `outer_reads`: they are the loop step's edges.
std::vector<workflow::Step> build_graph(const std::vector<spec::StepSpec>& specs, const Scope& scope, const spec::WorkflowSpec& s,
                                        const tools::ToolRegistry& registry,
                                        const std::shared_ptr<const llm::LlmClient>& llm,
                                        const BuildOptions& options, std::vector<size_t>* outer_reads) {
  std::vector<workflow::Step> steps;
  for (const auto& st : specs) {
    workflow::Step step{st.name, st.kind.value, nullptr, std::nullopt, {}};
    // A step with a problem stays in the graph without its work (a validation's): the reads of the others are
    // checked against every step the file names, and the cycle check sees the reads it made before the problem.
    noted(scope.found, [&] { build_step(st, step, scope, s, registry, llm, options, outer_reads); });
    steps.push_back(std::move(step));
  }
  auto cycle = workflow::find_cycle(steps);
  if (!cycle.empty()) {
    std::vector<std::string> names;
    for (size_t i : cycle) names.push_back(steps[i].name);
    const SourceLoc& loc = specs[cycle.front()].loc;
    throw Error(ErrorKind::SpecCycle, "the steps read each other in a cycle: " + join(names, " -> "), loc, quoted_line(s, loc));
  }
  return steps;
}

void build_step(const spec::StepSpec& st, workflow::Step& step, const Scope& scope, const spec::WorkflowSpec& s,
                const tools::ToolRegistry& registry, const std::shared_ptr<const llm::LlmClient>& llm,
                const BuildOptions& options, std::vector<size_t>* outer_reads) {
  const std::string& path = st.path;
  step.may_wait = st.kind.value != StepKind::Template;
  step.attempts = st.attempts;
  step.backoff = std::chrono::milliseconds(static_cast<long long>(st.backoff * 1000));
  step.continue_on_error = st.continue_on_error;
  if (st.timeout) step.timeout = std::chrono::milliseconds(static_cast<long long>(*st.timeout * 1000));
  // A for_each step's templates read the item too; its for_each expression and when do not.
  std::vector<std::string> item_names;
  if (!st.for_each.value.empty()) item_names = {"item", "item_index"};
  auto read = [&](const tmpl::Template& t, const std::string& what, const SourceLoc& loc, bool per_item = true) {
    References r = references(t, what, loc, s, scope, st.name, per_item ? item_names : std::vector<std::string>{});
    for (size_t i : r.local) add_once(step.reads, i);
    if (outer_reads)
      for (size_t i : r.outer) add_once(*outer_reads, i);
  };
  if (st.kind.value == StepKind::Template) {
    tmpl::Template t = step_template(st.text, s);
    read(t, path + ".template", st.text.loc);
    step.work = std::make_shared<workflow::TemplateWork>(std::move(t));
  } else if (st.kind.value == StepKind::Llm) {
    tmpl::Template t = step_template(st.text, s);
    read(t, path + ".prompt", st.text.loc);
    const spec::LlmSpec& model = st.llm ? *st.llm : s.llm;
    agent::RunLimits limits;
    limits.temperature = model.temperature;
    limits.max_tokens = model.max_tokens;
    if (auto price = model_price(model)) limits.price = llm::Price{price->prompt, price->completion};
    std::optional<agent::OutputSchema> output;
    if (!st.output_schema.is_null()) {
      try {
        output = agent::OutputSchema{schema::Schema::compile(st.output_schema, {parse::schema_patterns()}), "", false};
      } catch (const Error& e) {
        throw Error(e.kind(), path + ".output_schema: " + e.message(), st.output_schema_loc,
                    quoted_line(s, st.output_schema_loc));
      }
    }
    step.work = std::make_shared<workflow::LlmWork>(st.llm ? build_step_llm(*st.llm, path + ".llm", s, options) : llm,
                                                    std::move(t), std::move(limits), std::move(output));
  } else if (st.kind.value == StepKind::Tool) {
    std::shared_ptr<const tools::Tool> tool;  // shared: the step keeps its tool alive
    std::optional<Effect> effect;
    Approval approval = Approval::Allow;
    for (size_t i = 0; i < registry.all().size(); ++i)
      if (registry.all()[i]->name() == st.tool.value) {
        tool = registry.all()[i];
        effect = declared_effect(s.tools[registry.origin(i)]);
        approval = s.tools[registry.origin(i)].approve.for_tool(st.tool.value);
      }
    if (!tool && scope.found && scope.found->was_left_out(Diagnostics::Entry::tool, st.tool.value)) return;
    if (!tool)
      throw Error(ErrorKind::SpecUnknownTool,
                  "unknown tool '" + st.tool.value + "' in " + path + ".tool" + did_you_mean(st.tool.value, registry.names()),
                  st.tool.loc, quoted_line(s, st.tool.loc));
    tmpl::Template t = step_template(st.text, s);
    read(t, path + ".input", st.text.loc);
    Effect resolved = effect.value_or(tool->effect());
    step.work = std::make_shared<workflow::ToolWork>(std::move(tool), std::move(t), resolved, approval);
  } else if (st.kind.value == StepKind::Workflow) {
    const spec::WorkflowSpec& child = *st.workflow_spec;
    std::vector<std::string> declared = input_names(child);
    std::vector<std::pair<std::string, tmpl::Template>> inputs;
    for (const auto& [name, value] : st.inputs) {
      if (std::find(declared.begin(), declared.end(), name) == declared.end())
        throw Error(ErrorKind::SpecBadReference,
                    path + ".inputs." + name + ": '" + st.workflow.value + "' has no input '" + name + "'" +
                        (did_you_mean(name, declared).empty()
                             ? " (its inputs: " + (declared.empty() ? std::string("none") : join(declared, ", ")) + ")"
                             : did_you_mean(name, declared)),
                    value.loc, quoted_line(s, value.loc));
      tmpl::Template t = step_template(value, s);
      read(t, path + ".inputs." + name, value.loc);
      inputs.emplace_back(name, std::move(t));
    }
    for (const auto& i : child.inputs)
      if (!i.default_value && std::none_of(st.inputs.begin(), st.inputs.end(), [&](const auto& g) { return g.first == i.name; }))
        throw Error(ErrorKind::SpecMissingKey, path + " gives no value for '" + st.workflow.value + "' input '" + i.name +
                                            "', which has no default: add it under " + path + ".inputs",
                    st.workflow.loc, quoted_line(s, st.workflow.loc));
    step.work = std::make_shared<workflow::SubRunWork>(build_executor(child, options), std::move(inputs));
  } else if (st.kind.value == StepKind::Lua) {
    std::vector<std::pair<std::string, tmpl::Template>> inputs;
    for (const auto& [name, value] : st.inputs) {
      tmpl::Template t = step_template(value, s);
      read(t, path + ".inputs." + name, value.loc);
      inputs.emplace_back(name, std::move(t));
    }
    step.work = std::make_shared<workflow::LuaWork>(lua_step_script(st, s, options), std::move(inputs));
  } else if (st.kind.value == StepKind::Loop) {
    // The body is a graph of its own; what it reads outside, and what `until` reads, are the loop's edges.
    Scope body_scope{{}, scope.local, true, scope.found};
    for (const auto& b : st.body) body_scope.local.push_back(b.name);
    std::vector<size_t> outside;
    auto body = build_graph(st.body, body_scope, s, registry, llm, options, &outside);
    for (size_t i : outside) add_once(step.reads, i);
    tmpl::Template until = expression(st.until, path + ".until", s);
    References r = references(until, path + ".until", st.until.loc, s, body_scope, "", {});
    for (size_t i : r.outer) add_once(step.reads, i);
    step.work = std::make_shared<workflow::LoopWork>(std::move(body), std::move(until), st.max_iterations);
  } else {
    std::vector<std::pair<std::string, tmpl::Template>> inputs;
    for (const auto& [name, value] : st.inputs) {
      tmpl::Template t = step_template(value, s);
      read(t, path + ".inputs." + name, value.loc);
      inputs.emplace_back(name, std::move(t));
    }
    auto model = st.llm ? build_step_llm(*st.llm, path + ".llm", s, options) : llm;
    step.work = std::make_shared<workflow::SubRunWork>(agent_executor(st, s, registry, std::move(model), options, scope.found),
                                                       std::move(inputs));
  }
  if (!st.when.value.empty()) {
    step.when = expression(st.when, path + ".when", s);
    read(*step.when, path + ".when", st.when.loc, false);
  }
  if (!st.for_each.value.empty()) {
    step.for_each = expression(st.for_each, path + ".for_each", s);
    read(*step.for_each, path + ".for_each", st.for_each.loc, false);
    step.concurrency = static_cast<size_t>(st.concurrency);
  }
}

Scope top_scope(const spec::WorkflowSpec& s, Diagnostics* found) {
  Scope scope;
  scope.found = found;
  for (const auto& st : s.steps) scope.local.push_back(st.name);
  return scope;
}

}  // namespace

std::vector<size_t> step_references(const tmpl::Template& t, const std::string& what, const SourceLoc& loc,
                                    const spec::WorkflowSpec& s, Diagnostics* found) {
  return references(t, what, loc, s, top_scope(s, found), "", {}).local;
}

std::vector<workflow::Step> build_steps(const spec::WorkflowSpec& s, const tools::ToolRegistry& registry,
                                        std::shared_ptr<const llm::LlmClient> llm, const BuildOptions& options,
                                        Diagnostics* found) {
  return build_graph(s.steps, top_scope(s, found), s, registry, llm, options, nullptr);
}

}  // namespace engine::assemble
