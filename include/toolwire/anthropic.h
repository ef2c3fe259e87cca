/*
 * Anthropic messages decoders (docs/formats/anthropic.md):
 * a messages response body ("anthropic-response") and a messages event
 * stream ("anthropic-stream"). Calls go through the shared acceptance rules
 * of toolwire/openai.h (wire calls). The stream decoder is one push state
 * machine; its batch form feeds the whole input at once.
 */
#ifndef TOOLWIRE_ANTHROPIC_H
#define TOOLWIRE_ANTHROPIC_H

#include "toolwire/neutral.h"
#include "toolwire/sse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Batch decode of one messages response body (or an error envelope)
 * (the contract of decode.h: buf[0, len) is
 * not kept, `o` may be NULL, *out need not be initialised and is valid and
 * empty on every failure; a bad body is a diagnostic, not a failure). */
TW_API tw_status tw_anthropic_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                              tw_result *out);

/*
 * A messages event stream decoder: opaque, allocated by
 * tw_anthropic_stream_new and freed by tw_anthropic_stream_free; after
 * finish (or a failure) tw_anthropic_stream_reset starts the next decode on
 * the same allocations. Memory is bounded like the OpenAI stream: one SSE
 * line and event, each open tool_use block's partial_json (2 *
 * max_args_bytes + 4096), at most 2 * max_calls + 16 open blocks, and the
 * decoded text, bounded by max_input_bytes.
 * Every function but _free takes a decoder from _new (never NULL).
 */
typedef struct tw_anthropic_stream tw_anthropic_stream;

/* A decoder; `o` may be NULL (defaults) and is copied (the tools it points
 * at must stay valid until finish); `fn` may be NULL (no events), `user` is
 * passed to it (tw_event_fn: a status other than TW_OK stops the decode).
 * NULL when memory runs out. */
TW_API tw_anthropic_stream *tw_anthropic_stream_new(const tw_decode_opts *o, tw_event_fn fn,
                                                    void *user);
/* Push bytes of the SSE body (not kept; any split); events fire from
 * inside. TW_OK, TW_ERR_NOMEM, TW_ERR_STATE after finish, or the status a
 * callback stopped the decode with; after a failure the decode is over. */
TW_API tw_status tw_anthropic_stream_feed(tw_anthropic_stream *d, const char *buf, size_t len);
/* End of input: closes open blocks and moves the result to *out (need not
 * be initialised; free with tw_result_free). On failure (TW_ERR_NOMEM;
 * TW_ERR_STATE for a second finish; a callback's status) *out is valid and
 * empty. The decoder keeps its buffers for a reset. */
TW_API tw_status tw_anthropic_stream_finish(tw_anthropic_stream *d, tw_result *out);
/* Start a new decode with `o`, `fn`, `user` (as for new), whatever state d
 * is in; the buffers' allocations are kept. Returns TW_OK. */
TW_API tw_status tw_anthropic_stream_reset(tw_anthropic_stream *d, const tw_decode_opts *o,
                                           tw_event_fn fn, void *user);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_anthropic_stream_free(tw_anthropic_stream *d);
/* Batch: init, feed everything, finish (the contract of decode.h: buf[0, len) is
 * not kept, `o` may be NULL, *out need not be initialised and is valid and
 * empty on every failure; a bad body is a diagnostic, not a failure). */
TW_API tw_status tw_anthropic_stream_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                            tw_result *out);

/* stop_reason to finish_reason (tool_use -> tool_calls, end_turn and
 * stop_sequence -> stop, max_tokens -> length, refusal -> content_filter,
 * anything else passed through). */
TW_API const char *tw_anthropic_finish_reason(const char *stop_reason);

#ifdef __cplusplus
}
#endif
#endif
