#include "engine/tools/lua/lua_state_pool.h"

#include <lua.hpp>

#include <algorithm>
#include <thread>

namespace engine::tools::lua {
namespace {

std::optional<uint64_t> fingerprint_of(PreparedState& state) {
  std::optional<uint64_t> print;
  auto outcome = state.sandbox->protect(0, [&](lua_State* L) { print = state.fingerprint.of(L); });
  return outcome.ok ? print : std::nullopt;
}

}  // namespace

size_t LuaStatePool::keep_idle() {
  static const size_t keep = std::max<size_t>(16, 2 * std::thread::hardware_concurrency());
  return keep;
}

void LuaStatePool::seal(PreparedState& state) {
  if (!state.sandbox || state.entry_ref == LUA_NOREF) return;
  state.made_as = fingerprint_of(state);
  state.made_bytes = state.sandbox->used_bytes();
}

std::unique_ptr<PreparedState> LuaStatePool::take(const LuaSandbox::LogFn& log) {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto state = std::move(idle_.back());
      idle_.pop_back();
      return state;
    }
  }
  return make_(log);
}

bool LuaStatePool::give_back(std::unique_ptr<PreparedState>& state) {
  if (!state->made_as) return false;
  LuaSandbox& sandbox = *state->sandbox;
  // The garbage of earlier calls counts toward the next call's memory limit: a shared state must not carry much.
  if (sandbox.used_bytes() > state->made_bytes + kGarbageBytes) lua_gc(sandbox.state(), LUA_GCCOLLECT, 0);
  if (sandbox.used_bytes() > state->made_bytes + kGarbageBytes) return false;
  if (fingerprint_of(*state) != state->made_as) return false;
  sandbox.set_log(nullptr);
  std::unique_ptr<PreparedState> spare;  // closed after the lock is let go
  std::lock_guard lock(mutex_);
  if (idle_.size() < keep_idle()) idle_.push_back(std::move(state));
  else spare = std::move(state);
  return true;
}

size_t LuaStatePool::idle() const {
  std::lock_guard lock(mutex_);
  return idle_.size();
}

}  // namespace engine::tools::lua
