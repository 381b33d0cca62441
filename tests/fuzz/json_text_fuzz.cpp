// The engine's JSON writer against nlohmann's dump: for every value the bounded parser accepts, to_json_text must
// write the same bytes, and reading them back must give the same value.
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  Value v = parse_json(fuzz::as_text(data, size));
  if (v.is_discarded()) return 0;
  std::string ours = to_json_text(v);
  std::string theirs = v.dump();
  if (ours != theirs) fuzz::mismatch("to_json_text differs from dump()", ours, theirs);
  Value back = parse_json(ours);
  if (back != v) fuzz::mismatch("to_json_text does not read back as the same value", back.dump(), theirs);
  // strings that are not UTF-8 (a tool's bytes) are written as U+FFFD, never as invalid JSON
  std::string raw(fuzz::as_text(data, size));
  std::string quoted;
  append_json_string(quoted, raw);
  if (parse_json(quoted).is_discarded()) fuzz::mismatch("a string was written as invalid JSON", quoted, "");
  return 0;
}
