// Conversation memory: which past exchanges the prompt sees, as messages and as LangChain's buffer string.
#include <catch2/catch.hpp>

#include "engine/agent/memory.h"

using namespace engine;
using engine::agent::Exchange;
using engine::agent::Memory;

namespace {

std::vector<Exchange> conversation(int turns) {
  std::vector<Exchange> out;
  for (int i = 1; i <= turns; ++i) out.push_back({"q" + std::to_string(i), "a" + std::to_string(i)});
  return out;
}

}  // namespace

TEST_CASE("memory: none, full, and a window of the last k exchanges", "[agent][memory]") {
  auto all = conversation(4);
  Memory m;
  CHECK(m.remembered(all).empty());
  m.kind = Memory::Kind::Full;
  CHECK(m.remembered(all).size() == 4);
  m.kind = Memory::Kind::Window;
  m.k = 2;
  auto last2 = m.remembered(all);
  REQUIRE(last2.size() == 2);
  CHECK(last2[0].input == "q3");
  CHECK(last2[1].output == "a4");
  m.k = 10;
  CHECK(m.remembered(all).size() == 4);
  CHECK(m.remembered({}).empty());
}

TEST_CASE("memory: a token limit keeps the newest exchanges that fit, dropping the oldest", "[agent][memory]") {
  std::vector<Exchange> all = {{std::string(400, 'x'), "old"}, {"q2", "a2"}, {"q3", "a3"}};
  Memory m;
  m.kind = Memory::Kind::TokenLimit;
  long small = agent::exchange_tokens(all[1], m);
  CHECK(small == 1 + 1 + 2 + 1 + 2);  // q2, a2, "Human", "AI", and the separators
  m.max_tokens = 2 * small;
  auto kept = m.remembered(all);
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].input == "q2");
  m.max_tokens = 2 * small - 1;
  CHECK(m.remembered(all).size() == 1);
  m.max_tokens = 1;  // not even the newest fits: nothing, rather than a cut exchange
  CHECK(m.remembered(all).empty());
  m.max_tokens = 1000;
  CHECK(m.remembered(all).size() == 3);
}

TEST_CASE("memory: history as messages and as the buffer string, prefixes configurable", "[agent][memory]") {
  auto all = conversation(2);
  CHECK(Memory::messages(all) == Value::array({Value{{"role", "user"}, {"content", "q1"}},
                                               Value{{"role", "assistant"}, {"content", "a1"}},
                                               Value{{"role", "user"}, {"content", "q2"}},
                                               Value{{"role", "assistant"}, {"content", "a2"}}}));
  Memory m;
  CHECK(m.buffer_text(all) == "Human: q1\nAI: a1\nHuman: q2\nAI: a2");
  m.human_prefix = "User";
  m.ai_prefix = "Pirate";
  CHECK(m.buffer_text(all) == "User: q1\nPirate: a1\nUser: q2\nPirate: a2");
  CHECK(m.buffer_text({}).empty());
  CHECK(Memory::messages({}) == Value::array());
}
