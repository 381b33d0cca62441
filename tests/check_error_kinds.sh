#!/usr/bin/env bash
# Every error kind the engine raises is listed in docs/errors.md, so a user who meets one can look it up: the kinds
# written in the code as Error("kind", ...) (and the loaders' fail, the lexers' located_error) against the doc.
set -u
cd "${1:-.}" || exit 2
kinds=$(grep -rhoE '(Error|RetryableError|located_error|fail|fail_at)\("[a-z_]+\.[a-z_]+"' engine \
  | sed -E 's/.*\("//; s/"$//' | sort -u)
missing=""
for k in $kinds; do
  grep -q "\`$k\`" docs/errors.md || missing="$missing $k"
done
if [ -n "$missing" ]; then
  echo "error kinds raised in engine/ but not in docs/errors.md:$missing"
  exit 1
fi
echo "error kinds: $(echo "$kinds" | wc -l) raised, all in docs/errors.md"
