#!/usr/bin/env bash
# Client conformance: `toolwire clients` with every driver in clients/ (npm libraries pinned in
# clients/package-lock.json) over the scenarios in fixtures/clients. See docs/clients.md.
# Usage: tests/clients/run.sh BUILD_DIR      exit 0 pass, 1 fail, 77 skip (no node or npm)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: tests/clients/run.sh BUILD_DIR}
build=$(cd "$build" && pwd) || exit 1
toolwire=$build/toolwire
clients=$root/clients
[ -x "$toolwire" ] || { echo "clients: $toolwire not built"; exit 1; }

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "clients: skipped: $tool is not installed (the drivers run npm client libraries with node >= 20)"
    exit 77
  fi
done
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "clients: skipped: node $(node --version) is older than 20"
  exit 77
fi

# The libraries, exactly as locked (from npm's cache when it has them). Runs of other build trees
# share clients/node_modules: flock on the lock file serialises the installs.
npm_ci=(npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
command -v flock >/dev/null 2>&1 && npm_ci=(flock "$clients/package-lock.json" "${npm_ci[@]}")
if ! (cd "$clients" && timeout 240 "${npm_ci[@]}" >/dev/null); then
  echo "clients: npm ci failed in $clients"
  exit 1
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/toolwire-clients.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
bad() { echo "clients: FAIL: $*"; fail=1; }

drivers=()
for d in "$clients"/*/driver.mjs; do
  name=$(basename "$(dirname "$d")")
  [ "$name" = lib ] && continue
  drivers+=("$name")
done
[ ${#drivers[@]} -gt 0 ] || { echo "clients: no driver in $clients"; exit 1; }

# A failing check is exit 1 (the clients are not all conforming); anything else is an error.
"$toolwire" clients --jobs "${TOOLWIRE_CLIENTS_JOBS:-2}" --drivers "$clients" --out "$out/reports" "$root/fixtures/clients" \
  >"$out/stdout" 2>"$out/stderr"
rc=$?
[ "$rc" -le 1 ] || { bad "toolwire clients exited $rc"; cat "$out/stderr"; }
if grep -q 'driver failure' "$out/stdout" "$out/stderr"; then
  bad "a driver failed:"
  grep 'driver failure' "$out/stdout" "$out/stderr" | head -20
fi

for name in "${drivers[@]}"; do
  for ext in json md junit.xml html; do
    [ -s "$out/reports/$name.$ext" ] || bad "no report $name.$ext"
  done
done
for ext in md html; do
  [ -s "$out/reports/comparison.$ext" ] || bad "no comparison.$ext"
done

# verdict REPORT ROW CHECK: the verdict of CHECK in the first exchange of ROW
verdict() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const f = r.fixtures.find((x) => x.name === process.argv[2]);
    const c = f && f.exchanges[0].checks.find((x) => x.id === process.argv[3]);
    console.log(c ? c.verdict : "none");
  ' "$out/reports/$1.json" "$2" "$3"
}

# Every client runs every scenario of its endpoint with a verdict (no row without checks).
for name in "${drivers[@]}"; do
  n=$(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(r.summary.exchanges);
  ' "$out/reports/$name.json")
  [ "$n" -ge 10 ] || bad "$name: only $n exchanges judged"
done

# The known silent acceptance of a stream cut inside a call's arguments is a failure of CLT-04:
# @langchain/openai and the ai SDK hand on the cut call (its partial arguments) as if whole.
cut_o="clients/openai_stream_cut_in_arguments [stream]"
for name in langchain-openai ai-sdk-openai; do
  [ -f "$clients/$name/driver.mjs" ] || continue
  v=$(verdict "$name" "$cut_o" CLT-04)
  [ "$v" = fail ] || bad "$name: CLT-04 on the cut stream is '$v', not fail"
done
# … while the official SDK raises.
if [ -f "$clients/openai/driver.mjs" ]; then
  v=$(verdict openai "$cut_o" CLT-04)
  [ "$v" = pass ] || bad "openai: CLT-04 on the cut stream is '$v', not pass"
  v=$(verdict openai "clients/openai_single_call [whole]" CLT-01)
  [ "$v" = pass ] || bad "openai: CLT-01 on a single call is '$v', not pass"
fi

# compare and gate read the client reports as they read backend reports.
reports=()
for name in "${drivers[@]}"; do reports+=("$out/reports/$name.json"); done
"$toolwire" compare "${reports[@]}" >"$out/compare.md" || bad "compare failed"
grep -q CLT- "$out/compare.md" || [ ${#reports[@]} -eq 1 ] || bad "compare lists no client check"
"$toolwire" gate --quiet --baseline "${reports[0]}" "${reports[0]}" >/dev/null || bad "gate of a report against itself"

# The AI SDK flags the cut call invalid (its invalid: true): carried into the evidence.
if [ -f "$clients/ai-sdk-openai/driver.mjs" ]; then
  ev=$(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const f = r.fixtures.find((x) => x.name === process.argv[2]);
    const c = f && f.exchanges[0].checks.find((x) => x.id === "CLT-04");
    console.log(c ? c.evidence : "");
  ' "$out/reports/ai-sdk-openai.json" "$cut_o")
  case "$ev" in *"[flagged invalid: \"InvalidToolInputError"*) ;; *) bad "ai-sdk-openai: the cut call is not shown flagged invalid: $ev" ;; esac
fi
# The AI SDK's Anthropic provider takes base_url + "/v1": its single call reaches the mock.
if [ -f "$clients/ai-sdk-anthropic/driver.mjs" ]; then
  v=$(verdict ai-sdk-anthropic "clients/anthropic_single_call [whole]" CLT-01)
  [ "$v" = pass ] || bad "ai-sdk-anthropic: CLT-01 on a single call is '$v', not pass"
fi

# The committed reports/clients/ are those of this tree's drivers and checks: the same verdicts
# (each row's result and every check's, by row and exchange; not times nor evidence), and gate
# against them passes.
stale=0
for name in "${drivers[@]}"; do
  committed=$root/reports/clients/$name.json
  if [ ! -f "$committed" ]; then
    bad "reports/clients/$name.json is not committed"
    stale=1
    continue
  fi
  diffs=$(node -e '
    const fs = require("fs");
    const rows = (file) => {
      const m = new Map();
      for (const f of JSON.parse(fs.readFileSync(file, "utf8")).fixtures)
        for (const e of f.exchanges)
          m.set(`${f.name}#${e.index}`, [`result ${e.result.verdict}`, ...e.checks.map((c) => `${c.id} ${c.verdict}`)].join(", "));
      return m;
    };
    const a = rows(process.argv[1]), b = rows(process.argv[2]);
    for (const k of new Set([...a.keys(), ...b.keys()]))
      if (a.get(k) !== b.get(k))
        console.log(`  ${k}: committed ${a.get(k) ?? "(no row)"}; fresh ${b.get(k) ?? "(no row)"}`);
  ' "$committed" "$out/reports/$name.json")
  if [ -n "$diffs" ]; then
    bad "$name: the fresh verdicts are not those of reports/clients/$name.json:"
    echo "$diffs" | head -20
    stale=1
  fi
  if ! "$toolwire" gate --quiet --baseline "$committed" "$out/reports/$name.json" >"$out/gate-$name" 2>&1; then
    bad "$name: toolwire gate --baseline reports/clients/$name.json fails on the fresh report:"
    head -20 "$out/gate-$name"
    stale=1
  fi
done
[ "$stale" -eq 0 ] || echo "clients: regenerate the committed reports: scripts/regen-client-reports.sh $build"

if [ "$fail" -ne 0 ]; then
  sed -n '1,40p' "$out/stdout"
  exit 1
fi
echo "clients: ${#drivers[@]} client(s) judged: ${drivers[*]}"
exit 0
