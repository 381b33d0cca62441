#pragma once
// Lua states a tool's calls left as they were made, for the next call of any run. A script may keep state between
// the calls of one run (a global, a local of its chunk) and must never see another run's; so a run takes a state
// for one call, and gives it back only when the call succeeded and nothing reachable changed (StateFingerprint).
// A run whose call changed its state keeps that state for its later calls, exactly as if it had made its own. A
// thousand runs in flight then share a few states (one per call running at once) instead of making one each per
// tool: making one costs a run 15 to 60 µs and five pages (docs/architecture.md, "Runs in flight"). Checking a
// state costs a few µs, so a run alone with the tool keeps its state between calls and offers it back at its end.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/tools/lua/lua_fingerprint.h"
#include "engine/tools/lua/lua_sandbox.h"

namespace engine::tools::lua {

// A state with its script's chunk run: the function to call is in the registry at `entry_ref`.
struct PreparedState {
  std::unique_ptr<LuaSandbox> sandbox;
  int entry_ref = -2;       // LUA_NOREF: the chunk failed or gave no function; `failure` says why
  LuaSandbox::Outcome failure;
  std::optional<uint64_t> made_as;  // the fingerprint after the chunk ran; null: never shared
  size_t made_bytes = 0;            // what the state held then
  StateFingerprint fingerprint;     // the walk's scratch, reused
};

class LuaStatePool {
 public:
  // Makes a new state; `log` takes what the chunk prints as it runs (a state is made for the run that needs it).
  using Make = std::function<std::unique_ptr<PreparedState>(const LuaSandbox::LogFn& log)>;
  // Idle states kept: at least the calls that can run at once (one per thread running runs), and some.
  static size_t keep_idle();
  // Garbage a state may hold beyond what it was made with before it is collected on its way back.
  static constexpr size_t kGarbageBytes = 64 << 10;

  explicit LuaStatePool(Make make) : make_(std::move(make)) {}

  // An idle state, or a new one made by `make` (which may fail: see PreparedState::failure).
  std::unique_ptr<PreparedState> take(const LuaSandbox::LogFn& log = nullptr);
  // After a call that succeeded. Takes the state back (true) when the call left nothing a script can see changed;
  // else leaves it with the caller, whose run keeps it (false).
  bool give_back(std::unique_ptr<PreparedState>& state);
  // Seals a new state: records what it was made as, so that give_back can tell. Call once the chunk has run.
  static void seal(PreparedState& state);

  size_t idle() const;

  // The runs holding an instance of the tool: with one alone, there is nobody to give a state back to.
  void join() { ++users_; }
  void leave() { --users_; }
  bool in_demand() const { return users_.load(std::memory_order_relaxed) > 1; }

 private:
  Make make_;
  std::atomic<size_t> users_{0};
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<PreparedState>> idle_;
};

}  // namespace engine::tools::lua
