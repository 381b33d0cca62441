#include "engine/tools/lua/lua_fingerprint.h"

#include <lua.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <string_view>

#include "engine/core/limits.h"

namespace engine::tools::lua {
namespace {

constexpr uint64_t kEndOfTable = 0x7461626c65656e64;  // "tableend": where one table's entries stop

uint64_t spread(uint64_t x) {  // splitmix64's finaliser: every input bit moves every output bit
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9;
  x ^= x >> 27;
  x *= 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

uint64_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

// One multiply a value: the walk runs after every shared call. Values a script's input could choose (numbers) are
// spread first, so no chosen value can cancel what the walk mixed in before it (addresses nobody outside knows).
void StateFingerprint::mix(uint64_t v) { hash_ = (std::rotl(hash_, 5) ^ v) * 0x9e3779b97f4a7c15; }

bool StateFingerprint::first_visit(const void* p) {
  if ((seen_count_ + 1) * 2 > seen_.size()) {
    std::vector<const void*> old(std::max<size_t>(64, seen_.size() * 2), nullptr);
    old.swap(seen_);
    seen_count_ = 0;
    for (const void* q : old)
      if (q) first_visit(q);
  }
  size_t mask = seen_.size() - 1;
  for (size_t i = spread(address(p)) & mask;; i = (i + 1) & mask) {
    if (seen_[i] == p) return false;
    if (!seen_[i]) {
      seen_[i] = p;
      ++seen_count_;
      return true;
    }
  }
}

std::optional<uint64_t> StateFingerprint::of(lua_State* L) {
  hash_ = 0x6c7561737461746c;
  values_ = 0;
  string_bytes_ = 0;
  if (seen_count_) std::fill(seen_.begin(), seen_.end(), nullptr);
  seen_count_ = 0;
  if (!lua_checkstack(L, 4)) return std::nullopt;
  int top = lua_gettop(L);
  lua_pushvalue(L, LUA_REGISTRYINDEX);
  bool ok = value(L, top + 1, 0);
  // The only metatable of a non-table a script can reach without the debug library (absent from the sandbox).
  lua_pushliteral(L, "");
  if (ok && lua_getmetatable(L, -1)) ok = value(L, lua_gettop(L), 0);
  lua_settop(L, top);
  if (!ok) return std::nullopt;
  return hash_;
}

bool StateFingerprint::value(lua_State* L, int index, int depth) {
  if (++values_ > limits::kLuaSharedValues || depth > limits::kLuaSharedDepth) return false;
  int type = lua_type(L, index);
  mix(static_cast<uint64_t>(type));
  switch (type) {
    case LUA_TNIL: return true;
    case LUA_TBOOLEAN: mix(static_cast<uint64_t>(lua_toboolean(L, index))); return true;
    case LUA_TNUMBER:
      if (lua_isinteger(L, index)) {
        mix(spread(static_cast<uint64_t>(lua_tointeger(L, index))));
      } else {
        mix(spread(std::bit_cast<uint64_t>(static_cast<double>(lua_tonumber(L, index)))) + 1);
      }
      return true;
    case LUA_TSTRING: return string(L, index);
    case LUA_TLIGHTUSERDATA: mix(address(lua_topointer(L, index))); return true;
    case LUA_TTABLE: return table(L, index, depth);
    case LUA_TFUNCTION: return function(L, index, depth);
    case LUA_TUSERDATA: return userdata(L, index, depth);
    case LUA_TTHREAD: {
      lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
      bool main = lua_tothread(L, -1) == lua_tothread(L, index);
      lua_pop(L, 1);
      mix(address(lua_topointer(L, index)));
      return main;
    }
    default: return false;
  }
}

bool StateFingerprint::table(lua_State* L, int index, int depth) {
  const void* p = lua_topointer(L, index);
  mix(address(p));
  if (!first_visit(p)) return true;
  if (!lua_checkstack(L, 4)) return false;
  if (lua_getmetatable(L, index)) {
    bool ok = value(L, lua_gettop(L), depth + 1);
    lua_pop(L, 1);
    if (!ok) return false;
  }
  lua_pushnil(L);
  while (lua_next(L, index)) {
    int top = lua_gettop(L);
    if (!value(L, top - 1, depth + 1) || !value(L, top, depth + 1)) {
      lua_pop(L, 2);
      return false;
    }
    lua_pop(L, 1);
  }
  mix(kEndOfTable);
  return true;
}

// By content: a string the script could read is its bytes, whatever object holds them (a new string may take the
// address of one collected, so an address says nothing).
bool StateFingerprint::string(lua_State* L, int index) {
  size_t len = 0;
  const char* bytes = lua_tolstring(L, index, &len);
  string_bytes_ += len;
  if (string_bytes_ > limits::kLuaSharedStringBytes) return false;
  mix(spread(std::hash<std::string_view>{}(std::string_view(bytes, len))) ^ len);
  return true;
}

// Lua writes a function's code through this, as lua_dump does to a file: hashed, never stored.
int StateFingerprint::code_writer(lua_State*, const void* p, size_t size, void* self) {
  auto* f = static_cast<StateFingerprint*>(self);
  f->code_hash_ = spread(f->code_hash_ ^ std::hash<std::string_view>{}(std::string_view(static_cast<const char*>(p), size)));
  return 0;
}

bool StateFingerprint::function(lua_State* L, int index, int depth) {
  const void* p = lua_topointer(L, index);  // a C function without upvalues: its code's address
  mix(address(p));
  if (!lua_checkstack(L, 2)) return false;
  bool lua_code = !lua_iscfunction(L, index);
  bool upvalues = lua_getupvalue(L, index, 1) != nullptr;
  if (upvalues) lua_pop(L, 1);
  if (!lua_code && !upvalues) return true;  // nothing of its own to change
  if (!first_visit(p)) return true;
  if (lua_code) {
    // A Lua closure's code (its prototype's instructions and constants), so a closure of other code made at the
    // address of a collected one reads as changed. Stripped of debug information: the code is what runs.
    lua_pushvalue(L, index);
    code_hash_ = 0x636f646568617368;
    lua_dump(L, code_writer, this, 1);
    lua_pop(L, 1);
    mix(code_hash_);
  }
  for (int n = 1; lua_getupvalue(L, index, n); ++n) {
    mix(address(lua_upvalueid(L, index, n)));  // which cell: a local shared with another closure, or its own
    bool ok = value(L, lua_gettop(L), depth + 1);
    lua_pop(L, 1);
    if (!ok) return false;
  }
  return true;
}

bool StateFingerprint::userdata(lua_State* L, int index, int depth) {
  const auto* bytes = static_cast<const unsigned char*>(lua_touserdata(L, index));
  mix(address(bytes));
  if (!first_visit(bytes)) return true;
  size_t size = lua_rawlen(L, index);
  if (size > limits::kLuaSharedUserdataBytes || !lua_checkstack(L, 2)) return false;
  mix(size);
  for (size_t i = 0; i < size; i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, bytes + i, std::min<size_t>(8, size - i));
    mix(word);
  }
  if (lua_getmetatable(L, index)) {
    bool ok = value(L, lua_gettop(L), depth + 1);
    lua_pop(L, 1);
    if (!ok) return false;
  }
  for (int n = 1; lua_getiuservalue(L, index, n) != LUA_TNONE; ++n) {
    bool ok = value(L, lua_gettop(L), depth + 1);
    lua_pop(L, 1);
    if (!ok) return false;
  }
  lua_pop(L, 1);  // the nil pushed for the user value past the last
  return true;
}

}  // namespace engine::tools::lua
