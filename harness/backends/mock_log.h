/*
 * The mock backend's request log: a ring of the newest judged requests (O(1)
 * per request, bounded memory) and the escaping of every byte a client
 * controls before it reaches a log line.
 */
#ifndef TOOLWIRE_MOCK_LOG_H
#define TOOLWIRE_MOCK_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "checks.h"

/* One judged request. */
typedef struct tw_mock_record {
    unsigned long seq; /* 1, 2, … in the order the answers were logged */
    char path[128];
    char fixture[160];   /* "" when no exchange matched */
    char hint[256];      /* the X-Toolwire-Exchange the request named, "" when none */
    long exchange;       /* index in the fixture, -1 when none */
    int status;          /* what the mock answered */
    bool fault;          /* a fault was injected */
    size_t ambiguous;    /* > 1: this many exchanges matched equally */
    tw_check_set checks; /* CLI-01..CLI-07 */
    /* borrowed while the record is logged, NULL in the ring */
    const char *note; /* why no exchange matched, or NULL */
    const char *body; /* the request body (body_len bytes), or NULL */
    size_t body_len;
} tw_mock_record;

/* The newest `cap` records in seq order; the oldest is dropped when a record
 * arrives at a full ring. Each record is kept packed in one piece of memory
 * (its path, fixture name, verdicts and evidence, no fixed-size buffers), so
 * the ring holds about the bytes its records hold. */
typedef struct tw_mock_packed tw_mock_packed;
typedef struct tw_mock_ring {
    tw_mock_packed **r;
    size_t cap;   /* records kept at most */
    size_t alloc; /* slots allocated (grows up to cap) */
    size_t head;  /* slot of the oldest record */
    size_t n;
    unsigned long writes; /* record slots written or moved, for tests: one per push
                             while the ring is full */
    size_t bytes;         /* bytes of the packed records held now */
    /* the records written while the ring fills are laid one after another in
     * blocks of 2 MiB (huge pages where the kernel gives them: a fresh page is
     * the dearest part of a new record); a full ring rewrites its oldest
     * record in place when the new one fits there */
    char **blocks;
    size_t nblocks, cblocks;
    size_t left; /* bytes free at the end of the newest block */
} tw_mock_ring;

void tw_mock_ring_init(tw_mock_ring *g, size_t cap);
/* Take the record (its checks are freed: the ring keeps a packed copy).
 * Records must come in increasing seq. On allocation failure the record's
 * checks are freed and false returned. */
bool tw_mock_ring_push(tw_mock_ring *g, tw_mock_record *rec);
/* Copy the records with seq > since (checks deep-copied) into a new array. */
bool tw_mock_ring_since(const tw_mock_ring *g, unsigned long since, tw_mock_record **out,
                        size_t *n);
void tw_mock_ring_free(tw_mock_ring *g);

/*
 * Append s[0..n) for a log line: printable ASCII and valid UTF-8 as is,
 * control bytes (C0, DEL, the C1 controls), bytes that are not valid UTF-8
 * and the backslash as \xHH (\\ for the backslash), so that no client byte
 * can start a new line or reach the terminal as an escape sequence.
 */
void tw_log_escape(tw_buf *b, const char *s, size_t n);

/*
 * The end of a request's log line: ": NOTE" when the request matched nothing,
 * and with body_max > 0 " body: BODY" (at most body_max bytes, cut at a UTF-8
 * boundary, then "… (N bytes)"), both escaped as tw_log_escape does. Before
 * either is written, the credential fields the body holds (api_key, token, …
 * at any depth, max_depth bounding the parse) join the process-wide secret
 * set, so the redaction every output passes through scrubs them.
 */
void tw_mock_log_extra(tw_buf *line, const tw_mock_record *rec, size_t body_max, size_t max_depth);

#endif
