#pragma once
// All a script can see of a Lua state, as one number. Two runs may share a state only if the first left it as it
// was made; this is how the engine knows, without asking the script (docs/lua-tools.md, "The sandbox").
//
// What counts: every value reachable from the registry (the globals and every library, the modules `require` has
// loaded, the tool's own functions) and from the string metatable; every table's metatable and its entries in
// order; every closure's upvalues, by value and by cell (two closures sharing a local), and a Lua closure's code;
// the bytes of every full userdata (math.random's generator state, a gmatch iterator's position). What a script can
// read is taken by content: a string by its bytes, a number by its bits, a function's code by its instructions and
// constants. A table's or function's address is mixed in too, never alone: a new object may land at the address of
// a collected one, so an address cannot stand for what it held. A coroutine other than the main thread makes the state unshareable: its suspended frames
// are state a fingerprint cannot read. Stricter than needed is safe, never looser: a table rebuilt with the same
// contents, or rehashed into another order, reads as changed, and the run merely keeps its own state.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/core/limits.h"

struct lua_State;

namespace engine::tools::lua {

class StateFingerprint {
 public:

  // Null when the state cannot be shared: a coroutine is reachable, a userdata larger than 4 KB, nesting deeper than
  // limits::kLuaSharedDepth, more than limits::kLuaSharedValues values, or more than limits::kLuaSharedStringBytes of strings. Uses at most a few Lua stack
  // slots per level of nesting; allocates nothing in Lua except stack space, so call it under a protected call
  // (LuaSandbox::protect).
  std::optional<uint64_t> of(lua_State* L);

 private:
  bool value(lua_State* L, int index, int depth);
  bool table(lua_State* L, int index, int depth);
  bool function(lua_State* L, int index, int depth);
  bool userdata(lua_State* L, int index, int depth);
  bool string(lua_State* L, int index);
  static int code_writer(lua_State* L, const void* p, size_t size, void* self);
  bool first_visit(const void* p);
  void mix(uint64_t v);

  uint64_t hash_ = 0;
  size_t values_ = 0;
  size_t string_bytes_ = 0;
  uint64_t code_hash_ = 0;
  std::vector<const void*> seen_;  // open addressing, kept between walks
  size_t seen_count_ = 0;
};

}  // namespace engine::tools::lua
