#include "engine/tools/lua/lua_json.h"

#include <lua.hpp>

#include <cmath>
#include <map>

#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/tools/lua/lua_sandbox.h"

namespace engine::tools::lua {
namespace {

// Lua has one table type; an array made by the engine (or by engine.json.array) carries this metatable, so an
// empty one goes back as [] and not as {}.
constexpr const char* kArrayMeta = "engine.json.array";
constexpr size_t kNodeBytes = 32;  // what a Value costs beside its text, roughly

// A table may hold one sub-table many times: 41 tables each holding the next twice are 2^40 paths, terabytes as a
// Value. The conversion is charged by the size of what it builds, not the size of the Lua data, and stops at the
// sandbox's memory limit: the Value lives outside Lua's allocator.
struct Budget {
  size_t left;
  void charge(lua_State* L, size_t bytes) {
    if (bytes <= left) {
      left -= bytes;
      return;
    }
    throw Error(ErrorKind::LuaConvert, "the value is larger than the tool's memory limit of " +
                                   std::to_string(sandbox_of(L).limits().memory_bytes) +
                                   " bytes (a table shared many times over?)");
  }
};

void push_array_metatable(lua_State* L) {
  if (luaL_getmetatable(L, kArrayMeta) != LUA_TNIL) return;
  lua_pop(L, 1);
  luaL_newmetatable(L, kArrayMeta);
}

bool marked_array(lua_State* L, int index) {
  if (!lua_getmetatable(L, index)) return false;
  push_array_metatable(L);
  bool marked = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return marked;
}

bool is_empty(lua_State* L, int index) {
  lua_pushnil(L);
  if (!lua_next(L, index)) return true;
  lua_pop(L, 2);
  return false;
}

bool is_sequence(lua_State* L, int index, lua_Integer& n) {
  n = 0;
  lua_Integer count = 0;
  lua_pushnil(L);
  while (lua_next(L, index)) {
    lua_pop(L, 1);
    if (!lua_isinteger(L, -1)) {
      lua_pop(L, 1);
      return false;
    }
    lua_Integer k = lua_tointeger(L, -1);
    if (k < 1) {
      lua_pop(L, 1);
      return false;
    }
    n = std::max(n, k);
    ++count;
  }
  return count > 0 && count == n;
}

Value convert(lua_State* L, int index, int depth, Budget& budget) {
  index = lua_absindex(L, index);
  budget.charge(L, kNodeBytes);
  switch (lua_type(L, index)) {
    case LUA_TNIL: return nullptr;
    case LUA_TBOOLEAN: return static_cast<bool>(lua_toboolean(L, index));
    case LUA_TNUMBER:
      if (lua_isinteger(L, index)) return static_cast<long long>(lua_tointeger(L, index));
      else {
        double d = lua_tonumber(L, index);
        return std::isfinite(d) ? Value(d) : Value(nullptr);
      }
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, index, &len);
      budget.charge(L, len);
      return std::string(s, len);
    }
    case LUA_TTABLE: {
      if (depth >= limits::kLuaJsonDepth)
        throw Error(ErrorKind::LuaConvert, "table nested deeper than " + std::to_string(limits::kLuaJsonDepth) + " levels (a cycle?)");
      luaL_checkstack(L, 4, "table conversion");
      lua_Integer n = 0;
      if (is_sequence(L, index, n) || (is_empty(L, index) && marked_array(L, index))) {
        Value arr = Value::array();
        for (lua_Integer i = 1; i <= n; ++i) {
          lua_rawgeti(L, index, i);
          arr.push_back(convert(L, -1, depth + 1, budget));
          lua_pop(L, 1);
        }
        return arr;
      }
      // Lua iterates a table in hash order; sorting the keys makes an observation the same on every run.
      std::map<std::string, Value> sorted;
      lua_pushnil(L);
      while (lua_next(L, index)) {
        std::string key;
        if (lua_type(L, -2) == LUA_TSTRING) key = lua_tostring(L, -2);
        else if (lua_type(L, -2) == LUA_TNUMBER) {
          lua_pushvalue(L, -2);
          key = lua_tostring(L, -1);  // on the copy: tostring on the key itself would confuse lua_next
          lua_pop(L, 1);
        } else {
          lua_pop(L, 2);
          throw Error(ErrorKind::LuaConvert, std::string("table key of type ") + luaL_typename(L, -2) + " cannot be JSON");
        }
        budget.charge(L, key.size());
        sorted[key] = convert(L, -1, depth + 1, budget);
        lua_pop(L, 1);
      }
      Value obj = Value::object();
      for (auto& [k, v] : sorted) append_new_member(obj, k, std::move(v));  // unique: the map's keys
      return obj;
    }
    default:
      throw Error(ErrorKind::LuaConvert, std::string("a ") + luaL_typename(L, index) + " cannot be converted to JSON");
  }
}

int json_encode(lua_State* L) {
  luaL_checkany(L, 1);
  std::string out;
  try {
    out = to_json_text(to_value(L, 1));
  } catch (const Error& e) {
    return luaL_error(L, "engine.json.encode: %s", e.message().c_str());
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

int json_decode(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  JsonError why;
  Value v = parse_json(std::string_view(s, len), &why);
  if (v.is_discarded())
    return luaL_error(L, "engine.json.decode: %s", why.too_deep ? ("JSON " + why.message).c_str() : "invalid JSON");
  push_value(L, v);
  return 1;
}

// engine.json.array([t]): t (or a new table) marked as an array, so that it encodes as one even when empty.
int json_array(lua_State* L) {
  if (lua_isnoneornil(L, 1)) {
    lua_settop(L, 0);
    lua_newtable(L);
  } else {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
  }
  push_array_metatable(L);
  lua_setmetatable(L, 1);
  return 1;
}

}  // namespace

Value to_value(lua_State* L, int index) {
  Budget budget{sandbox_of(L).limits().memory_bytes};
  return convert(L, index, 0, budget);
}

void push_value(lua_State* L, const Value& v) {
  luaL_checkstack(L, 3, "value conversion");
  switch (v.type()) {
    case Value::value_t::null: lua_pushnil(L); return;
    case Value::value_t::boolean: lua_pushboolean(L, v.get<bool>()); return;
    case Value::value_t::number_integer: lua_pushinteger(L, v.get<lua_Integer>()); return;
    case Value::value_t::number_unsigned:
      // past Lua's integers a number becomes a float, as Lua reads 18446744073709551615 in source, not -1
      if (v.get<unsigned long long>() > static_cast<unsigned long long>(LUA_MAXINTEGER))
        lua_pushnumber(L, static_cast<lua_Number>(v.get<unsigned long long>()));
      else
        lua_pushinteger(L, v.get<lua_Integer>());
      return;
    case Value::value_t::number_float: lua_pushnumber(L, v.get<double>()); return;
    case Value::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      lua_pushlstring(L, s.data(), s.size());
      return;
    }
    case Value::value_t::array: {
      lua_createtable(L, static_cast<int>(v.size()), 0);
      push_array_metatable(L);
      lua_setmetatable(L, -2);
      lua_Integer i = 1;
      for (const auto& e : v) {
        push_value(L, e);
        lua_rawseti(L, -2, i++);
      }
      return;
    }
    case Value::value_t::object: {
      lua_createtable(L, 0, static_cast<int>(v.size()));
      for (const auto& [k, e] : v.items()) {
        push_value(L, e);
        lua_setfield(L, -2, k.c_str());
      }
      return;
    }
    default: lua_pushnil(L); return;
  }
}

void push_json_library(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, json_encode);
  lua_setfield(L, -2, "encode");
  lua_pushcfunction(L, json_decode);
  lua_setfield(L, -2, "decode");
  lua_pushcfunction(L, json_array);
  lua_setfield(L, -2, "array");
  // Made now, not on the first array: a call that creates it would leave the state changed (lua_state_pool.h).
  push_array_metatable(L);
  lua_pop(L, 1);
}

}  // namespace engine::tools::lua
