#!/usr/bin/env bash
# Makes docs/images/viewer.png, the run viewer showing a workflow of parallel steps: records a run in a scratch
# store, serves it with `engine ui`, and has chromium (playwright-core, tests/peers) take the picture.
# Usage: scripts/viewer_screenshot.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
engine="${1:-build}/engine"
scratch=$(mktemp -d)
trap 'kill $ui 2>/dev/null; rm -rf "$scratch"' EXIT
store="$scratch/runs.db"
"$engine" run workflows/calculator.yaml -q --store "$store" --input "What is 12 * 7 + 3?" >/dev/null
"$engine" run workflows/research_team.yaml -q --store "$store" >/dev/null
"$engine" run workflows/summarize_and_classify.yaml -q --store "$store" >/dev/null
run=$("$engine" runs list --json -n 1 --store "$store" | sed -E 's/^\[\{"id":"([0-9a-f]+)".*/\1/')
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$engine" ui --port "$port" --store "$store" 2>/dev/null &
ui=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
mkdir -p docs/images
node tests/peers/viewer_screenshot.mjs "http://127.0.0.1:$port" "$run" docs/images/viewer.png
echo "docs/images/viewer.png: run $run"
