/*
 * Harmony, the output dialect of OpenAI's gpt-oss models
 * (docs/formats/harmony.md): messages
 * `<|channel|>CHANNEL[ to=functions.NAME][ <|constrain|>json]<|message|>BODY`
 * ended by `<|end|>`, `<|call|>` or `<|return|>`, the next one opened by
 * `<|start|>assistant`. analysis is reasoning, final and commentary
 * without a recipient are content, a message to functions.NAME is a call
 * whose arguments are its JSON body.
 *
 * A push decoder; the batch function feeds the whole input at once through
 * it, so batch and streaming give one result, whatever the split (a special
 * token split at any byte decodes the same).
 */
#ifndef TOOLWIRE_HARMONY_H
#define TOOLWIRE_HARMONY_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A Harmony decoder: opaque, from tw_harmony_dec_new, freed by
 * tw_harmony_dec_free. One decode at a time; reset starts the next one. It
 * holds at most max_input_bytes of input. Every function but _free takes a
 * decoder from _new (never NULL). */
typedef struct tw_harmony_dec tw_harmony_dec;

/*
 * A decoder with options `o` (NULL: defaults; copied, the tools it points at
 * must stay valid until finish). o->forced_open: the prompt ended inside an
 * analysis message (`…<|channel|>analysis<|message|>`), so the output starts
 * as reasoning. `fn` may be NULL (no events); `user` is passed to it. NULL
 * when memory runs out.
 */
TW_API tw_harmony_dec *tw_harmony_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/*
 * Push buf[0, len) (not kept). Events fire from inside, for what the bytes
 * so far decide. Input past max_input_bytes is ignored (error
 * input_too_large at finish). Returns TW_OK, TW_ERR_NOMEM, TW_ERR_STATE after
 * finish, or the status a callback stopped the decode with; after a failure
 * the decode is over (finish gives an empty result).
 */
TW_API tw_status tw_harmony_dec_feed(tw_harmony_dec *d, const char *buf, size_t len);
/*
 * End of input: what is still open is resolved (an unterminated call
 * message by o->finish, docs/formats/harmony.md) and the result moved to
 * *out (need not be initialised; free it with tw_result_free). On failure
 * (TW_ERR_NOMEM; TW_ERR_STATE for a second finish; a callback's status)
 * *out is valid and empty.
 */
TW_API tw_status tw_harmony_dec_finish(tw_harmony_dec *d, tw_result *out);
/* Start a new decode with `o`, `fn`, `user` (as for _new), whatever state d
 * is in; its buffers' allocations are kept. Returns TW_OK. */
TW_API tw_status tw_harmony_dec_reset(tw_harmony_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                      void *user);
/* Give back a result the caller is done with (r may be NULL): freed and
 * zeroed. */
TW_API void tw_harmony_dec_recycle(tw_harmony_dec *d, tw_result *r);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_harmony_dec_free(tw_harmony_dec *d);

/*
 * Batch: decode buf[0, len) (any bytes) as one Harmony output with options
 * `o` (NULL: defaults) into *out (need not be initialised; free with
 * tw_result_free). TW_OK with diagnostics in out->errors / out->warnings,
 * or TW_ERR_NOMEM with *out valid and empty.
 */
TW_API tw_status tw_harmony_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                          tw_result *out);

#ifdef __cplusplus
}
#endif

#endif
