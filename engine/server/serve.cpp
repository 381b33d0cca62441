#include "engine/server/serve.h"

#include <ctime>

#include "engine/app/run_recording.h"
#include "engine/core/error.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/net/io_threads.h"

namespace engine::server {
namespace {

std::string utc_now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  std::tm tm{};
  gmtime_r(&ts.tv_sec, &tm);
  char buf[40];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03ldZ", ts.tv_nsec / 1000000);
  return buf;
}

}  // namespace

std::shared_ptr<SecretSet> one_secret_set(app::LoadOptions& load, std::optional<trace::OtlpSettings>& otlp) {
  std::shared_ptr<SecretSet> secrets = load.secrets ? load.secrets : SecretSet::with_environment_keys();
  load.secrets = secrets;
  if (otlp && otlp->secrets != secrets) {
    secrets->add_all(*otlp->secrets);
    otlp->secrets = secrets;
  }
  return secrets;
}

Server::Server(ServeOptions options, std::vector<std::string>& problems) : options_(std::move(options)) {
  // One set for every workflow served, the collector's headers and every answer: a key no output of the process
  // may show is one no response may show either, whichever workflow's it is.
  secrets_ = one_secret_set(options_.load, options_.otlp);
  // One transport thread and one pipe watch for every workflow served, however many models, grants and MCP
  // servers they name; kept across reloads.
  if (!options_.load.io) options_.load.io = std::make_shared<net::IoThreads>();
  // Many runs in flight, each mostly waiting on its model: they share a few threads (core/fiber.h).
  if (options_.load.calls_in_flight == 0) options_.load.calls_in_flight = options_.service.runs_in_flight;
  OriginPolicy origins{options_.tokens.empty() && is_loopback_host(options_.host), options_.allowed_origins};
  auto catalog = Catalog::load(options_.paths, options_.load, problems);
  if (options_.otlp) exporter_ = std::make_unique<trace::OtlpExporter>(*options_.otlp);
  if (options_.store) {
    try {
      store_ = app::recording_store(*options_.store);
      writer_ = std::make_unique<store::RunWriter>(*store_, limits::kStoreQueuedRuns);
    } catch (const Error& e) {
      problems.push_back("the runs are not recorded: " + e.message());
    }
  }
  pool_ = std::make_unique<FiberPool>(FiberPool::threads_for(options_.service.runs_in_flight));
  service_ = std::make_unique<Service>(std::move(catalog), TokenCheck(options_.tokens), options_.service, *pool_,
                                       ServerObservers{exporter_.get(), writer_.get(), secrets_}, std::move(origins));
  http_ = std::make_unique<HttpServer>(
      options_.host, options_.port, options_.http, [this](const std::shared_ptr<Exchange>& e) { service_->handle(e); },
      [this](const Completion& c) { log_access(c); }, secrets_);
  if (options_.resume) resumed_ = service_->resume_unfinished(problems);
}

Server::~Server() { shutdown(); }

std::vector<std::string> Server::reload() {
  std::vector<std::string> problems;
  auto previous = service_->catalog();
  service_->replace_catalog(Catalog::load(options_.paths, options_.load, problems, previous.get()));
  return problems;
}

size_t Server::shutdown() {
  if (shut_down_) return 0;
  shut_down_ = true;
  service_->set_draining();
  http_->stop_accepting();
  size_t cancelled = 0;
  if (!service_->slots().wait_idle(std::chrono::steady_clock::now() + options_.grace)) {
    cancelled = service_->slots().running() + service_->slots().waiting();
    http_->cancel_all();
    service_->cancel_detached();
    service_->slots().wait_idle(std::chrono::steady_clock::now() + std::chrono::seconds(30));
  }
  http_->stop();
  pool_->join();
  if (writer_) writer_->flush();  // the runs that ended are in the store when the server has shut down
  return cancelled;
}

std::optional<trace::OtlpExporter::Counts> Server::finish_spans() {
  if (!exporter_) return std::nullopt;
  exporter_->flush(options_.otlp->flush_bound);
  return exporter_->counts();
}

void Server::log_access(const Completion& c) {
  service_->metrics().count_request(Metrics::endpoint_of(c.request.path), c.status);
  if (!options_.access_log) return;
  Value line{{"time", utc_now_ms()},
             {"request_id", c.request.request_id},
             {"client", c.request.client},
             {"method", c.request.method},
             {"path", c.request.path},
             {"status", c.status},
             {"bytes", c.bytes_out},
             {"ms", static_cast<double>(static_cast<long>(c.elapsed_ms * 1000)) / 1000}};
  if (c.client_gone) line["client_gone"] = true;
  std::string text = to_json_text(line);
  std::lock_guard lock(log_mu_);
  *options_.access_log << text << '\n';
  options_.access_log->flush();
}

}  // namespace engine::server
