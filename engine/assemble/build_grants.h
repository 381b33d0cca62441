#pragma once
// A tool's `allow:` made what its calls may reach (tools/capabilities.h).
#include <filesystem>
#include <string>
#include <vector>

#include "engine/net/io_threads.h"
#include "engine/spec/workflow_spec.h"
#include "engine/tools/capabilities.h"
#include "engine/tools/lua/lua_sandbox.h"

namespace engine::assemble {

// Throws Error "spec.bad_value" at a grant's url when it is not one (the prefix is parsed here, with the parser
// every request is checked by), and FileAccess's errors at a root that cannot be opened.
tools::Capabilities build_capabilities(const spec::AllowSpec& allow, const spec::WorkflowSpec& spec,
                                       const std::string& path, const std::shared_ptr<net::IoThreads>& io);
// Where a search_docs tool keeps its index: its `index:`, else the default beside the workflow
// (tools/document_search.h).
std::filesystem::path search_docs_index_file(const spec::ToolSpec& tool, const spec::WorkflowSpec& spec);
// A script that may send requests waits on servers: unless its limits say otherwise, it has 30 s, not 2.
tools::lua::LuaLimits granted_limits(tools::lua::LuaLimits limits, const spec::LuaLimitsSpec& given,
                                     const spec::AllowSpec& allow);

}  // namespace engine::assemble
