// How many times over a run holds a large input: the peak of live heap bytes while `engine run --inputs FILE` does
// its work (read the file, parse it, resolve the inputs, run with the console's events, print the answer), less
// the same run's peak with a tiny input, divided by the input's size. The heap is counted by this binary's own
// operator new, so the figure is exact and does not depend on how the allocator returns memory to the system.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <string>

#include "engine/app/inputs.h"
#include "engine/assemble/build_executor.h"
#include "engine/spec/workflow_spec.h"
#include "engine/trace/console_printer.h"

namespace {

std::atomic<size_t> live{0};
std::atomic<size_t> peak{0};

void* counted(size_t n) {
  // The size is kept in front of the block, so delete knows what it frees without a sized delete.
  auto* p = static_cast<size_t*>(std::malloc(n + sizeof(std::max_align_t)));
  if (!p) throw std::bad_alloc();
  *p = n;
  size_t now = live.fetch_add(n) + n;
  size_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
  return reinterpret_cast<char*>(p) + sizeof(std::max_align_t);
}

void uncounted(void* q) {
  if (!q) return;
  auto* p = reinterpret_cast<size_t*>(static_cast<char*>(q) - sizeof(std::max_align_t));
  live.fetch_sub(*p);
  std::free(p);
}

}  // namespace

void* operator new(size_t n) { return counted(n); }
void* operator new[](size_t n) { return counted(n); }
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, size_t) noexcept { uncounted(p); }
void operator delete[](void* p, size_t) noexcept { uncounted(p); }

using namespace engine;

namespace {

// The peak heap of one `engine run --inputs FILE`, its console events included.
size_t peak_of_run(const std::shared_ptr<const workflow::Executor>& executor, const std::string& file) {
  peak = live.load();
  size_t before = live.load();
  {
    Value inputs = app::collect_inputs(*executor, app::GivenInputs{{}, file});
    std::ostringstream console;
    trace::ConsolePrinter printer(console, false);
    agent::RunResult r = executor->run(inputs, printer);
    if (r.output != "the text is 15 bytes of letters, repeated") std::abort();
  }
  return peak - before;
}

}  // namespace

int main() {
  auto dir = std::filesystem::temp_directory_path() / "engine_input_memory_bench";
  std::filesystem::create_directories(dir);
  auto executor = assemble::build_executor(spec::parse_workflow(R"(
inputs:
  input: the text to summarise
llm:
  provider: scripted
  scripted:
    replies: ["Final Answer: the text is 15 bytes of letters, repeated"]
agent:
  prompt: "Summarise this text:\n\n{{ input }}\n\nThought:{{ agent_scratchpad }}"
)", "summarise.yaml", "."));
  auto write_input = [&](const std::string& name, size_t bytes) {
    std::string text;
    text.reserve(bytes);
    while (text.size() < bytes) text += "abcdefghijklmno";
    text.resize(bytes);
    std::ofstream(dir / name) << "{\"input\": \"" << text << "\"}";
    return (dir / name).string();
  };
  size_t base = peak_of_run(executor, write_input("tiny.json", 10));
  std::printf("input held in memory during `engine run --inputs FILE` (peak live heap over a tiny input's, per "
              "input byte; console events on):\n");
  for (size_t mb : {1, 15}) {
    size_t bytes = mb * 1000 * 1000;
    size_t held = peak_of_run(executor, write_input("input.json", bytes)) - base;
    std::printf("  %2zu MB input   peak %6.1f MB over a tiny input's   %.2f times the input   (target <= 3)\n", mb,
                held / 1e6, static_cast<double>(held) / static_cast<double>(bytes));
  }
  std::filesystem::remove_all(dir);
  return 0;
}
