#!/usr/bin/env bash
# `toolwire serve --profile script` as a separate process, reached by URL as a live server
# would be: a directive's call comes back as a tool call with the scripted arguments and the
# default policy answers a named tool_choice with a call whose arguments validate against the
# tool's schema, on POST /v1/chat/completions, /v1/messages, /v1/responses and /generate,
# streamed and not (a Responses stream as typed events with `event:` lines);
# bad requests get 400 in the endpoint's error envelope with the reason. Responses are read
# back with `toolwire parse` (the reference response decoders, tools declared so that the
# arguments are checked against their schema).
# Usage: tests/script/serve_script.sh TOOLWIRE     exit 0 pass, 1 fail, 77 skip (no curl)
set -uo pipefail
toolwire=${1:?usage: tests/script/serve_script.sh TOOLWIRE}
[ -x "$toolwire" ] || { echo "script: $toolwire not built"; exit 1; }
command -v curl >/dev/null 2>&1 || { echo "script: skipped: curl is not installed"; exit 77; }

out=$(mktemp -d "${TMPDIR:-/tmp}/toolwire-script.XXXXXX")
pid=""
cleanup() {
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --for bounds the server's life even if this script is killed before it can stop it
"$toolwire" serve --profile script --port 0 --for 120 >"$out/stdout" 2>"$out/log" &
pid=$!
url=""
for _ in $(seq 100); do   # 10 s
  url=$(sed -n 's|^serving the scripted model with profile script on \(http://127\.0\.0\.1:[0-9][0-9]*\)$|\1|p' "$out/stdout")
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "script: toolwire serve --profile script did not start:"
  cat "$out/stdout" "$out/log"
  exit 1
fi
echo "script: serving on $url"

fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

SCHEMA='{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["c","f"]},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city","unit","days"],"additionalProperties":false}'
printf '[{"name":"get_weather","parameters":%s}]' "$SCHEMA" >"$out/tools.json"
OAI_TOOLS="[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":$SCHEMA}}]"
ANT_TOOLS="[{\"name\":\"get_weather\",\"input_schema\":$SCHEMA}]"
RSP_TOOLS="[{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":$SCHEMA}]"
GEN_TOOLS="[{\"name\":\"get_weather\",\"parameters\":$SCHEMA}]"
# the directive as it stands in a JSON string
DIRECTIVE='What is the weather in Paris? toolwire-script {\"nonce\":\"script-test-1\",\"reasoning\":\"The user wants the weather.\",\"text\":\"Let me look.\",\"calls\":[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\",\"unit\":\"c\",\"days\":3}}]}'
SCRIPTED='"tool_calls":[{"id":"call_1","name":"get_weather","arguments":{"city":"Paris","unit":"c","days":3}}]'
GENERATED='"tool_calls":[{"id":"call_1","name":"get_weather","arguments":{"city":"example","unit":"c","days":1}}]'

# post NAME PATH BODY: the response body in $out/NAME.body, the status in $out/NAME.status
post() {
  curl -sS -m 20 -o "$out/$1.body" -w '%{http_code}' -H 'content-type: application/json' \
    -H 'anthropic-version: 2023-06-01' --data-binary "$3" "$url$2" >"$out/$1.status" 2>"$out/$1.err" ||
    fail "$1: curl: $(cat "$out/$1.err")"
}

# expect NAME PATH BODY FORMAT NEEDLE…: 200, decoded by FORMAT without errors, holding every NEEDLE
expect() {
  local name=$1 path=$2 body=$3 format=$4
  shift 4
  post "$name" "$path" "$body"
  local status
  status=$(cat "$out/$name.status")
  if [ "$status" != 200 ]; then
    fail "$name: status $status: $(cat "$out/$name.body")"
    return
  fi
  if ! "$toolwire" parse --format "$format" --tools "$out/tools.json" "$out/$name.body" >"$out/$name.json" 2>"$out/$name.perr"; then
    fail "$name: toolwire parse --format $format: $(cat "$out/$name.perr")"
    return
  fi
  grep -qF '"errors":[]' "$out/$name.json" || fail "$name: decoded with errors: $(cat "$out/$name.json")"
  local needle
  for needle in "$@"; do
    grep -qF -- "$needle" "$out/$name.json" || fail "$name: no $needle in $(cat "$out/$name.json")"
  done
  echo "ok   $name"
}

# refused NAME PATH BODY ENVELOPE REASON: 400, the endpoint's error envelope, the reason in it
refused() {
  post "$1" "$2" "$3"
  local status
  status=$(cat "$out/$1.status")
  [ "$status" = 400 ] || fail "$1: status $status, want 400"
  grep -qF -- "$4" "$out/$1.body" || fail "$1: not the $4 envelope: $(cat "$out/$1.body")"
  grep -qF -- "$5" "$out/$1.body" || fail "$1: the reason '$5' is missing: $(cat "$out/$1.body")"
  echo "ok   $1"
}

for stream in false true; do
  sfx=""; kind=response
  [ $stream = true ] && sfx="-stream" && kind=stream
  expect "openai-directive$sfx" /v1/chat/completions \
    "{\"model\":\"m\",\"stream\":$stream,\"messages\":[{\"role\":\"user\",\"content\":\"$DIRECTIVE\"}],\"tools\":$OAI_TOOLS}" \
    "openai-$kind" "$SCRIPTED" '"content":"Let me look."' '"thinking":"The user wants the weather."'
  expect "openai-named$sfx" /v1/chat/completions \
    "{\"model\":\"m\",\"stream\":$stream,\"messages\":[{\"role\":\"user\",\"content\":\"Weather?\"}],\"tools\":$OAI_TOOLS,\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}}" \
    "openai-$kind" "$GENERATED" '"finish_reason":"tool_calls"'
  expect "anthropic-directive$sfx" /v1/messages \
    "{\"model\":\"c\",\"max_tokens\":256,\"stream\":$stream,\"messages\":[{\"role\":\"user\",\"content\":\"$DIRECTIVE\"}],\"tools\":$ANT_TOOLS}" \
    "anthropic-$kind" "$SCRIPTED" '"content":"Let me look."' '"thinking":"The user wants the weather."'
  expect "anthropic-named$sfx" /v1/messages \
    "{\"model\":\"c\",\"max_tokens\":256,\"stream\":$stream,\"messages\":[{\"role\":\"user\",\"content\":\"Weather?\"}],\"tools\":$ANT_TOOLS,\"tool_choice\":{\"type\":\"tool\",\"name\":\"get_weather\"}}" \
    "anthropic-$kind" "$GENERATED"
  expect "responses-directive$sfx" /v1/responses \
    "{\"model\":\"m\",\"stream\":$stream,\"input\":[{\"role\":\"user\",\"content\":\"$DIRECTIVE\"}],\"tools\":$RSP_TOOLS}" \
    "openai-responses${sfx}" "$SCRIPTED" '"content":"Let me look."' '"thinking":"The user wants the weather."'
  expect "responses-named$sfx" /v1/responses \
    "{\"model\":\"m\",\"stream\":$stream,\"input\":\"Weather?\",\"tools\":$RSP_TOOLS,\"tool_choice\":{\"type\":\"function\",\"name\":\"get_weather\"}}" \
    "openai-responses${sfx}" "$GENERATED" '"finish_reason":"tool_calls"'
  # a function_call_output turn: text quoting the output; reasoning when the request asks for it
  expect "responses-result$sfx" /v1/responses \
    "{\"model\":\"m\",\"stream\":$stream,\"reasoning\":{\"effort\":\"low\"},\"input\":[{\"role\":\"user\",\"content\":\"Weather?\"},{\"type\":\"function_call\",\"call_id\":\"call_9\",\"name\":\"get_weather\",\"arguments\":\"{}\"},{\"type\":\"function_call_output\",\"call_id\":\"call_9\",\"output\":\"18 C and clear\"}],\"tools\":$RSP_TOOLS}" \
    "openai-responses${sfx}" '"content":"The tool returned: \"18 C and clear\""' \
    '"thinking":"The request needs an answer; the script decides it."' '"tool_calls":[]'
done
if ! grep -q '^event: response.function_call_arguments.delta$' "$out/responses-directive-stream.body" ||
   ! grep -q '^event: response.completed$' "$out/responses-directive-stream.body"; then
  fail "responses-directive-stream: no typed event lines: $(head -c 600 "$out/responses-directive-stream.body")"
fi
# /generate answers whole bodies (the two-pass contract has no stream)
expect generate-directive /generate \
  "{\"messages\":[{\"role\":\"user\",\"content\":\"$DIRECTIVE\"}],\"tools\":$GEN_TOOLS}" \
  vllm-generate "$SCRIPTED" '"content":"Let me look."' '"thinking":"The user wants the weather."'
expect generate-named /generate \
  "{\"messages\":[{\"role\":\"user\",\"content\":\"Weather?\"}],\"tools\":$GEN_TOOLS,\"tool_choice\":{\"name\":\"get_weather\"},\"two_pass\":false}" \
  vllm-generate "$GENERATED" '"thinking":""'

refused openai-bad /v1/chat/completions '{"model":"m","messages":[{"role":"user","content":"toolwire-script {\"steps\": 1}"}]}' \
  '"invalid_request_error"' 'toolwire-script.steps: must be an array of steps'
refused anthropic-bad /v1/messages '{"model":"c","max_tokens":5}' '"type":"error"' 'messages'
refused responses-bad /v1/responses '{"model":"m","input":[{"role":"user","content":"toolwire-script {\"steps\": 1}"}]}' \
  '"invalid_request_error"' 'toolwire-script.steps: must be an array of steps'
refused responses-no-input /v1/responses '{"model":"m"}' '"invalid_request_error"' 'input'
refused generate-bad /generate '{"messages":[{"role":"user","content":"Go"}],"tool_choice":"required"}' \
  '"error"' 'declares no tools'

# only the five endpoints, by POST
for probe in "GET /v1/chat/completions" "POST /v1/models" "PUT /v1/messages"; do
  set -- $probe
  code=$(curl -sS -m 20 -o "$out/probe.body" -w '%{http_code}' -X "$1" -H 'content-type: application/json' \
    --data-binary '{"model":"m","messages":[]}' "$url$2")
  [ "$code" = 404 ] || fail "$probe: status $code, want 404"
  grep -qF 'the script profile answers POST' "$out/probe.body" || fail "$probe: $(cat "$out/probe.body")"
done
echo "ok   other methods and paths: 404"

if [ "$fails" -ne 0 ]; then
  echo "== server log =="
  cat "$out/log"
  echo "script: $fails failure(s)"
  exit 1
fi
echo "script: all passed"
