#pragma once
// `engine.http` and `engine.fs`, the granted capabilities of a Lua script (docs/lua-tools.md, "Reaching the world").
// The functions are always there; what they may reach is what the call's context holds (LuaSandbox::CallContext),
// set by the tool for each of its calls, so a state keeps no grant between calls and a state handed to another run
// or tool holds none.
struct lua_State;

namespace engine::tools::lua {

// Sets engine.http = {request=} and engine.fs = {read=, write=, list=, stat=} in the table at `engine_table`.
void install_capabilities(lua_State* L, int engine_table);

}  // namespace engine::tools::lua
