/*
 * OpenAI chat completions encoders: requests, chat.completion responses and
 * chat.completion.chunk streams (SSE bytes). The same functions back the
 * registry entries "openai-request", "openai-response" and "openai-stream"
 * (encode.h). The rules are in docs/formats/encoding.md.
 *
 * Common contract: `o` may be NULL (defaults: no warnings kept, parallel
 * policy from the request). Bytes are appended to `out`; at most
 * o->limits.max_output_bytes are added (tw_buf.max is narrowed for the call
 * and restored). On any failure `out` is restored to its previous length and
 * nothing leaks: TW_ERR_LIMIT (output cap), TW_ERR_NOMEM, TW_ERR_INVALID (a
 * call without a name). What OpenAI cannot carry is appended to
 * o->warnings as not_carried, one warning per field, naming it.
 */
#ifndef TOOLWIRE_OPENAI_ENCODE_H
#define TOOLWIRE_OPENAI_ENCODE_H

#include "toolwire/encode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults written when tw_encode_opts leaves id / created / model unset. */
#define TW_OPENAI_DEFAULT_ID "chatcmpl-toolwire"
#define TW_OPENAI_DEFAULT_CREATED 1700000000LL
#define TW_DEFAULT_MODEL "toolwire"

/* A request body (POST /v1/chat/completions). */
TW_API tw_status tw_openai_request_encode(const tw_request *r, const tw_encode_opts *o,
                                          tw_buf *out);
/* A non-streaming chat.completion body. */
TW_API tw_status tw_openai_response_encode(const tw_result *r, const tw_encode_opts *o,
                                           tw_buf *out);
/* The SSE bytes of a chat.completion.chunk stream. */
TW_API tw_status tw_openai_stream_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/* The finish_reason written for a result: its own, else tool_calls/stop. */
TW_API const char *tw_openai_finish_reason(const tw_result *r);

#ifdef __cplusplus
}
#endif
#endif
