#!/usr/bin/env bash
# engine serve under load, side by side with the shared Node mock of the OpenAI API (../shared/bench/mock_llm), the
# same load generator (bench/serve/load.mjs) pointed at each, on this machine's cores:
#  1. throughput and latency of /v1/chat/completions: the mock answering a canned completion, and engine serve
#     answering with a scripted workflow (a whole ReAct turn: request, run, response);
#  2. N streaming completions at once through engine serve to an upstream mock at a model latency, against the same
#     streams sent straight to the mock: the time a stream takes beside the model's, and the server's peak RSS.
#   bench/serve.sh [build-dir] [seconds=10] [concurrency=16] [streams=2000] [latency_ms=200]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"; seconds="${2:-10}"; conc="${3:-16}"; streams="${4:-2000}"; lat="${5:-200}"
shared="${PEER_BENCH:-$root/../shared/bench}"
[ -f "$shared/mock_llm/server.js" ] || { echo "serve.sh: no mock server in $shared (set PEER_BENCH)" >&2; exit 2; }
command -v node >/dev/null || { echo "serve.sh: node is needed" >&2; exit 2; }
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

work="$(mktemp -d)"; pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
load() { node "$root/bench/serve/load.mjs" "$@"; }

start_mock() {  # $1 = latency ms; sets mock_port
  MOCK_ITERATIONS=0 MOCK_LATENCY_MS="$1" node "$shared/mock_llm/server.js" --port 0 >"$work/mock$1.log" 2>&1 &
  pids+=($!)
  mock_port=""
  for _ in $(seq 50); do mock_port="$(sed -n 's/^listening \([0-9]*\).*/\1/p' "$work/mock$1.log")"; [ -n "$mock_port" ] && break; sleep 0.1; done
  [ -n "$mock_port" ] || { echo "serve.sh: the mock did not start" >&2; exit 1; }
}
start_engine() {  # $1 = name for logs, then engine serve's arguments; sets engine_port, engine_pid
  local name="$1"; shift
  "$build/engine" serve "$@" --port 0 -q 2>"$work/$name.err" &
  engine_pid=$!; pids+=($engine_pid)
  engine_port=""
  for _ in $(seq 100); do engine_port="$(sed -n 's/.* on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$work/$name.err")"; [ -n "$engine_port" ] && break; sleep 0.1; done
  [ -n "$engine_port" ] || { echo "serve.sh: engine serve did not start" >&2; cat "$work/$name.err" >&2; exit 1; }
}
field() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p"; }

question='"messages":[{"role":"user","content":"What is (10 + 10) doubled twice?"}]'

# 1. Throughput and latency.
start_mock 0
start_engine scripted "$root/bench/serve/scripted.yaml"
mock_url="http://127.0.0.1:$mock_port/v1/chat/completions"
engine_url="http://127.0.0.1:$engine_port/v1/chat/completions"
load rps "$mock_url" "{\"model\":\"mock\",$question}" "$conc" 2 >/dev/null      # warm-up, untimed
load rps "$engine_url" "{\"model\":\"scripted\",$question}" "$conc" 2 >/dev/null
m="$(load rps "$mock_url" "{\"model\":\"mock\",$question}" "$conc" "$seconds")"
e="$(load rps "$engine_url" "{\"model\":\"scripted\",$question}" "$conc" "$seconds")"
echo "chat completions, $conc connections, ${seconds} s each:"
echo "  node mock (canned):        $m"
echo "  engine serve (scripted):   $e"
awk -v mr="$(echo "$m" | field rps)" -v er="$(echo "$e" | field rps)" -v m99="$(echo "$m" | field p99_ms)" \
    -v e99="$(echo "$e" | field p99_ms)" -v m50="$(echo "$m" | field p50_ms)" -v e50="$(echo "$e" | field p50_ms)" 'BEGIN {
  printf "  throughput %.0f vs %.0f req/s: %.2fx the mock; p50 %.2f vs %.2f ms; p99 %.2f vs %.2f ms: added p99 %+.2f ms\n",
         er, mr, er / mr, e50, m50, e99, m99, e99 - m99 }'

# 2. Streams at once through the engine to a model with latency.
start_mock "$lat"
upstream="http://127.0.0.1:$mock_port/v1"
MOCK_BASE_URL="$upstream" MOCK_API_KEY=sk-mock start_engine upstream "$root/bench/peer/react_add_multiply.yaml" \
  --runs "$streams" --queue 0
body_direct="{\"model\":\"mock\",\"stream\":true,$question}"
body_engine="{\"model\":\"react_add_multiply\",\"stream\":true,$question}"
load streams "$upstream/chat/completions" "$body_direct" 200 >/dev/null  # warm-up, untimed
load streams "http://127.0.0.1:$engine_port/v1/chat/completions" "$body_engine" 200 >/dev/null
d="$(load streams "$upstream/chat/completions" "$body_direct" "$streams")"
s="$(load streams "http://127.0.0.1:$engine_port/v1/chat/completions" "$body_engine" "$streams")"
rss_kb="$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$engine_pid/status")"
echo "$streams streaming completions at once, model latency $lat ms:"
echo "  straight to the mock:      $d"
echo "  through engine serve:      $s"
awk -v lat="$lat" -v dw="$(echo "$d" | field seconds)" -v sw="$(echo "$s" | field seconds)" \
    -v d50="$(echo "$d" | field p50_ms)" -v s50="$(echo "$s" | field p50_ms)" -v s99="$(echo "$s" | field p99_ms)" \
    -v rss="$rss_kb" -v errs="$(echo "$s" | field errors)" 'BEGIN {
  printf "  all done in %.0f ms (straight: %.0f ms) = %.2fx the model time; a stream p50 %.0f ms (straight %.0f), p99 %.0f ms; engine peak RSS %.1f MB; %d errors\n",
         sw * 1000, dw * 1000, sw * 1000 / lat, s50, d50, s99, rss / 1024, errs }'
