/*
 * Gemini generateContent encoders: requests, generateContent response
 * bodies and streamGenerateContent?alt=sse streams. The same functions back
 * the registry entries "gemini-request", "gemini" and "gemini-stream"
 * (encode.h). The rules are in docs/formats/gemini.md ("Encoding").
 *
 * Common contract as in openai_encode.h: `o` may be NULL; output appended to
 * `out`, capped by o->limits.max_output_bytes; on failure `out` is restored
 * and nothing leaks; not_carried warnings go to o->warnings.
 */
#ifndef TOOLWIRE_GEMINI_ENCODE_H
#define TOOLWIRE_GEMINI_ENCODE_H

#include "toolwire/encode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A generateContent request body. TW_ERR_INVALID for a call without a name
 * or a tool result whose function name is known from neither its call nor
 * its message; TW_ERR_LIMIT past max_messages or max_tools. */
TW_API tw_status tw_gemini_request_encode(const tw_request *r, const tw_encode_opts *o,
                                          tw_buf *out);
/* A generateContent response body. TW_ERR_INVALID for a call without a name. */
TW_API tw_status tw_gemini_response_encode(const tw_result *r, const tw_encode_opts *o,
                                           tw_buf *out);
/* A streamGenerateContent?alt=sse stream: `data: {...}\r\n\r\n` events. */
TW_API tw_status tw_gemini_stream_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/*
 * The finishReason for a neutral finish_reason: stop and tool_calls ->
 * STOP, length -> MAX_TOKENS, content_filter -> SAFETY; empty or NULL ->
 * STOP; anything else passes through. Never NULL.
 */
TW_API const char *tw_gemini_finish_reason_out(const char *finish_reason);

#ifdef __cplusplus
}
#endif
#endif
