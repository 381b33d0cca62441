// What a journal costs (docs/durability.md): a 3-step scripted workflow (a model call, a tool call, a template) run
// unjournaled and journaled in each durability mode, in one process against one run store, as `engine run` would;
// the cost per step of a 100-step chain; the journal's bytes per step; and the time to resume a run of 100 finished
// steps (its journal read, every call answered from it). bench/journal.sh prints LangGraph's figures beside these.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "engine/assemble/build_executor.h"
#include "engine/core/json_text.h"
#include "engine/spec/workflow_spec.h"
#include "engine/store/run_journal.h"
#include "engine/store/run_store.h"
#include "timing.h"

using namespace engine;
using engine::bench::median_us;

namespace {

std::shared_ptr<const workflow::Executor> build(const std::string& yaml) {
  return assemble::build_executor(spec::parse_workflow(yaml, "bench.yaml", "."));
}

const char* const kThreeSteps = R"(
name: three
inputs:
  topic: {default: refunds}
llm:
  provider: scripted
  scripted:
    rules:
      - {match: '(?s).', reply: 'Refunds take five days.'}
tools:
  - builtin: echo
steps:
  draft: {kind: llm, prompt: 'Draft a note on {{ inputs.topic }}'}
  send: {kind: tool, tool: echo, input: '{{ steps.draft.output }}'}
  note: {kind: template, template: 'sent: {{ steps.send.output }}'}
)";

std::string chain_of_llm_steps(int n) {
  std::string yaml = "name: chain\nllm:\n  provider: scripted\n  scripted:\n    rules:\n      - {match: '(?s).', reply: 'ok'}\nsteps:\n";
  yaml += "  s0: {kind: llm, prompt: start}\n";
  for (int i = 1; i < n; ++i)
    yaml += "  s" + std::to_string(i) + ": {kind: llm, prompt: 'after {{ steps.s" + std::to_string(i - 1) + ".output }}'}\n";
  return yaml;
}

struct Bench {
  std::filesystem::path dir;
  store::RunStore store;
  store::RunWriter writer{store, 1024};
  int runs = 0;

  explicit Bench(std::filesystem::path d) : dir(std::move(d)), store(dir / "runs.db") {}

  // One run, journaled with `mode` (none: unjournaled); its id.
  std::string run(const workflow::Executor& executor, const Value& inputs, std::optional<Durability> mode) {
    NullSink sink;
    agent::RunOptions options;
    if (!mode) {
      (void)executor.run(inputs, sink, options);
      return "";
    }
    store::JournalRun header;
    header.id = "bench-" + std::to_string(::getpid()) + "-" + std::to_string(++runs);
    header.workflow = executor.name();
    header.inputs = inputs;
    header.durability = *mode;
    store::RunJournal journal(writer, header, {});
    options.run_id = journal.header().id;
    options.journal = JournalScope{&journal, ""};
    (void)executor.run(inputs, sink, options);
    journal.end(store::JournalState::Ended);
    return header.id;
  }
};

const char* mode_name(std::optional<Durability> mode) {
  if (!mode) return "none";
  return mode == Durability::Sync ? "sync" : mode == Durability::Async ? "async" : "exit";
}

}  // namespace

int main() {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("journal-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    Bench bench(dir);
    auto three = build(kThreeSteps);
    Value inputs = three->resolve_inputs(Value::object());
    std::optional<Durability> modes[] = {std::nullopt, Durability::Exit, Durability::Async, Durability::Sync};
    std::printf("a 3-step scripted workflow (model, tool, template), one run at a time, median of 501 runs:\n");
    double bare = 0;
    for (auto mode : modes) {
      for (int i = 0; i < 50; ++i) bench.run(*three, inputs, mode);  // warm: the store's pages and statements
      double us = median_us(501, [&] { bench.run(*three, inputs, mode); });
      if (!mode) bare = us;
      std::printf("  journal %-6s %8.1f us per run   %5.2fx unjournaled%s\n", mode_name(mode), us, us / bare,
                  mode == Durability::Async ? "   (the default; target < 1.1x)" : "");
    }

    const int n = 100;
    auto chain = build(chain_of_llm_steps(n));
    Value none = chain->resolve_inputs(Value::object());
    std::printf("a chain of %d scripted model steps, median of 51 runs:\n", n);
    double chain_bare = 0;
    std::string last;
    for (auto mode : modes) {
      double us = median_us(51, [&] { last = bench.run(*chain, none, mode); });
      if (!mode) chain_bare = us;
      std::printf("  journal %-6s %8.2f us per step   (+%.2f us per step)\n", mode_name(mode), us / n, (us - chain_bare) / n);
    }

    std::vector<store::StoredEntry> entries = bench.store.journal_entries(last);
    size_t bytes = 0;
    for (const auto& e : entries)
      bytes += e.entry.path.size() + e.entry.key.size() + e.entry.asked.size() + to_json_text(e.entry.value).size() + 24;
    std::printf("journal bytes per step of that chain: %.0f (%zu entries, %zu bytes of paths, keys, digests and values)\n",
                double(bytes) / n, entries.size(), bytes);

    // A run of 100 finished steps resumed: its journal read back, and the workflow made again from it.
    double resume_us = median_us(51, [&] {
      std::optional<store::JournalRun> header = bench.store.find_journal(last);
      store::RunJournal journal(bench.writer, *header, bench.store.journal_entries(last), {});
      NullSink sink;
      agent::RunOptions options;
      options.run_id = journal.header().id;
      options.journal = JournalScope{&journal, ""};
      (void)chain->run(none, sink, options);
      journal.end(store::JournalState::Ended);
    });
    std::printf("resume of a run of %d finished steps (read its journal, answer every call from it): %.2f ms   "
                "(target < 50 ms)\n", n, resume_us / 1000);
  }
  std::filesystem::remove_all(dir);
  return 0;
}
