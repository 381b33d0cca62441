// An agent block: its prompt, parsers, memory and bounds.
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/spec/default_react.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/section_readers.h"

namespace engine::spec {

namespace keys {

// The keys this reader takes (format_keys.h): a new key is added here, read below, and described in
// schema/workflow.schema.json.
const KeyList kAgent = {"kind",           "prompt",         "scratchpad",       "stop",          "parser",
                        "max_iterations", "max_execution_time", "early_stopping", "on_parse_error", "tools",
                        "return_direct",  "observation_prefix", "llm_prefix",   "temperature",   "max_tokens",
                        "template_options", "max_tokens_total", "max_cost",     "output_schema", "memory"};
const KeyList kMessage = {"role", "content", "placeholder"};
const KeyList kMemory = {"kind", "k", "max_tokens", "human_prefix", "ai_prefix", "input_key", "output_key"};
const KeyList kParserRegex = {"kind", "final_answer", "action", "dotall", "strip_quotes", "decode_xml_entities", "both"};
const KeyList kParserJsonBlob = {"kind", "action_key", "input_key", "final_action"};
const KeyList kParserKeyword = {"kind", "rules"};
const KeyList kKeywordRule = {"match", "tool", "input"};
const KeyList kParserLua = {"kind", "script", "function", "limits", "allow"};
const KeyList kTemplateOptions = {"strict_undefined", "trim_blocks", "lstrip_blocks"};

}  // namespace keys

namespace {

// The default regex parser (LangChain's ReAct format).
ParserSpec default_parser(const std::string& path, const SourceLoc& agent_loc) {
  ParserSpec s;
  s.path = path;
  s.final_answer = {kDefaultFinalAnswerRegex, agent_loc};
  s.action = {kDefaultActionRegex, agent_loc};
  return s;
}

// One parser; a missing node is the default.
ParserSpec parser(SectionReader& in, const YAML::Node& p, const std::string& path, const SourceLoc& agent_loc) {
  YamlReader& r = in.r;
  ParserSpec s;
  s.path = path;
  if (p) {
    if (p.IsMap() && p["kind"]) s.kind = in.one_of(p["kind"], path + ".kind", {"regex", "json_blob", "keyword", "lua"});
    r.expect_map(p, path, s.kind.value == "json_blob" ? keys::kParserJsonBlob
                          : s.kind.value == "keyword" ? keys::kParserKeyword
                          : s.kind.value == "lua"     ? keys::kParserLua
                                                      : keys::kParserRegex);
    if (s.kind.value == "lua") {
      r.expect_present(p, "script", path);
      s.script = r.located_str(p["script"], path + ".script");
      s.script_file = in.within_scope(s.script.value, path + ".script", p["script"]);
      in.key(p, "function", [&](const YAML::Node& v) { s.function = r.str(v, path + ".function"); });
      in.key(p, "limits", [&](const YAML::Node& v) { s.limits = in.lua_limits(v, path + ".limits"); });
      in.key(p, "allow", [&](const YAML::Node& v) { s.allow = in.allow(v, path + ".allow"); });
    }
    if (s.kind.value == "keyword") {
      r.expect_present(p, "rules", path);
      const YAML::Node& rules = p["rules"];
      if (!rules.IsSequence() || rules.size() == 0)
        r.fail(ErrorKind::SpecWrongType, path + ".rules must be a list of {match, tool, input}", rules);
      for (size_t i = 0; i < rules.size(); ++i)
        in.entry([&] {
          std::string at = path + ".rules[" + std::to_string(i) + "]";
          r.expect_map(rules[i], at, keys::kKeywordRule);
          r.expect_present(rules[i], "match", at);
          r.expect_present(rules[i], "tool", at);
          KeywordRuleSpec rule{r.located_raw(rules[i]["match"], at + ".match"),
                               r.located_str(rules[i]["tool"], at + ".tool"), {}};
          if (rules[i]["input"]) rule.input = r.located_raw(rules[i]["input"], at + ".input");
          s.keyword_rules.push_back(std::move(rule));
        });
    }
    in.key(p, "final_answer", [&](const YAML::Node& v) { s.final_answer = r.located_raw(v, path + ".final_answer"); });
    in.key(p, "action", [&](const YAML::Node& v) { s.action = r.located_raw(v, path + ".action"); });
    in.key(p, "dotall", [&](const YAML::Node& v) { s.dotall = r.boolean(v, path + ".dotall"); });
    in.key(p, "strip_quotes", [&](const YAML::Node& v) { s.strip_quotes = r.boolean(v, path + ".strip_quotes"); });
    in.key(p, "decode_xml_entities", [&](const YAML::Node& v) {
      s.decode_xml_entities = r.boolean(v, path + ".decode_xml_entities");
    });
    in.key(p, "both", [&](const YAML::Node& v) { s.both = in.one_of(v, path + ".both", {"error", "final_answer", "action"}).value; });
    in.key(p, "action_key", [&](const YAML::Node& v) { s.action_key = r.str(v, path + ".action_key"); });
    in.key(p, "input_key", [&](const YAML::Node& v) { s.input_key = r.str(v, path + ".input_key"); });
    in.key(p, "final_action", [&](const YAML::Node& v) { s.final_action = r.str(v, path + ".final_action"); });
  }
  ParserSpec defaults = default_parser(path, agent_loc);
  if (s.final_answer.value.empty()) s.final_answer = defaults.final_answer;
  if (s.action.value.empty()) s.action = defaults.action;
  return s;
}

// agent.memory: {kind: window, k: 2}, {kind: token_limit, max_tokens: N} or {kind: full}.
MemorySpec memory(SectionReader& in, const YAML::Node& n, const std::string& at) {
  YamlReader& r = in.r;
  MemorySpec m;
  m.loc = r.loc(n);
  r.expect_map(n, at, keys::kMemory);
  r.expect_present(n, "kind", at);
  m.kind = in.one_of(n["kind"], at + ".kind", {"none", "full", "window", "token_limit"});
  auto only_for = [&](const char* key, const char* kind) {
    if (n[key] && m.kind.value != kind) r.fail(ErrorKind::SpecConflict, at + "." + key + " is for kind: " + kind, n[key]);
  };
  in.key(n, "k", [&](const YAML::Node& v) {
    only_for("k", "window");
    m.k = static_cast<int>(r.integer(v, at + ".k", 1, 100000));
  });
  in.key(n, "max_tokens", [&](const YAML::Node& v) {
    only_for("max_tokens", "token_limit");
    m.max_tokens = static_cast<long>(r.integer(v, at + ".max_tokens", 1, 1LL << 30));
  });
  in.key(n, "human_prefix", [&](const YAML::Node& v) { m.human_prefix = r.str(v, at + ".human_prefix"); });
  in.key(n, "ai_prefix", [&](const YAML::Node& v) { m.ai_prefix = r.str(v, at + ".ai_prefix"); });
  in.key(n, "input_key", [&](const YAML::Node& v) { m.input_key = r.located_str(v, at + ".input_key"); });
  in.key(n, "output_key", [&](const YAML::Node& v) { m.output_key = r.str(v, at + ".output_key"); });
  return m;
}

// A chat prompt: a list of {role, content}, each content a template (inline or {file: PATH}).
std::vector<MessageSpec> messages(SectionReader& in, const YAML::Node& n, const std::string& path) {
  YamlReader& r = in.r;
  std::vector<MessageSpec> out;
  if (n.size() == 0) r.fail(ErrorKind::SpecWrongType, path + " must list at least one message", n);
  for (size_t i = 0; i < n.size(); ++i)
    in.entry([&] {
      std::string item = path + "[" + std::to_string(i) + "]";
      r.expect_map(n[i], item, keys::kMessage);
      if (n[i]["placeholder"]) {
        for (const char* key : {"role", "content"})
          if (n[i][key])
            r.fail(ErrorKind::SpecConflict, item + " is a placeholder; it takes no " + key + " (the messages it stands for have theirs)",
                   n[i][key]);
        MessageSpec m;
        m.placeholder = r.located_str(n[i]["placeholder"], item + ".placeholder");
        in.check_name(m.placeholder.value, "placeholder", n[i]["placeholder"]);
        out.push_back(std::move(m));
        return;
      }
      r.expect_present(n[i], "role", item);
      r.expect_present(n[i], "content", item);
      out.push_back({in.one_of(n[i]["role"], item + ".role", {"system", "user", "assistant"}),
                     in.template_source(n[i]["content"], item + ".content")});
    });
  return out;
}

// LangChain's hub prompt for tool-calling agents (hwchase17/openai-tools-agent): a system line, the chat history
// (an optional placeholder there, here the memory's messages: none without a memory) and the input.
std::vector<MessageSpec> default_tool_calling_messages(const SectionReader& in, const SourceLoc& loc) {
  auto message = [&](const char* role, const char* text, const char* what) {
    return MessageSpec{{role, loc}, TemplateSource{text, what, in.dir, loc, false, {}}, {}};
  };
  MessageSpec history;
  history.placeholder = {"history", loc};
  return {message("system", "You are a helpful assistant.", "built-in tool_calling prompt (system)"), history,
          message("user", "{{ input }}", "built-in tool_calling prompt (user)")};
}

}  // namespace

AgentSpec read_agent(SectionReader& in, const YAML::Node& n, const std::string& at) {
  YamlReader& r = in.r;
  AgentSpec a;
  a.path = at;
  a.loc = r.loc(n);
  r.expect_map(n, at, keys::kAgent);
  in.key(n, "kind", [&](const YAML::Node& v) { a.kind = in.one_of(v, at + ".kind", {"react", "tool_calling"}); });
  bool tool_calling = a.kind.value == "tool_calling";
  if (tool_calling)
    for (const char* key : {"parser", "scratchpad", "on_parse_error"})
      in.key(n, key, [&](const YAML::Node& v) {
        r.fail(ErrorKind::SpecConflict,
               at + "." + key + " is for react agents; a tool_calling agent reads the model's tool calls, not its text", v);
      });
  in.entry([&] {
    if (n["prompt"] && n["prompt"].IsSequence()) a.messages = messages(in, n["prompt"], at + ".prompt");
    else a.prompt = in.template_source(n["prompt"], at + ".prompt");
  });
  in.entry([&] { a.scratchpad = in.template_source(n["scratchpad"], at + ".scratchpad"); });
  in.key(n, "output_schema", [&](const YAML::Node& v) {
    a.output_schema = in.json_schema(v, at + ".output_schema");
    a.output_schema_loc = r.loc(v);
  });
  in.key(n, "stop", [&](const YAML::Node& v) {
    for (auto& s : r.str_list(v, at + ".stop")) a.stop.push_back(std::move(s.value));
    a.stop_given = true;
  });
  const YAML::Node& parsers = n["parser"];
  if (parsers && parsers.IsSequence()) {
    in.entry([&] {
      if (parsers.size() == 0) r.fail(ErrorKind::SpecWrongType, at + ".parser is an empty list; give at least one parser", parsers);
    });
    for (size_t i = 0; i < parsers.size(); ++i)
      in.entry([&] { a.parsers.push_back(parser(in, parsers[i], at + ".parser[" + std::to_string(i) + "]", a.loc)); });
  } else {
    in.entry([&] { a.parsers.push_back(parser(in, parsers, at + ".parser", a.loc)); });
  }
  // A parser left out for its problem: the default stands in, so that the rest is built and checked.
  if (a.parsers.empty()) a.parsers.push_back(default_parser(at + ".parser", a.loc));
  in.key(n, "max_iterations", [&](const YAML::Node& v) {
    a.max_iterations = static_cast<int>(r.integer(v, at + ".max_iterations", 1, 10000));
  });
  in.key(n, "max_execution_time", [&](const YAML::Node& v) {
    a.max_execution_time = r.number(v, at + ".max_execution_time", 0, limits::kSeconds);
  });
  in.key(n, "max_tokens_total", [&](const YAML::Node& v) {
    a.max_tokens_total = static_cast<long>(r.integer(v, at + ".max_tokens_total", 1, 1LL << 40));
  });
  in.key(n, "max_cost", [&](const YAML::Node& v) {
    a.max_cost = r.number(v, at + ".max_cost", 0);
    a.max_cost_loc = r.loc(v);
  });
  in.key(n, "early_stopping", [&](const YAML::Node& v) { a.early_stopping = in.one_of(v, at + ".early_stopping", {"force", "generate"}); });
  in.key(n, "memory", [&](const YAML::Node& v) { a.memory = memory(in, v, at + ".memory"); });
  in.key(n, "on_parse_error", [&](const YAML::Node& v) { a.on_parse_error = in.one_of(v, at + ".on_parse_error", {"fail", "retry"}); });
  in.key(n, "tools", [&](const YAML::Node& v) {
    a.tools = r.str_list(v, at + ".tools");
    a.tools_given = true;
  });
  in.key(n, "return_direct", [&](const YAML::Node& v) { a.return_direct = r.str_list(v, at + ".return_direct"); });
  in.key(n, "observation_prefix", [&](const YAML::Node& v) { a.observation_prefix = r.str(v, at + ".observation_prefix"); });
  in.key(n, "llm_prefix", [&](const YAML::Node& v) { a.llm_prefix = r.str(v, at + ".llm_prefix"); });
  in.key(n, "temperature", [&](const YAML::Node& v) { a.temperature = r.number(v, at + ".temperature", 0); });
  in.key(n, "max_tokens", [&](const YAML::Node& v) { a.max_tokens = static_cast<int>(r.integer(v, at + ".max_tokens", 1, 1 << 24)); });
  in.key(n, "template_options", [&](const YAML::Node& o) {
    r.expect_map(o, at + ".template_options", keys::kTemplateOptions);
    in.key(o, "strict_undefined", [&](const YAML::Node& v) {
      a.template_flags.strict_undefined = r.boolean(v, at + ".template_options.strict_undefined");
    });
    in.key(o, "trim_blocks", [&](const YAML::Node& v) { a.template_flags.trim_blocks = r.boolean(v, at + ".template_options.trim_blocks"); });
    in.key(o, "lstrip_blocks", [&](const YAML::Node& v) {
      a.template_flags.lstrip_blocks = r.boolean(v, at + ".template_options.lstrip_blocks");
    });
  });
  if (tool_calling && !a.prompt.given && a.messages.empty()) a.messages = default_tool_calling_messages(in, a.loc);
  // A tool-calling conversation has no ReAct prefixes; the console shows observations bare, as LangChain does.
  if (tool_calling && !n["observation_prefix"]) a.observation_prefix = "";
  if (tool_calling && !n["llm_prefix"]) a.llm_prefix = "";
  if (!a.prompt.given && a.messages.empty())
    a.prompt = {kDefaultReactPrompt, "built-in react prompt", in.dir, a.loc, false};
  if (!a.scratchpad.given)
    a.scratchpad = {default_scratchpad(a.observation_prefix, a.llm_prefix), "built-in scratchpad", in.dir, a.loc, false};
  if (!a.stop_given && !tool_calling) a.stop = {"\n" + std::string(trim(a.observation_prefix))};
  return a;
}

}  // namespace engine::spec
