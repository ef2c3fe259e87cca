/*
 * Request decoders: OpenAI chat completions and Anthropic messages request
 * bodies into the neutral tw_request (the inverse of the request encoders of
 * openai_encode.h and anthropic_encode.h). Rules: docs/formats/encoding.md.
 */
#ifndef TOOLWIRE_REQUEST_H
#define TOOLWIRE_REQUEST_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Decode a request body from buf[0, len) (no terminator needed). Bounded by
 * `limits` (may be NULL): max_input_bytes, max_depth, max_messages,
 * max_tools, max_calls, max_args_bytes. On TW_OK *out owns the request
 * (tw_request_free); values the neutral model cannot hold are reported in
 * `warnings` (may be NULL) as not_carried, repairs with their own codes
 * (arguments_as_object, legacy_function_call). On failure *out is empty
 * (parallel_tool_calls -1), `err` (may be NULL) says where and why, and
 * warnings already added stay.
 */
tw_status tw_openai_request_decode(const char *buf, size_t len, const tw_limits *limits,
                                   tw_request *out, tw_diag_list *warnings, tw_error *err);
tw_status tw_anthropic_request_decode(const char *buf, size_t len, const tw_limits *limits,
                                      tw_request *out, tw_diag_list *warnings,
                                      tw_error *err);

/* The same over an already parsed body (j is not modified or kept). */
tw_status tw_openai_request_from_json(const cJSON *j, const tw_limits *limits, tw_request *out,
                                      tw_diag_list *warnings, tw_error *err);
tw_status tw_anthropic_request_from_json(const cJSON *j, const tw_limits *limits,
                                         tw_request *out, tw_diag_list *warnings,
                                         tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
