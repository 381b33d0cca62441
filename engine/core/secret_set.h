#pragma once
// The one set of values no output may show (docs/security.md, "Secrets"). Whatever reads a secret adds it as it reads
// it: the spec loader the values of `${VAR}` in key positions (MCP servers' env and headers, grants' headers) and of
// credential-named headers, the model builder the keys its providers are given, the exporter its collector's
// headers. A workflow and every workflow it reaches (its steps', its tools') share one set, as a front end's
// workflows share the front end's. The set is read only where bytes leave the process: the console and trace files
// (MaskingStreambuf), HTTP responses and streams (server/'s exchange), the exporter's requests, the store's records.
// Append-only: a secret once known stays masked for the life of the set.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/redact.h"
#include "engine/core/value.h"

namespace engine {

class SecretSet {
 public:
  SecretSet() = default;
  SecretSet(const SecretSet&) = delete;
  SecretSet& operator=(const SecretSet&) = delete;

  // A set holding the values of the standard key variables as they are now (standard_key_variables()): what a front
  // end masks before any workflow is loaded.
  static std::shared_ptr<SecretSet> with_environment_keys();

  // From any thread. A value shorter than four bytes is ignored (it would mask ordinary text); one known already is
  // kept once.
  void add(std::string_view secret);
  // Every secret of `other` (its values as added), as if each were added here.
  void add_all(const SecretSet& other);
  // What masks the set as it is now, each secret as written, as it appears inside a JSON string and inside a JSON
  // string in one (a key quoted in a JSON document or a trace line is escaped there). A snapshot: later additions
  // make a new one.
  std::shared_ptr<const Redactor> masks() const;
  bool empty() const;
  // Whether `value` is one of the secrets as written.
  bool holds(std::string_view value) const;

  // `text` with every secret, and every maskable piece of one, replaced by "***".
  std::string mask(std::string_view text) const { return masks()->redact(text); }
  // Every string in `v`, keys too, masked in place.
  void mask(Value& v) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> added_;    // as added
  std::vector<std::string> secrets_;  // and in their JSON-escaped forms: what masks_ masks
  std::shared_ptr<const Redactor> masks_ = std::make_shared<const Redactor>();
};

// Text that leaves in pieces (a stream, a console, a file), masked on its way: a tail that may be the start of a
// secret is held back until the next piece decides it. The pieces written add up to exactly the masked whole.
// Not thread-safe: the owner (a stream buffer, an exchange) serialises its writes.
class MaskingWriter {
 public:
  explicit MaskingWriter(std::shared_ptr<const SecretSet> secrets) : secrets_(std::move(secrets)) {}

  // Appends to `out` what of the text so far is decided. With `flush`, a held tail is sent too when it is shorter
  // than half a maskable piece: a prompt or a line is never kept from its reader, and what a flush lets through of a
  // secret is shorter than any piece masked anywhere.
  void write(std::string_view piece, std::string& out, bool flush = false);
  // The end of the text: appends everything still held, decided.
  void finish(std::string& out);
  const std::shared_ptr<const SecretSet>& secrets() const { return secrets_; }
  // Whether a tail is held back: nothing else may be put between it and what follows.
  bool holding() const { return !pending_.empty(); }

 private:
  std::shared_ptr<const SecretSet> secrets_;
  std::string pending_;  // written, not yet decided
};

// Whether a header carries credentials by its name (Authorization, Proxy-Authorization, Cookie, names with key,
// token or secret): its value is a secret however it was written.
bool is_credential_header(std::string_view name);

}  // namespace engine
