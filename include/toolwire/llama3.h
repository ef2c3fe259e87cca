/*
 * Llama 3.x (3.1, 3.2, 3.3) model output (docs/formats/llama3.md): a
 * message that is one or more JSON calls {"name": N, "parameters": {…}}
 * (also with "type": "function", or "arguments" for "parameters")
 * separated by ';' or white space; a <|python_tag|> section holding JSON
 * calls, a built-in call NAME.call(key="value", …) or code for
 * code_interpreter; prose (and JSON that is not a call) as content; the end
 * tokens <|eot_id|>, <|eom_id|> and <|end_of_text|> end the message.
 *
 * The encoders and readers of the same dialect: the output encoder
 * (a result as the model writes it, "llama3") and the prompt encoders and
 * readers of the Llama 3.1 and 3.3 chat templates ("llama-3.1-prompt",
 * "llama-3.3-prompt").
 *
 * The decoder is a push decoder: any split of the input gives the result
 * of the whole input at once. Memory it holds is bounded by
 * max_input_bytes (a message that may still be a call is held whole).
 */
#ifndef TOOLWIRE_LLAMA3_H
#define TOOLWIRE_LLAMA3_H

#include "toolwire/encode.h"
#include "toolwire/neutral.h"
#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The decoder's state: opaque, from tw_llama3_dec_new, freed by
 * tw_llama3_dec_free. Every function but _free takes a decoder from _new
 * (never NULL). */
typedef struct tw_llama3_dec tw_llama3_dec;

/*
 * A decoder. `o` may be NULL (defaults); it is copied, but the tools it
 * points at must stay valid until finish. `fn` may be NULL (no events);
 * `user` is passed to it as is (a status other than TW_OK from fn stops the
 * decode). Returns NULL when memory runs out.
 */
TW_API tw_llama3_dec *tw_llama3_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/*
 * Push buf[0, len) (not kept; any split gives the same result); events fire
 * from inside. Input past max_input_bytes is ignored (error
 * input_too_large at finish). Returns TW_OK, TW_ERR_NOMEM, TW_ERR_STATE
 * after finish, or the status a callback stopped the decode with.
 */
TW_API tw_status tw_llama3_dec_feed(tw_llama3_dec *d, const char *buf, size_t len);
/*
 * End of input: what is still held is decided and the result moved to *out
 * (need not be initialised; free it with tw_result_free, or hand it to
 * tw_llama3_dec_recycle). On failure *out is valid and empty.
 */
TW_API tw_status tw_llama3_dec_finish(tw_llama3_dec *d, tw_result *out);
/* Start the next decode on the same allocations, with new options, callback
 * and user pointer (the same rules as _new). Returns TW_OK. */
TW_API tw_status tw_llama3_dec_reset(tw_llama3_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                     void *user);
/* Free a result this decoder gave (r may be NULL); r is left empty. */
TW_API void tw_llama3_dec_recycle(tw_llama3_dec *d, tw_result *r);
/* Free the decoder (NULL is a no-op). */
TW_API void tw_llama3_dec_free(tw_llama3_dec *d);
/*
 * Batch: the whole model output buf[0, len) at once (o may be NULL). *out
 * need not be initialised; on failure it is valid and empty. Returns TW_OK,
 * TW_ERR_NOMEM or TW_ERR_INVALID (buf NULL with len > 0, out NULL).
 */
TW_API tw_status tw_llama3_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_result *out);

/*
 * A result as a Llama 3.x model writes it (the output encoder "llama3"):
 * content, then, when there are calls, "<|python_tag|>" (only when there is
 * content before it) and the calls as {"name": N, "parameters": ARGS}
 * joined by "; ". What the dialect cannot carry (thinking, call ids other
 * than the ones a decoder makes, content that would read back as markup)
 * is written as it is and named in not_carried warnings (o->warnings).
 * Appends to out; on failure out is as it was. o may be NULL.
 */
TW_API tw_status tw_llama3_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/*
 * The prompt of the Llama 3.1 (llama-3.1-prompt) and Llama 3.3
 * (llama-3.3-prompt) chat templates for a neutral request, byte for byte
 * what the template renders with Hugging Face's Jinja settings: the
 * <|begin_of_text|> token, the system header (Environment: ipython,
 * Tools, the dates), the tools (in the first user message unless
 * options.tools_in_user_message is false), the turns, history calls as
 * JSON (or NAME.call(...) for a tool in options.builtin_tools) and tool
 * results as ipython turns. options.builtin_tools, .tools_in_user_message,
 * .date_string and .add_generation_prompt are carried; what the template
 * drops (content of an assistant turn with a call, ids, reasoning, …) is
 * named in not_carried warnings. A request the template refuses (several
 * calls in one turn, tools in the user message without one) is
 * TW_ERR_INVALID with the template's message in a warning. Appends to out;
 * on failure out is as it was. o may be NULL.
 */
TW_API tw_status tw_llama31_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                          tw_buf *out);
TW_API tw_status tw_llama33_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                          tw_buf *out);

/*
 * A rendered Llama 3.1 / 3.3 prompt read back into a neutral request (the
 * contract of request.h): the system header's options, the tools, the
 * turns, history calls with generated ids call_1, call_2, … and each
 * ipython turn as the result of the call before it. On failure *out is
 * empty and err (may be NULL) says where and why.
 */
TW_API tw_status tw_llama31_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                          tw_request *out, tw_error *err);
TW_API tw_status tw_llama33_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                          tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
