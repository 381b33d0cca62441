#pragma once
// A script compiled once when the workflow is built and loaded again into each sandbox that runs it: tools (one
// sandbox per run) and parsers (one per call) share this.
#include <string>

#include "engine/tools/lua/lua_sandbox.h"

namespace engine::tools::lua {

// Compiles a script's text (never bytecode) to the host's own dump of it. Throws Error "lua.syntax", located at
// the script's line when Lua names one.
std::string compile_chunk(const std::string& source, const std::string& display_path);

// Loads host-made bytecode from compile_chunk into `sandbox` and runs it with a fresh budget, leaving what the
// script returned on the stack. On failure leaves nothing and returns the sandbox's outcome.
LuaSandbox::Outcome run_chunk(LuaSandbox& sandbox, const std::string& bytecode, const std::string& display_path);

}  // namespace engine::tools::lua
