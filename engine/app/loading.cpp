#include "engine/app/loading.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/text.h"
#include "engine/spec/search_path.h"

namespace engine::app {
namespace {

void override_llm(spec::WorkflowSpec& spec, const std::string& llm) {
  size_t colon = llm.find(':');
  const std::vector<std::string>& providers = spec::override_providers();
  std::string provider = llm.substr(0, colon);
  if (colon == std::string::npos || colon + 1 == llm.size() ||
      std::find(providers.begin(), providers.end(), provider) == providers.end())
    throw Error(ErrorKind::Usage, "--llm takes PROVIDER:MODEL with PROVIDER one of " + join(providers, ", ") +
                             did_you_mean(provider, providers) + ", got '" + llm + "'");
  auto override = [&](spec::LlmSpec& l) {
    // Another provider's key variable would send that provider's key to this one: the preset's own is read instead.
    if (l.provider.value != provider) l.api_key_env.clear();
    l.provider = {provider, {}};
    if (provider == "replay") {
      // the file is named on the command line, so it is relative to where the command runs
      l.recording = {llm.substr(colon + 1), {}};
      l.recording_file = l.recording.value;
    } else {
      l.model = llm.substr(colon + 1);
      l.base_url.clear();  // the preset's, not the workflow's server
    }
  };
  override(spec.llm);
  spec::for_each_step(spec.steps, [&](spec::StepSpec& st) {
    if (st.llm) override(*st.llm);
  });
}

}  // namespace

const std::vector<std::string>& llm_providers() { return spec::override_providers(); }

std::vector<std::string> installed_workflow_names() { return spec::installed_workflow_names(); }

std::string documentation_folder() { return spec::shipped_docs_folder().string(); }

std::string model_override(const std::string& llm, const std::string& replay_file) {
  if (replay_file.empty()) return llm;
  if (!llm.empty()) throw Error(ErrorKind::Usage, "--replay FILE and --llm both choose the model; give one of them");
  return "replay:" + replay_file;
}

std::shared_ptr<const workflow::Executor> load_executor(const std::string& path, const LoadOptions& options) {
  spec::WorkflowSpec spec =
      spec::load_workflow(spec::find_workflow_file(path), {.search_path = {spec::default_search_path()}, .secrets = options.secrets});
  if (!options.llm.empty()) override_llm(spec, options.llm);
  size_t calls = spec.llm.max_concurrent_calls ? static_cast<size_t>(*spec.llm.max_concurrent_calls)
                 : options.calls_in_flight > 0     ? options.calls_in_flight
                                                   : assemble::kDefaultLlmConcurrency;
  auto gate = std::make_shared<llm::LlmGate>(calls, options.rate_limits);
  return assemble::build_executor(
      spec, {.record_file = options.record_file,
             .llm_gate = std::move(gate),
             .connect_mcp = options.connect_mcp,
             .io = options.io});
}

}  // namespace engine::app
