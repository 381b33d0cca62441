#!/usr/bin/env bash
# Secrets are masked where bytes leave the process, never at each output point (docs/security.md, "Secrets"): only
# the files below may call the masking (a Redactor, a SecretSet's mask, a MaskingWriter or MaskingStreambuf). A new
# output path writes through one of these edges; a new edge is added here with the bytes it owns.
set -u
cd "${1:-.}" || exit 2
declare -A edges=(
  # where bytes leave
  [engine/cli/console_mask.cpp]="stdout and stderr"
  [engine/cli/console_mask.h]="stdout and stderr"
  [engine/app/trace_file.cpp]="a --trace file"
  [engine/app/trace_file.h]="a --trace file"
  [engine/cli/cmd_test.cpp]="the --junit file"
  [engine/server/exchange.cpp]="every HTTP response and stream"
  [engine/server/exchange.h]="every HTTP response and stream"
  [engine/server/mcp_stdio.cpp]="engine mcp's stdout"
  [engine/server/openai_api.cpp]="a streamed answer's text, which the chunks' framing cuts into pieces"
  [engine/trace/otlp_exporter.cpp]="the exporter's requests and the collector's answers"
  [engine/trace/run_recorder.cpp]="the run store's records"
  [engine/store/run_journal.cpp]="a run's journal in the run store"
  [engine/app/batch.cpp]="a batch's results file"
  [engine/app/evaluation.cpp]="an evaluation's scored file"
  [engine/app/session.cpp]="a chat's session file"
  [engine/llm/recording_llm.cpp]="a --record file"
  # where a server's bytes come in: its own key masked before the engine reads them
  [engine/llm/api_endpoint.cpp]="a provider's answers"
  [engine/llm/api_endpoint.h]="a provider's answers"
  [engine/llm/openai_llm.cpp]="a provider's answers"
  [engine/llm/anthropic_llm.cpp]="a provider's answers"
  [engine/llm/text_stream.cpp]="a provider's streamed answers"
  [engine/llm/text_stream.h]="a provider's streamed answers"
  [engine/llm/sse_reader.cpp]="a provider's streamed answers"
  [engine/llm/sse_reader.h]="a provider's streamed answers"
  [engine/tools/http_access.cpp]="a granted API's answers"
  [engine/tools/http_access.h]="a granted API's answers"
)
pattern='\.redact\(|->redact\(|redact_value\(|redact_stream\(|->mask\(|\.mask\(|masks\(\)|MaskingWriter|MaskingStreambuf|Redactor'
bad=""
for file in $(grep -rlE "$pattern" engine --include='*.cpp' --include='*.h' | grep -v '^engine/core/' | sort); do
  [ -n "${edges[$file]+x}" ] || bad="$bad $file"
done
if grep -rq "RedactingSink" engine; then bad="$bad (RedactingSink is back)"; fi
if [ -n "$bad" ]; then
  echo "masking outside the edges (write through one, or add the file to tests/check_secret_edges.sh with what it owns):$bad"
  exit 1
fi
echo "secret edges: masking only in the ${#edges[@]} files that own an edge"
