#pragma once
// MCP 2026-07-28's custom parameter headers (SEP-2243): a tool's inputSchema may mark a property with
// `x-mcp-header: NAME`, and a client calling it over Streamable HTTP mirrors that argument into an
// `Mcp-Param-NAME` header, so that a gateway can route or meter the call without reading its body. A server that
// checks them refuses a call whose headers are missing or disagree with the body (HTTP 400, -32020).
#include <string>
#include <vector>

#include "engine/core/value.h"

namespace engine::tools::mcp {

struct HeaderParam {
  std::vector<std::string> path;  // the argument, by the property names that lead to it
  std::string name;               // the header's name after "Mcp-Param-"
  std::string type;               // string, integer or boolean: an argument of another kind gets no header
};

// The header parameters an inputSchema declares. `invalid` is set (and nothing returned) when a declaration breaks
// the rules (an annotation off the chain of `properties`, a name that is not an HTTP token, one given twice, one on
// a property that is not a string, an integer or a boolean): such a tool definition is invalid, and left out.
std::vector<HeaderParam> header_params(const Value& input_schema, std::string& invalid);

// The "Mcp-Param-NAME: VALUE" lines for a call's arguments: a missing or null argument gives none; a string that is
// not a plain printable ASCII field value (non-ASCII, control bytes, spaces at its ends, empty) goes as
// =?base64?...?=; integers in decimal, booleans as true or false; an argument not of its declared kind gets none.
std::vector<std::string> param_header_lines(const std::vector<HeaderParam>& params, const Value& arguments);

}  // namespace engine::tools::mcp
