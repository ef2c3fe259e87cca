/*
 * GLM-4.5/4.6/4.7 (Z.ai): the model-output dialect, its output encoder and
 * the prompt encoders and readers of the GLM-4.6 and GLM-4.7 chat templates
 * (docs/formats/glm.md).
 *
 * The model writes content, reasoning in <think>…</think> and calls
 *
 *   <tool_call>NAME
 *   <arg_key>KEY</arg_key>
 *   <arg_value>VALUE</arg_value>
 *   </tool_call>
 *
 * (GLM-4.5/4.6 with the line breaks, GLM-4.7 without). A value is a string
 * as written or, for a parameter the tool's schema types otherwise, JSON.
 * The dialect has no call ids: calls are numbered call_1, call_2, … .
 */
#ifndef TOOLWIRE_GLM_H
#define TOOLWIRE_GLM_H

#include "toolwire/encode.h"
#include "toolwire/neutral.h"
#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A GLM push decoder: opaque, allocated by tw_glm_dec_new and freed by
 * tw_glm_dec_free. One decoder serves one decode at a time; after finish
 * (or a failure) tw_glm_dec_reset starts the next one on the same
 * allocations. It holds at most max_input_bytes of input (the bytes of an
 * open call until its </tool_call>, fewer otherwise). Every function but
 * _free takes a decoder from _new (never NULL).
 */
typedef struct tw_glm_dec tw_glm_dec;

/*
 * A decoder. `o` may be NULL (defaults); it is copied, but the tools it
 * points at must stay valid until finish (their schemas type the values).
 * o->forced_open: the prompt opened the reasoning (the GLM-4.7 generation
 * prompt ends in <think>), the output starts inside it (a repeated <think>
 * at its start is the same opener). `fn` may be NULL (no events); `user` is
 * passed to it as is (a status other than TW_OK from fn stops the decode).
 * Returns NULL when memory runs out.
 */
TW_API tw_glm_dec *tw_glm_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/*
 * Push buf[0, len) (not kept; any split, a special token's included, gives
 * the same result); events fire from inside (a call when its </tool_call>
 * comes). Input past max_input_bytes is ignored (error input_too_large at
 * finish). Returns TW_OK, TW_ERR_NOMEM, TW_ERR_STATE after finish, or the
 * status a callback stopped the decode with; after a failure the decode is
 * over (finish gives an empty result).
 */
TW_API tw_status tw_glm_dec_feed(tw_glm_dec *d, const char *buf, size_t len);
/*
 * End of input: what is still open becomes its diagnostic (an unterminated
 * call is an error and no call, an unterminated <think> an error with its
 * reasoning kept) and the result moves to *out (need not be initialised;
 * the caller frees it with tw_result_free). finish_reason: "tool_calls"
 * when a call was accepted, else o->finish or "stop". On failure
 * (TW_ERR_NOMEM; TW_ERR_STATE for a second finish; a callback's status)
 * *out is valid and empty.
 */
TW_API tw_status tw_glm_dec_finish(tw_glm_dec *d, tw_result *out);
/* Start a new decode with `o`, `fn` and `user` (as for tw_glm_dec_new),
 * whatever state d is in; its buffers' allocations are kept. TW_OK. */
TW_API tw_status tw_glm_dec_reset(tw_glm_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                  void *user);
/* Give back a result the caller is done with (r may be NULL): freed and
 * zeroed. */
TW_API void tw_glm_dec_recycle(tw_glm_dec *d, tw_result *r);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_glm_dec_free(tw_glm_dec *d);

/* Batch: new, feed everything, finish (the contract of decode.h: buf[0,
 * len) is not kept, `o` may be NULL, *out need not be initialised and is
 * valid and empty on every failure). */
TW_API tw_status tw_glm_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                      tw_result *out);

/*
 * Output encoder ("glm"): a neutral result as GLM-4.5/4.6 write it:
 * <think>reasoning</think>, a line break and the content, then each call
 * on its own lines (<tool_call>NAME, one <arg_key> and one <arg_value> line
 * per argument, </tool_call>): a string value as it is, any other as JSON.
 * not_carried warnings for what the decoder would read back otherwise: a
 * special token in content, reasoning, a name or a string value, white
 * space at the ends of content or reasoning, a call id other than the
 * call_<n> the decoder numbers, arguments that are not an object, a value
 * that is not a string (typed back only by the decoder's schema), a
 * finish_reason the decoder would not give, a thinking signature. Appends
 * to out; the encode.h contract.
 */
TW_API tw_status tw_glm_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/*
 * Prompt encoders ("glm-4.6-prompt", "glm-4.7-prompt"): a neutral request
 * as the GLM-4.6 and GLM-4.7 chat templates render it, byte for byte.
 * request.options: add_generation_prompt, enable_thinking (and, 4.7,
 * clear_thinking). What the template drops (call ids, the reasoning of
 * turns before the last user turn, …) warns not_carried. Appends to out.
 */
TW_API tw_status tw_glm46_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);
TW_API tw_status tw_glm47_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

/*
 * Prompt readers ("glm-4.6-prompt", "glm-4.7-prompt"): a rendered prompt
 * back to a neutral request (the tools, the turns, the history calls, each
 * result, the options the prompt shows). The contract of request.h:
 * bounded by o->limits (o may be NULL); on failure *out is empty and err
 * (may be NULL) says where (TW_ERR_PARSE).
 */
TW_API tw_status tw_glm46_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                                      tw_request *out, tw_error *err);
TW_API tw_status tw_glm47_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                                      tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
