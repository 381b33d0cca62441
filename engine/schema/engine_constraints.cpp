#include "engine/schema/engine_constraints.h"

#include <memory>

#include <valijson/constraints/concrete_constraints.hpp>
#include <valijson/internal/adapter.hpp>
#include <valijson/internal/frozen_value.hpp>
#include <valijson/validation_results.hpp>

#include "engine/core/error.h"
#include "engine/core/limits.h"
#include "engine/core/utf8.h"
#include "engine/schema/schema_check.h"

namespace engine::schema {
namespace {

using valijson::ValidationResults;
using valijson::adapters::Adapter;
using Context = std::vector<std::string>;

// Characters as JSON Schema counts them (code points): every byte that does not continue a UTF-8 sequence. Text
// with a NUL or invalid UTF-8 is counted all the same, never read as a C string.
size_t code_points(const std::string& s) { return utf8::count(s); }

template <class Derived>
class EngineConstraint : public valijson::constraints::PolyConstraint {
 private:
  Constraint* cloneInto(void* p) const override { return new (p) Derived(static_cast<const Derived&>(*this)); }
  size_t sizeOf() const override { return sizeof(Derived); }
};

bool report(ValidationResults* results, const Context& context, const std::string& message) {
  if (results) results->pushError(context, message);
  return false;
}

class PatternConstraint : public EngineConstraint<PatternConstraint> {
 public:
  PatternConstraint(std::string pattern, Matcher matcher) : pattern_(std::move(pattern)), matcher_(std::move(matcher)) {}
  bool validate(const Adapter& target, const Context& context, ValidationResults* results) const override {
    if (!target.isString()) return true;
    try {
      if (matcher_(target.getString())) return true;
    } catch (const Error& e) {
      return report(results, context, "could not be matched against the pattern '" + pattern_ + "': " + e.message());
    }
    return report(results, context, "does not match the pattern '" + pattern_ + "'");
  }

 private:
  std::string pattern_;
  Matcher matcher_;
};

class LengthConstraint : public EngineConstraint<LengthConstraint> {
 public:
  LengthConstraint(size_t bound, bool is_max) : bound_(bound), is_max_(is_max) {}
  bool validate(const Adapter& target, const Context& context, ValidationResults* results) const override {
    if (!target.isString()) return true;
    size_t n = code_points(target.getString());
    if (is_max_ ? n <= bound_ : n >= bound_) return true;
    return report(results, context, std::string(is_max_ ? "must be at most " : "must be at least ") +
                                        std::to_string(bound_) + " characters long (it is " + std::to_string(n) + ")");
  }

 private:
  size_t bound_;
  bool is_max_;
};

class UniqueItemsConstraint : public EngineConstraint<UniqueItemsConstraint> {
 public:
  bool validate(const Adapter& target, const Context& context, ValidationResults* results) const override {
    if (!target.isArray()) return true;
    size_t size = target.getArraySize();
    if (size > limits::kUniqueItems)
      return report(results, context, "has " + std::to_string(size) + " items, more than the " +
                                          std::to_string(limits::kUniqueItems) + " whose uniqueness can be checked (uniqueItems)");
    std::vector<std::unique_ptr<valijson::adapters::FrozenValue>> seen;
    size_t first = 0, second = 0;
    bool unique = true;
    target.applyToArray([&](const Adapter& item) {
      for (size_t i = 0; i < seen.size(); ++i)
        if (seen[i]->equalTo(item, true)) {
          first = i;
          second = seen.size();
          unique = false;
          return false;
        }
      seen.emplace_back(item.freeze());
      return true;
    });
    if (unique) return true;
    return report(results, context, "must not repeat items: " + std::to_string(first) + " and " +
                                        std::to_string(second) + " are equal (uniqueItems)");
  }
};

size_t count_of(const Adapter& value) {
  double d = 0;
  value.asDouble(d);
  return static_cast<size_t>(d);
}

thread_local ValidationBudget* current_budget = nullptr;

// One step of the budget each time valijson applies a subschema (schema_check.h puts it in every one).
class StepConstraint : public EngineConstraint<StepConstraint> {
 public:
  bool validate(const Adapter&, const Context&, ValidationResults*) const override {
    ValidationBudget* b = current_budget;
    if (!b) return true;
    if (b->steps_left == 0) {
      b->exhausted = true;
      throw BudgetSpent{};
    }
    --b->steps_left;
    if (b->cancel && (b->steps_left & 4095) == 0 && b->cancel->stopped()) throw_stopped(*b->cancel);
    return true;
  }
};

class StepBuilder : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const Adapter&) const override { return new StepConstraint(); }
};

class PatternBuilder : public valijson::ConstraintBuilder {
 public:
  explicit PatternBuilder(PatternCompiler compile) : compile_(std::move(compile)) {}
  valijson::constraints::Constraint* make(const Adapter& value) const override {
    std::string pattern = value.getString();
    return new PatternConstraint(pattern, compile_(pattern));
  }

 private:
  PatternCompiler compile_;
};

class LengthBuilder : public valijson::ConstraintBuilder {
 public:
  explicit LengthBuilder(bool is_max) : is_max_(is_max) {}
  valijson::constraints::Constraint* make(const Adapter& value) const override {
    return new LengthConstraint(count_of(value), is_max_);
  }

 private:
  bool is_max_;
};

class UniqueItemsBuilder : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const Adapter& value) const override {
    // uniqueItems: false asks for nothing: a constraint that always holds
    if (!value.asBool()) return new LengthConstraint(0, false);
    return new UniqueItemsConstraint();
  }
};

}  // namespace

void add_engine_constraints(valijson::SchemaParser& parser, const SchemaOptions& options) {
  if (options.patterns) parser.addConstraintBuilder(kEnginePattern, new PatternBuilder(options.patterns));
  parser.addConstraintBuilder(kEngineMinLength, new LengthBuilder(false));
  parser.addConstraintBuilder(kEngineMaxLength, new LengthBuilder(true));
  parser.addConstraintBuilder(kEngineUniqueItems, new UniqueItemsBuilder());
  parser.addConstraintBuilder(kEngineStep, new StepBuilder());
}

BudgetScope::BudgetScope(ValidationBudget& budget) : outer_(current_budget) { current_budget = &budget; }
BudgetScope::~BudgetScope() { current_budget = outer_; }

}  // namespace engine::schema
