#include "engine/app/project_init.h"

#include <fcntl.h>

#include <algorithm>
#include <cctype>

#include "engine/app/starter_files.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/text.h"
#include "engine/spec/format_schema.h"
#include "engine/spec/search_path.h"

namespace engine::app {
namespace fs = std::filesystem;
namespace {

struct PlannedFile {
  fs::path path;  // relative to the project's folder
  std::string text;
};

// The workflow's name: the folder's, in the letters, digits, '_' and '-' names are usually made of.
std::string project_name(const fs::path& folder) {
  std::error_code ec;
  fs::path absolute = fs::weakly_canonical(fs::absolute(folder, ec), ec);
  std::string base = absolute.filename().string();
  if (base.empty()) base = absolute.parent_path().filename().string();
  std::string name;
  for (unsigned char c : base) {
    if (std::isalnum(c) || c == '_' || c == '-') name += static_cast<char>(std::tolower(c));
    else if (!name.empty() && name.back() != '_') name += '_';
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name.empty() ? "my_agent" : name;
}

void replace_all(std::string& text, std::string_view from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// Editors (the YAML language server) check a file against the schema its modeline names: the installed one, else
// a copy the project gets of the engine's own.
struct SchemaFiles {
  std::string workflow, test;
  bool copied = false;
};

SchemaFiles schema_files() {
  fs::path folder = spec::shipped_schema_folder();
  if (folder.empty()) return {"schema/workflow.schema.json", "schema/test.schema.json", true};
  std::error_code ec;
  fs::path absolute = fs::weakly_canonical(folder, ec);
  if (!ec) folder = absolute;
  return {(folder / "workflow.schema.json").string(), (folder / "test.schema.json").string(), false};
}

std::string filled_in(std::string_view text, const std::string& name, const SchemaFiles& schemas) {
  std::string out(text);
  replace_all(out, "@NAME@", name);
  replace_all(out, "@SCHEMA@", schemas.workflow);
  replace_all(out, "@TEST_SCHEMA@", schemas.test);
  return out;
}

std::vector<PlannedFile> planned_files(const std::string& kind, const std::string& name) {
  SchemaFiles schemas = schema_files();
  std::vector<PlannedFile> out;
  if (schemas.copied) {
    out.push_back({schemas.workflow, std::string(spec::workflow_format_schema())});
    out.push_back({schemas.test, std::string(spec::test_file_schema())});
  }
  for (const std::string& prefix : {std::string("common/"), kind + "/"}) {
    for (const StarterFile& f : starter_files()) {
      if (!f.path.starts_with(prefix)) continue;
      std::string path(f.path.substr(prefix.size()));
      if (path.ends_with(".in")) path.resize(path.size() - 3);
      out.push_back({path, filled_in(f.text, name, schemas)});
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& project_kinds() {
  static const std::vector<std::string> kinds = {"react", "tool_calling", "chat", "workflow"};
  return kinds;
}

NewProject init_project(const fs::path& folder, const std::string& kind) {
  const auto& kinds = project_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    throw Error(ErrorKind::Usage, "unknown kind '" + kind + "'; engine init makes " + join(kinds, ", "));
  std::vector<PlannedFile> files = planned_files(kind, project_name(folder));
  std::vector<std::string> taken;
  std::error_code ec;
  for (const PlannedFile& f : files)
    if (fs::exists(fs::symlink_status(folder / f.path, ec))) taken.push_back((folder / f.path).string());
  if (!taken.empty())
    throw Error(ErrorKind::IoExists, (taken.size() == 1 ? "'" + taken[0] + "' exists" : "these files exist: " + join(taken, ", ")) +
                                 "; engine init never overwrites a file: give a new or empty folder");
  NewProject made{folder, {}};
  for (const PlannedFile& f : files) {
    fs::path path = folder / f.path;
    fs::create_directories(path.parent_path().empty() ? fs::path(".") : path.parent_path(), ec);
    if (ec) throw Error(ErrorKind::IoWriteFailed, "cannot make the folder '" + path.parent_path().string() + "': " + ec.message());
    // O_EXCL: a file made since the check above is still never overwritten, nor is a link followed.
    FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd.valid()) throw file_error("cannot write", path, errno == EEXIST ? ErrorKind::IoExists : ErrorKind::IoWriteFailed);
    if (!write_fully(fd.get(), f.text)) throw file_error("cannot write", path);
    made.files.push_back(f.path);
  }
  return made;
}

}  // namespace engine::app
