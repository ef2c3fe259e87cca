/*
 * MiniMax-M2: the model-output dialect, its output encoder and its prompt
 * encoder and reader (docs/formats/minimax-m2.md).
 *
 * The model writes reasoning (the prompt opens it with <think>), </think>,
 * content and a tool-call section whose arguments are markup:
 *
 *   <minimax:tool_call>
 *   <invoke name="NAME">
 *   <parameter name="KEY">VALUE</parameter>
 *   </invoke>
 *   </minimax:tool_call>
 *
 * Each VALUE is typed by the tool's schema (a string parameter keeps the
 * text as written); the model writes no call ids.
 */
#ifndef TOOLWIRE_MINIMAX_H
#define TOOLWIRE_MINIMAX_H

#include "toolwire/encode.h"
#include "toolwire/neutral.h"
#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A MiniMax-M2 push decoder: opaque, allocated by tw_minimax_dec_new and
 * freed by tw_minimax_dec_free. One decoder serves one decode at a time;
 * after finish (or a failure) tw_minimax_dec_reset starts the next one on
 * the same allocations. It holds at most max_input_bytes of input (the
 * bytes of an open invoke until it ends, fewer otherwise). Every function
 * but _free takes a decoder from _new (never NULL).
 */
typedef struct tw_minimax_dec tw_minimax_dec;

/*
 * A decoder. `o` may be NULL (defaults); it is copied, but the tools it
 * points at must stay valid until finish (they type the parameter values).
 * o->forced_open: the prompt opened the reasoning (the chat template's
 * generation prompt ends with <think>), the output starts inside it (a
 * repeated <think> at its start is the same opener). `fn` may be NULL (no
 * events); `user` is passed to it as is (a status other than TW_OK from fn
 * stops the decode). Returns NULL when memory runs out.
 */
TW_API tw_minimax_dec *tw_minimax_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/*
 * Push buf[0, len) (not kept; any split, a marker's included, gives the
 * same result); events fire from inside. Input past max_input_bytes is
 * ignored (error input_too_large at finish). Returns TW_OK, TW_ERR_NOMEM,
 * TW_ERR_STATE after finish, or the status a callback stopped the decode
 * with; after a failure the decode is over (finish gives an empty result).
 */
TW_API tw_status tw_minimax_dec_feed(tw_minimax_dec *d, const char *buf, size_t len);
/*
 * End of input: what is still open becomes its diagnostic (an open invoke
 * is an error and no call, an unterminated <think> an error with its
 * reasoning kept, a section without </minimax:tool_call> a warning) and the
 * result moves to *out (need not be initialised; the caller frees it with
 * tw_result_free). finish_reason: "tool_calls" when a call was accepted,
 * else o->finish or "stop". On failure (TW_ERR_NOMEM; TW_ERR_STATE for a
 * second finish; a callback's status) *out is valid and empty.
 */
TW_API tw_status tw_minimax_dec_finish(tw_minimax_dec *d, tw_result *out);
/* Start a new decode with `o`, `fn` and `user` (as for tw_minimax_dec_new),
 * whatever state d is in; its buffers' allocations are kept. TW_OK. */
TW_API tw_status tw_minimax_dec_reset(tw_minimax_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                      void *user);
/* Give back a result the caller is done with (r may be NULL): freed and
 * zeroed. */
TW_API void tw_minimax_dec_recycle(tw_minimax_dec *d, tw_result *r);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_minimax_dec_free(tw_minimax_dec *d);

/* Batch: new, feed everything, finish (the contract of decode.h: buf[0,
 * len) is not kept, `o` may be NULL, *out need not be initialised and is
 * valid and empty on every failure). */
TW_API tw_status tw_minimax_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                          tw_result *out);

/*
 * Output encoder ("minimax-m2"): a neutral result as the model writes it:
 * <think>\nreasoning\n</think>\n\n, the content, and a call section when
 * there are calls, one invoke per call, a string value as written, any
 * other value as compact JSON. What the decoder would read back otherwise
 * warns not_carried: a call id other than call_<position> (the model writes
 * none), a marker in a value, content or reasoning, white space at the ends
 * of content or reasoning, a name holding a quote, '<', '>' or a control
 * character, a non-string value (typed back only under the tool's schema),
 * a finish_reason the decoder would not derive, signatures, diagnostics.
 * Appends to out; the encode.h contract.
 */
TW_API tw_status tw_minimax_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/*
 * Prompt encoder ("minimax-m2-prompt"): a neutral request as the MiniMax-M2
 * chat template renders it, byte for byte. Reasoning of an assistant turn
 * is written only after the last user turn (earlier reasoning is not
 * carried); call ids and the results' tool_call_id are not written (not
 * carried). request.options: add_generation_prompt (default true),
 * model_identity (the default system text), current_date and
 * current_location (lines of the system turn). Appends to out.
 */
TW_API tw_status tw_minimax_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                          tw_buf *out);

/*
 * Prompt reader ("minimax-m2-prompt"): a rendered MiniMax-M2 prompt back
 * to a neutral request (the system turn, the tools, the turns, the history
 * calls with ids call_<n> in order and each result's tool_call_id from the
 * call it answers, add_generation_prompt). The contract of request.h:
 * bounded by o->limits (o may be NULL); on failure *out is empty and err
 * (may be NULL) says where (TW_ERR_PARSE).
 */
TW_API tw_status tw_minimax_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                                        tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
