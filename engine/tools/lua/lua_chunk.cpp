#include "engine/tools/lua/lua_chunk.h"

#include <lua.hpp>

#include "engine/core/error.h"
#include "engine/core/source.h"

namespace engine::tools::lua {
namespace {

int write_chunk(lua_State*, const void* p, size_t sz, void* ud) {
  static_cast<std::string*>(ud)->append(static_cast<const char*>(p), sz);
  return 0;
}

// "plugins/calc.lua:12: unexpected symbol near 'x'" -> a located Error.
Error syntax_error(const std::string& lua_message, const std::string& display_path, const std::string& source) {
  std::string prefix = display_path + ":";
  if (lua_message.rfind(prefix, 0) == 0) {
    size_t colon = lua_message.find(':', prefix.size());
    if (colon != std::string::npos) {
      try {
        int line = std::stoi(lua_message.substr(prefix.size(), colon - prefix.size()));
        std::string msg = lua_message.substr(colon + 1);
        while (!msg.empty() && msg.front() == ' ') msg.erase(0, 1);
        return located_error(ErrorKind::LuaSyntax, "lua syntax error: " + msg, SourceText(display_path, source), line, 0);
      } catch (const std::exception&) {
      }
    }
  }
  return Error(ErrorKind::LuaSyntax, "lua syntax error: " + lua_message, SourceLoc{display_path});
}

}  // namespace

std::string compile_chunk(const std::string& source, const std::string& display_path) {
  // Compiling runs no script code, so the default limits are only there to own a state.
  LuaSandbox sandbox(LuaLimits{}, {}, nullptr);
  lua_State* L = sandbox.state();
  std::string chunk = "@" + display_path;
  if (luaL_loadbufferx(L, source.data(), source.size(), chunk.c_str(), "t") != LUA_OK) {
    std::string msg = lua_tostring(L, -1);
    lua_pop(L, 1);
    throw syntax_error(msg, display_path, source);
  }
  std::string bytecode;
  lua_dump(L, write_chunk, &bytecode, 0);
  lua_pop(L, 1);
  return bytecode;
}

LuaSandbox::Outcome run_chunk(LuaSandbox& sandbox, const std::string& bytecode, const std::string& display_path) {
  lua_State* L = sandbox.state();
  std::string chunk = "@" + display_path;
  // Host-made bytecode from the same Lua build; scripts themselves can load text only.
  if (luaL_loadbufferx(L, bytecode.data(), bytecode.size(), chunk.c_str(), "b") != LUA_OK) {
    LuaSandbox::Outcome failed{false, ErrorKind::LuaError, lua_tostring(L, -1)};
    lua_pop(L, 1);
    return failed;
  }
  return sandbox.call(0, 1);
}

}  // namespace engine::tools::lua
