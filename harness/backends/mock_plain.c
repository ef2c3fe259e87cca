/*
 * The mock's server in its plain mode (mock_int.h, loopback.h): the whole
 * request body handed to a handler that a bounded pool of workers runs
 * while the connection is suspended, so that a handler waiting on something
 * slow (the reference proxy's upstream) holds no thread of the event loop.
 */
#include "mock_int.h"

#include <errno.h>
#include <poll.h>

/* Has the peer of fd closed its end (or the connection failed)? Never blocks. */
static bool client_gone(int fd)
{
    if (fd < 0)
        return false;
    struct pollfd p = {fd, POLLIN | POLLRDHUP, 0};
    if (poll(&p, 1, 0) <= 0)
        return false;
    if (p.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL))
        return true;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

bool tw_mock_reply_abandoned(const tw_mock_reply *r)
{
    const tw_mock_job *j = r ? r->job : NULL;
    if (!j)
        return false;
    return atomic_load(&j->m->stopping) || client_gone(j->fd);
}

void tw_mock_job_free(tw_mock_job *j)
{
    if (!j)
        return;
    free(j->method);
    free(j->url);
    free(j->header);
    tw_buf_free(&j->reply.body);
    free(j);
}

/* Send a handler's reply (its body is freed). */
static enum MHD_Result queue_reply(struct MHD_Connection *conn, tw_mock_reply *r, bool retry_after)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        r->body.len, r->body.data ? (void *)r->body.data : (void *)"", MHD_RESPMEM_MUST_COPY);
    tw_buf_free(&r->body);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", r->ctype ? r->ctype : "application/json");
    if (r->ctype && strcmp(r->ctype, "text/event-stream") == 0)
        MHD_add_response_header(resp, "Cache-Control", "no-cache");
    if (retry_after)
        MHD_add_response_header(resp, "Retry-After", "1");
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)(r->status ? r->status : 200), resp);
    MHD_destroy_response(resp);
    return ret;
}

static void *worker_main(void *arg)
{
    tw_mock *m = arg;
    pthread_mutex_lock(&m->jmu);
    for (;;) {
        while (!m->jhead && !atomic_load(&m->stopping))
            pthread_cond_wait(&m->jcv, &m->jmu);
        tw_mock_job *j = m->jhead;
        if (!j)
            break; /* stopping, and nothing is left to answer */
        m->jhead = j->next;
        if (!m->jhead)
            m->jtail = NULL;
        pthread_mutex_unlock(&m->jmu);
        if (tw_mock_reply_abandoned(&j->reply)) {
            /* nobody reads the answer: no work is done for it */
            j->reply.status = 503;
            tw_api_kind kind = tw_path_kind(j->url);
            tw_mock_error_body(&j->reply.body, kind, 503,
                               kind == TW_API_ANTHROPIC ? "api_error" : "server_error",
                               "the client left or the server is stopping", "abandoned");
        } else {
            m->o.handler(m->o.handler_user, j->method, j->url, j->header, j->body, j->len,
                         &j->reply);
        }
        /* the job is the request's again from here: not touched after this */
        MHD_resume_connection(j->conn);
        pthread_mutex_lock(&m->jmu);
    }
    pthread_mutex_unlock(&m->jmu);
    return NULL;
}

bool tw_mock_workers_start(tw_mock *m)
{
    unsigned n = m->o.handler_workers ? m->o.handler_workers : TW_MOCK_DEFAULT_HANDLER_WORKERS;
    m->workers = calloc(n, sizeof *m->workers);
    if (!m->workers)
        return false;
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&m->workers[i], NULL, worker_main, m) != 0)
            break;
        m->nworkers++;
    }
    return m->nworkers > 0;
}

void tw_mock_workers_stop(tw_mock *m)
{
    pthread_mutex_lock(&m->jmu);
    pthread_cond_broadcast(&m->jcv);
    pthread_mutex_unlock(&m->jmu);
    /* each worker answers what is left in the queue (503) before it ends */
    for (unsigned i = 0; i < m->nworkers; i++)
        pthread_join(m->workers[i], NULL);
    free(m->workers);
    m->workers = NULL;
    m->nworkers = 0;
}

static char *dup_or_null(const char *s, bool *nomem)
{
    if (!s)
        return NULL;
    char *d = tw_strdup(s);
    if (!d)
        *nomem = true;
    return d;
}

/* The plain mode: the whole body to the handler, run by a worker while the
 * connection is suspended; its reply sent once the worker resumes it. */
enum MHD_Result tw_mock_plain_answer(tw_mock *m, struct MHD_Connection *conn, const char *url,
                                     const char *method, const tw_buf *body, bool too_large,
                                     bool over_budget, tw_mock_job **job)
{
    if (*job) {
        /* resumed: the worker is done with it */
        tw_mock_job *j = *job;
        *job = NULL;
        enum MHD_Result ret = queue_reply(conn, &j->reply, false);
        tw_mock_job_free(j);
        return ret;
    }
    tw_mock_conn_answering(m, conn, true);
    tw_mock_reply r;
    memset(&r, 0, sizeof r);
    if (too_large || over_budget) {
        r.status = too_large ? 413 : 503;
        if (too_large)
            tw_buf_printf(
                &r.body,
                "{\"error\":{\"message\":\"request body larger than %zu bytes\","
                "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"too_large\"}}",
                m->o.limits.max_input_bytes);
        else
            tw_mock_error_body(&r.body, tw_path_kind(url), 503, "server_error",
                               "the server holds too many request bytes; retry later", "busy");
        return queue_reply(conn, &r, over_budget);
    }
    bool nomem = false;
    tw_mock_job *j = calloc(1, sizeof *j);
    if (j) {
        const char *hv = m->o.handler_header ? MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                                           m->o.handler_header)
                                             : NULL;
        j->method = dup_or_null(method, &nomem);
        j->url = dup_or_null(url, &nomem);
        j->header = dup_or_null(hv, &nomem);
    }
    if (!j || nomem) {
        tw_mock_job_free(j);
        r.status = 500;
        tw_mock_error_body(&r.body, tw_path_kind(url), 500, "server_error", "out of memory",
                           "nomem");
        return queue_reply(conn, &r, false);
    }
    const conn_ent *ce = tw_mock_conn_of(conn);
    j->m = m;
    j->conn = conn;
    j->fd = ce ? ce->fd : -1;
    j->body = body->data ? body->data : "";
    j->len = body->len;
    j->reply.job = j;
    pthread_mutex_lock(&m->jmu);
    if (atomic_load(&m->stopping)) {
        pthread_mutex_unlock(&m->jmu);
        tw_mock_job_free(j);
        r.status = 503;
        tw_mock_error_body(&r.body, tw_path_kind(url), 503, "server_error",
                           "the server is stopping", "stopping");
        return queue_reply(conn, &r, false);
    }
    /* suspended before a worker can see it, so its resume always follows */
    *job = j;
    MHD_suspend_connection(conn);
    if (m->jtail)
        m->jtail->next = j;
    else
        m->jhead = j;
    m->jtail = j;
    pthread_cond_signal(&m->jcv);
    pthread_mutex_unlock(&m->jmu);
    return MHD_YES;
}
