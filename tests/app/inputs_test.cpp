// Inputs from the command line: NAME=value to a declared input, a bare value to the single one; a NAME that is no
// input's is an error naming the nearest, never text given to the only input; one input given twice is an error.
#include <catch2/catch.hpp>

#include "engine/app/inputs.h"
#include "engine/app/loading.h"
#include "engine/core/error.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// The error given_inputs throws for `pairs` on `workflow` ("no error" when none), its kind in `kind`.
std::string inputs_error(const std::string& workflow, std::vector<std::string> pairs, std::string* kind = nullptr) {
  auto executor = app::load_executor(test::source_path(workflow));
  try {
    app::given_inputs(*executor, app::GivenInputs{std::move(pairs), ""});
  } catch (const Error& e) {
    if (kind) *kind = e.kind_name();
    return e.message();
  }
  return "no error";
}

Value inputs_of(const std::string& workflow, std::vector<std::string> pairs) {
  auto executor = app::load_executor(test::source_path(workflow));
  return app::given_inputs(*executor, app::GivenInputs{std::move(pairs), ""});
}

}  // namespace

TEST_CASE("inputs: a declared name takes its value, a bare value or text with spaces before '=' the single input",
          "[app][inputs]") {
  CHECK(inputs_of("workflows/calculator.yaml", {"input=2+2"}) == Value{{"input", "2+2"}});
  CHECK(inputs_of("workflows/calculator.yaml", {"What is 2+2?"}) == Value{{"input", "What is 2+2?"}});
  CHECK(inputs_of("workflows/calculator.yaml", {"What is y = 2 + 2?"}) == Value{{"input", "What is y = 2 + 2?"}});
  CHECK(inputs_of("workflows/calculator.yaml", {"input=x=5"}) == Value{{"input", "x=5"}});
}

TEST_CASE("inputs: a name that is no input's is an error with the nearest name and how to give it as text",
          "[app][inputs]") {
  std::string kind;
  CHECK(inputs_error("workflows/calculator.yaml", {"inptu=2+2"}, &kind) ==
        "--input 'inptu=2+2': the workflow has no input 'inptu' (did you mean 'input'?); to give the whole text to "
        "'input', write --input 'input=inptu=2+2'");
  CHECK(kind == "input.unknown");
  CHECK(inputs_error("workflows/calculator.yaml", {"questoin=what is 2+2"}) ==
        "--input 'questoin=what is 2+2': the workflow has no input 'questoin' (its inputs: input); to give the whole "
        "text to 'input', write --input 'input=questoin=what is 2+2'");
}

TEST_CASE("inputs: one input given twice, by name or bare, is an error", "[app][inputs]") {
  std::string kind;
  CHECK(inputs_error("workflows/calculator.yaml", {"1+1", "input=2+2"}, &kind) ==
        "--input 'input=2+2' gives the input 'input' a second time; give each input once");
  CHECK(kind == "input.duplicate");
  CHECK(inputs_error("workflows/calculator.yaml", {"input=1", "input=2"}) ==
        "--input 'input=2' gives the input 'input' a second time; give each input once");
}
