#!/usr/bin/env bash
# The error kinds' one table (engine/core/error_kind.cpp) and docs/errors.md list the same kinds, so a user who meets
# one can look it up and the doc names none the engine cannot raise.
set -u
cd "${1:-.}" || exit 2
in_code=$(grep -oE '\{ErrorKind::[A-Za-z]+, "[a-z_.]+"\}' engine/core/error_kind.cpp | sed -E 's/.*, "//; s/"\}$//' | sort -u)
in_doc=$(grep -E '^\| `' docs/errors.md | cut -d'|' -f2 | grep -oE '`[a-z_.]+`' | tr -d '`' | sort -u)
missing=$(comm -23 <(echo "$in_code") <(echo "$in_doc") | tr '\n' ' ')
extra=$(comm -13 <(echo "$in_code") <(echo "$in_doc") | tr '\n' ' ')
status=0
if [ -n "$missing" ]; then
  echo "error kinds in engine/core/error_kind.cpp but not in docs/errors.md: $missing"
  status=1
fi
if [ -n "$extra" ]; then
  echo "error kinds in docs/errors.md but not in engine/core/error_kind.cpp: $extra"
  status=1
fi
[ $status = 0 ] && echo "error kinds: $(echo "$in_code" | wc -l) in the table, the same in docs/errors.md"
exit $status
