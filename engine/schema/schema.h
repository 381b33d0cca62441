#pragma once
// JSON Schema, draft 7, for tool parameters and structured answers: the keywords docs/schemas.md lists. A schema is
// checked and compiled once; a compiled Schema is immutable and validates from any thread.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/core/limits.h"
#include "engine/core/value.h"

namespace engine::schema {

// What is wrong, and where: a JSON pointer into the value validated (or into the schema, for a schema's own
// problems). "" is the whole value.
struct Violation {
  std::string pointer;
  std::string message;
};

// One step of a JSON pointer, with RFC 6901's escapes ("a/b" is "a~1b", "~" is "~0"), and back.
std::string pointer_token(std::string_view name);
std::string unescape_pointer_token(std::string_view token);

// "at /email: ...; at /age: ..." (the whole value reads "at the top"), for an observation or an error message.
std::string describe(const std::vector<Violation>& violations);

// How `pattern` is matched. The builder of a schema gives the engine's bounded regexes (parse/), so no unbounded
// regex engine ever sees text from outside. The compiler throws Error for a pattern it cannot compile; a matcher
// may throw Error when its limits stop a match (the value is then reported as not matching).
using Matcher = std::function<bool(std::string_view text)>;
using PatternCompiler = std::function<Matcher(const std::string& pattern)>;

struct SchemaOptions {
  PatternCompiler patterns;  // without one, `pattern` is an unsupported keyword
};

// Every problem that keeps `schema` from being one this module validates with: not a schema, a keyword unknown or
// unsupported, a value of the wrong type for its keyword, a $ref that is remote or leads nowhere, $refs that loop
// without ever reaching into the value. Empty when it is fine.
std::vector<Violation> check_schema(const Value& schema, const SchemaOptions& options = {});

class Schema {
 public:
  // Throws Error "schema.invalid" naming the first problem check_schema finds.
  static Schema compile(const Value& schema, const SchemaOptions& options = {});

  // Every violation of the schema by `value`; empty when it is valid. A value the schema cannot be checked against
  // within the step budget above is reported as a violation saying so (never taken as valid). `cancel`, when given,
  // is asked as the work goes: a stop throws as throw_stopped does.
  std::vector<Violation> validate(const Value& value, const Cancel* cancel = nullptr) const;
  const Value& json() const;  // the schema as written

 private:
  struct Impl;
  explicit Schema(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace engine::schema
