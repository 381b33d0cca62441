#pragma once
// The keywords the engine checks itself rather than valijson (schema_check.h says why), as valijson constraint
// builders for the renamed keywords.
#include <valijson/schema_parser.hpp>

#include "engine/schema/schema.h"

namespace engine::schema {

// The steps one validation on this thread may still take (schema.h), and what may stop it; set by Schema::validate
// for the time of a validation.
struct ValidationBudget {
  size_t steps_left = 0;
  const Cancel* cancel = nullptr;
  bool exhausted = false;
};
class BudgetScope {
 public:
  explicit BudgetScope(ValidationBudget& budget);
  ~BudgetScope();
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;

 private:
  ValidationBudget* outer_;
};
// Thrown through valijson when the budget is spent, caught by Schema::validate.
struct BudgetSpent {};

// Gives `parser` the builders of the engine's keywords (it owns and deletes them).
void add_engine_constraints(valijson::SchemaParser& parser, const SchemaOptions& options);

}  // namespace engine::schema
