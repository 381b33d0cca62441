#pragma once
// One sandboxed Lua state (RAII). Safety by construction, as Lua's own linit.c suggests: only the libraries opened
// here exist, an allocator we own caps memory, and a count hook caps instructions and wall-clock time. Once a
// limit trips it keeps firing, so a script's pcall cannot swallow it.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "engine/core/cancel.h"
#include "engine/core/limits.h"
#include "engine/core/value.h"
#include "engine/tools/lua/lua_arena.h"

struct lua_State;
struct lua_Debug;

namespace engine::tools {
struct Capabilities;
}

namespace engine::tools::lua {

struct LuaLimits {
  uint64_t instructions = 10'000'000;
  size_t memory_bytes = limits::kLuaMemoryBytes;
  std::chrono::milliseconds timeout{2000};
};

// What ended a call that a script cannot catch: a limit, or its run's stop (Ctrl-C, the run's deadline).
enum class Trip { None, Instructions, Memory, Timeout, Stopped };

class LuaSandbox {
 public:
  using LogFn = std::function<void(const std::string&)>;
  // module_root: the one directory `require` may load from (the plugin's own folder).
  LuaSandbox(LuaLimits limits, std::filesystem::path module_root, LogFn log);
  ~LuaSandbox();
  LuaSandbox(const LuaSandbox&) = delete;
  LuaSandbox& operator=(const LuaSandbox&) = delete;

  lua_State* state() const { return L_; }
  // What the state holds now, garbage included (the memory limit counts both).
  size_t used_bytes() const { return used_; }
  // Where print and engine.log lines go from now on: a state shared by runs logs to the run calling it.
  void set_log(LogFn log) { log_ = std::move(log); }

  struct Outcome {
    bool ok = true;
    // lua.error, lua.timeout, lua.instruction_limit, lua.memory_limit; or run.cancelled, run.timeout when the
    // call's run stopped
    ErrorKind error_kind = ErrorKind::LuaError;
    std::string message;
  };
  // Calls the function below `nargs` arguments on the stack with a fresh budget; leaves `nresults` results on
  // success and nothing on failure.
  Outcome call(int nargs, int nresults);
  // The same with arguments made Lua values inside the protected call: the model writes tool inputs and parser
  // texts, and one larger than the memory limit is that limit's outcome, never a panic.
  Outcome call_with(std::span<const Value> arguments, int nresults);
  Outcome call_with(const Value& argument, int nresults) { return call_with(std::span(&argument, 1), nresults); }

  // Runs `work` on the `nargs` values at the top of the stack, which it finds at 1..nargs, inside a protected call,
  // with no budget: reading a script's result allocates (a number made text, a deeper stack), and running out there
  // must be the memory limit's outcome as well. Pops the values. An exception `work` throws comes out of protect.
  Outcome protect(int nargs, const std::function<void(lua_State*)>& work);

  // Charges work done inside C functions (pattern matching) to the instruction budget; raises a Lua error when a
  // limit is exceeded. Only callable from inside call().
  void charge(lua_State* L, uint64_t steps);
  // For a C function whose wait ran into the call's deadline (an HTTP request): trips the time limit.
  [[noreturn]] void fail_timeout(lua_State* L);
  // For memory a C function holds outside Lua's allocator (gsub's result): trips the memory limit.
  [[noreturn]] void fail_memory(lua_State* L);
  // For a C function whose wait ended because the call's run stopped: the run's stop, which no pcall catches.
  [[noreturn]] void fail_stopped(lua_State* L);

  const LuaLimits& limits() const { return limits_; }

  // What the call being made may reach (its tool's grants) and what stops it early (its run's cancel). Set by the
  // caller around each call (ScopedCallContext), so a state keeps neither between calls.
  struct CallContext {
    const Capabilities* capabilities = nullptr;
    const Cancel* cancel = nullptr;
    std::string_view call_id;  // a journaled call's idempotency key (engine.call_id()), else empty
  };
  const CallContext& context() const { return context_; }
  void set_context(CallContext context) { context_ = context; }
  // When the call's time limit ends: a C function that waits (an HTTP request) waits no longer.
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }

 private:
  static void* allocate(void* ud, void* ptr, size_t osize, size_t nsize);
  static void hook(lua_State* L, lua_Debug* ar);
  static int require(lua_State* L);
  static int log(lua_State* L);
  void open_libraries();
  [[noreturn]] void raise_trip(lua_State* L);
  Outcome outcome_of(int rc, int base);
  void check_limits(lua_State* L);

  LuaLimits limits_;
  std::filesystem::path module_root_;
  LogFn log_;
  size_t used_ = 0;
  uint64_t executed_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  bool in_call_ = false;
  Trip trip_ = Trip::None;
  CallContext context_;
  LuaArena arena_;  // outlives L_: the destructor closes the state first
  lua_State* L_ = nullptr;
};

// Gives a sandbox a call's context for as long as it lives.
class ScopedCallContext {
 public:
  ScopedCallContext(LuaSandbox& sandbox, LuaSandbox::CallContext context) : sandbox_(sandbox) {
    sandbox_.set_context(context);
  }
  ~ScopedCallContext() { sandbox_.set_context({}); }
  ScopedCallContext(const ScopedCallContext&) = delete;
  ScopedCallContext& operator=(const ScopedCallContext&) = delete;

 private:
  LuaSandbox& sandbox_;
};

// Reads the sandbox that owns a state (through its allocator's userdata).
LuaSandbox& sandbox_of(lua_State* L);

}  // namespace engine::tools::lua
