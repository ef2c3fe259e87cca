/*
 * OpenAI chat completions decoders (docs/formats/openai.md):
 * a chat.completion body ("openai-response") and a chat.completion.chunk
 * event stream ("openai-stream"). Both are also reachable through the
 * registry (tw_format_find). The stream decoder is one push state machine;
 * its batch form feeds the whole input at once, so both give one result,
 * and that result equals the response decode of the same completion.
 */
#ifndef TOOLWIRE_OPENAI_H
#define TOOLWIRE_OPENAI_H

#include "toolwire/neutral.h"
#include "toolwire/sse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ===================== OpenAI ===================== */

/* Batch decode of one chat.completion body (or an error envelope)
 * (the contract of decode.h: buf[0, len) is
 * not kept, `o` may be NULL, *out need not be initialised and is valid and
 * empty on every failure; a bad body is a diagnostic, not a failure). */
TW_API tw_status tw_openai_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                           tw_result *out);

/*
 * A chat.completion.chunk stream decoder: opaque, allocated by
 * tw_openai_stream_new and freed by tw_openai_stream_free; after finish
 * (or a failure) tw_openai_stream_reset starts the next decode on the same
 * allocations. Memory it holds is bounded: one SSE line and event
 * (max_line_bytes, max_event_bytes), each open call's argument text
 * (2 * max_args_bytes + 4096) and the decoded text, which the
 * max_input_bytes cap on the input bounds.
 * Every function but _free takes a decoder from _new (never NULL).
 */
typedef struct tw_openai_stream tw_openai_stream;

/* A decoder; `o` may be NULL (defaults) and is copied (the tools it points
 * at must stay valid until finish); `fn` may be NULL (no events), `user` is
 * passed to it (tw_event_fn: a status other than TW_OK stops the decode).
 * NULL when memory runs out. */
TW_API tw_openai_stream *tw_openai_stream_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/* Push bytes of the SSE body (not kept; any split); events fire from
 * inside. Input past max_input_bytes is ignored (error input_too_large at
 * finish). TW_OK, TW_ERR_NOMEM, TW_ERR_STATE after finish, or the status a
 * callback stopped the decode with; after a failure the decode is over. */
TW_API tw_status tw_openai_stream_feed(tw_openai_stream *d, const char *buf, size_t len);
/* End of input: closes open calls and moves the result to *out (need not
 * be initialised; free with tw_result_free). On failure (TW_ERR_NOMEM;
 * TW_ERR_STATE for a second finish; a callback's status) *out is valid and
 * empty. The decoder keeps its buffers for a reset. */
TW_API tw_status tw_openai_stream_finish(tw_openai_stream *d, tw_result *out);
/* Start a new decode with `o`, `fn`, `user` (as for new), whatever state d
 * is in; the buffers' allocations are kept. Returns TW_OK. */
TW_API tw_status tw_openai_stream_reset(tw_openai_stream *d, const tw_decode_opts *o,
                                        tw_event_fn fn, void *user);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_openai_stream_free(tw_openai_stream *d);
/* Batch: init, feed everything, finish (the contract of decode.h: buf[0, len) is
 * not kept, `o` may be NULL, *out need not be initialised and is valid and
 * empty on every failure; a bad body is a diagnostic, not a failure). */
TW_API tw_status tw_openai_stream_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_result *out);

#ifdef __cplusplus
}
#endif
#endif
