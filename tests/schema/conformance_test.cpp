// The official JSON-Schema-Test-Suite (Debian's json-schema-test-suite), draft 7, through the schema module. A
// group whose schema uses a keyword the module does not support (docs/schemas.md) must be refused when checked;
// every other case must give the suite's verdict.
#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>
#include <map>

#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/parse/schema_patterns.h"
#include "engine/schema/schema.h"

using namespace engine;

namespace {

struct Tally {
  int passed = 0;
  int refused_groups = 0;
  int refused_cases = 0;
  std::vector<std::string> failures;
};

void run_file(const std::filesystem::path& file, Tally& tally) {
  schema::SchemaOptions options{parse::schema_patterns()};
  Value groups = parse_json(read_file(file));
  for (const auto& group : groups) {
    std::string where = file.filename().string() + ": " + group["description"].get<std::string>();
    if (auto problems = schema::check_schema(group["schema"], options); !problems.empty()) {
      if (getenv("SHOW_REFUSED")) std::cout << where << ": " << schema::describe(problems) << "\n";
      ++tally.refused_groups;
      tally.refused_cases += static_cast<int>(group["tests"].size());
      continue;
    }
    schema::Schema s = schema::Schema::compile(group["schema"], options);
    for (const auto& test : group["tests"]) {
      bool valid = s.validate(test["data"]).empty();
      if (valid == test["valid"].get<bool>()) ++tally.passed;
      else tally.failures.push_back(where + ": " + test["description"].get<std::string>());
    }
  }
}

}  // namespace

TEST_CASE("the draft-7 JSON-Schema-Test-Suite passes for every supported keyword", "[schema][conformance]") {
  std::filesystem::path dir = JSON_SCHEMA_TEST_SUITE "/tests/draft7";
  REQUIRE(std::filesystem::is_directory(dir));
  Tally tally;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) run_file(f, tally);
  for (const auto& f : tally.failures) UNSCOPED_INFO(f);
  std::cout << "JSON-Schema-Test-Suite draft 7: " << tally.passed << " cases pass, " << tally.failures.size()
            << " fail; " << tally.refused_groups << " groups (" << tally.refused_cases
            << " cases) refused for an unsupported keyword\n";
  CHECK(tally.failures.empty());
  CHECK(tally.passed > 0);
}
