// A workflow run on a fiber (a batch's) keeps its independent steps on fibers of the same pool, and their waits
// hold no thread: two steps that wait for each other meet on a pool of one thread.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>

#include "engine/core/fiber.h"
#include "engine/workflow/scheduler.h"
#include "support/test_support.h"

using namespace engine;
using engine::workflow::Step;
using engine::workflow::StepOutcome;

namespace {

// Waits (through a fiber-aware Condition) until `parties` steps are inside it, or 10 s; says whether they met and
// whether it ran on a fiber.
class FiberMeeting : public workflow::StepWork {
 public:
  explicit FiberMeeting(int parties) : parties_(parties) {}
  StepOutcome run(const tmpl::Vars&, EventSink&, const agent::RunOptions&) const override {
    bool on_fiber = FiberPool::current() != nullptr;
    std::unique_lock lock(mutex_);
    ++arrived_;
    arrival_.notify_all();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (arrived_ < parties_ && std::chrono::steady_clock::now() < deadline) arrival_.wait_until(lock, deadline);
    return StepOutcome{Value(std::string(arrived_ >= parties_ ? "met" : "alone") + (on_fiber ? " on a fiber" : ""))};
  }

 private:
  int parties_;
  mutable std::mutex mutex_;
  mutable Condition arrival_;
  mutable int arrived_ = 0;
};

}  // namespace

TEST_CASE("scheduler: on a fiber, independent steps run on fibers of its pool and meet on one thread",
          "[workflow][fiber]") {
  auto meet = std::make_shared<FiberMeeting>(2);
  std::vector<Step> steps{Step{"left", StepKind::Llm, meet, std::nullopt, {}}, Step{"right", StepKind::Llm, meet, std::nullopt, {}}};
  NullSink sink;
  workflow::GraphRun g;
  FiberPool pool(1);
  pool.spawn([&] { g = workflow::run_graph(steps, Value::object(), sink, {}); });
  pool.join();
  REQUIRE_FALSE(g.error);
  CHECK(g.steps["left"]["output"] == "met on a fiber");
  CHECK(g.steps["right"]["output"] == "met on a fiber");
}
