#include "engine/server/served_runs.h"

#include <algorithm>
#include <cctype>

#include "engine/app/durable_runs.h"
#include "engine/app/result_documents.h"
#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/server/api_errors.h"
#include "engine/store/digest.h"

namespace engine::server {
namespace {

constexpr size_t kKeyBytes = 255;
constexpr size_t kResumedAtStart = 10000;  // unfinished runs looked at when a server starts

}  // namespace

HttpResponse run_answer(Value doc) {
  int status = 200;
  if (doc.contains("error")) {
    std::optional<ErrorKind> kind = error_kind_named(doc["error"].value("code", ""));
    status = kind ? status_for_error(*kind) : 500;
    doc["error"]["type"] = status >= 500 ? "server_error" : "invalid_request_error";
  }
  return json_response(status, to_json_text(doc));
}

namespace {

HttpResponse error_answer(const Error& e) { return error_response(status_for_error(e.kind()), e.formatted(), e.kind()); }

HttpResponse accepted(const std::string& id) {
  HttpResponse r = json_response(202, to_json_text(Value{{"run_id", id}, {"status", "running"}}));
  r.headers.emplace_back("Location", "/v1/runs/" + id);
  r.headers.emplace_back("Preference-Applied", "respond-async");
  return r;
}

// The answer a journal that ended holds (app::end_journal wrote it last).
std::optional<Value> recorded_answer(const std::vector<store::StoredEntry>& entries) {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->entry.kind == JournalKind::RunEnd) return it->entry.value;
  return std::nullopt;
}

}  // namespace

bool prefers_async(const HttpRequest& request) {
  const std::string* prefer = request.header("prefer");
  if (!prefer) return false;
  std::string_view rest = *prefer;
  while (!rest.empty()) {  // preferences apart by commas, each maybe with parameters after a semicolon
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    std::string_view token = trim(item.substr(0, item.find(';')));
    if (std::equal(token.begin(), token.end(), std::string_view("respond-async").begin(),
                   std::string_view("respond-async").end(),
                   [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }))
      return true;
  }
  return false;
}

std::optional<std::string> idempotency_key(const HttpRequest& request) {
  const std::string* key = request.header("idempotency-key");
  if (!key) return std::nullopt;
  bool printable = std::all_of(key->begin(), key->end(), [](char c) { return c >= 0x20 && c < 0x7f; });
  if (key->empty() || key->size() > kKeyBytes || !printable)
    throw Error(ErrorKind::Usage, "the Idempotency-Key header is 1 to " + std::to_string(kKeyBytes) +
                                      " printable ASCII characters");
  return *key;
}

std::string run_id_for_key(std::string_view workflow, std::string_view key) {
  std::string named = "idempotency-key\n";
  named.append(workflow).append("\n").append(key);
  return store::sha256_hex(named).substr(0, 16);
}

ServedRuns::ServedRuns(RunLauncher& launcher, Metrics& metrics, const ServerObservers& observers)
    : launcher_(launcher), metrics_(metrics), observers_(observers) {}

bool ServedRuns::claim(const std::string& id, Waiter waiter) {
  std::lock_guard lock(mu_);
  auto [it, fresh] = going_.try_emplace(id);
  if (!fresh && waiter) it->second.push_back(std::move(waiter));
  return fresh;
}

void ServedRuns::finish(const std::string& id, const HttpResponse& response) {
  std::vector<Waiter> waiters;
  {
    std::lock_guard lock(mu_);
    auto it = going_.find(id);
    if (it == going_.end()) return;
    waiters = std::move(it->second);
    going_.erase(it);
  }
  for (auto& w : waiters) w(response);
}

void ServedRuns::invoke(const std::shared_ptr<Exchange>& exchange, InvokeRequest request, RunLauncher::Refusals refuse) {
  std::string id = request.key ? run_id_for_key(request.workflow.name, *request.key)
                               : request.workflow.executor->new_run_id();
  bool async = request.async;
  Waiter waiter;
  if (!async) waiter = [exchange](const HttpResponse& r) { exchange->respond(r); };
  if (!claim(id, std::move(waiter))) {  // the same request again, its run going here: it waits for the same answer
    if (async) exchange->respond(accepted(id));
    return;
  }
  bool look_up = request.key.has_value();
  auto body = [this, exchange, asked = std::move(request), id, look_up](const Cancel& cancel,
                                                                        const std::function<void()>& ran) {
    HttpResponse response;
    try {
      response = run(&exchange->request(), asked, id, look_up, cancel, ran);
    } catch (const std::exception& e) {
      ran();
      response = error_response(500, std::string("the server failed: ") + e.what(), "internal");
    }
    if (!asked.async) exchange->respond(response);
    finish(id, response);
  };
  // A run that cannot start frees its id for the next request; a connection that goes away stops only a run it
  // waits for.
  auto busy = std::move(refuse.busy), no_memory = std::move(refuse.no_memory);
  refuse.busy = [this, id, busy] { finish(id, {}); busy(); };
  refuse.no_memory = [this, id, no_memory] { finish(id, {}); no_memory(); };
  if (!launcher_.start(async ? &background_ : &exchange->cancel(), std::move(body), std::move(refuse))) return;
  if (async) exchange->respond(accepted(id));
}

HttpResponse ServedRuns::run(const HttpRequest* request, const InvokeRequest& asked, const std::string& id,
                             bool look_up, const Cancel& cancel, const std::function<void()>& ran) {
  store::RunWriter& writer = *observers_.store;
  const ServedWorkflow& w = asked.workflow;
  std::optional<app::Reentry> reentry;
  std::optional<Value> answer;
  try {
    // What the store holds of this id, read after every journal write before it.
    if (look_up) writer.read_waiting([&](store::RunStore& store) {
      std::optional<store::JournalRun> header = store.find_journal(id);
      if (!header || header->id != id) return;  // a new run
      if (header->inputs != asked.inputs)
        throw Error(ErrorKind::ServeKeyReused, "the Idempotency-Key was sent before with other inputs (run " + id +
                                                   "): a key names one run");
      if (header->state == store::JournalState::InDoubt)
        throw Error(ErrorKind::JournalInDoubt, "run " + id + " stopped at a call whose effect is not known; `engine "
                                               "runs resolve " + id + "` lists it and settles it");
      if (header->state == store::JournalState::Ended) {
        answer = recorded_answer(store.journal_entries(id));
        if (!answer) throw Error(ErrorKind::JournalCorrupt, "run " + id + " ended, yet its journal holds no answer");
        return;
      }
      reentry.emplace(app::reenter_run(store, id));
    });
    if (reentry) {
      std::vector<std::string> changed = app::changed_files(reentry->header.files, w.files);
      if (!changed.empty()) throw app::changed_error(id, changed);
    }
  } catch (const Error& e) {
    ran();
    return error_answer(e);
  }
  if (answer) {
    ran();
    return run_answer(std::move(*answer));
  }

  std::optional<app::RunLock> lock =
      reentry ? std::optional<app::RunLock>(std::move(reentry->lock)) : app::RunLock::take_new(writer.store(), id);
  std::optional<store::RunJournal> journal;
  store::RunJournal::Options options{.allow_changed = false, .secrets = w.executor->secrets()};
  if (reentry) {
    journal.emplace(writer, std::move(reentry->header), std::move(reentry->entries), options);
  } else {
    journal.emplace(writer,
                    app::new_journal_header(*w.executor, w.source, w.files, asked.inputs,
                                            w.executor->durability().value_or(Durability::Async), id,
                                            asked.async ? "serve-async" : "serve"),
                    options);
  }
  std::optional<ServedRunSinks> sinks;
  if (request) sinks.emplace(observers_, *request, w.file);
  else sinks.emplace(observers_, nullptr, trace::RunSource{"serve", w.file}, ServerSpan{"resume " + w.name, {}});
  ModelCallTimer timer(metrics_, w.name, sinks->sink());
  agent::RunOptions run_options;
  run_options.cancel = &cancel;
  run_options.trace = sinks->trace();
  run_options.run_id = id;
  run_options.journal = JournalScope{&*journal, ""};
  agent::RunResult result = w.executor->run(asked.inputs, timer, run_options);
  app::end_journal(*journal, result);
  metrics_.count_run(w.name, result);
  ran();
  HttpResponse response = run_answer(app::run_document(result));
  sinks->respond_with(response.status);
  return response;
}

std::vector<std::string> ServedRuns::resume_unfinished(const Catalog& catalog, std::vector<std::string>& problems) {
  std::vector<std::string> resumed;
  std::vector<store::JournalRun> runs;
  try {
    runs = observers_.store->store().journal_runs(true, kResumedAtStart);
  } catch (const Error& e) {
    problems.push_back("the unfinished runs cannot be resumed: " + e.message());
    return resumed;
  }
  for (const store::JournalRun& run : runs) {
    if (run.origin != "serve-async" || run.state != store::JournalState::Running) continue;
    const ServedWorkflow* served = nullptr;
    for (const ServedWorkflow& w : catalog.workflows())
      if (w.source == run.source) served = &w;
    if (!served) {
      problems.push_back("run " + run.id + " is not resumed: this server does not serve its workflow " + run.source);
      continue;
    }
    std::vector<std::string> changed = app::changed_files(run.files, served->files);
    if (!changed.empty()) {
      problems.push_back(app::changed_error(run.id, changed).message() + "\n(it is left as it was: `engine runs "
                                                                        "resume " + run.id + " --allow-changed` goes on with it)");
      continue;
    }
    if (!claim(run.id, nullptr)) continue;
    InvokeRequest asked{*served, run.inputs, std::nullopt, true};
    auto body = [this, asked = std::move(asked), id = run.id](const Cancel& cancel, const std::function<void()>& ran) {
      HttpResponse response;
      try {
        response = this->run(nullptr, asked, id, true, cancel, ran);
      } catch (const std::exception& e) {
        ran();
        response = error_response(500, std::string("the server failed: ") + e.what(), "internal");
      }
      finish(id, response);
    };
    std::string id = run.id;
    auto left = [this, id, &problems](const std::string& why) {
      finish(id, {});
      problems.push_back("run " + id + " is not resumed now (" + why + "); a later start resumes it");
    };
    RunLauncher::Refusals refuse{.busy = [&] { left("every slot is taken"); },
                                 .no_memory = [&] { left("no memory for another run"); },
                                 .failed = [](const std::exception&) {}};
    if (launcher_.start(&background_, std::move(body), refuse)) resumed.push_back(id);
  }
  return resumed;
}

}  // namespace engine::server
