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
tw_status tw_anthropic_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_result *out);

typedef struct tw_ant_block tw_ant_block;

/*
 * Caller-owned streaming state. Zero-initialise, then
 * tw_anthropic_stream_init. Memory is bounded like the OpenAI stream: one
 * SSE line and event, each open tool_use block's partial_json (2 *
 * max_args_bytes + 4096), at most 2 * max_calls + 16 open blocks, and the
 * decoded text, bounded by max_input_bytes.
 */
typedef struct tw_anthropic_stream {
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_result res;
    tw_sse sse;
    uint64_t fed;
    bool too_large;
    bool finished;
    bool stopped; /* message_stop seen */
    bool any_event;
    bool thinking_block;  /* inside a thinking block that has not emitted yet */
    tw_ant_block *blocks; /* open tool_use and thinking blocks */
    size_t nblocks;
    size_t cap_blocks;
    char *stop_reason;
    tw_buf head; /* the input while no event came yet (<= max_event_bytes) */
    bool head_off;
    bool nonstd_warned; /* json_not_rfc8259 given once per stream */
    tw_status stop;       /* a callback's status that stopped the decode; TW_OK while none */
} tw_anthropic_stream;

tw_status tw_anthropic_stream_init(tw_anthropic_stream *d, const tw_decode_opts *o, tw_event_fn fn,
                                   void *user);
/* Push bytes of the SSE body; events fire from inside. */
tw_status tw_anthropic_stream_feed(tw_anthropic_stream *d, const char *buf, size_t len);
/* End of input: closes open blocks, moves the result to *out (free with
 * tw_result_free) and releases the decoder's memory. On
 * failure (TW_ERR_NOMEM; TW_ERR_STATE for a second finish) *out is valid
 * and empty. */
tw_status tw_anthropic_stream_finish(tw_anthropic_stream *d, tw_result *out);
/* Release without finishing (safe after finish too). */
void tw_anthropic_stream_release(tw_anthropic_stream *d);
/* Batch: init, feed everything, finish (the contract of decode.h: buf[0, len) is
 * not kept, `o` may be NULL, *out need not be initialised and is valid and
 * empty on every failure; a bad body is a diagnostic, not a failure). */
tw_status tw_anthropic_stream_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                     tw_result *out);

/* stop_reason to finish_reason (tool_use -> tool_calls, end_turn and
 * stop_sequence -> stop, max_tokens -> length, refusal -> content_filter,
 * anything else passed through). */
const char *tw_anthropic_finish_reason(const char *stop_reason);

#ifdef __cplusplus
}
#endif
#endif
