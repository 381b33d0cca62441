// A pattern from a workflow (Python syntax accepted) compiled, then searched over the input itself: a bad pattern
// is an engine::Error, a pathological one gives up at the match limit, nothing crashes or hangs.
#include "engine/parse/regex.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  std::string_view text = fuzz::as_text(data, size);
  size_t split = text.find('\n');
  std::string pattern(text.substr(0, split));
  std::string_view subject = split == std::string_view::npos ? text : text.substr(split + 1);
  for (bool dotall : {false, true})
    fuzz::expect_value_or_error([&] {
      parse::Regex re = parse::Regex::compile(pattern, parse::RegexOptions{.dotall = dotall});
      // every match, as a scripted rule or a parser might walk them; an empty match steps one byte on
      for (size_t from = 0; from <= subject.size();) {
        auto m = re.search(subject, from);
        if (!m) break;
        from = m->end > from ? m->end : from + 1;
      }
    });
  return 0;
}
