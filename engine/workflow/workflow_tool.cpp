#include "engine/workflow/workflow_tool.h"

#include "engine/core/error.h"
#include "engine/workflow/input_types.h"

namespace engine::workflow {
namespace {

class WorkflowRun : public tools::ToolInstance {
 public:
  WorkflowRun(const Executor& executor, const tools::ToolContext& context) : executor_(executor), context_(context) {}

  tools::ToolResult invoke(const Value& input) override { return invoke(input, tools::CallContext{}); }

  // A journaled call's workflow journals its own calls under the call, so a run resumed inside it replays them.
  tools::ToolResult invoke(const Value& input, const tools::CallContext& call) override {
    Value given = input;
    if (input.is_string() && executor_.inputs().size() == 1) given = Value{{executor_.inputs()[0].name, input}};
    NullSink quiet;
    agent::RunResult r;
    try {
      agent::RunOptions options;
      options.cancel = context_.cancel;
      options.usage = context_.usage;  // its calls are the caller's: its usage and budgets count them
      options.trace = context_.trace;
      options.journal = call.journal;
      if (context_.events) {
        PlacingSink placed(*context_.events, executor_.name());  // its events show under the tool
        r = executor_.run(executor_.resolve_inputs(std::move(given)), placed, options);
      } else {
        r = executor_.run(executor_.resolve_inputs(std::move(given)), quiet, options);
      }
    } catch (const Error& e) {  // inputs that do not fit: the caller (a model) can correct them
      return tools::ToolResult::failure(e.kind(), "tool '" + executor_.name() + "': " + e.what());
    }
    if (!r.ok()) return tools::ToolResult::failure(r.error->kind, r.error->message);
    return tools::ToolResult::success(std::move(r.output));
  }

 private:
  const Executor& executor_;
  tools::ToolContext context_;
};

}  // namespace

Value WorkflowTool::parameters_of(const Executor& executor) {
  if (executor.inputs().size() == 1) return nullptr;
  Value properties = Value::object();
  Value required = Value::array();
  for (const auto& i : executor.inputs()) {
    Value p = Value::object();
    if (const char* type = schema_type(i)) p["type"] = type;
    if (!i.description.empty()) p["description"] = i.description;
    properties[i.name] = std::move(p);
    if (!i.default_value) required.push_back(i.name);
  }
  return Value{{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

WorkflowTool::WorkflowTool(std::shared_ptr<const Executor> executor, std::string name, std::string description,
                           std::string workflow_description)
    : Tool(name.empty() ? executor->name() : std::move(name),
           description.empty() ? std::move(workflow_description) : std::move(description),
           parameters_of(*executor)),
      executor_(std::move(executor)) {}

std::unique_ptr<tools::ToolInstance> WorkflowTool::instantiate(const tools::ToolContext& context) const {
  return std::make_unique<WorkflowRun>(*executor_, context);
}

}  // namespace engine::workflow
