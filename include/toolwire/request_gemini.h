/*
 * Request decoder for the Gemini generateContent request body (the inverse
 * of the gemini-request encoder). Rules: docs/formats/gemini.md
 * ("Reading requests").
 *
 * It follows the contract of request.h: input buf[0, len) (no terminator
 * needed), bounded by o->limits (o may be NULL: max_input_bytes, max_depth,
 * max_messages, max_tools, max_calls, max_args_bytes, max_diags); on TW_OK
 * *out owns the request (tw_request_free) with its warnings in
 * out->warnings; on failure *out is empty (no warnings either) and `err`
 * (may be NULL) says where and why, err->path a JSON path
 * ("contents[1].parts[0].functionCall.args").
 *
 * The body names no model (Gemini puts it in the URL): out->model is NULL.
 * A functionCall without an id gets call_N (N counted across the request);
 * a functionResponse without an id answers the first unanswered call of the
 * same name in the model turn before it.
 */
#ifndef TOOLWIRE_REQUEST_GEMINI_H
#define TOOLWIRE_REQUEST_GEMINI_H

#include "toolwire/request.h"

#ifdef __cplusplus
extern "C" {
#endif

TW_API tw_status tw_gemini_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                          tw_request *out, tw_error *err);

/* The same over an already parsed body (j is not modified or kept;
 * err->offset is always -1). */
TW_API tw_status tw_gemini_request_from_json(const cJSON *j, const tw_decode_opts *o,
                                             tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
