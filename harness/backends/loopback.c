/* A small loopback POST server (loopback.h): the mock's server in its plain mode. */
#include "loopback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The loop is the mock (tw_loop is never defined: the pointer is the mock's). */
tw_status tw_loop_start(const tw_loop_opts *o, tw_loop **out, tw_error *err)
{
    *out = NULL;
    tw_mock_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.port = o->port;
    mo.limits.max_input_bytes = o->max_body ? o->max_body : (size_t)16 << 20;
    mo.max_connections = o->max_connections;
    mo.max_per_ip = o->max_per_ip;
    mo.threads = o->threads;
    mo.handler_workers = o->workers;
    mo.request_deadline_ms = o->request_deadline_ms;
    mo.inflight_budget = o->inflight_budget;
    mo.idle_timeout_s = o->timeout_s;
    mo.handler = o->fn;
    mo.handler_user = o->user;
    mo.handler_header = o->header;
    tw_mock *m = NULL;
    /* on TW_ERR_IO err says which address and why ("127.0.0.1:8080: Address already in use") */
    tw_status st = tw_mock_start(NULL, 0, &mo, &m, err);
    if (st != TW_OK)
        return st;
    *out = (tw_loop *)m;
    return TW_OK;
}

unsigned short tw_loop_port(const tw_loop *l)
{
    return tw_mock_port((const tw_mock *)l);
}
const char *tw_loop_url(const tw_loop *l)
{
    return tw_mock_url((const tw_mock *)l);
}
void tw_loop_stop(tw_loop *l)
{
    tw_mock_stop((tw_mock *)l);
}
