// engine parse WORKFLOW < llm_output.txt: what the workflow's parser makes of a text, as JSON.
#include <iostream>
#include <iterator>

#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/core/json_text.h"

namespace engine::cli {

void add_parse_command(CLI::App& app, int& exit_code) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("parse", "Read an LLM output on stdin and print the parser's verdict as JSON");
  cmd->add_option("workflow", *path, "The workflow YAML file")->required();
  cmd->callback([path, &exit_code] {
    exit_code = guarded([&] {
      auto executor = build_executor(*path);
      std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
      auto parsed = executor->parse_output(text);
      Value v;
      if (auto* a = std::get_if<parse::AgentAction>(&parsed))
        v = {{"type", "action"}, {"tool", a->tool}, {"tool_input", a->tool_input}};
      else if (auto* f = std::get_if<parse::AgentFinish>(&parsed))
        v = {{"type", "finish"}, {"output", f->output}};
      else
        v = {{"type", "error"}, {"message", std::get<parse::ParseFailure>(parsed).message}};
      std::cout << to_json_text(v) << std::endl;
      return kOk;
    });
  });
}

}  // namespace engine::cli
