#!/usr/bin/env bash
# Prints the engine's benchmark figures: in-process costs, HTTP round trips against their floor, then whole
# `engine run` processes (start to exit).
#   bench/run.sh [build-dir] [process-runs]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
runs="${2:-50}"
cd "$root"

"$build/bench/engine_bench" | tee "$build/bench/engine_bench.txt"
# Where runs grow: chat history, long ReAct runs, large inputs.
"$build/bench/loop_bench"
"$build/bench/input_memory_bench"
# Workflows of steps: the scheduler's own cost, and a graph against its critical path.
"$build/bench/workflow_bench"
# OpenTelemetry: a span's cost on the run's thread, a run with a collector live, down or stalled; then whole
# processes and batches with spans sent (bench/trace.sh; its collector is python3's http.server).
"$build/bench/trace_bench"
bench/trace.sh "$build" 30 1000

# Jinja2 renders the same template and context, for the ratio (skipped without python3 and jinja2).
py=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import jinja2' 2>/dev/null; then py="$candidate"; break; fi
done
if [ -n "$py" ]; then
  line=$("$py" bench/jinja2_render.py)
  jinja_us=$(sed -n 's/.*jinja2_us_per_render=\([0-9.]*\).*/\1/p' <<<"$line")
  version=$(sed -n 's/.*version=\([^ ]*\).*/\1/p' <<<"$line")
  engine_us=$(sed -n 's/^  engine render *\([0-9.]*\) us.*/\1/p' "$build/bench/engine_bench.txt")
  awk -v j="$jinja_us" -v e="$engine_us" -v v="$version" \
    'BEGIN { printf "template vs Jinja2 %s on the same template and context: %.2f us -> the engine is %.1fx faster\n", v, j, j / e }'
else
  echo "  Jinja2: not measured (install python3-jinja2 to compare)"
fi

# HTTP: the engine's round trips against bare libcurl on the same loopback server.
"$build/bench/http_bench" 1000

# Whole process: parse YAML, compile, load Lua, run the ReAct loop, print, exit.
times=()
for _ in $(seq "$runs"); do
  t0=$(date +%s%N)
  "$build/engine" run workflows/calculator.yaml -q --input "What is 12 * 7 + 3?" >/dev/null
  t1=$(date +%s%N)
  times+=($(( (t1 - t0) / 1000 )))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
median=${sorted[$(( runs / 2 ))]}
p90=${sorted[$(( runs * 9 / 10 ))]}
printf 'whole `engine run workflows/calculator.yaml` process, %d runs:\n' "$runs"
awk -v m="$median" -v p="$p90" 'BEGIN { printf "  median %6.2f ms   p90 %6.2f ms   (target < 10 ms)\n", m / 1000, p / 1000 }'
if [ -x /usr/bin/time ]; then  # GNU time, when installed, gives the peak memory
  rss=$( { /usr/bin/time -f '%M' "$build/engine" run workflows/calculator.yaml -q >/dev/null; } 2>&1 )
  printf '  peak RSS %s KiB\n' "$rss"
fi

# `engine batch` against the shared loopback mock (needs node; skipped without it): 1000 runs of 4 calls, 64 at once.
if command -v node >/dev/null && [ -f "${PEER_BENCH:-$root/../shared/bench}/mock_llm/server.js" ]; then
  bench/batch.sh "$build" 1000 64 50
  # engine serve beside the same mock: chat completions served, then 2000 streams at once through it.
  bench/serve.sh "$build" 10 16 2000 200
  # A long answer streamed: the server's CPU against the answer's length.
  bench/long_answer.sh "$build" 40000 200000
else
  echo "engine batch, engine serve: not measured (needs node and ../shared/bench/mock_llm)"
fi

# MCP tool calls against the official test server, beside the official SDK's client and a bare one (needs node and
# tests/peers, which scripts/setup.sh installs).
if command -v node >/dev/null && [ -d "$root/tests/peers/node_modules" ]; then
  bench/mcp.sh "$build" 1000 3
else
  echo "MCP: not measured (needs node and scripts/setup.sh's tests/peers)"
fi
