#!/usr/bin/env bash
# Every source file of the library and the program (src/ and harness/, their
# sub-folders included: *.c and *.h) stays at 1,000 lines or fewer. Fails,
# listing each longer file with its length.
#   tests/tools/check_file_sizes.sh [SOURCE_DIR]
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
max=1000
long=""
n=0
nsrc=0
nharness=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  case "$f" in
    src/*) nsrc=$((nsrc + 1)) ;;
    harness/*) nharness=$((nharness + 1)) ;;
  esac
  lines=$(wc -l < "$f")
  if [ "$lines" -gt "$max" ]; then
    long="$long$f: $lines lines"$'\n'
  fi
done < <(find src harness -type f -name '*.[ch]' -print0 2>/dev/null | sort -z)
if [ "$nsrc" -eq 0 ] || [ "$nharness" -eq 0 ]; then
  echo "no sources under $root/src or $root/harness" >&2
  exit 2
fi
if [ -n "$long" ]; then
  echo "source files longer than $max lines:" >&2
  printf '%s' "$long" >&2
  exit 1
fi
echo "all $n source files (src/ and harness/) have at most $max lines"
