#!/usr/bin/env bash
# `make demo`, `make install` and `make deb` build the engine alone, not the tests, fuzz targets or benchmarks (`make
# test`, `make fuzz` and `make bench` build those): what make would run for each, read without running it.
set -u
root="${1:-.}"
fail=0
for target in demo install deb; do
  plan=$(make -n -C "$root" "$target" BUILD=/nonexistent-engine-build 2>&1)
  builds=$(grep -E '^cmake --build ' <<<"$plan")
  if [ -z "$builds" ] || grep -qv -- '--target engine$' <<<"$builds"; then
    echo "make $target would build more than the engine:"
    echo "$builds"
    fail=1
  fi
done
grep -q 'engine run workflows/calculator.yaml' <<<"$(make -n -C "$root" demo BUILD=/nonexistent-engine-build)" ||
  { echo "make demo no longer runs the calculator"; fail=1; }
grep -q '^cmake --install /nonexistent-engine-build' <<<"$(make -n -C "$root" install BUILD=/nonexistent-engine-build)" ||
  { echo "make install no longer installs"; fail=1; }
grep -q 'cpack -G DEB' <<<"$(make -n -C "$root" deb BUILD=/nonexistent-engine-build)" || { echo "make deb no longer packages"; fail=1; }
[ "$fail" -eq 0 ] && echo "demo, install and deb build the engine alone: ok"
exit "$fail"
