// The scheduler: a step starts once the steps it reads have ended, independent steps really run at once (up to the
// bound), `when` skips, and a failure stops what has not started.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/core/error.h"
#include "engine/workflow/scheduler.h"
#include "support/test_support.h"

using namespace engine;
using engine::workflow::Step;
using engine::workflow::StepOutcome;

namespace {

// Renders its text; counts how many steps run at once. With `until`, each waits (10 s at most) until that many
// have been inside at once: a bound of N is then reached for certain when it is allowed, and passed never.
struct Concurrency {
  std::atomic<int> now{0};
  std::atomic<int> most{0};
  std::mutex m;
  std::condition_variable cv;
};

class CountingWork : public workflow::StepWork {
 public:
  CountingWork(std::string text, Concurrency* c, int until = 0)
      : text_(tmpl::Template::compile(std::move(text), "t")), c_(c), until_(until) {}
  StepOutcome run(const tmpl::Vars& vars, EventSink&, const agent::RunOptions&) const override {
    int now = ++c_->now;
    {
      std::unique_lock lock(c_->m);
      if (now > c_->most) c_->most = now;
      c_->cv.notify_all();
      c_->cv.wait_for(lock, std::chrono::seconds(10), [&] { return c_->most >= until_; });
    }
    --c_->now;
    return StepOutcome{Value(text_.render(vars))};
  }

 private:
  tmpl::Template text_;
  Concurrency* c_;
  int until_;
};

// Waits until `parties` steps are inside it at once (or gives up after 10 s): it returns only if they overlap.
class Rendezvous : public workflow::StepWork {
 public:
  explicit Rendezvous(int parties) : parties_(parties) {}
  StepOutcome run(const tmpl::Vars&, EventSink&, const agent::RunOptions&) const override {
    std::unique_lock lock(m_);
    ++arrived_;
    cv_.notify_all();
    bool met = cv_.wait_for(lock, std::chrono::seconds(10), [&] { return arrived_ >= parties_; });
    return StepOutcome{Value(met ? "met" : "alone")};
  }

 private:
  int parties_;
  mutable std::mutex m_;
  mutable std::condition_variable cv_;
  mutable int arrived_ = 0;
};

class FailingWork : public workflow::StepWork {
 public:
  StepOutcome run(const tmpl::Vars&, EventSink&, const agent::RunOptions&) const override {
    throw Error(ErrorKind::ToolError, "the ledger is closed");
  }
};

Step step(std::string name, std::shared_ptr<const workflow::StepWork> work, std::vector<size_t> reads = {},
          std::optional<std::string> when = std::nullopt) {
  Step s{std::move(name), StepKind::Template, std::move(work), std::nullopt, std::move(reads)};
  if (when) s.when = tmpl::Template::compile_expression(*when, "when");
  return s;
}

}  // namespace

TEST_CASE("scheduler: a step reads the outputs of the steps it reads, and runs after them", "[workflow]") {
  Concurrency c;
  std::vector<Step> steps;
  steps.push_back(step("joined", std::make_shared<CountingWork>("{{ steps.a.output }}+{{ steps.b.output }}", &c), {1, 2}));
  steps.push_back(step("a", std::make_shared<CountingWork>("A({{ inputs.topic }})", &c)));
  steps.push_back(step("b", std::make_shared<CountingWork>("B({{ topic }})", &c)));
  test::EventLog log;
  auto g = workflow::run_graph(steps, Value{{"topic", "tides"}}, log, {});
  REQUIRE_FALSE(g.error);
  CHECK(g.steps["joined"]["output"] == "A(tides)+B(tides)");
  CHECK(g.steps["joined"]["status"] == "done");
  // joined starts only after both ends
  std::vector<std::string> order;
  for (const auto& e : log.events) order.push_back(e.type + ":" + e.data["step"].get<std::string>());
  auto at = [&](const std::string& x) { return std::find(order.begin(), order.end(), x) - order.begin(); };
  CHECK(at("step_start:joined") > at("step_end:a"));
  CHECK(at("step_start:joined") > at("step_end:b"));
}

TEST_CASE("scheduler: independent steps run at once, and never more than the bound", "[workflow]") {
  auto meet = std::make_shared<Rendezvous>(2);
  std::vector<Step> steps{step("left", meet), step("right", meet)};
  NullSink sink;
  auto g = workflow::run_graph(steps, Value::object(), sink, {});
  CHECK(g.steps["left"]["output"] == "met");  // each waited for the other: they overlapped
  CHECK(g.steps["right"]["output"] == "met");

  // with the executor's kept workers: the same overlap, and the second run starts no thread
  workflow::WorkerPool pool;
  for (int run = 0; run < 2; ++run) {
    test::wait_until([&] { return pool.waiting() >= pool.size(); }, 10000);
    auto kept = workflow::run_graph(steps, Value::object(), sink, {}, workflow::kDefaultMaxParallel, {}, &pool);
    CHECK(kept.steps["left"]["output"] == "met");
    CHECK(kept.steps["right"]["output"] == "met");
  }
  CHECK(pool.size() == 1);

  Concurrency c;
  std::vector<Step> many;
  for (int i = 0; i < 6; ++i)
    many.push_back(step("s" + std::to_string(i), std::make_shared<CountingWork>("x", &c, 2)));
  auto bounded = workflow::run_graph(many, Value::object(), sink, {}, 2);
  REQUIRE_FALSE(bounded.error);
  CHECK(c.most == 2);
}

TEST_CASE("scheduler: a step whose when does not hold is skipped, its output none, and its readers go on",
          "[workflow]") {
  Concurrency c;
  std::vector<Step> steps;
  steps.push_back(step("kind", std::make_shared<CountingWork>("billing", &c)));
  steps.push_back(step("tech", std::make_shared<CountingWork>("T", &c), {0}, "steps.kind.output == 'technical'"));
  steps.push_back(step("bill", std::make_shared<CountingWork>("B", &c), {0}, "steps.kind.output == 'billing'"));
  steps.push_back(step("reply", std::make_shared<CountingWork>("{{ steps.tech.status }}/{{ steps.tech.output is none }}/{{ steps.bill.output }}", &c), {1, 2}));
  NullSink sink;
  auto g = workflow::run_graph(steps, Value::object(), sink, {});
  REQUIRE_FALSE(g.error);
  CHECK(g.steps["tech"] == Value{{"status", "skipped"}, {"output", nullptr}});
  CHECK(g.steps["reply"]["output"] == "skipped/True/B");
}

TEST_CASE("scheduler: a failed step is named in the run's error, and what reads it never starts", "[workflow]") {
  Concurrency c;
  std::vector<Step> steps;
  steps.push_back(step("ledger", std::make_shared<FailingWork>()));
  steps.push_back(step("report", std::make_shared<CountingWork>("{{ steps.ledger.output }}", &c), {0}));
  test::EventLog log;
  auto g = workflow::run_graph(steps, Value::object(), log, {});
  REQUIRE(g.error);
  CHECK(g.error->kind == ErrorKind::ToolError);
  CHECK(g.error->message == "step 'ledger' failed: the ledger is closed");
  CHECK(g.steps["ledger"]["status"] == "failed");
  CHECK(g.steps["report"] == Value{{"status", "not_run"}, {"output", nullptr}});
  CHECK(log.types() == std::vector<std::string>{"step_start", "step_end"});
  CHECK(log.events[1].data["error"]["kind"] == "tool.error");
}

TEST_CASE("scheduler: a when that cannot be evaluated fails its step with the template's error", "[workflow]") {
  Concurrency c;
  std::vector<Step> steps{step("a", std::make_shared<CountingWork>("x", &c), {}, "nosuch.field == 1")};
  NullSink sink;
  auto g = workflow::run_graph(steps, Value::object(), sink, {});
  REQUIRE(g.error);
  CHECK(g.error->kind == ErrorKind::TemplateUndefined);
  CHECK(g.error->message == "step 'a' failed: undefined variable 'nosuch'");
  CHECK(g.error->at.str() == "when:1:4");  // the place is kept apart, for the console's caret
  CHECK(g.error->source_line == "{{ nosuch.field == 1 }}");
}

namespace {

// Fails its first `failures` runs, then answers.
class FlakyWork : public workflow::StepWork {
 public:
  explicit FlakyWork(int failures) : left_(failures) {}
  StepOutcome run(const tmpl::Vars&, EventSink&, const agent::RunOptions&) const override {
    if (left_-- > 0) throw Error(ErrorKind::LlmUnavailable, "503 from the server");
    return StepOutcome{Value("answered")};
  }

 private:
  mutable std::atomic<int> left_;
};

}  // namespace

TEST_CASE("scheduler: retry tries the work again after a doubling wait, and fails after its last attempt",
          "[workflow]") {
  Step flaky = step("ask", std::make_shared<FlakyWork>(2));
  flaky.attempts = 3;
  flaky.backoff = std::chrono::milliseconds(1);
  test::EventLog log;
  auto g = workflow::run_graph({flaky}, Value::object(), log, {});
  REQUIRE_FALSE(g.error);
  CHECK(g.steps["ask"]["output"] == "answered");
  CHECK(log.types() == std::vector<std::string>{"step_start", "step_retry", "step_retry", "step_end"});
  CHECK(log.events[1].data["wait_ms"] == 1);
  CHECK(log.events[2].data["wait_ms"] == 2);
  CHECK(log.events[2].data["error"]["message"] == "503 from the server");

  Step hopeless = step("ask", std::make_shared<FlakyWork>(5));
  hopeless.attempts = 2;
  hopeless.backoff = std::chrono::milliseconds(1);
  auto failed = workflow::run_graph({hopeless}, Value::object(), log, {});
  REQUIRE(failed.error);
  CHECK(failed.error->message == "step 'ask' failed: 503 from the server");
}

TEST_CASE("scheduler: on_error continue makes the error the step's output, and the run goes on", "[workflow]") {
  Concurrency c;
  std::vector<Step> steps;
  steps.push_back(step("lookup", std::make_shared<FailingWork>()));
  steps.back().continue_on_error = true;
  steps.push_back(step("reply", std::make_shared<CountingWork>(
                                    "{{ steps.lookup.status }}: {{ steps.lookup.output.kind }} ({{ steps.lookup.output.message }})", &c),
                       {0}));
  NullSink sink;
  auto g = workflow::run_graph(steps, Value::object(), sink, {});
  REQUIRE_FALSE(g.error);
  CHECK(g.steps["lookup"]["status"] == "failed");
  CHECK(g.steps["lookup"]["output"] == Value{{"kind", "tool.error"}, {"message", "step 'lookup' failed: the ledger is closed"}});
  CHECK(g.steps["reply"]["output"] == "failed: tool.error (step 'lookup' failed: the ledger is closed)");
}

TEST_CASE("scheduler: for_each maps the work over a list, a bounded number at once, outputs in the list's order",
          "[workflow]") {
  Concurrency c;
  // later items finish first: the output keeps the list's order all the same
  class Slower : public workflow::StepWork {
   public:
    StepOutcome run(const tmpl::Vars& vars, EventSink&, const agent::RunOptions&) const override {
      int n = Template().evaluate(vars).get<int>();
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * (4 - n)));
      return StepOutcome{Value("#" + std::to_string(n))};
    }
    static tmpl::Template Template() { return tmpl::Template::compile_expression("item", "t"); }
  };
  Step mapped = step("each", std::make_shared<Slower>());
  mapped.for_each = tmpl::Template::compile_expression("inputs.numbers", "for_each");
  mapped.concurrency = 3;
  NullSink sink;
  auto g = workflow::run_graph({mapped}, Value{{"numbers", {0, 1, 2, 3}}}, sink, {});
  REQUIRE_FALSE(g.error);
  CHECK(g.steps["each"]["output"] == Value{"#0", "#1", "#2", "#3"});

  Step counted = step("count", std::make_shared<CountingWork>("{{ item_index }}:{{ item }}", &c, 2));
  counted.for_each = tmpl::Template::compile_expression("['a', 'b', 'c', 'd', 'e', 'f']", "for_each");
  counted.concurrency = 2;
  auto bounded = workflow::run_graph({counted}, Value::object(), sink, {});
  REQUIRE_FALSE(bounded.error);
  CHECK(bounded.steps["count"]["output"] == Value{"0:a", "1:b", "2:c", "3:d", "4:e", "5:f"});
  CHECK(c.most == 2);
}

TEST_CASE("scheduler: for_each over what is not a list, or an item that fails, fails the step and names why",
          "[workflow]") {
  Concurrency c;
  Step text = step("each", std::make_shared<CountingWork>("x", &c));
  text.for_each = tmpl::Template::compile_expression("'abc'", "for_each");
  NullSink sink;
  auto g = workflow::run_graph({text}, Value::object(), sink, {});
  REQUIRE(g.error);
  CHECK(g.error->message == "step 'each' failed: for_each gives string, not a list");
  CHECK(g.error->kind == ErrorKind::StepForEach);

  class FailsOnTwo : public workflow::StepWork {
   public:
    StepOutcome run(const tmpl::Vars& vars, EventSink&, const agent::RunOptions&) const override {
      if (vars.find("item")->get<int>() == 2) throw Error(ErrorKind::ToolError, "no such record");
      return StepOutcome{Value("ok")};
    }
  };
  Step items = step("each", std::make_shared<FailsOnTwo>());
  items.for_each = tmpl::Template::compile_expression("[0, 1, 2, 3]", "for_each");
  auto failed = workflow::run_graph({items}, Value::object(), sink, {});
  REQUIRE(failed.error);
  CHECK(failed.error->kind == ErrorKind::ToolError);
  CHECK(failed.error->message == "step 'each' failed: item 2: no such record");
}
