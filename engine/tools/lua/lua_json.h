#pragma once
// Lua values <-> engine Values, and the `engine.json` table scripts use.
#include "engine/core/value.h"

struct lua_State;

namespace engine::tools::lua {

// Tables with keys 1..n become arrays, other tables objects. An empty table is an empty object, unless it is an
// array the engine gave the script (push_value marks them) or one made with engine.json.array().
// Throws Error "lua.convert" for functions, cycles, nesting deeper than 100, and values larger than the sandbox's
// memory limit (a table holding one sub-table many times over). Only for states of a LuaSandbox.
Value to_value(lua_State* L, int index);
void push_value(lua_State* L, const Value& v);
void push_json_library(lua_State* L);  // pushes a table {encode=, decode=, array=}

}  // namespace engine::tools::lua
