#include "engine/server/service.h"

#include "engine/app/result_documents.h"
#include "engine/core/error.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/text.h"
#include "engine/server/api_errors.h"
#include "engine/server/mcp_checks.h"
#include "engine/server/resource_metadata.h"
#include "engine/server/served_run_sinks.h"
#include "engine/server/sse.h"

namespace engine::server {
namespace {

constexpr std::string_view kWorkflowsPrefix = "/v1/workflows/";

HttpResponse method_not_allowed(const std::string& allowed) {
  HttpResponse r = error_response(405, "this endpoint takes " + allowed);
  r.headers.emplace_back("Allow", allowed);
  return r;
}

// The workflow's inputs from a request body: a JSON object (an empty body is no inputs). Throws Error "input.*".
Value inputs_of(const std::string& body) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return Value::object();
  JsonError error;
  Value v = parse_json(body, &error);
  if (v.is_discarded()) throw Error(ErrorKind::InputInvalidJson, "the body is not JSON: " + error.message);
  if (!v.is_object()) throw Error(ErrorKind::InputNotObject, "the body must be a JSON object of the workflow's inputs");
  return v;
}

}  // namespace

Service::Service(std::shared_ptr<const Catalog> catalog, TokenCheck tokens, ServiceLimits limits, FiberPool& pool,
                 ServerObservers observers, OriginPolicy origins)
    : catalog_(std::move(catalog)),
      tokens_(std::move(tokens)),
      origins_(std::move(origins)),
      limits_(limits),
      pool_(pool),
      slots_(limits.runs_in_flight, limits.runs_queued),
      runs_(pool, slots_, limits.run_timeout),
      mcp_([this] { return this->catalog(); }, runs_, metrics_, observers),
      observers_(observers),
      viewer_(observers.store) {
  if (observers.store) kept_.emplace(runs_, metrics_, observers);
}

std::vector<std::string> Service::resume_unfinished(std::vector<std::string>& problems) {
  return kept_ ? kept_->resume_unfinished(*catalog(), problems) : std::vector<std::string>{};
}

std::shared_ptr<const Catalog> Service::catalog() const {
  std::lock_guard lock(catalog_mu_);
  return catalog_;
}

void Service::replace_catalog(std::shared_ptr<const Catalog> catalog) {
  std::lock_guard lock(catalog_mu_);
  catalog_ = std::move(catalog);
}

void Service::handle(const std::shared_ptr<Exchange>& exchange) {
  const HttpRequest& r = exchange->request();
  const std::string& path = r.path;
  if (auto refused = refusal_by_origin(r, origins_)) return exchange->respond(std::move(*refused));
  if (r.method == "OPTIONS" && r.header("access-control-request-method") && r.header("origin"))
    return exchange->respond(preflight_response(r, origins_));
  for (auto& [name, value] : cross_origin_headers(r, origins_)) exchange->add_response_header(name, value);
  if (path == "/healthz") {
    if (r.method != "GET") return exchange->respond(method_not_allowed("GET"));
    return exchange->respond(json_response(200, R"({"status":"ok"})"));
  }
  if (RunViewer::is_page(path)) return viewer_.page(*exchange);  // no data: the API behind it asks for the token
  // How to get in is public; a server without tokens protects nothing, and publishes no metadata.
  if (is_resource_metadata_path(path) && !tokens_.open()) return exchange->respond(resource_metadata(r));
  if (!tokens_.allows(r)) {
    HttpResponse denied = error_response(401, "a valid token is needed: send the header Authorization: Bearer TOKEN",
                                         "invalid_api_key");
    denied.headers.emplace_back("WWW-Authenticate", bearer_challenge(r));
    return exchange->respond(std::move(denied));
  }
  if (path == "/readyz") {
    if (draining_) return exchange->respond(json_response(503, R"({"status":"draining"})"));
    return exchange->respond(json_response(200, R"({"status":"ready"})"));
  }
  if (path == "/metrics") {
    if (r.method != "GET") return exchange->respond(method_not_allowed("GET"));
    return exchange->respond({200, {{"Content-Type", "text/plain; version=0.0.4"}},
                              metrics_.text(slots_.running(), slots_.waiting())});
  }
  if (path == "/mcp") {
    if (r.method != "POST") return exchange->respond(method_not_allowed("POST"));
    return mcp_message(exchange);
  }
  if (RunViewer::is_api(path)) return viewer_.api(exchange);
  if (path == "/v1/workflows" || path == "/v1/workflows/") {
    if (r.method != "GET") return exchange->respond(method_not_allowed("GET"));
    return list_workflows(*exchange);
  }
  if (path == "/v1/models") {
    if (r.method != "GET") return exchange->respond(method_not_allowed("GET"));
    return list_models(*exchange);
  }
  if (path.starts_with("/v1/models/")) {
    if (r.method != "GET") return exchange->respond(method_not_allowed("GET"));
    return retrieve_model(*exchange, std::string_view(path).substr(std::string_view("/v1/models/").size()));
  }
  if (path == "/v1/chat/completions") {
    if (r.method != "POST") return exchange->respond(method_not_allowed("POST"));
    return chat_completion(exchange);
  }
  if (path.compare(0, kWorkflowsPrefix.size(), kWorkflowsPrefix) == 0) {
    std::string_view rest = std::string_view(path).substr(kWorkflowsPrefix.size());
    size_t slash = rest.rfind('/');
    std::string_view name = rest.substr(0, slash);
    std::string_view action = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
    auto catalog = this->catalog();
    const ServedWorkflow* workflow = slash == std::string_view::npos ? nullptr : catalog->find(name);
    if (!workflow)
      return exchange->respond(
          error_response(404, "no workflow is served at " + printable_excerpt(path, 200) + "; GET /v1/workflows lists them",
                         "workflow_not_found"));
    if (action != "invoke" && action != "stream" && action != "batch")
      return exchange->respond(error_response(
          404, "a workflow's endpoints are invoke, stream and batch, not '" + printable_excerpt(action, 100) + "'"));
    if (r.method != "POST") return exchange->respond(method_not_allowed("POST"));
    // The run holds the catalog's workflow: a reload meanwhile replaces the catalog, not what this run uses.
    if (action == "invoke") return invoke(exchange, *workflow);
    if (action == "stream") return stream(exchange, *workflow);
    return batch(exchange, *workflow);
  }
  exchange->respond(error_response(404, "no such endpoint: " + printable_excerpt(path, 200)));
}

RunLauncher::Refusals Service::refusals(const std::shared_ptr<Exchange>& exchange) {
  return {.busy =
              [exchange] {
                HttpResponse busy = error_response(429, "the server has as many runs as it takes; try again shortly",
                                                   "too_many_runs");
                busy.headers.emplace_back("Retry-After", "1");
                exchange->respond(std::move(busy));
              },
          .no_memory =
              [exchange] {
                exchange->respond(error_response(503, "the server cannot start another run now", "out_of_memory"));
              },
          .failed =
              [exchange](const std::exception& e) {
                exchange->respond(error_response(500, std::string("the server failed: ") + e.what(), "internal"));
                exchange->end_stream();
              }};
}

void Service::start_run(const std::shared_ptr<Exchange>& exchange, RunBody body) {
  runs_.start(&exchange->cancel(), std::move(body), refusals(exchange));
}

void Service::list_workflows(Exchange& exchange) const {
  Value data = Value::array();
  for (const ServedWorkflow& w : catalog()->workflows()) data.push_back(app::workflow_document(*w.executor, w.name));
  exchange.respond(json_response(200, to_json_text(Value{{"object", "list"}, {"data", std::move(data)}})));
}

void Service::invoke(const std::shared_ptr<Exchange>& exchange, const ServedWorkflow& workflow) {
  if (kept_) {
    InvokeRequest request{workflow, {}, {}, prefers_async(exchange->request())};
    try {
      request.key = idempotency_key(exchange->request());
      request.inputs = workflow.executor->resolve_inputs(inputs_of(exchange->request().body));
    } catch (const Error& e) {
      return exchange->respond(error_response(status_for_error(e.kind()), e.formatted(), e.kind()));
    }
    return kept_->invoke(exchange, std::move(request), refusals(exchange));
  }
  // Without a store a run cannot be found again: a key would promise what the server cannot keep. Prefer is only a
  // preference (RFC 7240): the run is answered when it ends, without Preference-Applied.
  if (exchange->request().header("idempotency-key"))
    return exchange->respond(error_response(400, "an Idempotency-Key needs the run store, which this server does not "
                                                 "keep (--no-store, or it could not be opened)", ErrorKind::Usage));
  auto executor = workflow.executor;
  start_run(exchange, [this, exchange, executor, name = workflow.name, file = workflow.file](
                          const Cancel& cancel, const std::function<void()>& ran) {
    try {
      Value inputs = executor->resolve_inputs(inputs_of(exchange->request().body));
      ServedRunSinks sinks(observers_, exchange->request(), file);
      ModelCallTimer timer(metrics_, name, sinks.sink());
      agent::RunResult result = executor->run(inputs, timer, {.cancel = &cancel, .trace = sinks.trace()});
      metrics_.count_run(name, result);
      ran();
      HttpResponse response = run_answer(app::run_document(result));
      sinks.respond_with(response.status);
      exchange->respond(std::move(response));
    } catch (const Error& e) {
      ran();
      exchange->respond(error_response(status_for_error(e.kind()), e.formatted(), e.kind()));
    }
  });
}

void Service::stream(const std::shared_ptr<Exchange>& exchange, const ServedWorkflow& workflow) {
  auto executor = workflow.executor;
  start_run(exchange, [this, exchange, executor, name = workflow.name, file = workflow.file](
                          const Cancel& cancel, const std::function<void()>& ran) {
    Value inputs;
    try {
      inputs = executor->resolve_inputs(inputs_of(exchange->request().body));
    } catch (const Error& e) {
      ran();
      return exchange->respond(error_response(status_for_error(e.kind()), e.formatted(), e.kind()));
    }
    exchange->open_stream(sse_head());
    SseEventSink events(exchange);
    ServedRunSinks sinks(observers_, exchange->request(), file, &events);
    sinks.respond_with(200);  // the stream is open: a failed run is its last event
    ModelCallTimer timer(metrics_, name, sinks.sink());
    agent::RunResult result = executor->run(inputs, timer, {.stream = true, .cancel = &cancel, .trace = sinks.trace()});
    metrics_.count_run(name, result);
    ran();
    Value doc = app::run_document(result);
    exchange->send(sse_event(result.ok() ? "result" : "error", to_json_text(doc)));
    exchange->end_stream();
  });
}

void Service::batch(const std::shared_ptr<Exchange>& exchange, const ServedWorkflow& workflow) {
  JsonError error;
  Value body = parse_json(exchange->request().body, &error);
  const Value* list = body.is_object() && body.contains("inputs") ? &body["inputs"] : nullptr;
  if (!list || !list->is_array())
    return exchange->respond(error_response(400, "the body must be {\"inputs\": [ {...}, ... ]}: one object of inputs "
                                                 "per run", ErrorKind::InputNotObject, "inputs"));
  if (list->size() > limits_.max_batch)
    return exchange->respond(error_response(400, "a batch holds at most " + std::to_string(limits_.max_batch) +
                                                     " inputs (--max-batch); this one holds " +
                                                     std::to_string(list->size()), ErrorKind::InputTooMany, "inputs"));
  // Each input is a run of its own under the server's slots, as many requests would be: all are admitted at once
  // (or the batch is turned away), and each waits for its slot.
  size_t n = list->size();
  if (n > slots_.capacity())
    return exchange->respond(error_response(400, "this server takes at most " + std::to_string(slots_.capacity()) +
                                                     " runs at once (--runs plus --queue); a batch of " +
                                                     std::to_string(n) + " can never be taken",
                                            ErrorKind::InputTooMany, "inputs"));
  auto executor = workflow.executor;
  auto rows = std::make_shared<Value>(std::move(*list));
  auto results = std::make_shared<std::vector<Value>>(n);
  auto sinks = std::make_shared<std::optional<ServedRunSinks>>();
  auto row_error = [results](size_t i, Value error) { (*results)[i] = Value{{"error", std::move(error)}}; };
  RunLauncher::Rows runs{
      .count = n,
      // One trace: each row's run under the caller's span.
      .begin = [this, exchange, sinks, file = workflow.file] { sinks->emplace(observers_, exchange->request(), file); },
      .run =
          [this, executor, rows, results, sinks, row_error, name = workflow.name](size_t i, const Cancel& cancel) {
            try {
              if (!(*rows)[i].is_object())
                throw Error(ErrorKind::InputNotObject, "inputs[" + std::to_string(i) + "] is not an object of inputs");
              Value inputs = executor->resolve_inputs(std::move((*rows)[i]));
              ModelCallTimer timer(metrics_, name, (*sinks)->sink());
              agent::RunResult result = executor->run(inputs, timer, {.cancel = &cancel, .trace = (*sinks)->trace()});
              metrics_.count_run(name, result);
              (*results)[i] = app::run_document(result);
            } catch (const Error& e) {
              row_error(i, {{"message", e.formatted()}, {"code", e.kind()}});
            }
          },
      .failed = [row_error](size_t i, const std::string& why) { row_error(i, {{"message", why}, {"code", "internal"}}); },
      .end =
          [exchange, results, sinks] {
            (*sinks)->respond_with(200);
            exchange->respond(json_response(200, to_json_text(Value{{"results", std::move(*results)}})));
            sinks->reset();  // the request's span ends with its answer
          }};
  runs_.start_all(&exchange->cancel(), std::move(runs), refusals(exchange));
}

// POST /mcp: Streamable HTTP, stateless (no session id, no GET stream), both eras. A request is answered with JSON,
// or, for a tool call from a client that accepts it, as an SSE stream of its progress and then its result; closing
// that stream cancels the call. A notification gets 202.
void Service::mcp_message(const std::shared_ptr<Exchange>& exchange) {
  const HttpRequest& r = exchange->request();
  JsonError error;
  Value message = parse_json(r.body, &error);
  if (message.is_discarded())
    return exchange->respond(json_response(400, to_json_text(McpService::parse_error("the body is not JSON: " +
                                                                                      error.message))));
  if (auto refused = mcp_http_refusal(r, message)) return exchange->respond(std::move(*refused));
  bool is_request = message.is_object() && message.contains("id") && message.contains("method");
  if (!is_request) {
    mcp_.handle(std::move(message), [exchange](const Value& answer) {
      if (!answer.is_null()) exchange->respond(json_response(400, to_json_text(answer)));
    }, &exchange->cancel(), r.request_id);
    return exchange->respond({202, {}, ""});
  }
  const std::string* accept = r.header("accept");
  bool streams = message.value("method", "") == "tools/call" && accept &&
                 accept->find("text/event-stream") != std::string::npos;
  if (streams) exchange->open_stream(sse_head());
  mcp_.handle(std::move(message), [exchange, streams](const Value& answer) {
    bool final = answer.is_null() || answer.contains("id");
    if (streams) {
      if (!answer.is_null()) exchange->send(sse_event("message", to_json_text(answer)));
      if (final) exchange->end_stream();
    } else if (final) {
      if (answer.is_null()) exchange->respond({204, {}, ""});
      else exchange->respond(json_response(200, to_json_text(answer)));
    }
  }, &exchange->cancel(), r.request_id, r.header("traceparent"));
}

}  // namespace engine::server
