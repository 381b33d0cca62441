#include "engine/spec/section_reader.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "engine/core/file.h"
#include "engine/core/limits.h"
#include "engine/core/secret_set.h"
#include "engine/core/text.h"
#include "engine/core/utf8.h"
#include "engine/schema/schema_check.h"
#include "engine/spec/format_keys.h"

namespace engine::spec {

namespace keys {

// The keys this reader takes (format_keys.h): a new key is added here, read below, and described in
// schema/workflow.schema.json.
const KeyList kAllow = {"http", "files"};
const KeyList kHttpGrant = {"url", "methods", "headers", "max_bytes"};
const KeyList kFilesGrant = {"root", "write", "max_bytes"};
const KeyList kLuaLimits = {"instructions", "memory_mb", "timeout_ms"};
const KeyList kTemplateFile = {"file", "text", "strict_undefined", "trim_blocks", "lstrip_blocks"};

}  // namespace keys

namespace {

// A files root: a folder, relative to the workflow's, never a system folder. It may lie outside the workflow's
// folder (`root: ../docs`): a grant is the author's explicit word, shown by `engine tools`.
std::filesystem::path granted_root(const SectionReader& in, const std::string& written, const std::string& path,
                                   const YAML::Node& at) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path root = fs::weakly_canonical(in.dir / written, ec);
  if (ec || !fs::is_directory(root, ec)) in.r.fail(ErrorKind::IoNotFound, path + ": no folder '" + written + "'", at);
  for (const char* system : {"/proc", "/dev", "/sys"})
    if (root == system || root.string().rfind(std::string(system) + "/", 0) == 0)
      in.r.fail(ErrorKind::IoOutsideScope, path + ": '" + written + "' is a system folder", at);
  if (root == "/") in.r.fail(ErrorKind::IoOutsideScope, path + ": '" + written + "' is the whole file system", at);
  return root;
}

// How deep the sub-workflows of `w` nest, each already loaded.
size_t height_below(const WorkflowSpec& w, const LoadedWorkflows& loaded) {
  size_t deepest = 0;
  auto see = [&](const std::shared_ptr<const WorkflowSpec>& sub) {
    if (!sub) return;
    for (const auto& [path, entry] : loaded.by_path)
      if (entry.spec == sub) deepest = std::max(deepest, entry.height);
  };
  for (const auto& t : w.tools) see(t.workflow_spec);
  for_each_step(w.steps, [&](const StepSpec& st) { see(st.workflow_spec); });
  return deepest;
}

}  // namespace

SectionReader::SectionReader(const SourceText& src, std::string display_name, std::filesystem::path folder,
                             const FileScope& reach, const LoadOptions& load)
    : r(src, process_environment(), load.found), display(std::move(display_name)), dir(std::move(folder)),
      scope(reach), options(load) {}

bool read_from_environment(const YAML::Node& n) { return n.IsScalar() && n.Scalar().find("${") != std::string::npos; }

std::string quoted_list(const std::vector<std::string>& options) {
  std::vector<std::string> q;
  for (const auto& o : options) q.push_back("'" + o + "'");
  return join(q, ", ");
}

Located<std::string> SectionReader::one_of(const YAML::Node& n, const std::string& path,
                                           const std::vector<std::string>& allowed) {
  auto v = r.located_str(n, path);
  if (std::find(allowed.begin(), allowed.end(), v.value) == allowed.end())
    r.fail(ErrorKind::SpecBadValue, path + " must be one of " + quoted_list(allowed) + ", got '" + v.value + "'" +
                                 did_you_mean(v.value, allowed), n);
  return v;
}

void SectionReader::check_name(const std::string& name, const char* what, const YAML::Node& at) const {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  if (!ok) r.fail(ErrorKind::SpecBadName, std::string(what) + " name '" + name + "' must be letters, digits, _ or -", at);
}

double SectionReader::seconds(const YAML::Node& n, const std::string& path) const {
  std::string text = n.IsScalar() ? n.Scalar() : "";
  double unit = 1;
  for (auto [suffix, factor] : {std::pair{"ms", 0.001}, std::pair{"s", 1.0}, std::pair{"m", 60.0}}) {
    std::string_view sv(suffix);
    if (text.size() > sv.size() && text.compare(text.size() - sv.size(), sv.size(), sv) == 0) {
      text.resize(text.size() - sv.size());
      unit = factor;
      break;
    }
  }
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v * unit >= 0.001) || v * unit > limits::kSeconds)
    r.fail(ErrorKind::SpecBadValue, path + " must be a time from 1 ms to a day: seconds, or a number with ms, s or m", n);
  return v * unit;
}

Value SectionReader::json_schema(const YAML::Node& n, const std::string& path) const {
  if (!n.IsMap())
    r.fail(ErrorKind::SpecWrongType, path + " must be a JSON Schema: a mapping such as {type: object, properties: ...}", n);
  Value v = r.value(n, path);
  schema::SchemaOptions syntax_only{
      [](const std::string&) { return schema::Matcher([](std::string_view) { return true; }); }};
  auto problems = schema::check_schema(v, syntax_only);
  if (problems.empty()) return v;
  // Walk the pointer down the YAML to the node the problem is at, naming the way as a key path.
  YAML::Node at = n;
  std::string where = path;
  std::string_view rest = problems[0].pointer;
  while (!rest.empty()) {
    rest.remove_prefix(1);
    size_t slash = rest.find('/');
    std::string token = schema::unescape_pointer_token(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    YAML::Node next;
    if (at.IsMap()) {
      next = at[token];
      where += "." + token;
    } else if (at.IsSequence()) {
      size_t i = static_cast<size_t>(std::strtoul(token.c_str(), nullptr, 10));
      if (i < at.size()) next = at[i];
      where += "[" + token + "]";
    }
    if (!next.IsDefined()) break;
    at = next;
  }
  r.fail(ErrorKind::SchemaInvalid, where + ": " + problems[0].message, at);
}

TemplateSource SectionReader::template_source(const YAML::Node& n, const std::string& path) {
  TemplateSource t;
  if (!n) return t;
  t.loc = r.loc(n);
  t.given = true;
  if (n.IsScalar()) {
    t.text = r.located_raw(n, path).value;
    t.dir = dir;
    t.origin = display + " (" + path + ")";
    t.key_path = path;
    return t;
  }
  r.expect_map(n, path, keys::kTemplateFile);
  key(n, "strict_undefined", [&](const YAML::Node& v) { t.overrides.strict_undefined = r.boolean(v, path + ".strict_undefined"); });
  key(n, "trim_blocks", [&](const YAML::Node& v) { t.overrides.trim_blocks = r.boolean(v, path + ".trim_blocks"); });
  key(n, "lstrip_blocks", [&](const YAML::Node& v) { t.overrides.lstrip_blocks = r.boolean(v, path + ".lstrip_blocks"); });
  if (n["text"] && n["file"]) r.fail(ErrorKind::SpecConflict, path + " has both text and file; give one", n);
  if (n["text"]) {
    t.text = r.located_raw(n["text"], path + ".text").value;
    t.origin = display + " (" + path + ")";
    t.dir = dir;
    t.loc = r.loc(n["text"]);
    t.key_path = path + ".text";
    return t;
  }
  if (!n["file"]) r.fail(ErrorKind::SpecMissingKey, path + " needs file: PATH or text: TEMPLATE", n);
  std::string rel = r.str(n["file"], path + ".file");
  std::filesystem::path file = within_scope(rel, path + ".file", n["file"]);
  try {
    t.text = read_file(file);
  } catch (const Error& e) {
    r.fail(ErrorKind::IoReadFailed, path + ".file: " + e.message(), n["file"]);
  }
  size_t bad = utf8::find_invalid(t.text);
  if (bad != std::string::npos)
    r.fail(ErrorKind::SpecNotText, path + ".file: '" + rel + "' is not UTF-8 text (bad byte at offset " +
                                std::to_string(bad) + ")", n["file"]);
  t.origin = (std::filesystem::path(display).parent_path() / rel).lexically_normal().string();
  t.dir = file.parent_path();
  return t;
}

std::filesystem::path SectionReader::within_scope(const std::string& name, const std::string& path,
                                                  const YAML::Node& at) const {
  FileScope::Found found;
  try {
    found = scope.find(dir, name);
  } catch (const Error& e) {
    r.fail(e.kind(), path + ": " + e.message(), at);
  }
  if (!found.exists) {
    // A bare name is looked for on the search path too: say how to add a folder to it.
    bool bare = !name.empty() && name[0] != '/' && name.rfind("./", 0) != 0 && name.rfind("../", 0) != 0;
    r.fail(ErrorKind::IoNotFound,
           path + ": " + not_found_message(name, found.looked) +
               (bare ? "; put the folder that holds it on ENGINE_PATH (folders separated by ':'), or name it by "
                       "its path from the workflow's folder (./lib/" + name + ")"
                     : ""),
           at);
  }
  if (options.loaded) options.loaded->files.insert(found.path);
  return found.path;
}

std::shared_ptr<const WorkflowSpec> SectionReader::sub_workflow(const YAML::Node& n, const std::string& path) const {
  std::string rel = r.str(n, path);
  std::filesystem::path file = within_scope(rel, path, n);
  std::filesystem::path canonical = std::filesystem::weakly_canonical(file);
  if (std::find(options.including.begin(), options.including.end(), canonical) != options.including.end()) {
    std::vector<std::string> chain;
    for (const auto& f : options.including) chain.push_back(f.filename().string());
    chain.push_back(canonical.filename().string());
    r.fail(ErrorKind::SpecCycle, path + ": '" + rel + "' includes itself: " + join(chain, " -> "), n);
  }
  auto too_deep = [&] {
    r.fail(ErrorKind::SpecTooDeep, path + ": workflows nest deeper than " + std::to_string(limits::kWorkflowNesting) + " files", n);
  };
  LoadedWorkflows& loaded = *options.loaded;
  if (auto it = loaded.by_path.find(canonical); it != loaded.by_path.end()) {
    if (options.including.size() + it->second.height > limits::kWorkflowNesting) too_deep();
    return it->second.spec;
  }
  if (options.including.size() >= limits::kWorkflowNesting) too_deep();
  if (loaded.by_path.size() >= limits::kWorkflowFiles)
    r.fail(ErrorKind::SpecTooLarge, path + ": the workflow and the files it names hold more than " +
                                 std::to_string(limits::kWorkflowFiles) + " workflow files", n);
  // Its problems are its own file's: the first is thrown, and noted where the step or tool names it.
  LoadOptions inner = options;
  inner.found = nullptr;
  auto child = std::make_shared<const WorkflowSpec>(load_workflow(file, inner));
  loaded.by_path[canonical] = {child, 1 + height_below(*child, loaded)};
  return child;
}

LuaLimitsSpec SectionReader::lua_limits(const YAML::Node& lim, const std::string& path) {
  LuaLimitsSpec s;
  r.expect_map(lim, path, keys::kLuaLimits);
  key(lim, "instructions", [&](const YAML::Node& v) { s.instructions = r.integer(v, path + ".instructions", 1000, 100'000'000'000LL); });
  key(lim, "memory_mb", [&](const YAML::Node& v) { s.memory_mb = r.integer(v, path + ".memory_mb", 1, 4096); });
  key(lim, "timeout_ms", [&](const YAML::Node& v) {
    s.timeout_ms = r.integer(v, path + ".timeout_ms", 1, 3'600'000);
    s.timeout_given = true;
  });
  return s;
}

AllowSpec SectionReader::allow(const YAML::Node& n, const std::string& path) {
  AllowSpec a;
  r.expect_map(n, path, keys::kAllow);
  key(n, "http", [&](const YAML::Node& list) {
    if (!list.IsSequence() || list.size() == 0)
      r.fail(ErrorKind::SpecWrongType, path + ".http must be a list of {url, methods, headers}", list);
    for (size_t i = 0; i < list.size(); ++i) {
      std::string at = path + ".http[" + std::to_string(i) + "]";
      const YAML::Node& g = list[i];
      r.expect_map(g, at, keys::kHttpGrant);
      r.expect_present(g, "url", at);
      HttpGrantSpec h;
      h.url = r.located_str(g["url"], at + ".url");
      if (h.url.value.find_first_of("?#") != std::string::npos)
        r.fail(ErrorKind::SpecBadValue, at + ".url is a prefix: scheme, host, port and a path, without ? or #", g["url"]);
      if (g["methods"]) {
        h.methods.clear();
        static const std::vector<std::string> kMethods = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
        for (auto& m : r.str_list(g["methods"], at + ".methods")) {
          std::string upper = m.value;
          for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
          if (std::find(kMethods.begin(), kMethods.end(), upper) == kMethods.end())
            r.fail(ErrorKind::SpecBadValue, at + ".methods: '" + m.value + "' is not one of " + quoted_list(kMethods), g["methods"]);
          h.methods.push_back(upper);
        }
        if (h.methods.empty()) r.fail(ErrorKind::SpecBadValue, at + ".methods lists no method", g["methods"]);
      }
      if (g["headers"]) {
        const YAML::Node& hs = g["headers"];
        if (!hs.IsMap()) r.fail(ErrorKind::SpecWrongType, at + ".headers must be a mapping of names to text", hs);
        for (const auto& kv : hs) {
          std::string name = kv.first.as<std::string>();
          std::string value = r.str(kv.second, at + ".headers." + name);
          if (name.empty() || name.find_first_of("\r\n: ") != std::string::npos || value.find_first_of("\r\n") != std::string::npos)
            r.fail(ErrorKind::SpecBadValue, at + ".headers." + name + " must be one line (and a name without ':' or spaces)", kv.second);
          if (read_from_environment(kv.second) || is_credential_header(name)) options.secrets->add(value);
          h.headers.emplace_back(std::move(name), std::move(value));
        }
      }
      if (g["max_bytes"]) h.max_bytes = r.integer(g["max_bytes"], at + ".max_bytes", 1, 1LL << 30);
      a.http.push_back(std::move(h));
    }
  });
  key(n, "files", [&](const YAML::Node& list) {
    if (!list.IsSequence() || list.size() == 0)
      r.fail(ErrorKind::SpecWrongType, path + ".files must be a list of {root, write}", list);
    for (size_t i = 0; i < list.size(); ++i) {
      std::string at = path + ".files[" + std::to_string(i) + "]";
      const YAML::Node& g = list[i];
      r.expect_map(g, at, keys::kFilesGrant);
      r.expect_present(g, "root", at);
      FilesGrantSpec f;
      f.root = r.located_str(g["root"], at + ".root");
      f.root_dir = granted_root(*this, f.root.value, at + ".root", g["root"]);
      if (g["write"]) f.write = r.boolean(g["write"], at + ".write");
      if (g["max_bytes"]) f.max_bytes = r.integer(g["max_bytes"], at + ".max_bytes", 1, 1LL << 30);
      a.files.push_back(std::move(f));
    }
  });
  if (a.empty() && !n["http"] && !n["files"]) r.fail(ErrorKind::SpecBadValue, path + " grants nothing: give http: or files:", n);
  return a;
}

}  // namespace engine::spec
