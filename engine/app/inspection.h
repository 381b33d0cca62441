#pragma once
// What an author asks of a workflow's parts one at a time, without running it: a template file rendered, the
// parser's verdict on a text, one tool called alone.
#include <string>
#include <string_view>

#include "engine/core/event.h"
#include "engine/core/value.h"
#include "engine/tools/tool.h"
#include "engine/workflow/executor.h"

namespace engine::app {

// Renders the template file at `path` with the JSON object in `vars_file` (none when empty); undefined variables
// fail unless `lenient`. Throws a located Error.
std::string render_template_file(const std::string& path, const std::string& vars_file, bool lenient);

// What the workflow's parser makes of `text`: {type: action, tool, tool_input}, {type: finish, output} or
// {type: error, message}. A Lua parser's log lines go to `log`.
Value parse_verdict(const workflow::Executor& executor, std::string_view text, const parse::ParserLog& log = nullptr);

// The workflow's tools as JSON: [{name, kind, description, parameters}], parameters null for a tool of one text input.
Value describe_tools(const workflow::Executor& executor);

// Calls the workflow's tool `name` with `input` (text, or a JSON object's text for a tool with parameters), its
// logs going to `logs`. Throws Error "input.unknown_tool" naming the tools there are.
tools::ToolResult call_tool(const workflow::Executor& executor, const std::string& workflow_file,
                            const std::string& name, const std::string& input, EventSink& logs);

// The JSON Schema (draft 7) of workflows, or of test files ("test") or evaluation files ("eval"), as `engine
// schema` prints it.
std::string_view workflow_schema(std::string_view which = "workflow");

}  // namespace engine::app
