#include "engine/cli/command_guide.h"

#include <vector>

#include "engine/app/loading.h"
#include "engine/core/text.h"

namespace engine::cli {
namespace {

const CLI::App* command_named(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

// "--name" of every long flag of `cmd` (and --help).
std::vector<std::string> long_flags(const CLI::App& cmd) {
  std::vector<std::string> flags;
  for (const CLI::Option* opt : cmd.get_options())
    for (const std::string& name : opt->get_lnames()) flags.push_back("--" + name);
  return flags;
}

}  // namespace

void print_commands(const CLI::App& app, std::ostream& out) {
  out << app.get_description() << "\n\nUsage: engine COMMAND [ARGS]...\n\nCommands:\n";
  size_t width = 0;
  for (const std::string& name : command_names(app)) width = std::max(width, name.size());
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    out << "  " << sub->get_name() << std::string(width - sub->get_name().size() + 2, ' ') << sub->get_description()
        << "\n";
  out << "\n`engine COMMAND --help` shows a command's arguments and flags; `engine --version` the version.\n";
  if (std::string docs = documentation_line(); !docs.empty()) out << docs << "\n";
}

std::string documentation_line() {
  std::string docs = app::documentation_folder();
  return docs.empty() ? "" : "The documentation: " + docs + " (tutorial.md first; `man engine` for the commands).";
}

std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  std::string first = argv[1];
  if (first.empty() || first[0] == '-' || command_named(app, first)) return std::nullopt;
  return "unknown command '" + first + "'" + did_you_mean(first, command_names(app)) +
         "; `engine` alone lists the commands";
}

std::optional<std::string> unknown_flag(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const CLI::App* cmd = command_named(app, argv[1]);
  if (!cmd) return std::nullopt;
  std::string path = cmd->get_name();
  int first = 2;
  for (; first < argc; ++first) {  // a command's own commands: `engine batch merge`
    const CLI::App* sub = command_named(*cmd, argv[first]);
    if (!sub) break;
    cmd = sub;
    path += " " + sub->get_name();
  }
  std::vector<std::string> known = long_flags(*cmd);
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;  // what follows is values, not flags
    if (arg.rfind("--", 0) != 0) continue;
    std::string name = arg.substr(0, arg.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    return "unknown flag '" + name + "' for 'engine " + path + "'" + did_you_mean(name, known) + "; `engine " + path +
           " --help` lists its flags";
  }
  return std::nullopt;
}

std::optional<std::string> missing_workflow(const CLI::App& app, int argc, char** argv, const CLI::RequiredError& e) {
  std::string what = e.what();
  if (argc < 2 || (what != "workflow is required" && what != "workflows is required")) return std::nullopt;
  const CLI::App* cmd = command_named(app, argv[1]);
  if (!cmd) return std::nullopt;
  std::string name = cmd->get_name();
  std::string example = name == "run" ? "engine run workflows/calculator.yaml --input \"What is 12 * 7 + 3?\""
                                      : "engine " + name + " workflows/calculator.yaml";
  return "engine " + name + " needs a workflow: a YAML file, such as `" + example +
         "`, or the name of an installed example (`engine " + name +
         " calculator`). docs/workflow-format.md says what a workflow file holds; `engine validate FILE` checks one";
}

}  // namespace engine::cli
