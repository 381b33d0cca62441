#!/usr/bin/env bash
# `make demo` builds the engine alone, not the tests (`make test` builds those): what make would run, without it.
set -u
root="${1:-.}"
plan=$(make -n -C "$root" demo BUILD=/nonexistent-engine-build 2>&1)
builds=$(grep -E '^cmake --build ' <<<"$plan")
if [ -z "$builds" ] || grep -qv -- '--target engine' <<<"$builds"; then
  echo "make demo would build more than the engine:"
  echo "$builds"
  exit 1
fi
grep -q 'engine run workflows/calculator.yaml' <<<"$plan" || { echo "make demo no longer runs the calculator"; exit 1; }
echo "demo target: ok"
