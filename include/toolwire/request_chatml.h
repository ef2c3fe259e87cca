/*
 * Request decoder for the Hermes/Qwen3 ChatML prompt (the inverse of the
 * hermes-prompt encoder). Rules: docs/formats/hermes.md.
 *
 * It follows the contract of request.h: input buf[0, len) (no terminator
 * needed), bounded by `limits` (may be NULL: max_input_bytes, max_depth,
 * max_messages, max_tools, max_calls, max_args_bytes); on TW_OK *out owns
 * the request (tw_request_free); on failure *out is empty and `err` (may be
 * NULL) says where and why. What the prompt does not hold is never
 * invented: tool calls written as <tool_call> text get generated ids
 * call_1, call_2, … (numbered across the whole request), and each tool
 * result answers the previous assistant message's calls in order (its
 * tool_call_id and name are those of the call). Warnings go to `warnings`
 * (may be NULL).
 */
#ifndef TOOLWIRE_REQUEST_CHATML_H
#define TOOLWIRE_REQUEST_CHATML_H

#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A ChatML prompt as the Qwen3 chat template renders it: turns
 * "<|im_start|>ROLE\n…<|im_end|>\n"; the tools of the "# Tools" section of
 * the first system turn; <think> and <tool_call> blocks of assistant turns;
 * <tool_response> blocks of user turns as tool messages; a trailing
 * "<|im_start|>assistant\n" (optionally with the empty think block) as the
 * options add_generation_prompt (and enable_thinking false). err->path
 * names the turn ("turns[3]") and err->offset is the byte offset of the
 * fault in buf.
 */
tw_status tw_hermes_prompt_decode(const char *buf, size_t len, const tw_limits *limits,
                                  tw_request *out, tw_diag_list *warnings,
                                  tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
