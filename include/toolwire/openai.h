/*
 * OpenAI chat completions decoders (docs/formats/openai.md):
 * a chat.completion body ("openai-response") and a chat.completion.chunk
 * event stream ("openai-stream"). Both are also reachable through the
 * registry (tw_format_find). The stream decoder is one push state machine;
 * its batch form feeds the whole input at once, so both give one result,
 * and that result equals the response decode of the same completion.
 *
 * This header also holds the call-acceptance rules shared by the JSON wire
 * decoders (OpenAI and Anthropic), under "wire calls".
 */
#ifndef TOOLWIRE_OPENAI_H
#define TOOLWIRE_OPENAI_H

#include "toolwire/neutral.h"
#include "toolwire/sse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ===================== wire calls (shared) ===================== */

/* Levels of a body or chunk around the arguments (choices, message,
 * tool_calls, …): a body is parsed with max_depth + this, so max_depth
 * bounds the arguments as it does in the text formats. */
#define TW_WIRE_ENVELOPE_DEPTH 8

/* Where decoded values, diagnostics and events go. */
typedef struct tw_wire_sink {
    tw_result *res;
    const tw_decode_opts *o;
    const tw_limits *L;
    tw_event_fn fn;
    void *user;
} tw_wire_sink;

/* One call as the wire delivered it, before the rules are applied. */
typedef struct tw_wire_call {
    const char *id;       /* NUL-terminated or NULL */
    const char *name;     /* NUL-terminated or NULL */
    const char *args_str; /* arguments as text (has_args_str), any bytes */
    size_t args_len;
    bool has_args_str;
    const cJSON *args_value; /* arguments as a JSON value (not text), or NULL */
    bool args_native;        /* args_value is the format's own form (no arguments_as_object) */
    bool args_oversize;      /* the text went past the 2 * max_args_bytes + 4096 buffer */
    bool legacy;             /* an OpenAI legacy function_call */
    int64_t offset;
    tw_status refuse;        /* decided by the format before the shared rules (json_nul,
                                call_duplicate_key), TW_OK when none */
    const char *refuse_why;  /* its message, NULL for the code's own */
} tw_wire_call;

/*
 * A wire body or event parsed with tw_json_parse_lint: json_not_rfc8259 as
 * a warning (once when *warned is given, then set) and json_nul as an
 * error, both at `at` plus, when `relative`, the scan's offset.
 */
tw_status tw_wire_lint_diags(tw_wire_sink *k, const tw_json_lint *lint, int64_t at, bool relative,
                             bool *warned);

/*
 * Apply the acceptance rules (docs/formats/openai.md "Calls") to one call:
 * accepted calls are appended to k->res->msg and fire TW_EV_TOOL_CALL;
 * refused ones add an error. Returns TW_OK unless memory ran out.
 */
tw_status tw_wire_take_call(tw_wire_sink *k, const tw_wire_call *c);
/* Add an error (error = true) or warning and fire its event. */
tw_status tw_wire_diag(tw_wire_sink *k, bool error, tw_status code, int64_t off, const char *msg);
/* Stable sort of both diagnostic lists by offset (input_too_large last). */
void tw_wire_sort_diags(tw_result *r);
/*
 * A stream body that is not an event stream but one JSON object with an
 * "error" member (a server answering a stream request with an error
 * envelope): records error_response at the error value and sets *found.
 */
tw_status tw_wire_error_body(tw_wire_sink *k, const char *buf, size_t len, bool *found);
/* Fill the empty content/thinking buffers so they print as "". */
tw_status tw_wire_finish_result(tw_result *r);

/* A step of a path into a JSON document: a key, or an array index when key is NULL. */
typedef struct tw_wire_step {
    const char *key;
    size_t index;
} tw_wire_step;

/*
 * Byte offset of the value at `path` in the JSON text buf[0, len) (which
 * must already be known to parse), or -1 when the path is not there. With
 * duplicate keys the first is taken, as cJSON does. Allocates nothing.
 */
int64_t tw_wire_locate(const char *buf, size_t len, const tw_wire_step *path, size_t npath);

/* ===================== OpenAI ===================== */

/* Batch decode of one chat.completion body (or an error envelope)
 * (the contract of decode.h: buf[0, len) is
 * not kept, `o` may be NULL, *out need not be initialised and is valid and
 * empty on every failure; a bad body is a diagnostic, not a failure). */
tw_status tw_openai_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                    tw_result *out);

/* Initial capacity of the per-stream call table; it grows up to 2 * max_calls + 16. */
#define TW_OAI_SLOTS_INIT 8

typedef struct tw_oai_slot tw_oai_slot;

/*
 * Caller-owned streaming state for a chat.completion.chunk stream.
 * Zero-initialise, then tw_openai_stream_init. Memory it holds is bounded:
 * one SSE line and event (max_line_bytes, max_event_bytes), each open call's
 * argument text (2 * max_args_bytes + 4096) and the decoded text, which the
 * max_input_bytes cap on the input bounds.
 */
typedef struct tw_openai_stream {
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_result res;
    tw_sse sse;
    uint64_t fed;
    bool too_large;
    bool finished;
    bool done; /* data: [DONE] seen */
    bool any_event;
    tw_oai_slot *slots; /* open calls, in order of their first delta */
    size_t nslots;
    size_t cap_slots;
    size_t slots_created; /* since the last time calls were closed */
    tw_buf refusal;
    int64_t refusal_off;
    char *finish_reason;
    tw_buf head; /* the input while no event came yet (<= max_event_bytes) */
    bool head_off;
    /* lookup of the open calls: 1 + slot position by delta index and by id
     * (the latest slot of each), and the latest non-legacy slot */
    size_t *by_index;
    size_t *by_id;
    size_t ntab; /* a power of two, at least twice nslots; 0 before the first slot */
    size_t last_plain;
    bool nonstd_warned; /* json_not_rfc8259 given once per stream */
} tw_openai_stream;

tw_status tw_openai_stream_init(tw_openai_stream *d, const tw_decode_opts *o, tw_event_fn fn,
                                void *user);
/* Push bytes of the SSE body; events fire from inside. Input past
 * max_input_bytes is ignored (error input_too_large at finish). */
tw_status tw_openai_stream_feed(tw_openai_stream *d, const char *buf, size_t len);
/* End of input: closes open calls, moves the result to *out (free with
 * tw_result_free) and releases the decoder's memory. On
 * failure (TW_ERR_NOMEM; TW_ERR_STATE for a second finish) *out is valid
 * and empty. */
tw_status tw_openai_stream_finish(tw_openai_stream *d, tw_result *out);
/* Release without finishing (safe after finish too). */
void tw_openai_stream_release(tw_openai_stream *d);
/* Batch: init, feed everything, finish (the contract of decode.h: buf[0, len) is
 * not kept, `o` may be NULL, *out need not be initialised and is valid and
 * empty on every failure; a bad body is a diagnostic, not a failure). */
tw_status tw_openai_stream_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                  tw_result *out);

#ifdef __cplusplus
}
#endif
#endif
