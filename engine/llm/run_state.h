#pragma once
// What a provider keeps for one run rather than for the whole executor: a replayed recording's count of the answers
// it has served. An executor is shared by runs on many threads, so state kept there would make a run's answers
// depend on which runs came before it; kept here, every run starts where a fresh process would.
#include <memory>
#include <mutex>
#include <unordered_map>

namespace engine::llm {

class LlmClient;

class RunState {
 public:
  // The state `client` keeps for this run, made on first use: one object per client, always of the same type T.
  // Steps of one run may ask at once; the returned object guards its own fields.
  template <class T>
  T& of(const LlmClient* client) {
    std::lock_guard lock(mutex_);
    auto& slot = by_client_[client];
    if (!slot) slot = std::make_shared<T>();
    return *static_cast<T*>(slot.get());
  }

 private:
  std::mutex mutex_;
  std::unordered_map<const LlmClient*, std::shared_ptr<void>> by_client_;
};

}  // namespace engine::llm
