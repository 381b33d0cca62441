// The workflow file: its top-level keys, each section handed to its reader (section_readers.h), and the checks
// across sections (the tools an agent or a step names).
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/file_scope.h"
#include "engine/core/text.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/section_readers.h"
#include "engine/spec/spec_file.h"
#include "engine/spec/workflow_spec.h"
#include "engine/spec/yaml_document.h"

namespace engine::spec {

namespace keys {

// The keys this reader takes (format_keys.h): a new key is added here, read below, and described in
// schema/workflow.schema.json.
// `$schema` names the JSON Schema for editors (schema/workflow.schema.json); `tests` are the workflow's own tests
// (test_spec.h). A run reads neither.
const KeyList kTop = {"$schema", "version", "name",  "description", "inputs", "outputs",
                      "llm",     "tools",   "agent", "steps",       "tests",  "durability"};

}  // namespace keys

namespace {

class Loader {
 public:
  Loader(const SourceText& src, std::string display, std::filesystem::path dir, const FileScope& scope,
         const LoadOptions& options)
      : in_(src, std::move(display), std::move(dir), scope, options), r_(in_.r) {}

  WorkflowSpec load(const YAML::Node& root) {
    WorkflowSpec w;
    if (!root.IsDefined() || root.IsNull())
      r_.fail_at(ErrorKind::SpecEmpty, "the workflow file is empty", SourceLoc{in_.display});
    r_.expect_map(root, "the workflow", keys::kTop);
    in_.key(root, "version", [&](const YAML::Node& v) { w.version = static_cast<int>(r_.integer(v, "version", 1, 1)); });
    in_.key(root, "name", [&](const YAML::Node& v) { w.name = r_.str(v, "name"); });
    in_.key(root, "description", [&](const YAML::Node& v) { w.description = r_.str(v, "description"); });
    in_.key(root, "durability", [&](const YAML::Node& v) {
      w.durability = durability_named(in_.one_of(v, "durability", durability_names()).value);
    });
    section(root, "inputs", [&](const YAML::Node& v) { w.inputs = read_inputs(in_, v); });
    section(root, "outputs", [&](const YAML::Node& v) { w.outputs = read_outputs(in_, v); });
    if (root["steps"] && root["agent"])
      r_.fail(ErrorKind::SpecConflict, "a workflow has steps or one agent, not both: make the agent a step (kind: agent)",
              root["agent"]);
    if (!root["steps"]) r_.expect_present(root, "llm", "the workflow");
    section(root, "llm", [&](const YAML::Node& v) { w.llm = read_llm(in_, v, "llm"); });
    section(root, "tools", [&](const YAML::Node& v) { w.tools = read_tools(in_, v); });
    if (root["steps"]) {
      section(root, "steps", [&](const YAML::Node& v) { w.steps = read_steps(in_, v, "steps"); });
      if (!root["llm"])
        for_each_step(w.steps, [&](const StepSpec& step) {
          if ((step.kind.value == StepKind::Llm || step.kind.value == StepKind::Agent) && !step.llm)
            in_.entry([&] {
              r_.fail_at(ErrorKind::SpecMissingKey, step.path + " (kind: " + std::string(name_of(step.kind.value)) +
                                                 ") needs a model: add an llm block to the workflow",
                         step.kind.loc);
            });
        });
    } else {
      r_.expect_present(root, "agent", "the workflow");
      section(root, "agent", [&](const YAML::Node& v) { w.agent = read_agent(in_, v, "agent"); });
    }
    check_references(w);
    return w;
  }

 private:
  // A top-level section read by `read`. One that cannot be read at all (tools: that is not a list) leaves what
  // names its entries unjudged, and the build unasked (core/diagnostics.h).
  template <class F>
  void section(const YAML::Node& root, const char* name, F&& read) {
    const YAML::Node v = root[name];
    if (!v || in_.entry([&] { read(v); }) || !in_.found()) return;
    in_.found()->section_unread();
    in_.found()->left_out(Diagnostics::Entry::tool, "");
    in_.found()->left_out(Diagnostics::Entry::step, "");
  }

  void check_references(WorkflowSpec& w) {
    std::vector<std::string> names;
    for (const auto& t : w.tools) {
      if (t.mcp) {  // its tools' names: those it allows, or whatever it lists once started
        for (const auto& a : t.mcp->allow) names.push_back(t.mcp->prefix + a.value);
        continue;
      }
      if (std::find(names.begin(), names.end(), t.name.value) != names.end() && !t.name.value.empty())
        in_.entry([&] { r_.fail_at(ErrorKind::SpecDuplicateKey, "two tools are named '" + t.name.value + "'", t.name.loc); });
      if (!t.name.value.empty()) names.push_back(t.name.value);
    }
    // Lua tools may take their name from the script, and an MCP server without a tools list names its tools when it
    // is started; references are checked again once they are known.
    auto lua_named_later = std::count_if(w.tools.begin(), w.tools.end(), [](const ToolSpec& t) {
      return t.mcp ? t.mcp->allow.empty() : t.name.value.empty();
    });
    auto check = [&](const std::vector<Located<std::string>>& refs, const char* path) {
      for (const auto& ref : refs)
        if (std::find(names.begin(), names.end(), ref.value) == names.end() && lua_named_later == 0 &&
            !(in_.found() && in_.found()->was_left_out(Diagnostics::Entry::tool, ref.value)))
          in_.entry([&] {
            r_.fail_at(ErrorKind::SpecUnknownTool, "unknown tool '" + ref.value + "' in " + std::string(path) +
                                                did_you_mean(ref.value, names), ref.loc);
          });
    };
    check(w.agent.tools, "agent.tools");
    check(w.agent.return_direct, "agent.return_direct");
    for_each_step(w.steps, [&](const StepSpec& step) {
      if (step.kind.value == StepKind::Tool) check({step.tool}, (step.path + ".tool").c_str());
      if (step.agent) {
        check(step.agent->tools, (step.agent->path + ".tools").c_str());
        check(step.agent->return_direct, (step.agent->path + ".return_direct").c_str());
      }
    });
  }

  SectionReader in_;
  YamlReader& r_;
};

}  // namespace

WorkflowSpec parse_workflow(std::string text, std::string display_path, std::filesystem::path dir,
                            const LoadOptions& given) {
  LoadOptions options = given;
  if (!options.loaded) options.loaded = std::make_shared<LoadedWorkflows>();
  if (!options.secrets) options.secrets = SecretSet::with_environment_keys();
  // The keys every provider reads by default, as they are now: a given set may be older than the environment.
  for (const std::string& name : standard_key_variables())
    if (auto key = process_environment()(name)) options.secrets->add(*key);
  auto source = std::make_shared<SourceText>(display_path, std::move(text));
  YAML::Node root = parse_yaml_document(*source);
  FileScope scope({dir}, options.search_path);
  WorkflowSpec w = Loader(*source, display_path, dir, scope, options).load(root);
  w.scope = std::make_shared<const FileScope>(std::move(scope));
  w.display_path = std::move(display_path);
  w.dir = std::move(dir);
  w.source = std::move(source);
  w.secrets = options.secrets;
  w.files.assign(options.loaded->files.begin(), options.loaded->files.end());
  return w;
}

WorkflowSpec load_workflow(const std::filesystem::path& file, const LoadOptions& options) {
  SpecFile f = read_spec_file(file);  // named on the command line: may be a pipe
  LoadOptions inner = options;
  inner.including.push_back(std::filesystem::weakly_canonical(file));
  WorkflowSpec w = parse_workflow(std::move(f.text), file.string(), f.dir, inner);
  std::error_code ec;
  std::filesystem::path own = std::filesystem::weakly_canonical(file, ec);
  if (!ec && std::filesystem::is_regular_file(own, ec)) w.files.insert(w.files.begin(), own);  // not a pipe
  return w;
}

}  // namespace engine::spec
