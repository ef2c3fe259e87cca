/*
 * DeepSeek V3.1 (and V3.1-Terminus): the model's output dialect
 * (deepseek-v3.1), its output encoder, and the prompt of its chat template
 * (deepseek-v3.1-prompt, encoder and reader). Rules:
 * docs/formats/deepseek-v3.1.md.
 *
 * The output: reasoning closed by </think> (the prompt opens it when
 * thinking is on: decode with forced_open), content, and tool calls in a
 * <｜tool▁calls▁begin｜> ... <｜tool▁calls▁end｜> section of
 * <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>.
 */
#ifndef TOOLWIRE_DEEPSEEK_H
#define TOOLWIRE_DEEPSEEK_H

#include "toolwire/encode.h"
#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A push decoder of the output: opaque, from tw_deepseek_dec_new, freed by
 * tw_deepseek_dec_free. `o` may be NULL (defaults) and is copied (the tools
 * it points at must stay valid until finish); o->forced_open: the prompt
 * ended with <think>, so the output starts inside the reasoning. `fn` may
 * be NULL (no events). NULL when memory runs out.
 */
typedef struct tw_deepseek_dec tw_deepseek_dec;
TW_API tw_deepseek_dec *tw_deepseek_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/* Push buf[0, len) (not kept; a special token split at any byte decodes the
 * same). TW_OK, TW_ERR_NOMEM, TW_ERR_STATE after finish, or the status a
 * callback stopped the decode with (the decode is then over). */
TW_API tw_status tw_deepseek_dec_feed(tw_deepseek_dec *d, const char *buf, size_t len);
/* End of input: what is still open is resolved (an unterminated reasoning,
 * section or call is an error diagnostic) and the result moved to *out (need
 * not be initialised; free it with tw_result_free). On failure *out is valid
 * and empty; TW_ERR_STATE for a second finish. */
TW_API tw_status tw_deepseek_dec_finish(tw_deepseek_dec *d, tw_result *out);
/* Start a new decode on the same allocations, whatever state d is in. */
TW_API tw_status tw_deepseek_dec_reset(tw_deepseek_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                       void *user);
/* Free a result the caller is done with (r may be NULL; left zeroed). */
TW_API void tw_deepseek_dec_recycle(tw_deepseek_dec *d, tw_result *r);
/* Free the decoder; NULL does nothing. */
TW_API void tw_deepseek_dec_free(tw_deepseek_dec *d);
/* Batch: one feed and a finish (the contract of decode.h). */
TW_API tw_status tw_deepseek_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                           tw_result *out);

/*
 * The output the model writes for a result (encoder deepseek-v3.1): the
 * reasoning then </think> when there is any (a prompt with thinking on:
 * decode it with forced_open), the content, and the calls in one section,
 * arguments as compact JSON. Appended to out (the contract of encode.h); a
 * call id, a redacted thinking and a finish_reason are not carried
 * (not_carried warnings). TW_ERR_INVALID for a value the dialect cannot
 * write back as it was: content or reasoning holding a special token of
 * the dialect, a name holding one or a line break.
 */
TW_API tw_status tw_deepseek_output_encode(const tw_result *r, const tw_encode_opts *o,
                                           tw_buf *out);

/*
 * The prompt of the DeepSeek V3.1 chat template (deepseek-v3.1-prompt), byte
 * for byte what the template renders: system messages joined at the start,
 * <｜User｜>, <｜Assistant｜> turns, history calls as the output writes them,
 * tool results in <｜tool▁output▁begin｜> ... <｜tool▁output▁end｜>, and with
 * options.add_generation_prompt the opening of the next assistant turn
 * (<think> when options.thinking or options.enable_thinking is true, else
 * <think></think>). The template writes no tools, no call ids and no
 * reasoning of past turns: each is a not_carried warning. The contract of
 * encode.h.
 */
TW_API tw_status tw_deepseek_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                           tw_buf *out);
/*
 * The prompt read back into a request (reader deepseek-v3.1-prompt), with
 * the contract of request.h: call ids are generated (call_1, ...) and each
 * tool result answers the calls of the assistant turn before it in order.
 */
TW_API tw_status tw_deepseek_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                           tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
