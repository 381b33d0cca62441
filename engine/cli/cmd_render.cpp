// engine render WORKFLOW --input ...: the first prompt. engine render TEMPLATE --vars FILE.json: one template.
#include <iostream>

#include "engine/app/inspection.h"
#include "engine/app/loading.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/core/error.h"

namespace engine::cli {
namespace {

struct RenderOptions {
  std::string file;
  InputOptions inputs;
  std::string vars;
  bool lenient = false;
};

bool is_workflow(const std::string& path) {
  auto ext = std::filesystem::path(path).extension().string();
  return ext == ".yaml" || ext == ".yml";
}

int render(const RenderOptions& o) {
  if (is_workflow(o.file)) {
    if (!o.vars.empty()) throw Error("usage", "--vars is for rendering a template file; give a workflow --input");
    auto executor = app::load_executor(o.file);
    std::cout << executor->redactor().redact(executor->render_first_prompt(app::collect_inputs(*executor, o.inputs)));
    std::cout.flush();
    return kOk;
  }
  std::cout << app::render_template_file(o.file, o.vars, o.lenient);
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
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return render(*o); }); });
}

}  // namespace engine::cli
