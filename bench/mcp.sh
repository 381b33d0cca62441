#!/usr/bin/env bash
# The engine's MCP client next to the official TypeScript SDK client and a bare JSON-RPC client (the floor: what the
# server itself costs), the same N tools/call against the same server-everything, over stdio and Streamable HTTP.
# Each side runs `rounds` times, interleaved; the medians and their ratios are printed.
#   bench/mcp.sh [build-dir] [calls=1000] [rounds=3]
# The SDK client and the bare stdio client are ../shared/bench/mcp's (PEER_BENCH names ../shared/bench; `npm ci`
# there once); the server is the one pinned in tests/peers (scripts/setup.sh installs it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"; calls="${2:-1000}"; rounds="${3:-3}"
shared="${PEER_BENCH:-$root/../shared/bench}/mcp"
server="$root/tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
command -v node >/dev/null || { echo "mcp.sh: node is needed" >&2; exit 2; }
[ -f "$server" ] || { echo "mcp.sh: run scripts/setup.sh first (tests/peers)" >&2; exit 2; }
sdk=""; [ -d "$shared/node_modules" ] && sdk="$shared"

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
PORT=$port node "$root/tests/peers/loopback.mjs" "$server" streamableHttp >/dev/null 2>&1 &  # on 127.0.0.1 only
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
url="http://127.0.0.1:$port/mcp"
for _ in $(seq 100); do node -e "require('net').connect($port,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" && break; sleep 0.1; done

field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$2"; }
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
declare -A call start cpu
measure() {  # name command...
  local name=$1; shift
  local out; out=$("$@") || { echo "mcp.sh: $name failed" >&2; return; }
  call[$name]+=" $(field per_call_us "$out")"
  start[$name]+=" $(field start_and_list_ms "$out")"
  cpu[$name]+=" $(field cpu_per_call_us "$out")"
}
for _ in $(seq "$rounds"); do
  measure engine-stdio "$build/bench/mcp_bench" stdio "$server" "$calls"
  [ -n "$sdk" ] && measure bare-stdio node "$sdk/bare_client.mjs" "$calls"
  [ -n "$sdk" ] && measure sdk-stdio node "$sdk/sdk_client.mjs" stdio "$calls"
  measure engine-http "$build/bench/mcp_bench" http "$url" "$calls"
  measure bare-http node "$root/bench/mcp/bare_http.mjs" "$url" "$calls"
  [ -n "$sdk" ] && measure sdk-http node "$sdk/sdk_client.mjs" http "$url" "$calls"
done

printf 'MCP: %d tools/call of server-everything get-sum, one at a time; medians of %d rounds\n' "$calls" "$rounds"
for t in stdio http; do
  for who in engine bare sdk; do
    n="$who-$t"
    [ -n "${call[$n]:-}" ] || { printf '  %-13s not measured (npm ci in %s)\n' "$n" "$shared"; continue; }
    c=$(median ${call[$n]}); s=$(median ${start[$n]})
    line=$(printf '  %-13s %8.1f us a call   start and list %7.1f ms' "$n" "$c" "$s")
    [ "$who" = engine ] && line+=$(printf '   own CPU %6.1f us a call' "$(median ${cpu[$n]})")
    echo "$line"
  done
  e=$(median ${call[engine-$t]})
  [ -n "${call[bare-$t]:-}" ] && awk -v e="$e" -v b="$(median ${call[bare-$t]})" -v t="$t" \
    'BEGIN { printf "  %s: the engine takes %.2fx the floor'"'"'s time a call (target <= 1.1x)\n", t, e / b }'
  [ -n "${call[sdk-$t]:-}" ] && awk -v e="$e" -v s="$(median ${call[sdk-$t]})" -v t="$t" \
    'BEGIN { printf "  %s: the SDK client takes %.2fx the engine'"'"'s\n", t, s / e }'
done
