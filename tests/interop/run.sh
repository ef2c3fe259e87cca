#!/usr/bin/env bash
# Interop tests: the official OpenAI, Anthropic and Google GenAI SDKs, LangChain and the AI SDK (npm, versions
# pinned in package-lock.json) against `toolwire serve` on loopback. See docs/interop.md.
# Usage: tests/interop/run.sh BUILD_DIR      exit 0 pass, 1 fail, 77 skip (no node or npm)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: tests/interop/run.sh BUILD_DIR}
build=$(cd "$build" && pwd) || exit 1
toolwire=$build/toolwire
[ -x "$toolwire" ] || { echo "interop: $toolwire not built"; exit 1; }

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "interop: skipped: $tool is not installed (the tests run the npm SDKs with node >= 20)"
    exit 77
  fi
done
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "interop: skipped: node $(node --version) is older than 20"
  exit 77
fi

# The SDKs, exactly as locked (from npm's cache when it has them). Runs of other build trees
# share tests/interop/node_modules: flock on the lock file serialises the installs.
npm_ci=(npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
command -v flock >/dev/null 2>&1 && npm_ci=(flock "$here/package-lock.json" "${npm_ci[@]}")
if ! (cd "$here" && timeout 240 "${npm_ci[@]}" >/dev/null); then
  echo "interop: npm ci failed in $here"
  exit 1
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/toolwire-interop.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  pids=()
}
trap 'cleanup; rm -rf "$out"' EXIT
trap 'exit 1' INT TERM

# start NAME PROFILE FIXTURES…: one server, its port in TW_PORT_NAME. --for bounds its life
# even when this script is killed before it can stop it.
start() {
  local name=$1 profile=$2
  shift 2
  : >"$out/$name.stdout"
  "$toolwire" serve --port 0 --profile "$profile" --for 240 "$@" \
    >"$out/$name.stdout" 2>"$out/$name.log" &
  pids+=($!)
  local port="" i
  for i in $(seq 100); do   # 10 s
    port=$(sed -n 's|^serving .* on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$out/$name.stdout")
    [ -n "$port" ] && break
    kill -0 "${pids[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    echo "interop: toolwire serve --profile $profile did not start:"
    cat "$out/$name.stdout" "$out/$name.log"
    exit 1
  fi
  export "TW_PORT_${name^^}=$port"
  echo "interop: $name server (profile $profile) on 127.0.0.1:$port"
}

cd "$root"
start replay replay fixtures/openai fixtures/anthropic
start hermes hermes fixtures/hermes
start anthropic anthropic fixtures/anthropic
start responses replay fixtures/openai-responses
start qwen3coder qwen3-coder fixtures/qwen3-coder

export TW_INTEROP_OUT=$out
status=0
for script in openai anthropic; do
  echo "== $script SDK $(node -p "require('$here/node_modules/${script/anthropic/@anthropic-ai/sdk}/package.json').version") =="
  timeout 120 node "$here/$script.mjs" || status=1
done
echo "== Responses API: openai $(node -p "require('$here/node_modules/openai/package.json').version"), ai $(node -p "require('$here/node_modules/ai/package.json').version") + @ai-sdk/openai $(node -p "require('$here/node_modules/@ai-sdk/openai/package.json').version") =="
timeout 120 node "$here/responses.mjs" || status=1
echo "== Qwen3-Coder XML (serve --profile qwen3-coder): openai $(node -p "require('$here/node_modules/openai/package.json').version") =="
timeout 120 node "$here/qwen3coder.mjs" || status=1

# ---- SDK default requests (sdk-defaults.mjs) ----
# openai, @anthropic-ai/sdk, @langchain/openai and ai + @ai-sdk/openai, each as its users call it,
# against one `serve` (default profile, --log-bodies) reached by URL without X-Toolwire-Exchange.
sdk_out=$out/sdk-defaults
mkdir -p "$sdk_out"
"$toolwire" serve --port 0 --log-bodies --for 240 fixtures/openai/nonstream_single_call.json \
  fixtures/anthropic/response_tool_use.json fixtures/openai-responses/nonstream_function_call.json \
  >"$sdk_out/stdout" 2>"$sdk_out/serve.log" &
pids+=($!)
sdk_port=""
for i in $(seq 100); do   # 10 s
  sdk_port=$(sed -n 's|^serving .* on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$sdk_out/stdout")
  [ -n "$sdk_port" ] && break
  kill -0 "${pids[-1]}" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$sdk_port" ]; then
  echo "interop: toolwire serve for the SDK default requests did not start:"
  cat "$sdk_out/stdout" "$sdk_out/serve.log"
  status=1
else
  echo "== SDK default requests: openai, @anthropic-ai/sdk, @langchain/openai, ai + @ai-sdk/openai =="
  if ! TW_PORT_SDKS=$sdk_port TW_SDKS_LOG=$sdk_out/serve.log timeout 120 node "$here/sdk-defaults.mjs"; then
    status=1
    echo "-- serve log of the SDK default requests"
    cat "$sdk_out/serve.log"
  fi
fi
# ---- end of the SDK default requests ----

cleanup   # the servers flush their logs and exit
echo "== client checks on the SDKs' requests =="
timeout 30 node "$here/check-log.mjs" "$out" openai anthropic responses qwen3coder || status=1

# Both SDKs against the scripted reference model (serve --profile script, no fixtures).
start script script
echo "== openai, @anthropic-ai/sdk and ai + @ai-sdk/openai (Responses) against the script profile =="
timeout 120 node "$here/script.mjs" || status=1
# Google's @google/genai against the script profile above, the replayed fixtures/gemini and an
# injected 503 (gemini.mjs).
start gemini replay fixtures/gemini
start geminifault replay --fault '{"status":503}' fixtures/gemini
echo "== @google/genai $(node -p "require('$here/node_modules/@google/genai/package.json').version") against script, replay and a 503 fault =="
timeout 120 node "$here/gemini.mjs" || status=1
cleanup
if [ "$status" -ne 0 ]; then
  echo "== server logs =="
  for f in "$out"/*.log; do echo "-- $(basename "$f")"; cat "$f"; done
fi
exit "$status"
