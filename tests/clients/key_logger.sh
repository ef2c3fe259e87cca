#!/bin/sh
# A client driver (docs/clients.md) for secrets_names::clients_log_tail_keeps_no_part_of_the_key:
# it describes itself as an openai client; on a run it sends its key to the mock, as a library
# would (the mock learns it as a secret), then writes the key to its log (stderr) followed by a
# newline and TW_KEY_LOGGER_PAD dots, so that the end of the log toolwire keeps starts inside the
# key. It answers with a plain reply.
KEY=${TW_KEY_LOGGER_KEY:?}
PAD=${TW_KEY_LOGGER_PAD:-0}
if [ "${1:-}" = --describe ]; then
  echo '{"protocol":1,"client":"key-logger","version":"1","endpoint":"openai","modes":["create"]}'
  exit 0
fi
in=$(cat)
base=$(printf '%s' "$in" | sed -n 's/.*"base_url":"\([^"]*\)".*/\1/p')
curl -s -o /dev/null -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d '{"model":"m","messages":[]}' "$base/v1/chat/completions"
printf 'starting the client with key %s\n' "$KEY" >&2
head -c "$PAD" /dev/zero | tr '\000' '.' >&2
echo '{"content":"hello","tool_calls":[],"error":null,"requests":1}'
