// What an MCP server answers, read by the client: each line of the input is the server's answer to the client's next
// request (the probe, initialize, the tool list's pages, a call), however malformed. Any answer must end in a
// result or an engine::Error, never a crash, a hang or another exception.
#include <deque>
#include <memory>

#include "engine/core/json_parse.h"
#include "engine/schema/schema.h"
#include "engine/tools/mcp/call_result.h"
#include "engine/tools/mcp/mcp_client.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace engine;
using namespace engine::tools::mcp;

// A server that answers from a script: the next line for each request, with the request's id put in when the line
// is an object without one (so the answer is taken as the request's).
class ScriptedChannel : public McpChannel {
 public:
  explicit ScriptedChannel(std::string_view text) {
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      lines_.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
  }
  Value request(std::string_view method, Value, const CallWait&) override {
    if (lines_.empty()) throw Error(ErrorKind::McpClosed, "the script has ended");
    Value answer = parse_json(lines_.front());
    lines_.pop_front();
    if (answer.is_discarded()) throw Error(ErrorKind::McpProtocol, "not JSON");
    if (answer.is_object() && !answer.contains("id")) answer["id"] = ++id_;
    (void)method;
    return answer;
  }
  void notify(std::string_view, Value, const CallWait&) override {}
  bool alive() const override { return true; }

 private:
  std::deque<std::string> lines_;
  int64_t id_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  McpClient client(std::make_unique<ScriptedChannel>(engine::fuzz::as_text(data, size)));
  CallWait wait;
  wait.what = "a request";
  try {
    client.open(false, wait, std::chrono::steady_clock::now());
    for (const ListedTool& t : client.list_tools(1000, wait)) {
      try {
        schema::Schema::compile(t.input_schema);
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
  static const schema::Schema kSum = schema::Schema::compile(
      Value{{"type", "object"}, {"properties", {{"sum", {{"type", "number"}}}}}, {"required", {"sum"}}});
  for (const schema::Schema* output : {static_cast<const schema::Schema*>(nullptr), &kSum}) {
    try {
      Value result = client.call_tool("t", Value::object(), wait);
      engine::tools::ToolResult r = call_result(std::move(result), "t", output);
      (void)r.text();
    } catch (const Error&) {
    }
  }
  return 0;
}
