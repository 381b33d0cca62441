#include "engine/tools/lua/lua_sandbox.h"

#include <lua.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/file_scope.h"
#include "engine/tools/lua/lua_capabilities.h"
#include "engine/tools/lua/lua_json.h"
#include "engine/tools/lua/lua_patterns.h"

namespace engine::tools::lua {
namespace {

constexpr int kHookEvery = 1000;        // instructions between hook calls while within budget
constexpr size_t kErrorHeadroom = 64 << 10;  // memory still granted after a trip, to build the error message

ErrorKind trip_kind(Trip t) {
  switch (t) {
    case Trip::Instructions: return ErrorKind::LuaInstructionLimit;
    case Trip::Memory: return ErrorKind::LuaMemoryLimit;
    case Trip::Timeout: return ErrorKind::LuaTimeout;
    default: return ErrorKind::LuaError;
  }
}

// load() for scripts: text chunks only, so no crafted bytecode reaches the VM.
int safe_load(lua_State* L) {
  if (lua_gettop(L) < 3) lua_settop(L, 3);
  lua_pushliteral(L, "t");
  lua_replace(L, 3);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// collectgarbage() without "stop" and the mode switches, which a script could use to defeat the memory limit.
int safe_collectgarbage(lua_State* L) {
  const char* opt = luaL_optstring(L, 1, "collect");
  if (std::strcmp(opt, "count") == 0) {
    lua_pushnumber(L, static_cast<lua_Number>(lua_gc(L, LUA_GCCOUNT, 0)) + lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
    return 1;
  }
  if (std::strcmp(opt, "collect") == 0 || std::strcmp(opt, "step") == 0) {
    lua_gc(L, LUA_GCCOLLECT, 0);
    lua_pushinteger(L, 0);
    return 1;
  }
  return luaL_error(L, "collectgarbage('%s') is not available in the sandbox", opt);
}

// setmetatable() without finalisers. Lua runs a __gc metamethod with hooks off, so a finaliser that loops would
// escape every limit (and hang lua_close); Lua marks a table for finalisation only when its metatable already has
// __gc at setmetatable time, so refusing such a metatable here rules finalisers out for good.
bool lua_rawgetfield_gc(lua_State* L, int index) {
  lua_pushliteral(L, "__gc");
  bool has = lua_rawget(L, index) != LUA_TNIL;
  lua_pop(L, 1);
  return has;
}

int safe_setmetatable(lua_State* L) {
  if (lua_type(L, 2) == LUA_TTABLE && lua_rawgetfield_gc(L, 2))
    return luaL_error(L, "setmetatable: a metatable with __gc is not allowed in the sandbox (finalisers run outside "
                         "its limits)");
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// The function to call, then the arguments' address: they become Lua values under the caller's pcall.
int push_arguments_and_call(lua_State* L) {
  const auto& arguments = *static_cast<const std::span<const Value>*>(lua_touserdata(L, 2));
  lua_pop(L, 1);
  luaL_checkstack(L, static_cast<int>(arguments.size()), "too many arguments");
  for (const Value& argument : arguments) push_value(L, argument);
  lua_call(L, static_cast<int>(arguments.size()), LUA_MULTRET);
  return lua_gettop(L);
}

struct ProtectedWork {
  const std::function<void(lua_State*)>* work;
  std::exception_ptr failure;
};

// The values, then the work's address. Lua's own errors pass through as they must (Lua built as C++ throws a type
// of its own, not a std::exception); any other exception is kept for after the pcall, which would lose it.
int run_protected_work(lua_State* L) {
  auto* p = static_cast<ProtectedWork*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  try {
    (*p->work)(L);
  } catch (const std::exception&) {
    p->failure = std::current_exception();
  }
  return 0;
}

}  // namespace

LuaSandbox& sandbox_of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<LuaSandbox*>(ud);
}

LuaSandbox::LuaSandbox(LuaLimits limits, std::filesystem::path module_root, LogFn log)
    : limits_(limits), module_root_(std::move(module_root)), log_(std::move(log)) {
  L_ = lua_newstate(&LuaSandbox::allocate, this);
  if (!L_) throw Error(ErrorKind::LuaMemoryLimit, "cannot create a Lua state within the memory limit");
  open_libraries();
}

LuaSandbox::~LuaSandbox() {
  if (L_) lua_close(L_);
}

void* LuaSandbox::allocate(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* self = static_cast<LuaSandbox*>(ud);
  LuaArena& arena = self->arena_;
  if (nsize == 0) {
    if (!ptr) return nullptr;
    self->used_ -= osize;
    if (arena.owns(ptr)) arena.release(ptr, osize);
    else std::free(ptr);
    return nullptr;
  }
  size_t old = ptr ? osize : 0;  // with no ptr, osize names the kind of object, not a size
  if (nsize > old) {
    size_t cap = self->limits_.memory_bytes + (self->trip_ != Trip::None ? kErrorHeadroom : 0);
    if (self->used_ + (nsize - old) > cap) {
      if (self->in_call_ && self->trip_ == Trip::None) self->trip_ = Trip::Memory;
      return nullptr;
    }
  }
  void* p = nullptr;
  if (!ptr) {
    p = arena.allocate(nsize);
    if (!p) p = std::malloc(nsize);
  } else if (!arena.owns(ptr)) {
    p = std::realloc(ptr, nsize);
  } else if (nsize <= osize || LuaArena::same_slot(osize, nsize)) {
    p = ptr;  // Lua counts on a shrink never failing; the slot's spare bytes wait for the state's close
  } else {
    p = arena.allocate(nsize);
    if (!p) p = std::malloc(nsize);
    if (p) {
      std::memcpy(p, ptr, std::min(osize, nsize));
      arena.release(ptr, osize);
    }
  }
  if (p) self->used_ = self->used_ - old + nsize;
  return p;
}

void LuaSandbox::raise_trip(lua_State* L) {
  // Fire on every instruction from now on, so neither pcall nor a loop around it gets further.
  lua_sethook(L, &LuaSandbox::hook, LUA_MASKCOUNT, 1);
  switch (trip_) {
    case Trip::Instructions:
      luaL_error(L, "instruction limit of %I exceeded", static_cast<lua_Integer>(limits_.instructions));
      break;
    case Trip::Memory:
      luaL_error(L, "memory limit of %I bytes exceeded", static_cast<lua_Integer>(limits_.memory_bytes));
      break;
    case Trip::Stopped:
      luaL_error(L, "%s", stopped_error(*context_.cancel).message().c_str());
      break;
    default:
      luaL_error(L, "time limit of %I ms exceeded", static_cast<lua_Integer>(limits_.timeout.count()));
  }
  std::abort();  // luaL_error does not return
}

void LuaSandbox::check_limits(lua_State* L) {
  if (trip_ == Trip::None) {
    if (executed_ > limits_.instructions) trip_ = Trip::Instructions;
    else if (std::chrono::steady_clock::now() > deadline_) trip_ = Trip::Timeout;
    else if (context_.cancel && context_.cancel->stopped()) trip_ = Trip::Stopped;  // a loop ends with its run too
  }
  if (trip_ != Trip::None) raise_trip(L);
}

void LuaSandbox::hook(lua_State* L, lua_Debug*) {
  LuaSandbox& self = sandbox_of(L);
  self.executed_ += self.trip_ == Trip::None ? kHookEvery : 1;
  self.check_limits(L);
}

void LuaSandbox::charge(lua_State* L, uint64_t steps) {
  executed_ += steps;
  check_limits(L);
}

void LuaSandbox::fail_timeout(lua_State* L) {
  if (trip_ == Trip::None) trip_ = Trip::Timeout;
  raise_trip(L);
}

void LuaSandbox::fail_stopped(lua_State* L) {
  if (trip_ == Trip::None) trip_ = Trip::Stopped;
  raise_trip(L);
}

void LuaSandbox::fail_memory(lua_State* L) {
  if (trip_ == Trip::None) trip_ = Trip::Memory;
  raise_trip(L);
}

int LuaSandbox::log(lua_State* L) {
  LuaSandbox& self = sandbox_of(L);
  int n = lua_gettop(L);
  std::string line;
  for (int i = 1; i <= n; ++i) {
    if (i > 1) line += '\t';
    line += luaL_tolstring(L, i, nullptr);
    lua_pop(L, 1);
  }
  if (!self.log_) return 0;
  // An exception must not cross Lua's frames: Lua built as C++ would take it for an error with no message.
  std::optional<std::string> failure;
  try {
    self.log_(line);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (failure) return luaL_error(L, "cannot log the line: %s", failure->c_str());
  return 0;
}

int LuaSandbox::require(lua_State* L) {
  LuaSandbox& self = sandbox_of(L);
  std::string name = luaL_checkstring(L, 1);
  bool valid = !name.empty() && name.front() != '.' && name.back() != '.' && name.find("..") == std::string::npos;
  for (char c : name) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
  if (!valid) return luaL_error(L, "require: invalid module name '%s'", name.c_str());
  lua_getfield(L, LUA_REGISTRYINDEX, "engine.loaded");
  if (lua_getfield(L, -1, name.c_str()) != LUA_TNIL) return 1;
  lua_pop(L, 1);

  std::string rel = name;
  for (auto& c : rel)
    if (c == '.') c = '/';
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path path;
  try {
    path = FileScope({self.module_root_}).resolve(self.module_root_, rel + ".lua");  // a symlink may not lead out
  } catch (const Error& e) {
    return luaL_error(L, "require: %s", e.message().c_str());
  }
  if (!fs::is_regular_file(path, ec))
    return luaL_error(L, "require: module '%s' not found in %s", name.c_str(), self.module_root_.string().c_str());
  std::string code;
  try {
    code = read_file(path);
  } catch (const Error& e) {
    return luaL_error(L, "require: %s", e.what());
  }
  std::string chunk = "@" + (self.module_root_ / (rel + ".lua")).string();
  if (luaL_loadbufferx(L, code.data(), code.size(), chunk.c_str(), "t") != LUA_OK) return lua_error(L);
  lua_pushstring(L, name.c_str());
  lua_call(L, 1, 1);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, name.c_str());
  return 1;
}

void LuaSandbox::open_libraries() {
  static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},         {LUA_STRLIBNAME, luaopen_string},
                                  {LUA_TABLIBNAME, luaopen_table},   {LUA_MATHLIBNAME, luaopen_math},
                                  {LUA_UTF8LIBNAME, luaopen_utf8},   {LUA_COLIBNAME, luaopen_coroutine}};
  for (const auto& lib : libs) {
    luaL_requiref(L_, lib.name, lib.func, 1);
    lua_pop(L_, 1);
  }
  lua_pushglobaltable(L_);
  int g = lua_gettop(L_);
  for (const char* name : {"dofile", "loadfile", "require"}) {
    lua_pushnil(L_);
    lua_setfield(L_, g, name);
  }
  lua_getfield(L_, g, "load");
  lua_pushcclosure(L_, safe_load, 1);
  lua_setfield(L_, g, "load");
  lua_pushcfunction(L_, safe_collectgarbage);
  lua_setfield(L_, g, "collectgarbage");
  lua_getfield(L_, g, "setmetatable");
  lua_pushcclosure(L_, safe_setmetatable, 1);
  lua_setfield(L_, g, "setmetatable");
  lua_pushcfunction(L_, &LuaSandbox::log);
  lua_setfield(L_, g, "print");  // print goes to the trace, never to the terminal
  lua_pushcfunction(L_, &LuaSandbox::require);
  lua_setfield(L_, g, "require");

  lua_getfield(L_, g, "string");
  lua_pushnil(L_);
  lua_setfield(L_, -2, "dump");  // bytecode out means bytecode back in
  install_budgeted_patterns(L_, lua_gettop(L_));
  lua_pop(L_, 1);

  // os: only the clock and the calendar.
  luaL_requiref(L_, "engine.os", luaopen_os, 0);
  lua_newtable(L_);
  for (const char* name : {"time", "clock", "date", "difftime"}) {
    lua_getfield(L_, -2, name);
    lua_setfield(L_, -2, name);
  }
  lua_setfield(L_, g, "os");
  lua_pop(L_, 1);

  lua_newtable(L_);  // engine
  lua_pushcfunction(L_, &LuaSandbox::log);
  lua_setfield(L_, -2, "log");
  push_json_library(L_);
  lua_setfield(L_, -2, "json");
  install_capabilities(L_, lua_gettop(L_));
  lua_setfield(L_, g, "engine");

  lua_newtable(L_);
  lua_setfield(L_, LUA_REGISTRYINDEX, "engine.loaded");
  lua_pop(L_, 1);
}

LuaSandbox::Outcome LuaSandbox::call(int nargs, int nresults) {
  executed_ = 0;
  trip_ = Trip::None;
  deadline_ = std::chrono::steady_clock::now() + limits_.timeout;
  in_call_ = true;
  int base = lua_gettop(L_) - nargs - 1;
  lua_sethook(L_, &LuaSandbox::hook, LUA_MASKCOUNT, kHookEvery);
  int rc = lua_pcall(L_, nargs, nresults, 0);
  lua_sethook(L_, nullptr, 0, 0);
  in_call_ = false;
  return outcome_of(rc, base);
}

LuaSandbox::Outcome LuaSandbox::call_with(std::span<const Value> arguments, int nresults) {
  lua_pushcfunction(L_, push_arguments_and_call);
  lua_insert(L_, -2);
  lua_pushlightuserdata(L_, &arguments);
  return call(2, nresults);
}

LuaSandbox::Outcome LuaSandbox::protect(int nargs, const std::function<void(lua_State*)>& work) {
  ProtectedWork p{&work, nullptr};
  int base = lua_gettop(L_) - nargs;
  lua_pushcfunction(L_, run_protected_work);
  lua_insert(L_, -nargs - 1);
  lua_pushlightuserdata(L_, &p);
  int rc = lua_pcall(L_, nargs + 1, 0, 0);
  if (p.failure) std::rethrow_exception(p.failure);
  return outcome_of(rc, base);
}

LuaSandbox::Outcome LuaSandbox::outcome_of(int rc, int base) {
  Outcome out;
  if (rc == LUA_OK && trip_ == Trip::None) return out;
  out.ok = false;
  out.error_kind = trip_kind(trip_);
  if (trip_ == Trip::Memory || rc == LUA_ERRMEM)
    out.error_kind = ErrorKind::LuaMemoryLimit,
    out.message = "memory limit of " + std::to_string(limits_.memory_bytes) + " bytes exceeded";
  else if (rc != LUA_OK && lua_type(L_, -1) == LUA_TSTRING)
    out.message = lua_tostring(L_, -1);
  else if (rc != LUA_OK)
    out.message = std::string("error object is a ") + luaL_typename(L_, -1);
  if (trip_ == Trip::Instructions && out.message.find("instruction limit") == std::string::npos)
    out.message = "instruction limit of " + std::to_string(limits_.instructions) + " exceeded";
  if (trip_ == Trip::Timeout && out.message.find("time limit") == std::string::npos)
    out.message = "time limit of " + std::to_string(limits_.timeout.count()) + " ms exceeded";
  if (trip_ == Trip::Stopped && context_.cancel) {
    Error stop = stopped_error(*context_.cancel);
    out.error_kind = stop.kind();
    out.message = stop.message();
  }
  lua_settop(L_, base);
  trip_ = Trip::None;
  lua_gc(L_, LUA_GCCOLLECT, 0);  // give back what a failed call piled up before the next one
  return out;
}

}  // namespace engine::tools::lua
