# Sourced by the shell tests that judge a `toolwire serve` started as a separate process.
# serve_start TOOLWIRE WORK WHO ARGS…: stop the server this file started before (if any), start
# `TOOLWIRE serve --port 0 ARGS…` with its output in WORK/serve.out and WORK/serve.err, its pid in
# $pid and its port in $port once it prints its address (10 s at most); exits 1 naming WHO when
# it does not start. serve_stop stops it; call it from an EXIT trap.
pid=""
serve_stop() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=""; }
serve_start() {
  local toolwire=$1 work=$2 who=$3 i
  shift 3
  serve_stop
  : >"$work/serve.out"
  "$toolwire" serve --port 0 "$@" >"$work/serve.out" 2>"$work/serve.err" &
  pid=$!
  port=""
  for i in $(seq 100); do
    port=$(sed -n 's|^serving .* on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$work/serve.out")
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "$who: serve did not start"; cat "$work/serve.err"; exit 1; }
}
