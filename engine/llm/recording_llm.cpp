#include "engine/llm/recording_llm.h"

#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"

namespace engine::llm {

RecordingLlm::RecordingLlm(std::shared_ptr<const LlmClient> inner, const std::string& file,
                           std::shared_ptr<const SecretSet> secrets)
    : inner_(std::move(inner)), secrets_(std::move(secrets)), out_(file, std::ios::trunc) {
  if (!out_) throw Error(ErrorKind::IoWriteFailed, "cannot write the recording file '" + file + "'");
}

LlmResponse RecordingLlm::complete(const LlmRequest& request) const {
  LlmResponse response = inner_->complete(request);
  Value entry{{"llm", inner_->describe()}, {"request", request_to_json(request)}, {"response", response_to_json(response)}};
  std::string line = secrets_->mask(to_json_text(entry));
  std::lock_guard<std::mutex> lock(mu_);
  out_ << line << '\n';
  out_.flush();  // a run that fails later still leaves the calls it made
  return response;
}

}  // namespace engine::llm
