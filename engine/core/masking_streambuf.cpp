#include "engine/core/masking_streambuf.h"

#include <algorithm>


namespace engine {

MaskingStreambuf::MaskingStreambuf(std::streambuf* inner, const Redactor& redactor) : inner_(inner) { mask(redactor); }

MaskingStreambuf::~MaskingStreambuf() { finish(); }

void MaskingStreambuf::mask(const Redactor& more) {
  if (more.empty()) return;
  std::lock_guard lock(mutex_);
  size_t known = secrets_.size();
  // A reload adds the same workflows' keys again: each is kept once.
  Redactor masks = json_text_redactor(more);
  for (const std::string& secret : masks.secrets())
    if (std::find(secrets_.begin(), secrets_.end(), secret) == secrets_.end()) secrets_.push_back(secret);
  if (secrets_.size() > known) redactor_ = Redactor(secrets_);
}

bool MaskingStreambuf::finish() {
  std::lock_guard lock(mutex_);
  pass(true, true);
  return inner_->pubsync() == 0 && !failed_;
}

void MaskingStreambuf::pass(bool flush, bool final) {
  out_.clear();
  size_t done = redactor_.redact_stream(pending_, 0, pending_.size(), final, out_);
  if (flush && pending_.size() - done < kMinSecretFragment / 2)
    done = redactor_.redact_stream(pending_, done, pending_.size(), true, out_);
  pending_.erase(0, done);
  if (!out_.empty() && inner_->sputn(out_.data(), static_cast<std::streamsize>(out_.size())) !=
                           static_cast<std::streamsize>(out_.size()))
    failed_ = true;
}

MaskingStreambuf::int_type MaskingStreambuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  char c = traits_type::to_char_type(ch);
  return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
}

std::streamsize MaskingStreambuf::xsputn(const char* s, std::streamsize n) {
  std::lock_guard lock(mutex_);
  pending_.append(s, static_cast<size_t>(n));
  pass(false);
  return failed_ ? 0 : n;
}

int MaskingStreambuf::sync() {
  std::lock_guard lock(mutex_);
  pass(true);
  return inner_->pubsync() == 0 && !failed_ ? 0 : -1;
}

}  // namespace engine
