#include "engine/core/masking_streambuf.h"

namespace engine {

MaskingStreambuf::MaskingStreambuf(std::streambuf* inner, std::shared_ptr<SecretSet> secrets)
    : inner_(inner), secrets_(std::move(secrets)), writer_(secrets_) {}

MaskingStreambuf::~MaskingStreambuf() { finish(); }

bool MaskingStreambuf::finish() {
  std::lock_guard lock(mutex_);
  writer_.finish(out_);
  send();
  return inner_->pubsync() == 0 && !failed_;
}

void MaskingStreambuf::send() {
  if (!out_.empty() && inner_->sputn(out_.data(), static_cast<std::streamsize>(out_.size())) !=
                           static_cast<std::streamsize>(out_.size()))
    failed_ = true;
  out_.clear();
}

MaskingStreambuf::int_type MaskingStreambuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  char c = traits_type::to_char_type(ch);
  return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
}

std::streamsize MaskingStreambuf::xsputn(const char* s, std::streamsize n) {
  std::lock_guard lock(mutex_);
  writer_.write(std::string_view(s, static_cast<size_t>(n)), out_);
  send();
  return failed_ ? 0 : n;
}

int MaskingStreambuf::sync() {
  std::lock_guard lock(mutex_);
  writer_.write({}, out_, true);
  send();
  return inner_->pubsync() == 0 && !failed_ ? 0 : -1;
}

}  // namespace engine
