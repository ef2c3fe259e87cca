#!/usr/bin/env bash
# The README's CI-gate block, run as it stands: taken from README.md (the ```sh block after
# the "ci-gate" marker), run in an empty directory with the built `toolwire` on the PATH and
# STAGING_URL pointing at a `toolwire serve` started as a separate process, standing in for
# the staging server. First run: it writes the baseline and the gate passes. Then against a
# server that breaks every stream: the same block, the baseline now there, must fail the gate.
# Usage: tests/tools/readme_ci_gate.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
root=$(cd "${1:?usage: readme_ci_gate.sh SOURCE_DIR BUILD_DIR}" && pwd)
build=$(cd "${2:?usage: readme_ci_gate.sh SOURCE_DIR BUILD_DIR}" && pwd)
toolwire=$build/toolwire
[ -x "$toolwire" ] || { echo "ci-gate: $toolwire not built"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/toolwire-ci-gate.XXXXXX")
pid=""
stop() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=""; }
trap 'stop; rm -rf "$work"' EXIT

awk '/^<!-- ci-gate/ {m=1; next} m && /^```sh$/ {b=1; next} b && /^```$/ {exit} b {print}' \
  "$root/README.md" >"$work/block.sh"
[ -s "$work/block.sh" ] || { echo "ci-gate: no block after the ci-gate marker in README.md"; exit 1; }
# docs/ci-gate.md shows the same block
awk '/^## Pointing it at a live server/ {m=1; next} m && /^```sh$/ {b=1; next} b && /^```$/ {exit} b {print}' \
  "$root/docs/ci-gate.md" >"$work/doc-block.sh"
if ! cmp -s "$work/block.sh" "$work/doc-block.sh"; then
  echo "ci-gate: docs/ci-gate.md shows another block than README.md:"
  diff "$work/block.sh" "$work/doc-block.sh"
  exit 1
fi

# The stand-in serves what the block runs: the live suites are answered by the scripted
# reference model, replay fixtures by replaying themselves.
if grep -q "fixtures/live" "$work/block.sh"; then
  served=(--profile script)
else
  served=("$root/fixtures/openai" "$root/fixtures/session")
fi

# serve [FAULT_ARGS…]: the stand-in for the staging server, its base URL in STAGING_URL
. "$root/tests/tools/serve_lib.sh"
serve() {
  stop
  start_serve "$toolwire" "$work" "$@" "${served[@]}" || { echo "ci-gate: serve did not start"; exit 1; }
  pid=$serve_pid
}

# The block finds the fixtures through TOOLWIRE_DATA, as an installed toolwire finds its own.
export PATH="$build:$PATH" TOOLWIRE_DATA="$root" PROVIDER_KEY="not-a-real-key"
mkdir -p "$work/repo"

serve
(cd "$work/repo" && bash -e "$work/block.sh") >"$work/first.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "ci-gate: the block exited $rc on its first run:"; cat "$work/first.log"; exit 1
fi
for f in reports/baseline/staging.json reports/latest/staging.json reports/latest/staging.md; do
  [ -s "$work/repo/$f" ] || { echo "ci-gate: the block wrote no $f"; exit 1; }
done
grep -q "no regression" "$work/first.log" || { echo "ci-gate: no gate verdict:"; cat "$work/first.log"; exit 1; }
if grep -q "not-a-real-key" -r "$work/repo/reports"; then
  echo "ci-gate: the key is in a report"; exit 1
fi

# the same block against a server whose streams break: the baseline stays, the gate fails
serve --fault '{"malformed_chunk_at": 1}'
(cd "$work/repo" && bash -e "$work/block.sh") >"$work/second.log" 2>&1
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "regression(s)" "$work/second.log"; then
  echo "ci-gate: a regression did not fail the gate (exit $rc):"; cat "$work/second.log"; exit 1
fi
echo "ci-gate: the README block made the baseline, passed the gate, then failed it on a regression"
