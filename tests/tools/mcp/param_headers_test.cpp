// SEP-2243's custom parameter headers: which x-mcp-header declarations are valid, and how arguments become
// Mcp-Param-* lines (plain, or Base64 for what a header cannot carry as it is).
#include <catch2/catch.hpp>

#include "engine/tools/mcp/param_headers.h"

using namespace engine;
using namespace engine::tools::mcp;

namespace {

std::string invalid_of(const Value& schema) {
  std::string invalid;
  auto params = header_params(schema, invalid);
  CHECK(params.empty());
  return invalid;
}

}  // namespace

TEST_CASE("param headers: declarations along properties at any depth, and their lines", "[tools][mcp]") {
  Value schema = Value::parse(R"({"type": "object", "properties": {
      "region": {"type": "string", "x-mcp-header": "Region"},
      "target": {"type": "object", "properties": {"id": {"type": "integer", "x-mcp-header": "Target-Id"},
                                                  "dry": {"type": "boolean", "x-mcp-header": "Dry"}}},
      "note": {"type": "string"}}})");
  std::string invalid;
  auto params = header_params(schema, invalid);
  CHECK(invalid.empty());
  REQUIRE(params.size() == 3);
  auto lines = param_header_lines(params, Value::parse(R"({"region": "eu-west-1", "target": {"id": 42, "dry": false}})"));
  CHECK(lines == std::vector<std::string>{"Mcp-Param-Region: eu-west-1", "Mcp-Param-Target-Id: 42", "Mcp-Param-Dry: false"});
  // Missing or null: no header. Not plain (non-ASCII, a line break, spaces at an end, empty, the sentinel's own
  // form): Base64 of its UTF-8.
  CHECK(param_header_lines(params, Value::parse(R"({"region": null})")).empty());
  CHECK(param_header_lines(params, Value::parse(R"({"region": "Zürich"})")) ==
        std::vector<std::string>{"Mcp-Param-Region: =?base64?WsO8cmljaA==?="});
  CHECK(param_header_lines(params, Value::parse(R"({"region": "a\r\nX-Evil: 1"})")) ==
        std::vector<std::string>{"Mcp-Param-Region: =?base64?YQ0KWC1FdmlsOiAx?="});
  CHECK(param_header_lines(params, Value::parse(R"({"region": " x"})")) ==
        std::vector<std::string>{"Mcp-Param-Region: =?base64?IHg=?="});
  CHECK(param_header_lines(params, Value::parse(R"({"region": ""})")) ==
        std::vector<std::string>{"Mcp-Param-Region: =?base64?" "?="});
  // A value of another kind than declared goes without a header rather than malformed.
  CHECK(param_header_lines(params, Value::parse(R"({"target": {"id": "forty-two"}})")).empty());
  CHECK(param_header_lines(params, Value::parse(R"({"target": {"dry": "no"}})")).empty());
}

TEST_CASE("param headers: a declaration off the properties chain, of a wrong type, twice or not a token is invalid",
          "[tools][mcp][hostile]") {
  CHECK(invalid_of(Value::parse(R"({"type": "object", "properties": {"xs": {"type": "array",
      "items": {"type": "string", "x-mcp-header": "X"}}}})")) ==
        "x-mcp-header on 'xs' is not on a property reached through 'properties' alone");
  CHECK(invalid_of(Value::parse(R"({"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}})")) ==
        "x-mcp-header on 'n' is on a property of type 'number' (string, integer or boolean only)");
  CHECK(invalid_of(Value::parse(R"({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Same"},
      "b": {"type": "string", "x-mcp-header": "same"}}})")) == "x-mcp-header 'same' is declared twice");
  CHECK(invalid_of(Value::parse(R"({"type": "object", "properties": {"a": {"type": "string",
      "x-mcp-header": "Bad Name\r\n"}}})")) == "x-mcp-header on 'a' is not an HTTP token");
  CHECK(invalid_of(Value::parse(R"({"type": "object", "x-mcp-header": "Root"})")) ==
        "x-mcp-header on the schema is not on a property reached through 'properties' alone");
  // A default that happens to hold the key is data, not a declaration.
  std::string invalid;
  header_params(Value::parse(R"({"type": "object", "default": {"x-mcp-header": "X"}})"), invalid);
  CHECK(invalid.empty());
}
