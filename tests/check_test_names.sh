#!/usr/bin/env bash
# ctest runs each TEST_CASE by name. CMake splits names at ';', Catch reads a leading '-' as an option and '\' as
# an escape: such a test would select nothing. This keeps every name safe (ctest also passes -w NoTests).
set -u
cd "${1:-.}/tests" || exit 2
bad=$(grep -rnE 'TEST_CASE\("([^"]*[;\\]|-)' --include='*_test.cpp' . || true)
if [ -n "$bad" ]; then
  echo "test names ctest cannot select (no ';' or '\\', no leading '-'):"
  echo "$bad"
  exit 1
fi
echo "test names: ok"
