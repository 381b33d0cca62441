#!/usr/bin/env bash
# Prints the engine's benchmark figures: in-process costs, then whole `engine run` processes (start to exit).
#   bench/run.sh [build-dir] [process-runs]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
runs="${2:-50}"
cd "$root"

"$build/bench/engine_bench"

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
