// engine parse WORKFLOW < llm_output.txt: what the workflow's parser makes of a text, as JSON; exit 1 when it
// cannot read it.
#include <iostream>
#include <iterator>

#include "engine/app/inspection.h"
#include "engine/app/loading.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::cli {

void add_parse_command(CLI::App& app, int& exit_code) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("parse", "Read an LLM output on stdin and print the parser's verdict as JSON");
  cmd->add_option("workflow", *path, "The workflow YAML file")->required();
  cmd->callback([path, &exit_code] {
    exit_code = guarded([&] {
      auto executor = load_executor(*path, {.connect_mcp = false});  // a parser needs no tool
      std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
      // A parser's own log lines (engine.log in a Lua parser) help whoever is testing it: stderr, apart from the JSON.
      Value v = app::parse_verdict(*executor, text, [](std::string_view parser, std::string_view line) {
        std::cerr << "[" << parser << "] " << terminal_safe(line) << "\n";
      });
      std::cout << to_json_text(v) << std::endl;
      // A text the parser cannot read is what a script testing a parser wants to notice without reading the JSON.
      return v["type"] == "error" ? kRunFailed : kOk;
    });
  });
}

}  // namespace engine::cli
