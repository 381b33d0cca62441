#include <catch2/catch.hpp>

#include "engine/core/error.h"
#include "engine/parse/react_parser.h"
#include "engine/spec/default_react.h"

using namespace engine::parse;

namespace {
ReactParser langchain_parser() {
  return ReactParser(ReactPatterns{engine::spec::kDefaultFinalAnswerRegex, engine::spec::kDefaultActionRegex});
}
}  // namespace

TEST_CASE("an action is parsed into tool and input, stripped as LangChain does", "[parse]") {
  auto out = langchain_parser().parse(" I should search.\nAction: Search\nAction Input: \"weather in SF\"\n");
  auto* a = std::get_if<AgentAction>(&out);
  REQUIRE(a);
  CHECK(a->tool == "Search");
  CHECK(a->tool_input == "weather in SF");
  CHECK(a->log == " I should search.\nAction: Search\nAction Input: \"weather in SF\"\n");
}

TEST_CASE("a final answer is parsed", "[parse]") {
  auto out = langchain_parser().parse(" I now know.\nFinal Answer: 87\n");
  auto* f = std::get_if<AgentFinish>(&out);
  REQUIRE(f);
  CHECK(f->output == "87");
}

// LangChain Python: text.split("Final Answer:")[-1].strip(); LangChain's test_parse_final_answer_multiline too.
TEST_CASE("the default final answer is the text after the last Final Answer:, over several lines", "[parse]") {
  auto out = langchain_parser().parse("Final Answer: a draft\nThought: better\nFinal Answer: 42\nand more");
  auto* f = std::get_if<AgentFinish>(&out);
  REQUIRE(f);
  CHECK(f->output == "42\nand more");
  auto one = langchain_parser().parse(" I know.\nFinal Answer: line one\nline two\n");
  REQUIRE(std::get_if<AgentFinish>(&one));
  CHECK(std::get<AgentFinish>(one).output == "line one\nline two");
}

TEST_CASE("both an action and a final answer is an error, as in LangChain", "[parse]") {
  auto out = langchain_parser().parse("Action: calc\nAction Input: 1\nFinal Answer: 2");
  auto* e = std::get_if<ParseFailure>(&out);
  REQUIRE(e);
  CHECK(e->message == "could not parse LLM output: it has both a final answer and an action: 'Action: calc\\n"
        "Action Input: 1\\n"
        "Final Answer: 2'");
}

TEST_CASE("text that matches neither pattern is a parse failure", "[parse]") {
  auto out = langchain_parser().parse("I am not sure what to do.");
  auto* e = std::get_if<ParseFailure>(&out);
  REQUIRE(e);
  CHECK(e->message ==
        "could not parse LLM output: it matches neither the final-answer nor the action pattern: "
        "'I am not sure what to do.'");
}

TEST_CASE("a 1 MB LLM output is parsed without trouble", "[parse]") {
  std::string big = "Thought: " + std::string(1 << 20, 'z') + "\nFinal Answer: done";
  auto out = langchain_parser().parse(big);
  REQUIRE(std::get_if<AgentFinish>(&out));
  auto junk = langchain_parser().parse(std::string(1 << 20, 'q'));
  auto* e = std::get_if<ParseFailure>(&junk);
  REQUIRE(e);
  CHECK(e->message.size() < 400);  // the error quotes an excerpt, not the megabyte
}

TEST_CASE("unnamed groups work: the first two are tool and input", "[parse]") {
  ReactParser p(ReactPatterns{"Final Answer:(.*)", R"(Action\s*\d*\s*:(.*?)\nAction\s*\d*\s*Input\s*\d*\s*:[\s]*(.*))"});
  auto out = p.parse("Action: Search\nAction Input: canada");
  auto* a = std::get_if<AgentAction>(&out);
  REQUIRE(a);
  CHECK(a->tool == "Search");
  CHECK(a->tool_input == "canada");
}

TEST_CASE("a regex that names its groups must name the ones the parser reads, not fall back to positions", "[parse]") {
  auto refusal = [](const char* final_answer, const char* action) -> std::string {
    try {
      ReactParser(ReactPatterns{final_answer, action});
    } catch (const engine::Error& e) {
      return e.message();
    }
    return "no error";
  };
  CHECK(refusal("Final Answer:(.*)", "Action: (?P<tool_name>\\w+)\\nAction Input: (?P<input>.*)") ==
        "action regex names its groups tool_name, input, but the parser reads groups named 'tool' (or 'action') and "
        "'input' (or 'tool_input', 'action_input')");
  CHECK(refusal("Final Answer: (?P<answr>.*)", "Action: (\\w+) (.*)") ==
        "final_answer regex names its groups answr, but the parser reads a group named 'output' (or 'answer', "
        "'final_answer')");
  // Positions are still read when no group is named, and the usual names and their aliases are read.
  CHECK(refusal("Final Answer:(.*)", "Action: (\\w+) (.*)") == "no error");
  CHECK(refusal("Final Answer: (?P<answer>.*)", "Action: (?P<action>\\w+) (?P<action_input>.*)") == "no error");
}

TEST_CASE("an action regex without tool and input groups is rejected", "[parse]") {
  try {
    ReactParser(ReactPatterns{"Final Answer:(.*)", "Action: \\w+"});
    FAIL("no error");
  } catch (const engine::Error& e) {
    CHECK(e.kind() == engine::ErrorKind::RegexMissingGroup);
    CHECK(e.message() == "action regex needs groups named 'tool' and 'input' (or two groups), found 0");
  }
  try {
    ReactParser(ReactPatterns{"Final Answer:(.*", "Action: (\\w+) (.*)"});
    FAIL("no error");
  } catch (const engine::Error& e) {
    CHECK(e.message() == "final_answer invalid regex: missing closing parenthesis at offset 16");
  }
}

// LangChain's XML agent writes <tool>search</tool><tool_input>a &lt; b</tool_input> and unescapes what it reads.
TEST_CASE("a parser that decodes XML entities gives the tool, its input and the answer unescaped", "[parse]") {
  ReactPatterns xml{"<final_answer>(?P<output>.*?)</final_answer>", "<tool>(?P<tool>.*?)</tool>\\s*<tool_input>(?P<input>.*?)</tool_input>"};
  xml.decode_xml_entities = true;
  ReactParser p(xml);
  auto action = p.parse("<tool>search</tool><tool_input>price &lt; 10 &amp;&amp; in &quot;EU&quot;</tool_input>");
  REQUIRE(std::get_if<AgentAction>(&action));
  CHECK(std::get<AgentAction>(action).tool_input == "price < 10 && in \"EU\"");
  auto finish = p.parse("<final_answer>1 &lt; 2</final_answer>");
  REQUIRE(std::get_if<AgentFinish>(&finish));
  CHECK(std::get<AgentFinish>(finish).output == "1 < 2");
  xml.decode_xml_entities = false;  // off by default: what was written is kept
  auto kept = ReactParser(xml).parse("<final_answer>1 &lt; 2</final_answer>");
  CHECK(std::get<AgentFinish>(kept).output == "1 &lt; 2");
}

TEST_CASE("a partial text's answer so far is what follows Final Answer:, and stops where an action could start",
          "[parse][stream]") {
  ReactParser p = langchain_parser();
  CHECK_FALSE(p.answer_so_far("Thought: I know").has_value());
  CHECK_FALSE(p.answer_so_far("Thought: I know\nFinal Ans").has_value());
  CHECK(p.answer_so_far("Thought: I know\nFinal Answer:") == "");
  CHECK(p.answer_so_far("Thought: I know\nFinal Answer: The capital ") == "The capital");
  CHECK(p.answer_so_far("Thought: I know\nFinal Answer: The capital is Paris") == "The capital is Paris");
  // "A" could start "Action:", and "Action: x" could become an action once its input comes: held back.
  CHECK(p.answer_so_far("Final Answer: maybe\nA") == "maybe");
  CHECK(p.answer_so_far("Final Answer: maybe\nAction: echo") == "maybe");
  CHECK(p.answer_so_far("Final Answer: maybe\nAction: echo\nAction Input: x") == "maybe");
  CHECK(p.answer_so_far("Final Answer: Answers vary") == "Answers vary");  // "An" cannot start "Action"
  // A Thought that mentions an action holds the whole answer back: it may be one.
  CHECK(p.answer_so_far("Thought: Action: search\nFinal Answer: 42") == "");
}

TEST_CASE("the answer so far is the whole answer once the text is whole, unless entities are decoded",
          "[parse][stream]") {
  ReactParser p = langchain_parser();
  std::string text = " I now know.\nFinal Answer: line one\nline two\n";
  CHECK(p.answer_so_far(text) == std::get<AgentFinish>(p.parse(text)).output);
  ReactParser xml(ReactPatterns{.final_answer = "<final_answer>(.*)</final_answer>",
                                .action = "<tool>(.*?)</tool>.*<tool_input>(.*)</tool_input>",
                                .decode_xml_entities = true});
  CHECK_FALSE(xml.answer_so_far("<final_answer>a &amp; b</final_answer>").has_value());
  ReactParser answer_wins(ReactPatterns{.final_answer = engine::spec::kDefaultFinalAnswerRegex,
                                        .action = engine::spec::kDefaultActionRegex,
                                        .both = BothVerdicts::FinalAnswer});
  CHECK(answer_wins.answer_so_far("Final Answer: maybe\nAction: echo") == "maybe\nAction: echo");
}
