#!/usr/bin/env bash
# `engine batch` as a user runs it, against the shared loopback mock of the OpenAI API (../shared/bench/mock_llm):
# N runs of the peer task (4 LLM calls each) at a given concurrency and model latency. Prints the wall time against
# the ideal (waves x 4 calls x latency) and the peak RSS, and LangChain.js on the same mock when its peer is set up.
#   bench/batch.sh [build-dir] [runs=1000] [concurrency=64] [latency_ms=50]
# PEER_BENCH names the shared bench folder (default ../shared/bench). WARMUP=0 measures against a cold mock: by
# default one wave of runs (the concurrency's worth, untimed) goes to the mock first, so that the timed batch meets a
# server that has compiled its request path and grown its heap, as a serving model has; LangChain.js, measured after
# the engine, meets the same warm mock.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"; runs="${2:-1000}"; conc="${3:-64}"; lat="${4:-50}"
shared="${PEER_BENCH:-$root/../shared/bench}"
[ -f "$shared/mock_llm/server.js" ] || { echo "batch.sh: no mock server in $shared (set PEER_BENCH)" >&2; exit 2; }
command -v node >/dev/null || { echo "batch.sh: node is needed for the mock server" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "batch.sh: GNU time (/usr/bin/time) is needed for the peak RSS" >&2; exit 2; }

work="$(mktemp -d)"; pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
MOCK_LATENCY_MS="$lat" node "$shared/mock_llm/server.js" --port 0 >"$work/mock.log" 2>&1 &
pid=$!
port=""
for _ in $(seq 50); do port="$(sed -n 's/^listening \([0-9]*\).*/\1/p' "$work/mock.log")"; [ -n "$port" ] && break; sleep 0.1; done
[ -n "$port" ] || { echo "batch.sh: the mock server did not start" >&2; cat "$work/mock.log" >&2; exit 1; }
base="http://127.0.0.1:$port/v1"

for i in $(seq "$runs"); do echo '{"input": "What is (10 + 10) doubled twice?"}'; done >"$work/data.jsonl"
# Each connection in flight is a descriptor: allow the concurrency and some.
ulimit -n "$(( conc * 2 + 256 > $(ulimit -n) ? conc * 2 + 256 : $(ulimit -n) ))" 2>/dev/null || true
if [ "${WARMUP:-1}" != 0 ]; then
  head -n "$conc" "$work/data.jsonl" >"$work/warmup.jsonl"
  MOCK_BASE_URL="$base" MOCK_API_KEY=sk-mock "$build/engine" batch bench/peer/react_add_multiply.yaml \
    --data "$work/warmup.jsonl" --out "$work/warmup_out.jsonl" --concurrency "$conc" --no-progress >/dev/null \
    2>"$work/warmup_err.txt" || {
    echo "batch.sh: the warm-up batch failed:" >&2; tail -n 3 "$work/warmup_err.txt" >&2
    grep -m 1 '"status":"failed"' "$work/warmup_out.jsonl" 2>/dev/null | grep -o '"error":{[^}]*}' >&2; exit 1; }
fi
MOCK_BASE_URL="$base" MOCK_API_KEY=sk-mock /usr/bin/time -v -o "$work/time.txt" \
  "$build/engine" batch bench/peer/react_add_multiply.yaml --data "$work/data.jsonl" --out "$work/out.jsonl" \
  --concurrency "$conc" --no-progress --json >"$work/summary.json" 2>"$work/stderr.txt" || {
  echo "batch.sh: engine batch failed" >&2; cat "$work/stderr.txt" >&2; exit 1; }
wall_s=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): \(.*\)/\1/p' "$work/time.txt" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$work/time.txt")
cpu_s=$(awk '/User time|System time/ { s += $NF } END { print s }' "$work/time.txt")
ok=$(grep -c '"output":"80"' "$work/out.jsonl" || true)
batch_s=$(sed -n 's/.*"elapsed_s":\([0-9.]*\).*/\1/p' "$work/summary.json")
ideal_ms=$(( (runs + conc - 1) / conc * 4 * lat ))
mock="a cold mock"; [ "${WARMUP:-1}" != 0 ] && mock="a mock warmed up with $conc runs"
awk -v mock="$mock" -v r="$runs" -v c="$conc" -v l="$lat" -v w="$wall_s" -v b="$batch_s" -v i="$ideal_ms" -v m="$rss_kb" -v u="$cpu_s" -v ok="$ok" 'BEGIN {
  printf "engine batch against %s, %d runs x 4 calls, %d at once, %d ms latency: %.0f ms (batch %.0f ms) against an ideal of %d ms = %.2fx; peak RSS %.1f MB; CPU %.2f s (%.0f us a call); %d/%d answered 80\n",
    mock, r, c, l, w * 1000, b * 1000, i, w * 1000 / i, m / 1024, u, u * 1e6 / (r * 4), ok, r }'

# Where the time goes: the first wave's runs start together (every connection opened, every heap page touched for
# the first time, all runs' calls in lockstep); later runs start as others end. The median and slowest run of each.
wave() {  # wave first|later: "median ms (of N, slowest ms)" of that wave's run times
  awk -v c="$conc" -v w="$1" '{
    match($0, /"index":[0-9]+/); i = substr($0, RSTART + 8, RLENGTH - 8) + 0
    match($0, /"elapsed_ms":[0-9.]+/); e = substr($0, RSTART + 13, RLENGTH - 13)
    if ((i < c) == (w == "first")) print e }' "$work/out.jsonl" | sort -n |
    awk '{ a[NR] = $1 } END { if (NR) printf "%.0f ms (median of %d, slowest %.0f ms)", a[int((NR + 1) / 2)], NR, a[NR] }'
}
later=""; [ "$runs" -gt "$conc" ] && later="; later runs $(wave later)"
echo "  a run of 4 calls takes: first wave $(wave first)$later"

if [ -d "$shared/peer/node_modules" ]; then
  line=$(node "$shared/peer/peer.mjs" --base "$base" --mode batch --runs "$runs" --concurrency "$conc")
  ms=$(sed -n 's/.*"ms":\([0-9.]*\).*/\1/p' <<<"$line"); mb=$(sed -n 's/.*"rss_mb":\([0-9.]*\).*/\1/p' <<<"$line")
  awk -v ms="$ms" -v mb="$mb" -v i="$ideal_ms" 'BEGIN { printf "LangChain.js AgentExecutor.batch on the same mock: %.0f ms = %.2fx ideal; peak RSS %.1f MB\n", ms, ms / i, mb }'
else
  echo "LangChain.js: not measured (npm ci in $shared/peer to set it up)"
fi
