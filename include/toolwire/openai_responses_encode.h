/*
 * OpenAI Responses API encoders: POST /v1/responses request bodies,
 * `response` objects and the typed event stream. The same functions back
 * the registry entries "openai-responses-request", "openai-responses" and
 * "openai-responses-stream" (encode.h). The rules are in
 * docs/formats/openai-responses-encode.md.
 *
 * Common contract as in openai_encode.h: `o` may be NULL; output appended to
 * `out`, capped by o->limits.max_output_bytes; on failure `out` is restored
 * and nothing leaks; not_carried warnings go to o->warnings.
 */
#ifndef TOOLWIRE_OPENAI_RESPONSES_ENCODE_H
#define TOOLWIRE_OPENAI_RESPONSES_ENCODE_H

#include "toolwire/encode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The id of a response when o->id is NULL, and its created_at when
 * o->created is 0. */
#define TW_RESPONSES_DEFAULT_ID "resp_toolwire"

/* A /v1/responses request body. TW_ERR_INVALID for a call without a name;
 * TW_ERR_LIMIT past max_messages or max_tools. */
TW_API tw_status tw_responses_request_encode(const tw_request *r, const tw_encode_opts *o,
                                             tw_buf *out);
/* A `response` object (object "response"). TW_ERR_INVALID for a call
 * without a name. */
TW_API tw_status tw_responses_response_encode(const tw_result *r, const tw_encode_opts *o,
                                              tw_buf *out);
/* The typed SSE stream: `event: <type>` and `data: {...}` per event, with
 * sequence_number 0, 1, 2, ... */
TW_API tw_status tw_responses_stream_encode(const tw_result *r, const tw_encode_opts *o,
                                            tw_buf *out);

#ifdef __cplusplus
}
#endif
#endif
