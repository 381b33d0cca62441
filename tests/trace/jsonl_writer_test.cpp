// A trace line's time is when its event happened (stamped by its emitter), not when the writer got it.
#include <catch2/catch.hpp>

#include <sstream>

#include "engine/core/json_parse.h"
#include "engine/trace/jsonl_writer.h"

using namespace engine;

TEST_CASE("jsonl writer: t_ms is the event's own time, however late it is written", "[trace]") {
  std::ostringstream out;
  trace::JsonlWriter writer(out);
  Event early{events::ToolStart{.tool = "t"}};
  Event late{events::ToolEnd{.tool = "t"}};
  late.at = early.at + std::chrono::milliseconds(40);
  writer.receive(late, {});
  writer.receive(early, {});  // written after, happened before
  std::istringstream lines(out.str());
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  double late_ms = parse_json(first)["t_ms"].get<double>();
  double early_ms = parse_json(second)["t_ms"].get<double>();
  CHECK(late_ms - early_ms == Approx(40));
}
