#pragma once
// An output's bytes masked on their way out of the process: whatever is written to a stream over this buffer passes
// a MaskingWriter over one SecretSet before it reaches the buffer underneath (a terminal, a file). The command line
// puts one in front of stdout, stderr and the --trace file, so no output point has to remember to mask
// (docs/architecture.md, "Secrets").
//
// Text arrives in pieces (stderr's stream is unit-buffered: each `<<` is a piece), so a tail that may be the start of
// a secret is held back until the next piece decides it. A flush sends what is held too, unless that tail is
// already half a maskable fragment long (core/secret_set.h).
#include <memory>
#include <mutex>
#include <streambuf>
#include <string>

#include "engine/core/secret_set.h"

namespace engine {

class MaskingStreambuf : public std::streambuf {
 public:
  // `inner` must outlive this buffer. Secrets added to the set later are masked from then on.
  MaskingStreambuf(std::streambuf* inner, std::shared_ptr<SecretSet> secrets);
  ~MaskingStreambuf() override;  // sends what it held back
  MaskingStreambuf(const MaskingStreambuf&) = delete;
  MaskingStreambuf& operator=(const MaskingStreambuf&) = delete;

  // The set it masks: whoever reads a secret while this stream is in use adds it here.
  const std::shared_ptr<SecretSet>& secrets() const { return secrets_; }
  // Sends everything held back and flushes `inner`: for the end of the output. False when some of the output did
  // not get through (a full disk, a closed pipe).
  bool finish();

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void send();  // out_ to `inner`

  std::streambuf* inner_;
  std::shared_ptr<SecretSet> secrets_;
  std::mutex mutex_;  // one stream, many writers: a run's console and a batch's progress share stderr
  MaskingWriter writer_;
  std::string out_;
  bool failed_ = false;  // `inner` took less than it was given: the stream reports the failure
};

}  // namespace engine
