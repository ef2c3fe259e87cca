/*
 * Server-sent events framing (the WHATWG "event stream" rules), as a push
 * parser: bytes in any split, events out through a callback. The rules and
 * the points where toolwire chooses are in docs/formats/sse.md.
 *
 * Memory is bounded by two limits: one partial line is held up to
 * max_line_bytes, one event's data up to max_event_bytes. Over a cap the
 * parser reports a diagnostic and skips (never grows).
 */
#ifndef TOOLWIRE_SSE_H
#define TOOLWIRE_SSE_H

#include "toolwire/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One dispatched event. Pointers are valid during the callback only. */
typedef struct tw_sse_event {
    const char *type; /* the event: field, "message" when none was given */
    size_t type_len;
    const char *data; /* data lines joined with "\n" (no trailing "\n") */
    size_t data_len;
    const char *id; /* the last event id so far ("" when none) */
    size_t id_len;
    uint64_t offset; /* byte offset of the event's first field line */
    bool terminated; /* false only for the event flushed by finish() */
} tw_sse_event;

/* Event callback; a status other than TW_OK stops feed/finish and is returned. */
typedef tw_status (*tw_sse_event_fn)(void *user, const tw_sse_event *ev);
/* Diagnostic callback: TW_D_SSE_LINE_TOO_LONG (offset: the line's first byte)
 * or TW_D_SSE_EVENT_TOO_LARGE (offset: the event's first field line). */
typedef tw_status (*tw_sse_diag_fn)(void *user, tw_status code, uint64_t offset);

/*
 * Caller-owned state; zero-initialise, then tw_sse_init. Fields are private
 * except `fed` (bytes consumed so far) and `retry_ms` (last valid retry:
 * field, -1 when none).
 */
typedef struct tw_sse {
    size_t max_line;
    size_t max_event;
    tw_sse_event_fn on_event;
    tw_sse_diag_fn on_diag;
    void *user;
    bool flush_at_end; /* finish() dispatches an unterminated last event */
    uint64_t fed;
    long long retry_ms;
    /* line layer */
    tw_buf line;       /* partial line held across feeds */
    uint64_t line_off; /* offset of the held line's first byte */
    bool line_held;    /* a partial line is held (maybe empty) */
    bool line_skip;    /* over max_line: skip to the end of the line */
    bool cr_seen;      /* the last byte was CR: a following LF is part of it */
    bool first_line;   /* no line finished yet (a leading BOM is dropped) */
    /* event layer */
    tw_buf data;
    tw_buf type;
    tw_buf id;
    bool ev_open; /* a field line was seen since the last dispatch */
    bool ev_skip; /* over a cap: drop the event at its blank line */
    bool has_data;
    uint64_t ev_off;
    uint64_t nevents; /* events dispatched */
} tw_sse;

/*
 * Prepare `s`. limits may be NULL (defaults). on_diag may be NULL. With
 * flush_at_end false, finish() follows the standard and discards an event
 * not ended by a blank line; with true it dispatches it (terminated = false).
 */
tw_status tw_sse_init(tw_sse *s, const tw_limits *limits, bool flush_at_end,
                      tw_sse_event_fn on_event, tw_sse_diag_fn on_diag, void *user);
/* Push bytes. Events and diagnostics fire from inside. Linear in len. */
tw_status tw_sse_feed(tw_sse *s, const char *buf, size_t len);
/* End of input: an unterminated last line ends there; see init about the
 * last event. Releases the parser's memory (tw_sse_init again to reuse). */
tw_status tw_sse_finish(tw_sse *s);
/* Release without finishing (safe after finish, and on a zeroed struct). */
void tw_sse_release(tw_sse *s);

/* Bytes of an event that have not been dispatched yet (a held line or an
 * open event): true when the input so far does not end on an event boundary. */
bool tw_sse_pending(const tw_sse *s);

#ifdef __cplusplus
}
#endif
#endif
