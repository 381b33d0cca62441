// engine render WORKFLOW --input ...: the first prompt. engine render TEMPLATE --vars FILE.json: one template.
// Either ends with a line end (added when the text has none), or is {"text"} with --json.
#include <iostream>

#include "engine/app/inspection.h"
#include "engine/app/loading.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/json_text.h"

namespace engine::cli {
namespace {

struct RenderOptions {
  std::string file;
  InputOptions inputs;
  std::string vars;
  bool lenient = false;
  bool json = false;
};

bool is_workflow(const std::string& path) {
  auto ext = std::filesystem::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

std::string rendered(const RenderOptions& o) {
  if (is_workflow(o.file)) {
    if (!o.vars.empty()) throw Error(ErrorKind::Usage, "--vars is for rendering a template file; give a workflow --input");
    auto executor = load_executor(o.file);
    return executor->render_first_prompt(app::collect_inputs(*executor, o.inputs));
  }
  return app::render_template_file(o.file, o.vars, o.lenient);
}

int render(const RenderOptions& o) {
  std::string text = rendered(o);
  // The text exactly, for a script, is --json's; on a terminal the shell's prompt must not follow on its last line.
  if (o.json) std::cout << to_json_text(Value{{"text", text}}) << '\n';
  else std::cout << text << (text.empty() || text.back() != '\n' ? "\n" : "");
  std::cout.flush();
  return kOk;
}

}  // namespace

void add_render_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RenderOptions>();
  CLI::App* cmd = app.add_subcommand("render", "Print a workflow's first prompt, or render one template file");
  cmd->add_option("file", o->file, "A workflow (.yaml) or a template file")->required();
  add_input_options(*cmd, o->inputs);
  cmd->add_option("--vars", o->vars, "For a template file: a JSON file with the variables");
  cmd->add_flag("--lenient", o->lenient, "For a template file: undefined variables render empty instead of failing");
  cmd->add_flag("--json", o->json, "Print {text} as JSON: the rendered text exactly, with no line end added");
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return render(*o); }); });
}

}  // namespace engine::cli
