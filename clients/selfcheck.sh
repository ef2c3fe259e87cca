#!/usr/bin/env bash
# Runs every client driver's --describe and checks the answer against the driver protocol
# (docs/clients.md): one JSON object with protocol 1, client, version, endpoint and modes.
# Usage: clients/selfcheck.sh      exit 0 all good, 1 a driver failed, 77 skipped (no node/npm)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for tool in node npm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "selfcheck: skipped: $tool is not installed"; exit 77; }
done
if [ ! -d "$here/node_modules" ]; then
  if ! (cd "$here" && timeout 240 npm ci --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null); then
    echo "selfcheck: npm ci failed in $here"
    exit 1
  fi
fi
err=$(mktemp "${TMPDIR:-/tmp}/toolwire-selfcheck.XXXXXX")
trap 'rm -f "$err"' EXIT
status=0
passed=0
failed=0
for driver in "$here"/*/driver.mjs; do
  name=$(basename "$(dirname "$driver")")
  [ "$name" = node_modules ] && continue
  if out=$(cd "$here" && timeout 30 node "$driver" --describe 2>"$err") &&
     node -e '
       const d = JSON.parse(process.argv[1]);
       const ok = d.protocol === 1 && typeof d.client === "string" && d.client === process.argv[2] &&
         typeof d.version === "string" && d.version !== "" && ["openai", "anthropic"].includes(d.endpoint) &&
         Array.isArray(d.modes) && d.modes.length > 0 && d.modes.every((m) => typeof m === "string");
       process.exit(ok ? 0 : 1);' "$out" "$name" 2>/dev/null; then
    echo "ok   $name: $out"
    passed=$((passed + 1))
  else
    echo "FAIL $name: $out $(head -c 2000 "$err" 2>/dev/null)"
    failed=$((failed + 1))
    status=1
  fi
done
echo "selfcheck: $passed passed, $failed failed"
exit "$status"
