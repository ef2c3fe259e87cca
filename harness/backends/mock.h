/*
 * The embedded mock backend (libmicrohttpd: a pool of epoll event-loop threads;
 * delays suspend the connection instead of holding a thread) that serves
 * fixtures on a loopback address:
 *
 *   POST /v1/chat/completions, /v1/messages, /generate
 *
 * Profiles: "replay" answers with the recorded responses (JSON bodies, SSE
 * events with their recorded chunking and, with timing, their delays);
 * "hermes", "qwen3-coder", "anthropic" and "vllm-native" are reference servers over the
 * recorded raw model text (decode with the reference decoders, answer with
 * the reference encoders); "script" answers every request with the scripted
 * reference model (script.h), without fixtures or matching (its records name
 * the exchange "script#0"). Requests are matched to fixture exchanges by
 * method, path and a normalised body. Every request is judged with the client
 * checks CLI-01..CLI-07; the verdicts are kept per request and can be read
 * back while the server runs. Faults (delay, dropped connection, truncated
 * stream, error status with Retry-After, malformed chunk) come from the
 * exchange's "faults" or from the server options.
 */
#ifndef TOOLWIRE_MOCK_H
#define TOOLWIRE_MOCK_H

#include <stdbool.h>
#include <stdio.h>

#include "checks.h"
#include "fixture.h"
#include "mock_log.h"

typedef enum tw_match_mode {
    TW_MATCH_NORMALISED = 0, /* body compared without the ignored keys */
    TW_MATCH_EXACT,          /* body compared as a JSON value */
    TW_MATCH_PATH            /* method and path only */
} tw_match_mode;

/* The answer a handler fills in (see tw_mock_opts.handler). */
typedef struct tw_mock_reply {
    int status;        /* 200 unless set */
    const char *ctype; /* static; "application/json" unless set */
    tw_buf body;       /* owned by the server after the callback */
    const void *job;   /* the server's: what tw_mock_reply_abandoned asks about */
} tw_mock_reply;

/*
 * Asked by a handler (plain mode) while it waits on something else: has the
 * client of this request closed its connection, or is the server stopping?
 * Then nobody will read the answer and the handler should stop its work.
 * Thread-safe; false for a reply the server did not hand out.
 */
bool tw_mock_reply_abandoned(const tw_mock_reply *r);

/* Called once per request with its whole body (not NUL-terminated) and the
 * value of the request header named by handler_header (or NULL). */
typedef void (*tw_mock_handler)(void *user, const char *method, const char *url, const char *header,
                                const char *body, size_t len, tw_mock_reply *reply);

typedef struct tw_mock_opts {
    const char *profile; /* "replay" (NULL), "hermes", "qwen3-coder", "anthropic", "vllm-native",
                            "script", "auto": each fixture with the profile that fits it */
    tw_match_mode match;
    const char *const *ignore_keys; /* NULL-terminated; NULL: stream, stream_options, model,
                                       temperature, top_p, max_tokens, seed, user, n */
    bool timing;                    /* replay the recorded delays between events */
    const cJSON *faults;            /* faults for exchanges that have none (not owned) */
    unsigned short port;            /* 0: any free port */
    tw_limits limits;               /* max_input_bytes bounds request bodies */
    size_t max_records;             /* verdict log entries kept; 0: 100000 */
    FILE *log;                      /* one line per request, or NULL */
    bool log_bodies;                /* the log line also holds the request body… */
    size_t log_body_max; /* …cut after this many bytes; 0: TW_MOCK_DEFAULT_LOG_BODY_MAX */
    /* hostile clients */
    unsigned threads;             /* event-loop threads (epoll); 0: 4 */
    unsigned max_connections;     /* open connections in all; 0: 4096 */
    unsigned max_per_ip;          /* open connections from one address; 0: 128 */
    unsigned request_deadline_ms; /* a request must arrive whole (headers and body) within
                                     this long of the connection opening or the previous
                                     answer ending, else the connection is closed; 0: 30000 */
    size_t inflight_budget;       /* request body bytes held across all connections; past it
                                     a request is answered 503 with Retry-After; 0: 64 MiB */
    /* the plain mode (loopback.h): no fixtures, no matching, no checks and no
     * records; every request's whole body (limits.max_input_bytes, 413 past
     * it) goes to handler. The same event loops, limits and deadline as the
     * fixture mode; since a handler may block, it runs on one of
     * handler_workers threads while its connection is suspended (holding no
     * event-loop thread), and a request waiting for a free worker waits
     * suspended too. A request whose client has left before a worker takes
     * it is not handed to the handler. */
    tw_mock_handler handler;
    void *handler_user;
    const char *handler_header; /* request header passed to the handler, or NULL */
    unsigned handler_workers;   /* threads running the handler; 0: 16 */
    unsigned idle_timeout_s;    /* no-progress timeout of a connection; 0: 120 */
} tw_mock_opts;

#define TW_MOCK_DEFAULT_THREADS 4u
#define TW_MOCK_DEFAULT_LOG_BODY_MAX 4096u
#define TW_MOCK_DEFAULT_MAX_CONNECTIONS 4096u
#define TW_MOCK_DEFAULT_MAX_PER_IP 128u
#define TW_MOCK_DEFAULT_DEADLINE_MS 30000u
#define TW_MOCK_DEFAULT_INFLIGHT_BUDGET ((size_t)64 << 20)
#define TW_MOCK_DEFAULT_HANDLER_WORKERS 16u

typedef struct tw_mock tw_mock;

/*
 * Start serving the fixtures (borrowed: keep them alive until tw_mock_stop)
 * on 127.0.0.1. Fixtures that do not fit the profile are not served.
 * TW_ERR_INVALID for an unknown profile, TW_ERR_IO when the server cannot
 * start; why says which.
 */
tw_status tw_mock_start(const tw_fixture *fx, size_t nfx, const tw_mock_opts *o, tw_mock **out,
                        tw_error *err);
unsigned short tw_mock_port(const tw_mock *m);
/* "http://127.0.0.1:PORT" (owned by the mock). */
const char *tw_mock_url(const tw_mock *m);
/* The last sequence number handed out (0 before any request). */
unsigned long tw_mock_seq(tw_mock *m);
/*
 * Copy the records with seq > since into a new array (*out, *n); free with
 * tw_mock_records_free. Returns TW_ERR_NOMEM on allocation failure.
 */
tw_status tw_mock_records(tw_mock *m, unsigned long since, tw_mock_record **out, size_t *n);
void tw_mock_records_free(tw_mock_record *r, size_t n);
/* Connections closed so far because their request had not arrived whole
 * within request_deadline_ms. */
unsigned long tw_mock_deadline_cuts(tw_mock *m);
/* Request body bytes held now (counted against inflight_budget). */
size_t tw_mock_inflight(tw_mock *m);
/* Stop the server (waits for open connections) and free it. NULL is fine. */
void tw_mock_stop(tw_mock *m);

/* Does every exchange of the fixture fit the profile? Under "auto": does one
 * profile fit them all? */
bool tw_mock_profile_fits(const char *profile, const tw_fixture *f);
/* The profile that serves the fixture: the given one when it fits; under
 * "auto" the first of replay, qwen3-coder, hermes, anthropic, vllm-native, gemini that fits; NULL
 * when none does. */
const char *tw_mock_profile_for(const char *profile, const tw_fixture *f);
bool tw_mock_profile_known(const char *profile);
/* NULL-terminated list of the profiles. */
const char *const *tw_mock_profiles(void);
/* err gets "unknown WHAT 'P' (one of: auto, replay, …; did you mean '…'?)"; returns false. */
bool tw_mock_profile_error(tw_error *err, const char *what, const char *p);

/* Request header the harness sends to name the exchange it replays
 * ("FIXTURE#INDEX"); other clients are matched by their request. It selects
 * among the exchanges of the request's own method and path only: naming an
 * exchange of another method or path is answered 404. */
#define TW_MOCK_EXCHANGE_HEADER "X-Toolwire-Exchange"
/* On every answer the mock gives: the exchange that answered, FIXTURE#INDEX. */
#define TW_MOCK_ANSWERED_HEADER "X-Toolwire-Answered-By"

/* Does this request body match the exchange's under the mode? */
/* How many distinct requests (method, path without query, body as --match
 * compares it) are shared by several exchanges of the fixtures the profile
 * serves. *partial: the count stopped at the comparison budget (a lower bound). */
size_t tw_mock_shared_bodies(const tw_fixture *fx, size_t nfx, const tw_mock_opts *o,
                             bool *partial);

bool tw_mock_body_matches(const cJSON *want, const cJSON *got, tw_match_mode mode,
                          const char *const *ignore_keys);

#endif
