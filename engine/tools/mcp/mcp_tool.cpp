#include "engine/tools/mcp/mcp_tool.h"

#include <algorithm>
#include <exception>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/core/trace_context.h"
#include "engine/tools/mcp/call_result.h"

namespace engine::tools::mcp {
namespace {

// MCP's advice for tool names (1 to 128 of A-Z a-z 0-9 _ - .): a name outside it could not be written in a ReAct
// action line or a function call, and a hostile server could hide a line break in it.
bool callable_name(const std::string& name) {
  return !name.empty() && name.size() <= 128 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
  });
}

class McpToolRun : public ToolInstance {
 public:
  McpToolRun(const McpTool& tool, const ToolContext& context) : tool_(tool), context_(context) {}
  ToolResult invoke(const Value& input) override { return tool_.call(input, context_, ""); }
  ToolResult invoke(const Value& input, const std::string& span_id) override {
    return tool_.call(input, context_, span_id);
  }
  ToolResult invoke(const Value& input, const CallContext& call) override {
    return tool_.call(input, context_, call.span_id, call.idempotency_key);
  }

 private:
  const McpTool& tool_;
  ToolContext context_;
};

}  // namespace

McpTool::McpTool(std::shared_ptr<const McpServer> server, ListedTool listed, std::string name,
                 std::optional<schema::Schema> input, std::optional<schema::Schema> output,
                 std::vector<HeaderParam> header_params)
    : Tool(std::move(name), listed.description.empty() ? listed.title : listed.description,
           std::move(listed.input_schema), std::move(input)),
      server_(std::move(server)),
      remote_name_(std::move(listed.name)),
      effect_(listed.read_only ? Effect::Read : listed.idempotent ? Effect::Idempotent : Effect::Once),
      output_(std::move(output)),
      header_params_(std::move(header_params)) {}

std::unique_ptr<ToolInstance> McpTool::instantiate(const ToolContext& context) const {
  return std::make_unique<McpToolRun>(*this, context);
}

ToolResult McpTool::call(const Value& input, const ToolContext& context, const std::string& span_id,
                         const std::string& idempotency_key) const {
  CallWait wait;
  wait.idempotency_key = idempotency_key;
  wait.cancel = context.cancel;
  // The trace goes on across the hop: the server's span of the call is the call's child (OpenTelemetry's MCP
  // conventions carry it in params._meta.traceparent; over HTTP the request's header says it too).
  if (context.trace && !span_id.empty())
    wait.traceparent = format_traceparent(context.trace->trace_id, span_id, context.trace->sampled);
  wait.headers = param_header_lines(header_params_, input);
  if (context.events)
    wait.on_progress = [&](const Value& p) {
      events::ToolProgress progress{name(), field(p, "progress"), std::nullopt, std::nullopt};
      if (p.contains("total")) progress.total = p["total"];
      if (const Value& message = field(p, "message"); message.is_string()) progress.message = message.get<std::string>();
      context.events->emit(Event{std::move(progress)});
    };
  Value result;
  try {
    result = server_->call(remote_name_, input, std::move(wait));
  } catch (const Error& e) {
    return ToolResult::failure(e.kind(), "tool '" + name() + "': " + e.message());
  }
  return call_result(std::move(result), name(), output_ ? &*output_ : nullptr);
}

Toolset list_toolset(const std::shared_ptr<const McpServer>& server, const ToolsetOptions& options, bool strict,
                     const Cancel* cancel) {
  std::vector<ListedTool> listed = server->list_tools(cancel);
  std::vector<std::string> names;
  for (const auto& t : listed) names.push_back(t.name);
  for (const auto& wanted : options.allow)
    if (strict && std::find(names.begin(), names.end(), wanted) == names.end())
      throw MissingToolError("MCP server '" + server->config().name + "' has no tool '" + wanted + "'" +
                                 did_you_mean(wanted, names) + " (it lists: " + join(names, ", ") + ")",
                             wanted);
  Toolset set;
  std::vector<std::string> unchecked, uncallable, invalid;
  for (auto& t : listed) {
    if (!options.allow.empty() && std::find(options.allow.begin(), options.allow.end(), t.name) == options.allow.end())
      continue;
    if (!callable_name(t.name)) {
      uncallable.push_back(t.name.substr(0, 40));
      continue;
    }
    std::string bad_headers;
    std::vector<HeaderParam> headers = header_params(t.input_schema, bad_headers);
    if (!bad_headers.empty()) {  // an invalid definition (2026-07-28): left out, the others kept
      invalid.push_back("'" + t.name + "' (" + bad_headers + ")");
      continue;
    }
    std::optional<schema::Schema> input, output;
    std::string why;
    try {
      input = schema::Schema::compile(t.input_schema, options.schema_options);
    } catch (const Error& e) {
      why = e.message();
    }
    if (!t.output_schema.is_null()) {
      try {
        output = schema::Schema::compile(t.output_schema, options.schema_options);
      } catch (const Error& e) {
        why = why.empty() ? "outputSchema: " + e.message() : why;
      }
    }
    if (!why.empty()) unchecked.push_back("'" + t.name + "' (" + why + ")");
    std::string name = options.prefix + t.name;
    set.tools.push_back(std::make_shared<McpTool>(server, std::move(t), std::move(name), std::move(input),
                                                  std::move(output), std::move(headers)));
  }
  std::vector<std::string> notes;
  if (!unchecked.empty())
    notes.push_back("the engine cannot check the schemas of " + join(unchecked, ", ") +
                    ": their arguments and results go unchecked here (the server checks its own)");
  if (!uncallable.empty())
    notes.push_back("tools whose names no model could call are left out: " + join(uncallable, ", "));
  if (!invalid.empty())
    notes.push_back("tools whose x-mcp-header declarations are invalid are left out: " + join(invalid, ", "));
  if (!notes.empty()) set.warning = "MCP server '" + server->config().name + "': " + join(notes, "; ");
  return set;
}

McpToolset::McpToolset(std::shared_ptr<const McpServer> server, ToolsetOptions options)
    : server_(std::move(server)), options_(std::move(options)) {
  Toolset first = list_toolset(server_, options_);
  // Counted after the list came: a change the server announced before answering is in the answer.
  listed_at_ = server_->tools_changes();
  warning_ = std::move(first.warning);
  tools_ = std::make_shared<const ToolList>(std::move(first.tools));
}

std::shared_ptr<const ToolList> McpToolset::current(const Cancel* cancel) const {
  uint64_t changes = server_->tools_changes();
  {
    std::lock_guard lock(mu_);
    if (changes == listed_at_ || listing_) return tools_;
    listing_ = true;
  }
  std::shared_ptr<const ToolList> fresh;
  try {
    fresh = std::make_shared<const ToolList>(list_toolset(server_, options_, false, cancel).tools);
  } catch (const Error&) {
    // The list it had stands; the next change is another chance.
  }
  std::lock_guard lock(mu_);
  listing_ = false;
  listed_at_ = changes;
  if (fresh) tools_ = std::move(fresh);
  return tools_;
}

}  // namespace engine::tools::mcp
