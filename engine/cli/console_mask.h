#pragma once
// stdout and stderr, masked where the bytes leave the process: main() puts a MaskingStreambuf in front of each for
// the whole command, both over one SecretSet, so every answer, error, warning, --json document and console line is
// masked by one mechanism rather than by each place that prints. The set holds the standard key variables from the
// start (an error may come before any workflow is loaded); every workflow the command loads reads its secrets into
// it (console_secrets()), so what fails while loading is masked too.
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
  std::shared_ptr<SecretSet> secrets_;
  std::unique_ptr<MaskingStreambuf> out_;
  std::unique_ptr<MaskingStreambuf> err_;
};

// The set the console masks: what a command gives every load and every reader of a secret (the collector's
// headers). Without a ConsoleMask in place (a test, a tool), a set of its own holding the standard key variables.
std::shared_ptr<SecretSet> console_secrets();

}  // namespace engine::cli
