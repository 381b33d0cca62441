#pragma once
// The run viewer of `engine serve` and `engine ui` (docs/observability.md, "The viewer"): its page at /ui/, and the
// JSON API over the run store it reads: GET /v1/runs (the runs, newest first; ?workflow=&status=&since=&limit=),
// GET /v1/runs/ID (a run with its events and spans), GET /v1/runs/A/diff/B (two runs side by side). The store is read
// on its writer's thread (after the runs it was given before the request), never on the serve thread or a fiber's.
#include <atomic>
#include <memory>
#include <string_view>

#include "engine/server/exchange.h"
#include "engine/store/run_store.h"
#include "engine/store/run_writer.h"

namespace engine::server {

class RunViewer {
 public:
  // `store` is null when the server records no runs (--no-store): the API then says so. Which hosts and origins
  // may ask is the service's check, made before any route (request_origin.h).
  // `store`: the server's run store's writer (null: no store); a read runs after the runs it has to write first.
  explicit RunViewer(store::RunWriter* store);

  // The page's files: /ui, /ui/ and what it loads. Public: they hold no data.
  static bool is_page(std::string_view path) { return path == "/ui" || path.substr(0, 4) == "/ui/"; }
  static bool is_api(std::string_view path) { return path == "/v1/runs" || path.substr(0, 9) == "/v1/runs/"; }
  void page(Exchange& exchange) const;
  void api(const std::shared_ptr<Exchange>& exchange);

 private:
  store::RunWriter* store_;
  // Reads of the store waiting or under way: a flood of requests gets 429s, not a queue without end.
  static constexpr int kMaxReads = 16;
  std::shared_ptr<std::atomic<int>> reads_ = std::make_shared<std::atomic<int>>(0);
};

}  // namespace engine::server
