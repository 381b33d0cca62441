// The engine's MCP client against server-everything: start it (or connect to it), list its tools, then N tools/call
// of get-sum one after another, as bench/mcp.sh runs the official SDK client and a bare JSON-RPC client.
//   mcp_bench stdio SERVER_JS [N]       mcp_bench http URL [N]
// Prints one JSON line: {mode, start_and_list_ms, per_call_us, cpu_per_call_us}; the CPU is the engine's own (its
// threads, not the server's), from getrusage.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "engine/core/error.h"
#include "engine/net/descriptor_watch.h"
#include "engine/tools/mcp/mcp_server.h"

using namespace engine;
using Clock = std::chrono::steady_clock;

namespace {

double cpu_us() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: mcp_bench stdio SERVER_JS [N] | mcp_bench http URL [N]\n");
    return 2;
  }
  std::string mode = argv[1];
  int n = argc > 3 ? std::atoi(argv[3]) : 1000;
  tools::mcp::McpServerConfig config;
  config.name = "server-everything";
  if (mode == "stdio") config.process = net::ProcessSpec{"node", {argv[2], "stdio"}, {}, {}};
  else config.url = argv[2];
  try {
    auto t0 = Clock::now();
    auto server = std::make_unique<tools::mcp::McpServer>(config, std::make_shared<net::IoThreads>());
    auto listed = server->list_tools();
    double start_ms = ms_since(t0);
    double cpu0 = cpu_us();
    auto t1 = Clock::now();
    for (int i = 0; i < n; ++i) {
      Value r = server->call("get-sum", Value{{"a", i}, {"b", 1}}, {});
      if (!r.contains("content")) throw Error(ErrorKind::McpProtocol, "get-sum answered without content");
    }
    double calls_ms = ms_since(t1);
    double cpu = cpu_us() - cpu0;
    std::printf("{\"mode\":\"engine-%s\",\"tools\":%zu,\"start_and_list_ms\":%.1f,\"per_call_us\":%.1f,"
                "\"cpu_per_call_us\":%.1f}\n",
                mode.c_str(), listed.size(), start_ms, calls_ms * 1000 / n, cpu / n);
  } catch (const Error& e) {
    std::fprintf(stderr, "mcp_bench: %s: %s\n", std::string(e.kind_name()).c_str(), e.message().c_str());
    return 1;
  }
  return 0;
}
