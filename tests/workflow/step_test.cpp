// Cycles in a graph of steps are found with their path, in the order data flows.
#include <catch2/catch.hpp>

#include "engine/workflow/step.h"

using namespace engine;
using engine::workflow::Step;

namespace {

std::vector<Step> graph_of(const std::vector<std::vector<size_t>>& reads) {
  std::vector<Step> steps;
  for (size_t i = 0; i < reads.size(); ++i) steps.push_back(Step{std::string(1, char('a' + i)), StepKind::Template, nullptr, {}, reads[i]});
  return steps;
}

std::string cycle_names(const std::vector<Step>& steps) {
  std::string out;
  for (size_t i : workflow::find_cycle(steps)) out += (out.empty() ? "" : " -> ") + steps[i].name;
  return out;
}

}  // namespace

TEST_CASE("cycles: none in a graph that flows one way, its path when there is one", "[workflow]") {
  CHECK(cycle_names(graph_of({{}, {0}, {0, 1}})).empty());               // a -> b, a -> c, b -> c
  CHECK(cycle_names(graph_of({{1}, {0}})) == "a -> b -> a");             // a reads b, b reads a
  CHECK(cycle_names(graph_of({{}, {2}, {3}, {1}})) == "b -> d -> c -> b");  // b reads c, c reads d, d reads b
  CHECK(cycle_names(graph_of({{0}})) == "a -> a");
}
