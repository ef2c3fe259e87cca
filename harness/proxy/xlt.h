/*
 * Translation checks XLT-01..XLT-10 (docs/checks.md): a proxy judged from
 * both ends. The request half compares the neutral request the harness sent
 * to the proxy with the neutral request decoded from what arrived at the
 * upstream reference server (upstream.h); the answer half compares the
 * proxy's answer to the client with what the scripted model wrote.
 */
#ifndef TOOLWIRE_XLT_H
#define TOOLWIRE_XLT_H

#include <stdbool.h>
#include <stddef.h>

#include "checks.h"
#include "upstream.h"

/*
 * Is reasoning enabled by this request body (XLT-06, docs/checks.md)? kind (apis.h):
 * OpenAI chat completions, Anthropic messages or /generate. Every
 * setting is read on its own: 1 enabled, 0 not, 2 the settings contradict
 * each other (why, n bytes, names them: "thinking.type: enabled beside
 * reasoning.enabled: false"), -1 the format has no setting the harness reads.
 * why may be NULL.
 */
int tw_xlt_reasoning_enabled(tw_api_kind kind, const cJSON *body, char *why, size_t n);

/*
 * Request translation (XLT-01..XLT-06). `sent` is the request given to the
 * proxy (NULL when it did not decode), `sent_body` its JSON, `sent_kind` its
 * API style; `arrived` the upstream record paired with it (NULL when none
 * arrived); `narrived` how many upstream requests arrived during the
 * exchange. Every check gets a verdict; evidence starts with "upstream
 * request:".
 */
void tw_xlt_request(const tw_request *sent, const cJSON *sent_body, tw_api_kind sent_kind,
                    const tw_upstream_record *arrived, size_t narrived, const char *nonce,
                    tw_check_set *out);

/*
 * Answer translation (XLT-07..XLT-10): the proxy's answer (status, body as
 * received on client_path, stream or not) against the script's model text of
 * `arrived` (NULL: skipped). Evidence starts with "answer to the client:".
 */
void tw_xlt_answer(const tw_upstream_record *arrived, const char *client_path, bool stream,
                   int status, const char *body, size_t len, const tw_limits *limits,
                   tw_check_set *out);

/* Give every XLT check without a verdict a skip with the reason. */
void tw_xlt_skip(tw_check_set *out, const char *why);

#endif

/* ---- the run's side (run.c) ---- */

#include "client.h"
#include "refproxy.h"

/* The upstream of a proxied backend and, for the embedded reference proxy,
 * the proxy itself. */
typedef struct tw_proxied {
    tw_upstream *up;
    tw_refproxy *rp;  /* NULL unless proxy was given */
    char target[400]; /* for the report: what was judged */
} tw_proxied;

/* Start the upstream (format@port) and, when proxy ("FROM:TO") is given, the
 * reference proxy in front of it. base_url (may be NULL) is the backend's URL. */
tw_status tw_proxied_start(const char *format, unsigned short port, const char *proxy,
                           const char *base_url, const tw_limits *limits, tw_proxied *out,
                           tw_error *err);
/* The URL the run sends to: the reference proxy's, else base_url. */
const char *tw_proxied_url(const tw_proxied *p, const char *base_url);
void tw_proxied_stop(tw_proxied *p);

/*
 * One proxied exchange after it was sent: take the upstream records that
 * arrived since `since`, pair one with the exchange, and judge both halves:
 * `client` gets CLI-01..CLI-07 of the upstream request, `xlt` XLT-01..XLT-10.
 */
void tw_xlt_exchange(tw_upstream *up, unsigned long since, const char *path, const cJSON *req_body,
                     bool stream, const tw_http_response *r, const tw_limits *limits,
                     tw_check_set *client, tw_check_set *xlt);
