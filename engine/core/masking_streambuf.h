#pragma once
// An output's bytes masked on their way out of the process: whatever is written to a stream over this buffer passes
// one Redactor before it reaches the buffer underneath (a terminal, a file). The command line puts one in front of
// stdout, stderr and the --trace file, so no output point has to remember to redact (docs/architecture.md,
// "Secrets").
//
// Text arrives in pieces (stderr's stream is unit-buffered: each `<<` is a piece), so a tail that may be the start of
// a secret is held back until the next piece decides it. A flush sends what is held too, unless that tail is
// already half a maskable fragment long: a prompt or a line is never kept from the screen, and what a flush lets
// through of a secret is shorter than any piece the Redactor masks anywhere.
#include <mutex>
#include <streambuf>
#include <string>
#include <vector>

#include "engine/core/redact.h"

namespace engine {

class MaskingStreambuf : public std::streambuf {
 public:
  // `inner` must outlive this buffer.
  explicit MaskingStreambuf(std::streambuf* inner, const Redactor& redactor = {});
  ~MaskingStreambuf() override;  // sends what it held back
  MaskingStreambuf(const MaskingStreambuf&) = delete;
  MaskingStreambuf& operator=(const MaskingStreambuf&) = delete;

  // Masks the secrets of `more` too, as written and as they appear inside a JSON string (a key quoted in a --json
  // document or a trace line is escaped there). Safe while other threads write.
  void mask(const Redactor& more);
  // Sends everything held back and flushes `inner`: for the end of the output. False when some of the output did
  // not get through (a full disk, a closed pipe).
  bool finish();

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  // Sends the decided part of pending_; with `flush`, a short undecided tail too.
  void pass(bool flush, bool final = false);

  std::streambuf* inner_;
  std::mutex mutex_;  // one stream, many writers: a run's console and a batch's progress share stderr
  std::vector<std::string> secrets_;
  Redactor redactor_;
  std::string pending_;  // written, not yet decided
  std::string out_;
  bool failed_ = false;  // `inner` took less than it was given: the stream reports the failure
};

}  // namespace engine
