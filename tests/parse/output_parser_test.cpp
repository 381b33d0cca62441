// The parsers besides the ReAct regexes: LangChain's JSON blob, keyword rules, and chains that fall through them.
#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/parse/json_blob_parser.h"
#include "engine/parse/keyword_parser.h"
#include "engine/parse/react_parser.h"
#include "engine/parse/script_parser.h"

using namespace engine;
using namespace engine::parse;

namespace {

const AgentAction& action_of(const ParsedOutput& p) {
  REQUIRE(std::holds_alternative<AgentAction>(p));
  return std::get<AgentAction>(p);
}

std::string failure_of(const ParsedOutput& p) {
  REQUIRE(std::holds_alternative<ParseFailure>(p));
  return std::get<ParseFailure>(p).message;
}

}  // namespace

TEST_CASE("json_blob: a fenced blob, with or without the json tag, or a bare one", "[parse][json_blob]") {
  JsonBlobParser p;
  auto fenced = p.parse("Thought: search it\n```json\n{\"action\": \"search\", \"action_input\": \"Oslo weather\"}\n```");
  CHECK(action_of(fenced).tool == "search");
  CHECK(action_of(fenced).tool_input == "Oslo weather");
  CHECK(action_of(fenced).log == "Thought: search it\n"
        "```json\n"
        "{\"action\": \"search\", \"action_input\": \"Oslo weather\"}\n"
        "```");
  CHECK(action_of(p.parse("```\n{\"action\": \"search\", \"action_input\": \"x\"}\n```")).tool == "search");
  auto bare = p.parse("I will look. {\"action\": \"lookup\", \"action_input\": {\"city\": \"Oslo\", \"note\": \"a } in text\"}} done");
  CHECK(action_of(bare).tool == "lookup");
  CHECK(action_of(bare).tool_input == Value{{"city", "Oslo"}, {"note", "a } in text"}});
}

TEST_CASE("json_blob: Final Answer ends the run, escapes are decoded, a structured answer is JSON text",
          "[parse][json_blob]") {
  JsonBlobParser p;
  auto finish = p.parse("```json\n{\"action\": \"Final Answer\", \"action_input\": \"line one\\nline \\\"two\\\" \\u00e9\"}\n```");
  REQUIRE(std::holds_alternative<AgentFinish>(finish));
  CHECK(std::get<AgentFinish>(finish).output == "line one\nline \"two\" é");
  auto structured = p.parse("{\"action\": \"Final Answer\", \"action_input\": {\"answer\": 4}}");
  CHECK(std::get<AgentFinish>(structured).output == "{\"answer\":4}");
  JsonBlobParser custom({"tool", "args", "finish"});
  CHECK(action_of(custom.parse("{\"tool\": \"calc\", \"args\": \"1+1\"}")).tool_input == "1+1");
  CHECK(std::holds_alternative<AgentFinish>(custom.parse("{\"tool\": \"finish\", \"args\": \"2\"}")));
}

TEST_CASE("json_blob: malformed, keyless and missing blobs are parse failures that say why", "[parse][json_blob]") {
  JsonBlobParser p;
  CHECK(failure_of(p.parse("```json\n{\"action\": \"search\", \"action_input\": }\n```"))
            .rfind("could not parse LLM output: the JSON blob is not valid JSON (", 0) == 0);
  CHECK(failure_of(p.parse("{\"tool\": \"search\"}")) ==
        "could not parse LLM output: the JSON blob has no \"action\" string with an \"action\" key: "
        "'{\"tool\": \"search\"}'");
  CHECK(failure_of(p.parse("I just know it is 4.")) ==
        "could not parse LLM output: no JSON blob in the text with an \"action\" key: 'I just know it is 4.'");
  // A text that is itself a blob (it begins with '{') says why the blob is not JSON.
  CHECK(failure_of(p.parse("{\"action\": \"search\", \"action_input\": \"unclosed")) ==
        "could not parse LLM output: the JSON blob is not valid JSON (parse error at line 1, column 47: syntax error "
        "while parsing value - invalid string: missing closing quote) with an \"action\" key: "
        "'{\"action\": \"search\", \"action_input\": \"unclosed'");
  CHECK(failure_of(p.parse("I think {\"action\": \"search\", \"action_input\": \"unclosed")).find("no JSON blob") !=
        std::string::npos);
}

TEST_CASE("json_blob: hostile text is read in one pass and bounded in depth", "[parse][json_blob][hostile]") {
  JsonBlobParser p;
  std::string braces(1'000'000, '{');
  CHECK(failure_of(p.parse(braces)).find("the JSON blob is not valid JSON (parse error at line 1, column 2") !=
        std::string::npos);
  CHECK(failure_of(p.parse("text " + braces)).find("no JSON blob") != std::string::npos);
  std::string deep = "{\"action\": \"x\", \"action_input\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  CHECK(failure_of(p.parse(deep)).find("nested deeper than 128 levels") != std::string::npos);
  std::string fences;
  for (int i = 0; i < 10000; ++i) fences += "```\n{}\n```";
  CHECK(failure_of(p.parse(fences)).find("no \"action\" string") != std::string::npos);
}

TEST_CASE("a parser chain falls through to the next parser and reports every failure when none fits",
          "[parse][chain]") {
  std::vector<std::unique_ptr<const OutputParser>> parsers;
  parsers.push_back(std::make_unique<ReactParser>(ReactPatterns{R"(Final Answer:\s*(.*))", R"(Action:\s*(.*?)\nAction Input:\s*(.*))"}));
  parsers.push_back(std::make_unique<JsonBlobParser>());
  ParserChain chain(std::move(parsers));
  CHECK(action_of(chain.parse("Action: search\nAction Input: x")).tool == "search");
  CHECK(action_of(chain.parse("```json\n{\"action\": \"lookup\", \"action_input\": \"y\"}\n```")).tool == "lookup");
  std::string none = failure_of(chain.parse("hmm"));
  CHECK(none ==
        "could not parse LLM output: it matches neither the final-answer nor the action pattern: 'hmm'; then could not parse LLM output: no JSON blob in the text with an \"action\" key: 'hmm'");
  CHECK(none.find("; then could not parse LLM output: no JSON blob in the text") != std::string::npos);
}

TEST_CASE("both a final answer and an action: an error, the answer or the action, as set", "[parse][chain]") {
  const std::string text = "Action: search\nAction Input: x\nFinal Answer: 4";
  ReactPatterns patterns{R"(Final Answer:\s*(.*))", R"(Action:\s*(.*?)\nAction Input:\s*(.*?)\n)"};
  CHECK(failure_of(ReactParser(patterns).parse(text)).find("both a final answer and an action") != std::string::npos);
  patterns.both = BothVerdicts::FinalAnswer;
  CHECK(std::get<AgentFinish>(ReactParser(patterns).parse(text)).output == "4");
  patterns.both = BothVerdicts::Action;
  CHECK(action_of(ReactParser(patterns).parse(text)).tool_input == "x");
}

TEST_CASE("keyword rules: the first rule found in the text names the tool, its input made from the match",
          "[parse][keyword]") {
  std::vector<KeywordRule> rules;
  rules.push_back({Regex::compile(R"((?i)weather in (?P<city>\w+))"), "weather",
                   [](const RegexMatch& m, std::string_view) { return Value(std::string(*m.group("city"))); }});
  rules.push_back({Regex::compile(R"((?i)\bsearch\b)"), "search", nullptr});
  rules.push_back({Regex::compile("fail"), "broken",
                   [](const RegexMatch&, std::string_view) -> Value { throw Error(ErrorKind::TemplateUndefined, "no x"); }});
  KeywordParser p(std::move(rules));
  auto weather = p.parse("I'd check the Weather in Oslo first.");
  CHECK(action_of(weather).tool == "weather");
  CHECK(action_of(weather).tool_input == "Oslo");
  CHECK(action_of(weather).log == "I'd check the Weather in Oslo first.");
  CHECK(action_of(p.parse("let me SEARCH for it")).tool_input == "SEARCH");
  CHECK(failure_of(p.parse("nothing here")) == "could not parse LLM output: no keyword rule matches: 'nothing here'");
  CHECK(failure_of(p.parse("this will fail")) ==
        "could not parse LLM output: the keyword rule for 'broken' failed: no x");
}

TEST_CASE("script parser: the script's table is an action, a final answer, or no verdict", "[parse][script]") {
  auto parser_of = [](Value verdict) {
    return ScriptParser("parsers/p.lua", [verdict](std::string_view, const auto&, const auto&) { return verdict; });
  };
  auto action = parser_of(Value{{"tool", "search"}, {"input", "Oslo"}}).parse("look up Oslo");
  CHECK(action_of(action).tool == "search");
  CHECK(action_of(action).tool_input == "Oslo");
  CHECK(action_of(action).log == "look up Oslo");
  CHECK(action_of(parser_of(Value{{"tool", "add"}, {"input", {{"x", 1}}}}).parse("t")).tool_input == Value{{"x", 1}});
  CHECK(action_of(parser_of(Value{{"tool", "now"}}).parse("t")).tool_input == "");
  auto finish = parser_of(Value{{"output", "42"}}).parse("The answer: 42");
  REQUIRE(std::holds_alternative<AgentFinish>(finish));
  CHECK(std::get<AgentFinish>(finish).output == "42");
  CHECK(std::get<AgentFinish>(finish).log == "The answer: 42");
  CHECK(std::get<AgentFinish>(parser_of(Value{{"output", {{"a", 1}}}}).parse("t")).output == R"({"a":1})");
  CHECK(failure_of(parser_of(nullptr).parse("hello")) ==
        "could not parse LLM output: the parser parsers/p.lua found no step in: 'hello'");
}

TEST_CASE("script parser: a script that fails or returns nonsense is a parse failure saying so", "[parse][script]") {
  ScriptParser raising("parsers/p.lua", [](std::string_view, const auto&, const auto&) -> Value {
    throw Error(ErrorKind::LuaError, "p.lua:3: no JSON");
  });
  CHECK(failure_of(raising.parse("t")) == "could not parse LLM output: the parser parsers/p.lua failed: p.lua:3: no JSON");
  auto returned = [](Value v) {
    return failure_of(ScriptParser("p.lua", [v](std::string_view, const auto&, const auto&) { return v; }).parse("t"));
  };
  CHECK(returned("text").find("returned string; it must return {tool=, input=}, {output=}, {retry=} or nil") != std::string::npos);
  CHECK(returned(Value::object()) == "could not parse LLM output: the parser p.lua returned a table with none of 'tool', "
                                     "'output' and 'retry'; give one");
  CHECK(returned(Value{{"tool", "a"}, {"output", "b"}}) ==
        "could not parse LLM output: the parser p.lua returned a table with more than one of 'tool', 'output' and "
        "'retry'; give one");
  CHECK(returned(Value{{"retry", ""}}) ==
        "could not parse LLM output: the parser p.lua returned a 'retry' that is not text for the model");
  CHECK(returned(Value{{"retry", 3}}).find("'retry' that is not text") != std::string::npos);
  CHECK(returned(Value{{"tool", 3}}).find("'tool' that is not a tool's name") != std::string::npos);
  CHECK(returned(Value{{"tool", ""}}).find("'tool' that is not a tool's name") != std::string::npos);
  CHECK(returned(Value{{"tool", "a"}, {"input", Value::array({1})}}).find("'input' that is array") != std::string::npos);
}

TEST_CASE("a chain falls through keyword rules to a script parser", "[parse][chain][script]") {
  std::vector<std::unique_ptr<const OutputParser>> parsers;
  parsers.push_back(std::make_unique<JsonBlobParser>());
  std::vector<KeywordRule> rules;
  rules.push_back({Regex::compile(R"((?i)\bweather\b)"), "weather", nullptr});
  parsers.push_back(std::make_unique<KeywordParser>(std::move(rules)));
  parsers.push_back(std::make_unique<ScriptParser>("p.lua", [](std::string_view text, const auto&, const auto&) -> Value {
    if (text.find("ask") != std::string_view::npos) return Value{{"tool", "human"}, {"input", std::string(text)}};
    return nullptr;
  }));
  ParserChain chain(std::move(parsers));
  CHECK(action_of(chain.parse(R"({"action": "search", "action_input": "x"})")).tool == "search");
  CHECK(action_of(chain.parse("the weather, then")).tool == "weather");
  CHECK(action_of(chain.parse("I should ask")).tool == "human");
  std::string all = failure_of(chain.parse("nothing"));
  CHECK(all.find("no keyword rule matches") != std::string::npos);
  CHECK(all.find("the parser p.lua found no step") != std::string::npos);
}

// LangChain's ReAct parser sends "Invalid Format: Missing 'Action:' after 'Thought:'" back; a chain ending in a
// script can say exactly that instead of the engine's reasons.
TEST_CASE("a script at the end of a chain sees the earlier failures and its retry words go back alone",
          "[parse][chain][script]") {
  std::vector<std::unique_ptr<const OutputParser>> parsers;
  parsers.push_back(std::make_unique<ReactParser>(ReactPatterns{R"(Final Answer:\s*(.*))", R"(Action:\s*(.*?)\nAction Input:\s*(.*))"}));
  std::vector<std::string> seen;
  std::vector<std::string> logged;
  parsers.push_back(std::make_unique<ScriptParser>(
      "retry.lua", [&seen](std::string_view, const std::vector<std::string>& earlier, const ScriptParser::LogLine& log) {
        seen = earlier;
        if (log) log("rewording " + std::to_string(earlier.size()) + " failure");
        return Value{{"retry", "Invalid Format: Missing 'Action:' after 'Thought:'"}};
      }));
  ParserChain chain(std::move(parsers));
  ParseContext context;
  context.log = [&logged](std::string_view parser, std::string_view line) {
    logged.push_back(std::string(parser) + ": " + std::string(line));
  };
  ParsedOutput out = chain.parse_with("Thought: I wonder", context);
  REQUIRE(std::holds_alternative<ParseFailure>(out));
  CHECK(std::get<ParseFailure>(out).message == "Invalid Format: Missing 'Action:' after 'Thought:'");
  CHECK(std::get<ParseFailure>(out).verbatim);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] ==
        "could not parse LLM output: it matches neither the final-answer nor the action pattern: 'Thought: I wonder'");
  CHECK(logged == std::vector<std::string>{"retry.lua: rewording 1 failure"});
  // Without a context the script still runs; its lines are dropped.
  CHECK(failure_of(chain.parse("Thought: I wonder")) == "Invalid Format: Missing 'Action:' after 'Thought:'");
}

// LangChain's own tests of parse_json_markdown: a fence quoted inside the action input is part of the string.
TEST_CASE("json_blob: a fence inside a string value is part of it, and a fence needs no newline after it",
          "[parse][json_blob]") {
  JsonBlobParser p;
  auto sql = p.parse("Thought: query it\n```json\n{\"action\": \"sql\", \"action_input\": \"```sql\\nSELECT * FROM t\\n```\"}\n```");
  CHECK(action_of(sql).tool == "sql");
  CHECK(action_of(sql).tool_input == "```sql\nSELECT * FROM t\n```");
  auto inline_fence = p.parse("```json{\"action\": \"search\", \"action_input\": \"x\"}```");
  CHECK(action_of(inline_fence).tool == "search");
  auto whole = p.parse("  {\"action\": \"Final Answer\", \"action_input\": \"```python\\nprint(1)\\n```\"}  ");
  REQUIRE(std::holds_alternative<AgentFinish>(whole));
  CHECK(std::get<AgentFinish>(whole).output == "```python\nprint(1)\n```");
  // A first block that is not the blob: the next fence's object is read.
  auto second = p.parse("```\nnot json\n```\n```json\n{\"action\": \"b\", \"action_input\": 1}\n```");
  CHECK(action_of(second).tool == "b");
  CHECK(failure_of(p.parse("{\"action\": \"search\", \"action_input\": }"))
            .rfind("could not parse LLM output: the JSON blob is not valid JSON (", 0) == 0);
}

TEST_CASE("a chain of one parser reads a partial answer as that parser, a longer chain and a JSON blob do not",
          "[parse][chain][stream]") {
  auto react = [] {
    return std::make_unique<ReactParser>(ReactPatterns{R"(Final Answer:\s*(.*))", R"(Action:\s*(.*?)\nAction Input:\s*(.*))"});
  };
  std::vector<std::unique_ptr<const OutputParser>> one;
  one.push_back(react());
  CHECK(ParserChain(std::move(one)).answer_so_far("Final Answer: so far") == "so far");
  std::vector<std::unique_ptr<const OutputParser>> two;
  two.push_back(react());
  two.push_back(std::make_unique<JsonBlobParser>());
  CHECK_FALSE(ParserChain(std::move(two)).answer_so_far("Final Answer: so far").has_value());
  CHECK_FALSE(JsonBlobParser().answer_so_far("{\"action\": \"Final Answer\", \"action_input\": \"so").has_value());
}
