/*
 * Internal to the mock backend (mock.c, mock_handle.c): the server state and
 * the helpers both files use.
 */
#ifndef TOOLWIRE_HARNESS_MOCK_INT_H
#define TOOLWIRE_HARNESS_MOCK_INT_H

#include "mock.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "mock_match.h"
#include "mock_ref.h"
#include "redact.h"

typedef struct ex_state {
    bool faulted;      /* the last answer was the fault status */
    long retry_due_ms; /* Retry-After deadline after a fault status, 0 none */
    long retry_asked_ms;
} ex_state;

/* One open connection, for the request deadline. The list and `cut` are
 * under tw_mock.cmu; the connection's own thread sets start_ms and answering
 * without it (the entry lives until the connection's close notification,
 * which comes after the last request of the connection is over). */
typedef struct conn_ent {
    struct conn_ent *prev, *next;
    int fd;
    atomic_long start_ms;  /* the request being received started here */
    atomic_bool answering; /* a response is queued or pending: no deadline */
    bool cut;              /* shut down by the deadline */
    const void *memo_last; /* the memo's entry its last request found (its own thread's) */
    size_t match_last;     /* the exchange (flat index) its last request matched: the
                              guess tw_mock_match_one tries first (its own thread's) */
} conn_ent;

/* A request of the plain mode waiting for, or run by, a handler worker
 * while its connection is suspended. Made by the event-loop thread, owned by
 * the request (req_ctx) until the request is over; a worker touches it only
 * between taking it and resuming its connection. */
typedef struct tw_mock_job {
    struct tw_mock_job *next;
    tw_mock *m;
    struct MHD_Connection *conn;
    int fd; /* the client's socket, for noticing that it closed; -1 unknown */
    char *method, *url, *header;
    const char *body;
    size_t len;
    tw_mock_reply reply;
} tw_mock_job;

/* A connection suspended for a delay, and when to resume it. */
typedef struct pending {
    struct MHD_Connection *c;
    long due_ms;
} pending;

/* A piece of an answer, sent after its delay. */
typedef struct tw_mock_chunk {
    char *data;
    size_t len;
    long delay_ms;
} tw_mock_chunk;

/* A replayed answer prepared once when the server starts: its bytes and, for
 * a stream, its events (pointing into bytes). */
typedef struct tw_mock_prep {
    char *bytes;
    size_t len;
    tw_mock_chunk *ev;
    size_t nev;
} tw_mock_prep;

struct tw_mock {
    struct MHD_Daemon *d;
    const tw_fixture *fx;
    size_t nfx;
    size_t *ex_base; /* index of each fixture's first exchange in st */
    ex_state *st;
    bool *served;          /* fixture fits the profile */
    const char **fprof;    /* the profile that serves each fixture (differs under "auto") */
    cJSON **norm;          /* per exchange, like st: the body normalised for matching */
    size_t ntotal;         /* exchanges in all */
    tw_match_index *index; /* the served exchanges by method, path and body */
    tw_match_memo *memo;   /* the choices made, by the request's bytes (NULL: none kept) */
    tw_mock_prep *prep;    /* per exchange, like st: the replayed answer, or empty */
    tw_mock_opts o;
    char profile[32];
    bool script;          /* the script profile: every request answered by script.h */
    tw_fixture script_fx; /* its one exchange, named "script#0" in the records */
    tw_fx_exchange script_ex;
    char url[64];
    unsigned short port;
    pthread_mutex_t mu; /* seq, log, st */
    unsigned long seq;
    tw_mock_ring log;
    atomic_bool stopping;
    /* hostile clients */
    pthread_mutex_t cmu; /* conns and their entries */
    conn_ent *conns;
    pthread_mutex_t smu; /* pend, suspending and resuming */
    pending *pend;
    size_t npend, cappend;
    pthread_t timer;
    bool timer_started;
    atomic_size_t inflight; /* request body bytes held */
    atomic_ulong cuts;      /* connections closed by the deadline */
    /* the plain mode's handler workers */
    pthread_mutex_t jmu; /* the job queue */
    pthread_cond_t jcv;
    tw_mock_job *jhead, *jtail;
    pthread_t *workers;
    unsigned nworkers;
};

/* Prepare the replayed answers (m->prep); false when out of memory. */
bool tw_mock_prepare(tw_mock *m);
void tw_mock_prep_free(tw_mock *m);
/* mock_conn.c: the clock, naps, deferred answers, connection state. */
long tw_mock_mono_ms(void);
void tw_mock_nap(tw_mock *m, long ms);
bool tw_mock_defer(tw_mock *m, struct MHD_Connection *c, long ms);
void tw_mock_conn_answering(tw_mock *m, struct MHD_Connection *c, bool answering);
/* The connection's entry, or NULL when it is not tracked. */
conn_ent *tw_mock_conn_of(struct MHD_Connection *c);
enum MHD_Result tw_mock_handle(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls);
void tw_mock_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                       enum MHD_RequestTerminationCode toe);
/* The plain mode's workers: start them (false: none could start), and, once
 * the server is stopping, join them and resume every connection whose job
 * was left in the queue (its answer a 503). */
bool tw_mock_workers_start(tw_mock *m);
void tw_mock_workers_stop(tw_mock *m);
/* mock_plain.c: a plain-mode request whose body is whole (or refused: too
 * large, over the in-flight budget) handed to the workers; *job is the
 * request's job while its connection is suspended, and the reply is sent
 * when the connection is resumed (called again with *job set). */
enum MHD_Result tw_mock_plain_answer(tw_mock *m, struct MHD_Connection *conn, const char *url,
                                     const char *method, const tw_buf *body, bool too_large,
                                     bool over_budget, tw_mock_job **job);
/* mock_plain.c: free a job and what it holds (NULL: nothing). */
void tw_mock_job_free(tw_mock_job *j);
/* mock_conn.c: the error body of the endpoint kind (tw_path_kind) for
 * HTTP status http. */
void tw_mock_error_body(tw_buf *b, tw_api_kind kind, int http, const char *type, const char *msg,
                        const char *code);

/* mock_arena.c: the handling thread's block for a request body's cJSON tree
 * (installed as cJSON's hooks by the first begin). begin switches the block
 * on from its start (the thread's previous trees are gone by then), end
 * switches it off, resume on again for the same request; drop gives up a
 * tree made while it was on. */
void tw_mock_arena_begin(void);
void tw_mock_arena_end(void);
void tw_mock_arena_resume(void);
void tw_mock_arena_drop(cJSON *t);

#endif
