#include "engine/tools/builtin_tools.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "engine/core/error.h"

namespace engine::tools {
namespace {

// A tool whose whole behaviour is a function of its input; it needs no per-run state.
class FunctionTool : public Tool, public ToolInstance {
 public:
  using Fn = ToolResult (*)(const Value&);
  FunctionTool(std::string builtin, std::string name, std::string description, Fn fn, Value parameters = nullptr,
               const schema::SchemaOptions& options = {})
      : Tool(std::move(name), std::move(description), std::move(parameters), options),
        builtin_(std::move(builtin)),
        fn_(fn) {}
  std::string kind() const override { return "builtin:" + builtin_; }
  Effect effect() const override { return Effect::Read; }  // echo, current_time
  // The instance only calls the function: the parameters stay with the shared tool.
  std::unique_ptr<ToolInstance> instantiate(const ToolContext&) const override {
    return std::make_unique<FunctionTool>(builtin_, name(), description(), fn_);
  }
  ToolResult invoke(const Value& input) override { return fn_(input); }

 private:
  std::string builtin_;
  Fn fn_;
};

ToolResult echo(const Value& input) { return ToolResult::success(input); }

ToolResult current_time(const Value&) {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return ToolResult::success(std::string(buf));
}

struct Builtin {
  const char* name;
  const char* description;
  FunctionTool::Fn fn;
};
const Builtin kBuiltins[] = {
    {"echo", "Returns its input unchanged.", echo},
    {"current_time", "Returns the current date and time in UTC, ISO 8601.", current_time},
};

}  // namespace

std::shared_ptr<const Tool> make_builtin_tool(const std::string& builtin, std::string name, std::string description,
                                              Value parameters, const schema::SchemaOptions& options,
                                              const GrantedToolOptions& granted) {
  if (std::find(granted_tool_names().begin(), granted_tool_names().end(), builtin) != granted_tool_names().end()) {
    if (!parameters.is_null())
      throw Error(ErrorKind::SpecConflict, "builtin '" + builtin + "' declares its own parameters; leave parameters: out");
    GrantedToolOptions o = granted;
    o.name = std::move(name);
    o.description = std::move(description);
    o.schema_options = options;
    return make_granted_tool(builtin, std::move(o));
  }
  for (const auto& b : kBuiltins)
    if (builtin == b.name) {
      if (!granted.capabilities.empty())
        throw Error(ErrorKind::SpecConflict, "builtin '" + builtin + "' reaches nothing outside; leave allow: out");
      return std::make_shared<FunctionTool>(builtin, name.empty() ? builtin : std::move(name),
                                            description.empty() ? b.description : std::move(description), b.fn,
                                            std::move(parameters), options);
    }
  return nullptr;
}

const std::vector<std::string>& builtin_tool_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& b : kBuiltins) v.push_back(b.name);
    for (const auto& g : granted_tool_names()) v.push_back(g);
    return v;
  }();
  return names;
}

}  // namespace engine::tools
