// steps: each step read on its own, a loop's body as steps of their own.
#include <algorithm>

#include "engine/core/limits.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/section_readers.h"

namespace engine::spec {

namespace keys {

// The keys this reader takes (format_keys.h): a new key is added here, read below, and described in
// schema/workflow.schema.json.
const KeyList kStep = {"kind",  "description", "when",     "template", "prompt",   "agent",
                       "inputs", "retry",      "on_error", "timeout",  "for_each", "concurrency",
                       "tool",  "input",       "steps",    "until",    "max_iterations", "workflow",
                       "lua",   "limits",      "llm",      "output_schema", "allow"};
const KeyList kRetry = {"attempts", "backoff"};

}  // namespace keys

namespace {

// The key that holds what a step of `kind` does.
const char* own_key(StepKind kind) {
  switch (kind) {
    case StepKind::Template: return "template";
    case StepKind::Llm: return "prompt";
    case StepKind::Tool: return "tool";
    case StepKind::Loop: return "steps";
    case StepKind::Workflow: return "workflow";
    case StepKind::Lua: return "lua";
    case StepKind::Agent: return "agent";
  }
  return "template";
}

// The keys beside its own that a step of `kind` takes.
bool takes(StepKind kind, std::string_view key) {
  switch (kind) {
    case StepKind::Agent:
    case StepKind::Workflow: return key == "inputs";
    case StepKind::Lua: return key == "inputs" || key == "limits" || key == "allow";
    case StepKind::Tool: return key == "input";
    case StepKind::Loop: return key == "until" || key == "max_iterations";
    default: return false;
  }
}

// The step's kind and what it does: without them it is no step, and what reads it is not another problem.
void read_core(SectionReader& in, const YAML::Node& b, const std::string& at, StepSpec& st) {
  YamlReader& r = in.r;
  const std::string& path = st.path;
  r.expect_map(b, path, keys::kStep);
  r.expect_present(b, "kind", path);
  Located<std::string> named = in.one_of(b["kind"], path + ".kind", step_kind_names());
  st.kind = {*step_kind_named(named.value), named.loc};
  // Each kind takes its own key; another kind's key is a mistake worth naming.
  const StepKind kind = st.kind.value;
  const char* own = own_key(kind);
  for (const char* key : {"template", "prompt", "agent", "inputs", "tool", "input", "steps", "until", "max_iterations",
                          "workflow", "lua", "limits", "allow"}) {
    if (b[key] && std::string_view(key) != own && !takes(kind, key))
      in.entry([&] {
        r.fail(ErrorKind::SpecConflict, path + "." + key + " is not for kind: " + named.value + " (it takes " + own + ")", b[key]);
      });
  }
  r.expect_present(b, own, path);
  if (kind == StepKind::Agent) {
    st.agent = read_agent(in, b["agent"], path + ".agent");
  } else if (kind == StepKind::Lua) {
    st.lua = r.located_str(b["lua"], path + ".lua");
    st.lua_file = in.within_scope(st.lua.value, path + ".lua", b["lua"]);
  } else if (kind == StepKind::Workflow) {
    st.workflow = r.located_str(b["workflow"], path + ".workflow");
    st.workflow_spec = in.sub_workflow(b["workflow"], path + ".workflow");
  } else if (kind == StepKind::Loop) {
    if (at != "steps") r.fail(ErrorKind::SpecConflict, path + ": a loop inside a loop is not supported", b["kind"]);
    // The body first: its steps' problems are noted even when the loop's own keys have one.
    st.body = read_steps(in, b["steps"], path + ".steps");
    r.expect_present(b, "until", path);
    r.expect_present(b, "max_iterations", path);
    st.until = r.located_raw(b["until"], path + ".until");
    st.max_iterations = static_cast<int>(r.integer(b["max_iterations"], path + ".max_iterations", 1, 100));
    for (const char* key : {"for_each", "retry"})
      if (b[key]) r.fail(ErrorKind::SpecConflict, path + "." + key + " is not for kind: loop (give it to the steps inside)", b[key]);
  } else if (kind == StepKind::Tool) {
    st.tool = r.located_str(b["tool"], path + ".tool");
    st.text = b["input"] ? in.template_source(b["input"], path + ".input")
                         : TemplateSource{"", in.display + " (" + path + ".input)", in.dir, st.loc, false, {}};
  } else {
    st.text = in.template_source(b[own], path + "." + own);
  }
}

// What else a step says: its inputs, its model, when and how often it runs, what it does on failure.
void read_options(SectionReader& in, const YAML::Node& b, StepSpec& st) {
  YamlReader& r = in.r;
  const std::string& path = st.path;
  const StepKind kind = st.kind.value;
  if (kind == StepKind::Lua) {
    in.key(b, "limits", [&](const YAML::Node& v) { st.lua_limits = in.lua_limits(v, path + ".limits"); });
    in.key(b, "allow", [&](const YAML::Node& v) { st.allow = in.allow(v, path + ".allow"); });
  }
  if (kind == StepKind::Agent || kind == StepKind::Workflow || kind == StepKind::Lua)
    in.key(b, "inputs", [&](const YAML::Node& inputs) {
      if (!inputs.IsMap()) r.fail(ErrorKind::SpecWrongType, path + ".inputs must map the step's inputs to templates", inputs);
      for (const auto& kv : inputs)
        in.entry([&] {
          std::string name = r.str(kv.first, path + ".inputs");
          in.check_name(name, "input", kv.first);
          st.inputs.emplace_back(name, in.template_source(kv.second, path + ".inputs." + name));
        });
    });
  in.key(b, "output_schema", [&](const YAML::Node& v) {
    if (kind != StepKind::Llm)
      r.fail(ErrorKind::SpecConflict, path + ".output_schema is for kind: llm (an agent step gives its agent one)", v);
    st.output_schema = in.json_schema(v, path + ".output_schema");
    st.output_schema_loc = r.loc(v);
  });
  in.key(b, "llm", [&](const YAML::Node& v) {
    if (kind != StepKind::Llm && kind != StepKind::Agent)
      r.fail(ErrorKind::SpecConflict,
             path + ".llm is for kinds llm and agent (a step of kind " + std::string(name_of(kind)) + " calls no model)", v);
    st.llm = read_llm(in, v, path + ".llm");
  });
  in.key(b, "when", [&](const YAML::Node& v) { st.when = r.located_raw(v, path + ".when"); });
  in.key(b, "for_each", [&](const YAML::Node& v) { st.for_each = r.located_raw(v, path + ".for_each"); });
  in.key(b, "concurrency", [&](const YAML::Node& v) {
    if (!b["for_each"]) r.fail(ErrorKind::SpecConflict, path + ".concurrency is for a step with for_each", v);
    st.concurrency = static_cast<int>(r.integer(v, path + ".concurrency", 1, 64));
  });
  in.key(b, "retry", [&](const YAML::Node& v) {
    r.expect_map(v, path + ".retry", keys::kRetry);
    r.expect_present(v, "attempts", path + ".retry");
    st.attempts = static_cast<int>(r.integer(v["attempts"], path + ".retry.attempts", 1, 10));
    if (v["backoff"]) st.backoff = r.number(v["backoff"], path + ".retry.backoff", 0);
    if (st.backoff > 60) r.fail(ErrorKind::SpecBadValue, path + ".retry.backoff is at most 60 seconds", v["backoff"]);
  });
  in.key(b, "on_error", [&](const YAML::Node& v) {
    st.continue_on_error = in.one_of(v, path + ".on_error", {"fail", "continue"}).value == "continue";
  });
  in.key(b, "timeout", [&](const YAML::Node& v) {
    double seconds = r.number(v, path + ".timeout", 0);
    if (seconds <= 0 || seconds > 86400)
      r.fail(ErrorKind::SpecBadValue, path + ".timeout is seconds, more than 0 and at most 86400", v);
    st.timeout = seconds;
  });
}

}  // namespace

std::vector<StepSpec> read_steps(SectionReader& in, const YAML::Node& n, const std::string& at) {
  YamlReader& r = in.r;
  if (!n.IsMap() || n.size() == 0) r.fail(ErrorKind::SpecWrongType, at + " must be a mapping of step names", n);
  if (n.size() > limits::kSteps)
    r.fail(ErrorKind::SpecTooManySteps, "a workflow has at most " + std::to_string(limits::kSteps) + " steps, got " +
                                      std::to_string(n.size()), n);
  std::vector<StepSpec> out;
  for (const auto& kv : n) {
    StepSpec st;
    bool named = in.entry([&] {
      st.name = r.str(kv.first, at);
      st.loc = r.loc(kv.first);
      in.check_name(st.name, "step", kv.first);
      if (std::find(in.seen_steps.begin(), in.seen_steps.end(), st.name) != in.seen_steps.end())
        r.fail(ErrorKind::SpecDuplicateKey, "duplicate step '" + st.name + "' (a step's name is one in the whole file)", kv.first);
      in.seen_steps.push_back(st.name);
    });
    if (!named) continue;
    st.path = at + "." + st.name;
    if (!in.entry([&] { read_core(in, kv.second, at, st); })) {
      // Left out: the steps that read it are not another problem of the file.
      if (in.found()) in.found()->left_out(Diagnostics::Entry::step, st.name);
      continue;
    }
    read_options(in, kv.second, st);
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace engine::spec
