#pragma once
// How every endpoint of `engine serve` and `engine mcp` starts a run: admitted under the server's RunSlots (a
// batch's runs all at once, or none), each on a fiber of the pool once its slot is free, under a Cancel that stops
// with the caller, the server, or the server's time limit for a run (--run-timeout); a run the process has no memory
// to start is refused, an exception a run lets out is answered, and its slot is given back whatever happens. The
// endpoints (invoke, stream, batch, chat completions, an MCP tool call over HTTP or stdio) differ only in how they
// refuse and how they answer.
#include <chrono>
#include <exception>
#include <functional>
#include <string>

#include "engine/core/cancel.h"
#include "engine/core/fiber.h"
#include "engine/server/run_slots.h"

namespace engine::server {

class RunLauncher {
 public:
  // A run, told its Cancel and what to call once the workflow has run, before it answers: that gives its slot back,
  // so a caller that sends its next request on reading the answer finds the slot free (given back anyway when the
  // run returns).
  using Run = std::function<void(const Cancel& cancel, const std::function<void()>& ran)>;
  // What an endpoint answers when its run cannot start or does not end as a run should.
  struct Refusals {
    std::function<void()> busy;       // every slot and every place to wait is taken
    std::function<void()> no_memory;  // no stack for another fiber
    std::function<void(const std::exception&)> failed;  // the run let an exception out
  };

  RunLauncher(FiberPool& pool, RunSlots& slots, std::chrono::seconds run_timeout)
      : pool_(pool), slots_(slots), run_timeout_(run_timeout) {}

  // Starts one run, stopped by `parent` too (the request's, or an MCP call's own cancel). False when it was refused
  // (and `refuse` told): a run that starts is always answered by `run` or by `refuse.failed`.
  bool start(const Cancel* parent, Run run, Refusals refuse);
  // The runs of one request (a batch's rows), told apart by their index.
  struct Rows {
    size_t count = 0;
    std::function<void()> begin;                           // before any row runs (its sinks, its span)
    std::function<void(size_t, const Cancel&)> run;        // each row, under its own slot and deadline
    std::function<void(size_t, const std::string&)> failed;  // a row given no fiber, or that let an exception out
    std::function<void()> end;                             // once every row has ended: the answer
  };
  // Starts the rows on a fiber of their own, each row on a fiber of its own once its slot is free. All are admitted
  // or none (`refuse.busy`): a batch is never half taken.
  bool start_all(const Cancel* parent, Rows rows, Refusals refuse);

  // What a run past --run-timeout ends with.
  std::string timeout_message() const;
  RunSlots& slots() { return slots_; }

 private:
  // On the run's fiber: its turn, its Cancel, the run, its slot back.
  void take_turn(const Cancel* parent, const Run& run, const std::function<void(const std::exception&)>& failed);

  FiberPool& pool_;
  RunSlots& slots_;
  std::chrono::seconds run_timeout_;
};

}  // namespace engine::server
