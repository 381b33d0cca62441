#include "engine/spec/format_keys.h"

#include <algorithm>

namespace engine::spec {
namespace keys {

// `$schema` names the JSON Schema for editors (schema/workflow.schema.json); `tests` are the workflow's own tests
// (test_spec.h). A run reads neither.
const KeyList kTop = {"$schema", "version", "name", "description", "inputs", "outputs",
                      "llm",     "tools",   "agent", "steps",      "tests"};
const KeyList kInput = {"description", "default", "required", "type"};
const KeyList kOutput = {"description", "value"};
const KeyList kLlm = {"provider",        "model",        "temperature",      "max_tokens",  "scripted",
                      "chat_template",   "bos_token",    "eos_token",        "base_url",    "api_key_env",
                      "max_retries",     "timeout",      "connect_timeout",  "read_timeout", "max_tokens_field",
                      "extra",           "endpoint",     "seed",             "response_format", "tool_choice",
                      "parallel_tool_calls", "anthropic_version", "recording", "prices",      "max_concurrent_calls",
                      "chat_template_tools", "add_generation_prompt", "chat_template_kwargs"};
const KeyList kPrice = {"prompt", "completion"};
const KeyList kScripted = {"replies", "rules", "latency_ms", "fail"};
const KeyList kScriptedFail = {"status", "times"};
const KeyList kScriptedRule = {"match", "user", "tool", "reply", "tool_calls"};
const KeyList kScriptedReply = {"content", "tool_calls"};
const KeyList kToolCall = {"name", "arguments"};
const KeyList kTool = {"name",     "description", "lua",   "builtin", "parameters", "limits", "on_error",
                       "workflow", "mcp",         "tools", "prefix",  "timeout", "allow",
                       "index"};
const KeyList kAllow = {"http", "files"};
const KeyList kHttpGrant = {"url", "methods", "headers", "max_bytes"};
const KeyList kFilesGrant = {"root", "write", "max_bytes"};
const KeyList kMcp = {"command", "args", "env", "cwd", "url", "headers", "roots"};
const KeyList kLuaLimits = {"instructions", "memory_mb", "timeout_ms"};
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
const KeyList kTemplateFile = {"file", "text", "strict_undefined", "trim_blocks", "lstrip_blocks"};
const KeyList kStep = {"kind",  "description", "when",     "template", "prompt",   "agent",
                       "inputs", "retry",      "on_error", "timeout",  "for_each", "concurrency",
                       "tool",  "input",       "steps",    "until",    "max_iterations", "workflow",
                       "lua",   "limits",      "llm",      "output_schema", "allow"};
const KeyList kRetry = {"attempts", "backoff"};
const KeyList kTest = {"description", "inputs", "replies", "recording", "expect"};
const KeyList kTestExpect = {"output", "output_contains", "output_matches", "outputs", "tools",
                             "stopped_reason", "steps", "error", "llm_calls"};
const KeyList kTestFile = {"version", "description", "workflow", "tests"};

}  // namespace keys

const std::vector<KeyTable>& format_key_tables() {
  using namespace keys;
  static const std::vector<KeyTable> tables = {
      {"", &kTop},
      {"input", &kInput},
      {"output", &kOutput},
      {"llm", &kLlm},
      {"price", &kPrice},
      {"scripted", &kScripted},
      {"scripted_rule", &kScriptedRule},
      {"scripted_fail", &kScriptedFail},
      {"scripted_reply", &kScriptedReply},
      {"tool_call", &kToolCall},
      {"tool", &kTool},
      {"mcp", &kMcp},
      {"allow", &kAllow},
      {"http_grant", &kHttpGrant},
      {"files_grant", &kFilesGrant},
      {"lua_limits", &kLuaLimits},
      {"agent", &kAgent},
      {"message", &kMessage},
      {"memory", &kMemory},
      {"parser_regex", &kParserRegex},
      {"parser_json_blob", &kParserJsonBlob},
      {"parser_keyword", &kParserKeyword},
      {"keyword_rule", &kKeywordRule},
      {"parser_lua", &kParserLua},
      {"template_options", &kTemplateOptions},
      {"template_file", &kTemplateFile},
      {"step", &kStep},
      {"retry", &kRetry},
      {"test", &kTest},
      {"test_expect", &kTestExpect},
  };
  return tables;
}

namespace {

// Which mapping holds which, by the key it is under (lists of mappings count as the mapping: `tools` holds tools).
struct Nesting {
  const KeyList* parent;
  const char* key;
  const KeyList* child;
};

const std::vector<Nesting>& nestings() {
  using namespace keys;
  static const std::vector<Nesting> all = {
      {&kTop, "llm", &kLlm},          {&kTop, "agent", &kAgent},          {&kTop, "tools", &kTool},
      {&kLlm, "scripted", &kScripted}, {&kScripted, "rules", &kScriptedRule},
      {&kScripted, "fail", &kScriptedFail}, {&kAgent, "memory", &kMemory},
      {&kAgent, "parser", &kParserRegex}, {&kAgent, "template_options", &kTemplateOptions},
      {&kTool, "limits", &kLuaLimits}, {&kTool, "mcp", &kMcp}, {&kStep, "agent", &kAgent},         {&kStep, "llm", &kLlm},
      {&kStep, "retry", &kRetry},      {&kStep, "limits", &kLuaLimits},
  };
  return all;
}

bool takes(const KeyList& table, const std::string& key) {
  return std::find(table.begin(), table.end(), key) != table.end();
}

}  // namespace

std::string misplaced_key_hint(const KeyList& table, const std::string& path, const std::string& key) {
  std::vector<std::string> under;
  for (const Nesting& n : nestings())
    if (n.parent == &table && takes(*n.child, key)) under.push_back(n.key);
  if (!under.empty()) {
    std::string names;
    for (size_t i = 0; i < under.size(); ++i) names += (i == 0 ? "" : i + 1 == under.size() ? " or " : ", ") + under[i];
    return " (did you mean to indent it under " + names + "?)";
  }
  // One level up: the path without its last key (and index); the workflow itself when that leaves nothing.
  size_t cut = path.find_last_of('.');
  std::string last = path.substr(cut == std::string::npos ? 0 : cut + 1);
  last = last.substr(0, last.find('['));
  std::string parent_path = cut == std::string::npos ? "" : path.substr(0, cut);
  for (const Nesting& n : nestings()) {
    if (n.child != &table || last != n.key || (n.parent == &keys::kTop) != parent_path.empty()) continue;
    if (takes(*n.parent, key))
      return " (did you mean to outdent it? it is a key of " + (parent_path.empty() ? "the workflow" : parent_path) +
             ")";
    // A sibling's: `max_iterations` under llm is the agent's.
    for (const Nesting& sibling : nestings())
      if (sibling.parent == n.parent && sibling.child != &table && takes(*sibling.child, key))
        return " (it is a key of " + (parent_path.empty() ? "" : parent_path + ".") + sibling.key + ")";
  }
  return "";
}

}  // namespace engine::spec
