/* A small loopback POST server (loopback.h). */
#include "loopback.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tw_loop {
    struct MHD_Daemon *d;
    tw_loop_opts o;
    unsigned short port;
    char url[64];
};

typedef struct conn_body {
    tw_buf body;
    bool too_large;
} conn_body;

static enum MHD_Result send_reply(struct MHD_Connection *conn, tw_loop_reply *r)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        r->body.len, r->body.data ? (void *)r->body.data : (void *)"", MHD_RESPMEM_MUST_COPY);
    tw_buf_free(&r->body);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", r->ctype ? r->ctype : "application/json");
    if (r->ctype && strcmp(r->ctype, "text/event-stream") == 0)
        MHD_add_response_header(resp, "Cache-Control", "no-cache");
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)(r->status ? r->status : 200), resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    (void)version;
    tw_loop *l = cls;
    conn_body *cb = *con_cls;
    if (!cb) {
        cb = calloc(1, sizeof *cb);
        if (!cb)
            return MHD_NO;
        cb->body.max = l->o.max_body;
        *con_cls = cb;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (!cb->too_large && tw_buf_append(&cb->body, upload, n) != TW_OK) {
            cb->too_large = true;
            tw_buf_free(&cb->body);
        }
        return MHD_YES;
    }
    tw_loop_reply r;
    memset(&r, 0, sizeof r);
    if (cb->too_large) {
        r.status = 413;
        tw_buf_printf(&r.body, "{\"error\":{\"message\":\"request body larger than %zu bytes\","
                               "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"too_large\"}}",
                      l->o.max_body);
        return send_reply(conn, &r);
    }
    const char *hv = l->o.header ? MHD_lookup_connection_value(conn, MHD_HEADER_KIND, l->o.header) : NULL;
    l->o.fn(l->o.user, method, url, hv, cb->body.data ? cb->body.data : "", cb->body.len, &r);
    return send_reply(conn, &r);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    conn_body *cb = *con_cls;
    if (cb) {
        tw_buf_free(&cb->body);
        free(cb);
        *con_cls = NULL;
    }
}

tw_status tw_loop_start(const tw_loop_opts *o, tw_loop **out, char *why, size_t whylen)
{
    *out = NULL;
    tw_loop *l = calloc(1, sizeof *l);
    if (!l)
        return TW_ERR_NOMEM;
    l->o = *o;
    if (!l->o.max_body)
        l->o.max_body = (size_t)16 << 20;
    if (!l->o.max_connections)
        l->o.max_connections = 64;
    if (!l->o.timeout_s)
        l->o.timeout_s = 120;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(o->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    l->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, o->port,
                            NULL, NULL, handle, l, MHD_OPTION_SOCK_ADDR, &sa,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, l,
                            MHD_OPTION_CONNECTION_TIMEOUT, l->o.timeout_s,
                            MHD_OPTION_CONNECTION_LIMIT, l->o.max_connections, MHD_OPTION_END);
    if (!l->d) {
        snprintf(why, whylen, "cannot listen on 127.0.0.1:%u", o->port);
        free(l);
        return TW_ERR_IO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_BIND_PORT);
    l->port = info ? info->port : o->port;
    snprintf(l->url, sizeof l->url, "http://127.0.0.1:%u", l->port);
    *out = l;
    return TW_OK;
}

unsigned short tw_loop_port(const tw_loop *l) { return l->port; }
const char *tw_loop_url(const tw_loop *l) { return l->url; }

void tw_loop_stop(tw_loop *l)
{
    if (!l)
        return;
    MHD_stop_daemon(l->d);
    free(l);
}
