/*
 * Gemma 4 (Google): the model-output dialect and its output encoder
 * (docs/formats/gemma4.md).
 *
 * The model writes reasoning in its thought channel
 * (<|channel>thought\n…<channel|>), content, and calls
 *
 *   <|tool_call>call:NAME{key:VALUE,…}<tool_call|>
 *
 * keys bare, strings quoted <|"|>…<|"|>, numbers and booleans bare, objects
 * and lists in the same brace syntax. A bare value is typed by the tool's
 * schema; a quoted one is a string. The dialect has no call ids: calls are
 * numbered call_1, call_2, … .
 */
#ifndef TOOLWIRE_GEMMA_H
#define TOOLWIRE_GEMMA_H

#include "toolwire/encode.h"
#include "toolwire/neutral.h"
#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A Gemma 4 push decoder: opaque, allocated by tw_gemma_dec_new and freed by
 * tw_gemma_dec_free. One decoder serves one decode at a time; after finish
 * (or a failure) tw_gemma_dec_reset starts the next one on the same
 * allocations. It holds at most max_input_bytes of input (the bytes of an
 * open call until its <tool_call|>, fewer otherwise). Every function but
 * _free takes a decoder from _new (never NULL).
 */
typedef struct tw_gemma_dec tw_gemma_dec;

/*
 * A decoder. `o` may be NULL (defaults); it is copied, but the tools it
 * points at must stay valid until finish (their schemas type the values).
 * o->forced_open: the prompt opened the thought channel (it ends in
 * <|channel>thought), the output starts inside it (a repeated
 * <|channel>thought at its start is the same opener). `fn` may be NULL (no events); `user` is
 * passed to it as is (a status other than TW_OK from fn stops the decode).
 * Returns NULL when memory runs out.
 */
TW_API tw_gemma_dec *tw_gemma_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/*
 * Push buf[0, len) (not kept; any split, a special token's included, gives
 * the same result); events fire from inside (a call when its <tool_call|>
 * comes). Input past max_input_bytes is ignored (error input_too_large at
 * finish). Returns TW_OK, TW_ERR_NOMEM, TW_ERR_STATE after finish, or the
 * status a callback stopped the decode with; after a failure the decode is
 * over (finish gives an empty result).
 */
TW_API tw_status tw_gemma_dec_feed(tw_gemma_dec *d, const char *buf, size_t len);
/*
 * End of input: what is still open becomes its diagnostic (an unterminated
 * call is an error and no call, an unterminated thought channel an error with its
 * reasoning kept) and the result moves to *out (need not be initialised;
 * the caller frees it with tw_result_free). finish_reason: "tool_calls"
 * when a call was accepted, else o->finish or "stop". On failure
 * (TW_ERR_NOMEM; TW_ERR_STATE for a second finish; a callback's status)
 * *out is valid and empty.
 */
TW_API tw_status tw_gemma_dec_finish(tw_gemma_dec *d, tw_result *out);
/* Start a new decode with `o`, `fn` and `user` (as for tw_gemma_dec_new),
 * whatever state d is in; its buffers' allocations are kept. TW_OK. */
TW_API tw_status tw_gemma_dec_reset(tw_gemma_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                    void *user);
/* Give back a result the caller is done with (r may be NULL): freed and
 * zeroed. */
TW_API void tw_gemma_dec_recycle(tw_gemma_dec *d, tw_result *r);
/* Free the decoder and everything it holds; NULL does nothing. */
TW_API void tw_gemma_dec_free(tw_gemma_dec *d);

/* Batch: new, feed everything, finish (the contract of decode.h: buf[0,
 * len) is not kept, `o` may be NULL, *out need not be initialised and is
 * valid and empty on every failure). */
TW_API tw_status tw_gemma_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                        tw_result *out);

/*
 * Output encoder ("gemma4"): a neutral result as Gemma 4 writes it:
 * <|channel>thought\nreasoning<channel|> (always, empty when there is
 * none: under forced_open it is the same opener), the content, then each call as
 * <|tool_call>call:NAME{key:VALUE,…}<tool_call|> (keys in order, strings quoted <|"|>…<|"|>,
 * numbers, booleans and null bare, objects and lists in the same brace syntax). not_carried
 * warnings for what the decoder would read back otherwise: a special token in content, reasoning, a
 * name, a key or a string, white space at the ends of content or reasoning, a call id other than
 * the call_<n> the decoder numbers, arguments that are not an object, a finish_reason the decoder
 * would not give, a thinking signature. Appends to out; the encode.h
 * contract.
 */
TW_API tw_status tw_gemma_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/*
 * Prompt encoder ("gemma-4-prompt"): a neutral request as the Gemma 4 chat
 * template renders it, byte for byte (docs/formats/gemma4.md, "The
 * prompt"): <bos>, the system turn (<|think|>, the first system message,
 * each tool as <|tool>declaration:NAME{…}<tool|> in the brace syntax), the
 * turns, history calls and their results in the brace syntax (keys sorted,
 * Python's spellings), the generation prompt. request.options:
 * add_generation_prompt, enable_thinking. What the template does not write
 * warns not_carried (call ids, reasoning it drops, results it drops, schema
 * keywords the declarations leave out, white space it strips, …). Refused
 * (TW_ERR_INVALID, the reason in a not_carried warning) where the template
 * fails: no messages, a result whose tool_call_id names no call of the
 * turn; a schema it cannot spell (a type that is no string or list of
 * plain strings, a description that is no string); text or a name holding
 * one of the prompt's special tokens (no reader could take it back).
 * Appends to out.
 */
TW_API tw_status tw_gemma_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

/*
 * Prompt reader ("gemma-4-prompt"): a rendered Gemma 4 prompt back to a
 * neutral request: the system message, the tools (their schemas from the
 * declarations, types in lower case), the turns, the history calls (ids
 * call_<n> in order), each result's name and the tool_call_id of the call
 * of that name it answers, enable_thinking and add_generation_prompt; in a
 * model turn, what does not read as a thought channel, call or result is
 * kept as content (with a warning). The contract of request.h: bounded by
 * o->limits (o may be NULL); on failure *out is empty and err (may be
 * NULL) says where (TW_ERR_PARSE, TW_ERR_LIMIT).
 */
TW_API tw_status tw_gemma_prompt_read(const char *buf, size_t len, const tw_decode_opts *o,
                                      tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif

#endif
