// A batch over a scripted workflow: every row run once, a failed run written as failed and the batch going on, a
// resumed batch running only what is left, shards that split the rows between them, and a stop that launches no
// more runs.
#include <catch2/catch.hpp>

#include <cstdlib>

#include <map>
#include <set>

#include "engine/app/batch.h"
#include "engine/app/loading.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_lines.h"
#include "engine/core/json_parse.h"
#include "engine/core/limits.h"
#include "support/llm_test_support.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// Echoes a lowercase question; anything else matches no rule, and the run fails.
const char* const kEchoWorkflow =
    "inputs:\n  question: q\nllm:\n  provider: scripted\n  scripted:\n"
    "    rules: [{match: 'Q: (?P<q>[a-z0-9 ]+)$', reply: 'A: {{ q }}'}]\n"
    "steps:\n  ask: {kind: llm, prompt: 'Q: {{ question }}'}\n";

std::string rows_of(const std::vector<std::string>& questions) {
  std::string text;
  for (size_t i = 0; i < questions.size(); ++i)
    text += R"({"id": )" + std::to_string(i) + R"(, "question": ")" + questions[i] + "\"}\n";
  return text;
}

std::vector<Value> lines_of(const std::filesystem::path& file) {
  std::vector<Value> out;
  FileLines lines(file);
  for (std::string text; lines.next(text);) out.push_back(parse_json(text));
  return out;
}

struct BatchFixture {
  test::TempDir dir;
  std::shared_ptr<const workflow::Executor> executor =
      app::load_executor(dir.write("echo.yaml", kEchoWorkflow).string());
  app::BatchOptions options(const std::string& data) {
    return app::BatchOptions{.data = dir.write("data.jsonl", data), .out = dir.path() / "out.jsonl", .concurrency = 3};
  }
  app::BatchSummary run(const app::BatchOptions& o) {
    app::Batch batch(executor, o);
    NullSink events;
    Cancel go_on;
    return batch.run(events, go_on, go_on);
  }
};

}  // namespace

TEST_CASE("a batch runs every row once and writes its line, in the data's order at the end", "[app][batch]") {
  BatchFixture f;
  auto o = f.options(rows_of({"one", "two", "THREE", "four"}) + "not json\n");
  app::BatchSummary s = f.run(o);
  CHECK(s.counts.total == 5);
  CHECK(s.counts.done == 5);
  CHECK(s.counts.failed == 2);
  CHECK(!s.stopped);
  auto lines = lines_of(o.out);
  REQUIRE(lines.size() == 5);
  for (size_t i = 0; i < lines.size(); ++i) CHECK(lines[i]["index"] == i);
  CHECK(lines[0]["status"] == "ok");
  CHECK(lines[0]["output"] == "A: one");
  CHECK(lines[0]["inputs"] == Value{{"question", "one"}});
  CHECK(lines[0]["data"] == Value{{"id", 0}});  // what no input reads is kept for evaluators
  CHECK(lines[0]["line"] == 1);
  CHECK(lines[2]["status"] == "failed");
  CHECK(lines[2]["error"]["message"].get<std::string>().find("step 'ask' failed") != std::string::npos);
  CHECK(lines[4]["status"] == "failed");
  CHECK(lines[4]["error"]["kind"] == "data.bad_row");
  CHECK(lines[4]["error"]["message"].get<std::string>().rfind(o.data.string() + ":5: not JSON", 0) == 0);
  CHECK(s.to_json()["ok"] == 3);
}

TEST_CASE("a batch run again with the same results goes on where it stopped, and --retry-failed reruns the failed", "[app][batch]") {
  BatchFixture f;
  auto o = f.options(rows_of({"one", "TWO", "three"}));
  f.run(o);
  auto before = lines_of(o.out);
  app::BatchSummary again = f.run(o);
  CHECK(again.counts.resumed == 3);
  CHECK(again.counts.total == 0);
  CHECK(again.counts.done == 0);
  CHECK(lines_of(o.out) == before);

  o.retry_failed = true;
  app::BatchSummary retried = f.run(o);
  CHECK(retried.counts.resumed == 2);
  CHECK(retried.counts.done == 1);
  auto after = lines_of(o.out);
  REQUIRE(after.size() == 3);
  CHECK(after[1]["index"] == 1);
  CHECK(after[1]["status"] == "failed");  // it fails again: the same model, the same answer
}

// Refused before the first run: not one line is appended to results the user may still need.
TEST_CASE("a resumed batch refuses results made from other data before it runs a row", "[app][batch]") {
  BatchFixture f;
  auto o = f.options(rows_of({"one", "two"}));
  f.run(o);
  std::string before = read_file(o.out);
  o.data = f.dir.write("other.jsonl", rows_of({"one", "changed", "three", "four"}));
  std::string kind;
  CHECK(test::error_of([&] { app::Batch(f.executor, o); }, &kind) ==
        o.out.string() + " has a result for row 1 run with other inputs than the data's: it was made from other "
                         "data. Give --out a new file to start again");
  CHECK(kind == "batch.other_data");
  CHECK(read_file(o.out) == before);
}

// The results keep a row's inputs redacted; the row is redacted the same way before it is compared with them.
TEST_CASE("a batch whose rows quote a secret resumes, the secret masked in its results", "[app][batch]") {
  const char* secret = "sk-test-0123456789abcdefghij";
  ::setenv("OPENAI_API_KEY", secret, 1);
  BatchFixture f;
  ::unsetenv("OPENAI_API_KEY");
  auto o = f.options(rows_of({"one", std::string("key ") + secret, "three"}));
  NullSink events;
  Cancel go_on;
  {
    app::Batch first(f.executor, o);
    first.run(events, go_on, go_on);
  }
  std::string written = read_file(o.out);
  CHECK(written.find(secret) == std::string::npos);
  CHECK(written.find("key ***") != std::string::npos);
  app::Batch again(f.executor, o);
  CHECK(again.counts().resumed == 3);
  CHECK(again.run(events, go_on, go_on).counts.done == 0);
}

TEST_CASE("a batch refuses --concurrency out of 1 to 16384 and --out that is its data", "[app][batch]") {
  BatchFixture f;
  auto o = f.options(rows_of({"one"}));
  for (size_t c : {size_t{0}, limits::kBatchConcurrency + 1, SIZE_MAX}) {
    o.concurrency = c;
    CHECK(test::error_of([&] { app::Batch(f.executor, o); }) ==
          "--concurrency must be from 1 to 16384, got " + std::to_string(c));
  }
  o.concurrency = 2;
  o.out = o.data;
  CHECK(test::error_of([&] { app::Batch(f.executor, o); }) ==
        "--out " + o.data.string() + " is the batch's data; give the results a file of their own");
  CHECK(read_file(o.data) == rows_of({"one"}));
}

// A fiber is made for a row, so the widest concurrency over three rows makes three: no time or memory for the rest.
TEST_CASE("a batch of three rows at --concurrency 16384 runs them on three fibers", "[app][batch]") {
  BatchFixture f;
  auto o = f.options(rows_of({"one", "two", "three"}));
  o.concurrency = limits::kBatchConcurrency;
  app::BatchSummary s = f.run(o);
  CHECK(s.counts.done == 3);
  CHECK(s.counts.failed == 0);
}

TEST_CASE("shards take every row exactly once between them", "[app][batch]") {
  BatchFixture f;
  std::vector<std::string> questions;
  for (int i = 0; i < 10; ++i) questions.push_back("q" + std::to_string(i));
  std::multiset<size_t> seen;
  for (size_t k = 0; k < 3; ++k) {
    auto o = f.options(rows_of(questions));
    o.out = f.dir.path() / ("shard" + std::to_string(k) + ".jsonl");
    o.shard = {k, 3};
    app::BatchSummary s = f.run(o);
    CHECK(s.counts.total == (k == 0 ? 4u : 3u));
    for (const auto& line : lines_of(o.out)) {
      CHECK(line["index"].get<size_t>() % 3 == k);
      seen.insert(line["index"].get<size_t>());
    }
  }
  CHECK(seen.size() == 10);
  CHECK(std::set<size_t>(seen.begin(), seen.end()).size() == 10);
}

TEST_CASE("a batch told to stop launches no more runs and keeps what it finished", "[app][batch]") {
  BatchFixture f;
  auto o = f.options(rows_of({"one", "two", "three"}));
  app::Batch batch(f.executor, o);
  NullSink events;
  Cancel stop, go_on;
  stop.cancel();
  app::BatchSummary s = batch.run(events, stop, go_on);
  CHECK(s.stopped);
  CHECK(s.counts.done == 0);
  CHECK(lines_of(o.out).empty());
}

TEST_CASE("the shard a process runs: --shard K/N, or the cluster's variables", "[app][batch]") {
  CHECK(app::parse_shard("2/4").index == 2);
  CHECK(app::parse_shard("2/4").count == 4);
  CHECK_THROWS_WITH(app::parse_shard("4/4"), "--shard 4/4: K must be from 0 to N-1, and N from 1 to 1000000");
  CHECK_THROWS_WITH(app::parse_shard("x"), "--shard takes K/N, the shard K (from 0) of N, got 'x'");
  CHECK_THROWS_WITH(app::parse_shard("-1/4"), "--shard takes K/N, the shard K (from 0) of N, got '-1/4'");
  auto env_of = [](std::map<std::string, std::string> vars) {
    return [vars](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  std::string source;
  app::Shard none = app::shard_from_environment(0, env_of({}), source);
  CHECK(none.count == 1);
  app::Shard k8s = app::shard_from_environment(4, env_of({{"JOB_COMPLETION_INDEX", "3"}}), source);
  CHECK((k8s.index == 3 && k8s.count == 4));
  CHECK(source == "JOB_COMPLETION_INDEX");
  app::Shard slurm = app::shard_from_environment(
      0, env_of({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}), source);
  CHECK((slurm.index == 1 && slurm.count == 4));
  CHECK_THROWS_WITH(app::shard_from_environment(0, env_of({{"JOB_COMPLETION_INDEX", "1"}}), source),
                    "JOB_COMPLETION_INDEX says which shard this is, but not how many there are: give --shards N");
  CHECK_THROWS_WITH(app::shard_from_environment(2, env_of({{"JOB_COMPLETION_INDEX", "2"}}), source),
                    "JOB_COMPLETION_INDEX is 2, past the last of 2 shards");
  CHECK_THROWS_WITH(app::shard_from_environment(2, env_of({}), source), Catch::Contains("--shards 2 needs the shard's number"));
}

TEST_CASE("a batch's latency percentiles are nearest-rank", "[app][batch]") {
  app::BatchSummary s;
  CHECK(s.percentile_ms(50) == 0);
  for (long ms = 1; ms <= 20; ++ms) s.latencies_ms.push_back(ms * 10);
  CHECK(s.percentile_ms(50) == 100);
  CHECK(s.percentile_ms(95) == 190);
  CHECK(s.percentile_ms(100) == 200);
}
