#include "engine/cli/console_mask.h"

#include <cstdio>
#include <iostream>

namespace engine::cli {

ConsoleMask::ConsoleMask()
    : out_buf_(std::cout.rdbuf()),
      err_buf_(std::cerr.rdbuf()),
      log_buf_(std::clog.rdbuf()),
      secrets_(SecretSet::with_environment_keys()),
      out_(std::make_unique<MaskingStreambuf>(out_buf_, secrets_)),
      err_(std::make_unique<MaskingStreambuf>(err_buf_, secrets_)) {
  std::cout.rdbuf(out_.get());
  std::cerr.rdbuf(err_.get());
  std::clog.rdbuf(err_.get());
}

bool ConsoleMask::finish_output() {
  bool sent = out_->finish();
  // A flush that failed earlier (std::endl on a full disk) left its mark on the stream and on stdout.
  return std::fflush(stdout) == 0 && sent && !std::cout.fail() && !std::ferror(stdout);
}

ConsoleMask::~ConsoleMask() {
  out_->finish();
  err_->finish();
  std::cout.rdbuf(out_buf_);
  std::cerr.rdbuf(err_buf_);
  std::clog.rdbuf(log_buf_);
}

std::shared_ptr<SecretSet> console_secrets() {
  // The stream's buffer is the mask main() put there; the stream is the one way to it that is not a global.
  if (auto* mask = dynamic_cast<MaskingStreambuf*>(std::cout.rdbuf())) return mask->secrets();
  return SecretSet::with_environment_keys();
}

}  // namespace engine::cli
