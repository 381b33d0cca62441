#pragma once
// The fenced blocks of a Markdown page, and a bash script that does what the page says: for docs/ whose commands
// must not rot (the tutorial, and every block any page marks `sh run`).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace engine::test {

struct DocBlock {
  std::string info;  // the fence's info string: "sh", "sh run", "output", "yaml file=workflow.yaml", ...
  std::string text;
  int line = 0;      // where its fence opens, for a failure's message
};

// Every fenced block of `markdown`; throws std::runtime_error on a fence left open.
std::vector<DocBlock> fenced_blocks(const std::string& markdown);

// The commands of a `sh` block as lines, a here-document or a line ending in `\` kept with what it continues.
std::vector<std::string> commands_of(const std::string& block);

// What a page's script runs and how.
struct DocScript {
  std::function<bool(const DocBlock&)> runs;               // the `sh` blocks whose commands run
  std::function<std::string(std::string)> edit;            // may change a command before it runs (a port); optional
  std::function<std::string(const std::string&)> after;    // more script after a command (a wait); optional
};

// One bash script (stopping at the first command that fails) run in `scratch`: each block with a `file=` writes
// that file as shown; each block `how.runs` picks has its commands run, and when an `output` block follows it, what
// its last command prints is compared with it (diff -u).
std::string doc_script(const std::vector<DocBlock>& blocks, const std::filesystem::path& scratch, const DocScript& how);

}  // namespace engine::test
