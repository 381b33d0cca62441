// engine serve WORKFLOW|FOLDER...: the workflows as an HTTP API, an OpenAI-compatible endpoint (docs/serve.md).
// This file owns the process's signals: SIGHUP reloads the workflows, SIGTERM and SIGINT shut down gracefully.
#include <signal.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "engine/app/loading.h"
#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/console_mask.h"
#include "engine/cli/run_output.h"
#include "engine/core/error.h"
#include "engine/core/limits.h"
#include "engine/core/text.h"
#include "engine/server/serve.h"

namespace engine::cli {
namespace {

struct ServeCommandOptions {
  std::vector<std::string> paths;
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string llm;
  std::string token_file;
  std::vector<std::string> allowed_origins;
  size_t max_body = limits::kRequestBodyBytes;
  size_t runs = 64;
  size_t queue = 256;
  size_t max_batch = 100;
  double run_timeout = 300;
  double grace = 30;
  double heartbeat = 15;
  double idle_timeout = 30;
  double header_timeout = 10;
  unsigned max_connections = 10000;
  bool quiet = false;
  std::string otlp;
  app::StoreOptions store;
  bool viewer = false;  // engine ui: the viewer first, the workflows (if any) to chat with
};

// Each connection is a descriptor: the soft limit (often 1024) is raised toward the hard one, as servers do, so that
// --max-connections can be reached. Returns the limit in force.
rlim_t raise_open_file_limit(rlim_t wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  rlim_t target = std::min(wanted, limit.rlim_max);
  if (limit.rlim_cur < target) {
    limit.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur;
}

std::chrono::seconds whole_seconds(double s) { return std::chrono::seconds(std::max<long>(1, static_cast<long>(s))); }

int serve(const ServeCommandOptions& o) {
  // Blocked before any thread starts, so every thread inherits the mask and this one alone takes them.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Room for the connections, the runs' own descriptors (model connections, MCP pipes) and the process's files.
  rlim_t open_files = raise_open_file_limit(rlim_t{o.max_connections} * 2 + 256);
  server::ServeOptions options;
  options.paths = o.paths;
  options.host = o.host;
  options.port = static_cast<uint16_t>(o.port);
  options.load.llm = o.llm;
  options.load.secrets = console_secrets();  // one set: the log on stderr and every response mask the same keys
  options.tokens = server::TokenCheck::read(o.token_file, std::getenv("ENGINE_SERVE_TOKENS"));
  options.allowed_origins = o.allowed_origins;
  options.http.max_body_bytes = o.max_body;
  options.http.heartbeat = std::chrono::milliseconds(std::max<long>(10, static_cast<long>(o.heartbeat * 1000)));
  options.http.idle_timeout = whole_seconds(o.idle_timeout);
  options.http.head_time = whole_seconds(o.header_timeout);
  options.http.max_connections = o.max_connections;
  options.service.runs_in_flight = std::max<size_t>(1, o.runs);
  options.service.runs_queued = o.queue;
  options.service.max_batch = o.max_batch;
  options.service.run_timeout = whole_seconds(o.run_timeout);
  options.grace = std::chrono::seconds(static_cast<long>(std::max(0.0, o.grace)));
  options.access_log = o.quiet ? nullptr : &std::cerr;
  options.otlp = trace::otlp_settings(o.otlp, [](const char* name) { return std::getenv(name); }, console_secrets());
  options.store = app::store_file(o.store);
  options.resume = !o.viewer;

  std::vector<std::string> problems;
  server::Server server(options, problems);
  for (const auto& p : problems) std::cerr << "engine: warning: " << p << "\n";
  std::vector<std::string> names;
  for (const auto& w : server.catalog()->workflows()) names.push_back(w.name);
  if (o.viewer) {
    std::cerr << "engine ui: the runs of " << (options.store ? options.store->string() : "no store (--no-store)")
              << " at http://127.0.0.1:" << server.port() << "/ui/";
    if (!names.empty()) std::cerr << ", and " << join(names, ", ") << " to chat with";
    std::cerr << " (Ctrl-C stops it)" << std::endl;
  } else
  std::cerr << "engine serve: " << names.size() << " workflow" << (names.size() == 1 ? "" : "s") << " ("
            << join(names, ", ") << ") on http://" << (o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host)
            << ":" << server.port() << std::endl;
  if (!server.resumed().empty())
    std::cerr << "engine serve: resumed " << server.resumed().size() << " unfinished run"
              << (server.resumed().size() == 1 ? "" : "s") << " asked for asynchronously (" << join(server.resumed(), ", ")
              << ")" << std::endl;
  if (open_files > 0 && open_files < rlim_t{o.max_connections} + 256)
    std::cerr << "engine: warning: the open-file limit (" << open_files << ") holds fewer than --max-connections ("
              << o.max_connections << ") connections; raise it (ulimit -n) or lower --max-connections" << std::endl;
  if (!server::is_loopback_host(o.host) && options.tokens.empty())
    std::cerr << "engine: warning: listening on " << o.host << " without tokens: anyone who can reach it can run the "
              << "workflows (give --token-file FILE or ENGINE_SERVE_TOKENS)" << std::endl;

  for (;;) {
    int signal = 0;
    if (sigwait(&signals, &signal) != 0) continue;
    if (signal == SIGHUP) {
      try {
        std::vector<std::string> reload_problems = server.reload();
        for (const auto& p : reload_problems) std::cerr << "engine: warning: " << p << "\n";
        std::cerr << "engine serve: reloaded " << server.catalog()->workflows().size() << " workflows" << std::endl;
      } catch (const Error& e) {
        print_error(e.kind(), "the reload failed, the workflows served are unchanged: " + e.formatted());
      }
      continue;
    }
    std::cerr << "engine serve: stopping (runs in flight have " << static_cast<long>(o.grace) << " s to end)"
              << std::endl;
    size_t cancelled = server.shutdown();
    if (cancelled > 0) std::cerr << "engine serve: cancelled " << cancelled << " runs still going" << std::endl;
    if (auto spans = server.finish_spans()) warn_of_dropped_spans(*spans);
    return kOk;
  }
}

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ServeCommandOptions>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve workflows over HTTP: each as an API, an OpenAI-compatible "
                                              "model and an MCP tool (docs/serve.md)");
  cmd->add_option("workflows", o->paths, "Workflow files, or folders of them")->required();
  cmd->add_option("--host", o->host, "The address to listen on")->capture_default_str();
  cmd->add_option("--port", o->port, "The port to listen on (0: any free one, printed)")
      ->capture_default_str()->check(whole_number(0, 65535));
  cmd->add_option("--llm", o->llm, "Use another model than the workflows': PROVIDER:MODEL (as engine run)");
  cmd->add_option("--token-file", o->token_file, "Require a bearer token from this file (one a line); "
                  "ENGINE_SERVE_TOKENS adds comma-separated ones");
  cmd->add_option("--allow-origin", o->allowed_origins,
                  "A web origin (https://app.example.com) whose pages may call the server besides its own; "
                  "repeatable; '*' allows every origin (docs/security.md)");
  cmd->add_option("--max-body", o->max_body, "The largest request body, in bytes")
      ->capture_default_str()->check(whole_number(1, size_t{1} << 32));
  cmd->add_option("--runs", o->runs, "Runs at once")->capture_default_str()->check(whole_number(1, 100000));
  cmd->add_option("--queue", o->queue, "Runs waiting beyond those; more are answered 429")
      ->capture_default_str()->check(whole_number(0, 1000000));
  cmd->add_option("--run-timeout", o->run_timeout, "Seconds a run may take")
      ->capture_default_str()->check(finite_number(1, 86400));
  cmd->add_option("--max-batch", o->max_batch, "Inputs in one batch request")
      ->capture_default_str()->check(whole_number(1, 100000));
  cmd->add_option("--grace", o->grace, "Seconds runs in flight have to end after SIGTERM")
      ->capture_default_str()->check(finite_number(0, 86400));
  cmd->add_option("--heartbeat", o->heartbeat, "Seconds between keep-alive comments on a quiet stream")
      ->capture_default_str()->check(finite_number(0.01, 3600));
  cmd->add_option("--header-timeout", o->header_timeout,
                  "Seconds a request's line and headers may take to arrive (also how long a kept-alive connection "
                  "may wait for its next request)")
      ->capture_default_str()->check(finite_number(1, 3600));
  cmd->add_option("--idle-timeout", o->idle_timeout, "Seconds a connection may send nothing")
      ->capture_default_str()->check(finite_number(1, 3600));
  cmd->add_option("--otlp", o->otlp, "Send the runs' spans to an OpenTelemetry collector at URL (OTLP/HTTP JSON; "
                                     "or OTEL_EXPORTER_OTLP_ENDPOINT); a request's traceparent is their parent");
  add_store_options(*cmd, o->store);
  cmd->add_option("--max-connections", o->max_connections, "Open connections at most")
      ->capture_default_str()->check(whole_number(1, 1000000));
  cmd->add_flag("-q,--quiet", o->quiet, "No access log (JSON lines on stderr)");
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return serve(*o); }); });
}

void add_ui_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ServeCommandOptions>();
  o->viewer = true;
  o->quiet = true;
  o->port = 8765;
  CLI::App* cmd = app.add_subcommand("ui", "The run viewer in the browser, on this machine only: the recorded runs, "
                                           "their timelines, prompts and replies; two runs compared");
  cmd->add_option("workflows", o->paths, "Workflow files or folders to chat with from the viewer (optional)");
  cmd->add_option("--port", o->port, "The port on 127.0.0.1 (0: any free one, printed)")
      ->capture_default_str()->check(whole_number(0, 65535));
  cmd->add_option("--llm", o->llm, "Use another model than the workflows': PROVIDER:MODEL (as engine run)");
  add_store_options(*cmd, o->store);
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return serve(*o); }); });
}

}  // namespace engine::cli
