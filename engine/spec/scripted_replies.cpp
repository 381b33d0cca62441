#include "engine/spec/scripted_replies.h"

#include "engine/core/json_text.h"
#include "engine/spec/format_keys.h"

namespace engine::spec {

namespace keys {

// The keys this file reads (format_keys.h).
const KeyList kScriptedReply = {"content", "tool_calls"};
const KeyList kToolCall = {"name", "arguments"};

}  // namespace keys

std::vector<ScriptedReplySpec> read_scripted_replies(const YamlReader& r, const YAML::Node& n, const std::string& path) {
  std::vector<ScriptedReplySpec> out;
  if (n.IsScalar()) return {{r.located_str(n, path), {}}};
  if (!n.IsSequence()) r.fail(ErrorKind::SpecWrongType, path + " must be a list", n);
  for (size_t i = 0; i < n.size(); ++i) {
    std::string item = path + "[" + std::to_string(i) + "]";
    if (!n[i].IsMap()) {
      out.push_back({r.located_str(n[i], item), {}});
      continue;
    }
    r.expect_map(n[i], item, keys::kScriptedReply);
    ScriptedReplySpec reply;
    reply.text.loc = r.loc(n[i]);
    if (n[i]["content"]) reply.text = r.located_str(n[i]["content"], item + ".content");
    if (n[i]["tool_calls"]) reply.tool_calls = read_scripted_tool_calls(r, n[i]["tool_calls"], item + ".tool_calls", false);
    out.push_back(std::move(reply));
  }
  return out;
}

std::vector<ScriptedToolCallSpec> read_scripted_tool_calls(const YamlReader& r, const YAML::Node& n,
                                                           const std::string& path, bool templated) {
  std::vector<ScriptedToolCallSpec> out;
  if (!n.IsSequence() || n.size() == 0) r.fail(ErrorKind::SpecWrongType, path + " must be a list of {name, arguments}", n);
  for (size_t i = 0; i < n.size(); ++i) {
    std::string item = path + "[" + std::to_string(i) + "]";
    r.expect_map(n[i], item, keys::kToolCall);
    r.expect_present(n[i], "name", item);
    ScriptedToolCallSpec call{r.located_str(n[i]["name"], item + ".name"), {"{}", r.loc(n[i])}};
    const YAML::Node& args = n[i]["arguments"];
    if (args && args.IsMap()) call.arguments = {to_json_text(r.value(args, item + ".arguments")), r.loc(args)};
    else if (args) call.arguments = templated ? r.located_raw(args, item + ".arguments") : r.located_str(args, item + ".arguments");
    out.push_back(std::move(call));
  }
  return out;
}

}  // namespace engine::spec
