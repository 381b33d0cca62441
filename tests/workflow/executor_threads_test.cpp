// An executor is immutable once built and shared by runs: many threads run one executor against one server, with
// the HTTP client's pooled connections, and every run gets its own answer.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "engine/assemble/build_executor.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::MockLlmServer;

TEST_CASE("runs on many threads share one executor and its connections", "[e2e][openai]") {
  MockLlmServer server;
  const int threads = 8, runs_each = 5;
  for (int i = 0; i < threads * runs_each; ++i) server.enqueue(MockLlmServer::chat(" I know.\nFinal Answer: 4"));
  setenv("ENGINE_TEST_SHARED_KEY", "sk-shared-test-key", 1);
  auto spec = spec::load_workflow(test::source_path("workflows/calculator.yaml"), {test::shipped_search_path()});
  spec.llm.provider.value = "openai";
  spec.llm.base_url = server.base_url();
  spec.llm.api_key_env = "ENGINE_TEST_SHARED_KEY";
  auto executor = assemble::build_executor(spec);
  Value inputs = executor->resolve_inputs({{"input", "What is 2 + 2?"}});
  std::atomic<int> ok{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      NullSink sink;
      for (int i = 0; i < runs_each; ++i)
        if (executor->run(inputs, sink).output == "4") ++ok;
    });
  for (auto& t : pool) t.join();
  CHECK(ok == threads * runs_each);
  CHECK(server.requests().size() == static_cast<size_t>(threads * runs_each));
}

TEST_CASE("chat sessions on many threads share one executor and never see each other's history",
          "[assemble][memory]") {
  // The scripted model answers with the last thing the human said before this message, as the memory shows it.
  auto executor = assemble::build_executor(spec::parse_workflow(
      "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    rules:\n"
      "      - {match: '(?s).*Human: (?P<said>[^\\n]*)\\nAI: [^\\n]*\\|', reply: 'Final Answer: {{ said }}'}\n"
      "      - {match: '(?s).*', reply: 'Final Answer: nothing yet'}\n"
      "agent:\n  prompt: '{{ history_text }}|{{ input }}'\n  memory: {kind: window, k: 1}\n",
      "w.yaml", "."));
  const int threads = 6, turns = 20;
  std::atomic<int> ok{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      NullSink sink;
      std::vector<agent::Exchange> history;
      for (int i = 0; i < turns; ++i) {
        std::string said = "thread " + std::to_string(t) + " turn " + std::to_string(i);
        auto r = executor->run(executor->resolve_inputs({{"input", said}}), sink, agent::RunOptions{.history = history});
        std::string expected = i == 0 ? "nothing yet" : "thread " + std::to_string(t) + " turn " + std::to_string(i - 1);
        if (r.output == expected) ++ok;
        history.push_back({said, r.output.get<std::string>()});
      }
    });
  for (auto& t : pool) t.join();
  CHECK(ok == threads * turns);
}
