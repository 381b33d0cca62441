// inputs: and outputs:, each entry read on its own.
#include <algorithm>

#include "engine/schema/schema.h"
#include "engine/schema/schema_check.h"
#include "engine/schema/value_types.h"
#include "engine/spec/format_keys.h"
#include "engine/spec/section_readers.h"

namespace engine::spec {

namespace keys {

// The keys this reader takes (format_keys.h): a new key is added here, read below, and described in
// schema/workflow.schema.json.
const KeyList kInput = {"description", "default", "required", "type"};
const KeyList kOutput = {"description", "value"};

}  // namespace keys

std::vector<InputSpec> read_inputs(SectionReader& in, const YAML::Node& n) {
  std::vector<InputSpec> out;
  if (!n.IsMap()) in.r.fail(ErrorKind::SpecWrongType, "inputs must be a mapping of input names", n);
  std::vector<std::string> seen;
  for (const auto& kv : n) {
    InputSpec input;
    bool ok = in.entry([&] {
      input.name = in.r.str(kv.first, "inputs");
      input.loc = in.r.loc(kv.first);
      in.check_name(input.name, "input", kv.first);
      if (std::find(seen.begin(), seen.end(), input.name) != seen.end())
        in.r.fail(ErrorKind::SpecDuplicateKey, "duplicate input '" + input.name + "'", kv.first);
      seen.push_back(input.name);
    });
    if (!ok) continue;
    std::string path = "inputs." + input.name;
    const YAML::Node& body = kv.second;
    in.entry([&] {
      if (body.IsScalar()) {  // `question: the user's question` is a description
        input.description = in.r.str(body, path);
        return;
      }
      if (body.IsNull()) return;
      in.r.expect_map(body, path, keys::kInput);
      in.key(body, "description", [&](const YAML::Node& v) { input.description = in.r.str(v, path + ".description"); });
      in.key(body, "type", [&](const YAML::Node& v) {
        input.type =
            in.one_of(v, path + ".type", std::vector<std::string>(std::begin(schema::kValueTypes), std::end(schema::kValueTypes)))
                .value;
      });
      in.key(body, "default", [&](const YAML::Node& v) {
        Value given = in.r.value(v, path + ".default");
        if (!input.type.empty() && !schema::has_value_type(given, input.type))
          in.r.fail(ErrorKind::SpecWrongType, path + ".default must be " + schema::with_article(input.type) +
                                           " (the input's type), got " + schema::json_type_name(given), v);
        input.default_value = std::move(given);
      });
      in.key(body, "required", [&](const YAML::Node& v) {
        if (in.r.boolean(v, path + ".required") || input.default_value) return;
        if (!input.type.empty() && input.type != "string")
          in.r.fail(ErrorKind::SpecBadValue, path + ": an optional input of type " + input.type +
                                          " needs a default of that type (without one it would be \"\")", v);
        input.default_value = Value("");
      });
    });
    out.push_back(std::move(input));
  }
  return out;
}

std::vector<OutputSpec> read_outputs(SectionReader& in, const YAML::Node& n) {
  std::vector<OutputSpec> out;
  if (!n.IsMap()) in.r.fail(ErrorKind::SpecWrongType, "outputs must be a mapping of output names", n);
  for (const auto& kv : n) {
    OutputSpec o;
    bool ok = in.entry([&] {
      o.name = in.r.str(kv.first, "outputs");
      o.loc = in.r.loc(kv.first);
      in.check_name(o.name, "output", kv.first);
    });
    if (!ok) continue;
    std::string path = "outputs." + o.name;
    o.value = {"{{ output }}", o.loc};
    in.entry([&] {
      if (kv.second.IsScalar()) {
        o.description = in.r.str(kv.second, path);
      } else if (!kv.second.IsNull()) {
        in.r.expect_map(kv.second, path, keys::kOutput);
        in.key(kv.second, "description", [&](const YAML::Node& v) { o.description = in.r.str(v, path + ".description"); });
        in.key(kv.second, "value", [&](const YAML::Node& v) { o.value = in.r.located_raw(v, path + ".value"); });
      }
    });
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace engine::spec
