#!/usr/bin/env bash
# The sanitizer build compiles the test files in unity batches (Makefile), so two files that each define a helper
# of the same name at file level clash as soon as a new file shifts them into one batch. This names such helpers
# in the release build's tests already: give each a name of its own, or share it in tests/support/.
set -u
cd "${1:-.}/tests" || exit 2
dups=$(grep -rhoE '^(static )?(inline )?[A-Za-z_:<>]+[ &*]+[a-z_][a-z_0-9]*\(|^(struct|class) [A-Za-z_0-9]+|^const[a-z ]* [A-Za-z_:<>*]+ k[A-Za-z0-9_]+' \
         --include='*_test.cpp' . |
       sed -E 's/\($//; s/.*[ &*]//' | sort | uniq -d)
if [ -n "$dups" ]; then
  echo "helpers defined at file level in more than one test file (they clash in the unity build):"
  for d in $dups; do
    echo "  $d:"
    grep -rnE "^(static )?(inline )?[A-Za-z_:<>]+[ &*]+$d\(|^(struct|class) $d\b|^const[a-z ]* [A-Za-z_:<>*]+ $d\b" \
      --include='*_test.cpp' . | sed 's/^/    /'
  done
  exit 1
fi
echo "test helper names: ok"
