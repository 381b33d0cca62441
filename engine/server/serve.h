#pragma once
// `engine serve`: the workflows loaded, the HTTP server listening, runs on a pool of fibers. The front end (cli/)
// owns the signals: it calls reload() on SIGHUP and shutdown() on SIGTERM.
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/app/loading.h"
#include "engine/core/fiber.h"
#include "engine/server/http_server.h"
#include "engine/server/service.h"
#include "engine/trace/otlp_exporter.h"

namespace engine::server {

struct ServeOptions {
  std::vector<std::string> paths;  // workflow files and folders
  std::string host = "127.0.0.1";
  uint16_t port = 8080;
  app::LoadOptions load;
  ServerLimits http;
  ServiceLimits service;
  std::vector<std::string> tokens;
  // Web origins whose pages may call the server besides its own (--allow-origin; "*": any): request_origin.h.
  std::vector<std::string> allowed_origins;
  std::chrono::seconds grace{30};  // how long runs in flight may go on after a shutdown begins
  std::ostream* access_log = nullptr;  // JSON lines, one a request; null: none
  // The collector the runs' spans go to (--otlp, OTEL_EXPORTER_OTLP_*), or none. The exporter's keys are added to
  // each span's masking: every served workflow's, as its runs end.
  std::optional<trace::OtlpSettings> otlp;
  // The run store every run served is recorded in, or none (--no-store). A store that cannot be opened is a problem
  // reported, not a server that does not start.
  std::optional<std::filesystem::path> store;
  // Whether the unfinished runs asked for asynchronously are resumed at the start (served_runs.h); `engine ui` does
  // not.
  bool resume = true;
};

class Server {
 public:
  // Loads every workflow and listens. Throws what loading throws (located), Error "serve.*" for the rest.
  // `problems` receives what was left out of a folder.
  Server(ServeOptions options, std::vector<std::string>& problems);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const { return http_->port(); }
  // The runs resumed at the start, by id.
  const std::vector<std::string>& resumed() const { return resumed_; }
  std::shared_ptr<const Catalog> catalog() const { return service_->catalog(); }
  // Runs going or waiting for a slot.
  size_t running_runs() const { return service_->slots().running() + service_->slots().waiting(); }
  // Loads the workflows again: what loads replaces what was; a file that no longer loads keeps its old workflow.
  // Returns the problems. Throws (and changes nothing) when the new set cannot be served at all.
  std::vector<std::string> reload();
  // Stops accepting, lets the runs in flight end within the grace period, cancels the rest, closes. Returns how
  // many runs were cancelled.
  size_t shutdown();
  // After shutdown: sends the spans still queued (within the exporter's bound) and says how many could not be sent;
  // none when no spans are exported.
  std::optional<trace::OtlpExporter::Counts> finish_spans();

 private:
  void log_access(const Completion& c);

  ServeOptions options_;
  std::shared_ptr<SecretSet> secrets_;               // the loads', the exporter's and every exchange's
  std::unique_ptr<trace::OtlpExporter> exporter_;  // outlives the runs that feed it
  std::unique_ptr<store::RunStore> store_;           // likewise
  std::unique_ptr<store::RunWriter> writer_;         // its writes, off the runs' threads; goes before it
  std::unique_ptr<FiberPool> pool_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<HttpServer> http_;
  std::mutex log_mu_;
  bool shut_down_ = false;
  std::vector<std::string> resumed_;
};

struct McpStdioOptions {
  std::vector<std::string> paths;  // workflow files and folders
  app::LoadOptions load;
  ServiceLimits service;
  int in_fd = 0;
  int out_fd = 1;
  std::optional<trace::OtlpSettings> otlp;            // where the tool calls' spans go, or none
  std::optional<std::filesystem::path> store;         // where they are recorded, or none
  // Told, once the input has ended, what the exporter could not send (when spans are sent).
  std::function<void(const trace::OtlpExporter::Counts&)> spans_finished;
};

// The one SecretSet of a server: the loads' (made when `load` names none), the collector's headers added and the
// exporter given it too. Every answer, stream, span and record of the server masks it.
std::shared_ptr<SecretSet> one_secret_set(app::LoadOptions& load, std::optional<trace::OtlpSettings>& otlp);

// `engine mcp`: the workflows as the tools of an MCP server on `in_fd` and `out_fd`, until the input ends; the calls
// still running then are cancelled. Throws what loading throws. `problems` receives what was left out of a folder.
// Returns the exit code.
int serve_mcp_stdio(const McpStdioOptions& options, std::vector<std::string>& problems);

}  // namespace engine::server
