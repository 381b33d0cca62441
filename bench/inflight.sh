#!/usr/bin/env bash
# Waiting on many model calls at once, without the engine: a thread per run against one curl multi handle for all,
# the same runs (4 calls each) against the shared Node mock. What an event-driven run could reach on this machine.
#   bench/inflight.sh [build-dir] [runs=4096] [concurrency=1024] [latency_ms=200]
# Against a warmed-up mock, as bench/batch.sh measures the engine; WARMUP=0 for a cold one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"; runs="${2:-4096}"; conc="${3:-1024}"; lat="${4:-200}"
shared="${PEER_BENCH:-$root/../shared/bench}"
[ -f "$shared/mock_llm/server.js" ] || { echo "inflight.sh: no mock server in $shared (set PEER_BENCH)" >&2; exit 2; }
log="$(mktemp)"; pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -f "$log"' EXIT
MOCK_LATENCY_MS="$lat" node "$shared/mock_llm/server.js" --port 0 >"$log" 2>&1 &
pid=$!
port=""
for _ in $(seq 50); do port="$(sed -n 's/^listening \([0-9]*\).*/\1/p' "$log")"; [ -n "$port" ] && break; sleep 0.1; done
[ -n "$port" ] || { echo "inflight.sh: the mock server did not start" >&2; exit 1; }
ulimit -n "$(( conc * 2 + 256 > $(ulimit -n) ? conc * 2 + 256 : $(ulimit -n) ))" 2>/dev/null || true
ideal=$(( (runs + conc - 1) / conc * 4 * lat ))
# The same warm-up as bench/batch.sh's (WARMUP=0 for a cold mock): one untimed wave first.
if [ "${WARMUP:-1}" != 0 ]; then
  "$build/bench/inflight_bench" --base "http://127.0.0.1:$port/v1" --runs "$conc" --concurrency "$conc" --mode multi >/dev/null
fi
for mode in ${INFLIGHT_MODES:-threads handoff multi}; do
  line=$("$build/bench/inflight_bench" --base "http://127.0.0.1:$port/v1" --runs "$runs" --concurrency "$conc" --mode "$mode")
  awk -v l="$line" -v i="$ideal" 'BEGIN {
    match(l, /"mode":"[a-z]*"/); mode = substr(l, RSTART + 8, RLENGTH - 9)
    match(l, /"ms":[0-9.]*/); ms = substr(l, RSTART + 5, RLENGTH - 5)
    match(l, /"cpu_us_per_call":[0-9.]*/); cpu = substr(l, RSTART + 18, RLENGTH - 18)
    match(l, /"rss_mb":[0-9.]*/); rss = substr(l, RSTART + 9, RLENGTH - 9)
    printf "%-8s %6.0f ms = %.2fx the ideal of %d ms; %6.1f us CPU a call; peak RSS %.1f MB\n", mode, ms, ms / i, i, cpu, rss }'
done
