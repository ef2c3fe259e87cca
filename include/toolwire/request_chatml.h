/*
 * Request decoders for the ChatML prompts: Hermes/Qwen3 (the inverse of the
 * hermes-prompt encoder, rules: docs/formats/hermes.md), Qwen3-Coder and
 * Qwen3.5 (the inverses of qwen3-coder-prompt and qwen3.5-prompt, rules:
 * docs/formats/qwen-xml.md).
 *
 * Each follows the contract of request.h: input buf[0, len) (no terminator
 * needed), bounded by o->limits (o may be NULL: max_input_bytes, max_depth,
 * max_messages, max_tools, max_calls, max_args_bytes, max_diags); on TW_OK
 * *out owns the request (tw_request_free) with its warnings in
 * out->warnings; on failure *out is empty (no warnings either) and `err`
 * (may be NULL) says where and why. What the prompt does not hold is never
 * invented: tool calls written as <tool_call> text get generated ids
 * call_1, call_2, … (numbered across the whole request), and each tool
 * result answers the previous assistant message's calls in order (its
 * tool_call_id and name are those of the call).
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
TW_API tw_status tw_hermes_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_request *out, tw_error *err);

/*
 * A ChatML prompt as the Qwen3-Coder chat template renders it: the same
 * turns; the tools of the XML <tools> section of the first system turn (the
 * template's default system line is no system message); XML <tool_call>
 * blocks of assistant turns read by the qwen3-coder decoder (values typed
 * from the prompt's own tool schemas, its warnings kept); the
 * <tool_response> blocks of user turns; a trailing "<|im_start|>assistant\n"
 * as add_generation_prompt. What the XML rendering does not carry is named
 * in not_carried warnings.
 */
TW_API tw_status tw_qwen3_coder_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                              tw_request *out, tw_error *err);

/*
 * A ChatML prompt as the Qwen3.5 chat template renders it: the tools (one
 * JSON object per line) before the system message in the first system
 * turn; <think> blocks, content and XML <tool_call> blocks (as for
 * Qwen3-Coder) of assistant turns; <tool_response> blocks of user turns; a
 * trailing "<|im_start|>assistant\n<think>\n" as add_generation_prompt,
 * with the empty think block also as enable_thinking false.
 */
TW_API tw_status tw_qwen35_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
