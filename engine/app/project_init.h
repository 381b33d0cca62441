#pragma once
// `engine init`: a new project a user starts from, as `pf flow init` and `cagent new` make: a workflow of the kind
// asked for, a Lua tool, the workflow's tests (which pass as made, offline) and a README of three commands.
#include <filesystem>
#include <string>
#include <vector>

namespace engine::app {

// react, tool_calling, chat, workflow.
const std::vector<std::string>& project_kinds();

struct NewProject {
  std::filesystem::path folder;
  std::vector<std::filesystem::path> files;  // written, relative to the folder, in the order written
};

// Writes the starter of `kind` into `folder` (made when missing), naming the workflow after the folder. Nothing is
// ever overwritten: when any of its files exists (a link, even dangling, included), nothing is written and Error
// "io.exists" names them. The workflow's `$schema` modeline points at the installed schema when there is one.
// Throws Error "usage" for an unknown kind and "io.write_failed" when a file cannot be made.
NewProject init_project(const std::filesystem::path& folder, const std::string& kind);

}  // namespace engine::app
