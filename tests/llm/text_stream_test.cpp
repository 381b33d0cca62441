// What a streamed answer shows as it arrives: stop sequences split across deltas still cut, a UTF-8 character split
// across deltas shown whole, and the shown pieces always add up to the final text.
#include <catch2/catch.hpp>

#include "engine/llm/text_stream.h"
#include "support/test_support.h"

using namespace engine;
using engine::llm::TextStream;

namespace {

struct TextStreamed {
  std::vector<std::string> shown;
  std::string text;
  bool stopped = false;
};

TextStreamed stream(const std::vector<std::string>& deltas, const std::vector<std::string>& stop) {
  test::EventLog log;
  TextStream s(stop, &log);
  for (const auto& d : deltas)
    if (!s.add(d)) break;
  s.finish();
  TextStreamed out{{}, s.text(), s.stopped()};
  for (const auto& e : log.events) out.shown.push_back(e.data["text"]);
  return out;
}

std::string concat(const std::vector<std::string>& parts) {
  std::string all;
  for (const auto& p : parts) all += p;
  return all;
}

}  // namespace

TEST_CASE("a stop sequence split over two deltas is still honoured, and never shown", "[llm][stream]") {
  auto r = stream({"Action: calc\nAction Input: 2+2\nObs", "ervation: 4"}, {"\nObservation:"});
  CHECK(r.text == "Action: calc\nAction Input: 2+2");
  CHECK(r.stopped);
  CHECK(concat(r.shown) == r.text);
  CHECK(r.shown.front() == "Action: calc\nAction Input: 2+2");  // "\nObs" was held back, then cut
}

TEST_CASE("a held-back tail that turns out not to be a stop sequence is shown", "[llm][stream]") {
  auto r = stream({"a\nObs", "cure", " end"}, {"\nObservation:"});
  CHECK(r.text == "a\nObscure end");
  CHECK_FALSE(r.stopped);
  CHECK(r.shown == std::vector<std::string>{"a", "\nObscure", " end"});
}

TEST_CASE("every split of an answer shows exactly its final text", "[llm][stream]") {
  const std::string answer = "Thought: é ok\nFinal Answer: 日本\nObservation: no";
  std::vector<std::string> stop = {"\nObservation:", "STOP"};
  for (size_t a = 1; a < answer.size(); ++a) {
    INFO("split at " << a);
    auto r = stream({answer.substr(0, a), answer.substr(a)}, stop);
    CHECK(r.text == "Thought: é ok\nFinal Answer: 日本");
    CHECK(concat(r.shown) == r.text);
  }
}

TEST_CASE("a UTF-8 character split over deltas is shown whole", "[llm][stream]") {
  auto r = stream({"caf\xC3", "\xA9 \xE6\x97", "\xA5"}, {});
  CHECK(r.shown == std::vector<std::string>{"caf", "\xC3\xA9 ", "\xE6\x97\xA5"});
}

TEST_CASE("the earliest of several stop sequences wins, even at the very start", "[llm][stream]") {
  CHECK(stream({"xx B yy A"}, {"A", "B"}).text == "xx ");
  auto r = stream({"\nObservation: at once"}, {"\nObservation:"});
  CHECK(r.text.empty());
  CHECK(r.shown.empty());
}
