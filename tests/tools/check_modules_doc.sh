#!/usr/bin/env bash
# Every file of the library (src/*.c, src/*.h) is named, in backticks, in the
# Modules table of docs/architecture.md, and every room of harness/ has its
# row in "The harness in rooms". Fails naming each one that is not.
#   tests/tools/check_modules_doc.sh [SOURCE_DIR]
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
doc=docs/architecture.md
[ -f "$doc" ] || { echo "no $doc under $root" >&2; exit 2; }
table=$(sed -n '/^## Modules/,/^## /p' "$doc")
rooms=$(sed -n '/^## The harness in rooms/,/^## /p' "$doc")
missing=0 n=0
for f in src/*.c src/*.h; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  b=$(basename "$f")
  if ! grep -qF "\`$b\`" <<<"$table"; then
    echo "$f: not in the Modules table of $doc" >&2
    missing=$((missing + 1))
  fi
done
for d in harness/*/; do
  r=$(basename "$d")
  if ! grep -qF "| \`$r/\` |" <<<"$rooms"; then
    echo "harness/$r/: no row in \"The harness in rooms\" of $doc" >&2
    missing=$((missing + 1))
  fi
done
[ "$n" -gt 0 ] || { echo "no library sources under $root/src" >&2; exit 2; }
[ "$missing" -eq 0 ] || exit 1
echo "every file of src/ ($n) and every room of harness/ is in $doc"
