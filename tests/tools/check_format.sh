#!/usr/bin/env bash
# Every C source and header of the tree (src/, include/, harness/, tests/,
# fuzz/, bench/) is as clang-format (the repository's .clang-format) writes
# it. Fails naming each file that is not, with the first lines clang-format
# would change; `clang-format -i FILE` fixes one.
#   tests/tools/check_format.sh [SOURCE_DIR]
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
command -v clang-format >/dev/null || { echo "clang-format not found (scripts/deps.sh installs it)" >&2; exit 2; }
mapfile -t files < <(find src include harness tests fuzz bench -name node_modules -prune -o \
  -type f \( -name '*.c' -o -name '*.h' \) -print | sort)
[ "${#files[@]}" -gt 0 ] || { echo "no C sources under $root" >&2; exit 2; }
# one clang-format for every file (a process per file costs more than the check)
if out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1); then
  echo "all ${#files[@]} C files are as clang-format writes them"
  exit 0
fi
printf '%s\n' "$out" | head -n 40 >&2
bad=$(printf '%s\n' "$out" | sed -n 's/^\([^: ]*\.[ch]\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
echo "not as clang-format writes them (clang-format -i FILE):" >&2
printf '  %s\n' $bad >&2
exit 1
