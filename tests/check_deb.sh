#!/usr/bin/env bash
# `make deb`: the package CPack makes from the build holds the engine and everything `make install` puts beside it,
# declares the packages it needs (each one Debian 12 has), installs with dpkg into a scratch root, and the engine
# installed there answers `engine run calculator`.
set -u
build="${1:?build dir}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# CPack's preinstall step builds what installing needs, the engine alone: not the tests and benchmarks (as it did,
# depending on `all`). Make's plan for it in this build folder, read without running it, names no such target.
others=$(make -n -C "$build" preinstall 2>&1 | grep -oE '(engine_tests|[a-z_]+_bench|fuzz_[a-z_]+)\.dir' | sort -u)
[ -z "$others" ] || { echo "CPack's preinstall would build more than the engine:"; echo "$others"; exit 1; }
(cd "$build" && cpack -G DEB -B "$scratch/out" >"$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log"; echo "cpack failed"; exit 1; }
debs=("$scratch"/out/engine_*_amd64.deb)
[ -f "${debs[0]}" ] || { echo "no engine_VERSION_amd64.deb made"; ls "$scratch/out"; exit 1; }
deb="${debs[0]}"
fail=0

depends=$(dpkg-deb -f "$deb" Depends)
# The package names Depends gives, one a line (versions and alternatives' bars dropped).
names=$(sed 's/([^)]*)//g' <<<"$depends" | tr ',|' '\n\n' | tr -d ' ' | grep -v '^$')
named() { grep -qxF -- "$1" <<<"$names"; }
for needed in libcurl4 libmicrohttpd12 libyaml-cpp0.7 liblua5.4-0 libpcre2-8-0 libsqlite3-0 libedit2 libstdc++6; do
  named "$needed" || { echo "Depends lacks $needed: $depends"; fail=1; }
done
# Every library the engine itself links (its NEEDED entries, not theirs) is in a package it depends on.
while read -r soname; do
  path=$(ldd "$build/engine" | awk -v so="$soname" '$1 == so { print $3 }')
  [ -n "$path" ] || continue
  pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1)
  [ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
  [ -z "$pkg" ] || [[ "$pkg" == libasan* || "$pkg" == libubsan* ]] || named "$pkg" ||
    { echo "the engine links $soname (package $pkg), which Depends does not name: $depends"; fail=1; }
done < <(objdump -p "$build/engine" | awk '$1 == "NEEDED" { print $2 }')
# Each dependency is a package of this Debian (installable by apt on a fresh one).
for dep in $names; do
  apt-cache show "$dep" >/dev/null 2>&1 || dpkg-query -W "$dep" >/dev/null 2>&1 || { echo "no Debian package $dep"; fail=1; }
done

contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for f in ./usr/bin/engine ./usr/share/man/man1/engine.1 ./usr/share/bash-completion/completions/engine \
         ./usr/share/zsh/site-functions/_engine ./usr/share/fish/vendor_completions.d/engine.fish \
         ./usr/share/engine/schema/workflow.schema.json ./usr/share/engine/plugins/calculator.lua \
         ./usr/share/engine/templates/react.j2 ./usr/share/engine/workflows/calculator.yaml ./usr/share/engine/docs/tutorial.md; do
  grep -qx -- "$f" <<<"$contents" || { echo "not in the package: $f"; fail=1; }
done

# dpkg itself installs it into an empty root (its dependencies are this machine's, so they are not checked there).
root="$scratch/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg --root="$root" --log=/dev/null --force-depends --force-not-root -i "$deb" >"$scratch/dpkg.log" 2>&1 ||
  { cat "$scratch/dpkg.log"; echo "dpkg -i failed"; fail=1; }
answer=$(cd / && "$root/usr/bin/engine" run calculator -q --input "What is 6 * 7?" 2>&1)
[ "$answer" = 42 ] || { echo "engine run calculator from the package: $answer"; fail=1; }
[ "$(dpkg --root="$root" -s engine 2>/dev/null | sed -n 's/^Status: //p')" = "install ok installed" ] ||
  { echo "dpkg does not list engine as installed in the scratch root"; fail=1; }

[ "$fail" -eq 0 ] && echo "deb: ok ($(basename "$deb"), $(du -k "$deb" | cut -f1) KiB)"
exit "$fail"
