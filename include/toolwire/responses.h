/*
 * OpenAI Responses API decoders (docs/formats/openai-responses.md): a
 * `response` object ("openai-responses") and the typed event stream of a
 * `stream: true` request ("openai-responses-stream"). Both read the
 * response's output[] items through one reader: message output_text to
 * content, reasoning summaries to thinking (encrypted_content to the
 * thinking signature), function_call items through the shared call rules
 * (docs/formats/openai.md "Calls"); the items of built-in tools are
 * reported, not dropped silently. The streaming state is private to the
 * module: use the registry's push interface
 * (tw_format_find("openai-responses-stream"), docs/architecture.md).
 */
#ifndef TOOLWIRE_RESPONSES_H
#define TOOLWIRE_RESPONSES_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Batch decode of one Responses `response` object (or an error envelope).
 * The contract of decode.h: buf[0, len) is not kept, `o` may be NULL, *out
 * need not be initialised and is valid and empty on every failure; a bad
 * body is a diagnostic in *out, not a failure (only TW_ERR_NOMEM fails).
 */
TW_API tw_status tw_responses_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                              tw_result *out);

/*
 * Batch decode of one Responses event stream (`event:` lines and `data:`
 * JSON events with a `type`). The same contract as
 * tw_responses_response_decode; equal to the push decoder fed in any pieces.
 */
TW_API tw_status tw_responses_stream_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                            tw_result *out);

/*
 * The neutral finish reason of a response's status: "completed" gives
 * "tool_calls" when has_calls and "stop" otherwise; "incomplete" gives
 * "length" for the reason max_output_tokens, "content_filter" for
 * content_filter and the reason itself otherwise (NULL when none);
 * "failed" gives NULL; any other status is returned as given. NULL for
 * NULL. The returned string is static or one of the arguments.
 */
TW_API const char *tw_responses_finish_reason(const char *status, const char *incomplete_reason,
                                              bool has_calls);

#ifdef __cplusplus
}
#endif

#endif
