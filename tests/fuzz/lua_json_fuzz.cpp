// engine.json in a Lua tool: any text decodes to a Lua value or a Lua error, never a crash; JSON the engine
// accepts decodes, and encoding the result gives JSON again.
#include <lua.hpp>

#include <cstring>

#include "engine/core/json_parse.h"
#include "engine/tools/lua/lua_sandbox.h"
#include "fuzz/fuzz_support.h"

namespace {

const char* const kScript = R"(
local text = ...
local ok, value = pcall(engine.json.decode, text)
if not ok then return 'error' end
local ok2, out = pcall(engine.json.encode, value)
if not ok2 then return 'encode error: ' .. tostring(out) end
return out
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  static tools::lua::LuaSandbox* box = [] {
    tools::lua::LuaLimits limits;
    limits.memory_bytes = 16u << 20;
    return new tools::lua::LuaSandbox(limits, "/nonexistent-fuzz", nullptr);
  }();
  lua_State* L = box->state();
  std::string_view text = fuzz::as_text(data, size);
  if (luaL_loadbufferx(L, kScript, std::strlen(kScript), "=fuzz", "t") != LUA_OK) std::abort();
  lua_pushlstring(L, text.data(), text.size());
  auto outcome = box->call(1, 1);
  if (!outcome.ok) {
    if (outcome.error_kind == ErrorKind::LuaMemoryLimit) return 0;
    fuzz::mismatch("engine.json failed outside pcall", outcome.message, "");
  }
  std::string out = lua_tostring(L, -1);
  lua_pop(L, 1);
  bool valid = !parse_json(text).is_discarded();
  if (valid && out == "error") fuzz::mismatch("valid JSON did not decode", std::string(text.substr(0, 200)), "");
  if (!valid && out != "error") fuzz::mismatch("invalid JSON decoded", std::string(text.substr(0, 200)), out);
  if (out != "error" && out.rfind("encode error", 0) != 0 && parse_json(out).is_discarded())
    fuzz::mismatch("encode wrote invalid JSON", out, "");
  return 0;
}
