#pragma once
// agent.parser: one parser, or a chain of them tried in order, each built here with its regexes compiled and its
// script loaded, so an error names its own key and line.
#include <memory>
#include <vector>

#include "engine/agent/run_core.h"
#include "engine/net/io_threads.h"
#include "engine/parse/output_parser.h"
#include "engine/spec/workflow_spec.h"

namespace engine::assemble {

// `tools` are the agent's: keyword rules may name only these.
// `io`: the I/O threads a Lua parser's granted requests use (BuildOptions::io).
std::shared_ptr<const parse::OutputParser> build_parser(const spec::WorkflowSpec& spec,
                                                        const std::vector<agent::AgentTool>& tools,
                                                        const std::shared_ptr<net::IoThreads>& io);

}  // namespace engine::assemble
