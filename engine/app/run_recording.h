#pragma once
// A command's runs recorded in the local run store (docs/observability.md, "The run store"): on unless --no-store or
// ENGINE_STORE=off; --store PATH or ENGINE_STORE picks the file. A store that cannot be opened or written never stops
// a run: problem() says why, for the command to show.
#include <memory>
#include <optional>
#include <string>

#include "engine/core/event.h"
#include "engine/core/secret_set.h"
#include "engine/store/run_store.h"
#include "engine/store/run_writer.h"
#include "engine/trace/run_recorder.h"

namespace engine::app {

struct StoreOptions {
  std::string file;  // --store PATH
  bool off = false;  // --no-store
};

// Where the runs are recorded: the file the options and ENGINE_STORE name, or the default; none when off.
std::optional<std::filesystem::path> store_file(const StoreOptions& options);

// How many runs the store keeps ($ENGINE_STORE_KEEP, or the default). Throws Error "usage" for a bad value.
size_t store_keep();

// The store runs are recorded in, made when missing, keeping store_keep() runs. Throws Error "usage" for a bad
// ENGINE_STORE_KEEP, else what RunStore throws.
std::unique_ptr<store::RunStore> recording_store(const std::filesystem::path& file);

// The store, for the commands that read it (engine runs). Throws Error "usage" when recording is off and no file
// is named, "store.no_store" when the file does not exist, else what RunStore throws.
std::unique_ptr<store::RunStore> open_store(const StoreOptions& options);

class RunRecording {
 public:
  // `secrets`: what the records are masked by as they are written.
  RunRecording(const StoreOptions& options, trace::RunSource source, std::shared_ptr<const SecretSet> secrets);

  EventSink* sink() { return recorder_ ? &*recorder_ : nullptr; }  // null when nothing is recorded
  // The store and its writer, which journals are written through; null when nothing is recorded.
  store::RunStore* store() { return writer_ ? store_.get() : nullptr; }
  store::RunWriter* writer() { return writer_ ? &*writer_ : nullptr; }
  // Until the runs that ended are written (a fiber waits without its thread; hold no lock).
  void flush();
  // Why the runs are not recorded, or a run was not: "" when all is well.
  std::string problem() const;

 private:
  std::unique_ptr<store::RunStore> store_;
  std::optional<store::RunWriter> writer_;
  std::optional<trace::RunRecorder> recorder_;
  std::string open_failure_;
};

}  // namespace engine::app
