#pragma once
// A loopback HTTP API for the tests of granted requests (tools/http_access.h, engine.http, the http built-ins):
// under /v1/ it answers with what it received, as JSON (the Authorization header quoted back, as an echo service
// would), redirects within and out of its prefix, and misbehaves on request: an endless body, a drip, silence.
#include <httplib.h>

#include <atomic>
#include <string>
#include <thread>

namespace engine::test {

class GrantedApi {
 public:
  GrantedApi();
  ~GrantedApi();
  GrantedApi(const GrantedApi&) = delete;
  GrantedApi& operator=(const GrantedApi&) = delete;
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  int hangs() const { return hangs_; }  // requests /v1/hang has taken (each then waits, saying nothing)

 private:
  httplib::Server server_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> hangs_{0};
  int port_ = 0;
  std::thread thread_;
};

}  // namespace engine::test
