// engine mcp: the MCP server over stdio. One JSON-RPC message a line on stdin, one a line on stdout (nothing else is
// ever written there: the engine's own messages go to stderr), tool calls run on fibers while the next lines are
// read, so a client may call several tools at once and cancel any of them.
#include <unistd.h>

#include <mutex>

#include "engine/app/run_recording.h"
#include "engine/core/error.h"
#include "engine/core/file.h"
#include "engine/core/json_parse.h"
#include "engine/core/json_text.h"
#include "engine/core/limits.h"
#include "engine/net/io_threads.h"
#include "engine/server/mcp_service.h"
#include "engine/server/serve.h"

namespace engine::server {
namespace {

// Where the server's bytes leave the process: each message, whole, masked by the server's secrets.
class LineWriter {
 public:
  LineWriter(int fd, std::shared_ptr<const SecretSet> secrets) : fd_(fd), secrets_(std::move(secrets)) {}
  void write(const Value& message) {
    std::string line = secrets_->mask(to_json_text(message));
    line += '\n';
    std::lock_guard lock(mu_);
    if (!broken_) broken_ = !write_fully(fd_, line);
  }

 private:
  int fd_;
  std::shared_ptr<const SecretSet> secrets_;
  std::mutex mu_;
  bool broken_ = false;  // the client closed its end: what is left to say is dropped
};

}  // namespace

int serve_mcp_stdio(const McpStdioOptions& options, std::vector<std::string>& problems) {
  app::LoadOptions load = options.load;
  std::optional<trace::OtlpSettings> otlp = options.otlp;
  std::shared_ptr<SecretSet> secrets = one_secret_set(load, otlp);
  if (!load.io) load.io = std::make_shared<net::IoThreads>();  // one for every workflow, as engine serve has
  if (load.calls_in_flight == 0) load.calls_in_flight = options.service.runs_in_flight;
  std::shared_ptr<const Catalog> catalog = Catalog::load(options.paths, load, problems);
  std::unique_ptr<trace::OtlpExporter> exporter;
  if (otlp) exporter = std::make_unique<trace::OtlpExporter>(*otlp);
  std::unique_ptr<store::RunStore> store;
  if (options.store) {
    try {
      store = app::recording_store(*options.store);
    } catch (const Error& e) {
      problems.push_back("the tool calls are not recorded: " + e.message());
    }
  }
  std::unique_ptr<store::RunWriter> store_writer;
  if (store) store_writer = std::make_unique<store::RunWriter>(*store, limits::kStoreQueuedRuns);
  FiberPool pool(FiberPool::threads_for(options.service.runs_in_flight));
  RunSlots slots(options.service.runs_in_flight, options.service.runs_queued);
  Metrics metrics;
  RunLauncher runs(pool, slots, options.service.run_timeout);
  McpService service([catalog] { return catalog; }, runs, metrics, ServerObservers{exporter.get(), store_writer.get(), secrets});
  LineWriter writer(options.out_fd, secrets);
  McpService::Send send = [&writer](const Value& message) {
    if (!message.is_null()) writer.write(message);
  };
  Cancel closing;  // stdin ended: the calls still running are cancelled

  std::string pending;
  bool skipping = false;  // inside a line past the limit
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(options.in_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size_t start = 0;
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      if (buf[i] != '\n') continue;
      if (!skipping) {
        pending.append(buf + start, i - start);
        if (!pending.empty() && pending.back() == '\r') pending.pop_back();
        if (pending.find_first_not_of(" \t") != std::string::npos) {
          JsonError error;
          Value message = parse_json(pending, &error);
          if (message.is_discarded()) send(McpService::parse_error("the line is not JSON: " + error.message));
          else service.handle(std::move(message), send, &closing);
        }
      }
      pending.clear();
      skipping = false;
      start = i + 1;
    }
    if (!skipping) pending.append(buf + start, static_cast<size_t>(n) - start);
    if (pending.size() > limits::kMcpLineBytes) {
      send(McpService::parse_error("a line longer than " + std::to_string(limits::kMcpLineBytes >> 20) + " MiB"));
      pending.clear();
      skipping = true;
    }
  }
  // The client is gone or done: what still runs is cancelled, and the process ends once it has stopped.
  closing.cancel();
  service.wait_idle(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  pool.join();
  if (exporter) {
    exporter->flush(otlp->flush_bound);
    if (options.spans_finished) options.spans_finished(exporter->counts());
  }
  return 0;
}

}  // namespace engine::server
