#!/bin/sh
# Write each target's dictionary fuzz/<target>.dict as the concatenation of
# the token lists it names in fuzz/dict/ (a token two of them hold, once).
# The first line of a target's dictionary names its parts, "# fuzz_<target>
# dictionary: generated from fuzz/dict/ (part part ...)", so the file says
# how it is made.
#
#   fuzz/gen-dicts.sh                   rewrite every fuzz/<target>.dict from its parts
#   fuzz/gen-dicts.sh --check           exit 1 (naming the files) when one is out of date
#   fuzz/gen-dicts.sh TARGET PART...    create or rewrite fuzz/TARGET.dict from those parts
set -eu
here=$(cd "$(dirname "$0")" && pwd)

render() { # target parts...
  t=$1; shift
  printf '# fuzz_%s dictionary: generated from fuzz/dict/ (%s)\n' "$t" "$*"
  for p in "$@"; do
    if [ ! -f "$here/dict/$p.dict" ]; then
      echo "gen-dicts: fuzz/dict/$p.dict: no such token list (for $t)" >&2
      exit 2
    fi
  done
  # a token two parts share (a dialect's prompt and another's output) is
  # written once: the first part that has it keeps it
  for p in "$@"; do cat "$here/dict/$p.dict"; done | awk '/^[ \t]*(#|$)/ || !seen[$0]++'
}

parts_of() { # file -> its parts, from its first line
  sed -n '1s/^# fuzz_[a-z_0-9]* dictionary: generated from fuzz\/dict\/ (\(.*\))$/\1/p' "$1"
}

case "${1:-}" in
  -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

if [ $# -ge 2 ] && [ "$1" != --check ]; then
  t=$1; shift
  render "$t" "$@" >"$here/$t.dict.tmp" && mv "$here/$t.dict.tmp" "$here/$t.dict"
  exit 0
fi

check=0
[ "${1:-}" = --check ] && check=1
stale=0
for f in "$here"/*.dict; do
  t=$(basename "$f" .dict)
  parts=$(parts_of "$f")
  if [ -z "$parts" ]; then
    echo "gen-dicts: fuzz/$t.dict: line 1 does not name its parts" \
         "(expected '# fuzz_$t dictionary: generated from fuzz/dict/ (part ...)')" >&2
    stale=1
    continue
  fi
  # shellcheck disable=SC2086
  if [ $check = 1 ]; then
    if ! render "$t" $parts | cmp -s - "$f"; then
      echo "gen-dicts: fuzz/$t.dict is not the concatenation of its parts ($parts);" \
           "run fuzz/gen-dicts.sh" >&2
      stale=1
    fi
  else
    render "$t" $parts >"$f.tmp" && mv "$f.tmp" "$f"
  fi
done
exit $stale
