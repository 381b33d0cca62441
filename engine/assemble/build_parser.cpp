#include "engine/assemble/build_parser.h"

#include <algorithm>

#include "engine/assemble/build_grants.h"
#include "engine/assemble/build_tools.h"
#include "engine/assemble/match_context.h"
#include "engine/assemble/spec_errors.h"
#include "engine/core/text.h"
#include "engine/parse/json_blob_parser.h"
#include "engine/parse/keyword_parser.h"
#include "engine/parse/react_parser.h"
#include "engine/parse/script_parser.h"
#include "engine/template/template.h"
#include "engine/tools/lua/lua_function.h"

namespace engine::assemble {
namespace {

// Keyword rules: each names one of the agent's tools; its input template sees the match's named groups, `groups`
// (by number) and `text`.
std::unique_ptr<const parse::OutputParser> build_keyword_parser(const spec::ParserSpec& p, const spec::WorkflowSpec& s,
                                                                const std::vector<agent::AgentTool>& tools) {
  std::vector<std::string> names;
  for (const auto& t : tools) names.push_back(t.tool->name());
  std::vector<parse::KeywordRule> rules;
  for (size_t i = 0; i < p.keyword_rules.size(); ++i) {
    const auto& r = p.keyword_rules[i];
    std::string path = p.path + ".rules[" + std::to_string(i) + "]";
    if (std::find(names.begin(), names.end(), r.tool.value) == names.end())
      throw Error(ErrorKind::SpecUnknownTool, "unknown tool '" + r.tool.value + "' in " + path + ".tool" +
                                           did_you_mean(r.tool.value, names),
                  r.tool.loc, quoted_line(s, r.tool.loc));
    std::optional<parse::Regex> regex;
    try {
      regex = parse::Regex::compile(r.match.value);
    } catch (const Error& e) {
      throw at_key(e, path + ".match", r.match.loc, s);
    }
    parse::KeywordRule rule{std::move(*regex), r.tool.value, nullptr};
    if (!r.input.value.empty()) {
      tmpl::Template input = tmpl::Template::compile(r.input.value, s.display_path + " (" + path + ".input)");
      rule.input = [input, names = rule.match.group_names()](const parse::RegexMatch& m, std::string_view text) {
        Value ctx = match_context(m, names);
        ctx["text"] = std::string(text);
        return Value(input.render(ctx));
      };
    }
    rules.push_back(std::move(rule));
  }
  return std::make_unique<parse::KeywordParser>(std::move(rules));
}

// A Lua parser: the script's function reads the text in a sandbox of its own per call, so the parser stays
// immutable and shared like every other.
std::unique_ptr<const parse::OutputParser> build_lua_parser(const spec::ParserSpec& p, const spec::WorkflowSpec& s,
                                                            const std::shared_ptr<net::IoThreads>& io) {
  tools::lua::LuaFunctionConfig cfg{p.script_file, script_display_path(s, p.script.value), p.function,
                                    granted_limits(lua_limits(p.limits), p.limits, p.allow), {}};
  if (!p.allow.empty()) cfg.capabilities = build_capabilities(p.allow, s, p.path, io);
  std::shared_ptr<const tools::lua::LuaFunction> function;
  try {
    function = tools::lua::LuaFunction::load(cfg);
  } catch (const Error& e) {
    if (e.loc().line > 0) throw;  // a syntax error already points into the script
    throw at_key(e, p.path + ".script", p.script.loc, s);
  }
  return std::make_unique<parse::ScriptParser>(
      cfg.display_path, [function](std::string_view text, const std::vector<std::string>& earlier_failures,
                                   const parse::ScriptParser::LogLine& log) {
        Value failures = Value::array();
        for (const std::string& failure : earlier_failures) failures.push_back(failure);
        const Value arguments[] = {Value(std::string(text)), std::move(failures)};
        return function->call(arguments, log);
      });
}

// One parser of agent.parser. Each regex is compiled here, so an error can name its own key and line.
std::unique_ptr<const parse::OutputParser> build_one_parser(const spec::ParserSpec& p, const spec::WorkflowSpec& s,
                                                        const std::vector<agent::AgentTool>& tools,
                                                        const std::shared_ptr<net::IoThreads>& io) {
  if (p.kind.value == "json_blob")
    return std::make_unique<parse::JsonBlobParser>(parse::JsonBlobOptions{p.action_key, p.input_key, p.final_action});
  if (p.kind.value == "keyword") return build_keyword_parser(p, s, tools);
  if (p.kind.value == "lua") return build_lua_parser(p, s, io);
  auto compile_regex = [&](const spec::Located<std::string>& pattern, const std::string& key) {
    try {
      return parse::Regex::compile(pattern.value, parse::ReactParser::regex_options(p.dotall));
    } catch (const Error& e) {
      throw at_key(e, key, pattern.loc, s);
    }
  };
  parse::Regex final_answer = compile_regex(p.final_answer, p.path + ".final_answer");
  parse::Regex action = compile_regex(p.action, p.path + ".action");
  parse::BothVerdicts both = p.both == "final_answer" ? parse::BothVerdicts::FinalAnswer
                             : p.both == "action"     ? parse::BothVerdicts::Action
                                                      : parse::BothVerdicts::Error;
  try {
    return std::make_unique<parse::ReactParser>(std::move(final_answer), std::move(action), p.strip_quotes, both,
                                                p.decode_xml_entities);
  } catch (const Error& e) {
    throw at_key(e, p.path + ".action", p.action.loc, s);
  }
}

}  // namespace

std::shared_ptr<const parse::OutputParser> build_parser(const spec::WorkflowSpec& s,
                                                        const std::vector<agent::AgentTool>& tools,
                                                        const std::shared_ptr<net::IoThreads>& io) {
  std::vector<std::unique_ptr<const parse::OutputParser>> parsers;
  for (const auto& p : s.agent.parsers) parsers.push_back(build_one_parser(p, s, tools, io));
  if (parsers.size() == 1) return std::move(parsers[0]);
  return std::make_shared<parse::ParserChain>(std::move(parsers));
}

}  // namespace engine::assemble
