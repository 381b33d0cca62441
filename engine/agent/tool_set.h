#pragma once
// The tools one run may call, and what its prompt says of them. An agent's tools are fixed at the build unless some
// come from a source whose list can change (an MCP server that says so): then each run starts with the tools as
// they are when it starts, and a run never sees its tools change under it.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/agent/run_core.h"
#include "engine/llm/llm_client.h"
#include "engine/tools/tool_source.h"

namespace engine::agent {

struct ToolSet {
  explicit ToolSet(std::vector<AgentTool> tools);

  std::vector<AgentTool> tools;
  Value described = Value::array();  // [{name, description}], the prompt's `tools`
  std::string names;                 // "a, b", `tool_names`
  std::string descriptions;          // "a: what a does" a line each, `tool_descriptions`
  std::vector<llm::ToolSchema> schemas;  // as a tool-calling model is given them
};

// A tool's declared parameters; a tool of one text input takes it as `input`, as LangChain's single-input tools do.
llm::ToolSchema schema_of(const tools::Tool& tool);

class AgentTools {
 public:
  // The tools of one source whose list can change, as this agent takes them.
  struct Changing {
    std::shared_ptr<const tools::ToolSource> source;
    std::vector<std::string> only;           // the agent's own `tools:` list, when it gave one
    std::vector<std::string> return_direct;  // names
    bool fail_run_on_error = false;
    std::optional<Effect> effect;  // the workflow's `effect:` for the source's tools
    ApprovalPolicy approval;       // and its `approve:`
  };

  // `initial` as the build found them, in declaration order (a changing source's tools among them, where its entry
  // is); `changing` the sources some of them came from.
  explicit AgentTools(std::vector<AgentTool> initial, std::vector<Changing> changing = {});

  // The tools for a run starting now: the initial set itself while no source has changed.
  std::shared_ptr<const ToolSet> current(const Cancel* cancel) const;
  const ToolSet& initial() const { return *initial_; }

 private:
  std::shared_ptr<const ToolSet> initial_;
  std::vector<Changing> changing_;
  // Which source each initial tool came from (-1: none), and each source's list when the build saw it.
  std::vector<int> from_;
  std::vector<std::shared_ptr<const tools::ToolList>> seen_at_build_;
  mutable std::mutex mu_;
  mutable std::vector<std::shared_ptr<const tools::ToolList>> seen_;  // the lists `latest_` was made from
  mutable std::shared_ptr<const ToolSet> latest_;
};

}  // namespace engine::agent
