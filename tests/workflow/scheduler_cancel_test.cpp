// Stopping a graph: a step's timeout fails that step (which on_error: continue may let pass), a cancelled run ends
// its running steps at once, starts no more, and ends a retry's wait.
#include <catch2/catch.hpp>

#include <thread>

#include "engine/core/cancel.h"
#include "engine/core/error.h"
#include "engine/workflow/scheduler.h"
#include "support/test_support.h"

using namespace engine;
using namespace std::chrono_literals;
using engine::workflow::Step;
using engine::workflow::StepOutcome;

namespace {

// Waits ten minutes on the run's cancel: the test hangs rather than passes if a stop does not reach it.
class WaitingWork : public workflow::StepWork {
 public:
  StepOutcome run(const tmpl::Vars&, EventSink&, const agent::RunOptions& options) const override {
    sleep_or_throw(options.cancel, 600'000ms);
    return StepOutcome{Value("waited")};
  }
};

class RefusingWork : public workflow::StepWork {
 public:
  StepOutcome run(const tmpl::Vars&, EventSink&, const agent::RunOptions&) const override {
    throw Error(ErrorKind::LlmUnavailable, "503 from the server");
  }
};

Step work_step(std::string name, std::shared_ptr<const workflow::StepWork> work, std::vector<size_t> reads = {}) {
  return Step{std::move(name), StepKind::Llm, std::move(work), std::nullopt, std::move(reads)};
}

// Cancels `cancel` after a moment, from another thread, as SIGINT's watcher does.
std::thread cancel_soon(Cancel& cancel) {
  return std::thread([&cancel] {
    std::this_thread::sleep_for(20ms);
    cancel.cancel();
  });
}

}  // namespace

TEST_CASE("step timeout: a step past its timeout fails with run.timeout, and what reads it does not run",
          "[workflow][cancel]") {
  std::vector<Step> steps{work_step("slow", std::make_shared<WaitingWork>()),
                          work_step("after", std::make_shared<WaitingWork>(), {0})};
  steps[0].timeout = 30ms;
  test::EventLog log;
  auto g = workflow::run_graph(steps, Value::object(), log, {});
  REQUIRE(g.error);
  CHECK(g.error->kind == ErrorKind::RunTimeout);
  CHECK(g.error->message == "step 'slow' failed: the timeout of step 'slow' (30 ms) passed");
  CHECK(g.steps["slow"]["status"] == "failed");
  CHECK(g.steps["after"]["status"] == "not_run");
}

TEST_CASE("step timeout: with on_error continue the timeout is the step's output and the run goes on",
          "[workflow][cancel]") {
  std::vector<Step> steps{work_step("slow", std::make_shared<WaitingWork>())};
  steps[0].continue_on_error = true;
  Cancel run;  // a run's own cancel, which the timeout's stop does not reach
  agent::RunOptions options;
  options.cancel = &run;
  steps[0].timeout = 20ms;
  NullSink sink;
  auto g = workflow::run_graph(steps, Value::object(), sink, options);
  REQUIRE_FALSE(g.error);
  CHECK(g.steps["slow"]["status"] == "failed");
  CHECK(g.steps["slow"]["output"]["kind"] == "run.timeout");
  CHECK_FALSE(run.stopped());
}

TEST_CASE("step timeout: it covers the retries and their waits", "[workflow][cancel]") {
  Step ask = work_step("ask", std::make_shared<RefusingWork>());
  ask.attempts = 5;
  ask.backoff = 600'000ms;
  ask.timeout = 30ms;
  test::EventLog log;
  auto g = workflow::run_graph({ask}, Value::object(), log, {});
  REQUIRE(g.error);
  CHECK(g.error->kind == ErrorKind::RunTimeout);
  CHECK(log.types() == std::vector<std::string>{"step_start", "step_retry", "step_end"});
}

TEST_CASE("cancel: a cancelled run ends the running step, starts no other, and says so", "[workflow][cancel]") {
  std::vector<Step> steps{work_step("first", std::make_shared<WaitingWork>()),
                          work_step("second", std::make_shared<WaitingWork>(), {0})};
  steps[0].continue_on_error = true;  // a cancelled run stops all the same
  Cancel cancel;
  agent::RunOptions options;
  options.cancel = &cancel;
  NullSink sink;
  std::thread canceller = cancel_soon(cancel);
  auto g = workflow::run_graph(steps, Value::object(), sink, options);
  canceller.join();
  REQUIRE(g.error);
  CHECK(g.error->kind == ErrorKind::RunCancelled);
  CHECK(g.error->message == "step 'first' failed: the run was cancelled");
  CHECK(g.steps["first"]["status"] == "failed");
  CHECK(g.steps["second"]["status"] == "not_run");
}

TEST_CASE("cancel: a retry's wait ends when the run is cancelled", "[workflow][cancel]") {
  Step ask = work_step("ask", std::make_shared<RefusingWork>());
  ask.attempts = 3;
  ask.backoff = 600'000ms;
  Cancel cancel;
  agent::RunOptions options;
  options.cancel = &cancel;
  NullSink sink;
  std::thread canceller = cancel_soon(cancel);
  auto g = workflow::run_graph({ask}, Value::object(), sink, options);
  canceller.join();
  REQUIRE(g.error);
  CHECK(g.error->kind == ErrorKind::RunCancelled);
}

TEST_CASE("cancel: a run cancelled before it starts runs no step", "[workflow][cancel]") {
  std::vector<Step> steps{work_step("only", std::make_shared<WaitingWork>())};
  Cancel cancel;
  cancel.cancel();
  agent::RunOptions options;
  options.cancel = &cancel;
  NullSink sink;
  auto g = workflow::run_graph(steps, Value::object(), sink, options);
  REQUIRE(g.error);
  CHECK(g.error->kind == ErrorKind::RunCancelled);
  CHECK(g.error->message == "the run was cancelled");
  CHECK(g.steps["only"]["status"] == "not_run");
}
