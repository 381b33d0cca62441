#!/usr/bin/env bash
# A long ReAct answer streamed by engine serve's /v1/chat/completions, against the same answer not streamed: the
# server's CPU for each, which must grow with the answer's length, not with its square (issue 43: 200,000 words took
# 2 min 47 s of CPU streamed, 0.01 s not).
#   bench/long_answer.sh [build-dir] [words...=40000 200000]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"; shift || true
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(40000 200000)
work="$(mktemp -d)"; pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }  # user + system, in clock ticks
hz=$(getconf CLK_TCK)

echo "a long answer, engine serve's CPU (scripted model, the answer streamed word by word):"
for words in "${sizes[@]}"; do
  python3 - "$words" >"$work/long.yaml" <<'PY'
import sys
n = int(sys.argv[1])
answer = " ".join("w%d" % (i % 100) for i in range(n))
print('name: long\ninputs:\n  input: q\nllm:\n  provider: scripted\n  scripted:\n    rules:\n'
      '      - match: "(?s).*"\n        reply: "Final Answer: %s"\n'
      'agent:\n  kind: react\n  prompt: "{{ input }}\\n{{ agent_scratchpad }}"' % answer)
PY
  "$build/engine" serve "$work/long.yaml" --port 0 -q --no-store 2>"$work/err" &
  pid=$!
  port=""
  for _ in $(seq 100); do port="$(sed -n 's/.* on http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$work/err")"; [ -n "$port" ] && break; sleep 0.1; done
  [ -n "$port" ] || { echo "long_answer.sh: engine serve did not start" >&2; cat "$work/err" >&2; exit 1; }
  url="http://127.0.0.1:$port/v1/chat/completions"
  body='"model":"long","messages":[{"role":"user","content":"go"}]'
  t0=$(ticks "$pid"); curl -s "$url" -d "{$body}" >/dev/null; t1=$(ticks "$pid")
  curl -s -N "$url" -d "{$body,\"stream\":true}" >"$work/streamed"; t2=$(ticks "$pid")
  chunks=$(grep -c '^data: {' "$work/streamed")
  awk -v w="$words" -v a="$((t1 - t0))" -v b="$((t2 - t1))" -v hz="$hz" -v c="$chunks" \
    'BEGIN { printf "  %7d words: whole %.2f s CPU, streamed %.2f s CPU in %d chunks\n", w, a / hz, b / hz, c }'
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
done
