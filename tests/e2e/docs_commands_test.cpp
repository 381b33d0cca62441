// The commands the docs show never rot: every block a page of docs/ (or the README) marks `sh run` runs here, in
// order, offline, in a scratch folder with the built engine on PATH and the project's workflows, plugins and
// templates beside it; an `output` block after one is what its last command prints.
#include <catch2/catch.hpp>

#include <filesystem>

#include "engine/core/file.h"
#include "support/doc_blocks.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::run_command;
using engine::test::shell_quote;

namespace {

bool marked_runnable(const test::DocBlock& b) { return b.info == "sh run"; }

// The pages that may hold runnable blocks.
std::vector<std::filesystem::path> pages() {
  std::vector<std::filesystem::path> all = {test::source_path("README.md")};
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("docs")))
    if (entry.path().extension() == ".md") all.push_back(entry.path());
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

TEST_CASE("docs: every command block marked `sh run` runs offline and prints what the page shows", "[e2e][docs]") {
  size_t marked = 0;
  for (const auto& page : pages()) {
    std::vector<test::DocBlock> blocks = test::fenced_blocks(read_file(page));
    size_t here = static_cast<size_t>(std::count_if(blocks.begin(), blocks.end(), marked_runnable));
    if (here == 0) continue;
    marked += here;
    test::TempDir dir;
    std::filesystem::create_directories(dir.path() / "bin");
    std::filesystem::create_symlink(ENGINE_BIN, dir.path() / "bin/engine");
    std::filesystem::create_directories(dir.path() / "work");
    for (const char* shipped : {"workflows", "plugins", "templates"})
      std::filesystem::create_directory_symlink(test::source_path(shipped), dir.path() / "work" / shipped);
    std::string script = dir.write("page.sh", test::doc_script(blocks, dir.path() / "work", {.runs = marked_runnable})).string();
    auto r = run_command("env -u OPENAI_BASE_URL -u OPENAI_API_KEY -u ANTHROPIC_API_KEY PATH=" +
                         shell_quote((dir.path() / "bin").string()) + ":\"$PATH\" bash " + shell_quote(script) + " 2>&1");
    INFO(page.string() << ":\n" << r.out);
    CHECK(r.exit_code == 0);
  }
  // The README's first agent and engine validate's example at least.
  CHECK(marked >= 2);
}
