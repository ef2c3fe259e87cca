/*
 * DeepSeek V3.2: the model's output dialect DSML (dsml), its output encoder,
 * and the prompt of its chat template (deepseek-v3.2-prompt, encoder and
 * reader). Rules: docs/formats/dsml.md.
 *
 * The output: reasoning closed by </think> (the prompt opens it when
 * thinking is on: decode with forced_open), content, and tool calls in a
 * <｜DSML｜function_calls> ... </｜DSML｜function_calls> block of
 * <｜DSML｜invoke name="NAME"> ... </｜DSML｜invoke> elements, each holding
 * <｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>
 * (string="true": V is the string itself; "false": V is JSON).
 */
#ifndef TOOLWIRE_DSML_H
#define TOOLWIRE_DSML_H

#include "toolwire/encode.h"
#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A push decoder of the output: opaque, from tw_dsml_dec_new, freed by
 * tw_dsml_dec_free. `o` may be NULL (defaults) and is copied (the tools it
 * points at must stay valid until finish: they type the values written
 * without a string attribute and judge every call); o->forced_open: the
 * prompt ended with <think>, so the output starts inside the reasoning. `fn`
 * may be NULL (no events). NULL when memory runs out.
 */
typedef struct tw_dsml_dec tw_dsml_dec;
TW_API tw_dsml_dec *tw_dsml_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/* Push buf[0, len) (not kept; a special token split at any byte decodes the
 * same). TW_OK, TW_ERR_NOMEM, TW_ERR_STATE after finish, or the status a
 * callback stopped the decode with (the decode is then over). */
TW_API tw_status tw_dsml_dec_feed(tw_dsml_dec *d, const char *buf, size_t len);
/* End of input: what is still open is resolved (an unterminated reasoning,
 * block or invoke is an error diagnostic, never a call) and the result moved
 * to *out (need not be initialised; free it with tw_result_free). On failure
 * *out is valid and empty; TW_ERR_STATE for a second finish. */
TW_API tw_status tw_dsml_dec_finish(tw_dsml_dec *d, tw_result *out);
/* Start a new decode on the same allocations, whatever state d is in. */
TW_API tw_status tw_dsml_dec_reset(tw_dsml_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                   void *user);
/* Free a result the caller is done with (r may be NULL; left zeroed). */
TW_API void tw_dsml_dec_recycle(tw_dsml_dec *d, tw_result *r);
/* Free the decoder; NULL does nothing. */
TW_API void tw_dsml_dec_free(tw_dsml_dec *d);
/* Batch: one feed and a finish (the contract of decode.h). */
TW_API tw_status tw_dsml_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_result *out);

/*
 * The output the model writes for a result (encoder dsml): <think>, the
 * reasoning, </think>, the content, and the calls in one function_calls
 * block as the chat template writes history calls (a string argument with
 * string="true" as is, any other with string="false" as Python's json.dumps
 * prints it). Appended to out (the contract of encode.h); a call id, a
 * redacted thinking and a finish_reason are not carried (not_carried
 * warnings). TW_ERR_INVALID for a value the dialect cannot write back as it
 * was: content or reasoning holding a marker the decoder reads, a name or a
 * key the template's attribute cannot hold, a string value holding a closing
 * marker, arguments that are not an object.
 */
TW_API tw_status tw_dsml_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/*
 * The prompt of the DeepSeek V3.2 chat template (deepseek-v3.2-prompt), byte
 * for byte what the template renders: every system message joined at the
 * start, then the tools (## Tools, each function's JSON a line in
 * <functions>), <｜User｜> turns, assistant turns opened by <｜Assistant｜>
 * after a user turn (by nothing after results), with <think>REASONING</think>
 * for a turn after the last user message when thinking is on (options.thinking,
 * else options.enable_thinking) and </think> otherwise, history calls as a
 * DSML function_calls block (string="true" and the string as is, or
 * string="false" and Python's json.dumps), each call turn's results in one
 * <function_results> block, and with options.add_generation_prompt the
 * opening of the next turn (<think>, or <think></think> with thinking off).
 * What the template cannot carry (call ids, reasoning it does not write, the
 * place of a system message, ...) is a not_carried warning. TW_ERR_INVALID,
 * with the template's own message in a not_carried warning, for call
 * arguments that are not an object (the template fails on them). The
 * contract of encode.h.
 */
TW_API tw_status tw_dsml_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);
/*
 * The prompt read back into a request (reader deepseek-v3.2-prompt), with
 * the contract of request.h: call ids are generated (call_1, ...), each
 * result of a <function_results> block answers the calls of the assistant
 * turn before it in order, a string="false" value is read as JSON, and
 * options.add_generation_prompt and options.thinking are set when the prompt
 * shows them. Text the template cannot have written (a block not closed as
 * it closes them, reasoning before the last user turn, turns that disagree
 * on thinking) is TW_ERR_INVALID with its byte offset.
 */
TW_API tw_status tw_dsml_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
