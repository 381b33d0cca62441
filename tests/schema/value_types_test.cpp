// JSON Schema's types of single values: what a value is, and a text read as a declared type.
#include <catch2/catch.hpp>

#include "engine/schema/value_types.h"

using namespace engine;
using namespace engine::schema;

TEST_CASE("value types: a value's type, an integer counted as a number too", "[schema][types]") {
  CHECK(std::string(value_type(Value(3))) == "integer");
  CHECK(std::string(value_type(Value(2.0))) == "integer");  // as JSON Schema counts it
  CHECK(std::string(value_type(Value(2.5))) == "number");
  CHECK(std::string(value_type(Value("3"))) == "string");
  CHECK(std::string(value_type(Value(nullptr))) == "null");
  CHECK(std::string(value_type(Value::array())) == "array");
  CHECK(std::string(value_type(Value::object())) == "object");
  CHECK(has_value_type(Value(3), "number"));
  CHECK_FALSE(has_value_type(Value(2.5), "integer"));
  CHECK_FALSE(has_value_type(Value("true"), "boolean"));
}

TEST_CASE("value types: a text is read as JSON of the declared type, or not at all", "[schema][types]") {
  CHECK(read_as_type("42", "integer") == Value(42));
  CHECK(read_as_type(" 4.5 ", "number") == Value(4.5));
  CHECK(read_as_type("true", "boolean") == Value(true));
  CHECK(read_as_type("[1, \"a\"]", "array") == Value::array({1, "a"}));
  CHECK(read_as_type("{\"k\": 1}", "object") == Value{{"k", 1}});
  CHECK_FALSE(read_as_type("4.5", "integer"));
  CHECK_FALSE(read_as_type("ten", "integer"));
  CHECK_FALSE(read_as_type("yes", "boolean"));
  CHECK_FALSE(read_as_type("\"x\"", "string"));  // a string needs no reading
  CHECK_FALSE(read_as_type(std::string(200, '[') , "array"));  // deeper than JSON may nest here
  CHECK(with_article("integer") == "an integer");
  CHECK(with_article("string") == "a string");
}
