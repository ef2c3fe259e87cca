#!/usr/bin/env bash
# The reusable GitHub Action (action.yml) run step by step as a runner runs it
# (tests/tools/run_action.py: inputs substituted, GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
# GITHUB_ACTIONS=true), reusing the built toolwire, against a `toolwire serve` started as a
# separate process: a good server passes (0), a server whose streams break fails the gate with
# a regression (1), a server that is down fails the run step (2); a missing baseline is 2. And
# the example workflow swallows no failure (no `|| true`) and runs its live server through the
# action. And docs/ci-gate.md's matrix example, its jobs' steps run as written (three shard jobs,
# their artifacts handed over, then the job that merges and gates): it covers every fixture once,
# passes on the good server and fails with 1 on a regression.
# Usage: tests/tools/ci_action.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
root=$(cd "${1:?usage: ci_action.sh SOURCE_DIR BUILD_DIR}" && pwd)
build=$(cd "${2:?usage: ci_action.sh SOURCE_DIR BUILD_DIR}" && pwd)
toolwire=$build/toolwire
[ -x "$toolwire" ] || { echo "ci-action: $toolwire not built"; exit 1; }
python3 -c 'import yaml' 2>/dev/null || { echo "ci-action: python3 yaml module missing (python3-yaml): skipped"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/toolwire-ci-action.XXXXXX")
. "$root/tests/tools/serve_lib.sh"
trap 'serve_stop; rm -rf "$work"' EXIT
fail() { echo "ci-action: $*"; exit 1; }

suite=fixtures/session
# serve [FAULT_ARGS…]: the server under test, its base URL in URL
serve() {
  serve_start "$toolwire" "$work" ci-action --for 300 --quiet "$@" "$root/fixtures/openai" "$root/$suite"
  URL="http://127.0.0.1:$port/v1"
}

# action NAME [--input K=V]…: the action in $work/repo as a workflow step; its status in rc
action() {
  local name=$1
  shift
  : >"$work/$name.summary"
  # no TOOLWIRE_DATA: the action finds fixtures/… in its own tree (the workspace has none)
  (cd "$work/repo" && env -u TOOLWIRE_DATA GITHUB_STEP_SUMMARY="$work/$name.summary" \
    python3 "$root/tests/tools/run_action.py" "$root/action.yml" \
      --input toolwire-path="$toolwire" --input backend-name=staging \
      --input suites="$suite" --input upload=false "$@") >"$work/$name.log" 2>&1
  rc=$?
}

mkdir -p "$work/repo/reports/baseline"
serve
# the baseline: the good server's report, as a user commits it
(cd "$work/repo" && TOOLWIRE_DATA="$root" "$toolwire" run --quiet --backend staging="$URL" \
  --out reports/baseline "$suite") >"$work/baseline.log" 2>&1
[ -s "$work/repo/reports/baseline/staging.json" ] || { cat "$work/baseline.log"; fail "no baseline written"; }

# 1. a good server: the gate passes, the summary holds the gate's verdict and the report
action good --input backend-url="$URL" --input baseline=reports/baseline/staging.json
[ "$rc" -eq 0 ] || { cat "$work/good.log"; fail "a good server: exit $rc, 0 expected"; }
grep -q "no regression" "$work/good.summary" || { cat "$work/good.summary"; fail "no gate verdict in the summary"; }
grep -q "staging" "$work/good.summary" || fail "the report is not in the summary"
[ -s "$work/repo/reports/latest/staging.json" ] || fail "no report under reports/latest"

# 1b. a backend name outside ASCII, in a UTF-8 locale as on a runner: the action names the report
# file as toolwire does (byte by byte)
LC_ALL=C.UTF-8 action utf8 --input backend-url="$URL" --input baseline=reports/baseline/staging.json --input backend-name="stäging cœur"
[ "$rc" -eq 0 ] || { cat "$work/utf8.log"; fail "a backend name outside ASCII: exit $rc, 0 expected"; }
[ -s "$work/repo/reports/latest/st__ging_c__ur.json" ] || { ls "$work/repo/reports/latest"; fail "no st__ging_c__ur.json"; }

# 2. a regression: every stream breaks; the run step passes its 1 on, the gate fails with 1
serve --fault '{"malformed_chunk_at": 1}'
action regress --input backend-url="$URL" --input baseline=reports/baseline/staging.json
if [ "$rc" -ne 1 ] || ! grep -q "regression(s)" "$work/regress.log"; then
  cat "$work/regress.log"; fail "a regression: exit $rc, 1 expected"
fi
grep -q -- "-- Gate against the baseline: exit 1" "$work/regress.log" || fail "the gate step did not fail"
grep -q -- "-- Job summary: exit 0" "$work/regress.log" || fail "the summary step did not run after the failure"
grep -q "regression" "$work/regress.summary" || fail "the regressions are not in the summary"

# 3. the server is down: the run step cannot judge and fails with 2, the gate does not run
serve_stop
action down --input backend-url="$URL" --input baseline=reports/baseline/staging.json \
  --input args="--retries 0 --connect-timeout 2000"
if [ "$rc" -ne 2 ]; then cat "$work/down.log"; fail "a server that is down: exit $rc, 2 expected"; fi
grep -q -- "-- Run the suites: exit 2" "$work/down.log" || { cat "$work/down.log"; fail "the run step did not fail with 2"; }
grep -q -- "-- Gate against the baseline: skipped" "$work/down.log" || fail "the gate ran after the run failed"

# 4. a baseline that is not there: 2, saying how to make one
serve
action nobase --input backend-url="$URL" --input baseline=reports/baseline/missing.json
[ "$rc" -eq 2 ] || { cat "$work/nobase.log"; fail "a missing baseline: exit $rc, 2 expected"; }
grep -q "no baseline at reports/baseline/missing.json" "$work/nobase.log" || fail "the missing baseline is not named"

# 5. a shard: the run covers only its fixtures and leaves the gate to the merging job
action shard --input backend-url="$URL" --input baseline=reports/baseline/staging.json --input shard=1/2 \
  --input out=reports/shard-1
[ "$rc" -eq 0 ] || { cat "$work/shard.log"; fail "shard 1/2: exit $rc, 0 expected"; }
grep -q "the job that merges the shards gates them" "$work/shard.log" || fail "shard 1/2 ran the gate"
all=$(grep -c '"file"' "$work/repo/reports/baseline/staging.json")
part=$(grep -c '"file"' "$work/repo/reports/shard-1/staging.json")
[ "$part" -gt 0 ] && [ "$part" -lt "$all" ] || fail "shard 1/2 ran $part of $all fixtures"

# 6. docs/ci-gate.md's matrix example: the shard jobs, then the merging job, in a repository whose
# build/toolwire is the built one
matrix() {
  local name=$1 k
  rm -rf "$work/m/shards" "$work/m/reports/latest"
  for k in 1 2 3; do
    rm -rf "$work/m/shard"
    (cd "$work/m" && python3 "$root/tests/tools/run_action.py" --job "$root/docs/ci-gate.md" shard \
      --set matrix.shard=$k --set vars.STAGING_URL="$URL" --set secrets.PROVIDER_KEY=not-a-real-key) \
      >"$work/$name-shard$k.log" 2>&1 || { cat "$work/$name-shard$k.log"; fail "$name: shard job $k failed"; }
    # the artifact, uploaded by the shard job and downloaded by the gate job
    mkdir -p "$work/m/shards/toolwire-shard-$k"
    cp "$work/m/shard/staging.json" "$work/m/shards/toolwire-shard-$k/" || fail "$name: shard $k wrote no report"
  done
  (cd "$work/m" && python3 "$root/tests/tools/run_action.py" --job "$root/docs/ci-gate.md" gate) \
    >"$work/$name-gate.log" 2>&1
  rc=$?
}
mkdir -p "$work/m/build" "$work/m/reports/baseline"
ln -s "$toolwire" "$work/m/build/toolwire"
export TOOLWIRE_DATA="$root"
serve
(cd "$work/m" && "$toolwire" run --quiet --backend staging="$URL" --out reports/baseline fixtures/openai \
  fixtures/session) >"$work/m-baseline.log" 2>&1
[ -s "$work/m/reports/baseline/staging.json" ] || { cat "$work/m-baseline.log"; fail "matrix: no baseline"; }
matrix mgood
[ "$rc" -eq 0 ] || { cat "$work/mgood-gate.log"; fail "matrix example, a good server: exit $rc, 0 expected"; }
grep -q "merged staging .*: 3 report(s)" "$work/mgood-gate.log" || fail "matrix example: no merge of 3 shards"
files() { grep -o '"file": *"[^"]*"' "$1" | sort; }
files "$work/m/reports/baseline/staging.json" >"$work/m-all"
cat "$work"/m/shards/*/staging.json | grep -o '"file": *"[^"]*"' | sort >"$work/m-shards"
files "$work/m/reports/latest/staging.json" >"$work/m-merged"
cmp -s "$work/m-all" "$work/m-shards" || fail "matrix example: the shards do not hold every fixture exactly once"
cmp -s "$work/m-all" "$work/m-merged" || fail "matrix example: the merged report does not hold every fixture"
serve --fault '{"malformed_chunk_at": 1}'
matrix mregress
if [ "$rc" -ne 1 ] || ! grep -q "regression(s)" "$work/mregress-gate.log"; then
  cat "$work/mregress-gate.log"; fail "matrix example, a regression: exit $rc, 1 expected"
fi

# the example workflow: no failure swallowed, the live server judged through the action
wf=$root/.github/workflows/toolwire-gate.yml
if grep -n '|| *true' "$wf"; then fail "$wf swallows a failure with || true"; fi
grep -q 'uses: \./' "$wf" || fail "$wf does not use the action (uses: ./)"
echo "ci-action: a good server passed, a regression failed with 1, a server down and a missing baseline with 2;"
echo "ci-action: the matrix example covered every fixture once, passed, then failed on a regression"
