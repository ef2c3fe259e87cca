#!/bin/sh
# The live suites against `toolwire serve --profile script` started as a
# separate process and reached by URL, exactly as a live server would be:
# every suite runs with --tag live and must give zero mismatches.
set -eu
BIN=${TOOLWIRE_BIN:?TOOLWIRE_BIN names the toolwire program}
SRC=${TOOLWIRE_SOURCE_DIR:?TOOLWIRE_SOURCE_DIR names the source tree}
tmp=$(mktemp -d)
pid=
cleanup() {
    if [ -n "$pid" ]; then
        # a TERM that lands between the fork and the exec of serve is lost
        # (the forked shell still holds this script's trap): after 5 s, KILL
        kill "$pid" 2>/dev/null || true
        j=0
        while [ $j -lt 50 ] && kill -0 "$pid" 2>/dev/null; do
            sleep 0.1
            j=$((j + 1))
        done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

: >"$tmp/serve.out" # exists before serve starts: the poll below reads it at once
"$BIN" serve --profile script --quiet --for 300 >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
url=
i=0
while [ $i -lt 100 ]; do
    url=$(sed -n 's/^serving .* on \(http:\/\/127\.0\.0\.1:[0-9]*\)$/\1/p' "$tmp/serve.out")
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "serve exited early:"; cat "$tmp/serve.err"; exit 1; }
    sleep 0.1
    i=$((i + 1))
done
[ -n "$url" ] || { echo "serve printed no URL"; cat "$tmp/serve.out" "$tmp/serve.err"; exit 1; }
echo "serve --profile script on $url"

fail=0
for e in openai openai-responses anthropic vllm-native gemma4; do
    n=$(ls "$SRC/fixtures/live/$e"/*.json | wc -l)
    rc=0
    "$BIN" run --tag live --backend "ref-$e=$url" --out "$tmp/reports" --retries 0 \
        "$SRC/fixtures/live/$e" >"$tmp/run-$e.out" 2>&1 || rc=$?
    cat "$tmp/run-$e.out"
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: run over fixtures/live/$e exited $rc"
        fail=1
    fi
    grep -q "^backend ref-$e ($url): ok, $n fixtures run, 0 not fitting, [0-9]* exchanges (0 error statuses, 0 without a response), .*, 0 mismatches" \
        "$tmp/run-$e.out" || { echo "FAIL: fixtures/live/$e: expected $n fixtures run, no error status, 0 mismatches"; fail=1; }
done

# serve selects by tag too: the three fault fixtures of fixtures/openai, or none (exit 2)
out=$("$BIN" serve --quiet --for 1 --tag faults --tag openai "$SRC/fixtures/openai" 2>&1) || true
echo "$out" | grep -q "^serving 3 fixture(s) with profile auto" || { echo "FAIL: serve --tag faults: $out"; fail=1; }
rc=0
"$BIN" serve --quiet --for 1 --tag no-such-tag "$SRC/fixtures/openai" >"$tmp/none.out" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "no fixture is selected" "$tmp/none.out" ||
    { echo "FAIL: serve selecting nothing exited $rc"; cat "$tmp/none.out"; fail=1; }
exit $fail
