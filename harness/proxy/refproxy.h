/*
 * The reference proxy (`toolwire serve --proxy FROM:TO --upstream URL`): a
 * translation proxy built from the library's request decoders and encoders
 * and its response decoders and encoders, on 127.0.0.1. A request in FROM's
 * format (anthropic: POST …/messages, openai: POST …/chat/completions) is
 * decoded to the neutral request, written in TO's format, forwarded with
 * libcurl to the upstream, and the upstream's answer is decoded and written
 * back in FROM's format; a streaming request is answered as a stream (the
 * upstream's stream is read whole first). Reasoning settings are mapped
 * (Anthropic thinking budget <-> OpenAI reasoning_effort); error statuses
 * keep their status with the message in FROM's error envelope; a transport
 * error is answered 502. Everything relayed to the client (error messages,
 * bodies, streamed text) is scrubbed of the process-wide secret set, which
 * holds the key sent upstream. The server is serve's (loopback.h): event
 * loops, per-address cap, request deadline, no-progress timeout; a request
 * waits on the upstream on one of `workers` threads with its connection
 * suspended, and the upstream transfer stops once its client has left or
 * the proxy is stopping. See docs/proxies.md.
 */
#ifndef TOOLWIRE_REFPROXY_H
#define TOOLWIRE_REFPROXY_H

#include <stdbool.h>
#include <stdio.h>

#include "client.h"
#include "toolwire/core.h"

typedef struct tw_refproxy_opts {
    const char *from;      /* "anthropic" or "openai": what clients speak */
    const char *to;        /* "openai" or "anthropic": what the upstream speaks */
    const char *upstream;  /* upstream base URL */
    unsigned short port;   /* 0: any free port */
    tw_limits limits;      /* request bodies, decoding, encoding */
    tw_client_opts client; /* timeouts, retries, key (base_url and abandon are set here) */
    /* the server, as `toolwire serve`'s (zero: serve's defaults, mock.h) */
    unsigned max_connections;     /* open connections in all; 0: 4096 */
    unsigned max_per_ip;          /* open connections from one address; 0: 128 */
    unsigned threads;             /* event-loop threads; 0: 4 */
    unsigned workers;             /* requests waiting on the upstream at once; 0: 16 */
    unsigned request_deadline_ms; /* a request must arrive whole within this; 0: 30000 */
    size_t inflight_budget;       /* request body bytes held in all; 0: 64 MiB */
    unsigned idle_timeout_s;      /* no-progress timeout of a connection; 0: 120 */
    FILE *log;                    /* one line per request, or NULL */
} tw_refproxy_opts;

typedef struct tw_refproxy tw_refproxy;

/* "anthropic:openai" or "openai:anthropic". */
bool tw_refproxy_spec_parse(const char *arg, char *from, size_t flen, char *to, size_t tlen,
                            tw_error *err);

tw_status tw_refproxy_start(const tw_refproxy_opts *o, tw_refproxy **out, tw_error *err);
const char *tw_refproxy_url(const tw_refproxy *p);
unsigned long tw_refproxy_count(tw_refproxy *p);
void tw_refproxy_stop(tw_refproxy *p);

/*
 * The request translation alone: body in FROM's format to TO's format
 * (appended to out). Returns the HTTP status the proxy would answer on
 * failure (400, 413, 500) with why filled, or 0 on success; *stream says
 * whether the client asked for a stream.
 */
int tw_refproxy_translate_request(const char *from, const char *to, const char *body, size_t len,
                                  const tw_limits *limits, tw_buf *out, bool *stream,
                                  tw_error *err);

#endif
