/*
 * The prompt-only proxy (docs/formats/proxy.md): a backend that
 * speaks plain text to its model, so tools travel in a "Tool-Use Protocol"
 * prompt and calls come back as <tool_call> blocks.
 *
 *   proxy-prompt  encoder: neutral request -> the proxy's prompt text
 *   proxy         decoder: model output -> neutral result (the Hermes rules
 *                 of docs/text-formats.md, plus <tool_result> blocks, which
 *                 a model must never write: they are cut out and reported)
 */
#ifndef TOOLWIRE_PROXY_H
#define TOOLWIRE_PROXY_H

#include "toolwire/encode.h"
#include "toolwire/text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest <tool_result ...> opening tag recognised (bytes, with < and >). */
#define TW_PROXY_TAG_MAX 512

/*
 * The streaming decoder: opaque, allocated by tw_proxy_dec_new and freed by
 * tw_proxy_dec_free; a layer that removes <tool_result> blocks in front of
 * the Hermes decoder. Memory: the Hermes decoder's bounds, one opening tag
 * (TW_PROXY_TAG_MAX) and 16 bytes per removed block. After finish (or a
 * failure) tw_proxy_dec_reset starts the next decode on the same buffers.
 * Every function but _free takes a decoder from _new (never NULL).
 */
typedef struct tw_proxy_dec tw_proxy_dec;

/* A decoder; `o` may be NULL (defaults) and is copied (the tools it points
 * at must stay valid until finish); `fn` may be NULL (no events), `user` is
 * passed to it (tw_event_fn: a status other than TW_OK stops the decode).
 * NULL when memory runs out. */
TW_API tw_proxy_dec *tw_proxy_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/* Push bytes (not kept; any split). TW_OK, TW_ERR_NOMEM, TW_ERR_STATE
 * after finish, or the status a callback stopped the decode with; after a
 * failure the decode is over. */
TW_API tw_status tw_proxy_dec_feed(tw_proxy_dec *d, const char *buf, size_t len);
/* End of input: moves the result to *out (need not be initialised; free
 * with tw_result_free). On failure (TW_ERR_NOMEM; TW_ERR_STATE for a second
 * finish; a callback's status) *out is valid and empty. The decoder keeps
 * its buffers for a reset. */
TW_API tw_status tw_proxy_dec_finish(tw_proxy_dec *d, tw_result *out);
/* Start a new decode with `o`, `fn`, `user` (as for new), whatever state d
 * is in; the buffers' allocations are kept. Returns TW_OK. */
TW_API tw_status tw_proxy_dec_reset(tw_proxy_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                    void *user);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_proxy_dec_free(tw_proxy_dec *d);
/* Batch: the push decoder over the whole input (the contract of decode.h). */
TW_API tw_status tw_proxy_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                        tw_result *out);

/*
 * The proxy's prompt for `r` (see docs/formats/proxy.md for the exact
 * text). Appends to out; out unchanged on failure; TW_ERR_LIMIT past
 * max_output_bytes.
 */
TW_API tw_status tw_proxy_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

/* The tool_choice policy sentence of the prompt (unset reads as auto);
 * `name` is the named tool. Appends to out. */
TW_API tw_status tw_proxy_policy_write(tw_buf *out, tw_choice choice, const char *name);

#ifdef __cplusplus
}
#endif
#endif
