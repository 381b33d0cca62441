// Each bound in core/limits.h is told to users: the page kDocumented names says it, in words that hold its value.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>
#include <set>

#include "engine/core/file.h"
#include "engine/core/limits.h"
#include "support/test_support.h"

using namespace engine;

namespace {

// The values `words` states: "16 MiB", "256 MB", "8 KB", "1,000,000", "2^62", "86400 s", "64".
std::vector<double> stated_values(const std::string& words) {
  std::vector<double> values;
  static const std::regex kNumber(R"((\d[\d,]*)(?:\^(\d+))?(?:\s*(MiB|MB|KiB|KB)\b)?)");
  for (std::sregex_iterator it(words.begin(), words.end(), kNumber), end; it != end; ++it) {
    std::string digits = (*it)[1];
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    double v = std::stod(digits);
    if ((*it)[2].matched) v = std::pow(v, std::stod((*it)[2]));
    std::string unit = (*it)[3];
    if (unit == "MiB" || unit == "MB") v *= 1 << 20;
    if (unit == "KiB" || unit == "KB") v *= 1 << 10;
    values.push_back(v);
  }
  return values;
}

}  // namespace

TEST_CASE("limits: the words a page uses state a value the way it is read", "[core][limits]") {
  CHECK(stated_values("| 16 MiB, regular files") == std::vector<double>{16.0 * (1 << 20)});
  CHECK(stated_values("10,000 files and 256 MB") == std::vector<double>{10000, 256.0 * (1 << 20)});
  CHECK(stated_values("a row index up to 2^62") == std::vector<double>{std::pow(2.0, 62)});
}

TEST_CASE("limits: every bound is told on the page that names it, with its value", "[core][limits]") {
  for (const limits::Documented& d : limits::kDocumented) {
    INFO(d.name << " on docs/" << d.page << ": " << d.words);
    std::string page = read_file(test::source_path(std::string("docs/") + d.page));
    CHECK(page.find(d.words) != std::string::npos);
    std::vector<double> stated = stated_values(d.words);
    CHECK(std::find(stated.begin(), stated.end(), d.value) != stated.end());
  }
}

TEST_CASE("limits: each bound of the header is in the table of where it is told", "[core][limits]") {
  std::string header = read_file(test::source_path("engine/core/limits.h"));
  static const std::regex kBound(R"(inline constexpr [\w: ]+ (k\w+) = )");
  std::set<std::string> documented;
  for (const limits::Documented& d : limits::kDocumented) documented.insert(d.name);
  size_t bounds = 0;
  for (std::sregex_iterator it(header.begin(), header.end(), kBound), end; it != end; ++it) {
    std::string name = (*it)[1];
    if (name == "kKiB" || name == "kMiB" || name == "kDocumented") continue;
    ++bounds;
    INFO(name);
    CHECK(documented.count(name) == 1);
  }
  CHECK(bounds == documented.size());
}
