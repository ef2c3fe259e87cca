/*
 * What every handler of the mock shares (mock_int.h): the clock, naps and
 * deferred answers, the state of a connection, the error body of each API.
 * Below the handlers (mock_handle.c, mock_plain.c) and the server (mock.c).
 */
#include "mock_int.h"

#include <time.h>

long tw_mock_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep in small steps so that stopping the server is not held up. */
void tw_mock_nap(tw_mock *m, long ms)
{
    if (ms > 600000)
        ms = 600000;
    long end = tw_mock_mono_ms() + ms;
    while (!atomic_load(&m->stopping)) {
        long left = end - tw_mock_mono_ms();
        if (left <= 0)
            break;
        long step = left < 20 ? left : 20;
        struct timespec ts = {0, step * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/*
 * Suspend the connection for ms (the timer thread resumes it), so that a delay
 * holds no event-loop thread. False when the server is stopping or out of
 * memory: the caller then does not wait.
 */
bool tw_mock_defer(tw_mock *m, struct MHD_Connection *c, long ms)
{
    if (ms > 600000)
        ms = 600000;
    pthread_mutex_lock(&m->smu);
    if (atomic_load(&m->stopping)) {
        pthread_mutex_unlock(&m->smu);
        return false;
    }
    if (m->npend == m->cappend) {
        size_t nc = m->cappend ? m->cappend * 2 : 64;
        pending *np = realloc(m->pend, nc * sizeof *np);
        if (!np) {
            pthread_mutex_unlock(&m->smu);
            return false;
        }
        m->pend = np;
        m->cappend = nc;
    }
    m->pend[m->npend++] = (pending){c, tw_mock_mono_ms() + ms};
    MHD_suspend_connection(c);
    pthread_mutex_unlock(&m->smu);
    return true;
}

conn_ent *tw_mock_conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* The request on c is being answered (no deadline) or is over (the next one starts now). */
void tw_mock_conn_answering(tw_mock *m, struct MHD_Connection *c, bool answering)
{
    (void)m;
    conn_ent *e = tw_mock_conn_of(c);
    if (!e)
        return;
    /* the start first: the deadline never sees a waiting request with an old start */
    if (!answering)
        atomic_store(&e->start_ms, tw_mock_mono_ms());
    atomic_store(&e->answering, answering);
}

/* Gemini's error envelope {"error": {"code", "message", "status"}}: the
 * code is the HTTP status sent, the status its google.rpc name. */
static const char *gemini_rpc_status(int http)
{
    switch (http) {
    case 400: return "INVALID_ARGUMENT";
    case 401: return "UNAUTHENTICATED";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 409: return "ABORTED";
    case 429: return "RESOURCE_EXHAUSTED";
    case 499: return "CANCELLED";
    case 501: return "UNIMPLEMENTED";
    case 503: return "UNAVAILABLE";
    case 504: return "DEADLINE_EXCEEDED";
    default: return http >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
    }
}

static void gemini_error_body(tw_buf *b, int http, const char *msg)
{
    tw_buf_printf(b, "{\"error\":{\"code\":%d,\"message\":", http);
    tw_json_write_str(b, msg, strlen(msg), 0);
    tw_buf_printf(b, ",\"status\":\"%s\"}}", gemini_rpc_status(http));
}

/* The error body of the endpoint kind (tw_path_kind) for HTTP status http. */
void tw_mock_error_body(tw_buf *b, tw_api_kind kind, int http, const char *type, const char *msg,
                        const char *code)
{
    tw_buf_reset(b);
    if (kind == TW_API_GEMINI) {
        gemini_error_body(b, http, msg);
        return;
    }
    if (kind == TW_API_ANTHROPIC) {
        tw_buf_puts(b, "{\"type\":\"error\",\"error\":{\"type\":");
        tw_json_write_str(b, type, strlen(type), 0);
        tw_buf_puts(b, ",\"message\":");
        tw_json_write_str(b, msg, strlen(msg), 0);
        tw_buf_puts(b, "}}");
        return;
    }
    tw_buf_puts(b, "{\"error\":{\"message\":");
    tw_json_write_str(b, msg, strlen(msg), 0);
    tw_buf_puts(b, ",\"type\":");
    tw_json_write_str(b, type, strlen(type), 0);
    tw_buf_puts(b, ",\"param\":null,\"code\":");
    tw_json_write_str(b, code, strlen(code), 0);
    tw_buf_puts(b, "}}");
}
