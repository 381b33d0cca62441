#pragma once
// Keeping secrets (API keys) out of every output. A server may quote a key back, whole or in part, in an error body,
// an answer or a stream; the key must reach no console, trace, recording, --json result or error message, not even
// a piece of it. So the whole key, and any run of kMinSecretFragment or more of its bytes, becomes "***", and this
// happens before anything cuts the text to an excerpt (a cut key would no longer match).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/event.h"
#include "engine/core/value.h"

namespace engine {

// Eight bytes of a random key are 48 bits of it: enough to matter, and longer than the shared prefixes ("sk-",
// "sk-ant-") that ordinary text may hold.
inline constexpr size_t kMinSecretFragment = 8;

class Redactor {
 public:
  Redactor() = default;
  // Secrets shorter than four bytes are ignored: they would mask ordinary text.
  explicit Redactor(std::vector<std::string> secrets);

  bool empty() const { return secrets_.empty(); }
  const std::vector<std::string>& secrets() const { return secrets_; }
  std::string redact(std::string_view text) const;

  // For text that arrives in pieces: appends the redacted text[from, limit) to `out` as far as it is decided, and
  // returns where it stopped. A position whose secret run could still grow with the next piece is not decided;
  // with `final` everything up to `limit` is. The pieces shown add up to exactly redact(whole text).
  size_t redact_stream(std::string_view text, size_t from, size_t limit, bool final, std::string& out) const;

 private:
  // The longest run starting at text[i] that is a piece of a secret and long enough to mask, or 0.
  size_t secret_run(std::string_view text, size_t i) const;
  // Whether text[i, end) could still be the start of a secret run (it is a piece of a secret).
  bool could_grow(std::string_view text, size_t i) const;

  std::vector<std::string> secrets_;
  std::vector<uint64_t> pairs_;  // a bit per two-byte pair that starts a maskable run: a cheap first filter
};

// The text with each secret, and each maskable piece of one, replaced by "***".
std::string redact_secrets(std::string_view text, const std::vector<std::string>& secrets);

// `text` with the values of OPENAI_API_KEY and ANTHROPIC_API_KEY (and their pieces) masked: for what is shown before
// a workflow (and so its redactor) exists, such as the error that kept it from loading.
std::string redact_environment_keys(std::string_view text);
// The redactor of those two variables' values, as they are now.
Redactor environment_keys_redactor();

// The variables the providers read their keys from by default: the one list both the redactor of a front end with
// no workflow (above) and every executor's redactor (assemble/) mask.
const std::vector<std::string>& standard_key_variables();

// `redactor`'s secrets masked also as they appear inside a JSON string (a quote or a backslash in a key is escaped
// there): for text that is JSON already, a --json document, a trace line, a request body.
Redactor json_text_redactor(const Redactor& redactor);

// Every string in `v` (keys too) redacted in place.
void redact_value(Value& v, const Redactor& redactor);

// Forwards events with every string redacted: what the command line puts in front of the console, the trace file
// and any other sink, so a key that reached a run some other way (an environment variable interpolated into a
// workflow, an input) is masked in every output all the same.
class RedactingSink : public EventSink {
 public:
  RedactingSink(EventSink& inner, const Redactor& redactor) : inner_(inner), redactor_(redactor) {}
  void receive(const Event& event, const EventPlace& place) override;
  EventDetail detail() const override { return inner_.detail(); }

 private:
  EventSink& inner_;
  const Redactor& redactor_;
};

}  // namespace engine
