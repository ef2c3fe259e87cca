/*
 * Anthropic messages encoders: requests, message responses and event
 * streams (SSE bytes with event: lines). The same functions back the
 * registry entries "anthropic-request", "anthropic-response" and
 * "anthropic-stream" (encode.h). The rules are in docs/formats/encoding.md.
 *
 * Common contract as in openai_encode.h: `o` may be NULL; output appended to
 * `out`, capped by o->limits.max_output_bytes; on failure `out` is restored
 * and nothing leaks; not_carried warnings go to o->warnings.
 */
#ifndef TOOLWIRE_ANTHROPIC_ENCODE_H
#define TOOLWIRE_ANTHROPIC_ENCODE_H

#include "toolwire/encode.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TW_ANTHROPIC_DEFAULT_ID "msg_toolwire"
/* max_tokens is required by the API; written when options give none. */
#define TW_ANTHROPIC_DEFAULT_MAX_TOKENS 4096

TW_API tw_status tw_anthropic_request_encode(const tw_request *r, const tw_encode_opts *o,
                                             tw_buf *out);
TW_API tw_status tw_anthropic_response_encode(const tw_result *r, const tw_encode_opts *o,
                                              tw_buf *out);
TW_API tw_status tw_anthropic_stream_encode(const tw_result *r, const tw_encode_opts *o,
                                            tw_buf *out);

/*
 * The stop_reason for a neutral finish_reason (docs/formats/encoding.md,
 * the stop_reason mapping): tool_calls -> tool_use, stop -> end_turn, length -> max_tokens,
 * content_filter -> refusal; empty or NULL -> tool_use when ncalls, else
 * end_turn; anything else passes through. Never NULL.
 */
TW_API const char *tw_anthropic_stop_reason(const char *finish_reason, size_t ncalls);

#ifdef __cplusplus
}
#endif
#endif
