#!/usr/bin/env bash
# The project stands on its own: its docs, headers and sources cite only
# files of the repository. Fails, listing each line, when a reference to
# something outside it (absolute paths, a sibling ../shared folder, design
# notes that are not part of the tree) appears in docs/, include/, src/,
# harness/ or README.md.
#   tests/tools/check_self_contained.sh [SOURCE_DIR]
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
pattern='SEMANTICS|ARCHITECTURE\.md|NEUTRAL\.md|CHECKS\.md|seeds? ?[-#]?0[0-9][0-9]|the seed'"'"'s|/work/|shared/'
hits=$(grep -rnIE "$pattern" docs include src harness README.md)
if [ -n "$hits" ]; then
  echo "references to files outside the repository:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "docs/, include/, src/, harness/, README.md cite only the repository"
