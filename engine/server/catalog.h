#pragma once
// The workflows a server serves, by name: loaded once from the files and folders it was given, and loaded again
// on SIGHUP into a new catalog (the old one stays with the runs that hold it).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/app/loading.h"

namespace engine::server {

struct ServedWorkflow {
  std::string name;  // the workflow's name: its URL segment and its model id
  std::string file;
  std::shared_ptr<const workflow::Executor> executor;
  long created = 0;  // when the file was last written (Unix seconds): a model's `created`
  std::string source;  // `file`, absolute: what a journaled run names as its workflow
  // The SHA-256 of each file the workflow was built from, as it was loaded (app::workflow_file_digests): what a
  // resumed run's journal is compared with.
  Value files = Value::object();
};

class Catalog {
 public:
  // Every workflow `paths` name: a file, or each workflow file in a folder (*.yaml and *.yml, not *.test.yaml or
  // *.eval.yaml). A named file that does not load throws its located Error; a file in a folder that does not load
  // is reported in `problems` and left out, or, when `previous` served it, kept as it was. Two workflows of one
  // name throw Error "serve.duplicate"; none at all, "serve.no_workflows" (unless `paths` is empty: `engine ui`).
  static std::shared_ptr<const Catalog> load(const std::vector<std::string>& paths, const app::LoadOptions& options,
                                             std::vector<std::string>& problems, const Catalog* previous = nullptr);

  const ServedWorkflow* find(std::string_view name) const;
  const std::vector<ServedWorkflow>& workflows() const { return workflows_; }

 private:
  std::vector<ServedWorkflow> workflows_;
};

}  // namespace engine::server
