/*
 * Text formats (docs/text-formats.md): think-tag
 * splitting, Hermes <tool_call> blocks, fenced ```tool_call blocks and the
 * Qwen3-Coder XML blocks (<tool_call><function=NAME><parameter=KEY>…).
 *
 * One push decoder serves all three; the batch functions feed the whole
 * input at once through it, so batch and streaming give one result.
 */
#ifndef TOOLWIRE_TEXT_H
#define TOOLWIRE_TEXT_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tw_text_kind {
    TW_TEXT_THINK = 0, /* split reasoning only */
    TW_TEXT_HERMES,    /* think blocks, then <tool_call> blocks */
    TW_TEXT_FENCED,    /* think blocks, then ```tool_call blocks */
    TW_TEXT_QWEN_XML   /* think blocks, then <tool_call><function=…> XML blocks (qwen3-coder) */
} tw_text_kind;

/*
 * A text decoder: opaque, allocated by tw_text_dec_new and freed by
 * tw_text_dec_free. One decoder serves one decode at a time; after finish
 * (or a failure) tw_text_dec_reset starts the next one on the same
 * allocations. Memory it holds is bounded by the limits: at most
 * max_input_bytes of held text and 2 * max_args_bytes + 4096 bytes of one
 * tool-call block.
 * Every function but _free takes a decoder from _new (never NULL).
 */
typedef struct tw_text_dec tw_text_dec;

/*
 * A decoder of `kind`. `o` may be NULL (defaults); it is copied, but the
 * tools it points at must stay valid until finish. `fn` may be NULL (no
 * events); `user` is passed to it as is (tw_event_fn, neutral.h: a status
 * other than TW_OK from fn stops the decode). Returns NULL when memory runs
 * out; free the decoder with tw_text_dec_free.
 */
TW_API tw_text_dec *tw_text_dec_new(tw_text_kind kind, const tw_decode_opts *o, tw_event_fn fn,
                                    void *user);
/*
 * Push buf[0, len) (not kept; any split gives the same result); events fire
 * from inside. Input past max_input_bytes is ignored (error input_too_large
 * at finish). Returns TW_OK, TW_ERR_NOMEM, TW_ERR_STATE after finish, or
 * the status a callback stopped the decode with; after a failure the
 * decode is over (finish gives an empty result).
 */
TW_API tw_status tw_text_dec_feed(tw_text_dec *d, const char *buf, size_t len);
/*
 * End of input: resolves held text and moves the result to *out (need not be
 * initialised; the caller frees it with tw_result_free). On failure
 * (TW_ERR_NOMEM; TW_ERR_STATE for a second finish; a callback's status)
 * *out is valid and empty. The decoder keeps its buffers for a reset.
 */
TW_API tw_status tw_text_dec_finish(tw_text_dec *d, tw_result *out);
/*
 * Start a new decode of the same kind with `o`, `fn` and `user` (as for
 * tw_text_dec_new), whatever state d is in: what the previous decode held
 * is dropped, the buffers' allocations are kept, so a decoder reused for
 * inputs of similar size does not allocate them again. Returns TW_OK.
 */
TW_API tw_status tw_text_dec_reset(tw_text_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                   void *user);
/*
 * Give back a result the caller is done with (r may be NULL): r is freed and
 * left empty (zeroed), but the allocations of its content and thinking
 * buffers go to d, which writes the content and thinking of its next result
 * into them (when d has none of its own yet; else they are freed too). A
 * decoder reset and reused for inputs of similar size then copies its text
 * once into memory already touched, and the result is the one a fresh
 * decoder gives. Any time, from any result (usually the one d's finish
 * gave).
 */
TW_API void tw_text_dec_recycle(tw_text_dec *d, tw_result *r);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_text_dec_free(tw_text_dec *d);

/* Batch: init, feed everything, finish (the contract of decode.h: buf[0,
 * len) is not kept, `o` may be NULL, *out need not be initialised and is
 * valid and empty on every failure). */
TW_API tw_status tw_think_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                        tw_result *out);
TW_API tw_status tw_hermes_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_result *out);
TW_API tw_status tw_fenced_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_result *out);
TW_API tw_status tw_qwen3_coder_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                              tw_result *out);

#ifdef __cplusplus
}
#endif
#endif
