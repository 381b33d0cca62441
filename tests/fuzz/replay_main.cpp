// Runs a fuzz target over files instead of under libFuzzer: `fuzz_replay TARGET PATH...` feeds every file of the
// folders named (seed corpora, past crashes) to TARGET once. A crash or a sanitizer report fails the test; the counts
// say what ran. The targets are linked in with their entry points renamed fuzz_target_NAME (CMakeLists.txt).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

using EntryPoint = int (*)(const uint8_t* data, size_t size);

#define ENTRY(name) extern "C" int fuzz_target_##name(const uint8_t* data, size_t size);
FUZZ_ENTRY_POINTS
#undef ENTRY

namespace {

struct Target {
  std::string_view name;
  EntryPoint run;
};

#define ENTRY(name) Target{#name, fuzz_target_##name},
constexpr Target kTargets[] = {FUZZ_ENTRY_POINTS};
#undef ENTRY

EntryPoint find_target(std::string_view name) {
  for (const Target& t : kTargets)
    if (t.name == name) return t.run;
  return nullptr;
}

std::vector<std::filesystem::path> files_under(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    fs::path p = argv[i];
    if (fs::is_regular_file(p)) files.push_back(p);
    else if (fs::is_directory(p))
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().filename() != ".gitkeep") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  EntryPoint run = argc > 1 ? find_target(argv[1]) : nullptr;
  if (!run) {
    std::fprintf(stderr, "usage: fuzz_replay TARGET PATH...; targets:");
    for (const Target& t : kTargets) std::fprintf(stderr, " %.*s", int(t.name.size()), t.name.data());
    std::fprintf(stderr, "\n");
    return 2;
  }
  auto files = files_under(argc, argv);
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    run(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  }
  std::printf("%zu passed, 0 failed\n", files.size());
  return files.empty() ? 1 : 0;  // a target that replays nothing tests nothing
}
