// What a server sends, read by the OpenAI-compatible and Anthropic providers: a whole answer, and the same bytes
// as a stream in two pieces. Only engine::Error may come out; an answer's text never holds a piece of the key.
#include <cstdlib>

#include "engine/core/redact.h"
#include "engine/llm/anthropic_llm.h"
#include "engine/llm/openai_llm.h"
#include "fuzz/fuzz_support.h"

namespace {

const char* const kKey = "sk-fuzz-0123456789abcdef";

engine::llm::LlmRequest request(bool stream, engine::EventSink* events) {
  engine::llm::LlmRequest r;
  r.prompt = "Question: 2+2?\nThought:";
  r.stop = {"\nObservation:"};
  r.stream = stream;
  r.events = events;
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engine;
  static const bool env = (setenv("ENGINE_FUZZ_KEY", kKey, 1), true);
  (void)env;
  llm::OpenAiConfig oc;
  oc.model = "fuzz";
  oc.api_key_env = "ENGINE_FUZZ_KEY";
  static const llm::OpenAiLlm openai(oc);
  llm::AnthropicConfig ac;
  ac.model = "fuzz";
  ac.api_key_env = "ENGINE_FUZZ_KEY";
  static const llm::AnthropicLlm anthropic(ac);

  std::string_view body = fuzz::as_text(data, size);
  size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  std::vector<std::string_view> whole{body}, split{body.substr(0, cut), body.substr(cut)};
  NullSink sink;
  for (const llm::LlmClient* client : {static_cast<const llm::LlmClient*>(&openai), static_cast<const llm::LlmClient*>(&anthropic)}) {
    auto read = [&](bool stream, const std::vector<std::string_view>& pieces) {
      llm::LlmRequest r = request(stream, &sink);
      if (client == &openai) openai.read_answer(r, pieces);
      else anthropic.read_answer(r, pieces);
    };
    fuzz::expect_value_or_error([&] { read(false, whole); });
    fuzz::expect_value_or_error([&] { read(true, split); });
  }
  return 0;
}
