// A stream over a MaskingStreambuf lets no key through, however the text is cut into writes and flushes, and keeps
// nothing from the screen that is not a piece of one.
#include <catch2/catch.hpp>
#include <ostream>
#include <sstream>
#include <thread>

#include "engine/core/masking_streambuf.h"
#include "support/test_support.h"

using namespace engine;

namespace {

const std::string kMaskedKey = "sk-proj-Zq8v2LmN4xR7tY1wK9pB";

}  // namespace

TEST_CASE("masking streambuf: a key written whole or in pieces is masked in what reaches the buffer below",
          "[core][redact]") {
  std::stringbuf below;
  {
    MaskingStreambuf mask(&below, test::secrets_of({kMaskedKey}));
    std::ostream out(&mask);
    out << "whole " << kMaskedKey << "\n";
    // One byte at a time, and cut at every place: the held-back tail decides each piece.
    for (char c : "split " + kMaskedKey + " end\n") out.put(c);
    out << "prefix " << kMaskedKey.substr(0, 12) << "|suffix " << kMaskedKey.substr(12) << "\n";
  }
  std::string shown = below.str();
  CHECK_FALSE(test::holds_piece_of_key(shown, kMaskedKey));
  CHECK(shown == "whole ***\nsplit *** end\nprefix ***|suffix ***\n");
}

TEST_CASE("masking streambuf: a flush sends plain text at once and holds back only a long piece of a key",
          "[core][redact]") {
  std::stringbuf below;
  MaskingStreambuf mask(&below, test::secrets_of({kMaskedKey}));
  std::ostream out(&mask);
  out << "> " << std::flush;  // a prompt: '>' and ' ' are in no key, and shown at once
  CHECK(below.str() == "> ");
  out << "ask sk" << std::flush;  // two bytes of the key's start: less than half a maskable piece, sent
  CHECK(below.str() == "> ask sk");
  out << " then sk-proj-Z" << std::flush;  // nine bytes that could be the key's start: held until decided
  CHECK(below.str() == "> ask sk then ");
  out << "q8v2 and more" << std::flush;
  CHECK(below.str() == "> ask sk then *** and more");
  out << " sk-proj-" << std::flush;
  mask.finish();  // the end of the output decides the tail
  CHECK(below.str() == "> ask sk then *** and more ***");
}

TEST_CASE("masking streambuf: secrets added later are masked from then on in their JSON-escaped form too",
          "[core][redact]") {
  std::stringbuf below;
  auto secrets = std::make_shared<SecretSet>();
  MaskingStreambuf mask(&below, secrets);
  std::ostream out(&mask);
  const std::string quoted_key = "pass\"word\\with-quotes";
  out << "before " << kMaskedKey << std::flush;
  secrets->add(kMaskedKey);  // as a load reads them, while the stream is in use
  secrets->add(quoted_key);
  out << " after " << kMaskedKey << " json \"pass\\\"word\\\\with-quotes\" raw " << quoted_key << std::flush;
  mask.finish();
  CHECK(below.str() == "before " + kMaskedKey + " after *** json \"***\" raw ***");
}

TEST_CASE("masking streambuf: writers on several threads lose no byte", "[core][redact]") {
  std::stringbuf below;
  {
    MaskingStreambuf mask(&below, test::secrets_of({kMaskedKey}));
    std::vector<std::thread> writers;
    for (int t = 0; t < 4; ++t)
      writers.emplace_back([&mask] {
        std::ostream out(&mask);
        for (int i = 0; i < 500; ++i) out << "line\n";
      });
    for (auto& w : writers) w.join();
  }
  CHECK(below.str().size() == 4 * 500 * 5);
}

TEST_CASE("masking streambuf: a buffer below that refuses bytes fails the stream", "[core][redact]") {
  struct Full : std::streambuf {
    std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
  } full;
  MaskingStreambuf mask(&full, std::make_shared<SecretSet>());
  std::ostream out(&mask);
  out << "lost" << std::flush;
  CHECK(out.fail());
}
