#pragma once
// string.find, match, gmatch and gsub with Lua's pattern semantics, charging their work to the sandbox budget.
// The stock versions run in C where the instruction hook never fires, so a pattern such as
// string.rep('a', 1e5):find('.-.-.-.-b') would run for hours past every limit.
struct lua_State;

namespace engine::tools::lua {

// Replaces the pattern functions in the string table at `string_table` (and thus the string metatable's methods).
void install_budgeted_patterns(lua_State* L, int string_table);

}  // namespace engine::tools::lua
