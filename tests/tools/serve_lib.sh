# Sourced by the shell tests that stand a `toolwire serve` in for a staging server.
# start_serve TOOLWIRE WORKDIR ARGS…: `toolwire serve --port 0 --for 120 --quiet ARGS…` in the
# background (its output in WORKDIR/serve.out and serve.err); sets serve_pid and exports
# STAGING_URL, the server's base URL; returns 1 (its standard error shown) when it did not start.
start_serve() {
  local tw=$1 w=$2
  shift 2
  : >"$w/serve.out"
  "$tw" serve --port 0 --for 120 --quiet "$@" >"$w/serve.out" 2>"$w/serve.err" &
  serve_pid=$!
  local port="" i
  for i in $(seq 100); do
    port=$(sed -n 's|^serving .* on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$w/serve.out")
    [ -n "$port" ] && break
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$w/serve.err"; return 1; }
  export STAGING_URL="http://127.0.0.1:$port/v1"
}
