#pragma once
// The built-in tools that reach the world under the grants beside them (`- builtin: read_file` with `allow:`):
// http_request and fetch on an http grant; read_file, write_file, list_files, search_files and search_docs (ranked
// document search, document_search.h) on a files grant.
// Each declares a JSON Schema of its arguments, so tool-calling models use it well, and describes what its grants
// open, so the model knows where it may go (docs/tools.md).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/tools/capabilities.h"
#include "engine/tools/tool.h"

namespace engine::tools {

struct GrantedToolOptions {
  std::string name;         // default: the built-in's own
  std::string description;  // default: its own, with what the grants open
  Capabilities capabilities;
  std::chrono::milliseconds timeout{30'000};  // a call's time, its waits for servers included
  schema::SchemaOptions schema_options;       // its patterns are also search_files' regexes
  std::string index_file;                     // search_docs: where its index is kept (document_search.h)
};

// nullptr when `builtin` is not one of these. Throws Error "spec.missing_grant" when the grant it needs is not
// given (the message says which: allow: http: or allow: files:).
std::shared_ptr<const Tool> make_granted_tool(const std::string& builtin, GrantedToolOptions options);
const std::vector<std::string>& granted_tool_names();

}  // namespace engine::tools
