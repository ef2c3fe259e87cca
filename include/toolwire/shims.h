/*
 * The reliability shims (docs/formats/encoding.md, Shims): repairs a tool loop needs to stay
 * stable across imperfect model and tool output. Each shim is a pure
 * function over the neutral model; what it repairs is recorded as a warning.
 */
#ifndef TOOLWIRE_SHIMS_H
#define TOOLWIRE_SHIMS_H

#include "toolwire/neutral.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Appended to a tool output cut by tw_shim_truncate. */
#define TW_TRUNCATED_MARKER "\n[truncated]"
/* Default cap on one tool output (200KB). */
#define TW_DEFAULT_MAX_TOOL_OUTPUT_BYTES ((size_t)204800)

/*
 * Length of the longest prefix of s[0, n) that is at most `max` bytes and
 * does not end inside a UTF-8 sequence. Bytes that are not valid UTF-8 count
 * as one-byte characters.
 */
TW_API size_t tw_utf8_cut(const char *s, size_t n, size_t max);

/*
 * Parse tool-call argument bytes defensively: one JSON object, optionally
 * wrapped in whitespace and a ``` or ```json fence. Empty (or whitespace
 * only) input is {}. limits may be NULL (the defaults). Refusals return a
 * status; err (may be NULL) gets the diagnostic code that names the cause
 * in err->code, offset -1, path "" and the reason:
 *   TW_ERR_LIMIT    TW_D_ARGS_TOO_LARGE        len > limits->max_args_bytes
 *   TW_ERR_LIMIT    TW_D_JSON_TOO_DEEP         nesting past limits->max_depth
 *   TW_ERR_PARSE    TW_D_TOOL_CALL_JSON        not valid JSON (U+0000 included)
 *   TW_ERR_INVALID  TW_D_ARGUMENTS_NOT_OBJECT  valid JSON but not an object
 *   TW_ERR_NOMEM    TW_ERR_NOMEM
 * On TW_OK *out owns an object (cJSON_Delete); otherwise *out is NULL.
 * *fenced (optional) says whether a fence was removed.
 */
TW_API tw_status tw_shim_parse_args(const char *buf, size_t len, const tw_limits *limits,
                                    cJSON **out, bool *fenced, tw_error *err);

/*
 * Tool-call ids of one message: a blank (NULL or "") id becomes "tc_N" (N
 * the call's 1-based position, skipping values already taken); a duplicate
 * gets the first free "__2", "__3", … suffix with warning duplicate_id.
 * `warnings` may be NULL. On TW_ERR_NOMEM the message is unchanged or has
 * some ids rewritten; it stays valid either way.
 */
TW_API tw_status tw_shim_normalize_ids(tw_message *m, tw_diag_list *warnings);

/*
 * The same over a whole request, with ids unique across every assistant
 * message ("tc_N" counting over the request). A tool message that answered
 * a rewritten call (the first unanswered call of the latest assistant
 * message with the old id) gets the new id, so results stay paired.
 */
TW_API tw_status tw_shim_normalize_request_ids(tw_request *r, tw_diag_list *warnings);

/*
 * Omit `required: []` from a JSON Schema, at every level where a schema can
 * nest (properties, patternProperties, items, prefixItems,
 * additionalProperties, anyOf/oneOf/allOf, not, $defs, definitions), at
 * most max_depth levels down. Returns how many were removed.
 */
TW_API size_t tw_shim_schema_normalize(cJSON *schema, size_t max_depth);

/*
 * Copy s[0, n) to `out`, cut to at most `max` bytes in all: when n > max the
 * text is cut on a UTF-8 boundary and TW_TRUNCATED_MARKER is appended (the
 * marker counts towards max). *truncated (optional) says whether it was cut.
 * TW_ERR_INVALID when max is smaller than the marker; TW_ERR_LIMIT/NOMEM
 * from the buffer.
 */
TW_API tw_status tw_shim_truncate(const char *s, size_t n, size_t max, tw_buf *out,
                                  bool *truncated);

/*
 * Truncate every tool message's content of the request to `max` bytes
 * (0: TW_DEFAULT_MAX_TOOL_OUTPUT_BYTES), warning output_truncated naming the
 * message.
 */
TW_API tw_status tw_shim_truncate_tool_outputs(tw_request *r, size_t max, tw_diag_list *warnings);

/*
 * Unwrap the pseudo-tool `parallel` some models call in place of parallel
 * calls (decoders keep it as one call and warn parallel_wrapper): a call
 * named "parallel" whose arguments are exactly {"tool_uses": [{"recipient_name":
 * "functions.NAME" (or "NAME"), "parameters": {...}}, ...]} becomes one call
 * per element, in place and in order: name NAME, arguments the parameters
 * object (moved, raw_args NULL), id "<wrapper id>_<k>" (k from 1, with a
 * "__N" suffix when that id is taken), the wrapper's offset. Each unwrapped
 * wrapper adds one warning parallel_wrapper to `warnings` (may be NULL).
 * A wrapper of another shape, an empty tool_uses, or one that would take
 * the message past limits->max_calls (limits may be NULL: the defaults) is
 * left as it is. On TW_ERR_NOMEM the message is unchanged.
 */
TW_API tw_status tw_shim_unwrap_parallel(tw_message *m, const tw_limits *limits,
                                         tw_diag_list *warnings);

#ifdef __cplusplus
}
#endif
#endif
