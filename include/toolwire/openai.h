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
tw_status tw_openai_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                    tw_result *out);

/* Initial capacity of the per-stream call table; it grows up to 2 * max_calls + 16. */
#define TW_OAI_SLOTS_INIT 8

typedef struct tw_oai_slot tw_oai_slot;

/*
 * Caller-owned streaming state for a chat.completion.chunk stream.
 * Zero-initialise, then tw_openai_stream_init. Memory it holds is bounded:
 * one SSE line and event (max_line_bytes, max_event_bytes), each open call's
 * argument text (2 * max_args_bytes + 4096) and the decoded text, which the
 * max_input_bytes cap on the input bounds.
 */
typedef struct tw_openai_stream {
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_result res;
    tw_sse sse;
    uint64_t fed;
    bool too_large;
    bool finished;
    bool done; /* data: [DONE] seen */
    bool any_event;
    tw_oai_slot *slots; /* open calls, in order of their first delta */
    size_t nslots;
    size_t cap_slots;
    size_t slots_created; /* since the last time calls were closed */
    tw_buf refusal;
    int64_t refusal_off;
    char *finish_reason;
    tw_buf head; /* the input while no event came yet (<= max_event_bytes) */
    bool head_off;
    /* lookup of the open calls: 1 + slot position by delta index and by id
     * (the latest slot of each), and the latest non-legacy slot */
    size_t *by_index;
    size_t *by_id;
    size_t ntab; /* a power of two, at least twice nslots; 0 before the first slot */
    size_t last_plain;
    bool nonstd_warned; /* json_not_rfc8259 given once per stream */
    tw_status stop;       /* a callback's status that stopped the decode; TW_OK while none */
} tw_openai_stream;

tw_status tw_openai_stream_init(tw_openai_stream *d, const tw_decode_opts *o, tw_event_fn fn,
                                void *user);
/* Push bytes of the SSE body; events fire from inside. Input past
 * max_input_bytes is ignored (error input_too_large at finish). */
tw_status tw_openai_stream_feed(tw_openai_stream *d, const char *buf, size_t len);
/* End of input: closes open calls, moves the result to *out (free with
 * tw_result_free) and releases the decoder's memory. On
 * failure (TW_ERR_NOMEM; TW_ERR_STATE for a second finish) *out is valid
 * and empty. */
tw_status tw_openai_stream_finish(tw_openai_stream *d, tw_result *out);
/* Release without finishing (safe after finish too). */
void tw_openai_stream_release(tw_openai_stream *d);
/* Batch: init, feed everything, finish (the contract of decode.h: buf[0, len) is
 * not kept, `o` may be NULL, *out need not be initialised and is valid and
 * empty on every failure; a bad body is a diagnostic, not a failure). */
tw_status tw_openai_stream_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                  tw_result *out);

#ifdef __cplusplus
}
#endif
#endif
