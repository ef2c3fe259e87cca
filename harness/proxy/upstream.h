/*
 * The upstream reference server of `toolwire run --upstream FORMAT@PORT`:
 * the scripted model (script.h) behind a proxy under test, on 127.0.0.1.
 * Every request that arrives is decoded in the upstream's wire format,
 * judged with the client checks, answered from the script in that format and
 * kept as a record, so that the run can pair it with the exchange it sent to
 * the proxy (by the directive's nonce) and judge the translation (xlt.h).
 *
 *   openai       POST …/chat/completions  (openai-response / openai-stream)
 *   anthropic    POST …/messages          (anthropic-response / anthropic-stream)
 *   vllm-native  POST /generate           (vllm-generate-response)
 */
#ifndef TOOLWIRE_UPSTREAM_H
#define TOOLWIRE_UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "checks.h"
#include "toolwire/neutral.h"

typedef struct tw_upstream_opts {
    const char *format;  /* "openai", "anthropic", "vllm-native" */
    unsigned short port; /* 0: any free port */
    tw_limits limits;    /* request bodies (max_input_bytes), decoding, answers */
    size_t max_records;  /* records kept until taken; 0: 4096 (the oldest go first) */
} tw_upstream_opts;

/* One request as it arrived at the upstream, and what the script answered. */
typedef struct tw_upstream_record {
    unsigned long seq; /* 1, 2, … in arrival order */
    char path[128];
    cJSON *body;  /* the request body, NULL when it is not JSON */
    bool decoded; /* req holds the neutral request */
    tw_request req;
    char why[256]; /* why the request was refused, "" when answered */
    char *nonce;   /* the directive's nonce, NULL without one */
    int status;    /* what the upstream answered */
    bool stream;
    char *model_text;    /* what the script wrote, NULL when not answered */
    int step;            /* the directive step used, -1 for the default policy */
    bool reasoning;      /* the script wrote reasoning */
    tw_check_set checks; /* CLI-01..CLI-07 of the request */
} tw_upstream_record;

typedef struct tw_upstream tw_upstream;

bool tw_upstream_format_known(const char *format);
/* The path a client of the format posts to ("/v1/chat/completions", …), NULL when unknown. */
const char *tw_upstream_path(const char *format);
/* Parse "FORMAT@PORT" (PORT 1..65535). */
bool tw_upstream_spec_parse(const char *arg, char *format, size_t flen, unsigned short *port,
                            tw_error *err);

/*
 * Answer one request as the upstream does, without a server: fills *rec
 * (free with tw_upstream_record_free) and the reply (status, content type,
 * body appended to *out).
 */
void tw_upstream_answer(const char *format, const char *path, const char *body, size_t len,
                        const tw_limits *limits, tw_upstream_record *rec, const char **ctype,
                        tw_buf *out);
void tw_upstream_record_free(tw_upstream_record *r);

tw_status tw_upstream_start(const tw_upstream_opts *o, tw_upstream **out, tw_error *err);
const char *tw_upstream_url(const tw_upstream *u);
unsigned short tw_upstream_port(const tw_upstream *u);
/* The last sequence number handed out (0 before any request). */
unsigned long tw_upstream_seq(tw_upstream *u);
/* Move the records with seq > since out of the server (free with tw_upstream_records_free). */
tw_status tw_upstream_take(tw_upstream *u, unsigned long since, tw_upstream_record **out,
                           size_t *n);
void tw_upstream_records_free(tw_upstream_record *r, size_t n);
/* Records dropped because max_records were waiting. */
unsigned long tw_upstream_dropped(tw_upstream *u);
void tw_upstream_stop(tw_upstream *u);

#endif
