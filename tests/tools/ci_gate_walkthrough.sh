#!/usr/bin/env bash
# docs/ci-gate.md "Step by step", run as it stands: its baseline block once against a
# `toolwire serve` of good fixtures started as a separate process, then its gate block against
# servers that regress in one way each (a dropped parallel call, a changed finish reason,
# changed arguments) and against the good server with a fixture lost from the run. Each time
# the gate must exit 1 and name the fixture: in its listing, its JUnit and JSON files and its
# GitHub annotation. Needs python3 to write the regressed fixtures (exit 77 without).
# Usage: tests/tools/ci_gate_walkthrough.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
root=$(cd "${1:?usage: ci_gate_walkthrough.sh SOURCE_DIR BUILD_DIR}" && pwd)
build=$(cd "${2:?usage: ci_gate_walkthrough.sh SOURCE_DIR BUILD_DIR}" && pwd)
toolwire=$build/toolwire
[ -x "$toolwire" ] || { echo "walkthrough: $toolwire not built"; exit 1; }
command -v python3 >/dev/null || { echo "walkthrough: no python3"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/toolwire-gate-walk.XXXXXX")
. "$root/tests/tools/serve_lib.sh"
trap 'serve_stop; rm -rf "$work"' EXIT
fail() { echo "walkthrough: $*"; exit 1; }

block() { # the ```sh block after the marker <!-- gate-walkthrough: $1 -->
  awk -v m="<!-- gate-walkthrough: $1 -->" '$0 == m {f=1; next} f && /^```sh$/ {b=1; next} b && /^```$/ {exit} b {print}' \
    "$root/docs/ci-gate.md"
}
block baseline >"$work/baseline.sh"
block gate >"$work/gate.sh"
[ -s "$work/baseline.sh" ] && [ -s "$work/gate.sh" ] || fail "docs/ci-gate.md has no walk-through blocks"

# the good fixtures, and one regressed copy of them per case
fx=(nonstream_parallel_calls nonstream_single_call stream_single_call nonstream_text_only)
mkdir -p "$work/good"
for f in "${fx[@]}"; do cp "$root/fixtures/openai/$f.json" "$work/good/"; done
python3 - "$work" <<'EOF' || fail "cannot write the regressed fixtures"
import json, os, shutil, sys
w = sys.argv[1]
def case(name, fixture, change):
    d = os.path.join(w, name)
    shutil.copytree(os.path.join(w, "good"), d)
    p = os.path.join(d, fixture + ".json")
    fx = json.load(open(p))
    change(fx["exchanges"][0]["response"])
    json.dump(fx, open(p, "w"), indent=1)
def drop(resp):  # the second of two parallel calls is lost
    del resp["body"]["choices"][0]["message"]["tool_calls"][1]
def finish(resp):  # a call answered with finish_reason "stop"
    resp["body"]["choices"][0]["finish_reason"] = "stop"
def args(resp):  # the call's arguments changed
    c = resp["body"]["choices"][0]["message"]["tool_calls"][0]["function"]
    c["arguments"] = json.dumps({"city": "Lyon"})
case("drop", "nonstream_parallel_calls", drop)
case("finish", "nonstream_single_call", finish)
case("args", "nonstream_single_call", args)
EOF
mkdir -p "$work/lost"
for f in "${fx[@]:0:3}"; do cp "$work/good/$f.json" "$work/lost/"; done

serve() { # serve DIR: the stand-in for the staging server, its base URL in STAGING_URL
  serve_start "$toolwire" "$work" walkthrough --for 120 --quiet "$1"
  export STAGING_URL="http://127.0.0.1:$port/v1"
}

export PATH="$build:$PATH"
mkdir -p "$work/repo"
serve "$work/good"
export SUITES="$work/good"
(cd "$work/repo" && bash -e "$work/baseline.sh") >"$work/baseline.log" 2>&1 ||
  { cat "$work/baseline.log"; fail "the baseline block failed"; }
[ -s "$work/repo/reports/baseline/staging.json" ] || fail "no baseline written"
# the good server passes the gate
(cd "$work/repo" && bash -e "$work/gate.sh") >"$work/good.log" 2>&1 ||
  { cat "$work/good.log"; fail "the good server did not pass the gate"; }
grep -q "no regression" "$work/good.log" || { cat "$work/good.log"; fail "no verdict on the good server"; }

# gate_case NAME SERVED SUITES FIXTURE WHAT: the gate block must exit 1 naming FIXTURE and WHAT
gate_case() {
  local name=$1 served=$2 suites=$3 fixture=$4 what=$5
  serve "$served"
  rm -rf "$work/repo/reports/latest"
  (cd "$work/repo" && SUITES="$suites" GITHUB_ACTIONS=true bash -e "$work/gate.sh") >"$work/$name.log" 2>&1
  local rc=$?
  local log="$work/$name.log" r="$work/repo/reports/latest"
  [ "$rc" -eq 1 ] || { cat "$log"; fail "$name: the gate exited $rc, not 1"; }
  grep -q "| $fixture |.*$what" "$log" || { cat "$log"; fail "$name: the listing does not name $fixture ($what)"; }
  grep -q "^::error file=[^,]*$(basename "$fixture").json,title=" "$log" ||
    { cat "$log"; fail "$name: no annotation on the fixture file"; }
  grep -q "<testcase classname=\"$fixture\"[^>]*><failure" "$r/gate.junit.xml" ||
    { cat "$r/gate.junit.xml"; fail "$name: the JUnit file has no failing testcase for $fixture"; }
  python3 - "$r/gate.json" "$fixture" <<'EOF' || fail "$name: the JSON verdicts do not name $fixture"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["passed"] is False, g
assert any(r["fixture"] == sys.argv[2] and r["fails_gate"] for r in g["rows"]), g
EOF
  echo "walkthrough: $name: gate exit 1, $fixture named"
}

gate_case dropped-call "$work/drop" "$work/good" openai/nonstream_parallel_calls "RES-01 .*tool_calls: expected 2, got 1"
gate_case finish-reason "$work/finish" "$work/good" openai/nonstream_single_call "RES-01 .*finish_reason: expected tool_calls, got stop"
gate_case arguments "$work/args" "$work/good" openai/nonstream_single_call "RES-01 .*arguments differ"
gate_case lost-fixture "$work/good" "$work/lost" openai/nonstream_text_only "not run: 1 exchange"
echo "walkthrough: docs/ci-gate.md step by step: the baseline passed, each regression failed the gate"
