// The engine's own cost where runs grow: a chat turn as its history grows, and a ReAct iteration as its scratchpad
// grows. The model is the scripted provider (its cost included, and small: it answers from a list).
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
using Clock = std::chrono::steady_clock;

namespace {

// Counts the bytes of every prompt the run sends (a calibration run; the timed runs use a NullSink).
class PromptBytes : public EventSink {
 public:
  void receive(const Event& e, const EventPlace&) override {
    if (const auto* call = e.as<events::LlmStart>()) total += call->prompt.value_or("").size();
  }
  size_t total = 0;
};

void chat_turns() {
  auto executor = assemble::build_executor(spec::parse_workflow(R"(
inputs:
  input: the message
llm:
  provider: scripted
  scripted:
    replies: ["Final Answer: Arrr, the spyglass says the population was about 128.5 million in 2023. Arg!"]
agent:
  prompt: "You are a pirate.\n\nPrevious conversation history:\n{{ history_text }}\n\nNew question: {{ input }}\n{{ agent_scratchpad }}"
  memory: {kind: full}
)", "chat.yaml", "."));
  Value inputs = executor->resolve_inputs({{"input", "how about in mexico? and in which year was that counted?"}});
  std::printf("chat turn with its history in the prompt (memory: full; 60-byte messages, 90-byte answers), median of 2000:\n");
  double base = 0;
  for (int turns : {0, 10, 50, 200}) {
    std::vector<agent::Exchange> history;
    for (int i = 0; i < turns; ++i)
      history.push_back({"question number " + std::to_string(i) + ": how many people live there, as of 2023?",
                         "Arrr, the spyglass says the population was about 128.5 million in 2023, matey. Arg! Turn " +
                             std::to_string(i)});
    NullSink sink;
    double us = median_us(2000, [&] { (void)executor->run(inputs, sink, agent::RunOptions{.history = history}); });
    if (turns == 0) base = us;
    std::printf("  %3d turns of history   %8.2f us per turn", turns, us);
    if (turns > 0) std::printf("   (%.3f us per past turn over none)", (us - base) / turns);
    std::printf("%s\n", turns == 50 ? "   (target < 100 us)" : "");
  }
}

void react_iterations() {
  std::printf("ReAct loop: engine time per run (echo tool, 180-byte steps, the default prompt and scratchpad):\n");
  struct Point {
    int steps;
    double us, kb;
  };
  std::vector<Point> points;
  for (int steps : {10, 200, 1000}) {
    std::string replies;
    for (int i = 0; i < steps; ++i)
      replies += "      - \"I should look at item " + std::to_string(i) +
                 " once more before I answer.\\nAction: echo\\nAction Input: item number " + std::to_string(i) + "\"\n";
    replies += "      - \"Final Answer: done\"\n";
    auto executor = assemble::build_executor(spec::parse_workflow(
        "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    replies:\n" + replies +
            "tools:\n  - builtin: echo\nagent:\n  max_iterations: 10000\n",
        "loop.yaml", "."));
    Value inputs = executor->resolve_inputs({{"input", "Look at every item."}});
    PromptBytes bytes;
    if (executor->run(inputs, bytes).output != "done") std::abort();
    NullSink sink;
    int rounds = steps >= 1000 ? 5 : steps >= 200 ? 21 : 401;
    double us = median_us(rounds, [&] { (void)executor->run(inputs, sink); });
    double kb = bytes.total / 1024.0;
    points.push_back({steps, us, kb});
    std::printf("  %4d steps: %9.1f us per run, %6.2f us per iteration, %8.1f KB of prompts, %6.3f us per KB sent\n",
                steps, us, us / (steps + 1), kb, us / kb);
  }
  // What each further KB of prompt costs: the slope between the two longest runs (their 800 extra iterations'
  // fixed work, parse and tool call, counted in it too, so it errs high).
  const Point& a = points[1];
  const Point& b = points[2];
  std::printf("  each further KB of prompt: %.3f us   (target <= 0.3; the scratchpad is appended, not re-rendered)\n",
              (b.us - a.us) / (b.kb - a.kb));
}

}  // namespace

int main() {
  chat_turns();
  react_iterations();
  return 0;
}
