#!/usr/bin/env bash
# Enforces the design brief's module rules: who may include whom, and where third-party headers may appear.
set -u
root="${1:-.}"
cd "$root/engine" || exit 2
fail=0

# Who may include whom is read from docs/architecture.md's table of modules (the design brief's, kept beside the
# code), so the table and the includes cannot drift apart: a row's last column names the modules its folder may
# include before any ';' ("all above": every folder in the rows above it; "X and below": X and what X may include);
# "server/'s `serve.h`" allows that one header of the module and no other. A folder may include itself.
table=$(awk '
  /^## Modules \(engine\/\)/ { in_table = 1; next }
  in_table && /^## / { exit }
  in_table && /^\| `[a-z_]+\/`/ {
    n = split($0, cols, "|")
    folder = cols[2]; gsub(/[ `\/]/, "", folder)
    deps = cols[n - 1]; sub(/;.*/, "", deps)
    print folder "\t" deps
  }' ../docs/architecture.md)
[ -n "$table" ] || { echo "layering: no table of modules found in docs/architecture.md"; exit 2; }
declare -A allowed=()
declare -A only_header=()  # "cli server" -> "serve.h": the one header of server/ cli/ may include
above=""
while IFS=$'\t' read -r folder deps; do
  words=" $folder "
  if [[ "$deps" == *"all above"* ]]; then words+="$above "; fi
  for name in $(echo "$deps" | grep -oE '[a-z_]+'); do
    [ -n "${allowed[$name]+x}" ] && words+=" $name "
  done
  # "app, workflow, trace and below": every module listed before "and below" is taken with what it may include.
  if [[ "$deps" == *" and below"* ]]; then
    for name in $(echo "${deps%% and below*}" | grep -oE '[a-z_]+'); do
      [ -n "${allowed[$name]+x}" ] && words+=" ${allowed[$name]} "
    done
  fi
  while [[ "$deps" =~ ([a-z_]+)/\'s\ \`([a-z_]+\.h)\` ]]; do
    words+=" ${BASH_REMATCH[1]} "
    only_header["$folder ${BASH_REMATCH[1]}"]="${BASH_REMATCH[2]}"
    deps="${deps/${BASH_REMATCH[0]}/}"
  done
  allowed[$folder]=$(echo $words | tr ' ' '\n' | sort -u | tr '\n' ' ')
  above+=" $folder"
done <<< "$table"
# LAYERING_SHOW=1 prints the rules as read.
if [ -n "${LAYERING_SHOW:-}" ]; then
  for module in "${!allowed[@]}"; do echo "$module: ${allowed[$module]}"; done | sort
  for key in "${!only_header[@]}"; do echo "${key% *} may take ${key#* }/${only_header[$key]} alone"; done
fi

# A folder the rules do not know would escape them.
for dir in */; do
  dir="${dir%/}"
  [ -n "${allowed[$dir]+x}" ] || { echo "layering: engine/$dir/ is not in tests/check_layering.sh's rules"; fail=1; }
done

# One grep and one awk over every include line: a process per line took 16 s.
rules=$(for module in "${!allowed[@]}"; do echo "$module=${allowed[$module]}"; done)
modules=()
for module in "${!allowed[@]}"; do [ -d "$module" ] && modules+=("$module"); done
violations=$(grep -rn '#include "engine/' "${modules[@]}" | awk -v rules="$rules" '
  BEGIN {
    n = split(rules, lines, "\n")
    for (i = 1; i <= n; i++) { eq = index(lines[i], "="); allowed[substr(lines[i], 1, eq - 1)] = " " substr(lines[i], eq + 1) " " }
  }
  {
    file = $0; sub(/:.*/, "", file)
    module = file; sub(/\/.*/, "", module)
    if (match($0, /#include "engine\/[a-z_]+\//)) {
      target = substr($0, RSTART + 17, RLENGTH - 18)
      if (index(allowed[module], " " target " ") == 0)
        print "layering: " file " includes engine/" target "/, which " module "/ may not depend on"
    }
  }')
if [ -n "$violations" ]; then
  echo "$violations"
  fail=1
fi

check_only_in() {  # $1 = header pattern, $2 = the one place it may appear (or places: "net/|server/")
  local hits
  hits=$(grep -rln "#include <$1" . | grep -vE "^./($2)" || true)
  if [ -n "$hits" ]; then
    echo "layering: <$1...> is included outside $2: $hits"
    fail=1
  fi
}
check_only_in "yaml-cpp/" "spec/"
check_only_in "pcre2" "parse/"
check_only_in "lua" "tools/lua/"
check_only_in "curl/" "net/"
check_only_in "dlfcn.h" "net/|server/"  # libcurl and libmicrohttpd are loaded when first needed
check_only_in "microhttpd" "server/"
check_only_in "CLI/" "cli/"
check_only_in "httplib.h" "server/"
check_only_in "valijson" "schema/"
check_only_in "sqlite3" "store/"
check_only_in "editline/" "cli/"
check_only_in "histedit" "cli/"

# A module the table lets a folder take one header of: that header and no other.
for key in "${!only_header[@]}"; do
  read -r folder module <<< "$key"
  header="${only_header[$key]}"
  hits=$(grep -rn "#include \"engine/$module/" "$folder" | grep -v "#include \"engine/$module/$header\"" || true)
  if [ -n "$hits" ]; then
    echo "layering: $folder/ may include $module/$header alone (docs/architecture.md), not: $hits"
    fail=1
  fi
done

# Headers internal to a module: included only inside it.
check_internal() {  # $1 = header path under engine/, $2 = its module
  local hits
  hits=$(grep -rln "#include \"engine/$1\"" . | grep -v "^./$2/" || true)
  if [ -n "$hits" ]; then
    echo "layering: engine/$1 is internal to $2/, included from: $hits"
    fail=1
  fi
}
check_internal "net/curl_api.h" "net"
check_internal "net/transport.h" "net"
check_internal "server/mhd_api.h" "server"

# Nothing below cli/ prints to the terminal.
hits=$(grep -rlE 'std::cout|std::cerr|(^|[^a-z])printf\(|fprintf\(std|(^|[^a-z_])puts\(' --include=*.cpp --include=*.h . | grep -v '^./cli/' || true)
[ -n "$hits" ] && { echo "layering: printing outside cli/: $hits"; fail=1; }

[ $fail -eq 0 ] && echo "layering: ok"
exit $fail
