/*
 * A small HTTP server on 127.0.0.1 that hands each whole POST body to a
 * callback and sends the answer it fills in: the mock backend's server in its
 * plain mode (mock.h, tw_mock_opts.handler: one thread per connection, since
 * a callback may block). Used by the upstream reference server of
 * `run --upstream` and by the reference proxy. Bounded: request bodies by
 * max_body (413 past it), open connections by max_connections, a request's
 * arrival by the mock's request deadline, an idle connection by timeout_s.
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
    unsigned short port;         /* 0: any free port */
    size_t max_body;             /* request body cap; 0: 16 MiB */
    unsigned max_connections;    /* 0: 64 */
    unsigned timeout_s;          /* idle connection timeout; 0: 120 */
    const char *header;          /* request header passed to the callback, or NULL */
    tw_loop_fn fn;
    void *user;
} tw_loop_opts;

typedef struct tw_loop tw_loop;

/* TW_ERR_IO when the port cannot be bound (why says which). */
tw_status tw_loop_start(const tw_loop_opts *o, tw_loop **out, tw_error *err);
unsigned short tw_loop_port(const tw_loop *l);
/* "http://127.0.0.1:PORT" (owned). */
const char *tw_loop_url(const tw_loop *l);
/* Stop (waits for the open connections) and free; NULL is fine. */
void tw_loop_stop(tw_loop *l);

#endif
