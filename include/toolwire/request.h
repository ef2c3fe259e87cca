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
 * Decode a request body. Every request reader (this header,
 * request_vllm.h, request_chatml.h) keeps this contract:
 *
 * buf, len: the body, buf[0, len) (no terminator needed; buf may be NULL
 *           only when len is 0). Not kept after the call.
 * o:        may be NULL (the defaults). Only o->limits is read:
 *           max_input_bytes, max_depth, max_messages, max_tools, max_calls,
 *           max_args_bytes, and max_diags for the warnings.
 * out:      must not be NULL; need not be initialised. On TW_OK *out owns
 *           the request (free with tw_request_free) and out->warnings holds
 *           what the neutral model cannot carry (not_carried) and what was
 *           repaired (arguments_as_object, legacy_function_call), at most
 *           max_diags of them (the rest counted in out->warnings.dropped).
 *           On failure *out is valid and empty: no messages, no tools,
 *           parallel_tool_calls -1 and no warnings; safe to free.
 * err:      may be NULL. Cleared on entry (tw_error_clear); on failure
 *           err->code is the most specific code (json_too_deep, json_nul,
 *           args_too_large, or the status), err->path the JSON path of the
 *           offending value ("messages[2].tool_calls[0].function.arguments",
 *           "" for the root), err->offset the byte offset of a JSON syntax
 *           error or U+0000 in buf, else -1, and err->message "path: reason".
 *
 * Returns TW_OK, TW_ERR_PARSE (not JSON), TW_ERR_LIMIT (a cap of o->limits),
 * TW_ERR_INVALID (a value of the wrong shape, U+0000 in a string) or
 * TW_ERR_NOMEM. Rules: docs/formats/encoding.md.
 */
TW_API tw_status tw_openai_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                          tw_request *out, tw_error *err);
TW_API tw_status tw_anthropic_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                             tw_request *out, tw_error *err);

/* The same over an already parsed body: j is not modified or kept, and
 * err->offset is always -1 (there are no bytes). */
TW_API tw_status tw_openai_request_from_json(const cJSON *j, const tw_decode_opts *o,
                                             tw_request *out, tw_error *err);
TW_API tw_status tw_anthropic_request_from_json(const cJSON *j, const tw_decode_opts *o,
                                                tw_request *out, tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
