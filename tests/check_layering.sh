#!/usr/bin/env bash
# Enforces the design brief's module rules: who may include whom, and where third-party headers may appear.
set -u
root="${1:-.}"
cd "$root/engine" || exit 2
fail=0

# allowed[module]="modules it may include"
declare -A allowed=(
  [core]="core"
  [schema]="core schema"
  [spec]="core schema spec"
  [template]="core template"
  [net]="core net"
  [llm]="core net llm"
  [parse]="core schema parse"
  [store]="core store"
  [tools]="core schema net store tools"
  [agent]="core schema template llm parse tools agent"
  [workflow]="core schema template llm parse tools agent workflow"
  [trace]="core net store trace"
  [assemble]="core schema spec template net llm parse store tools agent workflow trace assemble"
  [app]="core schema spec template llm parse store tools agent workflow trace assemble app"
  [server]="core net store trace app server"
  # cli/ starts the server (engine serve, engine mcp): the one header it takes from server/ is serve.h.
  [cli]="core trace app server cli"
)

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
