/*
 * toolwire core: status codes, diagnostic codes, the one error struct,
 * limits and capped buffers.
 *
 * Two kinds of code share one numbering (so that one name table serves
 * both and the neutral JSON can print either):
 *
 *   - statuses (TW_OK … TW_ERR_UNSUPPORTED, tw_code_is_status): what a call
 *     returns. `st != TW_OK` means one thing everywhere: the call did not
 *     do its job and its outputs hold no result (they are left valid and
 *     empty, ready to free). NOMEM: an allocation failed; LIMIT: a tw_limits
 *     cap (or an output buffer's cap) was reached; INVALID: the caller's
 *     arguments, or an input the function refuses as a whole; PARSE: the
 *     input is not the syntax it should be; STATE: a call out of order;
 *     IO: reading or writing failed; UNSUPPORTED: not offered by this
 *     format.
 *   - diagnostic codes (TW_D_*, tw_code_is_diag): what a decoder kept,
 *     repaired or dropped while it succeeded, reported as tw_diag entries
 *     of a result's errors and warnings lists. A decoder that meets a bad
 *     input returns TW_OK and says so in its diagnostics; a diagnostic code
 *     is never the return value of a decoder registered in decode.h.
 *
 * Every code has a fixed number. Codes are only ever appended: a number is
 * never reused or moved, so a program built against one version reads the
 * codes of a later one (tests/lib/test_core.c pins the table).
 */
#ifndef TOOLWIRE_CORE_H
#define TOOLWIRE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toolwire/alloc.h" /* tw_set_allocator */
#include "toolwire/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The one table of codes: X(ENUM, number, "name", "message"), numbers
 * consecutive from 0. New codes go at the end, with the next number.
 * The first block are statuses; the rest are diagnostic codes whose names
 * are the ones the neutral JSON prints (docs/neutral.md).
 */
#define TW_CODE_LIST(X)                                                                            \
    X(TW_OK, 0, "ok", "success")                                                                   \
    X(TW_ERR_NOMEM, 1, "nomem", "out of memory")                                                   \
    X(TW_ERR_LIMIT, 2, "limit", "a configured limit was exceeded")                                 \
    X(TW_ERR_INVALID, 3, "invalid", "invalid argument")                                            \
    X(TW_ERR_PARSE, 4, "parse", "input could not be parsed")                                       \
    X(TW_ERR_STATE, 5, "state", "call out of order")                                               \
    X(TW_ERR_IO, 6, "io", "input/output error")                                                    \
    X(TW_ERR_UNSUPPORTED, 7, "unsupported", "not supported by this format")                        \
    /* diagnostics: text formats */                                                                \
    X(TW_D_THINK_UNTERMINATED, 8, "think_unterminated", "think block not closed at end of input")  \
    X(TW_D_THINK_IMPLICIT_END, 9, "think_implicit_end",                                            \
      "reasoning ended at a tool call inside an unterminated think block")                         \
    X(TW_D_TOOL_CALL_JSON, 10, "tool_call_json", "tool call payload is not valid JSON")            \
    X(TW_D_TOOL_CALL_UNTERMINATED, 11, "tool_call_unterminated",                                   \
      "tool call block not closed at end of input")                                                \
    X(TW_D_ARGUMENTS_AS_STRING, 12, "arguments_as_string", "arguments were a JSON string")         \
    X(TW_D_ARGUMENTS_AS_OBJECT, 13, "arguments_as_object",                                         \
      "arguments were an object, not a JSON string")                                               \
    X(TW_D_PARAMETERS_ALIAS, 14, "parameters_alias", "'parameters' used for 'arguments'")          \
    X(TW_D_ARGUMENTS_NOT_OBJECT, 15, "arguments_not_object", "arguments are not a JSON object")    \
    X(TW_D_MISSING_NAME, 16, "missing_name", "tool call has no name")                              \
    X(TW_D_UNKNOWN_TOOL, 17, "unknown_tool", "tool name not among declared tools")                 \
    X(TW_D_DUPLICATE_ID, 18, "duplicate_id", "duplicate tool call id rewritten")                   \
    X(TW_D_ARGS_TOO_LARGE, 19, "args_too_large", "arguments exceed max_args_bytes")                \
    X(TW_D_TOO_MANY_CALLS, 20, "too_many_calls", "more than max_calls tool calls")                 \
    X(TW_D_JSON_TOO_DEEP, 21, "json_too_deep", "JSON nested deeper than max_depth")                \
    X(TW_D_INPUT_TOO_LARGE, 22, "input_too_large", "input exceeds max_input_bytes")                \
    X(TW_D_ARGS_SCHEMA, 23, "args_schema", "arguments do not satisfy the tool schema")             \
    X(TW_D_BARE_JSON, 24, "bare_json", "bare JSON response taken as a tool call")                  \
    X(TW_D_DIAGS_TRUNCATED, 25, "diagnostics_truncated",                                           \
      "more diagnostics than max_diags; the rest were counted, not kept")                          \
    /* diagnostics: JSON wire formats and streams */                                               \
    X(TW_D_STREAM_ERROR, 26, "stream_error", "error received inside the stream")                   \
    X(TW_D_STREAM_TRUNCATED, 27, "stream_truncated", "stream ended without its terminator")        \
    X(TW_D_SSE_LINE_TOO_LONG, 28, "sse_line_too_long", "SSE line exceeds max_line_bytes")          \
    X(TW_D_SSE_EVENT_TOO_LARGE, 29, "sse_event_too_large", "SSE event exceeds max_event_bytes")    \
    X(TW_D_CHUNK_JSON, 30, "chunk_json", "stream event data is not valid JSON")                    \
    X(TW_D_RESPONSE_JSON, 31, "response_json", "response body is not valid JSON")                  \
    X(TW_D_RESPONSE_SHAPE, 32, "response_shape", "response does not have the expected shape")      \
    X(TW_D_ERROR_RESPONSE, 33, "error_response", "the body is an error envelope")                  \
    X(TW_D_REASONING_FIELD, 34, "reasoning_field", "reasoning field used")                         \
    X(TW_D_REFUSAL, 35, "refusal", "the model refused")                                            \
    X(TW_D_LEGACY_FUNCTION_CALL, 36, "legacy_function_call",                                       \
      "legacy function_call converted to a tool call")                                             \
    X(TW_D_DUPLICATE_KEY, 37, "duplicate_key", "duplicate JSON object key")                        \
    X(TW_D_NOT_CARRIED, 38, "not_carried", "a value the target format cannot carry was dropped")   \
    X(TW_D_OUTPUT_TRUNCATED, 39, "output_truncated", "tool output cut to max_tool_output_bytes")   \
    X(TW_D_TOOL_RESULT_IN_OUTPUT, 40, "tool_result_in_output",                                     \
      "model output held a <tool_result> block; it was dropped")                                   \
    X(TW_D_NUMBER_INEXACT, 41, "number_inexact",                                                   \
      "a number the target format cannot carry exactly was re-encoded")                            \
    X(TW_D_JSON_NUL, 42, "json_nul", "a JSON string or key holds U+0000; the value was refused")   \
    X(TW_D_CALL_DUPLICATE_KEY, 43, "call_duplicate_key",                                           \
      "tool call object repeats a key; the call is ambiguous")                                     \
    X(TW_D_JSON_NOT_RFC8259, 44, "json_not_rfc8259",                                               \
      "JSON is not RFC 8259: raw control character in a string or between tokens")                 \
    X(TW_D_XML_PARAM_UNCLOSED, 45, "xml_param_unclosed",                                           \
      "XML tool call parameter has no </parameter>; the call was refused")                         \
    X(TW_D_XML_FUNCTION_UNCLOSED, 46, "xml_function_unclosed",                                     \
      "XML tool call function has no </function>")                                                 \
    X(TW_D_XML_STRAY_TEXT, 47, "xml_stray_text",                                                   \
      "text inside an XML tool call block outside its elements was dropped")                       \
    X(TW_D_XML_PARAM_OUTSIDE, 48, "xml_param_outside",                                             \
      "XML tool call parameter outside any function was dropped")                                  \
    X(TW_D_XML_BAD_NAME, 49, "xml_bad_name",                                                       \
      "XML tool call function or parameter name is empty or invalid")                              \
    X(TW_D_XML_UNTYPED, 50, "xml_untyped",                                                         \
      "XML tool call values kept as strings: no schema type declared")                             \
    X(TW_D_XML_VALUE_TYPE, 51, "xml_value_type",                                                   \
      "XML tool call value does not read as its schema type; kept as a string")                    \
    /* diagnostics: OpenAI Responses */                                                            \
    X(TW_D_RESPONSE_FAILED, 52, "response_failed", "the response ended with status failed")        \
    X(TW_D_ITEM_NOT_CARRIED, 53, "item_not_carried",                                               \
      "an output item the result has no place for (a built-in tool's, or an unknown type)")        \
    X(TW_D_SEQUENCE_NUMBER, 54, "sequence_number", "an event's sequence_number does not increase") \
    X(TW_D_STREAM_ITEM_ORDER, 55, "stream_item_order",                                             \
      "an event names an output item that was not added, or adds one twice")                       \
    X(TW_D_DONE_MISMATCH, 56, "done_mismatch", "a .done event's value differs from its deltas")    \
    X(TW_D_EVENT_TYPE_MISMATCH, 57, "event_type_mismatch",                                         \
      "the SSE event name differs from the type in its data")                                      \
    X(TW_D_PARALLEL_WRAPPER, 58, "parallel_wrapper",                                               \
      "calls wrapped in one call to the pseudo-tool 'parallel'")                                   \
    /* request readers: OpenAI Responses */                                                        \
    X(TW_D_ITEM_REFERENCE, 59, "item_reference",                                                   \
      "an input item_reference names an item stored by the server; dropped")                       \
    X(TW_D_BUILTIN_TOOL, 60, "builtin_tool",                                                       \
      "a provider's built-in tool (web_search, googleSearch, ...) has no neutral form; dropped")   \
    /* request readers: Gemini */                                                                  \
    X(TW_D_UNKNOWN_PART, 61, "unknown_part",                                                       \
      "a content part of a kind the reader does not know was skipped")                             \
    /* SSE framing */                                                                              \
    X(TW_D_SSE_NUL, 62, "sse_nul",                                                                 \
      "an SSE line holds a NUL byte outside a data value; the line was ignored")

typedef enum tw_status {
#define TW_X_ENUM(e, v, n, m) e = v,
    TW_CODE_LIST(TW_X_ENUM)
#undef TW_X_ENUM
        TW_CODE_COUNT
} tw_status;

/* The last status; every code after it is a diagnostic code. */
#define TW_STATUS_LAST TW_ERR_UNSUPPORTED

/* True for TW_OK … TW_STATUS_LAST. */
TW_API bool tw_code_is_status(tw_status code);
/* True for the diagnostic codes (TW_STATUS_LAST < code < TW_CODE_COUNT). */
TW_API bool tw_code_is_diag(tw_status code);

/* A code's name ("tool_call_json") and default message; never NULL
 * ("unknown" and "unknown code" for a number outside the table). */
TW_API const char *tw_code_name(tw_status code);
TW_API const char *tw_code_message(tw_status code);
/* Look a code up by name (name[0, len), no terminator needed); returns
 * false when unknown and leaves *out alone. */
TW_API bool tw_code_from_name(const char *name, size_t len, tw_status *out);

/*
 * The one limits struct. Every decoder, encoder and loader takes it; nothing
 * reads a global. Zero fields are filled with defaults by tw_limits_default
 * (and by tw_limits_resolve, which every entry point calls).
 */
typedef struct tw_limits {
    size_t max_input_bytes;  /* bytes decoded from one input (16 MiB) */
    size_t max_args_bytes;   /* serialised arguments of one call (204800) */
    size_t max_calls;        /* tool calls in one message (64) */
    size_t max_depth;        /* JSON nesting (64; at most 1000) */
    size_t max_output_bytes; /* bytes one encoder may produce (64 MiB) */
    size_t max_line_bytes;   /* one SSE line (1 MiB) */
    size_t max_event_bytes;  /* one SSE event's data (8 MiB) */
    size_t max_diags;        /* diagnostics kept per list: errors, and warnings, each (256) */
    size_t max_messages;     /* messages in one request (4096) */
    size_t max_tools;        /* tools in one request (1024) */
    size_t max_jobs;         /* fixtures a harness run replays at once, --jobs (64) */
} tw_limits;

#define TW_DEPTH_HARD_MAX 1000u

/* Fill every field with its default. */
TW_API void tw_limits_default(tw_limits *l);
/* Copy `in` (may be NULL) to `out`, replacing zero fields by defaults and
 * clamping max_depth to TW_DEPTH_HARD_MAX. */
TW_API void tw_limits_resolve(tw_limits *out, const tw_limits *in);

/* ---- the one error struct ----
 *
 * Why a call failed, for every function of the library that can say more
 * than its status. The caller owns the struct (usually on the stack) and
 * passes its address; every function that takes a `tw_error *err` accepts
 * NULL (nothing is recorded) and, when it fails, fills every field. On
 * success the struct is left as it was. Fixed-size, no allocation: nothing
 * to free.
 */
typedef struct tw_error {
    /* The most specific code: a diagnostic code when one names the cause
     * (TW_D_JSON_TOO_DEEP, TW_D_JSON_NUL, …), else the status the call
     * returned. The return value itself is always a status. */
    tw_status code;
    /* Byte offset into the input of the call, -1 when none applies. */
    int64_t offset;
    /* JSON path of the offending value ("messages[2].tool_calls[0].id");
     * "" for the root or when the input is not JSON. NUL-terminated, its
     * bytes as given (the message below holds it as safe text). */
    char path[160];
    /* NUL-terminated, cut to fit: "path: reason" ("(root): reason" for the
     * root) when the failure has a path, else the reason alone. Safe text
     * whatever the input held: valid UTF-8 with no byte below 0x20, no 0x7F
     * and no C1 control (U+0080..U+009F); each byte of those and of an
     * invalid UTF-8 sequence is
     * written as the four characters \xNN (uppercase hex), and a cut never
     * splits a character or an \xNN. */
    char message[1024];
} tw_error;

/* Empty err: code TW_OK, offset -1, path and message "". NULL is allowed. */
TW_API void tw_error_clear(tw_error *err);
/*
 * Fill err (NULL allowed: nothing is done) with code, offset (-1 when none),
 * path and the reason printf'd from fmt. path NULL: no path ("" in err->path,
 * the message is the reason alone); path "" is the root ("(root): reason").
 * Strings longer than their field are cut. The message is stored as safe
 * text (see `message` above): text already clean is kept byte for byte.
 */
TW_API void tw_error_set(tw_error *err, tw_status code, int64_t offset, const char *path,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* ---- diagnostics ---- */

typedef struct tw_diag {
    tw_status code;
    int64_t offset; /* byte offset into the whole input, -1 when none */
    /* Owned, NUL-terminated, safe text as tw_error's message: valid UTF-8
     * with no byte below 0x20, no 0x7F and no C1 control (those, and each
     * byte of an invalid UTF-8 sequence, are written as \xNN, uppercase
     * hex). */
    char *message;
} tw_diag;

typedef struct tw_diag_list {
    tw_diag *items;
    size_t len;
    size_t cap;
    size_t max;     /* 0: unlimited until set by the owner */
    size_t dropped; /* diagnostics past `max`, counted only */
} tw_diag_list;

/*
 * Append a diagnostic. `msg` may be NULL (the code's message is used). Past
 * `max` the diagnostic is counted in `dropped` and TW_OK is returned: a
 * flood of diagnostics is not a reason to fail a decode. Both store the
 * message as safe text (tw_diag.message), whatever bytes it was given; text
 * already clean is kept byte for byte. tw_diag_addf cuts the stored message
 * to 511 bytes, never inside a character or an \xNN.
 */
TW_API tw_status tw_diag_add(tw_diag_list *l, tw_status code, int64_t offset, const char *msg);
TW_API tw_status tw_diag_addf(tw_diag_list *l, tw_status code, int64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Deep copy `src` onto the end of `dst`. */
TW_API tw_status tw_diag_extend(tw_diag_list *dst, const tw_diag_list *src);
TW_API bool tw_diag_has(const tw_diag_list *l, tw_status code);
TW_API void tw_diag_list_free(tw_diag_list *l);

/* ---- capped growable buffer ---- */

/*
 * A byte buffer that never grows past `max` (0 means SIZE_MAX). Always kept
 * NUL-terminated when data != NULL (the NUL is not counted in len).
 * A zero-initialised tw_buf is an empty buffer with no cap.
 */
typedef struct tw_buf {
    char *data;
    size_t len;
    size_t cap;
    size_t max;
} tw_buf;

/* Returns TW_ERR_LIMIT (buffer unchanged) if len + n would exceed max. */
TW_API tw_status tw_buf_append(tw_buf *b, const void *p, size_t n);
TW_API tw_status tw_buf_putc(tw_buf *b, char c);
TW_API tw_status tw_buf_puts(tw_buf *b, const char *s);
TW_API tw_status tw_buf_printf(tw_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
TW_API tw_status tw_buf_reserve(tw_buf *b, size_t extra);
/* Drop the first n bytes (memmove). */
TW_API void tw_buf_consume(tw_buf *b, size_t n);
TW_API void tw_buf_reset(tw_buf *b);
/* Hand the data to the caller (free with free()); the buffer becomes empty.
 * Returns an empty allocated string when the buffer has none. */
TW_API char *tw_buf_take(tw_buf *b, size_t *len);
TW_API void tw_buf_free(tw_buf *b);

/* ---- small string helpers (length-bounded, no locale) ---- */

TW_API bool tw_is_space(unsigned char c);
/* Trim ASCII whitespace (space \t \n \r \f \v) from both ends of [*p, *p+*n). */
TW_API void tw_trim(const char **p, size_t *n);
/* malloc'd NUL-terminated copy of n bytes; NULL on allocation failure. */
TW_API char *tw_strndup(const char *s, size_t n);
TW_API char *tw_strdup(const char *s);
/* memmem for portability. */
TW_API const char *tw_memmem(const char *hay, size_t hlen, const char *needle, size_t nlen);
/* Length of the longest suffix of buf that is a proper prefix of `tag`. */
TW_API size_t tw_partial_suffix(const char *buf, size_t len, const char *tag, size_t tlen);

#ifdef __cplusplus
}
#endif
#endif
