#!/usr/bin/env bash
# Grants' figures: a granted request (engine.http.request from a Lua tool, and HttpAccess alone) against bare
# libcurl on the same loopback server, then search_docs over 10,000 generated Markdown files against grep.
#   bench/grants.sh [build-dir] [calls=4000] [rounds=9] [files=10000]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
"$build/bench/grant_http_bench" "${2:-4000}" "${3:-9}"
"$build/bench/search_docs_bench" "${4:-10000}" 200
