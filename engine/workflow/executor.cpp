#include "engine/workflow/executor.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>

#include "engine/core/elapsed.h"
#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/workflow/input_types.h"

namespace engine::workflow {
namespace {

uint64_t random_seed() {
  std::random_device entropy;
  return (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
}

// SplitMix64's finaliser: consecutive counts become unrelated-looking ids.
uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Executor::Executor(Parts parts) : parts_(std::move(parts)), run_id_seed_(random_seed()) {}

// 64 bits in hex, different for every run of this executor and, by its random seed, from other processes' runs.
std::string Executor::new_run_id() const {
  uint64_t bits = mix(run_id_seed_ + 0x9e3779b97f4a7c15ULL * ++runs_);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(bits));
  return text;
}

Value Executor::resolve_inputs(Value given) const {
  Value out = Value::object();
  std::vector<std::string> names;
  for (const auto& i : parts_.inputs) names.push_back(i.name);
  if (given.is_object())
    for (const auto& [k, v] : given.items())
      if (std::find(names.begin(), names.end(), k) == names.end())
        throw Error(ErrorKind::InputUnknown, "unknown input '" + k + "'" +
                                         (did_you_mean(k, names).empty()
                                              ? " (declared inputs: " + (names.empty() ? "none" : join(names, ", ")) + ")"
                                              : did_you_mean(k, names)));
  for (const auto& i : parts_.inputs) {
    if (given.is_object() && given.contains(i.name)) out[i.name] = conform_input(i, std::move(given[i.name]));
    else if (i.default_value) out[i.name] = *i.default_value;
    else throw Error(ErrorKind::InputMissing, "missing input '" + i.name + "'" +
                                          (i.description.empty() ? "" : " (" + i.description + ")"));
  }
  return out;
}

agent::RunResult Executor::run(const Value& inputs, EventSink& given_events, const agent::RunOptions& given) const {
  llm::RunState own_state;  // this run's, unless the caller keeps one across its parts
  agent::RunOptions options = given;
  if (!options.llm_state) options.llm_state = &own_state;
  UsageMeter meter(given.usage);  // counts for the caller's too (the step or tool running this workflow)
  options.usage = &meter;
  std::string own_id;
  if (options.run_id.empty()) options.run_id = own_id = new_run_id();
  options.chain_name = parts_.name;
  PlacingSink events(given_events, "", std::string(options.run_id));
  if (parts_.agent && !parts_.outputs.empty())
    options.finishing = [this, &inputs](agent::RunResult& r) { render_agent_outputs(inputs, r); };
  agent::RunResult r = parts_.agent ? parts_.agent->run(inputs, events, options) : run_steps(inputs, events, options);
  r.run_id = options.run_id;
  return r;
}

// An agent's declared outputs, over its answer and steps: rendered before its chain ends, so a template that fails
// fails the run in its chain_end too.
void Executor::render_agent_outputs(const Value& inputs, agent::RunResult& r) const {
  Value own{{"output", r.output}, {"stopped_reason", name_of(r.stopped_reason)}};
  Value steps = Value::array();
  for (const auto& st : r.intermediate_steps) steps.push_back(agent::step_to_json(st));
  own["intermediate_steps"] = std::move(steps);
  auto ctx = tmpl::Vars::of(own).then_named("inputs", inputs).then(inputs);
  for (const auto& o : parts_.outputs) r.outputs[o.name] = o.value.render(ctx);
}

// The step whose output is the answer of a workflow without outputs: the end of the graph, the last step (in the
// file's order) that no other step reads. Steps may be written in any order, so the last one written may be one that
// feeds another.
const std::string& Executor::answer_step() const {
  const std::vector<Step>& steps = parts_.steps;
  for (size_t i = steps.size(); i-- > 0;) {
    bool read = false;
    for (const auto& other : steps)
      read = read || std::find(other.reads.begin(), other.reads.end(), i) != other.reads.end();
    if (!read) return steps[i].name;
  }
  return steps.back().name;
}

// A workflow of steps: the graph, then the declared outputs over the steps' outputs. The answer is the first declared
// output, or the output of the step at the end of the graph when none is declared.
agent::RunResult Executor::run_steps(const Value& inputs, EventSink& events, const agent::RunOptions& options) const {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  if (events.detail() != EventDetail::None) {
    events::ChainStart begin;
    begin.name = parts_.name.empty() ? "Workflow" : parts_.name;
    begin.chain = ChainKind::Workflow;
    if (events.detail() == EventDetail::Full) begin.inputs = inputs;
    agent::add_trace(begin, options.trace);
    events.emit({std::move(begin)});
  }
  GraphRun g = run_graph(parts_.steps, inputs, events, options, kDefaultMaxParallel, {}, workers_.get());
  agent::RunResult r;
  r.take_usage(options.usage->spent(), parts_.price.has_value());
  r.steps = std::move(g.steps);
  r.error = std::move(g.error);
  r.stopped_reason = r.error ? stopped_reason_of(r.error->kind) : StoppedReason::Finish;
  if (r.ok()) {
    Value own{{"steps", r.steps}};
    auto ctx = tmpl::Vars::of(own).then_named("inputs", inputs).then(inputs);
    try {
      for (const auto& o : parts_.outputs) r.outputs[o.name] = o.value.render(ctx);
      r.output = parts_.outputs.empty() ? r.steps[answer_step()]["output"] : r.outputs[parts_.outputs.front().name];
    } catch (const Error& e) {
      r.error = agent::RunError::from(e);
      r.stopped_reason = StoppedReason::Error;
    }
  }
  r.elapsed_ms = engine::elapsed_ms(start);
  if (events.detail() != EventDetail::None) events.emit({r.chain_end()});
  return r;
}

const agent::Agent& Executor::the_agent(const char* command) const {
  if (!parts_.agent)
    throw Error(ErrorKind::Usage, std::string("this workflow is a graph of steps; ") + command + " is for a workflow of one agent");
  return *parts_.agent;
}

parse::ParsedOutput Executor::parse_output(std::string_view text, const parse::ParserLog& log) const {
  const parse::OutputParser* parser = the_agent("engine parse").text_parser();
  if (!parser)
    throw Error(ErrorKind::Usage, "this workflow's agent reads the model's tool calls, not its text: engine parse is for react agents");
  parse::ParseContext context;
  context.log = log;
  return parser->parse_with(text, context);
}

std::string Executor::render_first_prompt(const Value& inputs) const {
  return the_agent("engine render").render_first_prompt(inputs);
}

}  // namespace engine::workflow
