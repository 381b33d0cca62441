// A model's text through LangChain's ReAct parser (the default patterns and a Japanese one with Tool[input]
// actions): it must always give a verdict, never throw.
#include "engine/parse/react_parser.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  static const parse::ReactParser langchain(parse::ReactPatterns{
      R"(Final Answer:\s*(?P<output>.*))", R"(Action\s*\d*\s*:[\s]*(?P<tool>.*?)[\s]*Action\s*\d*\s*Input\s*\d*\s*:[\s]*(?P<input>.*))"});
  static const parse::ReactParser brackets(parse::ReactPatterns{R"(最終回答[:：]\s*(.*))", R"(行動[:：]\s*(\w+)\[(.*?)\])"});
  std::string_view text = fuzz::as_text(data, size);
  langchain.parse(text);
  brackets.parse(text);
  return 0;
}
