/* The embedded mock backend (mock.h): the server, its threads and its life.
 * The top of the mock: it uses every other mock file, none uses it. */
#include "mock_int.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

/* Why 127.0.0.1:port cannot be listened on, found by binding it as the
 * server does ("Address already in use"); NULL when it can be bound now. */
static const char *listen_refusal(unsigned short port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0)
        return strerror(errno);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const char *why = NULL;
    if (bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 1) != 0)
        why = strerror(errno);
    close(s);
    return why;
}

/* ---- server state ---- */

/* Resume the suspended connections that are due (all of them when stopping). */
static void resume_due(tw_mock *m, bool all)
{
    pthread_mutex_lock(&m->smu);
    long now = tw_mock_mono_ms();
    size_t k = 0;
    for (size_t i = 0; i < m->npend; i++) {
        if (all || m->pend[i].due_ms <= now)
            MHD_resume_connection(m->pend[i].c);
        else
            m->pend[k++] = m->pend[i];
    }
    m->npend = k;
    pthread_mutex_unlock(&m->smu);
}

static void notify_conn(void *cls, struct MHD_Connection *c, void **ctx,
                        enum MHD_ConnectionNotificationCode toe)
{
    tw_mock *m = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        conn_ent *e = calloc(1, sizeof *e);
        if (!e || !ci) {
            /* untracked connections would escape the deadline: refuse them */
            free(e);
            if (ci)
                shutdown(ci->connect_fd, SHUT_RDWR);
            *ctx = NULL;
            return;
        }
        e->fd = ci->connect_fd;
        atomic_init(&e->start_ms, tw_mock_mono_ms());
        atomic_init(&e->answering, false);
        pthread_mutex_lock(&m->cmu);
        e->next = m->conns;
        if (m->conns)
            m->conns->prev = e;
        m->conns = e;
        pthread_mutex_unlock(&m->cmu);
        *ctx = e;
        return;
    }
    /* closed: MHD closes the socket only after this returns */
    conn_ent *e = *ctx;
    if (!e)
        return;
    pthread_mutex_lock(&m->cmu);
    if (e->prev)
        e->prev->next = e->next;
    else
        m->conns = e->next;
    if (e->next)
        e->next->prev = e->prev;
    *ctx = NULL;
    pthread_mutex_unlock(&m->cmu);
    free(e);
}

/* Shut down the connections whose request has not arrived whole in time. */
static void cut_overdue(tw_mock *m)
{
    long now = tw_mock_mono_ms();
    long limit = (long)m->o.request_deadline_ms;
    pthread_mutex_lock(&m->cmu);
    for (conn_ent *e = m->conns; e; e = e->next) {
        if (atomic_load(&e->answering) || e->cut || now - atomic_load(&e->start_ms) < limit)
            continue;
        /* the fd stays open until notify_conn has unlinked the entry */
        e->cut = true;
        atomic_fetch_add(&m->cuts, 1);
        shutdown(e->fd, SHUT_RDWR);
    }
    pthread_mutex_unlock(&m->cmu);
}

/* The timer thread: resumes delayed connections, enforces the deadline. */
static void *timer_main(void *arg)
{
    tw_mock *m = arg;
    unsigned tick = 0;
    while (!atomic_load(&m->stopping)) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
        resume_due(m, false);
        if (++tick % 10 == 0)
            cut_overdue(m);
    }
    return NULL;
}

static void free_tables(tw_mock *m, size_t total)
{
    tw_mock_prep_free(m);
    tw_match_index_free(m->index);
    tw_match_memo_free(m->memo);
    for (size_t i = 0; m->norm && i < total; i++)
        cJSON_Delete(m->norm[i]);
    free(m->norm);
    free(m->fprof);
    free(m->ex_base);
    free(m->served);
    free(m->st);
}

tw_status tw_mock_start(const tw_fixture *fx, size_t nfx, const tw_mock_opts *o, tw_mock **out,
                        tw_error *err)
{
    *out = NULL;
    tw_mock_opts opts;
    memset(&opts, 0, sizeof opts);
    if (o)
        opts = *o;
    const char *profile = opts.profile ? opts.profile : "replay";
    if (!tw_mock_profile_known(profile)) {
        tw_mock_profile_error(err, "profile", profile);
        return TW_ERR_INVALID;
    }
    tw_mock *m = calloc(1, sizeof *m);
    if (!m)
        return TW_ERR_NOMEM;
    m->o = opts;
    tw_limits_resolve(&m->o.limits, &opts.limits);
    if (!m->o.threads)
        m->o.threads = TW_MOCK_DEFAULT_THREADS;
    if (!m->o.max_connections)
        m->o.max_connections = TW_MOCK_DEFAULT_MAX_CONNECTIONS;
    if (m->o.max_connections < m->o.threads)
        m->o.max_connections = m->o.threads; /* each thread takes its share */
    if (!m->o.max_per_ip)
        m->o.max_per_ip = TW_MOCK_DEFAULT_MAX_PER_IP;
    if (!m->o.request_deadline_ms)
        m->o.request_deadline_ms = TW_MOCK_DEFAULT_DEADLINE_MS;
    if (!m->o.log_body_max)
        m->o.log_body_max = TW_MOCK_DEFAULT_LOG_BODY_MAX;
    if (!m->o.inflight_budget)
        m->o.inflight_budget = TW_MOCK_DEFAULT_INFLIGHT_BUDGET;
    tw_mock_ring_init(&m->log, m->o.max_records ? m->o.max_records : 100000);
    snprintf(m->profile, sizeof m->profile, "%s", profile);
    m->script = strcmp(profile, "script") == 0;
    m->script_fx.name = "script";
    m->script_fx.exchanges = &m->script_ex;
    m->script_fx.nexchanges = 1;
    m->fx = fx;
    m->nfx = nfx;
    m->ex_base = calloc(nfx + 1, sizeof *m->ex_base);
    m->served = calloc(nfx + 1, sizeof *m->served);
    m->fprof = calloc(nfx + 1, sizeof *m->fprof);
    size_t total = 0;
    for (size_t i = 0; m->ex_base && m->served && m->fprof && i < nfx; i++) {
        m->ex_base[i] = total;
        total += fx[i].nexchanges;
        m->fprof[i] = m->script ? NULL : tw_mock_profile_for(profile, &fx[i]);
        m->served[i] = m->fprof[i] != NULL;
    }
    if (m->ex_base)
        m->ex_base[nfx] = total; /* the script's exchange state */
    if (m->fprof)
        m->fprof[nfx] = m->script ? "script" : NULL;
    m->st = calloc(total + 1, sizeof *m->st);
    m->norm = calloc(total + 1, sizeof *m->norm);
    m->ntotal = total;
    bool nomem = !m->ex_base || !m->served || !m->fprof || !m->st || !m->norm;
    for (size_t i = 0; !nomem && m->o.match == TW_MATCH_NORMALISED && i < nfx; i++)
        for (size_t k = 0; m->served[i] && !nomem && k < fx[i].nexchanges; k++)
            m->norm[m->ex_base[i] + k] = tw_mock_normalise(fx[i].exchanges[k].req.body, &nomem);
    if (!nomem) {
        tw_match_in mi = {fx,         nfx, m->served,  (const cJSON *const *)m->norm,
                          m->ex_base, "",  "",         NULL,
                          NULL,       "",  m->o.match, m->o.ignore_keys,
                          NULL};
        nomem = tw_match_index_build(&mi, &m->index) != TW_OK || !tw_mock_prepare(m);
        /* at most max_input_bytes of request bytes kept for the choices made */
        m->memo = nomem ? NULL : tw_match_memo_new(total, m->o.limits.max_input_bytes);
        nomem = nomem || !m->memo;
    }
    if (nomem) {
        free_tables(m, total);
        free(m);
        return TW_ERR_NOMEM;
    }
    pthread_mutex_init(&m->mu, NULL);
    pthread_mutex_init(&m->cmu, NULL);
    pthread_mutex_init(&m->smu, NULL);
    atomic_init(&m->stopping, false);
    atomic_init(&m->inflight, 0);
    atomic_init(&m->cuts, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(opts.port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    unsigned idle = m->o.idle_timeout_s ? m->o.idle_timeout_s : 120;
    pthread_mutex_init(&m->jmu, NULL);
    pthread_cond_init(&m->jcv, NULL);
    /* event loops (epoll) in a thread pool: a connection costs a socket and a
     * little memory, not a thread; delays suspend the connection, and so does
     * a request of the plain mode while a handler worker answers it */
    bool workers = !m->o.handler || tw_mock_workers_start(m);
    if (workers)
        m->d = MHD_start_daemon(
            MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, opts.port, NULL, NULL,
            tw_mock_handle, m, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_THREAD_POOL_SIZE, m->o.threads,
            MHD_OPTION_NOTIFY_COMPLETED, tw_mock_completed, m, MHD_OPTION_NOTIFY_CONNECTION,
            notify_conn, m, MHD_OPTION_CONNECTION_TIMEOUT, idle, MHD_OPTION_CONNECTION_LIMIT,
            m->o.max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT, m->o.max_per_ip,
            MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)1024, MHD_OPTION_END);
    if (m->d && pthread_create(&m->timer, NULL, timer_main, m) == 0)
        m->timer_started = true;
    if (!m->d || !m->timer_started) {
        const char *refused = !m->d && opts.port ? listen_refusal(opts.port) : NULL;
        if (refused)
            tw_error_set(err, TW_ERR_IO, -1, NULL, "127.0.0.1:%u: %s", opts.port, refused);
        else
            tw_error_set(err, TW_ERR_IO, -1, NULL, "cannot start the server on 127.0.0.1:%u",
                         opts.port);
        atomic_store(&m->stopping, true);
        tw_mock_workers_stop(m);
        if (m->d)
            MHD_stop_daemon(m->d);
        pthread_mutex_destroy(&m->jmu);
        pthread_cond_destroy(&m->jcv);
        pthread_mutex_destroy(&m->mu);
        pthread_mutex_destroy(&m->cmu);
        pthread_mutex_destroy(&m->smu);
        free_tables(m, total);
        free(m);
        return TW_ERR_IO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
    m->port = info ? info->port : opts.port;
    snprintf(m->url, sizeof m->url, "http://127.0.0.1:%u", m->port);
    *out = m;
    return TW_OK;
}

unsigned short tw_mock_port(const tw_mock *m)
{
    return m->port;
}
const char *tw_mock_url(const tw_mock *m)
{
    return m->url;
}

unsigned long tw_mock_seq(tw_mock *m)
{
    pthread_mutex_lock(&m->mu);
    unsigned long s = m->seq;
    pthread_mutex_unlock(&m->mu);
    return s;
}

tw_status tw_mock_records(tw_mock *m, unsigned long since, tw_mock_record **out, size_t *n)
{
    pthread_mutex_lock(&m->mu);
    bool ok = tw_mock_ring_since(&m->log, since, out, n);
    pthread_mutex_unlock(&m->mu);
    return ok ? TW_OK : TW_ERR_NOMEM;
}

unsigned long tw_mock_deadline_cuts(tw_mock *m)
{
    return atomic_load(&m->cuts);
}

size_t tw_mock_inflight(tw_mock *m)
{
    return atomic_load(&m->inflight);
}

void tw_mock_records_free(tw_mock_record *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++)
        tw_check_set_free(&r[i].checks);
    free(r);
}

void tw_mock_stop(tw_mock *m)
{
    if (!m)
        return;
    atomic_store(&m->stopping, true);
    pthread_join(m->timer, NULL);
    /* the handler workers see the server stopping (tw_mock_reply_abandoned),
     * answer what is queued and resume every connection they hold */
    tw_mock_workers_stop(m);
    /* no connection may stay suspended when the daemon stops; defer() refuses from now on */
    resume_due(m, true);
    MHD_stop_daemon(m->d);
    pthread_mutex_destroy(&m->jmu);
    pthread_cond_destroy(&m->jcv);
    tw_mock_ring_free(&m->log);
    free(m->pend);
    pthread_mutex_destroy(&m->mu);
    pthread_mutex_destroy(&m->cmu);
    pthread_mutex_destroy(&m->smu);
    free_tables(m, m->ntotal);
    free(m);
}
