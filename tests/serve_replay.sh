#!/usr/bin/env bash
# `toolwire run` against `toolwire serve` of the same fixtures, the server started as a separate
# process and reached by its URL exactly as a live server would be: zero mismatches over the
# whole fixtures/ tree (each fixture served by the profile that fits it), and over the README's
# CI-gate selection with a base URL ending in /v1.
# Usage: tests/serve_replay.sh TOOLWIRE SOURCE_DIR
set -uo pipefail
toolwire=${1:?usage: tests/serve_replay.sh TOOLWIRE SOURCE_DIR}
src=${2:?usage: tests/serve_replay.sh TOOLWIRE SOURCE_DIR}
out=$(mktemp -d "${TMPDIR:-/tmp}/toolwire-serve-replay.XXXXXX")
pid=""
stop() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=""; }
trap 'stop; rm -rf "$out"' EXIT
cd "$src" || exit 1
status=0

# serve_and_run NAME SUFFIX FIXTURES…: one server, one run against it
serve_and_run() {
  local name=$1 suffix=$2
  shift 2
  "$toolwire" serve --port 0 --for 300 "$@" >"$out/$name.serve.out" 2>"$out/$name.serve.log" &
  pid=$!
  local port="" i
  for i in $(seq 100); do   # 10 s
    port=$(sed -n 's|^serving .* on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$out/$name.serve.out")
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    echo "serve_replay: $name: toolwire serve did not start"; cat "$out/$name.serve.out" "$out/$name.serve.log"
    stop; status=1; return
  fi
  grep -q ' with profile auto ' "$out/$name.serve.out" || { echo "serve_replay: $name: not the auto profile"; status=1; }
  "$toolwire" run --quiet --backend "staging=http://127.0.0.1:$port$suffix" --out "$out/$name" "$@" \
    >"$out/$name.run.out" 2>&1
  local rc=$?
  stop
  local summary
  summary=$(grep -o '"mismatches": *[0-9]*' "$out/$name/staging.json" | head -1)
  if [ "$rc" -ne 0 ] || [ "$summary" != '"mismatches": 0' ]; then
    echo "serve_replay: $name: run exited $rc ($summary):"; head -50 "$out/$name.run.out"
    echo "-- serve log"; grep -v ' 200$' "$out/$name.serve.log" | head -50
    status=1
  else
    echo "serve_replay: $name: 0 mismatches"
  fi
}

serve_and_run tree "" fixtures/
serve_and_run gate /v1 fixtures/openai fixtures/session

# given only files that do not load, serve refuses to start (exit 2, the reason) rather than
# serving nothing
printf '{"fixture_version": 1, "name": "broken"' >"$out/broken.json"
"$toolwire" serve --port 0 --for 5 "$out/broken.json" >"$out/broken.out" 2>"$out/broken.log"
rc=$?
if [ "$rc" -ne 2 ] || ! grep -q 'no fixture to serve' "$out/broken.log" || [ -s "$out/broken.out" ]; then
  echo "serve_replay: a broken fixture alone: exit $rc, expected 2 and 'no fixture to serve':"
  cat "$out/broken.out" "$out/broken.log"
  status=1
else
  echo "serve_replay: a broken fixture alone: refused"
fi
exit "$status"
