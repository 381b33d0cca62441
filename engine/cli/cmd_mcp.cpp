// engine mcp WORKFLOW|FOLDER...: the workflows as the tools of an MCP server over stdio (docs/mcp.md, "The engine as
// an MCP server"): a client such as Claude Desktop, an IDE or another agent starts it and calls the workflows.
#include <CLI/CLI.hpp>
#include <iostream>

#include "engine/cli/cli_support.h"
#include "engine/cli/commands.h"
#include "engine/cli/console_mask.h"
#include "engine/cli/run_output.h"
#include "engine/server/serve.h"

namespace engine::cli {
namespace {

struct McpCommandOptions {
  std::vector<std::string> paths;
  std::string llm;
  size_t runs = 16;
  double run_timeout = 300;
  std::string otlp;
  app::StoreOptions store;
};

int serve_mcp(const McpCommandOptions& o) {
  server::McpStdioOptions options;
  options.paths = o.paths;
  options.load.llm = o.llm;
  options.load.secrets = console_secrets();  // the workflows' keys masked on stderr, as a run's are
  options.service.runs_in_flight = o.runs;
  options.service.runs_queued = 256;
  options.service.run_timeout = std::chrono::seconds(static_cast<long>(o.run_timeout));
  options.otlp = trace::otlp_settings(o.otlp, [](const char* name) { return std::getenv(name); }, console_secrets());
  options.spans_finished = warn_of_dropped_spans;
  options.store = app::store_file(o.store);
  std::vector<std::string> problems;
  int code = server::serve_mcp_stdio(options, problems);
  for (const auto& p : problems) std::cerr << "engine: warning: " << p << "\n";
  return code;
}

}  // namespace

void add_mcp_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<McpCommandOptions>();
  CLI::App* cmd = app.add_subcommand("mcp", "Serve workflows as the tools of an MCP server over stdio");
  cmd->add_option("workflows", o->paths, "Workflow files, or folders of them")->required();
  cmd->add_option("--llm", o->llm, "Use another model than the workflows': PROVIDER:MODEL (as engine run)");
  cmd->add_option("--runs", o->runs, "Tool calls running at once (more wait)")
      ->capture_default_str()->check(whole_number(1, 100000));
  cmd->add_option("--run-timeout", o->run_timeout, "Seconds a tool call may take")
      ->capture_default_str()->check(finite_number(1, 86400));
  cmd->add_option("--otlp", o->otlp, "Send the tool calls' spans to an OpenTelemetry collector at URL (OTLP/HTTP JSON; "
                                     "or OTEL_EXPORTER_OTLP_ENDPOINT); a call's _meta.traceparent is their parent");
  add_store_options(*cmd, o->store);
  cmd->callback([o, &exit_code] { exit_code = guarded([&] { return serve_mcp(*o); }); });
}

}  // namespace engine::cli
