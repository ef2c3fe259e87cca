/*
 * A small HTTP server on 127.0.0.1 that hands each whole POST body to a
 * callback and sends the answer it fills in: the mock backend's server in its
 * plain mode (mock.h, tw_mock_opts.handler), with the defences of
 * `toolwire serve` against hostile clients: epoll event loops in a thread
 * pool, a cap on connections in all and per address, a deadline for a
 * request's arrival, a no-progress timeout, a budget of request bytes held.
 * Since a callback may block (the reference proxy waits on its upstream), it
 * runs on one of `workers` threads while the connection is suspended; a
 * callback that waits asks tw_loop_reply_abandoned and stops once the client
 * has left or the server is stopping. Used by the upstream reference server
 * of `run --upstream` and by the reference proxy. Zero fields take serve's
 * defaults (mock.h).
 */
#ifndef TOOLWIRE_LOOPBACK_H
#define TOOLWIRE_LOOPBACK_H

#include <stdbool.h>
#include <stddef.h>

#include "mock.h"

typedef tw_mock_reply tw_loop_reply;

/* Called once per request with its whole body (not NUL-terminated) and the
 * value of the named request header the server was asked to pass (or NULL). */
typedef tw_mock_handler tw_loop_fn;

typedef struct tw_loop_opts {
    unsigned short port;          /* 0: any free port */
    size_t max_body;              /* request body cap; 0: 16 MiB */
    unsigned max_connections;     /* open connections in all; 0: 4096 */
    unsigned max_per_ip;          /* open connections from one address; 0: 128 */
    unsigned threads;             /* event-loop threads; 0: 4 */
    unsigned workers;             /* threads running the callback; 0: 16 */
    unsigned request_deadline_ms; /* a request must arrive whole within this; 0: 30000 */
    size_t inflight_budget;       /* request body bytes held in all; 0: 64 MiB */
    unsigned timeout_s;           /* no-progress (idle) timeout of a connection; 0: 120 */
    const char *header;           /* request header passed to the callback, or NULL */
    tw_loop_fn fn;
    void *user;
} tw_loop_opts;

typedef struct tw_loop tw_loop;

/* Has the client of this request left, or is the server stopping? (A callback
 * that waits on something asks this and stops its work.) */
static inline bool tw_loop_reply_abandoned(const tw_loop_reply *r)
{
    return tw_mock_reply_abandoned(r);
}

/* TW_ERR_IO when the port cannot be bound (why says which). */
tw_status tw_loop_start(const tw_loop_opts *o, tw_loop **out, tw_error *err);
unsigned short tw_loop_port(const tw_loop *l);
/* "http://127.0.0.1:PORT" (owned). */
const char *tw_loop_url(const tw_loop *l);
/* Stop (waits for the open connections) and free; NULL is fine. */
void tw_loop_stop(tw_loop *l);

#endif
