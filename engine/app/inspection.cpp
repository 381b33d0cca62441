#include "engine/app/inspection.h"

#include <variant>

#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/spec/format_schema.h"
#include "engine/template/template.h"

namespace engine::app {

std::string render_template_file(const std::string& path, const std::string& vars_file, bool lenient) {
  Value vars = Value::object();
  if (!vars_file.empty()) {
    std::string text = read_file(vars_file, limits::kFileBytes, Pipes::Allowed);
    JsonError why{false, "not an object"};
    vars = parse_json(text, &why);
    if (vars.is_discarded() || !vars.is_object())
      throw Error(ErrorKind::InputBadFile, "--vars " + vars_file + ": expected a JSON object (" + why.message + ")");
  }
  tmpl::TemplateOptions options;
  options.strict_undefined = !lenient;
  return tmpl::Template::compile_file(path, options).render(vars);
}

Value describe_tools(const workflow::Executor& executor) {
  Value out = Value::array();
  for (const auto& t : executor.tools().all())
    out.push_back(Value{{"name", t->name()}, {"kind", t->kind()}, {"description", t->description()},
                        {"parameters", t->parameters()}});
  return out;
}

Value parse_verdict(const workflow::Executor& executor, std::string_view text, const parse::ParserLog& log) {
  auto parsed = executor.parse_output(text, log);
  if (auto* a = std::get_if<parse::AgentAction>(&parsed))
    return {{"type", "action"}, {"tool", a->tool}, {"tool_input", a->tool_input}};
  if (auto* f = std::get_if<parse::AgentFinish>(&parsed)) return {{"type", "finish"}, {"output", f->output}};
  return {{"type", "error"}, {"message", std::get<parse::ParseFailure>(parsed).message}};
}

tools::ToolResult call_tool(const workflow::Executor& executor, const std::string& workflow_file,
                            const std::string& name, const std::string& input, EventSink& logs) {
  const tools::Tool* tool = executor.tools().find(name);
  if (!tool)
    throw Error(ErrorKind::InputUnknownTool, "no tool named '" + name + "' in " + workflow_file +
                                          did_you_mean(name, executor.tools().names()) + " (tools: " +
                                          join(executor.tools().names(), ", ") + ")");
  Value arguments(input);
  std::string refused = tools::prepare_arguments(*tool, arguments);
  if (!refused.empty()) return tools::ToolResult::failure(ErrorKind::ToolInvalidArguments, refused);
  return tool->instantiate({&logs})->invoke(arguments);
}

std::string_view workflow_schema(std::string_view which) {
  if (which == "test") return spec::test_file_schema();
  if (which == "eval") return spec::eval_file_schema();
  return spec::workflow_format_schema();
}

}  // namespace engine::app
