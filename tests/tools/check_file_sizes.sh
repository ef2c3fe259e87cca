#!/usr/bin/env bash
# Every source file of the program (harness/*/*.c, harness/*/*.h) stays at
# 1,000 lines or fewer. Fails, listing each longer file with its length.
#   tests/tools/check_file_sizes.sh [SOURCE_DIR]
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
max=1000
long=""
n=0
for f in $(find harness -name "*.[ch]" | sort); do
  [ -f "$f" ] || continue
  n=$((n + 1))
  lines=$(wc -l < "$f")
  if [ "$lines" -gt "$max" ]; then
    long="$long$f: $lines lines"$'\n'
  fi
done
if [ "$n" -eq 0 ]; then
  echo "no harness sources under $root" >&2
  exit 2
fi
if [ -n "$long" ]; then
  echo "harness files longer than $max lines:" >&2
  printf '%s' "$long" >&2
  exit 1
fi
echo "all $n harness files have at most $max lines"
