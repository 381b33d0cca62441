#!/usr/bin/env bash
# What recording runs and sending spans cost whole processes: a cold `engine run` of a 3-step scripted workflow with
# nothing, recorded in the run store, and with spans to a live collector (bench/otlp_sink.py on loopback) or one that
# is down; then the CPU of 1000-row scripted batches the same ways. Targets: under 5% of each.
#   bench/trace.sh [build-dir] [runs] [rows]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
runs="${2:-40}"
rows="${3:-1000}"
engine="$build/engine"
work="$(mktemp -d)"
sink_pid=""
cleanup() { [ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

python3 "$root/bench/otlp_sink.py" "$work/port" &
sink_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
live="http://127.0.0.1:$(cat "$work/port")"
down="http://127.0.0.1:9"  # the discard port: nothing listens on loopback

median_ms() {  # runs the command $runs times, prints the median wall time in ms
  local times=()
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] / 1000 }'
}

export ENGINE_STORE="$work/runs.db"
run=("$engine" run "$root/bench/data/three_steps.yaml" -q)
"${run[@]}" >/dev/null  # the store's file made once, as it is after a user's first run
base=$(median_ms "${run[@]}" --no-store)
stored=$(median_ms "${run[@]}")
with_live=$(median_ms "${run[@]}" --no-store --otlp "$live")
with_down=$(median_ms "${run[@]}" --no-store --otlp "$down")
printf 'a cold `engine run` of a 3-step scripted workflow (7 spans), median of %d processes:\n' "$runs"
awk -v b="$base" -v s="$stored" -v l="$with_live" -v d="$with_down" 'BEGIN {
  printf "  nothing recorded or sent      %7.2f ms\n", b
  printf "  recorded in the run store     %7.2f ms   %+5.1f%%   (target < 5%%)\n", s, 100 * (s - b) / b
  printf "  spans to a live collector     %7.2f ms   %+5.1f%%   (target < 5%%)\n", l, 100 * (l - b) / b
  printf "  spans to a collector down     %7.2f ms   %+5.1f%%\n", d, 100 * (d - b) / b }'

# Batches: their CPU (user + system) with and without spans, the rows' spans sent as they end. The 3-step workflow
# (almost nothing to do but its events) and workflows/batch_qa.yaml (a ReAct agent with a Lua tool, 64 rows at once).
seq "$rows" | awk '{ printf "{\"topic\": \"topic %d\"}\n", $1 }' > "$work/topics.jsonl"
seq "$rows" | awk '{ printf "{\"question\": \"What is %d * 7 + 3?\"}\n", $1 }' > "$work/questions.jsonl"
cpu_s() {
  rm -f "$work/out.jsonl"
  /usr/bin/time -f '%U %S' -o "$work/time" "$@" >/dev/null 2>&1
  awk '{ printf "%.3f", $1 + $2 }' "$work/time"
}
batch_cpu() {  # workflow data: the median CPU of 3 batches with nothing, recorded, and with spans
  local plain=() stored=() traced=()
  local batch=("$engine" batch "$1" --data "$2" --out "$work/out.jsonl" --no-progress --concurrency 64)
  for _ in 1 2 3; do
    plain+=("$(cpu_s "${batch[@]}" --no-store)")
    stored+=("$(cpu_s "${batch[@]}")")
    traced+=("$(cpu_s "${batch[@]}" --no-store --otlp "$live")")
  done
  local p s t
  p=$(printf '%s\n' "${plain[@]}" | sort -n | sed -n 2p)
  s=$(printf '%s\n' "${stored[@]}" | sort -n | sed -n 2p)
  t=$(printf '%s\n' "${traced[@]}" | sort -n | sed -n 2p)
  awk -v p="$p" -v s="$s" -v t="$t" 'BEGIN {
    printf "    nothing %6.3f s   recorded %6.3f s (%+6.1f%%)   spans sent %6.3f s (%+6.1f%%)   (targets < 5%%)\n",
           p, s, 100 * (s - p) / p, t, 100 * (t - p) / p }'
}
printf 'a %d-row scripted batch, CPU user+system, median of 3:\n' "$rows"
printf '  the 3-step workflow (7 spans a row):\n'
batch_cpu "$root/bench/data/three_steps.yaml" "$work/topics.jsonl"
printf '  workflows/batch_qa.yaml (a ReAct agent and its Lua tool):\n'
batch_cpu "$root/workflows/batch_qa.yaml" "$work/questions.jsonl"
