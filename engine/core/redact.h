#pragma once
// Keeping secrets (API keys) out of every output. A server may quote a key back, whole or in part, in an error body,
// an answer or a stream; the key must reach no console, trace, recording, --json result or error message, not even
// a piece of it. So the whole key, and any run of kMinSecretFragment or more of its bytes, becomes "***", and this
// happens before anything cuts the text to an excerpt (a cut key would no longer match).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// The variables the providers read their keys from by default: what every SecretSet a front end or a load makes
// holds from the start (secret_set.h).
const std::vector<std::string>& standard_key_variables();

// Every string in `v` (keys too) redacted in place.
void redact_value(Value& v, const Redactor& redactor);

}  // namespace engine
