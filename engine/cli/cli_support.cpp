#include "engine/cli/cli_support.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <new>

#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/redact.h"
#include "engine/core/text.h"
#include "engine/spec/search_path.h"

namespace engine::cli {

void add_input_options(CLI::App& cmd, InputOptions& o) {
  cmd.add_option("-i,--input", o.pairs, "An input: key=value, or a bare value for the workflow's single input");
  cmd.add_option("--inputs", o.file, "A JSON file with an object of inputs");
}

std::shared_ptr<const workflow::Executor> build_executor(const std::string& path, const std::string& llm_override,
                                                         const assemble::BuildOptions& options) {
  spec::WorkflowSpec spec = spec::load_workflow(path, {spec::default_search_path()});
  if (!llm_override.empty()) {
    size_t colon = llm_override.find(':');
    const std::vector<std::string>& providers = spec::override_providers();
    std::string provider = llm_override.substr(0, colon);
    if (colon == std::string::npos || colon + 1 == llm_override.size() ||
        std::find(providers.begin(), providers.end(), provider) == providers.end())
      throw Error("usage", "--llm takes PROVIDER:MODEL with PROVIDER one of " + join(providers, ", ") +
                               did_you_mean(provider, providers) + ", got '" + llm_override + "'");
    // Every model the file names, the workflow's and its steps' own.
    auto override = [&](spec::LlmSpec& l) {
      l.provider = {provider, {}};
      if (provider == "replay") {
        // the file is named on the command line, so it is relative to where the command runs
        l.recording = {llm_override.substr(colon + 1), {}};
        l.recording_file = l.recording.value;
      } else {
        l.model = llm_override.substr(colon + 1);
        l.base_url.clear();  // the preset's, not the workflow's server
      }
    };
    override(spec.llm);
    spec::for_each_step(spec.steps, [&](spec::StepSpec& st) {
      if (st.llm) override(*st.llm);
    });
  }
  return assemble::build_executor(spec, options);
}

Value collect_inputs(const workflow::Executor& executor, const InputOptions& o) {
  return executor.resolve_inputs(given_inputs(executor, o));
}

void require_chat_input(const workflow::Executor& executor) {
  if (!executor.chat_input().empty()) return;
  std::vector<std::string> names;
  for (const auto& i : executor.inputs()) names.push_back(i.name);
  throw Error("usage", "a chat needs to know which input holds the human's message, and this workflow has " +
                           (names.empty() ? std::string("no inputs") : "the inputs " + join(names, ", ")) +
                           ": declare an input named 'input', or set agent.memory.input_key");
}

std::string chat_message(const workflow::Executor& executor, const Value& inputs) {
  const Value& message = inputs[executor.chat_input()];
  return message.is_string() ? message.get<std::string>() : to_json_text(message);
}

Value given_inputs(const workflow::Executor& executor, const InputOptions& o) {
  Value given = Value::object();
  if (!o.file.empty()) {
    JsonError why{false, "not an object"};
    Value v = parse_json_file(o.file, kMaxFileBytes, Pipes::Allowed, &why);
    if (v.is_discarded() || !v.is_object())
      throw Error("input.bad_file", "--inputs " + o.file + ": expected a JSON object of inputs (" + why.message + ")");
    given = std::move(v);
  }
  std::vector<std::string> names;
  for (const auto& i : executor.inputs()) names.push_back(i.name);
  for (const auto& pair : o.pairs) {
    size_t eq = pair.find('=');
    std::string key = eq == std::string::npos ? "" : pair.substr(0, eq);
    if (!key.empty() && std::find(names.begin(), names.end(), key) != names.end()) {
      given[key] = pair.substr(eq + 1);
      continue;
    }
    // A bare value goes to the one input that has no default, or to the only input.
    std::vector<std::string> candidates;
    for (const auto& i : executor.inputs())
      if (!i.default_value) candidates.push_back(i.name);
    if (candidates.size() != 1 && names.size() == 1) candidates = names;
    if (candidates.size() != 1)
      throw Error("input.ambiguous", "--input '" + quote_excerpt(pair, 40) +
                                         "' has no key, and the workflow has " + std::to_string(names.size()) +
                                         " inputs; write --input NAME=VALUE (inputs: " + join(names, ", ") + ")");
    given[candidates[0]] = pair;
  }
  return given;
}

std::string redact_environment_keys(const std::string& text) {
  std::vector<std::string> keys;
  for (const char* name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY"})
    if (const char* v = std::getenv(name)) keys.emplace_back(v);
  return redact_secrets(text, keys);
}

// The usual key variables are masked in every error, even one raised before a workflow names its own.
void print_error(const std::string& formatted) {
  std::cerr << "engine: error: " << terminal_safe(redact_environment_keys(formatted)) << std::endl;
}

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& e) {
    print_error(e.formatted());
    return kBadInput;
  } catch (const std::bad_alloc&) {
    print_error("out of memory (engine.out_of_memory): a limit is set higher than this machine can hold");
  } catch (const std::exception& e) {
    print_error(std::string("internal error (engine.internal): ") + e.what());
  }
  return kRunFailed;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO); }

bool stderr_wants_color(bool no_color_flag) {
  if (no_color_flag) return false;
  const char* nc = std::getenv("NO_COLOR");
  if (nc && *nc) return false;
  return stderr_is_terminal();
}

}  // namespace engine::cli
