/*
 * Gemini generateContent decoders (docs/formats/gemini.md): a
 * generateContent response body ("gemini") and a
 * streamGenerateContent?alt=sse event stream ("gemini-stream"). Both read
 * candidates[0].content.parts[] through one reader, so a stream decodes to
 * the result its chunks would give as one body. Calls go through the shared
 * acceptance rules (docs/formats/openai.md "Calls"). The streaming state is
 * private to the module: use the registry's push interface
 * (tw_format_find("gemini-stream"), docs/architecture.md).
 */
#ifndef TOOLWIRE_GEMINI_H
#define TOOLWIRE_GEMINI_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Batch decode of one generateContent response body, an array of such
 * responses (streamGenerateContent without alt=sse), or an error envelope.
 * The contract of decode.h: buf[0, len) is not kept, `o` may be NULL, *out
 * need not be initialised and is valid and empty on every failure; a bad
 * body is a diagnostic in *out, not a failure (only TW_ERR_NOMEM fails).
 */
TW_API tw_status tw_gemini_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                           tw_result *out);

/*
 * Batch decode of one streamGenerateContent?alt=sse event stream: each
 * `data:` event one partial GenerateContentResponse. The same contract as
 * tw_gemini_response_decode; equal to the push decoder fed in any pieces.
 */
TW_API tw_status tw_gemini_stream_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_result *out);

/*
 * The neutral finish reason of a Gemini finishReason: STOP gives
 * "tool_calls" when has_calls and "stop" otherwise, MAX_TOKENS "length",
 * SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII and IMAGE_SAFETY
 * "content_filter"; any other value is returned as given. NULL for NULL.
 * The returned string is static or `reason` itself.
 */
TW_API const char *tw_gemini_finish_reason(const char *reason, bool has_calls);

#ifdef __cplusplus
}
#endif

#endif
