#include "engine/server/run_viewer.h"

#include <charconv>

#include "engine/app/run_history.h"
#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/server/api_errors.h"
#include "engine/server/viewer_assets.h"

namespace engine::server {
namespace {

// What the page may do: its own files and its own API, nothing inline, nothing from elsewhere, never in a frame.
constexpr const char* kPagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

constexpr size_t kContentLimit = 256 * 1024;  // bytes of each prompt, reply, tool input and output shown

size_t limit_of(const std::string& given) {
  if (given.empty()) return 100;
  size_t n = 0;
  auto [end, ec] = std::from_chars(given.data(), given.data() + given.size(), n);
  if (ec != std::errc() || end != given.data() + given.size() || n < 1 || n > 1000)
    throw Error(ErrorKind::Usage, "limit is a whole number from 1 to 1000, not '" + printable_excerpt(given, 40) + "'");
  return n;
}

// The answer to GET /v1/runs..., read from the store. Throws what the store and app/run_history.h throw.
HttpResponse read_runs(store::RunStore& store, const HttpRequest& r) {
  std::string_view rest = std::string_view(r.path).substr(std::string_view("/v1/runs").size());
  if (rest.empty() || rest == "/") {
    app::RunQuery query{r.argument("workflow"), r.argument("status"), r.argument("since"), limit_of(r.argument("limit"))};
    Value list = Value::array();
    for (const auto& run : app::list_runs(store, query)) list.push_back(app::run_document(run, false));
    return json_response(200, to_json_text(list));
  }
  rest.remove_prefix(1);
  size_t slash = rest.find('/');
  std::string id(rest.substr(0, slash));
  if (slash == std::string_view::npos) {
    // A run still going (or cut, to be resumed) is shown from its journal: a record it has is an earlier attempt's.
    std::optional<store::JournalRun> journal;
    try {
      journal = store.find_journal(id);
    } catch (const Error&) {  // none to read back: the record alone is shown
    }
    if (journal && (journal->state == store::JournalState::Running || !store.find(journal->id)))
      return json_response(200, to_json_text(app::journal_run_document(*journal, app::journal_steps(store, journal->id))));
    store::RunRecord run = app::find_run(store, id);
    Value doc = app::run_document(run, false, app::journal_steps(store, run.id));
    doc["spans"] = app::run_spans(run, kContentLimit);
    return json_response(200, to_json_text(doc));
  }
  std::string_view more = rest.substr(slash + 1);
  if (more.substr(0, 5) == "diff/" && more.size() > 5) {
    store::RunRecord a = app::find_run(store, id), b = app::find_run(store, std::string(more.substr(5)));
    return json_response(200, to_json_text(app::diff_runs(a, b, app::journal_steps(store, a.id), app::journal_steps(store, b.id))));
  }
  return error_response(404, "a run's endpoints are /v1/runs/ID and /v1/runs/ID/diff/OTHER, not " +
                                 printable_excerpt(r.path, 200));
}

}  // namespace

RunViewer::RunViewer(store::RunWriter* store) : store_(store) {}

void RunViewer::page(Exchange& exchange) const {
  const HttpRequest& r = exchange.request();
  if (r.method != "GET" && r.method != "HEAD") {
    HttpResponse refused = error_response(405, "the viewer's pages take GET");
    refused.headers.emplace_back("Allow", "GET");
    return exchange.respond(std::move(refused));
  }
  if (r.path == "/ui") return exchange.respond({308, {{"Location", "/ui/"}}, ""});
  std::string_view name = std::string_view(r.path).substr(4);
  const ViewerAsset* asset = viewer_asset(name.empty() ? "index.html" : name);
  if (!asset) return exchange.respond(error_response(404, "the viewer has no file " + printable_excerpt(r.path, 200)));
  exchange.respond({200,
                    {{"Content-Type", std::string(asset->content_type)},
                     {"Content-Security-Policy", kPagePolicy},
                     {"X-Content-Type-Options", "nosniff"},
                     {"Referrer-Policy", "no-referrer"},
                     {"Cache-Control", "no-cache"}},
                    std::string(asset->body)});
}

void RunViewer::api(const std::shared_ptr<Exchange>& exchange) {
  const HttpRequest& r = exchange->request();
  if (r.method != "GET") {
    HttpResponse refused = error_response(405, "this endpoint takes GET");
    refused.headers.emplace_back("Allow", "GET");
    return exchange->respond(std::move(refused));
  }
  if (!store_)
    return exchange->respond(error_response(503, "this server records no runs (it was started with --no-store, or "
                                                 "its store could not be opened)", "runs_not_recorded"));
  if (reads_->fetch_add(1) >= kMaxReads) {
    reads_->fetch_sub(1);
    HttpResponse busy = error_response(429, "the run store is being read by as many requests as it takes; try again",
                                       "too_many_reads");
    busy.headers.emplace_back("Retry-After", "1");
    return exchange->respond(std::move(busy));
  }
  // On the writer's thread, after the runs it was given: a run that has ended, its answer given, is in what is read.
  auto read = [exchange, reads = reads_](store::RunStore& store) {
    try {
      exchange->respond(read_runs(store, exchange->request()));
    } catch (const Error& e) {
      exchange->respond(error_response(status_for_error(e.kind()), e.message(), e.kind()));
    } catch (const std::exception& e) {
      exchange->respond(error_response(500, std::string("the runs could not be read: ") + e.what()));
    }
    reads->fetch_sub(1);
  };
  try {
    store_->read(std::move(read));
  } catch (const std::bad_alloc&) {
    reads_->fetch_sub(1);
    exchange->respond(error_response(503, "no memory for another read of the run store; try again", "out_of_memory"));
  }
}

}  // namespace engine::server
