#include "engine/cli/console_mask.h"

#include <cstdio>
#include <iostream>

namespace engine::cli {

ConsoleMask::ConsoleMask()
    : out_buf_(std::cout.rdbuf()),
      err_buf_(std::cerr.rdbuf()),
      log_buf_(std::clog.rdbuf()),
      out_(std::make_unique<MaskingStreambuf>(out_buf_, environment_keys_redactor())),
      err_(std::make_unique<MaskingStreambuf>(err_buf_, environment_keys_redactor())) {
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

void mask_on_console(const Redactor& redactor) {
  // The streams' buffers are the masks main() put there; a test or a tool without them has nothing to add to.
  for (std::ostream* stream : {static_cast<std::ostream*>(&std::cout), static_cast<std::ostream*>(&std::cerr)})
    if (auto* mask = dynamic_cast<MaskingStreambuf*>(stream->rdbuf())) mask->mask(redactor);
}

}  // namespace engine::cli
