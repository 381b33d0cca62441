#pragma once
// The runs of /invoke that `engine serve` keeps (docs/serve.md, "Runs that outlive a request"). With a run store,
// each is journaled (app/durable_runs.h) under an id known before it starts: a new one, or one made from the
// request's Idempotency-Key, so that the same request sent again finds its run: still going here, it waits for its
// answer; ended, it gets that answer; cut by a crash or a restart, it resumes it, every recorded call answered from
// the journal. A request that prefers `respond-async` is answered 202 with the id at once, and its run goes on apart
// from the connection (GET /v1/runs/ID follows it); a server started again resumes those it had not finished.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/cancel.h"
#include "engine/server/catalog.h"
#include "engine/server/exchange.h"
#include "engine/server/metrics.h"
#include "engine/server/run_launcher.h"
#include "engine/server/served_run_sinks.h"

namespace engine::server {

// What an /invoke request asks of its run.
struct InvokeRequest {
  ServedWorkflow workflow;
  Value inputs;                    // resolved (Executor::resolve_inputs)
  std::optional<std::string> key;  // its Idempotency-Key
  bool async = false;              // it prefers respond-async
};

// A run's answer as /invoke gives it, from its document (app::run_document): 200, or the status its error's code
// answers with (the error then in OpenAI's shape, with the run's other fields beside it).
HttpResponse run_answer(Value doc);

// Whether a request's Prefer header holds the preference respond-async (RFC 7240).
bool prefers_async(const HttpRequest& request);
// Its Idempotency-Key header, or none. Throws Error "usage" when it is empty, longer than 255 bytes, or
// holds a byte that is not printable ASCII.
std::optional<std::string> idempotency_key(const HttpRequest& request);
// The id of the run `key` names for a workflow: the same in every process, and an id as any other run's.
std::string run_id_for_key(std::string_view workflow, std::string_view key);

class ServedRuns {
 public:
  // `observers.store` must not be null: the runs are journaled in its store.
  ServedRuns(RunLauncher& launcher, Metrics& metrics, const ServerObservers& observers);

  // Starts the run `request` asks for (or finds it) and answers `exchange`: with the run's answer, or at once with
  // 202 and its id. `refuse` answers when it cannot start.
  void invoke(const std::shared_ptr<Exchange>& exchange, InvokeRequest request, RunLauncher::Refusals refuse);
  // At a server's start: each run asked for asynchronously and not finished (running, not in doubt: that waits for
  // `engine runs resolve`) is resumed, when the catalog serves its workflow's file as it was when the run started.
  // Each left as it was is said in `problems`, with why. Returns the ids resumed.
  std::vector<std::string> resume_unfinished(const Catalog& catalog, std::vector<std::string>& problems);
  // A shutdown's grace has passed: the asynchronous runs are cancelled. Their journals stay running, to be resumed.
  void cancel_all() { background_.cancel(); }

 private:
  using Waiter = std::function<void(const HttpResponse&)>;
  // Marks run `id` as going here. False when it already was: `waiter`, when given, is then told its answer.
  bool claim(const std::string& id, Waiter waiter);
  // Run `id` answered `response`: its waiters are told, and the id is free again.
  void finish(const std::string& id, const HttpResponse& response);
  // On the run's fiber: the run (new, resumed, or an answer already recorded), its answer.
  HttpResponse run(const HttpRequest* request, const InvokeRequest& asked, const std::string& id, bool look_up,
                   const Cancel& cancel, const std::function<void()>& ran);

  RunLauncher& launcher_;
  Metrics& metrics_;
  ServerObservers observers_;
  Cancel background_;  // the asynchronous runs' parent: no connection holds them
  std::mutex mu_;
  std::map<std::string, std::vector<Waiter>> going_;  // by run id
};

}  // namespace engine::server
