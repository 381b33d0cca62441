#include "engine/assemble/build_llm.h"

#include "engine/assemble/spec_errors.h"
#include "engine/llm/scripted_llm.h"
#include "engine/parse/regex.h"
#include "engine/template/template.h"

namespace engine::assemble {
namespace {

// A rule: the regex searches the prompt; the reply template sees the named groups, `groups` (by number) and
// `prompt`.
llm::ScriptedRule make_rule(const spec::ScriptedRuleSpec& r, size_t index, const spec::WorkflowSpec& s) {
  std::string path = "llm.scripted.rules[" + std::to_string(index) + "]";
  std::optional<parse::Regex> regex;
  try {
    regex = parse::Regex::compile(r.match.value);
  } catch (const Error& e) {
    throw at_key(e, path + ".match", r.match.loc, s);
  }
  tmpl::Template reply = tmpl::Template::compile(r.reply.value, s.display_path + " (" + path + ".reply)");
  return llm::ScriptedRule{r.match.value, [regex = std::move(*regex), reply](const std::string& prompt)
                                              -> std::optional<std::string> {
                             auto m = regex.search(prompt);
                             if (!m) return std::nullopt;
                             Value ctx = Value::object();
                             Value groups = Value::array();
                             const auto& names = regex.group_names();
                             for (size_t i = 0; i < m->groups.size(); ++i) {
                               Value g = m->groups[i] ? Value(std::string(*m->groups[i])) : Value();
                               if (!names[i].empty()) ctx[names[i]] = g;
                               groups.push_back(std::move(g));
                             }
                             ctx["groups"] = std::move(groups);
                             ctx["prompt"] = prompt;
                             return reply.render(ctx);
                           }};
}

}  // namespace

std::shared_ptr<const llm::LlmClient> build_llm(const spec::WorkflowSpec& s) {
  const spec::LlmSpec& l = s.llm;
  // spec/ admits only providers this build has; the others arrive with the HTTP providers.
  llm::ScriptedScript script;
  for (const auto& r : l.replies) script.replies.push_back(r.value);
  for (size_t i = 0; i < l.rules.size(); ++i) script.rules.push_back(make_rule(l.rules[i], i, s));
  script.latency = std::chrono::milliseconds(l.latency_ms);
  return std::make_shared<llm::ScriptedLlm>(std::move(script));
}

}  // namespace engine::assemble
