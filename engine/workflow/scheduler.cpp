#include "engine/workflow/scheduler.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <new>
#include <thread>

#include "engine/core/cancel.h"
#include "engine/core/elapsed.h"
#include "engine/core/error.h"
#include "engine/core/fiber.h"
#include "engine/core/limits.h"
#include "engine/workflow/for_each.h"

namespace engine::workflow {
namespace {

using Clock = std::chrono::steady_clock;

bool stopped(const agent::RunOptions& options) { return options.cancel && options.cancel->stopped(); }

std::string seconds_text(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

enum class State { Waiting, Running, Done, Skipped, Failed };

// What `steps.NAME.status` says: how the step ended, or not_run.
std::string_view status_name(State s) {
  switch (s) {
    case State::Done: return name_of(StepStatus::Done);
    case State::Skipped: return name_of(StepStatus::Skipped);
    case State::Failed: return name_of(StepStatus::Failed);
    default: return "not_run";
  }
}

StepStatus ended_as(State s) {
  return s == State::Skipped ? StepStatus::Skipped : s == State::Failed ? StepStatus::Failed : StepStatus::Done;
}

class GraphRunner {
 public:
  GraphRunner(const std::vector<Step>& steps, const Value& inputs, EventSink& events, const agent::RunOptions& options,
              size_t max_parallel, const GraphContext& context, WorkerPool* pool)
      : context_(context),
        pool_(pool),
        steps_(steps),
        inputs_(inputs),
        events_(events),
        options_(options),
        max_parallel_(std::max<size_t>(1, max_parallel)),
        state_(steps.size(), State::Waiting),
        outputs_(steps.size()),
        details_(steps.size()),
        elapsed_ms_(steps.size(), 0) {}

  // The calling thread is the first worker; another is started only when a step that may wait is taken while
  // another step is ready and no worker is free, up to `max_parallel`. A chain of steps, and steps that only render
  // templates, then run on the calling thread alone, with no thread started at all.
  GraphRun run() {
    work();
    {
      std::unique_lock lock(mutex_);  // a helper touches this runner until it says it is done
      changed_.wait(lock, [&] { return helpers_running_ == 0; });
    }
    for (auto& t : threads_) t.join();
    // Stopped between steps: no step failed, but some never started.
    if (!result_.error && stopped(options_) &&
        std::find(state_.begin(), state_.end(), State::Waiting) != state_.end()) {
      Error why = stopped_error(*options_.cancel);
      result_.error = agent::RunError::from(why);
    }
    for (size_t i = 0; i < steps_.size(); ++i) {
      Value s{{"status", status_name(state_[i])}, {"output", std::move(outputs_[i])}};
      if (state_[i] == State::Done || state_[i] == State::Failed) s["elapsed_ms"] = elapsed_ms_[i];
      for (auto& [k, v] : details_[i].items()) s[k] = std::move(v);
      result_.steps[steps_[i].name] = std::move(s);
    }
    return std::move(result_);
  }

 private:
  // A worker: takes ready steps and runs them until nothing runs and nothing more can start.
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (auto i = take_ready()) {
        if (steps_[*i].may_wait && has_ready() && idle_ == 0 && helpers_started_ + 1 < max_parallel_) start_helper();
        lock.unlock();
        run_step(*i);
        lock.lock();
        continue;
      }
      if (running_ == 0) {  // the graph is done, or has failed: every worker stops
        changed_.notify_all();
        return;
      }
      ++idle_;
      changed_.wait_until(lock);
      --idle_;
    }
  }

  // Another worker, from the pool when there is one. Called with the lock held.
  void start_helper() {
    ++helpers_started_;
    ++helpers_running_;
    auto helper = [this] {
      work();
      std::lock_guard lock(mutex_);
      --helpers_running_;
      changed_.notify_all();  // under the lock: once it is released, run() may return and this runner be gone
    };
    // A run on a fiber (a batch's) keeps its steps on fibers, so that their waits hold no thread either.
    try {
      if (FiberPool* fibers = FiberPool::current()) fibers->spawn(helper);
      else if (pool_) pool_->run(helper);
      else threads_.emplace_back(helper);
    } catch (const std::exception&) {
      // No stack or thread to be had: a helper only lets steps run at once, and the workers there are run them all.
      --helpers_running_;
    }
  }

  // The first waiting step whose reads have all ended, now marked running; none after a failure.
  std::optional<size_t> take_ready() {
    if (result_.error || running_ >= max_parallel_ || stopped(options_)) return std::nullopt;
    for (size_t i = 0; i < steps_.size(); ++i)
      if (state_[i] == State::Waiting && ready(i)) {
        state_[i] = State::Running;
        ++running_;
        return i;
      }
    return std::nullopt;
  }
  bool has_ready() const {
    if (result_.error || running_ >= max_parallel_ || stopped(options_)) return false;
    for (size_t i = 0; i < steps_.size(); ++i)
      if (state_[i] == State::Waiting && ready(i)) return true;
    return false;
  }

  // Every step it reads has ended: done, skipped, or failed with on_error: continue.
  bool ready(size_t i) const {
    for (size_t r : steps_[i].reads) {
      bool ended = state_[r] == State::Done || state_[r] == State::Skipped ||
                   (state_[r] == State::Failed && steps_[r].continue_on_error);
      if (!ended) return false;
    }
    return true;
  }

  // The variables the step's templates read. The steps it reads have ended and are not written again, so their
  // outputs are read without the lock.
  Value own_vars(size_t i) const {
    Value own = context_.base ? *context_.base : Value::object();
    Value& steps = own["steps"];
    if (!steps.is_object()) steps = Value::object();
    for (size_t r : steps_[i].reads)
      steps[steps_[r].name] = Value{{"status", status_name(state_[r])}, {"output", outputs_[r]}};
    return own;
  }

  std::string event_name(size_t i) const { return steps_[i].name + context_.suffix; }

  // What one step's run uses: its options (with its own timeout's cancel), and where its events go: its own
  // (step_start, step_end) placed under it, and its work's, which are too unless the step is a loop.
  struct StepContext {
    agent::RunOptions options;
    EventSink& events;
    EventSink& work_events;
  };

  // What a step came to: its end state, output (the error object when it failed), and what it spent.
  struct StepReport {
    State end = State::Done;
    StepOutcome outcome;
    std::optional<agent::RunError> error;
    double elapsed_ms = 0;
  };

  // Runs on the step's own thread. Whatever happens inside, the step's report reaches the scheduler: a thread that
  // ended without it would leave the run waiting for ever.
  void run_step(size_t i) {
    auto start = Clock::now();
    StepReport report;
    const Step& step = steps_[i];
    std::optional<Cancel> timed;
    PlacingSink placed(sink_, event_name(i));
    // A loop's body places its own steps' events (`critique[2]`), not under the loop.
    StepContext ctx{options_, placed, step.kind == StepKind::Loop ? static_cast<EventSink&>(sink_) : placed};
    if (options_.journal) ctx.options.journal = options_.journal.under(event_name(i));
    if (step.timeout) {
      timed.emplace(options_.cancel, start + *step.timeout,
                    "the timeout of step '" + step.name + "' (" + seconds_text(*step.timeout) + ") passed");
      ctx.options.cancel = &*timed;
    }
    try {
      attempt(i, report, ctx);
    } catch (const Error& e) {
      report.error = agent::RunError::from(e, "step '" + steps_[i].name + "' failed: ");
    } catch (const std::bad_alloc&) {
      report.error = agent::RunError{ErrorKind::EngineOutOfMemory, "step '" + steps_[i].name + "' ran out of memory", {}, {}};
    } catch (const std::exception& e) {
      report.error =
          agent::RunError{ErrorKind::EngineInternal, "step '" + steps_[i].name + "': internal error: " + e.what(), {}, {}};
    }
    report.elapsed_ms = engine::elapsed_ms(start);
    if (report.error) {
      report.end = State::Failed;
      report.outcome.output = report.error->to_json();
      Value given = inputs_for_report(i);
      if (!given.is_null()) report.outcome.details["inputs"] = std::move(given);
    }
    journal_end(ctx.options.journal, report);
    try {
      events::StepEnd done{event_name(i), ended_as(report.end), report.elapsed_ms, std::nullopt, std::nullopt};
      if (report.error) done.error = report.error->info();
      if (report.outcome.details.contains("inputs")) done.inputs = report.outcome.details["inputs"];
      placed.emit({std::move(done)});
    } catch (...) {  // a sink that cannot show the end does not change it
    }
    finish(i, std::move(report));
  }

  // The step's end in the run's journal, with its output (an error object when it failed), and for a skipped step
  // why. A step a resumed run replays is not written again (the journal keeps the first).
  static void journal_end(const JournalScope& journal, const StepReport& report) {
    if (!journal) return;
    Value end{{"status", name_of(ended_as(report.end))}};
    if (report.end == State::Skipped) end["reason"] = "its when was false";
    else end["output"] = report.outcome.output;
    journal.journal->write({journal.path, JournalKind::StepEnd, "", "", std::move(end)});
  }

  // What a step that failed was given, for its report: its work's inputs rendered again (rendering is cheap and
  // has no effects); null for a step mapped over a list (its failing item is named in the error) or when the
  // rendering itself is what failed.
  Value inputs_for_report(size_t i) {
    const Step& step = steps_[i];
    if (step.for_each || !step.work) return nullptr;
    try {
      Value own;
      {
        std::lock_guard lock(mutex_);
        own = own_vars(i);
      }
      return step.work->rendered_inputs(tmpl::Vars::of(own).then_named("inputs", inputs_).then(inputs_));
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  // The step's `when`, then its work: once, or once per item of its for_each.
  void attempt(size_t i, StepReport& report, const StepContext& ctx) {
    const Step& step = steps_[i];
    Value own;
    {
      std::lock_guard lock(mutex_);  // the states of the steps it reads
      own = own_vars(i);
    }
    auto vars = tmpl::Vars::of(own).then_named("inputs", inputs_).then(inputs_);
    if (step.when && !step.when->test(vars)) {
      report.end = State::Skipped;
      return;
    }
    ctx.events.emit({events::StepStart{event_name(i), step.kind}});
    if (const JournalScope& journal = ctx.options.journal) {
      Value given = step.for_each || !step.work ? Value() : step.work->rendered_inputs(vars);
      journal.journal->write({journal.path, JournalKind::StepStart, "", "", std::move(given)});
    }
    if (!step.for_each) {
      report.outcome = run_work(i, vars, ctx);
      return;
    }
    Value items = step.for_each->evaluate(vars);
    if (!items.is_array())
      throw step.for_each->error_at_start(ErrorKind::StepForEach,
                                          "for_each gives " + std::string(items.type_name()) + ", not a list");
    if (items.size() > limits::kForEachItems)
      throw Error(ErrorKind::StepForEach, "for_each gives " + std::to_string(items.size()) + " items, more than the " +
                                       std::to_string(limits::kForEachItems) + " a step maps");
    auto outcomes = map_items(items, step.concurrency, [&](size_t index, const Value& item) {
      Value each{{"item", item}, {"item_index", index}};
      // Each item's events under its own path (`many[3]`): items running at once stay apart in a trace.
      PlacingSink item_events(sink_, event_name(i) + "[" + std::to_string(index) + "]");
      StepContext item_ctx{ctx.options, item_events, step.kind == StepKind::Loop ? ctx.work_events : item_events};
      if (options_.journal) item_ctx.options.journal = options_.journal.under(event_name(i) + "[" + std::to_string(index) + "]");
      StepOutcome outcome = run_work(i, tmpl::Vars::of(each).then(own).then_named("inputs", inputs_).then(inputs_), item_ctx);
      if (const JournalScope& journal = item_ctx.options.journal)
        journal.journal->write({journal.path, JournalKind::StepEnd, "", "", Value{{"status", "done"}, {"output", outcome.output}}});
      return outcome;
    });
    report.outcome.output = Value::array();
    for (auto& o : outcomes) report.outcome.output.push_back(std::move(o.output));
  }

  // The step's work, tried up to `attempts` times with a doubling wait between.
  StepOutcome run_work(size_t i, const tmpl::Vars& vars, const StepContext& ctx) {
    const Step& step = steps_[i];
    auto wait = step.backoff;
    for (int n = 1;; ++n) {
      std::optional<Error> failure;
      try {
        if (n == 1 || !ctx.options.journal) return step.work->run(vars, ctx.work_events, ctx.options);
        // Each attempt's calls at a path of their own: a resumed run must not replay the first attempt's answer
        // as the second's.
        agent::RunOptions again = ctx.options;
        again.journal.path += "#" + std::to_string(n);
        return step.work->run(vars, ctx.work_events, again);
      } catch (const Error& e) {
        // A run that waits for a person, or stopped for its journal, is not tried again: a retry would ask anew.
        bool halts = e.kind() == ErrorKind::RunWaiting || e.kind() == ErrorKind::JournalInDoubt ||
                     e.kind() == ErrorKind::JournalDiverged || e.kind() == ErrorKind::StoreFailed;
        if (n >= step.attempts || stopped(ctx.options) || halts) throw;
        failure = e;
      }
      // Out of the catch block: a wait there would hold a fiber's thread (core/fiber.h).
      ctx.events.emit(
          {events::StepRetry{event_name(i), n, static_cast<long>(wait.count()), agent::RunError::from(*failure).info()}});
      sleep_or_throw(ctx.options.cancel, wait);
      wait *= 2;
    }
  }

  void finish(size_t i, StepReport report) {
    std::lock_guard lock(mutex_);
    state_[i] = report.end;
    outputs_[i] = std::move(report.outcome.output);
    details_[i] = std::move(report.outcome.details);
    elapsed_ms_[i] = report.elapsed_ms;
    // A timeout is the step's own failure, which on_error: continue may let pass; a cancelled run is not.
    bool fails_run = report.error && (!steps_[i].continue_on_error || report.error->kind == ErrorKind::RunCancelled);
    if (fails_run && !result_.error) result_.error = std::move(report.error);
    --running_;
    changed_.notify_all();  // a step that ended may make others ready, or end the run
  }

  const GraphContext& context_;
  WorkerPool* pool_;
  const std::vector<Step>& steps_;
  const Value& inputs_;
  EventSink& events_;
  SerialSink sink_{events_};
  const agent::RunOptions& options_;
  size_t max_parallel_;

  std::mutex mutex_;  // guards everything below
  Condition changed_;
  std::vector<State> state_;
  std::vector<Value> outputs_;
  std::vector<Value> details_;
  std::vector<double> elapsed_ms_;
  size_t running_ = 0;
  size_t idle_ = 0;                  // workers waiting for a step to become ready
  size_t helpers_started_ = 0;  // workers besides the calling thread...
  size_t helpers_running_ = 0;  // ...and those of them not yet done
  std::vector<std::thread> threads_;  // the helpers' threads, when there is no pool
  GraphRun result_;
};

}  // namespace

GraphRun run_graph(const std::vector<Step>& steps, const Value& inputs, EventSink& events,
                   const agent::RunOptions& options, size_t max_parallel, const GraphContext& context,
                   WorkerPool* pool) {
  return GraphRunner(steps, inputs, events, options, max_parallel, context, pool).run();
}

}  // namespace engine::workflow
