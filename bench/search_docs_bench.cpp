// search_docs over a folder of N generated Markdown files: the index's build, a rebuild after one change, and the
// p50 and p90 of queries, beside grep -ril over the same folder for the same words (what a tool without an index
// does per question). The folder is made in /tmp and removed.
//   build/bench/search_docs_bench [files=10000] [queries=200]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/tools/document_search.h"

using namespace engine;
using namespace engine::tools;
using Clock = std::chrono::steady_clock;

namespace {

// A vocabulary of 5000 made-up words used as text uses words: the k-th most common about 1/k as often (Zipf).
struct Vocabulary {
  std::vector<std::string> words;
  std::vector<double> cumulative;
  Vocabulary() {
    const char* syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "de", "po", "shi", "ga", "ber", "tal", "quo", "zen"};
    double total = 0;
    for (int k = 1; k <= 5000; ++k) {
      std::string w;
      for (int n = k; n > 0; n /= 16) w += syllables[n % 16];
      words.push_back(w);
      total += 1.0 / k;
      cumulative.push_back(total);
    }
    for (auto& c : cumulative) c /= total;
  }
  const std::string& pick() const {
    double r = static_cast<double>(rand()) / RAND_MAX;
    return words[std::lower_bound(cumulative.begin(), cumulative.end(), r) - cumulative.begin()];
  }
};

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  int files = argc > 1 ? std::atoi(argv[1]) : 10000;
  int queries = argc > 2 ? std::atoi(argv[2]) : 200;
  auto dir = std::filesystem::temp_directory_path() / ("search-docs-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "docs");
  srand(7);
  Vocabulary vocabulary;
  for (int i = 0; i < files; ++i) {
    std::ofstream out(dir / "docs" / ("page" + std::to_string(i) + ".md"));
    out << "# Page " << i << "\n\n";
    for (int p = 0; p < 4; ++p) {  // four paragraphs of 60 words: a page of about 2 KB
      for (int w = 0; w < 60; ++w) out << vocabulary.pick() << (w % 12 == 11 ? ".\n" : " ");
      out << "\n";
    }
  }
  auto access = std::make_shared<const FileAccess>(std::vector<FileGrant>{FileGrant{dir / "docs", "docs", false}});
  auto t0 = Clock::now();
  KeywordSearch search(access, (dir / "index.sqlite").string());
  auto built = search.refresh();
  double build_ms = ms_since(t0);
  t0 = Clock::now();
  auto unchanged = search.refresh();
  double look_ms = ms_since(t0);
  { std::ofstream(dir / "docs/page5.md") << "# Page 5\n\nNow about marmalade.\n"; }
  t0 = Clock::now();
  auto changed = search.refresh();
  double change_ms = ms_since(t0);

  std::vector<double> query_ms, grep_ms;
  std::vector<std::vector<std::string>> questions;
  for (int q = 0; q < queries; ++q) {
    // A question of three words of the kind people ask about: neither the commonest nor the rarest.
    const auto& v = vocabulary.words;
    std::string a = v[20 + q * 7 % 500], b = v[100 + q * 13 % 2000], c = v[q * 31 % 5000];
    std::string words = "how do I " + a + " the " + b + " with " + c + "?";
    t0 = Clock::now();
    auto hits = search.search(words, 5);
    query_ms.push_back(ms_since(t0));
    if (hits.empty()) std::abort();
    questions.push_back({a, b, c});
  }
  int grep_runs = std::min(queries, 20);  // each reads the whole folder
  for (int q = 0; q < grep_runs; ++q) {
    const auto& w = questions[static_cast<size_t>(q)];
    std::string cmd = "grep -rilwE '" + w[0] + "|" + w[1] + "|" + w[2] + "' " + (dir / "docs").string() + " > /dev/null";
    t0 = Clock::now();
    if (std::system(cmd.c_str()) != 0) std::abort();
    grep_ms.push_back(ms_since(t0));
  }
  std::printf("search_docs over %d Markdown files (%d queries; grep: %d):\n", files, queries, grep_runs);
  std::printf("  index built from nothing            %8.0f ms  (%zu documents)\n", build_ms, built.added);
  std::printf("  a look with nothing changed         %8.1f ms  (%zu unchanged)\n", look_ms, unchanged.unchanged);
  std::printf("  a look after one file changed       %8.1f ms  (%zu updated)\n", change_ms, changed.updated);
  std::printf("  a query, p50 / p90                  %8.2f / %.2f ms\n", percentile(query_ms, 0.5), percentile(query_ms, 0.9));
  std::printf("  grep -ril over the folder, p50      %8.1f ms  (%.0fx the query's p50)\n", percentile(grep_ms, 0.5),
              percentile(grep_ms, 0.5) / percentile(query_ms, 0.5));
  std::filesystem::remove_all(dir);
}
