// A front end's runs watched once: the trace file, the spans and the run store each get every run, each masked by
// the front end's secret set where its bytes leave; each run a trace of its own when spans are sent.
#include <catch2/catch.hpp>

#include "engine/app/loading.h"
#include "engine/app/run_observers.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/store/run_store.h"
#include "support/otlp_receiver.h"
#include "support/test_support.h"

using namespace engine;

namespace {

const char* const kParrot =
    "inputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n"
    "    rules: [{match: 'Say: (?P<q>.*)$', reply: 'Final Answer: {{ q }}'}]\n"
    "agent: {prompt: 'Say: {{ input }}'}\n";

}  // namespace

TEST_CASE("run observers: the trace file, the spans and the store each get every run, masked by the set given",
          "[app][observe]") {
  test::TempDir dir;
  test::OtlpReceiver collector;
  const std::string key = "sk-observed-secret-0123456789";
  auto secrets = test::secrets_of({key});
  auto executor = app::load_executor(dir.write("parrot.yaml", kParrot).string(), {.secrets = secrets});
  auto trace_file = dir.path() / "trace.jsonl";
  {
    app::RunObservers observers({.trace_file = trace_file.string(),
                                 .otlp = collector.base_url(),
                                 .store = app::StoreOptions{.file = (dir.path() / "runs.db").string()},
                                 .source = {"run", "parrot.yaml"},
                                 .secrets = secrets});
    REQUIRE(observers.traced());
    for (int i = 0; i < 2; ++i) {
      agent::RunResult r = app::run_observed(observers, *executor, Value{{"input", "my key " + key}}, {});
      CHECK(r.output == "my key " + key);  // the run itself has what it was given; its observers mask it
    }
    app::RunObservers::Ended ended = observers.finish();
    CHECK(ended.spans.dropped == 0);
    CHECK(ended.spans.sent > 0);
    CHECK(ended.not_recorded == "");
  }
  std::vector<std::string> trace_ids;
  for (const Value& line : test::trace_lines(trace_file))
    if (line["type"] == "chain_start" && !line.contains("step")) trace_ids.push_back(line.value("trace_id", ""));
  REQUIRE(trace_ids.size() == 2);
  CHECK(trace_ids[0].size() == 32);
  CHECK(trace_ids[0] != trace_ids[1]);  // a trace each
  CHECK_FALSE(test::holds_piece_of_key(read_file(trace_file), key));
  store::RunStore store(dir.path() / "runs.db");
  std::vector<store::RunRecord> runs = store.list({});
  REQUIRE(runs.size() == 2);
  for (const auto& run : runs) {
    CHECK(run.inputs == Value{{"input", "my key ***"}});
    CHECK(run.command == "run");
  }
  CHECK_FALSE(collector.spans().empty());
  for (const std::string& body : collector.bodies()) CHECK_FALSE(test::holds_piece_of_key(body, key));
}

TEST_CASE("run observers: with none named no run is traced, and a trace file that cannot be written is refused at once",
          "[app][observe]") {
  test::TempDir dir;
  app::RunObservers none({.secrets = std::make_shared<SecretSet>()});
  CHECK_FALSE(none.traced());
  CHECK(none.sink().detail() == EventDetail::None);
  CHECK(none.finish().not_recorded == "");
  std::string path = (dir.path() / "no" / "such" / "trace.jsonl").string();
  CHECK_THROWS_WITH(app::RunObservers({.trace_file = path, .secrets = std::make_shared<SecretSet>()}),
                    "cannot write the trace file '" + path + "'");
}
