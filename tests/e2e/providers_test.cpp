// The built `engine` against the loopback server: every example workflow runs unchanged with --llm pointed at it
// (OpenAI-compatible and Anthropic, whole and streamed), and --record / --replay round-trip a run.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "engine/core/file.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using engine::test::MockLlmServer;
using engine::test::run_engine;
using engine::test::shell_quote;

namespace {

struct Example {
  const char* workflow;
  const char* question;
};

const Example kExamples[] = {
    {"workflows/calculator.yaml", "What is 12 * 7 + 3?"},
    {"workflows/chat_template.yaml", "What is 6 * 7?"},
    {"workflows/invoice.yaml", "顧客A、B、Cの請求額の合計は？"},
    {"workflows/pirate_search.yaml", "Who wrote Treasure Island?"},
    {"workflows/research_chat.yaml", "Who introduced BERT?"},
};

// The model's answers of a recorded run, in order.
std::vector<std::string> recorded_texts(const std::filesystem::path& file) {
  std::vector<std::string> out;
  std::istringstream lines(read_file(file));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) out.push_back(Value::parse(line)["response"]["text"]);
  return out;
}

// A text cut into three deltas, so the stream has pieces to assemble.
std::vector<std::string> thirds(const std::string& text) {
  size_t a = text.size() / 3, b = 2 * text.size() / 3;
  while (a > 0 && (static_cast<unsigned char>(text[a]) & 0xC0) == 0x80) --a;
  while (b > a && (static_cast<unsigned char>(text[b]) & 0xC0) == 0x80) --b;
  return {text.substr(0, a), text.substr(a, b - a), text.substr(b)};
}

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("every example runs unchanged against the test server, OpenAI-compatible and Anthropic, streamed or not",
          "[e2e][openai][anthropic]") {
  for (const auto& ex : kExamples) {
    INFO(ex.workflow);
    test::TempDir dir;
    auto recording = dir.path() / "scripted.jsonl";
    std::string args = std::string("run ") + ex.workflow + " --input " + shell_quote(ex.question);
    auto scripted = run_engine(args + " -q --record " + shell_quote(recording.string()));
    REQUIRE(scripted.exit_code == 0);
    std::vector<std::string> texts = recorded_texts(recording);
    REQUIRE(!texts.empty());

    MockLlmServer server;
    for (const auto& t : texts) server.enqueue(MockLlmServer::chat(t));
    auto openai = run_engine(args + " --no-stream --llm openai:test-model", "",
                             "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key");
    CHECK(openai.exit_code == 0);
    CHECK(openai.out == scripted.out);
    CHECK(server.requests().size() == texts.size());

    for (const auto& t : texts) server.enqueue(MockLlmServer::message_stream(thirds(t)));
    auto anthropic = run_engine(args + " --stream --llm anthropic:claude-test", "",
                                "ANTHROPIC_BASE_URL=" + server.base_url() + " ANTHROPIC_API_KEY=sk-ant-e2e-secret");
    CHECK(anthropic.exit_code == 0);
    CHECK(anthropic.out == scripted.out);
    CHECK(server.requests().back().path == "/v1/messages");
    for (const auto& t : texts) CHECK(count(anthropic.err, t) == 1);  // streamed once, not shown again as the log
    CHECK(anthropic.err.find("sk-ant-e2e-secret") == std::string::npos);
  }
}

TEST_CASE("run --stream shows the model's text once, as it arrives", "[e2e][stream]") {
  auto streamed = run_engine("run workflows/calculator.yaml --stream --input 'What is 12 * 7 + 3?'");
  auto whole = run_engine("run workflows/calculator.yaml --no-stream --input 'What is 12 * 7 + 3?'");
  CHECK(streamed.exit_code == 0);
  CHECK(streamed.out == "87\n");
  CHECK(streamed.err == whole.err);  // the same transcript, only sooner
  CHECK(count(streamed.err, "Action: calculator") == 1);
  CHECK(run_engine("run workflows/calculator.yaml --stream --no-stream --input x").exit_code == 2);
}

TEST_CASE("run --record then --replay gives the same run without the model", "[e2e][replay]") {
  test::TempDir dir;
  auto file = dir.path() / "calc.jsonl";
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat(" I should use the calculator.\nAction: calculator\nAction Input: 12 * 7 + 3"));
  server.enqueue(MockLlmServer::chat(" I now know the final answer.\nFinal Answer: 87"));
  std::string q = " --input 'What is 12 * 7 + 3?'";
  auto recorded = run_engine("run workflows/calculator.yaml --json -q --llm openai:test-model --record " +
                                 shell_quote(file.string()) + q,
                             "", "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key");
  REQUIRE(recorded.exit_code == 0);
  std::string text = read_file(file);
  CHECK(count(text, "\n") == 2);
  CHECK(text.find("\"llm\":\"openai:test-model\"") != std::string::npos);

  auto replayed = run_engine("run workflows/calculator.yaml --json -q --replay " + shell_quote(file.string()) + q);
  CHECK(replayed.exit_code == 0);
  Value a = Value::parse(recorded.out), b = Value::parse(replayed.out);
  CHECK(a["output"] == "87");
  CHECK(b["output"] == a["output"]);
  CHECK(b["intermediate_steps"] == a["intermediate_steps"]);
  CHECK(b["usage"] == a["usage"]);
  CHECK(run_engine("run workflows/calculator.yaml -q --llm replay:" + shell_quote(file.string()) + q).out == "87\n");

  auto changed = run_engine("run workflows/calculator.yaml -q --replay " + shell_quote(file.string()) +
                            " --input 'What is 1 + 1?'");
  CHECK(changed.exit_code == 1);
  CHECK(changed.err.find("engine: error[llm.replay_miss]: replay: call 1 sends a request that " + file.string() +
                         " does not hold (2 recorded); against the closest, on line 1 (- recorded, + sent):\n") == 0);
  CHECK(changed.err.find("\n- messages") == std::string::npos);
  CHECK(changed.err.find("\n- prompt| Question: What is 12 * 7 + 3?\n+ prompt| Question: What is 1 + 1?\n") !=
        std::string::npos);
  CHECK(run_engine("run workflows/calculator.yaml --replay x.jsonl --llm openai:m --input q").exit_code == 2);
}

TEST_CASE("a workflow that names the replay provider reads its recording next to it", "[e2e][replay]") {
  test::TempDir dir;
  dir.write("calls.jsonl", R"({"request": {"prompt": "Q: hi\nA:", "stop": ["\n"]}, "response": {"text": " hello"}})"
                           "\n");
  auto w = dir.write("w.yaml",
                     "inputs: {input: {}}\nllm:\n  provider: replay\n  recording: calls.jsonl\nagent:\n"
                     "  prompt: \"Q: {{ input }}\\nA:\"\n  stop: [\"\\n\"]\n"
                     "  parser: {final_answer: '(?s)^\\s*(.*)$', action: 'Action: (.*)\\nAction Input: (.*)'}\n");
  auto r = run_engine("run " + shell_quote(w.string()) + " -q --input hi");
  CHECK(r.err == "");
  CHECK(r.out == "hello\n");
  auto missing = dir.write("m.yaml", "llm:\n  provider: replay\n  recording: nowhere.jsonl\nagent: {}\n");
  auto e = run_engine("validate " + shell_quote(missing.string()));
  CHECK(e.exit_code == 2);
  CHECK(e.err.find("m.yaml:3:14: llm.recording: cannot read the recording '") != std::string::npos);
}

TEST_CASE("a recording or trace file that cannot be written is a usage error before any call", "[e2e][replay]") {
  auto r = run_engine("run workflows/calculator.yaml -q --record /nonexistent-dir/calls.jsonl --input '1 + 1'");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "engine: error[io.write_failed]: cannot write the recording file '/nonexistent-dir/calls.jsonl'\n");
  CHECK(r.out.empty());
}

TEST_CASE("a streamed run's trace holds its tokens, and neither trace nor recording holds the key", "[e2e][stream]") {
  test::TempDir dir;
  auto trace = dir.path() / "trace.jsonl", rec = dir.path() / "rec.jsonl";
  MockLlmServer server;
  server.enqueue(MockLlmServer::chat_stream({" I should use the calculator.\nAction: calculator\nAction Input: 2 + 2"}));
  server.enqueue(MockLlmServer::chat_stream({" I now know.\nFinal Answer: 4"}));
  auto r = run_engine("run workflows/calculator.yaml -q --stream --llm openai:test-model --trace " +
                          shell_quote(trace.string()) + " --record " + shell_quote(rec.string()) + " --input '2 + 2'",
                      "", "OPENAI_BASE_URL=" + server.base_url() + " OPENAI_API_KEY=sk-e2e-secret-key");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "4\n");
  std::string t = read_file(trace);
  // at least one token event per call (a tail that could start the key is held back, then shown in one more)
  CHECK(count(t, "\"type\":\"llm_token\"") >= 2);
  CHECK(t.find("sk-e2e-secret-key") == std::string::npos);
  CHECK(read_file(rec).find("sk-e2e-secret-key") == std::string::npos);
  CHECK(server.requests()[0].body["stream"] == true);
}

TEST_CASE("on a terminal the model's text streams by default, into a pipe it does not", "[e2e][stream]") {
  test::TempDir dir;
  auto tty_trace = dir.path() / "tty.jsonl", pipe_trace = dir.path() / "pipe.jsonl";
  // util-linux's script (Debian's essential bsdutils) gives the command a terminal.
  std::string command = std::string(ENGINE_BIN) + " run workflows/calculator.yaml --trace " + shell_quote(tty_trace.string()) +
                        " --input 'What is 2 + 2?'";
  auto on_tty = test::run_command("script -qec " + shell_quote(command) + " /dev/null");
  CHECK(on_tty.exit_code == 0);
  std::string streamed = read_file(tty_trace);
  CHECK(streamed.find("\"stream\":true") != std::string::npos);
  CHECK(count(streamed, "\"type\":\"llm_token\"") > 2);
  auto piped = run_engine("run workflows/calculator.yaml --trace " + shell_quote(pipe_trace.string()) + " --input 'What is 2 + 2?'");
  CHECK(piped.exit_code == 0);
  CHECK(read_file(pipe_trace).find("llm_token") == std::string::npos);
}
