// The engine's budgeted string.find/match/gmatch/gsub against stock Lua 5.4's, differentially: the same calls in a
// sandboxed state and in a plain one must give the same results and the same error messages. The input's first
// two bytes give the pattern's and the replacement's lengths; the rest is pattern, replacement, subject (any bytes,
// NUL included). A call that hits the sandbox's budget is not run on the stock side, whose C loops have no budget.
#include <lua.hpp>

#include <algorithm>
#include <cstring>

#include "engine/tools/lua/lua_sandbox.h"
#include "fuzz/fuzz_support.h"

namespace {

const char* const kScript = R"(
local s, p, r = ...
local out = {}
local function add(...)
  local t = table.pack(...)
  for i = 1, t.n do out[#out + 1] = type(t[i]) .. ':' .. tostring(t[i]) end
  out[#out + 1] = ';'
end
add(pcall(string.find, s, p))
add(pcall(string.find, s, p, 2))
add(pcall(string.find, s, p, -3))
add(pcall(string.match, s, p))
add(pcall(string.gsub, s, p, r))
add(pcall(string.gsub, s, p, r, 1))
add(pcall(string.gsub, s, p, {a = 'A', [''] = 'E'}))
add(pcall(function()
  local n, acc = 0, {}
  for a, b in string.gmatch(s, p) do
    n = n + 1
    if n > 20 then break end
    acc[#acc + 1] = tostring(a) .. ',' .. tostring(b)
  end
  return table.concat(acc, '|')
end))
return table.concat(out, ' ')
)";

std::string run(lua_State* L, bool sandboxed, engine::tools::lua::LuaSandbox* box, std::string_view s, std::string_view p,
                std::string_view r, bool* tripped) {
  if (luaL_loadbufferx(L, kScript, std::strlen(kScript), "=fuzz", "t") != LUA_OK) std::abort();
  lua_pushlstring(L, s.data(), s.size());
  lua_pushlstring(L, p.data(), p.size());
  lua_pushlstring(L, r.data(), r.size());
  std::string out;
  if (sandboxed) {
    auto outcome = box->call(3, 1);
    if (!outcome.ok) {
      *tripped = true;
      return outcome.message;
    }
  } else if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
    out = std::string("error: ") + lua_tostring(L, -1);
    lua_pop(L, 1);
    return out;
  }
  size_t n = 0;
  const char* text = lua_tolstring(L, -1, &n);
  out.assign(text, n);
  lua_pop(L, 1);
  // a tripped limit inside a pcall shows in the results
  if (sandboxed && (out.find("instruction limit") != std::string::npos || out.find("memory limit") != std::string::npos ||
                    out.find("time limit") != std::string::npos))
    *tripped = true;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  if (size < 2) return 0;
  size_t lp = std::min<size_t>(data[0] % 32, size - 2);
  size_t lr = std::min<size_t>(data[1] % 8, size - 2 - lp);
  std::string_view rest = fuzz::as_text(data + 2, size - 2);
  std::string_view p = rest.substr(0, lp), r = rest.substr(lp, lr), s = rest.substr(lp + lr);

  static tools::lua::LuaSandbox* box = [] {
    tools::lua::LuaLimits limits;
    limits.instructions = 200'000;  // the stock side runs only what finished within this, so it stays fast too
    limits.memory_bytes = 16u << 20;
    limits.timeout = std::chrono::milliseconds(2000);
    return new tools::lua::LuaSandbox(limits, "/nonexistent-fuzz", nullptr);
  }();
  static lua_State* stock = [] {
    lua_State* L = luaL_newstate();
    luaL_openlibs(L);
    return L;
  }();
  bool tripped = false;
  std::string ours = run(box->state(), true, box, s, p, r, &tripped);
  if (tripped) return 0;
  std::string theirs = run(stock, false, nullptr, s, p, r, &tripped);
  if (ours != theirs) fuzz::mismatch("pattern functions differ from Lua 5.4's", ours, theirs);
  return 0;
}
