// engine validate WORKFLOW...: every static check, no LLM call, for one file or many (a CI job checks them all).
// --json prints one document for editors and CI annotations.
#include <iostream>

#include "engine/app/validation.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"

namespace engine::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  bool json = false;
  bool connect = false;
};

int validate(const ValidateOptions& o) {
  Value files = Value::array();
  bool all_ok = true;
  for (const auto& file : o.files) {
    app::Validation v = app::validate_file(file, o.connect);
    all_ok = all_ok && v.ok();
    if (o.json) {
      files.push_back(v.to_json());
    } else if (v.ok()) {
      std::cout << file << ": ok (" << v.summary() << ")" << std::endl;
      for (const auto& w : v.warnings) std::cerr << "engine: warning: " << w << std::endl;
    } else {
      for (const auto& e : v.errors) print_error(e.kind(), e.formatted());
    }
  }
  if (o.json) {
    Value doc{{"ok", all_ok}, {"files", std::move(files)}};
    // What the file holds may quote a key from the environment: stdout masks it (console_mask.h).
    std::cout << doc.dump(2, ' ', false, Value::error_handler_t::replace) << std::endl;
  }
  return all_ok ? kOk : kBadInput;
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand("validate", "Check workflows without calling the LLM");
  cmd->add_option("workflow", o->files, "The workflow YAML files")->required();
  cmd->add_flag("--json", o->json,
                "Print {ok, files: [{file, ok, tools, inputs, mcp_servers, connected, warnings} or {file, ok, errors: [{kind, file, line, column, "
                "message, source_line}]}]} on stdout");
  cmd->add_flag("--connect", o->connect,
                "Start the MCP servers the workflows name, and check the tools they list against the workflows");
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return validate(*o); }); });
}

}  // namespace engine::cli
