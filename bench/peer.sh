#!/usr/bin/env bash
# The engine next to its peer, LangChain.js's ReAct AgentExecutor, on the same task and the same server: the shared
# loopback mock of the OpenAI API (../shared/bench). Prints the figures of both sides and their ratios.
#   bench/peer.sh [build-dir] [runs=200] [batch_runs=1000] [concurrency=64] [latency_ms=50]
# PEER_BENCH names the shared bench folder (default ../shared/bench); the peer needs `npm ci` in its peer/ once
# (without node_modules only the engine's side is measured).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"; runs="${2:-200}"; batch="${3:-1000}"; conc="${4:-64}"; lat="${5:-50}"
shared="${PEER_BENCH:-$root/../shared/bench}"
[ -f "$shared/mock_llm/server.js" ] || { echo "peer.sh: no mock server in $shared (set PEER_BENCH)" >&2; exit 2; }
command -v node >/dev/null || { echo "peer.sh: node is needed for the mock server" >&2; exit 2; }
peer=""; [ -d "$shared/peer/node_modules" ] && peer="$shared/peer/peer.mjs"

pid=""
start_mock() {  # $1 = latency in ms; sets base
  [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  local log; log="$(mktemp)"
  MOCK_LATENCY_MS="$1" node "$shared/mock_llm/server.js" --port 0 >"$log" 2>&1 &
  pid=$!
  local port=""
  for _ in $(seq 50); do port="$(sed -n 's/^listening \([0-9]*\).*/\1/p' "$log")"; [ -n "$port" ] && break; sleep 0.1; done
  [ -n "$port" ] || { echo "peer.sh: the mock server did not start" >&2; cat "$log" >&2; exit 1; }
  base="http://127.0.0.1:$port/v1"
}
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null || true' EXIT
field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$2"; }
median_ms() {  # runs the command 11 times, prints the median wall time in ms
  local times=()
  for _ in $(seq 11); do
    local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 6p | awk '{ printf "%.1f", $1 / 1000 }'
}

cd "$root"
start_mock 0
q="What is (10 + 10) doubled twice?"
engine_once=$(MOCK_BASE_URL="$base" MOCK_API_KEY=sk-mock median_ms "$build/engine" run bench/peer/react_add_multiply.yaml -q --input "$q")
answer=$(MOCK_BASE_URL="$base" MOCK_API_KEY=sk-mock "$build/engine" run bench/peer/react_add_multiply.yaml -q --input "$q")
engine_seq=$("$build/bench/peer_bench" --base "$base" --mode seq --runs "$runs")
echo "engine, one run as a process: ${engine_once} ms (median of 11), answer $answer"
echo "$engine_seq"
if [ -n "$peer" ]; then
  peer_once=$(median_ms node "$peer" --base "$base" --mode once)
  peer_seq=$(node "$peer" --base "$base" --mode seq --runs "$runs")
  floor=$(node "$shared/peer/floor.mjs" --base "$base" --runs "$runs")
  echo "langchain.js, one run as a process: ${peer_once} ms (median of 11)"
  echo "$peer_seq"
  echo "$floor"
fi

start_mock "$lat"
engine_batch=$("$build/bench/peer_bench" --base "$base" --mode batch --runs "$batch" --concurrency "$conc")
echo "$engine_batch"
[ -n "$peer" ] && { peer_batch=$(node "$peer" --base "$base" --mode batch --runs "$batch" --concurrency "$conc"); echo "$peer_batch"; }
ideal=$(( (batch + conc - 1) / conc * 4 * lat ))

printf '\npeer comparison: "%s" (3 tool steps, 4 LLM calls a run) on the shared mock server\n' "$q"
printf '%-58s %12s %12s %8s\n' "measurement" "engine" "LangChain.js" "ratio"
row() { awk -v n="$1" -v e="$2" -v p="$3" -v u="$4" 'BEGIN {
  if (p == "") printf "%-58s %9.1f %s %12s %8s\n", n, e, u, "-", "-";
  else printf "%-58s %9.1f %s %9.1f %s %7.1fx\n", n, e, u, p, u, p / e }'; }
row "one run, whole process (median wall)" "$engine_once" "${peer_once:-}" "ms"
row "$runs runs in sequence, 0 ms latency (wall)" "$(field ms "$engine_seq")" "$(field ms "${peer_seq:-}")" "ms"
row "$batch runs, $conc at once, $lat ms latency (ideal $ideal ms)" "$(field ms "$engine_batch")" "$(field ms "${peer_batch:-}")" "ms"
row "peak RSS of the batch" "$(field rss_mb "$engine_batch")" "$(field rss_mb "${peer_batch:-}")" "MB"
[ -n "$peer" ] && printf 'floor: the same %d requests by Node fetch on one connection: %s ms\n' "$(( runs * 4 ))" "$(field ms "$floor")"
echo "all answers 80: engine $(field ok "$engine_seq")/$runs and $(field ok "$engine_batch")/$batch"
