#include "engine/schema/schema.h"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "engine/core/error.h"
#include "engine/core/limits.h"
#include "engine/schema/engine_constraints.h"
#include "engine/schema/messages.h"
#include "engine/schema/schema_check.h"

namespace engine::schema {
namespace {

// valijson names a place as {"<root>", "[address]", "[0]"}; a JSON pointer is "/address/0".
std::string pointer_of(const std::vector<std::string>& context) {
  std::string out;
  for (size_t i = 1; i < context.size(); ++i) {
    std::string_view part = context[i];
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']') part = part.substr(1, part.size() - 2);
    out += "/" + pointer_token(part);
  }
  return out;
}

// valijson reports a failed property or item twice: the failure itself, and a summary at its parent ("Failed to
// validate against schema associated with property name 'x'"). The summaries say nothing the failures do not.
bool is_summary(const std::string& message) {
  static const char* const kSummaries[] = {
      "Failed to validate against schema associated with property name",
      "Failed to validate item #",
      "Failed to validate against additional properties schema",
      "Failed to validate against child schema #",
      "Failed to validate against dependent schema",
  };
  for (const char* s : kSummaries)
    if (message.rfind(s, 0) == 0) return true;
  return false;
}

// How many values `v` holds, itself included.
size_t value_nodes(const Value& v) {
  size_t n = 1;
  if (v.is_structured())
    for (const auto& child : v) n += value_nodes(child);
  return n;
}

size_t budget_of(const Value& v) { return limits::kValidationSteps + limits::kValidationStepsPerNode * value_nodes(v); }

}  // namespace

struct Schema::Impl {
  Value json;
  valijson::Schema compiled;
};

std::string describe(const std::vector<Violation>& violations) {
  std::string out;
  for (const auto& v : violations) {
    if (!out.empty()) out += "; ";
    out += (v.pointer.empty() ? std::string("at the top") : "at " + v.pointer) + ": " + v.message;
  }
  return out;
}

std::vector<Violation> check_schema(const Value& schema, const SchemaOptions& options) {
  return check_and_rewrite(schema, options).problems;
}

Schema Schema::compile(const Value& schema, const SchemaOptions& options) {
  CheckedSchema checked = check_and_rewrite(schema, options);
  if (!checked.problems.empty()) throw Error(ErrorKind::SchemaInvalid, "invalid schema: " + describe({checked.problems[0]}));
  auto impl = std::make_shared<Impl>();
  impl->json = schema;
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  add_engine_constraints(parser, options);
  valijson::adapters::NlohmannJsonAdapter adapter(checked.rewritten);
  try {
    parser.populateSchema(adapter, impl->compiled);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(ErrorKind::SchemaInvalid, std::string("invalid schema: ") + e.what());
  }
  return Schema(std::move(impl));
}

std::vector<Violation> Schema::validate(const Value& value, const Cancel* cancel) const {
  nlohmann::json target = value;  // valijson's adapter reads nlohmann::json, the engine's Value keeps key order
  valijson::Validator validator;
  valijson::ValidationResults results;
  std::vector<Violation> out;
  ValidationBudget budget{budget_of(value), cancel};
  try {
    BudgetScope scope(budget);
    if (validator.validate(impl_->compiled, valijson::adapters::NlohmannJsonAdapter(target), &results)) return out;
  } catch (const BudgetSpent&) {
    out.push_back({"", "could not be checked: the schema takes more than " + std::to_string(budget_of(value)) +
                           " steps for this value (its $refs branch too much)"});
    return out;
  }
  valijson::ValidationResults::Error error;
  std::vector<Violation> summaries;
  while (results.popError(error)) {
    Violation v{pointer_of(error.context), error.description};
    if (is_summary(v.message)) {
      summaries.push_back(std::move(v));
      continue;
    }
    v = plain_violation(std::move(v), value);
    // The branches of an anyOf often fail alike: once is enough.
    bool repeated = false;
    for (const auto& o : out) repeated = repeated || (o.pointer == v.pointer && o.message == v.message);
    if (!repeated) out.push_back(std::move(v));
  }
  if (out.empty()) out = std::move(summaries);
  // Some keywords (propertyNames) fail without saying why.
  if (out.empty()) out.push_back({"", "does not match the schema"});
  return out;
}

const Value& Schema::json() const { return impl_->json; }

}  // namespace engine::schema
