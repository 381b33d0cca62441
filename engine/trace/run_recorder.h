#pragma once
// Records each run that passes through it in the run store (store/run_store.h): its events as a --trace file would
// hold them (tokens left out: the model's whole text is in its llm_end) and when the run ends its summary, handed
// whole to the store's writer (store/run_writer.h). The store is an output of the process: the record is masked by
// the secrets given as it leaves, the one place the store's bytes pass. A failure to write never fails the run: the
// writer keeps the first for the command to report.
#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "engine/core/event.h"
#include "engine/core/secret_set.h"
#include "engine/store/run_store.h"
#include "engine/store/run_writer.h"
#include "engine/trace/wall_clock.h"

namespace engine::trace {

// What a recorded run was started by.
struct RunSource {
  std::string command;  // run, chat, batch, serve
  std::string file;     // the workflow's file
};

class RunRecorder : public EventSink {
 public:
  // `writer` writes the records into its store, off the run's thread; it must outlive the recorder. A run is handed
  // to it when its chain_end passes (run_writer.h: flush() before reading the store).
  RunRecorder(store::RunWriter& writer, RunSource source, std::shared_ptr<const SecretSet> secrets);
  void receive(const Event& event, const EventPlace& place) override;
  // The store shows each model call's prompt: it reads everything.
  EventDetail detail() const override { return EventDetail::Full; }

  std::string failure() const;  // why a run could not be recorded, or "" (the writer's: any recorder's runs)

 private:
  struct Pending {
    std::chrono::steady_clock::time_point start;
    store::RunRecord record;
  };
  void finish(Pending& run, const events::ChainEnd& chain_end);

  store::RunWriter& writer_;
  RunSource source_;
  std::shared_ptr<const SecretSet> secrets_;
  WallClock clock_;
  mutable std::mutex mutex_;
  std::map<std::string, Pending, std::less<>> runs_;  // by run id, while they go on
};

}  // namespace engine::trace
