// engine tools WORKFLOW: list the tools. engine tool WORKFLOW NAME --input TEXT: run one tool alone.
#include <iostream>

#include "engine/app/inspection.h"
#include "engine/app/loading.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/core/json_text.h"
#include "engine/trace/console_printer.h"

namespace engine::cli {
namespace {

struct ToolOptions {
  std::string workflow;
  std::string name;
  std::string input;
  bool json = false;
};

int list_tools(const std::string& workflow, bool json) {
  auto executor = load_executor(workflow);
  // An MCP server writes its own tools' descriptions: stdout masks them as anything else it says.
  if (json) {
    std::cout << to_json_text(app::describe_tools(*executor)) << std::endl;
    return kOk;
  }
  for (const auto& t : executor->tools().all())
    std::cout << t->name() << " (" << t->kind() << ")"
              << (t->description().empty() ? "" : ": " + t->description()) << "\n";
  std::cout.flush();
  return kOk;
}

int run_tool(const ToolOptions& o) {
  auto executor = load_executor(o.workflow);
  trace::ConsolePrinter console(std::cerr, false);
  // What a tool says may quote a key it was given (an MCP server its environment): stdout and stderr mask it.
  tools::ToolResult r = app::call_tool(*executor, o.workflow, o.name, o.input, console);
  if (o.json) {
    Value v{{"tool", o.name}, {"ok", r.ok()}, {"observation", r.output}};
    if (!r.ok()) v["error"] = *r.error_kind;
    std::cout << to_json_text(v) << std::endl;
  } else if (r.ok()) {
    std::cout << r.text() << std::endl;
  }
  if (!r.ok()) {
    if (!o.json) print_error(*r.error_kind, r.text());
    return kRunFailed;
  }
  return kOk;
}

}  // namespace

void add_tools_commands(CLI::App& app, int& exit_code) {
  auto workflow = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* list = app.add_subcommand("tools", "List a workflow's tools");
  list->add_option("workflow", *workflow, "The workflow YAML file")->required();
  list->add_flag("--json", *json, "Print [{name, kind, description, parameters}] as JSON");
  list->callback([workflow, json, &exit_code] { exit_code = guarded([&] { return list_tools(*workflow, *json); }); });

  auto o = std::make_shared<ToolOptions>();
  CLI::App* one = app.add_subcommand("tool", "Run one tool of a workflow with an input");
  one->add_option("workflow", o->workflow, "The workflow YAML file")->required();
  one->add_option("name", o->name, "The tool's name")->required();
  one->add_option("-i,--input", o->input, "The tool's input: text, or a JSON object for a tool with parameters");
  one->add_flag("--json", o->json, "Print {tool, ok, observation, error} as JSON");
  one->callback([o, &exit_code] { exit_code = guarded([&] { return run_tool(*o); }); });
}

}  // namespace engine::cli
