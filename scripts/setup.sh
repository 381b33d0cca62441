#!/usr/bin/env bash
# Installs the Debian packages the build needs, only when one is missing; `setup.sh fuzz` adds clang and libFuzzer
# for `make fuzz`, `setup.sh test` Debian's chromium for the viewer's browser test (`make test`). Then the tests' peers from npm (the official MCP servers, pinned by tests/peers/package-lock.json)
# with `npm ci`, when they are missing or the lockfile changed. Safe to run repeatedly: with everything present it
# does nothing and asks for no privileges.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libyaml-cpp-dev nlohmann-json3-dev liblua5.4-dev catch2
  libpcre2-dev libcurl4-openssl-dev libcli11-dev libcpp-httplib-dev
  libvalijson-dev json-schema-test-suite libedit-dev libsqlite3-dev libmicrohttpd-dev nettle-dev
  dpkg-dev file  # make deb: CPack finds the package's dependencies with dpkg-shlibdeps
  zsh fish groff-base  # the tests run the completion scripts in their shells and check the manual page with groff
)
[ "${1:-}" = fuzz ] && packages+=(clang libclang-rt-14-dev)
[ "${1:-}" = test ] && packages+=(chromium)  # driven headless by playwright-core (tests/peers) in tests/e2e/viewer_test.cpp
# The machine's own node and npm serve (any node 18 or later); Debian's where there is none.
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

peers="$(dirname "$0")/../tests/peers"
if [ ! -f "$peers/node_modules/.package-lock.json" ] || [ "$peers/package-lock.json" -nt "$peers/node_modules/.package-lock.json" ]; then
  echo "setup: installing the tests' peers from npm (tests/peers: MCP servers and client, openai, OpenTelemetry, playwright-core)" >&2
  # The engine builds and runs without them (make demo); only the MCP tests need them, and say so when they are missing.
  (cd "$peers" && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "setup: warning: npm ci failed in tests/peers; the MCP tests will fail until it succeeds" >&2
fi
