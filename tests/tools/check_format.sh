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
bad=0
for f in "${files[@]}"; do
  if ! out=$(clang-format --dry-run -Werror "$f" 2>&1); then
    bad=$((bad + 1))
    echo "$f: not as clang-format writes it:" >&2
    printf '%s\n' "$out" | head -n 6 >&2
  fi
done
if [ "$bad" -gt 0 ]; then
  echo "$bad of ${#files[@]} files differ from clang-format (clang-format -i FILE)" >&2
  exit 1
fi
echo "all ${#files[@]} C files are as clang-format writes them"
