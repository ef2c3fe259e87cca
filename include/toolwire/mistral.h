/*
 * The Mistral model-output dialect (docs/formats/mistral.md): Mistral Small
 * 3.2, Devstral, Ministral 3 reasoning and Magistral write
 *
 *     [THINK]reasoning[/THINK]content[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json}…</s>
 *
 * (Devstral without [CALL_ID]; Mistral 7B/Nemo's older
 * [TOOL_CALLS][{"name":…,"arguments":…,"id":…}] array is read too). The
 * arguments' end is found JSON-aware: no token closes them.
 *
 * The decoder "mistral" (tw_format_mistral in the registry) is a push
 * decoder: any split of the input, a special token split at any byte
 * included, gives the result of the batch function. Its encoders:
 * "mistral" (a result as the model writes it) and the prompt encoders and
 * readers "mistral-small-3.2-prompt", "devstral-small-prompt" and
 * "ministral-3-reasoning-prompt" (each byte for byte what its chat template
 * renders).
 */
#ifndef TOOLWIRE_MISTRAL_H
#define TOOLWIRE_MISTRAL_H

#include "toolwire/encode.h"
#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A Mistral decoder: opaque, from tw_mistral_dec_new, freed by
 * tw_mistral_dec_free. One decode at a time; after finish (or a failure)
 * tw_mistral_dec_reset starts the next on the same allocations. It holds at
 * most max_input_bytes of input, and while a call is open the bytes from
 * its [TOOL_CALLS] on (a call's arguments past 2 * max_args_bytes + 4096
 * bytes are refused with args_too_large and not held).
 */
typedef struct tw_mistral_dec tw_mistral_dec;

/*
 * A decoder with options `o` (NULL: defaults; copied, the tools it points
 * at must stay valid until finish): o->forced_open starts inside the
 * reasoning (the prompt opened [THINK]). `fn` (may be NULL) gets the events
 * with `user`; a status other than TW_OK from it stops the decode. NULL
 * when memory runs out.
 */
TW_API tw_mistral_dec *tw_mistral_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
/*
 * Push buf[0, len) (not kept). Returns TW_OK, TW_ERR_NOMEM, TW_ERR_STATE
 * after finish, or the status a callback stopped the decode with; after a
 * failure the decode is over.
 */
TW_API tw_status tw_mistral_dec_feed(tw_mistral_dec *d, const char *buf, size_t len);
/*
 * End of input: what is still open is closed (an unterminated call or
 * reasoning is an error diagnostic, never a call) and the result moved to
 * *out (need not be initialised; free it with tw_result_free). On failure
 * *out is valid and empty.
 */
TW_API tw_status tw_mistral_dec_finish(tw_mistral_dec *d, tw_result *out);
/* Start a new decode with `o`, `fn`, `user` whatever state d is in; the
 * buffers' allocations are kept. Returns TW_OK. */
TW_API tw_status tw_mistral_dec_reset(tw_mistral_dec *d, const tw_decode_opts *o, tw_event_fn fn,
                                      void *user);
/* Free r (may be NULL) and leave it zeroed. */
TW_API void tw_mistral_dec_recycle(tw_mistral_dec *d, tw_result *r);
/* Free the decoder; NULL does nothing. */
TW_API void tw_mistral_dec_free(tw_mistral_dec *d);
/* Batch: one feed and a finish; *out as for tw_mistral_dec_finish. */
TW_API tw_status tw_mistral_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                          tw_result *out);

/*
 * The model's side of a result (encoder "mistral"): [THINK]thinking[/THINK]
 * when there is thinking or content (an empty block before content without
 * thinking, so the content reads as content whether or not the prompt
 * opened [THINK]), the content, then each call as
 * [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{compact json} (the Small 3.2 form) and
 * </s>. A call without an id gets none written ([TOOL_CALLS]NAME[ARGS]…).
 * Content or thinking holding a special token the decoder would take is
 * written as is with a not_carried warning. Returns TW_OK, TW_ERR_NOMEM or
 * TW_ERR_LIMIT (max_output_bytes); out untouched on failure.
 */
TW_API tw_status tw_mistral_output_encode(const tw_result *r, const tw_encode_opts *o, tw_buf *out);

/*
 * The Mistral Small 3.2 prompt (encoder "mistral-small-3.2-prompt"): what
 * the model's chat template renders for the request with jinja2, byte for
 * byte ([SYSTEM_PROMPT], [AVAILABLE_TOOLS] before the last user turn,
 * [INST]…[/INST], history calls with their ids, [TOOL_RESULTS]). Roles
 * that do not alternate, which the template refuses, are TW_ERR_INVALID
 * with the template's message in a warning. A call or result id that is
 * not 9 characters, which it refuses too, is written as 9 alphanumerics
 * derived from it (the same for a call and its result) with a not_carried
 * warning naming the template's rule, so a request from another API still
 * makes a prompt; what the template drops (thinking, content beside calls,
 * …) is a not_carried warning. The default system prompt's date is
 * request.options "today" (YYYY-MM-DD), else today in UTC (a "today"
 * that is not a string, with a warning).
 */
TW_API tw_status tw_mistral_small_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                                tw_buf *out);
/* Read a Small 3.2 prompt back into a request (reader
 * "mistral-small-3.2-prompt"); TW_ERR_PARSE with err set when it is not one. */
TW_API tw_status tw_mistral_small_prompt_decode(const char *buf, size_t len,
                                                const tw_decode_opts *o, tw_request *out,
                                                tw_error *err);

/*
 * The Devstral Small 2507 prompt (encoder "devstral-small-prompt"), byte for
 * byte what its chat template renders: its own default system prompt (no
 * date), [AVAILABLE_TOOLS] once after the system prompt, an assistant's
 * content then its calls as [TOOL_CALLS]NAME[ARGS]{json} (no ids), results
 * as [TOOL_RESULTS]…[/TOOL_RESULTS]. No messages at all, which the template
 * refuses, is TW_ERR_INVALID with its message in a warning; call ids,
 * thinking and the rest the template has no place for are not_carried
 * warnings. Returns TW_OK, TW_ERR_INVALID, TW_ERR_NOMEM or TW_ERR_LIMIT
 * (max_output_bytes); out untouched on failure.
 */
TW_API tw_status tw_devstral_small_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                                 tw_buf *out);
/* Read a Devstral Small prompt back (reader "devstral-small-prompt"): each
 * result answers the unanswered calls before it in order, and takes the id
 * call_N the reader gives the N-th call; TW_ERR_PARSE with err set when the
 * text is not such a prompt. */
TW_API tw_status tw_devstral_small_prompt_decode(const char *buf, size_t len,
                                                 const tw_decode_opts *o, tw_request *out,
                                                 tw_error *err);

/*
 * The Ministral 3 reasoning prompt (encoder "ministral-3-reasoning-prompt"),
 * byte for byte what its chat template renders: as Devstral's (its own
 * default system prompt, tools after it, no ids) with an assistant's
 * thinking as [THINK]…[/THINK] before its content. Refused as the template
 * refuses (TW_ERR_INVALID, its message in a warning): roles that do not
 * alternate (calls and results aside), a system message after the first,
 * an assistant message with no content, thinking or calls, no messages.
 */
TW_API tw_status tw_ministral3_reasoning_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                                       tw_buf *out);
/* Read a Ministral 3 reasoning prompt back (reader
 * "ministral-3-reasoning-prompt"), results and ids as Devstral's reader. */
TW_API tw_status tw_ministral3_reasoning_prompt_decode(const char *buf, size_t len,
                                                       const tw_decode_opts *o, tw_request *out,
                                                       tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
