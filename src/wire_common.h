/*
 * Internal: plumbing shared by the decoders. The diagnostic sort, the
 * batch-over-stream driver, the void* adapters a tw_format_ops needs, the
 * body-buffering decoder the JSON response formats stream with, and the
 * pieces of a JSON wire body (OpenAI, Anthropic): its lint diagnostics, an
 * error envelope, and the locator that finds a value's byte offset.
 */
#ifndef TOOLWIRE_WIRE_COMMON_H
#define TOOLWIRE_WIRE_COMMON_H

#include <string.h>

#include "calls.h"
#include "toolwire/decode.h"
#include "toolwire/sse.h"

/*
 * The opening of a decoder's init: *d zeroed, the options copied, the
 * limits resolved and the event sink kept (d has members o, L, fn, user).
 */
#define TW_DECODER_SETUP(d, opts, efn, euser)                                                      \
    do {                                                                                           \
        memset((d), 0, sizeof *(d));                                                               \
        if (opts)                                                                                  \
            (d)->o = *(opts);                                                                      \
        tw_limits_resolve(&(d)->L, (opts) ? &(opts)->limits : NULL);                               \
        (d)->fn = (efn);                                                                           \
        (d)->user = (euser);                                                                       \
    } while (0)

/* Order of two diagnostics: by offset, input_too_large last. */
int tw_diag_cmp(const tw_diag *x, const tw_diag *y);
/* Stable sort of one diagnostic list by offset (input_too_large last). */
void tw_diag_sort(tw_diag_list *l);

/*
 * Of len more bytes after `used`, how many fit under max_input_bytes: 0 once
 * *too_large is set; sets *too_large when the bytes are cut.
 */
static inline size_t tw_input_clip(const tw_limits *L, uint64_t used, size_t len, bool *too_large)
{
    if (*too_large)
        return 0;
    size_t room = L->max_input_bytes - (size_t)used;
    if (len > room) {
        len = room;
        *too_large = true;
    }
    return len;
}

/* ===================== JSON wire bodies ===================== */

/* Levels of a body or chunk around the arguments (choices, message,
 * tool_calls, …): a body is parsed with max_depth + this, so max_depth
 * bounds the arguments as it does in the text formats. */
#define TW_WIRE_ENVELOPE_DEPTH 8

/*
 * A wire body or event parsed with tw_json_parse_lint: json_not_rfc8259 as
 * a warning (once when *warned is given, then set) and json_nul as an
 * error, both at `at` plus, when `relative`, the scan's offset.
 */
tw_status tw_wire_lint_diags(tw_wire_sink *k, const tw_json_lint *lint, int64_t at, bool relative,
                             bool *warned);
/* Stable sort of both diagnostic lists by offset (input_too_large last). */
void tw_wire_sort_diags(tw_result *r);
/*
 * A stream body that is not an event stream but one JSON object with an
 * "error" member (a server answering a stream request with an error
 * envelope): records error_response at the error value and sets *found.
 */
tw_status tw_wire_error_body(tw_wire_sink *k, const char *buf, size_t len, bool *found);
/*
 * The stream_truncated message of a stream in which no event was found,
 * naming what was expected; `head` holds the bytes read before any event
 * (empty once past its cap), and a head that starts with JSON is said to be
 * a body or JSON lines rather than an event stream.
 */
const char *tw_wire_no_event(const tw_buf *head);
/*
 * Append n bytes of text to the content (TW_EV_CONTENT) or thinking of
 * k->res and fire the event that carries them; nothing for n == 0.
 */
tw_status tw_wire_text(tw_wire_sink *k, tw_event_kind kind, const char *s, size_t n);

/*
 * Keep sig[0, n) as the thinking signature when none is kept yet (nothing
 * for n == 0). A different later one is dropped: with `warned`, said once
 * (not_carried at off, "a further <what> was not kept"), then *warned set.
 */
tw_status tw_wire_keep_signature(tw_wire_sink *k, const char *sig, size_t n, bool *warned,
                                 int64_t off, const char *what);

/* How a format's error object names its kind and message. */
typedef struct tw_wire_error_shape {
    const char *kind[2]; /* members naming the kind, the first found used ("type") */
    bool string_message; /* an error that is a string is its own message */
    bool code_prefix;    /* an exact integer "code" goes first (Gemini) */
} tw_wire_error_shape;

/* "<kind>: <message>" of an error object (err may be NULL): "error" and
 * "(no message)" where a part is missing. */
void tw_wire_error_text(const cJSON *err, const tw_wire_error_shape *shape, char *msg, size_t n);

/*
 * The end of a message: r's finish reason becomes a copy of fr (none for
 * NULL) when st is TW_OK, else none; returns st, or TW_ERR_NOMEM.
 */
tw_status tw_wire_set_finish(tw_result *r, tw_status st, const char *fr);

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

/*
 * The end of a wire decode into k->res: input_too_large when the input was
 * cut, then both diagnostic lists sorted and empty content/thinking set to "".
 */
tw_status tw_wire_close(tw_wire_sink *k, bool too_large);

/*
 * Feed of an SSE wire stream (OpenAI, Anthropic) past its finished check:
 * the bytes are clipped to max_input_bytes and counted in *fed, kept in
 * head while no event came yet (an error envelope in place of a stream;
 * not kept when the first byte is neither '{' nor whitespace), and given
 * to the SSE reader.
 */
tw_status tw_wire_sse_feed(tw_sse *sse, const tw_limits *L, uint64_t *fed, bool *too_large,
                           tw_buf *head, bool *head_off, const char *buf, size_t len);

/*
 * The elements of the array, or the members of the object, at a path in a
 * JSON text that is known to parse, visited in document order. Each step
 * resumes where the previous one stopped, so visiting every element costs
 * one pass over the container (tw_wire_locate per element would rescan the
 * body from its first byte each time).
 */
typedef struct tw_wire_cursor {
    const char *b;
    size_t n;
    size_t i;     /* the current element's value, or where the next one starts */
    bool object;  /* members of an object (the offsets are of their values) */
    bool started; /* an element was returned: the next step skips it first */
    bool open;
} tw_wire_cursor;

/* Place c before the first element of the array or object at path; false
 * (and every step -1) when there is none there. */
bool tw_wire_cursor_open(tw_wire_cursor *c, const char *b, size_t n, const tw_wire_step *path,
                         size_t npath);
/*
 * Byte offset of the next element (of a member's value in an object), the
 * same offset tw_wire_locate gives for its index; -1 past the last one.
 */
int64_t tw_wire_cursor_next(tw_wire_cursor *c);

/*
 * The offsets of the elements (or members' values) of a container of a
 * parsed body, in document order: taken from the marks the one-pass parse
 * recorded (json_marks.h) when it read the body and every element is an
 * object or array, else from a tw_wire_cursor at the container's path. Both
 * give the same offsets.
 */
typedef struct tw_wire_elems {
    tw_wire_cursor cur;
    const tw_buf *marks;
    size_t pos; /* the next mark to look at: elements come in document order */
    bool by_mark;
} tw_wire_elems;

/* Open e over container (found at path in b[0, n)); marks as
 * tw_json_parse_lint_marked left them (empty: walk the text). */
void tw_wire_elems_open(tw_wire_elems *e, const tw_buf *marks, const cJSON *container,
                        const char *b, size_t n, const tw_wire_step *path, size_t npath);
/* The offset of elem, the container's next element; -1 when unknown. */
int64_t tw_wire_elems_next(tw_wire_elems *e, const cJSON *elem);

/*
 * Batch decode through a streaming decoder whose init already ran into
 * state s with status st: feed buf whole, then finish into *out, then
 * release s; on any failure before finish, leave *out empty and return the
 * failure.
 */
tw_status tw_decode_batch(void *s, tw_status st, tw_status (*feed)(void *, const char *, size_t),
                          tw_status (*finish)(void *, tw_result *), void (*release)(void *),
                          const char *buf, size_t len, tw_result *out);

/*
 * tw_decode_batch, after which a failure leaves *out empty with its
 * diagnostic lists capped as o says (as a decoder's own finish leaves it).
 */
tw_status tw_decode_batch_capped(const tw_decode_opts *o, void *s, tw_status st,
                                 tw_status (*feed)(void *, const char *, size_t),
                                 tw_status (*finish)(void *, tw_result *), void (*release)(void *),
                                 const char *buf, size_t len, tw_result *out);

/* The void* feed/finish/release adapters pfx_feed, pfx_finish and
 * pfx_release over the typed name##_feed/_finish/_release of state T. */
#define TW_DECODER_ADAPTERS(pfx, name, T)                                                          \
    static tw_status pfx##_feed(void *s, const char *b, size_t n)                                  \
    {                                                                                              \
        return name##_feed((T *)s, b, n);                                                          \
    }                                                                                              \
    static tw_status pfx##_finish(void *s, tw_result *out)                                         \
    {                                                                                              \
        return name##_finish((T *)s, out);                                                         \
    }                                                                                              \
    static void pfx##_release(void *s)                                                             \
    {                                                                                              \
        name##_release((T *)s);                                                                    \
    }

/*
 * The void* steps of a tw_format_ops (pfx_new, pfx_feed, pfx_finish,
 * pfx_reset, pfx_free) over a module's public pub##_new, _feed, _finish,
 * _reset and _free on its opaque type T.
 */
#define TW_DECODER_OPS(pfx, pub, T)                                                                \
    static void *pfx##_new(const tw_decode_opts *o, tw_event_fn fn, void *u)                       \
    {                                                                                              \
        return pub##_new(o, fn, u);                                                                \
    }                                                                                              \
    static tw_status pfx##_feed(void *d, const char *b, size_t n)                                  \
    {                                                                                              \
        return pub##_feed((T *)d, b, n);                                                           \
    }                                                                                              \
    static tw_status pfx##_finish(void *d, tw_result *out)                                         \
    {                                                                                              \
        return pub##_finish((T *)d, out);                                                          \
    }                                                                                              \
    static tw_status pfx##_reset(void *d, const tw_decode_opts *o, tw_event_fn fn, void *u)        \
    {                                                                                              \
        return pub##_reset((T *)d, o, fn, u);                                                      \
    }                                                                                              \
    static void pfx##_free(void *d)                                                                \
    {                                                                                              \
        pub##_free((T *)d);                                                                        \
    }

/*
 * A reset keeps the allocations of a decoder's buffers: tw_bufs_detach
 * moves the n buffers *b[i] out into keep[i] (each left empty, so a release
 * does not free them); after the state is set up again, tw_bufs_attach
 * gives each its allocation back, empty (len 0, NUL-terminated; max as the
 * setup set it).
 */
static inline void tw_bufs_detach(tw_buf *const *b, tw_buf *keep, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        keep[i] = *b[i];
        memset(b[i], 0, sizeof *b[i]);
    }
}

static inline void tw_bufs_attach(tw_buf *const *b, const tw_buf *keep, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        b[i]->data = keep[i].data;
        b[i]->cap = keep[i].cap;
        b[i]->len = 0;
        if (b[i]->data)
            b[i]->data[0] = '\0';
    }
}

/*
 * A body-buffering decoder: a response format streams by holding the
 * input (up to max_input_bytes) and decoding it whole at finish.
 */
typedef tw_status (*tw_body_fn)(tw_wire_sink *k, const char *buf, size_t len);

typedef struct tw_body_dec {
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_buf in;
    bool too_large;
    bool finished;
    tw_status stop; /* a callback's status that stopped the decode; TW_OK while none */
} tw_body_dec;

/* The steps of tw_format_ops: new, feed, reset, free (finish is the
 * format's own, over tw_body_finish). */
void *tw_body_new(const tw_decode_opts *o, tw_event_fn fn, void *u);
tw_status tw_body_feed(void *s, const char *b, size_t n);
tw_status tw_body_reset(void *s, const tw_decode_opts *o, tw_event_fn fn, void *u);
void tw_body_free(void *s);
/* Decode the held body with `decode`, then add input_too_large when the
 * input was cut and sort the diagnostics; the held body's buffer is kept
 * for a reset. TW_ERR_STATE for a second finish. */
tw_status tw_body_finish(tw_body_dec *d, tw_result *out, tw_body_fn decode);
/* Batch form: init, feed buf whole, finish with `decode`. */
tw_status tw_body_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out,
                         tw_body_fn decode);

/*
 * A response format over the body-buffering decoder: its finish step
 * pfx##_finish (for tw_format_ops, beside tw_body_new, _feed, _reset, _free)
 * and its batch decode `pub`, both reading the body with `decode`.
 */
#define TW_BODY_FORMAT(pfx, pub, decode)                                                           \
    static tw_status pfx##_finish(void *s, tw_result *out)                                         \
    {                                                                                              \
        return tw_body_finish(s, out, decode);                                                     \
    }                                                                                              \
    tw_status pub(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out)            \
    {                                                                                              \
        return tw_body_decode(buf, len, o, out, decode);                                           \
    }

#endif
