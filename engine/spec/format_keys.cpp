#include "engine/spec/format_keys.h"

#include <algorithm>

namespace engine::spec {

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
      {"approve", &kApprove},
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
      {"test_decision", &kTestDecision},
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
      {&kTool, "limits", &kLuaLimits}, {&kTool, "mcp", &kMcp}, {&kTool, "approve", &kApprove}, {&kStep, "agent", &kAgent},         {&kStep, "llm", &kLlm},
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
