#pragma once
// stdout and stderr, masked where the bytes leave the process: main() puts a MaskingStreambuf in front of each for
// the whole command, so every answer, error, warning, --json document and console line is masked by one mechanism
// rather than by each place that prints. It masks the standard key variables from the start (an error may come
// before any workflow is loaded), and the secrets of each workflow loaded after that.
#include <iosfwd>
#include <memory>

#include "engine/core/masking_streambuf.h"

namespace engine::cli {

class ConsoleMask {
 public:
  ConsoleMask();
  ~ConsoleMask();  // sends what was held back and gives the streams their own buffers again
  // Sends what stdout held back, to the end: false when some of the command's output did not get through (a full
  // disk, a pipe whose reader left), which the command then reports, as every write it makes is checked.
  bool finish_output();
  ConsoleMask(const ConsoleMask&) = delete;
  ConsoleMask& operator=(const ConsoleMask&) = delete;

 private:
  std::streambuf* out_buf_;
  std::streambuf* err_buf_;
  std::streambuf* log_buf_;
  std::unique_ptr<MaskingStreambuf> out_;
  std::unique_ptr<MaskingStreambuf> err_;
};

// Masks the secrets of `redactor` on stdout and stderr from now on (nothing without a ConsoleMask in place).
void mask_on_console(const Redactor& redactor);

}  // namespace engine::cli
