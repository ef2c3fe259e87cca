/*
 * Request decoder for the vLLM-native GenerateRequest JSON (the inverse of
 * the vllm-generate-request encoder). Rules: docs/formats/vllm-native.md.
 * The ChatML prompt's decoder is in toolwire/request_chatml.h.
 *
 * It follows the contract of request.h: input buf[0, len) (no terminator
 * needed), bounded by o->limits (o may be NULL: max_input_bytes, max_depth,
 * max_messages, max_tools, max_calls, max_args_bytes, max_diags); on TW_OK
 * *out owns the request (tw_request_free) with its warnings in
 * out->warnings; on failure *out is empty (no warnings either) and `err`
 * (may be NULL) says where and why. What the source format does not hold is never
 * invented: tool calls written as <tool_call> text get generated ids
 * call_1, call_2, … (numbered across the whole request), and each tool
 * result answers the previous assistant message's calls in order (its
 * tool_call_id and name are those of the call).
 */
#ifndef TOOLWIRE_REQUEST_VLLM_H
#define TOOLWIRE_REQUEST_VLLM_H

#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A GenerateRequest body. Assistant contents ending in <tool_call> blocks
 * give calls; generation keys (temperature, two_pass, think_tag,
 * max_thinking_tokens, max_response_tokens, tool_parser) go to options and
 * are checked as tw_vllm_params_read does; other keys are reported
 * (not_carried). err->path is a JSON path ("messages[2].role").
 */
TW_API tw_status tw_vllm_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                        tw_request *out, tw_error *err);

/* The same over an already parsed body (j is not modified or kept;
 * err->offset is always -1). */
TW_API tw_status tw_vllm_request_from_json(const cJSON *j, const tw_decode_opts *o, tw_request *out,
                                           tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
