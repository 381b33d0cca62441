#!/usr/bin/env bash
# Runs every libFuzzer target for a set time, two at a time (the machine's cores), each from its seed corpus and past
# crashes, and prints what each reached. Findings land in BUILD/fuzz-findings/TARGET/; the exit code is non-zero
# when there is one.   tests/fuzz/run.sh BUILD SECONDS [TARGET...]
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$1"
seconds="$2"
shift 2
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(workflow_load template react_parser regex sse provider_answer json_text lua_patterns lua_json
  mcp_message grant_text)
jobs="${FUZZ_JOBS:-$(nproc)}"

declare -A seeds=(
  [workflow_load]="$root/workflows $root/bench/peer"
  [template]="$root/templates $root/tests/template/corpus/chat"
)
declare -A dicts=([workflow_load]=yaml.dict [template]=jinja.dict [provider_answer]=json.dict [json_text]=json.dict
                  [lua_json]=json.dict [sse]=sse.dict [mcp_message]=json.dict)

run_one() {
  local t="$1"
  local work="$build/fuzz-corpus/$t" findings="$build/fuzz-findings/$t" log="$build/fuzz-logs/$t.log"
  mkdir -p "$work" "$findings" "$(dirname "$log")"
  local dict=()
  [ -n "${dicts[$t]:-}" ] && dict=(-dict="$root/tests/fuzz/dict/${dicts[$t]}")
  # the working corpus grows in the build folder; the seeds and past crashes are read, never written
  "$build/tests/fuzz/fuzz_$t" "$work" "$root/tests/fuzz/corpus/$t" "$root/tests/fuzz/crashes/$t" ${seeds[$t]:-} \
    "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
  local rc=$?
  local execs cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  local found
  found=$(find "$findings" -type f | wc -l)
  printf '%-16s %12s runs  coverage %6s  findings %s%s\n' "$t" "${execs:-?}" "${cov:-?}" "$found" \
    "$([ $rc -ne 0 ] && echo "  (exit $rc: see $log)")"
  [ "$found" -eq 0 ] && [ $rc -eq 0 ]
}

status=0
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
[ $status -ne 0 ] && echo "fuzz: findings above; after fixing one, copy its input into tests/fuzz/crashes/TARGET/ so make test replays it"
exit $status
