// `engine batch` as a user runs it: the shipped example, a batch killed with SIGKILL and run again (no finished line
// lost, none torn, every row done exactly once), Ctrl-C, CSV data, shards run as separate processes, the progress
// line only where a person watches.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "support/mock_llm_server.h"
#include "support/test_support.h"

using namespace engine;
using test::run_engine;
using test::shell_quote;

namespace {

// Echoes its question after `latency_ms`; a question with a capital letter matches no rule and fails.
std::string slow_echo_workflow(int latency_ms) {
  return "inputs:\n  question: q\nllm:\n  provider: scripted\n  scripted:\n    latency_ms: " +
         std::to_string(latency_ms) +
         "\n    rules: [{match: 'Q: (?P<q>[a-z0-9 ]+)$', reply: 'A: {{ q }}'}]\n"
         "steps:\n  ask: {kind: llm, prompt: 'Q: {{ question }}'}\n";
}

std::string numbered_questions(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += R"({"id": )" + std::to_string(i) + R"(, "question": "q)" + std::to_string(i) + "\"}\n";
  return text;
}

// Every line of a results file, each of which must be a whole JSON object (a torn line fails the test).
std::vector<Value> result_lines(const std::filesystem::path& file) {
  std::vector<Value> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    Value v = parse_json(line);
    INFO("line: " << line);
    REQUIRE(v.is_object());
    out.push_back(std::move(v));
  }
  return out;
}

size_t line_count(const std::filesystem::path& file) {
  std::ifstream in(file);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Waits (at most 20 s) until `file` holds `n` lines.
bool lines_reach(const std::filesystem::path& file, size_t n) {
  test::wait_until([&] { return line_count(file) >= n; }, 20000);
  return line_count(file) >= n;
}

// index -> output, checking that no index appears twice.
std::map<size_t, Value> outputs_by_index(const std::vector<Value>& lines) {
  std::map<size_t, Value> out;
  for (const auto& l : lines) {
    INFO("index " << l["index"]);
    CHECK(out.count(l["index"].get<size_t>()) == 0);
    out[l["index"].get<size_t>()] = l["output"];
  }
  return out;
}

std::string batch_args(const std::filesystem::path& workflow, const std::filesystem::path& data,
                       const std::filesystem::path& out, const std::string& more = "") {
  return "batch " + shell_quote(workflow.string()) + " --data " + shell_quote(data.string()) + " --out " +
         shell_quote(out.string()) + (more.empty() ? "" : " " + more);
}

}  // namespace

TEST_CASE("engine batch runs the shipped example: 20 lines, a summary, no progress line into a pipe", "[e2e][batch]") {
  test::TempDir dir;
  auto out = dir.path() / "results.jsonl";
  auto r = run_engine(batch_args("workflows/batch_qa.yaml", "workflows/data/questions.jsonl", out));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  auto lines = result_lines(out);
  REQUIRE(lines.size() == 20);
  CHECK(lines[0]["index"] == 0);
  CHECK(lines[0]["output"] == "87");
  CHECK(lines[0]["data"]["expected"] == "87");
  CHECK(lines[0]["usage"]["cost_usd"].is_number());
  CHECK(r.err.find("batch: 20 rows: 20 ok, 0 failed in ") == 0);
  CHECK(r.err.find("results: " + out.string()) != std::string::npos);
  CHECK(r.err.find('\r') == std::string::npos);  // stderr is not a terminal: no progress line

  auto again = run_engine(batch_args("workflows/batch_qa.yaml", "workflows/data/questions.jsonl", out, "--progress --json"));
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("\r\033[Kbatch: 0 done (+20 resumed)") != std::string::npos);
  Value summary = Value::parse(again.out);
  CHECK(summary["resumed"] == 20);
  CHECK(summary["done"] == 0);
  CHECK(result_lines(out).size() == 20);
}

TEST_CASE("a batch killed with SIGKILL keeps every finished line whole, and its rerun does the rest exactly once", "[e2e][batch]") {
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(50));
  auto data = dir.write("data.jsonl", numbered_questions(60));
  auto out = dir.path() / "out.jsonl";
  {
    test::EngineProcess engine(batch_args(workflow, data, out, "--concurrency 4"));
    REQUIRE(lines_reach(out, 8));
    engine.signal(SIGKILL);
    engine.wait();
  }
  auto before = result_lines(out);  // each whole: a torn line fails here
  REQUIRE(before.size() >= 8);
  REQUIRE(before.size() < 60);
  auto r = run_engine(batch_args(workflow, data, out, "--concurrency 4"));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  auto after = result_lines(out);
  REQUIRE(after.size() == 60);
  auto outputs = outputs_by_index(after);
  CHECK(outputs.size() == 60);
  CHECK(outputs[59] == "A: q59");
  for (const auto& line : before) CHECK(outputs[line["index"].get<size_t>()] == line["output"]);
}

// The niceness of each of a process's threads, from /proc (the 19th field of each task's stat).
std::vector<int> thread_niceness(int pid) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));  // the name may hold spaces
    std::string field;
    for (int i = 3; i <= 19 && fields >> field; ++i)
      if (i == 19) out.push_back(std::stoi(field));
  }
  return out;
}

TEST_CASE("a batch runs every thread at its --nice, 5 unless told, and refuses one out of 0 to 19", "[e2e][batch]") {
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(300));
  auto data = dir.write("data.jsonl", numbered_questions(12));
  for (auto [flag, nice] : {std::pair<std::string, int>{"", 5}, {"--nice 11", 11}}) {
    auto out = dir.path() / ("out" + std::to_string(nice) + ".jsonl");
    test::EngineProcess engine(batch_args(workflow, data, out, "--concurrency 4 " + flag));
    REQUIRE(lines_reach(out, 1));
    auto niceness = thread_niceness(engine.pid());
    engine.signal(SIGKILL);
    engine.wait();
    INFO(flag);
    CHECK(niceness.size() >= 3);  // the main thread and the runs' two
    CHECK(niceness == std::vector<int>(niceness.size(), nice));
  }
  auto refused = run_engine(batch_args(workflow, data, dir.path() / "x.jsonl", "--nice 20"));
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("--nice") != std::string::npos);
}

// A 30-row batch of 200 ms rows, two at a time, sent SIGINT once two rows are written; `env` goes before it.
test::CommandResult interrupted_batch(const test::TempDir& dir, const std::filesystem::path& out, const std::string& env = "") {
  auto workflow = dir.path() / "echo.yaml";
  test::EngineProcess engine(batch_args(workflow, dir.path() / "data.jsonl", out, "--concurrency 2"), env);
  REQUIRE(lines_reach(out, 2));
  engine.signal(SIGINT);
  return engine.wait();
}

TEST_CASE("Ctrl-C stops a batch launching runs: it exits 130, and running it again finishes it", "[e2e][batch]") {
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(200));
  auto data = dir.write("data.jsonl", numbered_questions(30));
  auto out = dir.path() / "out.jsonl";
  test::CommandResult stopped = interrupted_batch(dir, out);
  INFO(stopped.err);
  CHECK(stopped.exit_code == 130);
  CHECK(stopped.err.find("batch: stopped after ") != std::string::npos);
  CHECK(stopped.err.find("(run the same command again to go on)") != std::string::npos);
  // The first Ctrl-C says what it does, and what a second one would.
  CHECK(stopped.err.find("batch: stopping: no new runs start, the runs in flight finish and are written (Ctrl-C again "
                         "cancels them)") != std::string::npos);
  size_t done = result_lines(out).size();
  CHECK(done < 30);
  auto r = run_engine(batch_args(workflow, data, out, "--concurrency 8"));
  CHECK(r.exit_code == 0);
  CHECK(outputs_by_index(result_lines(out)).size() == 30);
}

TEST_CASE("kill -INT stops a batch a script started in the background, as Ctrl-C does", "[e2e][batch]") {
  test::TempDir dir;
  dir.write("echo.yaml", slow_echo_workflow(200));
  dir.write("data.jsonl", numbered_questions(30));
  auto out = dir.path() / "out.jsonl";
  // A shell without job control starts `cmd &` with SIGINT ignored: `trap '' INT` does the same here.
  test::CommandResult stopped = interrupted_batch(dir, out, "trap '' INT;");
  INFO(stopped.err);
  CHECK(stopped.exit_code == 130);
  CHECK(stopped.err.find("batch: stopping: no new runs start") != std::string::npos);
  CHECK(result_lines(out).size() < 30);
}

TEST_CASE("CSV data with a BOM, quoting and --map, and a bad row reported with its line while the batch goes on", "[e2e][batch]") {
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(0));
  auto data = dir.write("data.csv", "\xEF\xBB\xBFid,text\r\n1,\"two, three\"\r\n2,\"four\"\r\n3,five,extra\r\n4,six\r\n");
  auto out = dir.path() / "out.jsonl";
  auto r = run_engine(batch_args(workflow, data, out, "--map question=text"));
  INFO(r.err);
  CHECK(r.exit_code == 1);  // a row failed
  CHECK(r.err.find("batch: 4 rows: 2 ok, 2 failed") == 0);
  auto lines = result_lines(out);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0]["inputs"]["question"] == "two, three");
  CHECK(lines[0]["status"] == "failed");  // the comma matches no rule of the echo model
  CHECK(lines[1]["output"] == "A: four");
  CHECK(lines[1]["data"] == Value{{"id", "2"}});
  CHECK(lines[2]["error"]["message"] == data.string() + ":4: the row has 3 fields and the header 2 columns");
  CHECK(lines[3]["output"] == "A: six");

  auto unmapped = run_engine(batch_args(workflow, data, dir.path() / "other.jsonl"));
  CHECK(unmapped.exit_code == 2);
  CHECK(unmapped.err == "engine: error[usage]: the data has no column 'question' for the input 'question' (columns: id, "
                        "text); name its column with --map question=COLUMN\n");
}

TEST_CASE("four shards run as four processes hold, between them, what one unsharded batch holds", "[e2e][batch]") {
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(10));
  auto data = dir.write("data.jsonl", numbered_questions(25));
  std::vector<std::unique_ptr<test::EngineProcess>> shards;
  for (int k = 0; k < 4; ++k)
    shards.push_back(std::make_unique<test::EngineProcess>(
        batch_args(workflow, data, dir.path() / ("shard" + std::to_string(k) + ".jsonl"), "--shards 4"),
        "JOB_COMPLETION_INDEX=" + std::to_string(k)));
  for (auto& s : shards) CHECK(s->wait().exit_code == 0);
  std::string shard_files;
  for (int k = 0; k < 4; ++k) {
    auto file = dir.path() / ("shard" + std::to_string(k) + ".jsonl");
    for (auto& line : result_lines(file)) CHECK(line["index"].get<size_t>() % 4 == static_cast<size_t>(k));
    shard_files += " " + shell_quote(file.string());
  }
  auto merged = dir.path() / "merged.jsonl";
  auto m = run_engine("batch merge" + shard_files + " --out " + shell_quote(merged.string()) + " --data " +
                      shell_quote(data.string()));
  CHECK(m.exit_code == 0);
  CHECK(m.err == "merged 25 of 25 rows into " + merged.string() + "\n");
  auto whole = dir.path() / "whole.jsonl";
  REQUIRE(run_engine(batch_args(workflow, data, whole)).exit_code == 0);
  auto merged_lines = result_lines(merged);
  auto whole_lines = result_lines(whole);
  REQUIRE(merged_lines.size() == 25);
  for (size_t i = 0; i < 25; ++i) {
    CHECK(merged_lines[i]["index"] == i);
    for (auto* line : {&merged_lines[i], &whole_lines[i]}) {  // what differs between any two runs
      line->erase("run_id");
      line->erase("elapsed_ms");
      (*line)["steps"]["ask"].erase("elapsed_ms");
    }
    CHECK(merged_lines[i] == whole_lines[i]);
  }

  // A shard lost: the merge names its rows and fails.
  auto partial = run_engine("batch merge " + shell_quote((dir.path() / "shard0.jsonl").string()) + " --out " +
                            shell_quote((dir.path() / "partial.jsonl").string()) + " --data " + shell_quote(data.string()));
  CHECK(partial.exit_code == 1);
  CHECK(partial.err.find("missing rows: 1-3, 5-7, 9-11, ") != std::string::npos);
}

TEST_CASE("a batch under --rpm starts its calls one interval apart, whatever its concurrency", "[e2e][batch]") {
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(0));
  auto data = dir.write("data.jsonl", numbered_questions(6));
  auto r = run_engine(batch_args(workflow, data, dir.path() / "out.jsonl", "--concurrency 6 --rpm 600 --json"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // Six calls at 600 a minute start 100 ms apart: the last at least 500 ms after the first (a lower bound, which a
  // busy machine only lengthens).
  CHECK(Value::parse(r.out)["elapsed_s"].get<double>() >= 0.49);
}

TEST_CASE("a 429 holds the whole batch: no run starts a model call before the server's Retry-After", "[e2e][batch]") {
  test::MockLlmServer server;
  server.enqueue({429, R"({"error": {"message": "Rate limit reached"}})", {{"retry-after-ms", "500"}}, 0});
  // The answers take 50 ms, so the 429 is read first: a call that ends in the same instant as the 429 arrives may
  // start its next call before the hold is known, as with any client.
  for (int i = 0; i < 6; ++i) {
    auto answer = test::MockLlmServer::chat("A: ok");
    answer.delay_ms = 50;
    server.enqueue(answer);
  }
  test::TempDir dir;
  auto workflow = dir.write("ask.yaml", "inputs:\n  question: q\nllm:\n  provider: scripted\n"
                                        "  scripted: {replies: [x]}\nsteps:\n  ask: {kind: llm, prompt: '{{ question }}'}\n");
  auto data = dir.write("data.jsonl", numbered_questions(5));
  auto r = run_engine(batch_args(workflow, data, dir.path() / "out.jsonl", "--concurrency 2 --llm openai:test-model"), "",
                      "OPENAI_API_KEY=sk-e2e-secret-key OPENAI_BASE_URL=" + server.base_url());
  INFO(r.err);
  CHECK(r.exit_code == 0);
  auto requests = server.requests();
  REQUIRE(requests.size() == 6);  // five rows, one of them retried
  // The first request heard the 429; the second was already on its way. Every later one waited for the hold.
  for (size_t i = 2; i < requests.size(); ++i)
    CHECK(requests[i].received - requests[0].received >= std::chrono::milliseconds(450));
}

TEST_CASE("batch: a numeric flag out of range (--concurrency -1, 0 or 10^6, --rpm nan, --shards -1) is refused at once",
          "[e2e][batch]") {
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(0));
  auto data = dir.write("data.jsonl", numbered_questions(3));
  auto out = dir.path() / "out.jsonl";
  for (std::string flag : {"--concurrency -1", "--concurrency=-1", "-c 0", "-c 1000000", "-c 18446744073709551615",
                           "--rpm nan", "--rpm -5", "--tpm inf", "--shards -1", "--threshold nan", "--nice -1"}) {
    INFO(flag);
    auto r = run_engine(batch_args(workflow, data, out, flag));
    CHECK(r.exit_code == 2);
    CHECK((r.err.find("expected a whole number from") != std::string::npos ||
           r.err.find("expected a number from") != std::string::npos));
    CHECK(!std::filesystem::exists(out));
  }
}

// Clusters often cap a process's address space. A fiber's stack is 2 MB of it (8 MB under the sanitizers, which
// cannot run under the cap at all): a batch makes no more fibers than it has rows, and a stack it cannot have ends
// the batch with a clear error after the runs in flight finish, never a hang.
TEST_CASE("batch: under ulimit -v, a wide --concurrency over few rows runs, and one past the cap fails clearly", "[e2e][batch]") {
#if defined(__SANITIZE_ADDRESS__)
  SUCCEED("the sanitizers reserve terabytes of address space: no limit can be set under them");
#else
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(20));
  auto few = dir.write("few.jsonl", numbered_questions(3));
  auto out = dir.path() / "few_out.jsonl";
  std::string cap = "ulimit -v 1500000 &&";  // 1.5 GB: the engine, and a few hundred stacks
  auto r = run_engine(batch_args(workflow, few, out, "--concurrency 16384"), "", cap);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(result_lines(out).size() == 3);

  auto many = dir.write("many.jsonl", numbered_questions(3000));
  auto many_out = dir.path() / "many_out.jsonl";
  r = run_engine(batch_args(workflow, many, many_out, "--concurrency 3000"), "", cap);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("error[engine.out_of_memory]: no memory for run ") != std::string::npos);
  CHECK(r.err.find("at once (a fiber's stack); give a lower --concurrency") != std::string::npos);
  size_t written = result_lines(many_out).size();  // the runs in flight finished and were kept
  CHECK(written > 0);
  CHECK(written < 3000);
  r = run_engine(batch_args(workflow, many, many_out, "--concurrency 50"), "", cap);  // and it resumes
  CHECK(r.exit_code == 0);
  CHECK(outputs_by_index(result_lines(many_out)).size() == 3000);
#endif
}

TEST_CASE("batch: --out naming the data, a symlink, or a file that is not results is refused, and nothing is lost",
          "[e2e][batch]") {
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(0));
  auto data = dir.write("data.jsonl", numbered_questions(3));
  auto r = run_engine(batch_args(workflow, data, data));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is the batch's data; give the results a file of their own") != std::string::npos);
  CHECK(read_file(data) == numbered_questions(3));

  auto notes = dir.write("notes.md", "# notes\nno final newline");
  r = run_engine(batch_args(workflow, data, notes));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("error[batch.bad_results]: " + notes.string() + " is not a batch's results file") != std::string::npos);
  CHECK(read_file(notes) == "# notes\nno final newline");

  auto link = dir.path() / "link.jsonl";
  std::filesystem::create_symlink(notes, link);
  r = run_engine(batch_args(workflow, data, link));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is a symbolic link; name the file it points to") != std::string::npos);
  CHECK(read_file(notes) == "# notes\nno final newline");
}

// A second process writing the same results: `engine eval` rewriting the file while the batch appends would lose
// every line the batch wrote meanwhile; it is refused, and the batch ends with every row.
TEST_CASE("batch: eval and merge refuse the results of a batch still running, and the batch loses no row", "[e2e][batch]") {
  test::TempDir dir;
  auto workflow = dir.write("echo.yaml", slow_echo_workflow(100));
  auto data = dir.write("data.jsonl", numbered_questions(20));
  auto out = dir.path() / "out.jsonl";
  auto eval = dir.write("e.yaml", "evaluators:\n  said: {kind: contains, expected: 'A:'}\n");
  test::EngineProcess batch(batch_args(workflow, data, out, "--concurrency 2"));
  REQUIRE(lines_reach(out, 2));
  auto r = run_engine("eval " + shell_quote(eval.string()) + " --results " + shell_quote(out.string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("error[batch.busy]: an engine batch is still writing") != std::string::npos);
  r = run_engine("batch merge " + shell_quote(out.string()) + " --out " + shell_quote((dir.path() / "m.jsonl").string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("error[batch.busy]") != std::string::npos);
  test::CommandResult done = batch.wait();
  CHECK(done.exit_code == 0);
  CHECK(outputs_by_index(result_lines(out)).size() == 20);
  r = run_engine("eval " + shell_quote(eval.string()) + " --results " + shell_quote(out.string()));  // now it may
  CHECK(r.exit_code == 0);
  CHECK(result_lines(out).size() == 20);
}

// 40 definitions each the allOf of two references to the next: every line's check is bounded, and SIGTERM ends the
// evaluation promptly, the results left as they were.
TEST_CASE("eval: SIGTERM during long schema checks ends it at once, the results untouched", "[e2e][batch]") {
  test::TempDir dir;
  std::string yaml = "evaluators:\n  shape:\n    kind: json_schema\n    schema:\n      $ref: '#/definitions/d0'\n"
                     "      definitions:\n";
  for (int i = 0; i < 40; ++i) {
    std::string next = "'#/definitions/d" + std::to_string(i + 1) + "'";
    yaml += "        d" + std::to_string(i) + ": {allOf: [{$ref: " + next + "}, {$ref: " + next + "}]}\n";
  }
  auto eval = dir.write("e.yaml", yaml + "        d40: {type: integer}\n");
  std::string results;
  for (int i = 0; i < 400; ++i)
    results += to_json_text(Value{{"index", i}, {"status", "ok"}, {"output", "7"}}) + "\n";
  auto file = dir.write("r.jsonl", results);
  test::EngineProcess engine("eval " + shell_quote(eval.string()) + " --results " + shell_quote(file.string()) + " -c 2");
  // Scoring under way: the scored file being written beside the results (r.jsonl.XXXXXXXX.new).
  REQUIRE(test::wait_until([&] {
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
      if (entry.path().extension() == ".new") return true;
    return false;
  }));
  engine.signal(SIGTERM);
  test::CommandResult r = engine.wait();
  INFO(r.err);
  CHECK(r.exit_code == 143);
  CHECK(r.err.find("stopped: the results are left as they were") != std::string::npos);
  CHECK(read_file(file) == results);
}
