// Any file opened as a batch's results: it is taken (every line then a result line, a torn last line cut only when
// it began as the engine begins its lines), or refused and left byte for byte as it was. What is not the engine's is
// never truncated or rewritten.
#include <fstream>
#include <sstream>

#include "engine/app/batch_results.h"
#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  if (size == 0) return 0;
  bool retry_failed = data[0] & 1;
  std::string text(fuzz::as_text(data + 1, size - 1));
  std::filesystem::path file = fuzz::scratch_path("results.jsonl");
  std::filesystem::remove(file);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  try {
    app::ResultsFile results(file, retry_failed);
  } catch (const Error&) {
    std::string after = read_file(file, size_t{1} << 30);
    if (after != text) fuzz::mismatch("a refused file was changed", after, text);
    return 0;
  }
  std::string after = read_file(file, size_t{1} << 30);
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] != '{') fuzz::mismatch("a file not begun as results was taken", after, text);
  std::istringstream lines(after);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && !app::result_index(parse_json(line))) fuzz::mismatch("a line kept is not a result", line, text);
  if (!retry_failed && after.size() < text.size() && after != text.substr(0, after.size()))
    fuzz::mismatch("a cut kept something other than the lines before the torn one", after, text);
  return 0;
}
