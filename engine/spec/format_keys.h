#pragma once
// The keys each mapping of the workflow format accepts, each list defined beside the reader that reads it
// (section_readers.h). The loaders check files against these lists, and schema/workflow.schema.json describes the
// same mappings for editors: format_key_tables() names each list by its place in that schema, so a test holds the
// two together (a key one of them lacks fails it). A new key touches its reader's file and the schema.
#include <string>
#include <string_view>
#include <vector>

namespace engine::spec {

using KeyList = std::vector<std::string>;

namespace keys {
extern const KeyList kTop, kInput, kOutput, kLlm, kPrice, kScripted, kScriptedRule, kScriptedFail, kScriptedReply, kToolCall, kTool, kMcp, kApprove, kAllow, kHttpGrant, kFilesGrant,
    kLuaLimits, kAgent, kMessage, kMemory, kParserRegex, kParserJsonBlob, kParserKeyword, kKeywordRule, kParserLua,
    kTemplateOptions, kTemplateFile, kStep, kRetry, kTest, kTestDecision, kTestExpect, kTestFile;
}  // namespace keys

struct KeyTable {
  std::string_view schema_definition;  // "" for the schema's root (the workflow itself)
  const KeyList* keys;
};

// Every mapping of a workflow file (its tests included). A test file's own top level is not in the schema.
const std::vector<KeyTable>& format_key_tables();

// For a key `table` (read at `path`) does not take but the mapping one level up or down, or beside it, does:
// " (did you mean to indent it under llm?)", " (did you mean to outdent it? it is a key of the workflow)" or
// " (it is a key of agent)"; "" otherwise.
std::string misplaced_key_hint(const KeyList& table, const std::string& path, const std::string& key);

}  // namespace engine::spec
