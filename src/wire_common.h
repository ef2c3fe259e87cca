/*
 * Internal: plumbing shared by the decoders. The diagnostic sort, the
 * batch-over-stream driver, the void* adapters a tw_format_ops needs, and
 * the body-buffering decoder the JSON response formats stream with.
 */
#ifndef TOOLWIRE_WIRE_COMMON_H
#define TOOLWIRE_WIRE_COMMON_H

#include <string.h>

#include "toolwire/decode.h"
#include "toolwire/openai.h"

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

/*
 * The end of a wire decode into k->res: input_too_large when the input was
 * cut, then both diagnostic lists sorted and empty content/thinking set to "".
 */
tw_status tw_wire_close(tw_wire_sink *k, bool too_large);

/*
 * Feed of an SSE wire stream (OpenAI, Anthropic) past its finished check:
 * the bytes are clipped to max_input_bytes and counted in *fed, kept in
 * head while no event came yet (an error envelope in place of a stream),
 * and given to the SSE reader.
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

/* A warning held back until its call is accepted. */
typedef struct tw_pending {
    tw_status code;
    char msg[224];
} tw_pending;

/*
 * Every kind of warning a call can hold back, each at most once per call:
 * a decoder's array of pending warnings has TW_PENDING_MAX slots, and
 * tw_pending_add keeps one warning per code, so it can never overflow.
 */
#define TW_PENDING_CODES(X)                                                                        \
    X(TW_D_PARAMETERS_ALIAS)                                                                       \
    X(TW_D_ARGUMENTS_AS_STRING)                                                                    \
    X(TW_D_ARGUMENTS_AS_OBJECT)                                                                    \
    X(TW_D_ARGS_SCHEMA)                                                                            \
    X(TW_D_LEGACY_FUNCTION_CALL)                                                                   \
    X(TW_D_DUPLICATE_ID)                                                                           \
    X(TW_D_DUPLICATE_KEY)                                                                          \
    X(TW_D_JSON_NOT_RFC8259)

#define TW_PENDING_ONE(code) +1
enum { TW_PENDING_MAX = 0 TW_PENDING_CODES(TW_PENDING_ONE) };
#undef TW_PENDING_ONE

/*
 * Hold a warning: returns false (and holds nothing) when `code` is not one
 * of TW_PENDING_CODES or is already held; warns has TW_PENDING_MAX slots.
 */
bool tw_pending_add(tw_pending *warns, size_t *nwarn, tw_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/*
 * Refusals every decoder shares for a parsed call object: a string or key in
 * it held U+0000 (removed by tw_json_parse_lint: json_nul), or it repeats
 * one of name, arguments, parameters, id, type, function, input
 * (call_duplicate_key). Returns the refusal with its text in why, or TW_OK.
 */
tw_status tw_call_object_check(const cJSON *obj, char *why, size_t whylen);

/*
 * Repeated keys at any depth of accepted arguments: the later members are
 * removed, the first value of each key kept, and one duplicate_key warning
 * naming the first path is held. TW_ERR_NOMEM possible.
 */
tw_status tw_args_dedupe(cJSON *args, tw_pending *warns, size_t *nwarn);

/*
 * The checks a call's parsed arguments pass last, in this order: size
 * (max_args_bytes), the declared tool's schema, then max_calls (the
 * calls res holds so far). Returns the refusal, its text in why, or TW_OK. A
 * schema failure under o->schema_warn does not refuse: it is held as
 * warns[(*nwarn)++].
 */
tw_status tw_call_check(const tw_decode_opts *o, const tw_limits *L, tw_result *res,
                        const char *name, const cJSON *args, char *why, size_t whylen,
                        tw_pending *warns, size_t *nwarn);

/*
 * Batch decode through a streaming decoder whose init already ran into
 * state s with status st: feed buf whole, then finish into *out; on any
 * failure before finish, release s, leave *out empty and return the
 * failure.
 */
tw_status tw_decode_batch(void *s, tw_status st, tw_status (*feed)(void *, const char *, size_t),
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

/* As TW_DECODER_ADAPTERS, plus pfx_init over name##_init. */
#define TW_DECODER_ADAPTERS_INIT(pfx, name, T)                                                     \
    static tw_status pfx##_init(void *s, const tw_decode_opts *o, tw_event_fn fn, void *u)         \
    {                                                                                              \
        return name##_init((T *)s, o, fn, u);                                                      \
    }                                                                                              \
    TW_DECODER_ADAPTERS(pfx, name, T)

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
} tw_body_dec;

tw_status tw_body_init(void *s, const tw_decode_opts *o, tw_event_fn fn, void *u);
tw_status tw_body_feed(void *s, const char *b, size_t n);
void tw_body_release(void *s);
/* Decode the held body with `decode`, then add input_too_large when the
 * input was cut, sort the diagnostics and release s. */
tw_status tw_body_finish(tw_body_dec *d, tw_result *out, tw_body_fn decode);
/* Batch form: init, feed buf whole, finish with `decode`. */
tw_status tw_body_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out,
                         tw_body_fn decode);

#endif
