// Server-sent events read from bytes that arrive in any pieces: every split of the same stream gives the same events.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/net/sse_parser.h"

using namespace engine;
using engine::net::SseEvent;
using engine::net::SseParser;

namespace {

std::vector<std::string> events_of(const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  SseParser p([&](const SseEvent& e) { out.push_back(e.event + "=" + e.data); });
  for (const auto& piece : pieces) p.feed(piece);
  return out;
}

// The stream fed whole, byte by byte, and split at every position: all must agree.
void check_every_split(const std::string& stream, const std::vector<std::string>& expected) {
  CHECK(events_of({stream}) == expected);
  std::vector<std::string> bytes;
  for (char c : stream) bytes.push_back(std::string(1, c));
  CHECK(events_of(bytes) == expected);
  for (size_t at = 1; at < stream.size(); ++at) {
    INFO("split at " << at);
    CHECK(events_of({stream.substr(0, at), stream.substr(at)}) == expected);
  }
}

}  // namespace

TEST_CASE("sse: data lines end with LF, CRLF or a bare CR, split anywhere", "[net][sse]") {
  std::vector<std::string> expected = {"message=one", "message=two", "message=three"};
  check_every_split("data: one\n\ndata: two\n\ndata: three\n\n", expected);
  check_every_split("data: one\r\n\r\ndata: two\r\n\r\ndata: three\r\n\r\n", expected);
  check_every_split("data: one\r\rdata: two\r\rdata: three\r\r", expected);
  check_every_split("data: one\r\n\ndata: two\n\r\ndata: three\r\r", expected);
}

TEST_CASE("sse: keep-alive comments, event names, multi-line data and a byte-order mark", "[net][sse]") {
  check_every_split("\xEF\xBB\xBF: keep-alive\n\nevent: ping\ndata: {}\n\n:\ndata: a\ndata: b\n\ndata:no-space\n\n",
                    {"ping={}", "message=a\nb", "message=no-space"});
}

TEST_CASE("sse: an event without a blank line after it is not dispatched, nor one with no data", "[net][sse]") {
  CHECK(events_of({"event: x\n\ndata: done\n\ndata: partial\n"}) == std::vector<std::string>{"message=done"});
  SseParser p([](const SseEvent&) {});
  CHECK_FALSE(p.saw_event());
  p.feed("{\"error\": {\"message\": \"not a stream\"}}");
  CHECK_FALSE(p.saw_event());
}

TEST_CASE("sse: a line that never ends is refused past its limit", "[net][sse]") {
  SseParser p([](const SseEvent&) {});
  std::string piece(1 << 20, 'x');
  auto feed_forever = [&] {
    for (int i = 0; i < 20; ++i) p.feed(piece);
  };
  CHECK_THROWS_WITH(feed_forever(), "the server sent a stream line longer than 16 MiB without ending it");
}

// MCP's Streamable HTTP resumes a stream from the last event id, and primes a stream with an event of empty data.
TEST_CASE("sse: id is carried by every later event, retry is kept, comments reach their callback", "[net][sse]") {
  std::vector<std::string> seen, comments;
  SseParser p([&](const SseEvent& e) { seen.push_back(e.id + "|" + e.event + "|" + e.data); },
              [&](std::string_view c) { comments.push_back(std::string(c)); });
  p.feed(": keep-alive\nid: 7\ndata:\n\nevent: note\ndata: a\n\n");
  p.feed(std::string("id\ndata: b\n\nretry: 1500\nid: x") + '\0' + "y\ndata: c\n\nretry: soon\n: bye\n\n");
  CHECK(seen == std::vector<std::string>{"7|message|", "7|note|a", "|message|b", "|message|c"});
  CHECK(comments == std::vector<std::string>{" keep-alive", " bye"});
  CHECK(p.retry_ms() == 1500);  // "soon" is not a number, and is ignored
  CHECK(p.last_event_id().empty());
  // An id with no data dispatches nothing but is remembered; an id past 1 KiB is ignored.
  SseParser q([&](const SseEvent&) { FAIL("nothing to dispatch"); });
  q.feed("id: 42\n\nid: " + std::string(2000, 'z') + "\n\n");
  CHECK(q.last_event_id() == "42");
}
