/* The reference proxy (refproxy.h). */
#include "refproxy.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "loopback.h"
#include "names.h"
#include "mock_log.h"
#include "redact.h"
#include "toolwire/encode.h"
#include "toolwire/transcode.h"

struct tw_refproxy {
    tw_loop *loop;
    char from[16], to[16];
    char upstream[TW_URL_BASE_MAX + 1];
    tw_limits limits;
    tw_client_opts client;
    FILE *log;
    pthread_mutex_t mu;
    unsigned long count;
};

static bool fmt_ok(const char *f)
{
    return strcmp(f, "anthropic") == 0 || strcmp(f, "openai") == 0;
}

bool tw_refproxy_spec_parse(const char *arg, char *from, size_t flen, char *to, size_t tlen,
                            tw_error *err)
{
    const char *c = strchr(arg, ':');
    if (!c || (size_t)(c - arg) >= flen || strlen(c + 1) >= tlen) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--proxy wants FROM:TO (anthropic:openai or openai:anthropic), got '%.80s'",
                     arg);
        return false;
    }
    memcpy(from, arg, (size_t)(c - arg));
    from[c - arg] = 0;
    snprintf(to, tlen, "%s", c + 1);
    static const char *const formats[] = {"anthropic", "openai"};
    if (!fmt_ok(from) || !fmt_ok(to)) {
        tw_error e2 = {.offset = -1};
        tw_unknown_name_error(&e2, "--proxy format", fmt_ok(from) ? to : from, formats, 2);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "%s; --proxy wants anthropic:openai or openai:anthropic", e2.message);
        return false;
    }
    if (strcmp(from, to) == 0) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--proxy: '%.80s' is not anthropic:openai or openai:anthropic", arg);
        return false;
    }
    return true;
}

static const char *client_path(const char *f)
{
    return strcmp(f, "anthropic") == 0 ? "/v1/messages" : "/v1/chat/completions";
}

/* Anthropic thinking <-> OpenAI reasoning_effort, in the neutral options. */
static tw_status map_reasoning(tw_request *r, const char *from, const char *to)
{
    if (!r->options)
        return TW_OK;
    if (strcmp(from, "anthropic") == 0 && strcmp(to, "openai") == 0) {
        const cJSON *th = tw_json_get(r->options, "thinking");
        const char *type = tw_json_get_str(th, "type");
        if (th && type && strcmp(type, "enabled") == 0) {
            int64_t budget = tw_json_int(tw_json_get(th, "budget_tokens"), 0, INT64_MAX, 0);
            const char *eff = budget && budget < 2048 ? "low" : budget >= 16384 ? "high" : "medium";
            if (!cJSON_GetObjectItemCaseSensitive(r->options, "reasoning_effort") &&
                !cJSON_AddStringToObject(r->options, "reasoning_effort", eff))
                return TW_ERR_NOMEM;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(r->options, "thinking");
        return TW_OK;
    }
    const char *eff = tw_json_get_str(r->options, "reasoning_effort");
    if (eff && strcmp(eff, "none") != 0 && strcmp(eff, "minimal") != 0) {
        int64_t budget = strcmp(eff, "low") == 0 ? 1024 : strcmp(eff, "high") == 0 ? 16384 : 4096;
        cJSON *th = cJSON_CreateObject();
        if (!th || !cJSON_AddStringToObject(th, "type", "enabled") ||
            !cJSON_AddNumberToObject(th, "budget_tokens", (double)budget) ||
            !cJSON_AddItemToObject(r->options, "thinking", th)) {
            cJSON_Delete(th);
            return TW_ERR_NOMEM;
        }
        /* Anthropic wants max_tokens above the thinking budget */
        const cJSON *mt = tw_json_get(r->options, "max_tokens");
        if (cJSON_IsNumber(mt) && mt->valuedouble <= (double)budget)
            cJSON_ReplaceItemInObjectCaseSensitive(r->options, "max_tokens",
                                                   cJSON_CreateNumber((double)budget + 1024));
    }
    cJSON_DeleteItemFromObjectCaseSensitive(r->options, "reasoning_effort");
    return TW_OK;
}

int tw_refproxy_translate_request(const char *from, const char *to, const char *body, size_t len,
                                  const tw_limits *limits, tw_buf *out, bool *stream, tw_error *err)
{
    tw_limits L;
    tw_limits_resolve(&L, limits);
    *stream = false;
    tw_decode_opts d;
    memset(&d, 0, sizeof d);
    d.limits = L;
    tw_neutral_value v;
    tw_error we;
    tw_error_clear(&we);
    const char *w = we.message;
    tw_status st =
        tw_transcode_read(strcmp(from, "anthropic") == 0 ? "anthropic-request" : "openai-request",
                          body, len, &d, &v, NULL, &we);
    if (st != TW_OK) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "the request does not decode: %s", w);
        return st == TW_ERR_LIMIT ? 413 : st == TW_ERR_NOMEM ? 500 : 400;
    }
    *stream = cJSON_IsTrue(tw_json_get(v.req.options, "stream"));
    st = map_reasoning(&v.req, from, to);
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.limits = L;
    /* Anthropic allows parallel calls unless told otherwise */
    eo.parallel_tool_calls =
        strcmp(from, "anthropic") == 0 && v.req.parallel_tool_calls < 0 ? 1 : -1;
    tw_diag_list warn = {0};
    eo.warnings = &warn;
    if (st == TW_OK)
        st = tw_transcode_write(
            &v, strcmp(to, "anthropic") == 0 ? "anthropic-request" : "openai-request", &eo, out,
            &we);
    tw_diag_list_free(&warn);
    tw_neutral_value_free(&v);
    if (st != TW_OK) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "the request cannot be written for the upstream: %s",
                     w[0] ? w : tw_code_message(st));
        return st == TW_ERR_LIMIT ? 413 : st == TW_ERR_NOMEM ? 500 : 400;
    }
    return 0;
}

/* Everything relayed to the client passes the redactor of the log (the
 * process-wide secret set, which holds the key the proxy sends upstream):
 * an upstream that repeats the key in an error message, a body or an event
 * does not hand it to whoever can reach the proxy. */
static void error_out(tw_api_kind kind, int status, const char *raw, tw_loop_reply *r)
{
    char *clean = tw_secret_clip(raw, strlen(raw));
    const char *msg = clean ? clean : "(the message could not be scrubbed of secrets; withheld)";
    r->status = status;
    r->ctype = "application/json";
    tw_buf_reset(&r->body);
    const char *type = status == 404   ? "not_found_error"
                       : status >= 500 ? "api_error"
                                       : "invalid_request_error";
    if (kind == TW_API_ANTHROPIC) {
        tw_buf_puts(&r->body, "{\"type\":\"error\",\"error\":{\"type\":");
        tw_json_write_str(&r->body, type, strlen(type), 0);
        tw_buf_puts(&r->body, ",\"message\":");
        tw_json_write_str(&r->body, msg, strlen(msg), 0);
        tw_buf_puts(&r->body, "}}");
        free(clean);
        return;
    }
    tw_buf_puts(&r->body, "{\"error\":{\"message\":");
    tw_json_write_str(&r->body, msg, strlen(msg), 0);
    tw_buf_puts(&r->body, ",\"type\":");
    tw_json_write_str(&r->body, type, strlen(type), 0);
    tw_buf_printf(&r->body, ",\"param\":null,\"code\":\"%d\"}}", status);
    free(clean);
}

/* s scrubbed whole, then cut to max bytes (an excerpt for a message). */
static char *excerpt(const char *s, size_t max)
{
    char *c = tw_secret_clip(s ? s : "", max);
    return c ? c : tw_strdup("(withheld: it could not be scrubbed of secrets)");
}

/* b scrubbed in place (same cap); false when out of memory. */
static bool scrub_buf(tw_buf *b)
{
    if (!b->len)
        return true;
    tw_buf out = {0};
    out.max = b->max;
    if (tw_secret_scrub(b->data, b->len, &out, NULL) != TW_OK) {
        tw_buf_free(&out);
        return false;
    }
    if (out.data)
        out.data[out.len] = '\0';
    tw_buf_free(b);
    *b = out;
    return true;
}

static bool scrub_str(char **s)
{
    if (!*s)
        return true;
    char *c = tw_secret_clip(*s, SIZE_MAX);
    if (!c)
        return false;
    free(*s);
    *s = c;
    return true;
}

/* Every string of a JSON tree (keys too), in place, to max_depth. */
static bool scrub_json(cJSON *v, size_t depth)
{
    for (; v; v = v->next) {
        if (!depth)
            return false;
        if (v->string && !(v->type & cJSON_StringIsConst)) {
            char *c = tw_secret_clip(v->string, SIZE_MAX);
            if (!c)
                return false;
            if (strcmp(c, v->string) != 0) {
                char *n = cJSON_malloc(strlen(c) + 1);
                if (!n) {
                    free(c);
                    return false;
                }
                memcpy(n, c, strlen(c) + 1);
                cJSON_free(v->string);
                v->string = n;
            }
            free(c);
        }
        if (cJSON_IsString(v) && v->valuestring) {
            char *c = tw_secret_clip(v->valuestring, SIZE_MAX);
            if (!c)
                return false;
            bool ok = strcmp(c, v->valuestring) == 0 || cJSON_SetValuestring(v, c) != NULL;
            free(c);
            if (!ok)
                return false;
        }
        if ((cJSON_IsObject(v) || cJSON_IsArray(v)) && !scrub_json(v->child, depth - 1))
            return false;
    }
    return true;
}

/*
 * The decoded answer scrubbed before it is encoded for the client: its text,
 * reasoning and calls are whole here (a key the upstream split across two
 * events is joined), so a secret is found wherever the encoder cuts its
 * events after.
 */
static bool scrub_result(tw_result *res, size_t max_depth)
{
    tw_message *m = &res->msg;
    if (!scrub_buf(&m->content) || !scrub_buf(&m->thinking) || !scrub_str(&m->thinking_signature))
        return false;
    for (size_t i = 0; i < m->ncalls; i++) {
        tw_call *c = &m->calls[i];
        if (!scrub_str(&c->id) || !scrub_str(&c->name) || !scrub_json(c->arguments, max_depth))
            return false;
        if (c->raw_args && c->raw_args_len) {
            tw_buf b = {0};
            if (tw_buf_append(&b, c->raw_args, c->raw_args_len) != TW_OK || !scrub_buf(&b)) {
                tw_buf_free(&b);
                return false;
            }
            free(c->raw_args);
            c->raw_args_len = b.len;
            c->raw_args = tw_buf_take(&b, NULL);
        }
    }
    return true;
}

/* The message of an upstream error body (either envelope), or an excerpt. */
static void upstream_error_message(const tw_http_response *u, const tw_limits *L, tw_error *err)
{
    cJSON *j = NULL;
    const char *m = NULL;
    if (u->body.len && tw_json_parse(u->body.data, u->body.len, L->max_depth, &j, NULL) == TW_OK)
        m = tw_json_get_str(tw_json_get(j, "error"), "message");
    /* scrubbed whole, then cut: a key across the cut is not left in part */
    char *x = excerpt(m ? m : u->body.data ? u->body.data : "", m ? 300 : 120);
    tw_error_set(err, TW_ERR_IO, -1, NULL, "upstream HTTP %d: %s", u->status, x ? x : "");
    free(x);
    cJSON_Delete(j);
}

static bool client_left(void *reply)
{
    return tw_loop_reply_abandoned(reply);
}

static void handle(void *user, const char *method, const char *url, const char *header,
                   const char *body, size_t len, tw_loop_reply *reply)
{
    (void)header;
    tw_refproxy *p = user;
    tw_api_kind kind = strcmp(p->from, "anthropic") == 0 ? TW_API_ANTHROPIC : TW_API_OPENAI;
    tw_error why = {.offset = -1};
    pthread_mutex_lock(&p->mu);
    p->count++;
    pthread_mutex_unlock(&p->mu);
    size_t n = strcspn(url, "?#");
    const char *want = kind == TW_API_ANTHROPIC ? "/messages" : "/chat/completions";
    if (strcmp(method, "POST") != 0 || n < strlen(want) ||
        strncmp(url + n - strlen(want), want, strlen(want)) != 0) {
        tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "this %s:%s proxy answers POST %s only",
                     p->from, p->to, client_path(p->from));
        error_out(kind, 404, why.message, reply);
        goto log;
    }
    tw_buf req = {0};
    req.max = p->limits.max_output_bytes;
    bool stream = false;
    int st =
        tw_refproxy_translate_request(p->from, p->to, body, len, &p->limits, &req, &stream, &why);
    if (st) {
        tw_buf_free(&req);
        error_out(kind, st, why.message, reply);
        goto log;
    }
    tw_client_opts co = p->client;
    co.base_url = p->upstream;
    /* the upstream transfer, its retries and their waits stop once the
     * client has gone or the server is stopping: no work for nobody */
    co.abandon = client_left;
    co.abandon_user = reply;
    tw_client *cl = tw_client_new(&co);
    tw_http_response ur;
    memset(&ur, 0, sizeof ur);
    const char *upath = client_path(p->to);
    tw_kv hv[1] = {{"Content-Type", "application/json"}};
    if (!cl) {
        tw_buf_free(&req);
        error_out(kind, 500, "cannot create the upstream client", reply);
        goto log;
    }
    tw_client_send(cl, "POST", upath, hv, 1, req.data ? req.data : "", req.len, &ur);
    tw_client_free(cl);
    tw_buf_free(&req);
    if (ur.status == 0) {
        char *x = excerpt(ur.transport_error[0] ? ur.transport_error : "no response", 250);
        char *shown = tw_url_shown(p->upstream); /* the answer may be written: no credentials */
        char *u = excerpt(shown ? shown : "", 200);
        free(shown);
        if (tw_loop_reply_abandoned(reply))
            tw_error_set(&why, TW_ERR_IO, -1, NULL,
                         "the client left (or the proxy is stopping) before upstream %s answered",
                         u ? u : "");
        else
            tw_error_set(&why, TW_ERR_IO, -1, NULL, "upstream %s: %s", u ? u : "", x ? x : "");
        free(x);
        free(u);
        tw_http_response_free(&ur);
        error_out(kind, 502, why.message, reply);
        goto log;
    }
    if (ur.status >= 300) {
        upstream_error_message(&ur, &p->limits, &why);
        int status = ur.status;
        tw_http_response_free(&ur);
        error_out(kind, status, why.message, reply);
        goto log;
    }
    tw_decode_opts d;
    memset(&d, 0, sizeof d);
    d.limits = p->limits;
    d.allow_unknown_tool = true;
    d.schema_warn = true;
    tw_result res;
    tw_status ds =
        tw_decode_response(upath, stream, ur.body.data ? ur.body.data : "", ur.body.len, &d, &res);
    tw_http_response_free(&ur);
    if (ds != TW_OK) {
        tw_error_set(&why, TW_ERR_INVALID, -1, NULL,
                     "the upstream's answer does not decode as %s: %s",
                     stream ? "a stream" : "a response", tw_code_message(ds));
        error_out(kind, 502, why.message, reply);
        goto log;
    }
    if (res.errors.len) {
        /* what the decoder could not read is not passed on as if it were whole */
        char *x = excerpt(res.errors.items[0].message, 300);
        tw_error_set(&why, TW_ERR_INVALID, -1, NULL,
                     "the upstream's answer does not decode cleanly: %s: %s",
                     tw_code_name(res.errors.items[0].code), x ? x : "");
        free(x);
        tw_result_free(&res);
        error_out(kind, 502, why.message, reply);
        goto log;
    }
    const char *enc = kind == TW_API_ANTHROPIC
                          ? (stream ? "anthropic-stream" : "anthropic-response")
                          : (stream ? "openai-stream" : "openai-response");
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.limits = p->limits;
    eo.id = kind == TW_API_ANTHROPIC ? "msg_toolwire_proxy" : "chatcmpl-toolwire-proxy";
    eo.created = 1700000000;
    cJSON *j = NULL;
    if (tw_json_parse(body, len, p->limits.max_depth, &j, NULL) == TW_OK)
        eo.model = tw_json_get_str(j, "model");
    /* OpenAI reasoning carries no signature: the proxy signs what it relays with a
     * fixed opaque value, as Anthropic clients expect one on every thinking block */
    if (kind == TW_API_ANTHROPIC && res.msg.thinking.len && !res.msg.thinking_signature)
        res.msg.thinking_signature = tw_strdup("toolwire-reference-proxy");
    const tw_encoder_ops *e = tw_encoder_find(enc);
    reply->body.max = p->limits.max_output_bytes;
    tw_status es = !scrub_result(&res, p->limits.max_depth) ? TW_ERR_NOMEM
                   : e ? e->encode_result(&res, &eo, &reply->body)
                       : TW_ERR_UNSUPPORTED;
    /* and the bytes themselves, for whatever else the answer repeats */
    if (es == TW_OK && !scrub_buf(&reply->body))
        es = TW_ERR_NOMEM;
    cJSON_Delete(j);
    tw_result_free(&res);
    if (es != TW_OK) {
        tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "the %s encoder failed: %s", enc,
                     tw_code_message(es));
        error_out(kind, 500, why.message, reply);
        goto log;
    }
    reply->status = 200;
    reply->ctype = stream ? "text/event-stream" : "application/json";
log:
    if (p->log) {
        tw_buf line = {0};
        tw_buf_printf(&line, "proxy %s -> %s: %d ", p->from, p->to, reply->status);
        tw_log_escape(&line, url, strlen(url));
        if (reply->status >= 300) {
            tw_buf_puts(&line, ": ");
            tw_log_escape(&line, why.message, strlen(why.message));
        }
        if (line.data)
            fprintf(p->log, "%s\n", line.data);
        tw_buf_free(&line);
    }
}

tw_status tw_refproxy_start(const tw_refproxy_opts *o, tw_refproxy **out, tw_error *err)
{
    *out = NULL;
    if (!o->from || !o->to || !fmt_ok(o->from) || !fmt_ok(o->to) || strcmp(o->from, o->to) == 0) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "the reference proxy translates anthropic:openai or openai:anthropic");
        return TW_ERR_INVALID;
    }
    if (!o->upstream) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "the upstream must be an http:// or https:// URL");
        return TW_ERR_INVALID;
    }
    if (!tw_url_base_ok(o->upstream, "the upstream", err)) /* says why: scheme, host, length */
        return TW_ERR_INVALID;
    tw_refproxy *p = calloc(1, sizeof *p);
    if (!p)
        return TW_ERR_NOMEM;
    snprintf(p->from, sizeof p->from, "%s", o->from);
    snprintf(p->to, sizeof p->to, "%s", o->to);
    snprintf(p->upstream, sizeof p->upstream, "%s", o->upstream);
    tw_limits_resolve(&p->limits, &o->limits);
    p->client = o->client;
    p->client.auth = p->client.key_env ? TW_AUTH_AUTO : TW_AUTH_NONE;
    if (!p->client.max_bytes)
        p->client.max_bytes = p->limits.max_input_bytes;
    p->log = o->log;
    pthread_mutex_init(&p->mu, NULL);
    tw_loop_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.port = o->port;
    lo.max_body = p->limits.max_input_bytes;
    lo.max_connections = o->max_connections;
    lo.max_per_ip = o->max_per_ip;
    lo.threads = o->threads;
    lo.workers = o->workers;
    lo.request_deadline_ms = o->request_deadline_ms;
    lo.inflight_budget = o->inflight_budget;
    lo.timeout_s = o->idle_timeout_s;
    lo.fn = handle;
    lo.user = p;
    tw_error w = {.offset = -1};
    if (tw_loop_start(&lo, &p->loop, &w) != TW_OK) {
        tw_error_set(err, w.code, -1, NULL, "reference proxy: %s", w.message);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return TW_ERR_IO;
    }
    *out = p;
    return TW_OK;
}

const char *tw_refproxy_url(const tw_refproxy *p)
{
    return tw_loop_url(p->loop);
}

unsigned long tw_refproxy_count(tw_refproxy *p)
{
    pthread_mutex_lock(&p->mu);
    unsigned long n = p->count;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void tw_refproxy_stop(tw_refproxy *p)
{
    if (!p)
        return;
    tw_loop_stop(p->loop);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
