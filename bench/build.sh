#!/usr/bin/env bash
# What a new user waits for: `make demo` on a fresh clone of this repository (the Debian packages already present),
# timed from the clone to the answer, and the engine alone built as each file compiled alone, for the ratio. Prints
# figures; asserts nothing (docs/performance.md, "Building").
#   bench/build.sh [jobs]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs="${1:-$(nproc)}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

git clone -q "$root" "$scratch/engine"
cd "$scratch/engine"
start=$(date +%s.%N)
answer=$(make demo JOBS="$jobs" 2>/dev/null | tail -1)
demo=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
printf 'make demo on a fresh clone, -j%s: %.0f s to the answer (%s)   (target: the engine alone < 300 s)\n' "$jobs" "$demo" "$answer"

# The same engine compiled a file at a time, as the release build did before it compiled in batches.
cmake -S . -B "$scratch/per-file" -DCMAKE_BUILD_TYPE=Release >/dev/null
start=$(date +%s.%N)
cmake --build "$scratch/per-file" -j "$jobs" --target engine >/dev/null
alone=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
printf 'the engine alone, each file compiled alone, -j%s: %.0f s (%.2fx the batches'"'"' whole make demo)\n' "$jobs" "$alone" \
  "$(awk -v a="$alone" -v d="$demo" 'BEGIN { print a / d }')"
