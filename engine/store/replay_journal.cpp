#include "engine/store/replay_journal.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/store/digest.h"

namespace engine::store {

ReplayJournal::ReplayJournal(std::string run_id, const std::vector<StoredEntry>& recorded) : run_id_(std::move(run_id)) {
  for (const StoredEntry& e : recorded) {
    recorded_.insert_or_assign(journal_point(e.entry.path, e.entry.kind, e.entry.key), e.entry);
    if (e.entry.kind == JournalKind::StepEnd) recorded_ends_.emplace_back(e.entry.path, e.entry.value);
  }
}

void ReplayJournal::write(JournalEntry entry) {
  if (entry.kind != JournalKind::StepEnd) return;
  std::lock_guard lock(mu_);
  if (!replayed_ends_.count(entry.path)) replay_order_.push_back(entry.path);
  replayed_ends_[entry.path] = std::move(entry.value);
}

const JournalEntry* ReplayJournal::recorded(std::string_view path, JournalKind kind, std::string_view key,
                                            std::string_view asked) {
  std::lock_guard lock(mu_);
  auto it = recorded_.find(journal_point(path, kind, key));
  if (it == recorded_.end()) {
    if (kind == JournalKind::ToolIntent) return nullptr;  // asked after its result was found missing
    std::string where = std::string(key) + (path.empty() ? "" : " at " + std::string(path));
    throw Error(ErrorKind::JournalNotRecorded, "run " + run_id_ + "'s journal holds no answer for " + where +
                                                   ": a replay makes no call (the workflow now asks what the run never did)");
  }
  std::string digest = asked.empty() ? std::string() : sha256_hex(asked);
  if (digest != it->second.asked) {
    std::string where = std::string(key) + (path.empty() ? "" : " at " + std::string(path));
    if (std::find(asked_otherwise_.begin(), asked_otherwise_.end(), where) == asked_otherwise_.end())
      asked_otherwise_.push_back(where);
  }
  return &it->second;
}

std::vector<ReplayJournal::Difference> ReplayJournal::differences() const {
  std::lock_guard lock(mu_);
  std::vector<Difference> out;
  std::map<std::string, bool> seen;
  for (const auto& [path, value] : recorded_ends_) {
    if (seen[path]) continue;
    seen[path] = true;
    auto it = replayed_ends_.find(path);
    Value replayed = it == replayed_ends_.end() ? Value() : it->second;
    if (replayed != value) out.push_back({path, value, std::move(replayed)});
  }
  for (const std::string& path : replay_order_)
    if (!seen.count(path)) out.push_back({path, Value(), replayed_ends_.at(path)});
  return out;
}

std::vector<std::string> ReplayJournal::asked_otherwise() const {
  std::lock_guard lock(mu_);
  return asked_otherwise_;
}

}  // namespace engine::store
