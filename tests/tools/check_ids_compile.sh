#!/usr/bin/env bash
# C code names a check by its enumerator (harness/common/check_ids.h): the
# enumerator form builds, a check named by a string or a misspelled
# enumerator does not.
#   tests/tools/check_ids_compile.sh CC SOURCE_DIR [INCLUDE_DIRS (;-separated)]
set -u
cc=${1:?usage: check_ids_compile.sh CC SOURCE_DIR [INCLUDE_DIRS]}
root=${2:?usage: check_ids_compile.sh CC SOURCE_DIR [INCLUDE_DIRS]}
IFS=';' read -ra incs <<< "${3:-}"
flags=(-std=c11 -fsyntax-only -Wall -Werror -D_GNU_SOURCE -I"$root/include")
for d in "$root"/harness/*/; do flags+=(-I"${d%/}"); done
for d in "${incs[@]}"; do
  [ -n "$d" ] && flags+=(-isystem "$d")
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
snippet() {
  printf '#include "checks.h"\nvoid f(tw_check_set *s);\nvoid f(tw_check_set *s)\n{\n    %s\n}\n' \
    "$2" > "$tmp/$1.c"
}
snippet good 'tw_check_set_put(s, TW_CHK_OAI_R04, TW_V_PASS, -1, "ok"); (void)tw_check_set_get(s, TW_CHK_CLI_07);'
snippet put_string 'tw_check_set_put(s, "OAI-R04", TW_V_PASS, -1, "ok");'
snippet get_string '(void)tw_check_set_get(s, "CLI-07");'
snippet misspelt 'tw_check_set_put(s, TW_CHK_OAI_R4O, TW_V_PASS, -1, "ok");'
if ! "$cc" "${flags[@]}" "$tmp/good.c" 2> "$tmp/good.err"; then
  echo "the enumerator form does not build:" >&2
  cat "$tmp/good.err" >&2
  exit 1
fi
for s in put_string get_string misspelt; do
  if "$cc" "${flags[@]}" "$tmp/$s.c" 2> "$tmp/$s.err"; then
    echo "$s: a check named this way builds" >&2
    exit 1
  fi
done
if ! grep -q 'TW_CHK_OAI_R4O' "$tmp/misspelt.err"; then
  echo "misspelt: the compiler does not name the misspelled check:" >&2
  cat "$tmp/misspelt.err" >&2
  exit 1
fi
echo "checks are named by enumerator; strings and misspellings do not build"
