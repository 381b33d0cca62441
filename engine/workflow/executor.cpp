#include "engine/workflow/executor.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/text.h"

namespace engine::workflow {

Value Executor::resolve_inputs(Value given) const {
  Value out = Value::object();
  std::vector<std::string> names;
  for (const auto& i : parts_.inputs) names.push_back(i.name);
  if (given.is_object())
    for (const auto& [k, v] : given.items())
      if (std::find(names.begin(), names.end(), k) == names.end())
        throw Error("input.unknown", "unknown input '" + k + "'" +
                                         (did_you_mean(k, names).empty()
                                              ? " (declared inputs: " + (names.empty() ? "none" : join(names, ", ")) + ")"
                                              : did_you_mean(k, names)));
  for (const auto& i : parts_.inputs) {
    if (given.is_object() && given.contains(i.name)) out[i.name] = std::move(given[i.name]);
    else if (i.default_value) out[i.name] = *i.default_value;
    else throw Error("input.missing", "missing input '" + i.name + "'" +
                                          (i.description.empty() ? "" : " (" + i.description + ")"));
  }
  return out;
}

agent::RunResult Executor::run(const Value& inputs, EventSink& events, const agent::RunOptions& options) const {
  agent::RunResult r = parts_.agent->run(inputs, events, options);
  if (!r.ok() || parts_.outputs.empty()) return r;
  Value own{{"output", r.output}, {"stopped_reason", r.stopped_reason}};
  Value steps = Value::array();
  for (const auto& st : r.intermediate_steps) steps.push_back(agent::step_to_json(st));
  own["intermediate_steps"] = std::move(steps);
  auto ctx = tmpl::Vars::of(own).then_named("inputs", inputs).then(inputs);
  try {
    for (const auto& o : parts_.outputs) r.outputs[o.name] = o.value.render(ctx);
  } catch (const Error& e) {
    r.error = agent::RunError{e.kind(), e.what()};
    r.stopped_reason = "error";
  }
  return r;
}

parse::ParsedOutput Executor::parse_output(std::string_view text) const {
  const parse::OutputParser* parser = parts_.agent->text_parser();
  if (!parser)
    throw Error("usage", "this workflow's agent reads the model's tool calls, not its text: engine parse is for react agents");
  return parser->parse(text);
}

std::string Executor::render_first_prompt(const Value& inputs) const { return parts_.agent->render_first_prompt(inputs); }

}  // namespace engine::workflow
