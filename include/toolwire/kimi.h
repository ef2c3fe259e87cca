/*
 * Kimi K2 (Moonshot Kimi K2 Instruct and K2 Thinking): the model-output
 * dialect, its output encoder and its prompt encoder and reader
 * (docs/formats/kimi-k2.md).
 *
 * The model writes content, reasoning in <think>…</think> (K2 Thinking) and
 * a tool-call section:
 *
 *   <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:INDEX
 *   <|tool_call_argument_begin|>{json}<|tool_call_end|>…<|tool_calls_section_end|>
 *
 * The call's id is functions.NAME:INDEX as written (the name is read from
 * it); the prompt refers back to it in "## Return of functions.NAME:INDEX".
 */
#ifndef TOOLWIRE_KIMI_H
#define TOOLWIRE_KIMI_H

#include "toolwire/encode.h"
#include "toolwire/neutral.h"
#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A Kimi K2 push decoder: opaque, allocated by tw_kimi_dec_new and freed by
 * tw_kimi_dec_free. One decoder serves one decode at a time; after finish
 * (or a failure) tw_kimi_dec_reset starts the next one on the same
 * allocations. It holds at most max_input_bytes of input (the bytes of an
 * open call until its <|tool_call_end|>, fewer otherwise). Every function
 * but _free takes a decoder from _new (never NULL).
 */
typedef struct tw_kimi_dec tw_kimi_dec;

/*
 * A decoder. `o` may be NULL (defaults); it is copied, but the tools it
 * points at must stay valid until finish. o->forced_open: the prompt opened
 * the reasoning, the output starts inside it (a repeated <think> at its
 * start is the same opener). `fn` may be NULL (no events); `user` is passed
 * to it as is (a status other than TW_OK from fn stops the decode). Returns
 * NULL when memory runs out.
 */
TW_API tw_kimi_dec *tw_kimi_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/*
 * Push buf[0, len) (not kept; any split, a special token's included, gives
 * the same result); events fire from inside. Input past max_input_bytes is
 * ignored (error input_too_large at finish). Returns TW_OK, TW_ERR_NOMEM,
 * TW_ERR_STATE after finish, or the status a callback stopped the decode
 * with; after a failure the decode is over (finish gives an empty result).
 */
TW_API tw_status tw_kimi_dec_feed(tw_kimi_dec *d, const char *buf, size_t len);
/*
 * End of input: what is still open becomes its diagnostic (an unterminated
 * call is an error and no call, an unterminated <think> an error with its
 * reasoning kept, a section without <|tool_calls_section_end|> a warning)
 * and the result moves to *out (need not be initialised; the caller frees
 * it with tw_result_free). finish_reason: "tool_calls" when a call was
 * accepted, else o->finish or "stop". On failure (TW_ERR_NOMEM;
 * TW_ERR_STATE for a second finish; a callback's status) *out is valid and
 * empty.
 */
TW_API tw_status tw_kimi_dec_finish(tw_kimi_dec *d, tw_result *out);
/* Start a new decode with `o`, `fn` and `user` (as for tw_kimi_dec_new),
 * whatever state d is in; its buffers' allocations are kept. TW_OK. */
TW_API tw_status tw_kimi_dec_reset(tw_kimi_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                   void *user);
/* Give back a result the caller is done with (r may be NULL): freed and
 * zeroed. */
TW_API void tw_kimi_dec_recycle(tw_kimi_dec *d, tw_result *r);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_kimi_dec_free(tw_kimi_dec *d);

/* Batch: new, feed everything, finish (the contract of decode.h: buf[0,
 * len) is not kept, `o` may be NULL, *out need not be initialised and is
 * valid and empty on every failure). */
TW_API tw_status tw_kimi_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_result *out);

/*
 * Output encoder ("kimi-k2"): a neutral result as the model writes it:
 * <think>reasoning</think>, the content, and a call section when there are
 * calls. A call id of the form functions.NAME:INDEX naming the call's tool
 * is kept, any other is written as functions.NAME:<position> with a
 * not_carried warning; content or reasoning the decoder would read back
 * differently (a special token in it, white space at its ends) warns
 * not_carried too. Appends to out; the encode.h contract.
 */
TW_API tw_status tw_kimi_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/*
 * Prompt encoder ("kimi-k2-prompt"): a neutral request as the Kimi K2
 * Instruct chat template renders it, byte for byte. History calls are
 * written with the template's ids functions.NAME:<count> (the request's
 * own ids and the results' tool_call_id are not carried: not_carried when
 * they differ); results are "## Return of <id>" in call order.
 * request.options: add_generation_prompt. Appends to out.
 */
TW_API tw_status tw_kimi_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

/*
 * Prompt reader ("kimi-k2-prompt"): a rendered Kimi K2 Instruct prompt back
 * to a neutral request (the tools, the turns, the history calls with their
 * ids functions.NAME:INDEX, each result's tool_call_id from its "## Return
 * of" line, add_generation_prompt). The contract of request.h: bounded by
 * o->limits (o may be NULL); on failure *out is empty and err (may be NULL)
 * says where (TW_ERR_PARSE).
 */
TW_API tw_status tw_kimi_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                                     tw_request *out, tw_error *err);

/*
 * The same pair for the Kimi K2 Thinking template ("kimi-k2-thinking-prompt"):
 * every assistant turn starts with <think>…</think>, which holds the
 * message's thinking only after the last assistant message without calls
 * (earlier thinking is not carried: the template writes <think></think>);
 * the default system turn has no line break after it.
 */
TW_API tw_status tw_kimi_thinking_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                                tw_buf *out);
TW_API tw_status tw_kimi_thinking_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                                              tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
