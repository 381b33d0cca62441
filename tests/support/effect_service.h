#pragma once
// A loopback service that counts effects (docs/durability.md's kill-anywhere test): POST /effects/KEY does effect
// KEY once more and answers {"key", "count"}; GET /effects/KEY reads its count without doing it. Each POST's
// Idempotency-Key header is kept, so a test sees whether a repeat carried the same key. GET /effects/slow answers
// only once release() is called: a run held mid-call, for a test to act on while it waits; POST /effects/slow does
// effect "slow" and then waits likewise (a run killed inside an effect).
#include <httplib.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace engine::test {

class EffectService {
 public:
  EffectService();
  ~EffectService();
  EffectService(const EffectService&) = delete;
  EffectService& operator=(const EffectService&) = delete;
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }

  int count(const std::string& key) const;                        // times effect KEY was done
  std::vector<std::string> keys_sent(const std::string& key) const;  // its POSTs' Idempotency-Key headers, in order
  std::map<std::string, int> counts() const;
  void clear();
  int slow_waiting() const;  // requests to /effects/slow waiting now
  void release();            // answers them, and every later one at once

 private:
  httplib::Server server_;
  mutable std::mutex mu_;
  std::map<std::string, int> counts_;
  std::map<std::string, std::vector<std::string>> keys_;
  std::condition_variable released_cv_;
  bool released_ = false;
  int slow_waiting_ = 0;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace engine::test
