/*
 * Qwen XML prompt encoders (docs/formats/qwen-xml.md):
 *
 *   qwen3-coder-prompt  the full ChatML prompt, byte for byte what the
 *                       Qwen3-Coder chat template renders;
 *   qwen3.5-prompt      the same for the Qwen3.5 chat template (with
 *                       <think> blocks).
 *
 * Both write tool calls of the history as the models write them:
 * <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n
 * </function>\n</tool_call>, a VALUE being an object or array as the
 * template's tojson prints it (Python's json.dumps) and anything else as
 * Python's str() (a string as it is, True, False, None, 1.0, 1e+20).
 */
#ifndef TOOLWIRE_QWEN_ENCODE_H
#define TOOLWIRE_QWEN_ENCODE_H

#include "toolwire/encode.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Render the Qwen3-Coder chat template for `r`.
 *
 * r    the request, read only; NULL is TW_ERR_INVALID.
 * o    options, NULL for the defaults: o->limits.max_output_bytes caps what
 *      is added to `out`, o->limits.max_depth the nesting printed;
 *      o->warnings (may be NULL) receives not_carried for every neutral
 *      field the prompt drops (ids, reasoning, tool_choice, model, …) and
 *      number_inexact for a number printed as a different value.
 * out  the caller's buffer, appended to; NULL is TW_ERR_INVALID.
 *
 * Read from r->options: add_generation_prompt (Python truthiness, default
 * false). enable_thinking changes nothing (the template has no thinking
 * switch; it is reported as not carried).
 *
 * Returns TW_OK; TW_ERR_INVALID when r or out is NULL, the request has no
 * messages or a call's arguments are not an object; TW_ERR_LIMIT past
 * max_output_bytes or max_depth; TW_ERR_NOMEM. On any failure `out` is as
 * it was.
 */
TW_API tw_status tw_qwen3_coder_prompt_encode(const tw_request *r, const tw_encode_opts *o,
                                              tw_buf *out);

/*
 * Render the Qwen3.5 chat template for `r`. Parameters, limits and
 * warnings as for tw_qwen3_coder_prompt_encode.
 *
 * Read from r->options: add_generation_prompt (Python truthiness, default
 * false) and enable_thinking (a JSON false closes the generation prompt's
 * think block; anything else leaves it open).
 *
 * Refused as the template refuses them (raise_exception), with
 * TW_ERR_INVALID and a not_carried warning holding the template's message
 * ("qwen3.5-prompt: refused: ..."): a system message after the first
 * message, and a request without a user query (every user message a
 * wrapped <tool_response>). Otherwise as above; on any failure `out` is as
 * it was.
 */
TW_API tw_status tw_qwen35_prompt_encode(const tw_request *r, const tw_encode_opts *o, tw_buf *out);

#ifdef __cplusplus
}
#endif
#endif
