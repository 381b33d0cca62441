#!/usr/bin/env bash
# `make install` into a scratch prefix: the engine, its shipped files, the schema, the manual page and the completion
# scripts where man and the shells look for them, and the installed engine working from there.
set -u
build="${1:?build dir}"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "install failed"; exit 1; }
fail=0
for f in bin/engine share/engine/schema/workflow.schema.json share/engine/plugins/calculator.lua share/engine/docs/tools.md \
         share/engine/templates/react.j2 share/man/man1/engine.1 share/bash-completion/completions/engine \
         share/zsh/site-functions/_engine share/fish/vendor_completions.d/engine.fish; do
  [ -f "$prefix/$f" ] || { echo "not installed: $f"; fail=1; }
done
cmp -s <("$prefix/bin/engine" schema) "$prefix/share/engine/schema/workflow.schema.json" ||
  { echo "engine schema differs from the installed schema"; fail=1; }
for which in test eval; do
  cmp -s <("$prefix/bin/engine" schema $which) "$prefix/share/engine/schema/$which.schema.json" ||
    { echo "engine schema $which differs from the installed schema"; fail=1; }
done
cmp -s <("$prefix/bin/engine" completion bash) "$prefix/share/bash-completion/completions/engine" ||
  { echo "the installed bash completion is not the engine's"; fail=1; }
cmp -s <("$prefix/bin/engine" man) "$prefix/share/man/man1/engine.1" ||
  { echo "the installed manual page is not the engine's"; fail=1; }
# The installed examples, by name, from anywhere: their ../plugins and ../templates are the installed ones.
answer=$(cd "$prefix" && bin/engine run calculator -q --input "What is 6 * 7?" 2>&1)
[ "$answer" = 42 ] || { echo "engine run calculator from the install: $answer"; fail=1; }
for f in "$prefix"/share/engine/workflows/*.yaml; do
  out=$(cd / && "$prefix/bin/engine" validate "$f" 2>&1) || { echo "an installed example does not validate: $out"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "install: ok"
exit "$fail"
