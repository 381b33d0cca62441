// engine init [DIR] [--kind KIND]: a new project to start from: a workflow, a Lua tool, its passing tests, a README.
#include <iostream>
#include <memory>

#include "engine/app/project_init.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"

namespace engine::cli {
namespace {

struct InitOptions {
  std::string folder = ".";
  std::string kind = "react";
};

// What to type next, from where the user is: `cd DIR` first unless the project is here.
void print_next_steps(const app::NewProject& p, const std::string& kind) {
  for (const auto& file : p.files) std::cout << "  created " << (p.folder / file).lexically_normal().string() << "\n";
  std::string folder = p.folder.string();
  bool plain = folder.find_first_not_of(
                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-") == std::string::npos;
  std::string cd = folder == "." ? "" : "cd " + (plain ? folder : "'" + folder + "'") + "\n  ";
  std::string run = kind == "chat"       ? "engine chat workflow.yaml"
                    : kind == "workflow" ? "engine run workflow.yaml --input text='One two three.'"
                                         : "engine run workflow.yaml --input 'How many words are in \"the quick brown fox\"?'";
  std::cout << "Next:\n  " << cd << run << "\n  engine test\n";
  std::cout.flush();
}

}  // namespace

void add_init_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<InitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "init", "Make a new project: a workflow, a Lua tool, tests that pass offline and a README (docs/tutorial.md)");
  cmd->add_option("folder", o->folder, "The project's folder, made when missing (default: the current folder)");
  cmd->add_option("--kind", o->kind,
                  "react (the default): a ReAct agent; tool_calling: a native tool-calling agent; chat: a tool-calling "
                  "agent with a memory, for engine chat; workflow: a workflow of steps")
      ->check(CLI::IsMember(app::project_kinds()));
  cmd->callback([o, &exit_code] {
    exit_code = guarded([&] {
      app::NewProject p = app::init_project(o->folder, o->kind);
      print_next_steps(p, o->kind);
      return kOk;
    });
  });
}

}  // namespace engine::cli
