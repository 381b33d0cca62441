#!/usr/bin/env bash
# What a run's journal costs, next to LangGraph's SQLite checkpointer on the same 3-step graph and a 100-step chain,
# in one run of this script (docs/durability.md, docs/performance.md). Prints both sides.
#   bench/journal.sh [build-dir]
# LangGraph's side needs `npm ci` in bench/peers/langgraph once (it compiles better-sqlite3 with node-gyp; about a
# minute here); without node_modules only the engine's side is measured.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
cmake --build "$build" --target journal_bench >/dev/null
echo "== engine (bench/journal_bench.cpp)"
"$build/bench/journal_bench"
peer="$root/bench/peers/langgraph"
if [ ! -d "$peer/node_modules" ]; then
  echo "== LangGraph: not measured (run npm ci in bench/peers/langgraph)"
  exit 0
fi
echo "== LangGraph's SQLite checkpointer (bench/peers/langgraph/checkpoint.mjs)"
json="$(cd "$peer" && node checkpoint.mjs)"
node -e '
const r = JSON.parse(process.argv[1]);
const t = r.three, c = r.chain_per_step_us;
console.log(`LangGraph ${r.versions.langgraph}, checkpoint-sqlite ${r.versions.checkpoint_sqlite}`);
console.log("a 3-step graph (stand-in model, echo tool, template), one run at a time, median of 501 runs:");
for (const m of ["none", "exit", "async", "sync"])
  console.log(`  checkpointer ${m.padEnd(6)} ${t[m].toFixed(1).padStart(8)} us per run   ${(t[m] / t.none).toFixed(2)}x without`);
console.log("a chain of 100 nodes, median of 51 runs:");
for (const m of ["none", "exit", "async", "sync"])
  console.log(`  checkpointer ${m.padEnd(6)} ${c[m].toFixed(2).padStart(8)} us per step   (+${(c[m] - c.none).toFixed(2)} us per step)`);
console.log(`checkpoint bytes per step of that chain: ${r.checkpoint_bytes_per_step.toFixed(0)}`);
console.log(`a finished thread of 100 steps invoked again (its last checkpoint read): ${r.resume_100_steps_ms.toFixed(2)} ms`);
' "$json"
