#!/usr/bin/env bash
# The library's boundary: the shared library exports exactly the functions
# the installed headers (include/toolwire/) declare, both ways — no internal
# function or data exported, no declared function missing — and the headers
# mark each of them TW_API. The declarations are the compiler's own list
# (gcc -aux-info over a file that includes every public header), not a grep.
#   tests/tools/check_exports.sh LIBTOOLWIRE.so [SOURCE_DIR]
set -euo pipefail
lib=${1:?usage: tests/tools/check_exports.sh LIBTOOLWIRE.so [SOURCE_DIR]}
root=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
gcc=${TW_GCC:-gcc}
command -v "$gcc" >/dev/null && command -v nm >/dev/null || { echo "no gcc or nm: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in "$root"/include/toolwire/*.h; do echo "#include \"toolwire/$(basename "$h")\""; done > "$tmp/all.c"
# shellcheck disable=SC2046
"$gcc" -std=c11 -I"$root/include" $(pkg-config --cflags libcjson) -aux-info "$tmp/aux" \
  -fsyntax-only "$tmp/all.c" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
# lines such as: /* /…/include/toolwire/core.h:180:NC */ extern void tw_limits_default (tw_limits *);
grep -F "/include/toolwire/" "$tmp/aux" | sed -E 's/^\/\*[^*]*\*\/ *//; s/ *\(.*//; s/.*[ *]//' |
  sort -u > "$tmp/declared"
nm -D --defined-only "$lib" | awk '{ print $NF }' | sort -u > "$tmp/exported"
nm -D --defined-only "$lib" | awk '$(NF-1) != "T" { print "not a function: " $0 }' > "$tmp/data"
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
unmarked=$(grep -hE '^[a-z][a-z0-9_ *]* \**tw_[a-z0-9_]+\(' "$root"/include/toolwire/*.h | grep -v '^typedef' || true)
rc=0
if [ -n "$extra" ]; then echo "exported but declared in no public header:" $extra >&2; rc=1; fi
if [ -n "$missing" ]; then echo "declared in a public header but not exported:" $missing >&2; rc=1; fi
if [ -s "$tmp/data" ]; then cat "$tmp/data" >&2; rc=1; fi
if [ -n "$unmarked" ]; then echo "public declarations without TW_API:" >&2; echo "$unmarked" >&2; rc=1; fi
n=$(wc -l < "$tmp/declared")
[ "$n" -gt 100 ] || { echo "only $n declarations found: the header scan is broken" >&2; rc=1; }
[ $rc = 0 ] && echo "$(basename "$lib") exports exactly the $n functions of include/toolwire/"
exit $rc
