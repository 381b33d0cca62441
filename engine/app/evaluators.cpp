#include "engine/app/evaluators.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "engine/app/loading.h"
#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/parse/regex.h"
#include "engine/parse/schema_patterns.h"
#include "engine/schema/schema.h"
#include "engine/template/template.h"

namespace engine::app {
namespace {

using spec::Located;

// A template over a result line. One that is a single expression ("{{ output }}") keeps its value's JSON type.
class LineTemplate {
 public:
  LineTemplate(const Located<std::string>& source, const std::string& what, const spec::EvalSpec& spec) {
    std::string name = spec.display_path + " (" + what + ")";
    std::string_view t = trim(source.value);
    bool one_expression = t.size() > 4 && t.substr(0, 2) == "{{" && t.substr(t.size() - 2) == "}}" &&
                          t.find("{{", 2) == std::string_view::npos && t.find("{%") == std::string_view::npos;
    if (one_expression) expression_ = tmpl::Template::compile_expression(std::string(t.substr(2, t.size() - 4)), name);
    else text_ = tmpl::Template::compile(source.value, name);
  }
  Value value(const Value& line) const { return expression_ ? expression_->evaluate(line) : Value(text_->render(line)); }
  std::string text(const Value& line) const {
    Value v = value(line);
    return v.is_string() ? v.get<std::string>() : v.is_null() ? "" : to_json_text(v);
  }

 private:
  std::optional<tmpl::Template> expression_;
  std::optional<tmpl::Template> text_;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string shown(const std::string& s) { return quote_excerpt(s, 80); }

Score verdict(bool pass, std::string reason) { return Score{pass ? 1.0 : 0.0, pass, pass ? "" : std::move(reason)}; }

class TextEvaluator : public Evaluator {
 public:
  TextEvaluator(const spec::EvaluatorSpec& s, const spec::EvalSpec& spec)
      : Evaluator(s, 1), actual_(s.actual, "evaluators." + s.name + ".actual", spec),
        expected_(s.expected, "evaluators." + s.name + ".expected", spec),
        contains_(s.kind.value == "contains"), ignore_case_(s.ignore_case) {}

 protected:
  Score score_ok(const Value& line, const Cancel*) const override {
    std::string actual(trim(actual_.text(line)));
    std::string expected(trim(expected_.text(line)));
    std::string a = ignore_case_ ? lower(actual) : actual;
    std::string e = ignore_case_ ? lower(expected) : expected;
    if (contains_) return verdict(a.find(e) != std::string::npos, shown(actual) + " does not contain " + shown(expected));
    return verdict(a == e, "expected " + shown(expected) + ", got " + shown(actual));
  }

 private:
  LineTemplate actual_, expected_;
  bool contains_, ignore_case_;
};

class RegexEvaluator : public Evaluator {
 public:
  RegexEvaluator(const spec::EvaluatorSpec& s, const spec::EvalSpec& spec)
      : Evaluator(s, 1), actual_(s.actual, "evaluators." + s.name + ".actual", spec), regex_(compile(s, spec)) {}

 protected:
  Score score_ok(const Value& line, const Cancel*) const override {
    std::string actual = actual_.text(line);
    return verdict(regex_.search(actual).has_value(), shown(actual) + " does not match /" + regex_.pattern() + "/");
  }

 private:
  static parse::Regex compile(const spec::EvaluatorSpec& s, const spec::EvalSpec&) {
    try {
      return parse::Regex::compile(s.pattern.value, {.ignore_case = s.ignore_case});
    } catch (const Error& e) {
      throw Error(e.kind(), "evaluators." + s.name + ".pattern: " + e.message(), s.pattern.loc);
    }
  }
  LineTemplate actual_;
  parse::Regex regex_;
};

// The value an evaluator of JSON reads: JSON as it is, or text that holds JSON (a model's answer, perhaps fenced).
std::optional<Value> as_json(const Value& v) {
  if (!v.is_string()) return v;
  Value parsed = parse_json(unfenced(v.get_ref<const std::string&>()));
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

class SchemaEvaluator : public Evaluator {
 public:
  SchemaEvaluator(const spec::EvaluatorSpec& s, const spec::EvalSpec& spec)
      : Evaluator(s, 1), actual_(s.actual, "evaluators." + s.name + ".actual", spec), schema_(compile(s)) {}

 protected:
  Score score_ok(const Value& line, const Cancel* cancel) const override {
    Value actual = actual_.value(line);
    std::optional<Value> json = as_json(actual);
    if (!json) return verdict(false, "not JSON: " + shown(actual.is_string() ? actual.get<std::string>() : ""));
    auto violations = schema_.validate(*json, cancel);
    return verdict(violations.empty(), schema::describe(violations));
  }

 private:
  static schema::Schema compile(const spec::EvaluatorSpec& s) {
    try {
      return schema::Schema::compile(s.schema, {parse::schema_patterns()});
    } catch (const Error& e) {
      throw Error(e.kind(), "evaluators." + s.name + ".schema: " + e.message(), s.schema_at);
    }
  }
  LineTemplate actual_;
  schema::Schema schema_;
};

// The first number written in `text` ("The answer is 87." -> 87), in decimal (never hexadecimal). A number too
// large for a double ("1e400") is taken as written and reported as out of range, never skipped for the digits
// after it.
struct FoundNumber {
  double value = 0;
  bool in_range = true;
  std::string_view text;
};
std::optional<FoundNumber> first_number(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    bool starts = std::isdigit(static_cast<unsigned char>(text[i])) ||
                  ((text[i] == '-' || text[i] == '.') && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])));
    if (!starts) continue;
    FoundNumber n;
    const char* begin = text.data() + i;
    auto [end, ec] = std::from_chars(begin, text.data() + text.size(), n.value, std::chars_format::general);
    if (end == begin) continue;
    n.in_range = ec != std::errc::result_out_of_range && std::isfinite(n.value);
    n.text = std::string_view(begin, static_cast<size_t>(end - begin));
    return n;
  }
  return std::nullopt;
}

// The first number of `text` when it is one a double holds.
std::optional<double> first_finite_number(const std::string& text) {
  auto n = first_number(text);
  if (!n || !n->in_range) return std::nullopt;
  return n->value;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

class NumericEvaluator : public Evaluator {
 public:
  NumericEvaluator(const spec::EvaluatorSpec& s, const spec::EvalSpec& spec)
      : Evaluator(s, 1), actual_(s.actual, "evaluators." + s.name + ".actual", spec),
        expected_(s.expected, "evaluators." + s.name + ".expected", spec),
        tolerance_(s.tolerance), relative_(s.relative_tolerance) {}

 protected:
  Score score_ok(const Value& line, const Cancel*) const override {
    std::string actual_text = actual_.text(line);
    std::string expected_text = expected_.text(line);
    auto expected = first_number(expected_text);
    if (!expected) return verdict(false, "the expected value " + shown(expected_text) + " holds no number");
    if (!expected->in_range)
      return verdict(false, "the expected value " + quote_excerpt(expected->text, 40) + " is out of range");
    auto actual = first_number(actual_text);
    if (!actual) return verdict(false, shown(actual_text) + " holds no number");
    if (!actual->in_range) return verdict(false, "got " + quote_excerpt(actual->text, 40) + ", a number out of range");
    double allowed = tolerance_ + relative_ * std::fabs(expected->value);
    return verdict(std::fabs(actual->value - expected->value) <= allowed,
                   "got " + number_text(actual->value) + ", expected " + number_text(expected->value) +
                       (allowed > 0 ? " within " + number_text(allowed) : ""));
  }

 private:
  LineTemplate actual_, expected_;
  double tolerance_, relative_;
};

class TrajectoryEvaluator : public Evaluator {
 public:
  TrajectoryEvaluator(const spec::EvaluatorSpec& s, const spec::EvalSpec& spec)
      : Evaluator(s, 1), list_(s.expected_tools), order_(s.order.value) {
    if (!s.expected_is_list) expected_.emplace(s.expected, "evaluators." + s.name + ".expected", spec);
  }

 protected:
  Score score_ok(const Value& line, const Cancel*) const override {
    std::vector<std::string> called;
    auto steps = line.find("intermediate_steps");
    if (steps != line.end() && steps->is_array())
      for (const auto& st : *steps)
        if (st.contains("action") && st["action"].contains("tool") && st["action"]["tool"].is_string())
          called.push_back(st["action"]["tool"].get<std::string>());
    std::vector<std::string> expected = expected_ ? names(expected_->value(line)) : list_;
    bool pass = matches(called, expected);
    return verdict(pass, "called [" + join(called, ", ") + "], expected " + (order_ == "exact" ? "" : order_ + " ") +
                             "[" + join(expected, ", ") + "]");
  }

 private:
  // A list of names, as JSON or as text "a, b".
  static std::vector<std::string> names(const Value& v) {
    std::vector<std::string> out;
    std::optional<Value> json = v.is_string() ? as_json(v) : std::optional<Value>(v);
    if (json && json->is_array()) {
      for (const auto& item : *json) out.push_back(item.is_string() ? item.get<std::string>() : to_json_text(item));
      return out;
    }
    std::string text = v.is_string() ? v.get<std::string>() : to_json_text(v);
    for (size_t start = 0; start <= text.size();) {
      size_t comma = text.find(',', start);
      std::string name(trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (!name.empty()) out.push_back(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return out;
  }

  bool matches(const std::vector<std::string>& called, const std::vector<std::string>& expected) const {
    if (order_ == "exact") return called == expected;
    if (order_ == "in_order") {  // expected is a subsequence of what was called
      size_t i = 0;
      for (const auto& c : called)
        if (i < expected.size() && c == expected[i]) ++i;
      return i == expected.size();
    }
    if (order_ == "any_order") {
      auto a = called, b = expected;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      return a == b;
    }
    return std::all_of(expected.begin(), expected.end(),  // subset: each expected tool was called
                       [&](const std::string& e) { return std::find(called.begin(), called.end(), e) != called.end(); });
  }

  std::vector<std::string> list_;
  std::optional<LineTemplate> expected_;
  std::string order_;
};

class JudgeEvaluator : public Evaluator {
 public:
  JudgeEvaluator(const spec::EvaluatorSpec& s, const spec::EvalSpec& spec, const std::shared_ptr<SecretSet>& secrets)
      : Evaluator(s, 0.5), scale_(s.scale), judge_(load(s, secrets)) {
    for (const auto& [input, text] : s.inputs)
      inputs_.emplace_back(input, LineTemplate(text, "evaluators." + s.name + ".inputs." + input, spec));
  }

 protected:
  Score score_ok(const Value& line, const Cancel* cancel) const override {
    Value given = Value::object();
    for (const auto& [input, t] : inputs_) given[input] = t.value(line);
    Value inputs = judge_->resolve_inputs(std::move(given));
    NullSink quiet;
    agent::RunResult r = judge_->run(inputs, quiet, agent::RunOptions{.cancel = cancel});
    if (!r.ok()) {
      if (r.stopped_reason == StoppedReason::Cancelled) throw_stopped(*cancel);
      return Score{0, false, "the judge failed: " + r.error->message};
    }
    return read_verdict(r.output);
  }

 private:
  static std::shared_ptr<const workflow::Executor> load(const spec::EvaluatorSpec& s,
                                                        const std::shared_ptr<SecretSet>& secrets) {
    try {
      return load_executor(s.workflow_file.string(), {.secrets = secrets});
    } catch (const Error& e) {
      if (e.loc().known()) throw;
      throw Error(e.kind(), "evaluators." + s.name + ".workflow: " + e.message(), s.workflow.loc);
    }
  }

  // {score, reason} as JSON (a structured answer, or text holding it), else the first number of the text.
  Score read_verdict(const Value& output) const {
    std::optional<double> score;
    std::string reason;
    std::optional<Value> json = as_json(output);
    if (json && json->is_object() && json->contains("score")) {
      const Value& s = (*json)["score"];
      if (s.is_number()) score = s.get<double>();
      else if (s.is_string()) score = first_finite_number(s.get<std::string>());
      if (json->contains("reason")) reason = (*json)["reason"].is_string() ? (*json)["reason"].get<std::string>() : to_json_text((*json)["reason"]);
    } else {
      std::string text = output.is_string() ? output.get<std::string>() : to_json_text(output);
      score = first_finite_number(text);
      reason = text;
    }
    if (!score) return Score{0, false, "the judge gave no score: " + shown(output.is_string() ? output.get<std::string>() : to_json_text(output))};
    double normalised = std::clamp(*score / scale_, 0.0, 1.0);
    // A judge's words are a model's and may quote a key it saw: the scored file and the console mask it.
    return Score{normalised, normalised >= pass_score(), reason};
  }

  double scale_;
  std::shared_ptr<const workflow::Executor> judge_;
  std::vector<std::pair<std::string, LineTemplate>> inputs_;
};

}  // namespace

Value Score::to_json() const {
  Value j{{"score", score}, {"pass", pass}};
  if (!reason.empty()) j["reason"] = reason;
  return j;
}

Evaluator::Evaluator(const spec::EvaluatorSpec& spec, double default_pass_score)
    : name_(spec.name), kind_(spec.kind.value), pass_score_(spec.pass_score.value_or(default_pass_score)),
      threshold_(spec.threshold) {}

Score Evaluator::score(const Value& line, const Cancel* cancel) const {
  if (line.value("status", "") != "ok") {
    std::string why = line.contains("error") && line["error"].is_object() ? line["error"].value("message", "") : "";
    return Score{0, false, "the run failed" + (why.empty() ? std::string() : ": " + why)};
  }
  try {
    return score_ok(line, cancel);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::RunCancelled || e.kind() == ErrorKind::RunTimeout) throw;
    return Score{0, false, e.message()};
  }
}

std::vector<std::unique_ptr<Evaluator>> build_evaluators(const spec::EvalSpec& spec,
                                                         const std::shared_ptr<SecretSet>& secrets) {
  std::vector<std::unique_ptr<Evaluator>> out;
  for (const auto& s : spec.evaluators) {
    const std::string& k = s.kind.value;
    if (k == "exact" || k == "contains") out.push_back(std::make_unique<TextEvaluator>(s, spec));
    else if (k == "regex") out.push_back(std::make_unique<RegexEvaluator>(s, spec));
    else if (k == "json_schema") out.push_back(std::make_unique<SchemaEvaluator>(s, spec));
    else if (k == "numeric") out.push_back(std::make_unique<NumericEvaluator>(s, spec));
    else if (k == "tool_trajectory") out.push_back(std::make_unique<TrajectoryEvaluator>(s, spec));
    else out.push_back(std::make_unique<JudgeEvaluator>(s, spec, secrets));
  }
  return out;
}

}  // namespace engine::app
