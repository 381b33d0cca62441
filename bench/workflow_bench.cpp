// The scheduler's own cost: a step that does nothing (a one-word template), in a chain and side by side; and a
// 4-step graph with two parallel branches of scripted model calls against its critical path.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/assemble/build_executor.h"
#include "engine/spec/workflow_spec.h"
#include "timing.h"

using namespace engine;
using engine::bench::median_us;

namespace {

std::shared_ptr<const workflow::Executor> build(const std::string& yaml) {
  return assemble::build_executor(spec::parse_workflow(yaml, "bench.yaml", "."));
}

void per_step() {
  const int n = 100;
  std::string chain = "steps:\n  s0: {kind: template, template: x}\n";
  for (int i = 1; i < n; ++i)
    chain += "  s" + std::to_string(i) + ": {kind: template, template: '{{ steps.s" + std::to_string(i - 1) +
             ".output }}'}\n";
  std::string wide = "steps:\n";
  for (int i = 0; i < n; ++i) wide += "  s" + std::to_string(i) + ": {kind: template, template: x}\n";
  // Steps that may wait start worker threads (up to 8): the scheduler's cost when steps really run at once.
  std::string waiting = "llm:\n  provider: scripted\n  scripted:\n    rules:\n      - {match: '(?s).', reply: 'ok'}\nsteps:\n";
  std::string waiting_chain = waiting + "  s0: {kind: llm, prompt: x}\n";
  for (int i = 0; i < n; ++i) waiting += "  s" + std::to_string(i) + ": {kind: llm, prompt: x}\n";
  for (int i = 1; i < n; ++i)
    waiting_chain += "  s" + std::to_string(i) + ": {kind: llm, prompt: '{{ steps.s" + std::to_string(i - 1) + ".output }}'}\n";
  std::printf("scheduler cost per step (%d one-word steps: a template's render, or a scripted model's answer, "
              "included), median of 201:\n", n);
  for (auto [label, yaml] : {std::pair{"a chain, each reading the one before", chain},
                             std::pair{"side by side, reading nothing", wide},
                             std::pair{"llm steps in a chain (one thread)", waiting_chain},
                             std::pair{"llm steps side by side (8 threads)", waiting}}) {
    auto executor = build(yaml);
    Value inputs = executor->resolve_inputs(Value::object());
    NullSink sink;
    double us = median_us(201, [&] { (void)executor->run(inputs, sink); });
    std::printf("  %-40s %7.2f us per step   (target < 5 us)\n", label, us / n);
  }
}

void critical_path() {
  auto executor = build(R"(
inputs:
  topic: {default: tides}
llm:
  provider: scripted
  scripted:
    latency_ms: 50
    rules:
      - {match: '(?s).', reply: 'ok'}
steps:
  plan: {kind: llm, prompt: 'Plan a note on {{ inputs.topic }}'}
  facts: {kind: llm, prompt: 'Facts for {{ steps.plan.output }}'}
  style: {kind: llm, prompt: 'Style for {{ steps.plan.output }}'}
  write: {kind: llm, prompt: '{{ steps.facts.output }} {{ steps.style.output }}'}
)");
  Value inputs = executor->resolve_inputs(Value::object());
  NullSink sink;
  double us = median_us(21, [&] { (void)executor->run(inputs, sink); });
  double path = 3 * 50'000;  // plan, one of the two branches, write
  std::printf("4-step graph, two parallel branches, 50 ms per scripted call, median of 21:\n");
  std::printf("  %.1f ms against a critical path of %.0f ms: %.3fx   (target <= 1.05x; run one at a time: 200 ms)\n",
              us / 1000, path / 1000, us / path);
}

}  // namespace

int main() {
  per_step();
  critical_path();
  return 0;
}
