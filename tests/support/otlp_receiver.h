#pragma once
// A loopback OTLP/HTTP receiver for the tests: it keeps each request's body and Authorization header and the spans
// the bodies hold, and can be told to answer with another status or to hold its answers. 127.0.0.1 only.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/value.h"

namespace engine::test {

class OtlpReceiver {
 public:
  OtlpReceiver();
  ~OtlpReceiver();
  OtlpReceiver(const OtlpReceiver&) = delete;
  OtlpReceiver& operator=(const OtlpReceiver&) = delete;

  std::string base_url() const;  // http://127.0.0.1:PORT, as --otlp takes it
  std::atomic<int> status{200};  // answered to each request; other than 200 with a body quoting a key
  // While held, each request waits unanswered until release() (or the receiver's end): a collector that stalls.
  void hold();
  void release();
  int answered() const;  // requests answered so far

  std::vector<std::string> bodies() const;
  std::vector<std::string> authorizations() const;
  std::string content_type() const;  // of the last request
  std::vector<Value> spans() const;  // every span received, in order
  // The attributes of a span as name -> OTLP AnyValue ({"stringValue": ...}).
  static std::map<std::string, Value> attributes(const Value& span);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace engine::test
