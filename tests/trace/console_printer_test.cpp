#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "engine/trace/console_printer.h"
#include "engine/trace/jsonl_writer.h"
#include "support/test_support.h"

using namespace engine;

namespace {
// A ReAct agent's chain_start: how it writes observations, which the console writes as it does.
const Value kReactChain{{"name", "AgentExecutor"}, {"observation_prefix", "Observation: "}, {"llm_prefix", "Thought: "}};

void replay(EventSink& sink) {
  sink.emit(test::event(EventType::ChainStart, kReactChain));
  sink.emit(test::event(EventType::AgentAction, Value{{"log", " I should add.\nAction: calc\nAction Input: 1+1"}}));
  sink.emit(test::event(EventType::ToolEnd, Value{{"observation", "2"}}));
  sink.emit(test::event(EventType::AgentFinish, Value{{"log", "I know.\nFinal Answer: 2"}}));
  sink.emit(test::event(EventType::ChainEnd, Value::object()));
}
}  // namespace

TEST_CASE("the console shows a run as LangChain's verbose mode", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  replay(printer);
  CHECK(out.str() ==
        "\n\n> Entering new AgentExecutor chain...\n I should add.\nAction: calc\nAction Input: 1+1\nObservation: 2\n"
        "Thought: I know.\nFinal Answer: 2\n\n> Finished chain.\n");
}

TEST_CASE("a structured observation is shown as the JSON text the model read", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  printer.emit(test::event(EventType::ChainStart, kReactChain));
  out.str("");
  printer.emit(test::event(EventType::ToolEnd, Value{{"observation", {{"celsius", 21}, {"alerts", Value::array()}}}}));
  CHECK(out.str() == "\nObservation: {\"celsius\":21,\"alerts\":[]}\nThought: ");
  out.str("");
  printer.emit(test::event(EventType::ToolEnd, Value{{"observation", "done"}, {"return_direct", true}}));
  CHECK(out.str() == "\nObservation: done\n");  // the model is not asked again: no "Thought:"
}

TEST_CASE("colour as LangChain's: the model's text green, each tool's observations its own colour, only when asked",
          "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, true, {"search", "calc", "lookup", "fourth"});
  replay(printer);
  CHECK(out.str().find("\033[32;1m\033[1;3m I should add.") != std::string::npos);
  CHECK(out.str().find("\033[32;1m\033[1;3mI know.") != std::string::npos);
  auto observed = [&](const std::string& tool, const char* observation) {
    std::ostringstream o;
    trace::ConsolePrinter p(o, true, {"search", "calc", "lookup", "fourth"});
    p.emit(test::event(EventType::ToolEnd, Value{{"tool", tool}, {"observation", observation}}));
    return o.str();
  };
  CHECK(observed("search", "x") == "\n\033[36;1m\033[1;3mx\033[0m\n");  // blue
  CHECK(observed("calc", "x") == "\n\033[33;1m\033[1;3mx\033[0m\n");  // yellow
  CHECK(observed("lookup", "x") == "\n\033[38;5;200m\033[1;3mx\033[0m\n");  // pink
  CHECK(observed("fourth", "x") == "\n\033[36;1m\033[1;3mx\033[0m\n");  // and round again
  CHECK(observed("nope", "x") == "\nx\n");
  std::ostringstream plain;
  trace::ConsolePrinter p(plain, false, {"calc"});
  replay(p);
  CHECK(plain.str().find('\033') == std::string::npos);
}

TEST_CASE("a failed run ends without Finished chain, and its error is left to the caller to print once", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  printer.emit(test::event(EventType::ChainStart, Value{{"name", "AgentExecutor"}}));
  printer.emit(test::event(EventType::Error, Value{{"kind", "llm.http"}, {"message", "the server said no"}}));
  printer.emit(test::event(EventType::ChainEnd, Value{{"error", {{"kind", "llm.http"}, {"message", "the server said no"}}}}));
  CHECK(out.str() == "\n\n> Entering new AgentExecutor chain...\n\n");
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
  printer.emit(test::event(EventType::ChainStart, kReactChain));
  printer.emit(test::event(EventType::LlmStart, Value{{"stream", true}}));
  for (const char* t : {" I should", " add.\nAction: calc", "\nAction Input: 1+1"}) printer.emit(test::event(EventType::LlmToken, Value{{"text", t}}));
  printer.emit(test::event(EventType::AgentAction, Value{{"log", " I should add.\nAction: calc\nAction Input: 1+1"}}));
  printer.emit(test::event(EventType::ToolEnd, Value{{"observation", "2"}}));
  printer.emit(test::event(EventType::LlmStart, Value{{"stream", true}}));
  printer.emit(test::event(EventType::LlmToken, Value{{"text", "I kn"}}));
  printer.emit(test::event(EventType::LlmRetry, Value{{"attempt", 1}, {"error", "HTTP 503: busy"}, {"discarded_partial", true}}));
  printer.emit(test::event(EventType::LlmToken, Value{{"text", "I know.\nFinal Answer: 2"}}));
  printer.emit(test::event(EventType::AgentFinish, Value{{"log", "I know.\nFinal Answer: 2"}}));
  printer.emit(test::event(EventType::ChainEnd, Value::object()));
  CHECK(out.str() ==
        "\n\n> Entering new AgentExecutor chain...\n I should add.\nAction: calc\nAction Input: 1+1\nObservation: 2\n"
        "Thought: I kn\nRetrying (attempt 2) after HTTP 503: busy; the text above is discarded\n"
        "I know.\nFinal Answer: 2\n\n> Finished chain.\n");
}

TEST_CASE("escape sequences from the model, a tool or a server are shown escaped, never sent raw", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, true);
  printer.emit(test::event(EventType::LlmStart, Value{{"stream", true}}));
  printer.emit(test::event(EventType::LlmToken, Value{{"text", "Thought: \x1b]52;c;cHduZWQ=\x07 clipboard"}}));
  printer.emit(test::event(EventType::ToolEnd, Value{{"observation", "\x1b[2J\rcleared"}}));
  printer.emit(test::event(EventType::ToolLog, Value{{"tool", "t"}, {"message", "title \x1b]0;pwned\x07 \xc2\x9b" "31m"}}));
  printer.emit(test::event(EventType::ParseError, Value{{"message", "server said \x1b[5m"}, {"text", ""}}));
  std::string s = out.str();
  // the only ESC bytes left are the printer's own colours
  std::string without_colours = s;
  for (const char* c : {"\033[32;1m", "\033[31;1m", "\033[1;3m", "\033[0m"})
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
  printer.emit(test::event(EventType::StepStart, Value{{"step", "classify"}, {"kind", "llm"}}));
  printer.emit(test::event(EventType::StepRetry, Value{{"step", "classify"}, {"attempt", 1}, {"wait_ms", 1000},
                                    {"error", {{"kind", "llm.http"}, {"message", "503 Service Unavailable"}}}}));
  printer.emit(test::event(EventType::StepEnd, Value{{"step", "classify"}, {"status", "done"}, {"elapsed_ms", 1210}}));
  printer.emit(test::event(EventType::StepEnd, Value{{"step", "technical"}, {"status", "skipped"}, {"elapsed_ms", 0}}));
  printer.emit(test::event(EventType::StepEnd, Value{{"step", "billing"}, {"status", "failed"}, {"elapsed_ms", 3}}));
  CHECK(out.str() ==
        "\n[classify] started (llm)\n[classify] attempt 1 failed (503 Service Unavailable); retrying in 1000 ms"
        "\n[classify] done in 1210 ms\n[technical] skipped: its when: does not hold\n[billing] failed in 3.0 ms");
}

TEST_CASE("what happens inside a step is indented under it, its start and end at its parent's level", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  printer.receive(test::event(EventType::ChainStart, Value{{"name", "Workflow"}}), {"r1", ""});
  printer.receive(test::event(EventType::StepStart, Value{{"step", "billing"}, {"kind", "agent"}}), {"r1", "billing"});
  printer.receive(test::event(EventType::ChainStart, kReactChain), {"r1", "billing"});
  printer.receive(test::event(EventType::AgentAction, Value{{"log", " Look it up.\nAction: refunds"}}), {"r1", "billing"});
  printer.receive(test::event(EventType::StepStart, Value{{"step", "agent"}, {"kind", "agent"}}), {"r1", "billing/research"});
  printer.receive(test::event(EventType::ToolEnd, Value{{"observation", "pending"}}), {"r1", "billing"});
  printer.receive(test::event(EventType::StepEnd, Value{{"step", "billing"}, {"status", "done"}, {"elapsed_ms", 7}}),
                  {"r1", "billing"});
  CHECK(out.str() ==
        "\n\n> Entering new Workflow chain...\n"
        "\n[billing] started (agent)"
        "\n\n  > Entering new AgentExecutor chain...\n"
        "   Look it up.\n  Action: refunds"
        "\n  [agent] started (agent)"
        "\n  Observation: pending\n  Thought: "
        "\n[billing] done in 7.0 ms");
}

TEST_CASE("chains streaming at once on several threads each keep their own text", "[trace][stream]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  // two steps stream their answers, token by token, interleaved; each one's log is then not shown again
  printer.receive(test::event(EventType::LlmStart, Value{{"stream", true}}), {"r1", "a"});
  printer.receive(test::event(EventType::LlmStart, Value{{"stream", true}}), {"r1", "b"});
  printer.receive(test::event(EventType::LlmToken, Value{{"text", "Final Answer: A"}}), {"r1", "a"});
  printer.receive(test::event(EventType::LlmToken, Value{{"text", "Final Answer: B"}}), {"r1", "b"});
  printer.receive(test::event(EventType::AgentFinish, Value{{"log", "Final Answer: A"}}), {"r1", "a"});
  printer.receive(test::event(EventType::AgentFinish, Value{{"log", "Final Answer: B"}}), {"r1", "b"});
  CHECK(out.str() == "  Final Answer: A\n  Final Answer: B");  // another chain's text starts its own line

  std::ostringstream many;
  trace::ConsolePrinter shared(many, false);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&shared, t] {
      std::string step = "s" + std::to_string(t);
      for (int i = 0; i < 200; ++i)
        shared.receive(test::event(EventType::StepEnd, Value{{"step", step}, {"status", "done"}, {"elapsed_ms", i}}), {"r1", step});
    });
  for (auto& th : threads) th.join();
  std::istringstream lines(many.str());
  int shown = 0;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) {
      CHECK(line.rfind("[s", 0) == 0);  // every event shown whole, none cut into another
      CHECK(line.find(" done in ") != std::string::npos);
      ++shown;
    }
  CHECK(shown == 800);
}

TEST_CASE("the JSONL trace gives each event its run id and its step's path", "[trace]") {
  std::ostringstream out;
  trace::JsonlWriter writer(out);
  writer.receive(test::event(EventType::StepStart, Value{{"step", "agent"}, {"kind", "agent"}}), {"7f3a", "research/agent"});
  writer.receive(test::event(EventType::ChainEnd, Value::object()), {"7f3a", ""});
  std::istringstream lines(out.str());
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  Value a = Value::parse(first), b = Value::parse(second);
  CHECK(a["type"] == "step_start");
  CHECK(a["run_id"] == "7f3a");
  CHECK(a["path"] == "research/agent");
  CHECK(b["run_id"] == "7f3a");
  CHECK_FALSE(b.contains("path"));
}

TEST_CASE("a failed step's end names its error's kind and what it was given, each input on a short line", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  printer.receive(test::event(EventType::StepEnd, Value{{"step", "ask"}, {"status", "failed"}, {"elapsed_ms", 4},
                                              {"error", {{"kind", "llm.http_error"}, {"message", "HTTP 400"}}},
                                              {"inputs", {{"prompt", "line one\nline two " + std::string(300, 'x')}}}}),
                  {"r1", "ask"});
  CHECK(out.str() == "\n[ask] failed in 4.0 ms (llm.http_error)\n  prompt: line one line two " + std::string(182, 'x') +
                         "... (318 bytes)");
}

TEST_CASE("a parser's log line stands on a line of its own before the text it read", "[trace]") {
  std::ostringstream out;
  trace::ConsolePrinter printer(out, false);
  printer.emit(test::event(EventType::ChainStart, kReactChain));
  out.str("");
  printer.emit(test::event(EventType::ParserLog, Value{{"parser", "parsers/p.lua"}, {"message", "no Action:"}}));
  printer.emit(test::event(EventType::ParseError, Value{{"message", "Invalid Format"}, {"text", "Thought: hm"}}));
  CHECK(out.str() == "[parsers/p.lua] no Action:\nThought: hm\nParse error: Invalid Format\n");
}
