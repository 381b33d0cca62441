// The engine's side of the peer benchmark: the workflow bench/peer/react_add_multiply.yaml, run in one process
// against the shared loopback mock of the OpenAI API, in sequence or many at once on one shared Executor.
//   peer_bench --base URL --mode seq|batch [--runs N] [--concurrency C]
// Prints one JSON line, as the LangChain.js peer (peer.mjs) does.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine/assemble/build_executor.h"
#include "engine/spec/search_path.h"
#include "engine/core/error.h"
#include "engine/core/json_text.h"

using namespace engine;

namespace {

std::string arg(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  std::string base = arg(argc, argv, "--base", "");
  std::string mode = arg(argc, argv, "--mode", "seq");
  int runs = std::atoi(arg(argc, argv, "--runs", "200").c_str());
  int concurrency = mode == "batch" ? std::atoi(arg(argc, argv, "--concurrency", "64").c_str()) : 1;
  if (base.empty() || runs < 1 || concurrency < 1) {
    std::fprintf(stderr, "usage: peer_bench --base URL --mode seq|batch [--runs N] [--concurrency C]\n");
    return 2;
  }
  setenv("MOCK_BASE_URL", base.c_str(), 1);
  setenv("MOCK_API_KEY", "sk-mock", 1);
  try {
    auto t0 = std::chrono::steady_clock::now();
    auto executor = assemble::build_executor(spec::load_workflow(std::string(ENGINE_SOURCE_DIR) +
                                                                  "/bench/peer/react_add_multiply.yaml"));
    std::atomic<int> next{0}, ok{0};
    std::string sample;
    auto worker = [&] {
      NullSink sink;
      for (int i = next++; i < runs; i = next++) {
        Value inputs = executor->resolve_inputs({{"input", "What is (10 + 10) doubled twice? #" + std::to_string(i)}});
        auto r = executor->run(inputs, sink);
        if (r.ok() && r.output == "80") ++ok;
        if (i == 0) sample = r.ok() ? (r.output.is_string() ? r.output.get<std::string>() : r.output.dump()) : r.error->message;
      }
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < concurrency; ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("%s\n", to_json_text(Value{{"peer", "engine"}, {"mode", mode}, {"runs", runs}, {"concurrency", concurrency},
                                          {"ms", static_cast<long>(ms * 100) / 100.0}, {"ok", ok.load()},
                                          {"sample", sample}, {"rss_mb", usage.ru_maxrss / 1024.0}})
                            .c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "peer_bench: %s\n", e.formatted().c_str());
    return 1;
  }
  return 0;
}
