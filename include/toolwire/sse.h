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

/*
 * One dispatched event. Every pointer points into the parser's own buffers
 * and is valid during the callback only: copy what is kept. None is NULL
 * (an absent field is an empty string of length 0); the strings are not
 * NUL-terminated, use the lengths.
 */
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

/*
 * Event callback, called synchronously from tw_sse_feed and tw_sse_finish
 * with the `user` pointer given to tw_sse_init. Return TW_OK to go on; any
 * other status stops the parser: the feed or finish that called it returns
 * that status and the parser only answers TW_ERR_STATE afterwards (release
 * it). The callback must not call back into the same parser.
 */
typedef tw_status (*tw_sse_event_fn)(void *user, const tw_sse_event *ev);
/*
 * Diagnostic callback, same calling rules: `code` is TW_D_SSE_LINE_TOO_LONG
 * (offset: the line's first byte) or TW_D_SSE_EVENT_TOO_LARGE (offset: the
 * event's first field line); offsets count from the first byte ever fed.
 */
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
    bool done;        /* finished or failed: feed and finish answer TW_ERR_STATE */
} tw_sse;

/*
 * Prepare `s` (not NULL; its previous contents are overwritten, not freed).
 *   limits        max_line_bytes and max_event_bytes are read; NULL means
 *                 the defaults. Not kept after the call.
 *   flush_at_end  false: finish follows the standard and discards an event
 *                 not ended by a blank line; true: finish dispatches it
 *                 (terminated = false).
 *   on_event      called with each event; NULL drops events (the parser
 *                 still frames and counts them).
 *   on_diag       called with each cap diagnostic; NULL ignores them.
 *   user          passed to both callbacks, never dereferenced.
 * Returns TW_OK; nothing is allocated until the first feed.
 */
TW_API tw_status tw_sse_init(tw_sse *s, const tw_limits *limits, bool flush_at_end,
                             tw_sse_event_fn on_event, tw_sse_diag_fn on_diag, void *user);
/*
 * Push buf[0, len) (buf may be NULL when len is 0; any split of the input
 * gives the same events). Events and diagnostics fire from inside, in input
 * order. Linear in len; at most max_line_bytes + max_event_bytes are held.
 * Returns TW_OK, TW_ERR_NOMEM (the parser is then failed: release it), a
 * callback's status, or TW_ERR_STATE after finish or a failure.
 */
TW_API tw_status tw_sse_feed(tw_sse *s, const char *buf, size_t len);
/*
 * End of input: an unterminated last line ends there; see init about the
 * last event. Releases the parser's memory whatever it returns (the same
 * statuses as feed); tw_sse_init again to reuse the struct.
 */
TW_API tw_status tw_sse_finish(tw_sse *s);
/* Release without finishing: safe after finish, after a failure, on a
 * zeroed struct, and more than once. */
TW_API void tw_sse_release(tw_sse *s);

/* True when the input so far does not end on an event boundary: a line is
 * held, or an event has fields but was not dispatched yet. `s` not NULL. */
TW_API bool tw_sse_pending(const tw_sse *s);

#ifdef __cplusplus
}
#endif
#endif
