#include "engine/core/secret_set.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "engine/core/json_text.h"

namespace engine {

std::shared_ptr<SecretSet> SecretSet::with_environment_keys() {
  auto set = std::make_shared<SecretSet>();
  for (const std::string& name : standard_key_variables())
    if (const char* value = std::getenv(name.c_str())) set->add(value);
  return set;
}

void SecretSet::add(std::string_view secret) {
  if (secret.size() < 4) return;
  // As written, inside a JSON string, and inside a JSON string inside one (a span's content attribute is JSON text,
  // and the exporter's body holds it as a string).
  std::vector<std::string> forms{std::string(secret)};
  for (int depth = 0; depth < 2; ++depth) {
    std::string quoted;
    append_json_string(quoted, forms.back());
    std::string escaped = quoted.substr(1, quoted.size() - 2);
    if (escaped == forms.back()) break;
    forms.push_back(std::move(escaped));
  }
  std::lock_guard lock(mu_);
  if (std::find(added_.begin(), added_.end(), secret) != added_.end()) return;
  added_.emplace_back(secret);
  size_t known = secrets_.size();
  for (auto& form : forms)
    if (std::find(secrets_.begin(), secrets_.end(), form) == secrets_.end()) secrets_.push_back(std::move(form));
  if (secrets_.size() != known) masks_ = std::make_shared<const Redactor>(secrets_);
}

void SecretSet::add_all(const SecretSet& other) {
  std::vector<std::string> values;
  {
    std::lock_guard lock(other.mu_);
    values = other.added_;
  }
  for (const std::string& value : values) add(value);
}

std::shared_ptr<const Redactor> SecretSet::masks() const {
  std::lock_guard lock(mu_);
  return masks_;
}

bool SecretSet::empty() const {
  std::lock_guard lock(mu_);
  return added_.empty();
}

bool SecretSet::holds(std::string_view value) const {
  std::lock_guard lock(mu_);
  return std::find(added_.begin(), added_.end(), value) != added_.end();
}

void SecretSet::mask(Value& v) const { redact_value(v, *masks()); }

void MaskingWriter::write(std::string_view piece, std::string& out, bool flush) {
  std::shared_ptr<const Redactor> masks = secrets_ ? secrets_->masks() : nullptr;
  if (!masks || masks->empty()) {
    // Nothing to mask (yet): what was held for an earlier secret set goes first.
    out += pending_;
    out += piece;
    pending_.clear();
    return;
  }
  pending_ += piece;
  size_t done = masks->redact_stream(pending_, 0, pending_.size(), false, out);
  if (flush && pending_.size() - done < kMinSecretFragment / 2)
    done = masks->redact_stream(pending_, done, pending_.size(), true, out);
  pending_.erase(0, done);
}

void MaskingWriter::finish(std::string& out) {
  std::shared_ptr<const Redactor> masks = secrets_ ? secrets_->masks() : nullptr;
  if (!masks) out += pending_;
  else masks->redact_stream(pending_, 0, pending_.size(), true, out);
  pending_.clear();
}

bool is_credential_header(std::string_view name) {
  std::string n(name);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n == "authorization" || n == "proxy-authorization" || n == "cookie" || n.find("key") != std::string::npos ||
         n.find("token") != std::string::npos || n.find("secret") != std::string::npos;
}

}  // namespace engine
