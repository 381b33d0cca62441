// JSON Schema: every violation with its pointer, a schema's own problems found before use, and values from outside
// (NULs, invalid UTF-8, catastrophic patterns, huge arrays) checked within bounds.
#include <catch2/catch.hpp>

#include <thread>

#include "engine/core/error.h"
#include "engine/parse/schema_patterns.h"
#include "engine/schema/schema.h"

using namespace engine;
using schema::Schema;

namespace {

schema::SchemaOptions with_patterns() { return schema::SchemaOptions{parse::schema_patterns()}; }

std::string violations(const Value& schema, const Value& value) {
  return schema::describe(Schema::compile(schema, with_patterns()).validate(value));
}

std::string problems(const Value& schema, const schema::SchemaOptions& options = with_patterns()) {
  return schema::describe(schema::check_schema(schema, options));
}

const Value kContact = Value::parse(R"({
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "email": {"type": "string", "pattern": "^[^@ ]+@[^@ ]+$"},
    "age": {"type": "integer", "minimum": 0},
    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
  },
  "required": ["name", "email"],
  "additionalProperties": false
})");

}  // namespace

TEST_CASE("a valid value has no violations", "[schema]") {
  Schema s = Schema::compile(kContact, with_patterns());
  CHECK(s.validate(Value{{"name", "Ada"}, {"email", "ada@example.com"}, {"tags", {"a", "b"}}}).empty());
  CHECK(s.json() == kContact);
}

TEST_CASE("every violation is reported with the JSON pointer of where it is", "[schema]") {
  CHECK(violations(kContact, Value{{"name", ""}, {"age", -1}, {"tags", {"a", 1, "a"}}, {"extra", true}}) ==
        "at /age: must be at least 0; at /name: must be at least 1 characters long (it is 0); "
        "at /tags/1: has a type the schema does not allow (an integer); "
        "at /tags: must not repeat items: 0 and 2 are equal (uniqueItems); at /extra: is not allowed here; "
        "at /email: is required");
  CHECK(violations(kContact, Value{{"name", "Ada"}, {"email", "not an address"}}) ==
        "at /email: does not match the pattern '^[^@ ]+@[^@ ]+$'");
  CHECK(violations(Value{{"type", "object"}, {"properties", {{"a/b~c", {{"type", "string"}}}}}}, Value{{"a/b~c", 1}}) ==
        "at /a~1b~0c: has a type the schema does not allow (an integer)");
}

TEST_CASE("a schema's own problems are found before use, each with its pointer", "[schema]") {
  CHECK(problems(Value{{"type", "object"}, {"requried", {"a"}}}) ==
        "at /requried: unknown keyword 'requried' (did you mean 'required'?) (extensions are written x-name)");
  CHECK(problems(Value{{"type", "object"}, {"x-ui", {{"widget", "text"}}}}).empty());
  CHECK(problems(Value{{"patternProperties", {{"^a", true}}}}) ==
        "at /patternProperties: unsupported keyword 'patternProperties' (its regexes would run on names from outside "
        "with an unbounded engine)");
  CHECK(problems(Value{{"$ref", "https://example.com/s.json"}}) ==
        "at /$ref: unsupported remote $ref 'https://example.com/s.json': only references inside the schema "
        "(#/definitions/x)");
  CHECK(problems(Value{{"properties", {{"a", {{"$ref", "#/definitions/nope"}}}}}}) ==
        "at /properties/a/$ref: $ref '#/definitions/nope' does not point at a schema in this document");
  CHECK(problems(Value{{"type", "text"}, {"minLength", -1}, {"required", {"a", "a"}}, {"properties", {1, 2}}}) ==
        "at /type: 'type' must be one of null, boolean, object, array, number, string, integer, or an array of them; "
        "at /minLength: 'minLength' must be a whole number, 0 or more; at /required: 'required' names 'a' twice; "
        "at /properties: 'properties' must be an object of schemas by name");
  CHECK(problems(Value{{"items", "string"}}) == "at /items: a schema must be an object or true/false, not a string");
  CHECK(problems(Value{{"pattern", "("}}) ==
        "at /pattern: the pattern does not compile: invalid regex: missing closing parenthesis at offset 1");
  CHECK(problems(Value{{"pattern", "a"}}, {}) ==
        "at /pattern: unsupported keyword 'pattern' (no regex engine was given to this schema)");
  CHECK_THROWS_WITH(Schema::compile(Value{{"type", "objekt"}}),
                    "invalid schema: at /type: 'type' must be one of null, boolean, object, array, number, string, "
                    "integer, or an array of them");
  try {
    Schema::compile(Value{{"minItems", "2"}});
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::SchemaInvalid);
  }
}

TEST_CASE("$refs that loop without reaching into the value are refused, recursion through the value is fine",
          "[schema]") {
  CHECK(problems(Value{{"$ref", "#"}}) ==
        "at the top: the schema refers to itself without reaching into the value: # -> #");
  CHECK(problems(Value::parse(R"({"definitions": {"a": {"allOf": [{"$ref": "#/definitions/b"}]},
                                                    "b": {"not": {"$ref": "#/definitions/a"}}},
                                  "$ref": "#/definitions/a"})")) ==
        "at /definitions/a: the schema refers to itself without reaching into the value: "
        "#/definitions/a -> #/definitions/a/allOf/0 -> #/definitions/b -> #/definitions/b/not -> #/definitions/a");
  Value tree = Value::parse(R"({"$defs": {"node": {"type": "object", "properties": {
      "value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
    "$ref": "#/$defs/node"})");
  CHECK(problems(tree).empty());
  CHECK(violations(tree, Value::parse(R"({"value": 1, "children": [{"value": 2, "children": [{"value": "x"}]}]})")) ==
        "at /children/0/children/0/value: has a type the schema does not allow (a string)");
}

TEST_CASE("true, false and annotations are schemas, and format is an annotation, not checked", "[schema]") {
  CHECK(violations(true, 1).empty());
  CHECK(violations(false, 1) == "at the top: is not allowed here");
  CHECK(violations(Value{{"properties", {{"a", false}}}}, Value{{"a", 1}}) == "at /a: is not allowed here");
  CHECK(violations(Value{{"type", "string"}, {"format", "email"}, {"title", "t"}, {"$comment", "c"}}, "x").empty());
}

TEST_CASE("lengths count characters, NULs and invalid UTF-8 included, never reading a C string", "[schema][hostile]") {
  Value max2{{"type", "string"}, {"maxLength", 2}};
  CHECK(violations(max2, "日本").empty());
  CHECK(violations(max2, std::string("a\0b", 3)) == "at the top: must be at most 2 characters long (it is 3)");
  CHECK(violations(max2, std::string("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80", 10)).empty());  // continuation bytes only
  CHECK(violations(Value{{"minLength", 3}}, std::string("\0\0\0", 3)).empty());
}

TEST_CASE("a catastrophic pattern on a long value stops at the regex limits and is a violation", "[schema][hostile]") {
  std::string text(30000, 'a');
  text += "!";
  std::string v = violations(Value{{"pattern", "^(a+)+$"}}, text);
  CHECK(v ==
        "at the top: could not be matched against the pattern '^(a+)+$': regex gave up on a 30001-byte text: match limit exceeded (the pattern backtracks too much)");
}

TEST_CASE("uniqueItems on a huge array is a violation, not a quadratic wait", "[schema][hostile]") {
  Value many = Value::array();
  for (int i = 0; i < 100000; ++i) many.push_back(i);
  CHECK(violations(Value{{"uniqueItems", true}}, many) ==
        "at the top: has 100000 items, more than the 2000 whose uniqueness can be checked (uniqueItems)");
  CHECK(violations(Value{{"uniqueItems", false}}, many).empty());
  Value some = Value::array();
  for (int i = 0; i < 2000; ++i) some.push_back({{"id", i}});
  CHECK(violations(Value{{"uniqueItems", true}}, some).empty());
}

TEST_CASE("one compiled schema validates from many threads", "[schema]") {
  Schema s = Schema::compile(kContact, with_patterns());
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        bool good = s.validate(Value{{"name", "Ada"}, {"email", "ada@example.com"}}).empty();
        bool bad = s.validate(Value{{"name", "Ada"}, {"email", "nope"}}).size() == 1;
        if (!good || !bad) ++failures[t];
      }
    });
  for (auto& t : threads) t.join();
  CHECK(failures == std::vector<int>(4, 0));
}

TEST_CASE("violations are in plain words, bounds as written", "[schema]") {
  CHECK(violations(Value{{"enum", {"a", "b"}}}, "c") == "at the top: is not one of the allowed values (enum)");
  CHECK(violations(Value{{"const", 3}}, 4) == "at the top: is not the value the schema requires (const)");
  CHECK(violations(Value{{"anyOf", {{{"type", "string"}}, {{"type", "null"}}}}}, 1) ==
        "at the top: has a type the schema does not allow (an integer); "
        "at the top: matches none of the allowed schemas (anyOf)");
  CHECK(violations(Value{{"oneOf", {{{"minimum", 1}}, {{"maximum", 5}}}}}, 3) ==
        "at the top: must match exactly one of the schemas (oneOf)");
  CHECK(violations(Value{{"exclusiveMinimum", 2.5}}, 2.5) == "at the top: must be more than 2.5");
  CHECK(violations(Value{{"maximum", 10}}, 11) == "at the top: must be at most 10");
  CHECK(violations(Value{{"exclusiveMaximum", 10}}, 10) == "at the top: must be less than 10");
  CHECK(violations(Value{{"multipleOf", 3}}, 7) == "at the top: must be a multiple of 3");
  CHECK(violations(Value{{"minItems", 2}}, Value::array()) == "at the top: must have at least 2 items");
  CHECK(violations(Value{{"maxProperties", 1}}, Value{{"a", 1}, {"b", 2}}) == "at the top: must have at most 1 properties");
  CHECK(violations(Value{{"dependencies", {{"card", {"billing"}}}}}, Value{{"card", 1}}) ==
        "at /billing: is required by another property (dependencies)");
  CHECK(violations(Value{{"type", "integer"}}, Value(nullptr)) == "at the top: has a type the schema does not allow (null)");
  CHECK(violations(Value{{"propertyNames", {{"maxLength", 2}}}}, Value{{"abc", 1}}) == "at the top: does not match the schema");
}

TEST_CASE("a pattern checked against text that is not UTF-8 is a violation, not a crash", "[schema][hostile]") {
  // The engine's regexes read invalid UTF-8 as bytes that match nothing but themselves.
  CHECK(violations(Value{{"pattern", "^a"}}, std::string("a\xff\xfe", 3)).empty());
  CHECK(violations(Value{{"pattern", "^a"}}, std::string("b\xff", 2)) == "at the top: does not match the pattern '^a'");
}

// 40 definitions, each the allOf of two references to the next: no loop, but 2^40 subschemas applied to one value.
// The work of a validation is bounded (schema.h): past it, the value is reported as not checked, never as valid.
TEST_CASE("$refs that branch without looping are checked within the step budget, and a cancel stops them",
          "[schema][hostile]") {
  Value schema{{"definitions", Value::object()}, {"$ref", "#/definitions/d0"}};
  for (int i = 0; i < 40; ++i) {
    std::string next = "#/definitions/d" + std::to_string(i + 1);
    schema["definitions"]["d" + std::to_string(i)] = {{"allOf", {{{"$ref", next}}, {{"$ref", next}}}}};
  }
  schema["definitions"]["d40"] = {{"type", "integer"}};
  Schema compiled = Schema::compile(schema, with_patterns());
  CHECK(schema::describe(compiled.validate(Value(7))) ==
        "at the top: could not be checked: the schema takes more than 1000064 steps for this value (its $refs "
        "branch too much)");
  CHECK(!compiled.validate(Value("x")).empty());  // a value that fails is never valid, checked in full or not
  Cancel cancel;
  cancel.cancel();
  std::string kind;
  try {
    compiled.validate(Value(7), &cancel);
  } catch (const Error& e) {
    kind = e.kind_name();
  }
  CHECK(kind == "run.cancelled");
  // A schema of ordinary size checks a large value in full: the budget grows with the value.
  Value list = Value::array();
  for (int i = 0; i < 200000; ++i) list.push_back(i);
  CHECK(violations(Value{{"type", "array"}, {"items", {{"type", "integer"}, {"minimum", 0}}}}, list).empty());
}
