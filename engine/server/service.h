#pragma once
// What `engine serve` answers: the routes, each workflow's endpoints, the OpenAI-compatible ones, health. Handlers
// run on the serve thread and never block it: a run goes to a fiber of the server's pool, and answers its exchange
// when it ends (or streams to it as it goes).
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>

#include "engine/core/fiber.h"
#include "engine/server/catalog.h"
#include "engine/server/exchange.h"
#include "engine/server/mcp_service.h"
#include "engine/server/metrics.h"
#include "engine/server/request_origin.h"
#include "engine/server/run_launcher.h"
#include "engine/server/run_slots.h"
#include "engine/server/run_viewer.h"
#include "engine/server/served_run_sinks.h"
#include "engine/server/served_runs.h"
#include "engine/server/tokens.h"

namespace engine::server {

struct ServiceLimits {
  std::chrono::seconds run_timeout{300};
  size_t runs_in_flight = 64;
  size_t runs_queued = 256;
  size_t max_batch = 100;  // inputs in one /batch request
};

class Service {
 public:
  // `observers`: where the runs' spans go and where they are recorded, when anywhere (served_run_sinks.h).
  // `origins`: which requests are answered by their Host and Origin (request_origin.h), on every route.
  Service(std::shared_ptr<const Catalog> catalog, TokenCheck tokens, ServiceLimits limits, FiberPool& pool,
          ServerObservers observers = {}, OriginPolicy origins = {});

  void handle(const std::shared_ptr<Exchange>& exchange);

  std::shared_ptr<const Catalog> catalog() const;
  void replace_catalog(std::shared_ptr<const Catalog> catalog);
  // /readyz answers 503 from now on (a load balancer stops sending new requests).
  void set_draining() { draining_ = true; }
  RunSlots& slots() { return slots_; }
  Metrics& metrics() { return metrics_; }
  // With a run store, the unfinished runs asked for asynchronously before are resumed (served_runs.h); returns
  // their ids, and says in `problems` which were not and why.
  std::vector<std::string> resume_unfinished(std::vector<std::string>& problems);
  // A shutdown's grace has passed: the runs no connection holds are cancelled too.
  void cancel_detached() {
    if (kept_) kept_->cancel_all();
  }

 private:
  using RunBody = RunLauncher::Run;

  void list_workflows(Exchange& exchange) const;
  void invoke(const std::shared_ptr<Exchange>& exchange, const ServedWorkflow& workflow);
  void stream(const std::shared_ptr<Exchange>& exchange, const ServedWorkflow& workflow);
  void batch(const std::shared_ptr<Exchange>& exchange, const ServedWorkflow& workflow);
  void list_models(Exchange& exchange) const;
  void retrieve_model(Exchange& exchange, std::string_view id) const;
  void chat_completion(const std::shared_ptr<Exchange>& exchange);
  void mcp_message(const std::shared_ptr<Exchange>& exchange);
  // Starts `body` as every run of the server starts (run_launcher.h), under the exchange's cancel; refused with 429
  // (no slot), 503 (no memory), or answered 500 when it lets an exception out.
  void start_run(const std::shared_ptr<Exchange>& exchange, RunBody body);
  RunLauncher::Refusals refusals(const std::shared_ptr<Exchange>& exchange);

  mutable std::mutex catalog_mu_;
  std::shared_ptr<const Catalog> catalog_;
  TokenCheck tokens_;
  OriginPolicy origins_;
  ServiceLimits limits_;
  FiberPool& pool_;
  RunSlots slots_;
  RunLauncher runs_;
  std::atomic<bool> draining_{false};
  Metrics metrics_;
  McpService mcp_;
  ServerObservers observers_;
  RunViewer viewer_;
  std::optional<ServedRuns> kept_;  // with a run store: /invoke's runs, journaled
};

}  // namespace engine::server
