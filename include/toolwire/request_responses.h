/*
 * Request decoder for OpenAI Responses API request bodies (POST
 * /v1/responses, the inverse of the openai-responses-request encoder).
 * Rules: docs/formats/openai-responses-encode.md ("Reading requests").
 *
 * It follows the contract of request.h: input buf[0, len) (no terminator
 * needed), bounded by o->limits (o may be NULL: max_input_bytes, max_depth,
 * max_messages, max_tools, max_calls, max_args_bytes, max_diags); on TW_OK
 * *out owns the request (tw_request_free) with its warnings in
 * out->warnings (not_carried, arguments_as_object, item_reference,
 * builtin_tool); on failure *out is empty (no warnings either) and `err`
 * (may be NULL) says where and why, err->path a JSON path
 * ("input[2].call_id").
 */
#ifndef TOOLWIRE_REQUEST_RESPONSES_H
#define TOOLWIRE_REQUEST_RESPONSES_H

#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

TW_API tw_status tw_responses_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                             tw_request *out, tw_error *err);

/* The same over an already parsed body (j is not modified or kept;
 * err->offset is always -1). */
TW_API tw_status tw_responses_request_from_json(const cJSON *j, const tw_decode_opts *o,
                                                tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
