#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

#include "engine/trace/console_printer.h"
#include "engine/trace/jsonl_writer.h"

using namespace engine;

namespace {
void replay(EventSink& sink) {
  sink.emit({"chain_start", Value{{"name", "AgentExecutor"}}});
  sink.emit({"agent_action", Value{{"log", " I should add.\nAction: calc\nAction Input: 1+1"}}});
  sink.emit({"tool_end", Value{{"observation", "2"}, {"observation_prefix", "Observation: "}, {"llm_prefix", "Thought: "}}});
  sink.emit({"agent_finish", Value{{"log", "I know.\nFinal Answer: 2"}}});
  sink.emit({"chain_end", Value::object()});
}
}  // namespace

TEST_CASE("the console shows a run as LangChain's verbose mode", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  replay(printer);
  CHECK(out.str() ==
        "\n> Entering new AgentExecutor chain...\n I should add.\nAction: calc\nAction Input: 1+1\nObservation: 2\n"
        "Thought: I know.\nFinal Answer: 2\n\n> Finished chain.\n");
}

TEST_CASE("a structured observation is shown as the JSON text the model read", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  printer.emit({"tool_end", Value{{"observation", {{"celsius", 21}, {"alerts", Value::array()}}},
                                  {"observation_prefix", "Observation: "}, {"llm_prefix", "Thought: "}}});
  CHECK(out.str() == "\nObservation: {\"celsius\":21,\"alerts\":[]}\nThought: ");
}

TEST_CASE("colour as LangChain's: the model's text green, each tool's observations its own colour, only when asked",
          "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, true, {"search", "calc", "lookup", "fourth"});
  replay(printer);
  CHECK(out.str().find("\033[32;1m I should add.") != std::string::npos);
  CHECK(out.str().find("\033[32;1mI know.") != std::string::npos);
  auto observed = [&](const std::string& tool, const char* observation) {
    std::ostringstream o;
    trace::ConsolePrinter p(o, true, {"search", "calc", "lookup", "fourth"});
    p.emit({"tool_end", Value{{"tool", tool}, {"observation", observation}}});
    return o.str();
  };
  CHECK(observed("search", "x") == "\n\033[36;1mx\033[0m\n");       // blue
  CHECK(observed("calc", "x") == "\n\033[33;1mx\033[0m\n");         // yellow
  CHECK(observed("lookup", "x") == "\n\033[38;5;200mx\033[0m\n");   // pink
  CHECK(observed("fourth", "x") == "\n\033[36;1mx\033[0m\n");       // and round again
  CHECK(observed("nope", "x") == "\nx\n");
  std::ostringstream plain;
  trace::ConsolePrinter p(plain, false, {"calc"});
  replay(p);
  CHECK(plain.str().find('\033') == std::string::npos);
}

TEST_CASE("a failed run ends without Finished chain, and its error is left to the caller to print once", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  printer.emit({"chain_start", Value{{"name", "AgentExecutor"}}});
  printer.emit({"error", Value{{"kind", "llm.http"}, {"message", "the server said no"}}});
  printer.emit({"chain_end", Value{{"error", {{"kind", "llm.http"}, {"message", "the server said no"}}}}});
  CHECK(out.str() == "\n> Entering new AgentExecutor chain...\n\n");
}

TEST_CASE("the JSONL trace writes one parseable line per event", "[trace]") {
  std::ostringstream out;
  trace::JsonlWriter writer(out);
  replay(writer);
  std::istringstream lines(out.str());
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    Value v = Value::parse(line);
    CHECK(v.contains("type"));
    CHECK(v.contains("t_ms"));
    ++n;
  }
  CHECK(n == 5);
}

TEST_CASE("a streamed answer is shown as its tokens arrive, and not again as the step's log", "[trace][stream]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  printer.emit({"chain_start", Value{{"name", "AgentExecutor"}}});
  printer.emit({"llm_start", Value{{"stream", true}}});
  for (const char* t : {" I should", " add.\nAction: calc", "\nAction Input: 1+1"}) printer.emit({"llm_token", Value{{"text", t}}});
  printer.emit({"agent_action", Value{{"log", " I should add.\nAction: calc\nAction Input: 1+1"}}});
  printer.emit({"tool_end", Value{{"observation", "2"}, {"observation_prefix", "Observation: "}, {"llm_prefix", "Thought: "}}});
  printer.emit({"llm_start", Value{{"stream", true}}});
  printer.emit({"llm_token", Value{{"text", "I kn"}}});
  printer.emit({"llm_retry", Value{{"attempt", 1}, {"error", "HTTP 503: busy"}, {"discarded_partial", true}}});
  printer.emit({"llm_token", Value{{"text", "I know.\nFinal Answer: 2"}}});
  printer.emit({"agent_finish", Value{{"log", "I know.\nFinal Answer: 2"}}});
  printer.emit({"chain_end", Value::object()});
  CHECK(out.str() ==
        "\n> Entering new AgentExecutor chain...\n I should add.\nAction: calc\nAction Input: 1+1\nObservation: 2\n"
        "Thought: I kn\nRetrying (attempt 2) after HTTP 503: busy; the text above is discarded\n"
        "I know.\nFinal Answer: 2\n\n> Finished chain.\n");
}

TEST_CASE("escape sequences from the model, a tool or a server are shown escaped, never sent raw", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, true);
  printer.emit({"llm_start", Value{{"stream", true}}});
  printer.emit({"llm_token", Value{{"text", "Thought: \x1b]52;c;cHduZWQ=\x07 clipboard"}}});
  printer.emit({"tool_end", Value{{"observation", "\x1b[2J\rcleared"}, {"observation_prefix", "Observation: "},
                                  {"llm_prefix", "Thought: "}}});
  printer.emit({"tool_log", Value{{"tool", "t"}, {"message", "title \x1b]0;pwned\x07 \xc2\x9b" "31m"}}});
  printer.emit({"parse_error", Value{{"message", "server said \x1b[5m"}, {"text", ""}}});
  std::string s = out.str();
  // the only ESC bytes left are the printer's own colours
  std::string without_colours = s;
  for (const char* c : {"\033[32;1m", "\033[31;1m", "\033[0m"})
    for (size_t at; (at = without_colours.find(c)) != std::string::npos;) without_colours.erase(at, std::strlen(c));
  CHECK(without_colours.find('\x1b') == std::string::npos);
  CHECK(without_colours.find('\x07') == std::string::npos);
  CHECK(without_colours.find('\r') == std::string::npos);
  CHECK(s.find("Thought: \\x1b]52;c;cHduZWQ=\\x07 clipboard") != std::string::npos);
  CHECK(s.find("\\x1b[2J\\x0dcleared") != std::string::npos);
  CHECK(s.find("[t] title \\x1b]0;pwned\\x07 \\x9b31m") != std::string::npos);
  CHECK(s.find("Parse error: server said \\x1b[5m") != std::string::npos);
}

TEST_CASE("the console shows each step's start, retries and end, skipped and failed ones too", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  printer.emit({"step_start", Value{{"step", "classify"}, {"kind", "llm"}}});
  printer.emit({"step_retry", Value{{"step", "classify"}, {"attempt", 1}, {"wait_ms", 1000},
                                    {"error", {{"kind", "llm.http"}, {"message", "503 Service Unavailable"}}}}});
  printer.emit({"step_end", Value{{"step", "classify"}, {"status", "done"}, {"elapsed_ms", 1210}}});
  printer.emit({"step_end", Value{{"step", "technical"}, {"status", "skipped"}, {"elapsed_ms", 0}}});
  printer.emit({"step_end", Value{{"step", "billing"}, {"status", "failed"}, {"elapsed_ms", 3}}});
  CHECK(out.str() ==
        "\n[classify] started (llm)\n[classify] attempt 1 failed (503 Service Unavailable); retrying in 1000 ms"
        "\n[classify] done in 1210 ms\n[technical] skipped: its when: does not hold\n[billing] failed in 3 ms");
}
