#!/usr/bin/env bash
# The Dockerfile's runtime stage must install every Debian package whose shared library the built engine links or
# loads with dlopen (libcurl, libmicrohttpd): a library added to the build and forgotten there would only show as a
# container that cannot start. No docker here: the lists are compared, not built.
set -u
root="${1:?source dir}"; engine="${2:?engine binary}"
dockerfile="$root/Dockerfile"
runtime=$(awk '/^FROM debian:12-slim/ { on = 1 } on' "$dockerfile")
[ -n "$runtime" ] || { echo "Dockerfile: no debian:12-slim runtime stage"; exit 1; }
libs=$(ldd "$engine" | awk '/=>/ { print $3 }')
# The libraries loaded when first needed, by their sonames as engine/net/curl_api.cpp and server/mhd_api.cpp name them.
for soname in libcurl.so.4 libmicrohttpd.so.12; do
  path=$(ldconfig -p | awk -v s="$soname" '$1 == s { print $NF; exit }')
  [ -n "$path" ] || { echo "check_dockerfile: $soname is not installed here"; exit 1; }
  libs+=$'\n'"$path"
done
fail=0
for lib in $libs; do
  pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -n 1 | cut -d: -f1)
  [ -n "$pkg" ] || pkg=$(dpkg -S "$lib" 2>/dev/null | head -n 1 | cut -d: -f1)
  case "$pkg" in
    libc6|libstdc++6|libgcc-s1|libasan*|libubsan*|"") continue ;;  # in the base image, or the sanitizers of a test build
  esac
  # libedit's own dependencies (libbsd0, libmd0, libtinfo6) come with it, as apt installs them
  case "$pkg" in libbsd0|libmd0|libtinfo6) continue ;; esac
  grep -qw -- "$pkg" <<<"$runtime" || { echo "Dockerfile: the runtime stage lacks $pkg (for $lib)"; fail=1; }
done
[ $fail -eq 0 ] && echo "dockerfile: ok"
exit $fail
