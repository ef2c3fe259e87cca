#!/usr/bin/env bash
# Browser tests: toolwire's HTML reports in headless Chromium (Debian's `chromium`),
# driven by playwright-core (npm, pinned in package-lock.json). Writes the reports of
# `toolwire main` and of a run made to hold mismatches and transport errors, then
# loads every kind of page (reports.mjs).
# Usage: tests/browser/run.sh BUILD_DIR     exit 0 pass, 1 fail, 77 skip (no node or npm)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: tests/browser/run.sh BUILD_DIR}
build=$(cd "$build" && pwd) || exit 1
toolwire=$build/toolwire
[ -x "$toolwire" ] || { echo "browser: $toolwire not built"; exit 1; }

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "browser: skipped: $tool is not installed"
    exit 77
  fi
done
chromium=${TOOLWIRE_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "browser: $chromium is missing: scripts/deps.sh --browser installs Debian's chromium"
  exit 1
fi

npm_ci=(npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
command -v flock >/dev/null 2>&1 && npm_ci=(flock "$here/package-lock.json" "${npm_ci[@]}")
if ! (cd "$here" && timeout 240 "${npm_ci[@]}" >/dev/null); then
  echo "browser: npm ci failed in $here"
  exit 1
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/toolwire-browser.XXXXXX")
[ -n "${TOOLWIRE_BROWSER_KEEP:-}" ] && echo "browser: keeping $out" || trap 'rm -rf "$out"' EXIT

# 1. the main job: a page per embedded backend and the comparison page
if ! (cd "$root" && "$toolwire" main --quiet --out "$out/main" >"$out/main.log" 2>&1); then
  echo "browser: toolwire main failed:"; cat "$out/main.log"; exit 1
fi

# 2. a run with mismatches on purpose: a wrong expected result, a check expected to fail that
#    passes, an expected failure left out; a dropped stream (the transfer breaks); and a
#    backend where nothing listens (no response at all).
mkdir -p "$out/fx"
python3 - "$root/fixtures/openai" "$out/fx" <<'PY' || exit 1
import json, sys
src, dst = sys.argv[1], sys.argv[2]
def load(n): return json.load(open(f"{src}/{n}.json"))
def save(d, n):
    d["name"] = "openai/" + n
    json.dump(d, open(f"{dst}/{n}.json", "w"), indent=1)
d = load("nonstream_single_call")
d["exchanges"][0]["expect"]["result"]["content"] = "It is sunny in Paris."
d["exchanges"][0]["expect"]["failing_checks"] = [{"id": "OAI-R04", "reason": "on purpose"}]
save(d, "wrong_expectations")
d = load("nonstream_arguments_object")
del d["exchanges"][0]["expect"]["failing_checks"]
save(d, "expected_failure_left_out")
save(load("nonstream_arguments_object"), "expected_failure")
save(load("stream_faults_drop"), "stream_dropped")
PY
"$toolwire" run --quiet --out "$out/mm" --retries 0 --connect-timeout 2000 --timeout 5000 \
  --backend mock=mock:replay --backend nowhere=http://127.0.0.1:9/v1 "$out/fx" >"$out/mm.log" 2>&1
rc=$?
# the nowhere backend got no response at all: not judged (exit 2, said once); its reports are
# still written, and the mock's mismatches listed
if [ "$rc" -ne 2 ] || [ "$(grep -c 'nobody answered at http://127.0.0.1:9/v1' "$out/mm.log")" -ne 1 ] ||
   ! grep -q 'backend mock: mismatch' "$out/mm.log"; then
  echo "browser: the run with mismatches and a backend nobody answered exited $rc, not 2:"
  cat "$out/mm.log"; exit 1
fi

cd "$here" && TOOLWIRE_CHROMIUM="$chromium" node reports.mjs "$out"
