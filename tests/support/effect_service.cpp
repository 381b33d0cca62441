#include "support/effect_service.h"

#include <chrono>

namespace engine::test {

EffectService::EffectService() {
  server_.Get("/effects/slow", [this](const httplib::Request&, httplib::Response& res) {
    std::unique_lock lock(mu_);
    ++slow_waiting_;
    released_cv_.wait(lock, [&] { return released_; });
    --slow_waiting_;
    res.set_content("{\"key\":\"slow\",\"count\":0}", "application/json");
  });
  server_.Post("/effects/slow", [this](const httplib::Request& req, httplib::Response& res) {
    std::unique_lock lock(mu_);
    int n = ++counts_["slow"];
    keys_["slow"].push_back(req.get_header_value("Idempotency-Key"));
    ++slow_waiting_;
    released_cv_.wait(lock, [&] { return released_; });
    --slow_waiting_;
    res.set_content("{\"key\":\"slow\",\"count\":" + std::to_string(n) + "}", "application/json");
  });
  server_.Post(R"(/effects/([a-z_0-9]+))", [this](const httplib::Request& req, httplib::Response& res) {
    std::string key = req.matches[1];
    int n;
    {
      std::lock_guard lock(mu_);
      n = ++counts_[key];
      keys_[key].push_back(req.get_header_value("Idempotency-Key"));
    }
    res.set_content("{\"key\":\"" + key + "\",\"count\":" + std::to_string(n) + "}", "application/json");
  });
  server_.Get(R"(/effects/([a-z_0-9]+))", [this](const httplib::Request& req, httplib::Response& res) {
    std::string key = req.matches[1];
    res.set_content("{\"key\":\"" + key + "\",\"count\":" + std::to_string(count(key)) + "}", "application/json");
  });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  for (int i = 0; i < 5000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

EffectService::~EffectService() {
  release();
  server_.stop();
  thread_.join();
}

int EffectService::count(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = counts_.find(key);
  return it == counts_.end() ? 0 : it->second;
}

std::vector<std::string> EffectService::keys_sent(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = keys_.find(key);
  return it == keys_.end() ? std::vector<std::string>{} : it->second;
}

std::map<std::string, int> EffectService::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

int EffectService::slow_waiting() const {
  std::lock_guard lock(mu_);
  return slow_waiting_;
}

void EffectService::release() {
  {
    std::lock_guard lock(mu_);
    released_ = true;
  }
  released_cv_.notify_all();
}

void EffectService::clear() {
  std::lock_guard lock(mu_);
  counts_.clear();
  keys_.clear();
}

}  // namespace engine::test
