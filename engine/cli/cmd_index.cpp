// engine index FOLDER|WORKFLOW: make or bring up to date the document indexes search_docs keeps.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "engine/app/document_indexes.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/core/json_text.h"

namespace engine::cli {
namespace {

struct IndexOptions {
  std::string path;
  std::string out;
  bool json = false;
};

int run_index(const IndexOptions& o) {
  std::vector<app::IndexReport> reports;
  if (std::filesystem::is_directory(o.path)) {
    reports.push_back(app::index_folder(o.path, o.out));
  } else {
    if (!o.out.empty()) throw Error(ErrorKind::Usage, "--out is for a folder; a workflow's search_docs keeps its index where its index: says");
    reports = app::index_workflow(o.path);
  }
  for (const auto& r : reports) {
    if (o.json) {
      std::cout << to_json_text(r.to_json()) << "\n";
      continue;
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f", r.seconds);
    std::cout << r.folder << ": " << r.documents << " documents (" << r.added << " added, " << r.updated << " updated, "
              << r.removed << " removed) in " << r.file << " (" << seconds << " s)\n";
  }
  std::cout.flush();
  return kOk;
}

}  // namespace

void add_index_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<IndexOptions>();
  CLI::App* cmd = app.add_subcommand("index", "Index a folder of documents for search_docs, ahead of its first search");
  cmd->add_option("path", o->path, "A folder, or a workflow whose search_docs tools to index for")->required();
  cmd->add_option("-o,--out", o->out, "The index file for a folder (default: .engine/index/ in the current folder)");
  cmd->add_flag("--json", o->json, "Print {folder, index, documents, added, updated, removed, seconds} per index");
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return run_index(*o); }); });
}

}  // namespace engine::cli
