#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/spec/eval_spec.h"
#include "engine/spec/yaml_document.h"
#include "engine/spec/yaml_reader.h"

namespace engine::spec {
namespace {

const std::vector<std::string> kEvalKeys = {"version", "description", "threshold", "evaluators"};
const std::vector<std::string> kKinds = {"exact",   "contains",        "regex",   "json_schema",
                                         "numeric", "tool_trajectory", "workflow"};
const std::vector<std::string> kCommonKeys = {"kind", "description", "actual", "pass_score", "threshold"};
const std::vector<std::string> kOrders = {"exact", "in_order", "any_order", "subset"};

std::vector<std::string> keys_of(const std::string& kind) {
  std::vector<std::string> keys = kCommonKeys;
  auto add = [&](std::initializer_list<const char*> more) { keys.insert(keys.end(), more.begin(), more.end()); };
  if (kind == "exact" || kind == "contains") add({"expected", "ignore_case"});
  else if (kind == "regex") add({"pattern", "ignore_case"});
  else if (kind == "json_schema") add({"schema"});
  else if (kind == "numeric") add({"expected", "tolerance", "relative_tolerance"});
  else if (kind == "tool_trajectory") add({"expected", "order"});
  else if (kind == "workflow") add({"workflow", "inputs", "scale"});
  return keys;
}

class EvalLoader {
 public:
  EvalLoader(const SourceText& source, std::filesystem::path dir)
      : src_(source), dir_(std::move(dir)), r_(source, process_environment()) {}

  EvalSpec load(const YAML::Node& root) {
    EvalSpec e;
    if (!root || root.IsNull()) r_.fail(ErrorKind::SpecMissingKey, "an evaluation file needs `evaluators:`", root);
    r_.expect_map(root, "the evaluation file", kEvalKeys);
    if (root["version"]) r_.integer(root["version"], "version", 1, 1);
    if (root["threshold"]) e.threshold = fraction(root["threshold"], "threshold");
    r_.expect_present(root, "evaluators", "the evaluation file");
    const YAML::Node& list = root["evaluators"];
    if (!list.IsMap()) r_.fail(ErrorKind::SpecWrongType, "evaluators must be a mapping of names to evaluators", list);
    if (list.size() == 0) r_.fail(ErrorKind::SpecMissingKey, "evaluators must name at least one evaluator", list);
    if (list.size() > limits::kEvaluators)
      r_.fail(ErrorKind::SpecTooMany, "more than " + std::to_string(limits::kEvaluators) + " evaluators", list);
    for (const auto& kv : list) {
      for (const auto& before : e.evaluators)
        if (before.name == kv.first.Scalar()) r_.fail(ErrorKind::SpecDuplicateKey, "duplicate key '" + before.name + "' in evaluators", kv.first);
      e.evaluators.push_back(evaluator(kv.first.Scalar(), kv.first, kv.second));
    }
    return e;
  }

 private:
  double fraction(const YAML::Node& n, const std::string& path) {
    double v = r_.number(n, path, 0);
    if (v > 1) r_.fail(ErrorKind::SpecOutOfRange, path + " is a fraction from 0 to 1, got " + n.Scalar(), n);
    return v;
  }

  EvaluatorSpec evaluator(const std::string& name, const YAML::Node& key, const YAML::Node& n) {
    std::string at = "evaluators." + name;
    EvaluatorSpec e;
    e.name = name;
    e.at = r_.loc(key);
    if (!n.IsMap()) r_.fail(ErrorKind::SpecWrongType, at + " must be a mapping", n);
    r_.expect_present(n, "kind", at);
    e.kind = r_.located_str(n["kind"], at + ".kind");
    if (std::find(kKinds.begin(), kKinds.end(), e.kind.value) == kKinds.end())
      r_.fail(ErrorKind::SpecBadValue, at + ".kind must be one of " + join(kKinds, ", ") + ", got '" + e.kind.value + "'" +
                                    did_you_mean(e.kind.value, kKinds),
              n["kind"]);
    const std::string& kind = e.kind.value;
    r_.expect_map(n, at, keys_of(kind));
    e.actual = n["actual"] ? r_.located_raw(n["actual"], at + ".actual") : Located<std::string>{"{{ output }}", e.at};
    if (n["pass_score"]) e.pass_score = r_.number(n["pass_score"], at + ".pass_score", 0);
    if (n["threshold"]) e.threshold = fraction(n["threshold"], at + ".threshold");
    if (n["ignore_case"]) e.ignore_case = r_.boolean(n["ignore_case"], at + ".ignore_case");
    if (kind == "exact" || kind == "contains" || kind == "numeric") {
      r_.expect_present(n, "expected", at);
      e.expected = r_.located_raw(n["expected"], at + ".expected");
    } else if (kind == "regex") {
      r_.expect_present(n, "pattern", at);
      e.pattern = r_.located_raw(n["pattern"], at + ".pattern");
    } else if (kind == "json_schema") {
      r_.expect_present(n, "schema", at);
      if (!n["schema"].IsMap()) r_.fail(ErrorKind::SpecWrongType, at + ".schema must be a mapping (a JSON Schema)", n["schema"]);
      e.schema = r_.value(n["schema"], at + ".schema");
      e.schema_at = r_.loc(n["schema"]);
    } else if (kind == "tool_trajectory") {
      r_.expect_present(n, "expected", at);
      if (n["expected"].IsSequence()) {
        e.expected_is_list = true;
        for (const auto& t : r_.str_list(n["expected"], at + ".expected")) e.expected_tools.push_back(t.value);
      } else {
        e.expected = r_.located_raw(n["expected"], at + ".expected");
      }
      e.order = n["order"] ? r_.located_str(n["order"], at + ".order") : Located<std::string>{"exact", e.at};
      if (std::find(kOrders.begin(), kOrders.end(), e.order.value) == kOrders.end())
        r_.fail(ErrorKind::SpecBadValue, at + ".order must be one of " + join(kOrders, ", ") + ", got '" + e.order.value + "'",
                n["order"]);
    } else if (kind == "workflow") {
      r_.expect_present(n, "workflow", at);
      e.workflow = r_.located_str(n["workflow"], at + ".workflow");
      e.workflow_file = dir_ / e.workflow.value;
      if (n["inputs"]) {
        if (!n["inputs"].IsMap()) r_.fail(ErrorKind::SpecWrongType, at + ".inputs must be a mapping of the judge's inputs", n["inputs"]);
        for (const auto& in : n["inputs"])
          e.inputs.emplace_back(in.first.Scalar(), r_.located_raw(in.second, at + ".inputs." + in.first.Scalar()));
      }
      if (n["scale"]) {
        e.scale = r_.number(n["scale"], at + ".scale", 0);
        if (e.scale <= 0) r_.fail(ErrorKind::SpecOutOfRange, at + ".scale must be above 0", n["scale"]);
      }
    }
    if (kind == "numeric") {
      if (n["tolerance"]) e.tolerance = r_.number(n["tolerance"], at + ".tolerance", 0);
      if (n["relative_tolerance"]) e.relative_tolerance = r_.number(n["relative_tolerance"], at + ".relative_tolerance", 0);
    }
    return e;
  }

  const SourceText& src_;
  std::filesystem::path dir_;
  YamlReader r_;
};

}  // namespace

const std::vector<std::string>& evaluator_kinds() { return kKinds; }
const std::vector<std::string>& eval_file_keys() { return kEvalKeys; }
std::vector<std::string> evaluator_keys(const std::string& kind) { return keys_of(kind); }

EvalSpec parse_eval(std::string text, std::string display_path, std::filesystem::path dir) {
  auto source = std::make_shared<SourceText>(display_path, std::move(text));
  YAML::Node root = parse_yaml_document(*source);
  EvalSpec e = EvalLoader(*source, dir).load(root);
  e.display_path = std::move(display_path);
  e.dir = std::move(dir);
  e.source = std::move(source);
  return e;
}

EvalSpec load_eval(const std::filesystem::path& file) {
  SpecFile f = read_spec_file(file);  // named on the command line: may be a pipe
  return parse_eval(std::move(f.text), file.string(), f.dir);
}

}  // namespace engine::spec
