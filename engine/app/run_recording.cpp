#include "engine/app/run_recording.h"

#include "engine/core/limits.h"

#include <cstdlib>

#include "engine/core/error.h"

namespace engine::app {

std::optional<std::filesystem::path> store_file(const StoreOptions& o) {
  return store::store_location(o.file, o.off, [](const char* name) { return std::getenv(name); });
}

size_t store_keep() {
  return store::store_keep([](const char* name) { return std::getenv(name); });
}

std::unique_ptr<store::RunStore> recording_store(const std::filesystem::path& file) {
  size_t keep = store_keep();
  auto store = std::make_unique<store::RunStore>(file);
  store->set_keep(keep);
  return store;
}

std::unique_ptr<store::RunStore> open_store(const StoreOptions& o) {
  std::optional<std::filesystem::path> file = store_file(o);
  if (!file) throw Error(ErrorKind::Usage, "the run store is off (ENGINE_STORE=off, or no HOME): name one with --store FILE");
  if (!std::filesystem::exists(*file))
    throw Error(ErrorKind::StoreNoStore, "no runs are recorded in " + file->string() + " yet (the file does not exist)");
  return recording_store(*file);
}

// ENGINE_JOURNAL_DIE_AT=N: the kill-anywhere test's switch (store/run_writer.h). Anything but a whole number from 1
// is no switch at all: a variable a user left set by mistake must not kill their runs by a typo's number.
static size_t journal_die_at() {
  const char* given = std::getenv("ENGINE_JOURNAL_DIE_AT");
  if (!given || !*given) return 0;
  char* end = nullptr;
  unsigned long long n = std::strtoull(given, &end, 10);
  return *end == '\0' ? static_cast<size_t>(n) : 0;
}

RunRecording::RunRecording(const StoreOptions& o, trace::RunSource source, std::shared_ptr<const SecretSet> secrets) {
  std::optional<std::filesystem::path> file = store_file(o);
  if (!file) return;
  try {
    store_ = recording_store(*file);
  } catch (const Error& e) {
    open_failure_ = "the runs are not recorded: " + e.message();
    return;
  }
  writer_.emplace(*store_, limits::kStoreQueuedRuns, journal_die_at());
  recorder_.emplace(*writer_, std::move(source), std::move(secrets));
}

void RunRecording::flush() {
  if (writer_) writer_->flush();
}

std::string RunRecording::problem() const {
  if (!open_failure_.empty()) return open_failure_;
  if (!recorder_) return "";
  std::string why = recorder_->failure();
  return why.empty() ? "" : "a run could not be recorded in " + store_->file().string() + ": " + why;
}

}  // namespace engine::app
