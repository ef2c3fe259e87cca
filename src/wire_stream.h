/*
 * Internal: the base of the JSON event-stream decoders (OpenAI chunks,
 * Anthropic messages, Gemini streamGenerateContent, the Responses API). A
 * decoder embeds a tw_wire_stream as its FIRST member and describes itself
 * in a tw_wire_stream_kind; the base holds what every such stream keeps
 * (options, limits, event sink, result, SSE reader, the bytes before the
 * first event, the per-event JSON arena, the stop status) and does the
 * steps they share: new, feed, finish, reset, release, free and the batch
 * decode. The format reads each event (kind->event) and closes its message
 * (kind->close, kind->end).
 *
 * An event, in order: nothing once a callback stopped the decode, nor
 * after the end (kind->ended, unless kind->read_after_end); any_event set;
 * with kind->done_marker the data trimmed and data: [DONE] taken as the end
 * (w->done); the data parsed into the arena (max_depth + kind->depth) with
 * its lint diagnostics; kind->event; the tree dropped.
 *
 * The finish, in order: the SSE reader's end; kind->close (calls still
 * open); an error envelope given in place of a stream; stream_truncated
 * when kind->ended says the stream did not end (kind->unended, or the
 * no-event message when no event came); kind->end; input_too_large, the
 * diagnostics sorted; the result handed over.
 */
#ifndef TOOLWIRE_WIRE_STREAM_H
#define TOOLWIRE_WIRE_STREAM_H

#include <stddef.h>

#include "json_marks.h"
#include "wire_common.h"

typedef struct tw_wire_stream tw_wire_stream;

/* One event as the base hands it to a format. */
typedef struct tw_wire_event {
    const tw_sse_event *sse;
    const char *data; /* its data (trimmed in a stream with a [DONE] marker) */
    size_t len;
    int64_t off;      /* where the event starts in the input */
    cJSON *j;         /* the data's tree, in the arena; NULL when the data is not JSON */
    tw_status parsed; /* the parse's status */
    tw_error err;     /* why the data is not JSON */
} tw_wire_event;

/* What a format adds to the base. */
typedef struct tw_wire_stream_kind {
    size_t size;         /* of the decoder, whose first member is the tw_wire_stream */
    size_t depth;        /* levels of an event around the arguments, over max_depth */
    const char *what;    /* an event's data, as chunk_json names it ("chunk data") */
    const char *unended; /* stream_truncated when events came but none ended the stream */
    bool done_marker;    /* data: [DONE] is read as the end marker (sets w->done) */
    bool read_after_end; /* events after the end are read too (else dropped unread) */
    size_t nkeep;        /* the format's own buffers a reset keeps the allocation of: */
    size_t keep[2];      /* their offsets in the decoder */
    void (*init)(tw_wire_stream *w); /* NULL: nothing */
    /* an event (see above); its tree is dropped after */
    tw_status (*event)(tw_wire_stream *w, const tw_wire_event *e);
    tw_status (*close)(tw_wire_stream *w); /* NULL: nothing */
    bool (*ended)(const tw_wire_stream *w);
    tw_status (*end)(tw_wire_stream *w);
    void (*release)(tw_wire_stream *w); /* the format's own allocations; NULL: none */
} tw_wire_stream_kind;

struct tw_wire_stream {
    const tw_wire_stream_kind *kind;
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_result res;
    tw_sse sse;
    uint64_t fed;
    bool too_large;
    bool finished;
    bool any_event;
    bool done;           /* data: [DONE] came (kind->done_marker) */
    tw_buf head;         /* the input while no event came yet (<= max_event_bytes) */
    bool head_off;       /* head is past its cap, not needed, or an event came */
    bool nonstd_warned;  /* json_not_rfc8259 given once per stream */
    tw_json_arena arena; /* each event's tree: read, then dropped whole */
    tw_status stop;      /* a callback's status that stopped the decode; TW_OK while none */
};

/* Where w's values, diagnostics and events go. */
static inline tw_wire_sink tw_wire_stream_sink(tw_wire_stream *w)
{
    tw_wire_sink k = {&w->res, &w->o, &w->L, w->fn, w->user, &w->stop};
    return k;
}

/* tw_wire_diag into w's result. */
tw_status tw_wire_stream_diag(tw_wire_stream *w, bool error, tw_status code, int64_t off,
                              const char *msg);

/* Set up the decoder w begins (zeroed whole, kind->size bytes), then kind->init. */
tw_status tw_wire_stream_init(tw_wire_stream *w, const tw_wire_stream_kind *kind,
                              const tw_decode_opts *o, tw_event_fn fn, void *user);
/* A decoder of `kind` on the heap; NULL when memory ran out. */
void *tw_wire_stream_new(const tw_wire_stream_kind *kind, const tw_decode_opts *o, tw_event_fn fn,
                         void *user);
/* The steps of tw_format_ops, on the decoder s begins. */
tw_status tw_wire_stream_feed(void *s, const char *buf, size_t len);
tw_status tw_wire_stream_finish(void *s, tw_result *out);
/* Start the next decode, keeping the allocations of head, the arena and
 * the kind's kept buffers. */
tw_status tw_wire_stream_reset(void *s, const tw_decode_opts *o, tw_event_fn fn, void *user);
void tw_wire_stream_release(void *s);
void tw_wire_stream_free(void *s);
/*
 * Batch decode on the caller's decoder w (of kind->size bytes): init, feed
 * buf whole, finish, release (tw_decode_batch); on a failure *out is left
 * empty, its diagnostic lists capped as o says.
 */
tw_status tw_wire_stream_decode(tw_wire_stream *w, const tw_wire_stream_kind *kind, const char *buf,
                                size_t len, const tw_decode_opts *o, tw_result *out);

/* Is e's SSE event type `name` (event: error, …)? */
bool tw_wire_event_is(const tw_wire_event *e, const char *name);
/* chunk_json for an event whose data is not a JSON object. */
tw_status tw_wire_stream_not_object(tw_wire_stream *w, const tw_wire_event *e);
/* stream_error for an error event whose data says nothing readable: its
 * first 200 bytes. */
tw_status tw_wire_stream_raw_error(tw_wire_stream *w, const tw_wire_event *e);

/*
 * The array `items` of n open items (calls, blocks, output items) of sz
 * bytes each, with room for one more: its capacity *cap doubles from
 * `first`, never past max (n < max). NULL when memory ran out (items is
 * then left as it was).
 */
void *tw_wire_room(void *items, size_t *cap, size_t n, size_t sz, size_t first, size_t max);

/*
 * The decoder T of `kind` (a struct tw_wire_stream w first) as a format:
 * T##_open, the step new of its tw_format_ops (feed, finish, reset and free
 * are tw_wire_stream_feed, _finish, _reset and _free), and its batch decode
 * T##_decode.
 */
#define TW_WIRE_STREAM_FORMAT(T, kind)                                                             \
    static void *T##_open(const tw_decode_opts *o, tw_event_fn fn, void *user)                     \
    {                                                                                              \
        return tw_wire_stream_new(&(kind), o, fn, user);                                           \
    }                                                                                              \
    tw_status T##_decode(const char *buf, size_t len, const tw_decode_opts *o, tw_result *out)     \
    {                                                                                              \
        T d;                                                                                       \
        return tw_wire_stream_decode(&d.w, &(kind), buf, len, o, out);                             \
    }

/*
 * The five functions of a public typed stream API (pub##_new, _feed,
 * _finish, _reset, _free on the opaque type T) over the base, for the
 * decoder of `kind`.
 */
#define TW_WIRE_STREAM_API(pub, T, kind)                                                           \
    T *pub##_new(const tw_decode_opts *o, tw_event_fn fn, void *user)                              \
    {                                                                                              \
        return tw_wire_stream_new(&(kind), o, fn, user);                                           \
    }                                                                                              \
    tw_status pub##_feed(T *d, const char *buf, size_t len)                                        \
    {                                                                                              \
        return tw_wire_stream_feed(d, buf, len);                                                   \
    }                                                                                              \
    tw_status pub##_finish(T *d, tw_result *out)                                                   \
    {                                                                                              \
        return tw_wire_stream_finish(d, out);                                                      \
    }                                                                                              \
    tw_status pub##_reset(T *d, const tw_decode_opts *o, tw_event_fn fn, void *user)               \
    {                                                                                              \
        return tw_wire_stream_reset(d, o, fn, user);                                               \
    }                                                                                              \
    void pub##_free(T *d)                                                                          \
    {                                                                                              \
        tw_wire_stream_free(d);                                                                    \
    }

#endif
