/* The upstream reference server of run --upstream (upstream.h). */
#include "upstream.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopback.h"
#include "names.h"
#include "mock_ref.h"
#include "script.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/transcode.h"

struct tw_upstream {
    tw_loop *loop;
    char format[16];
    tw_limits limits;
    size_t max_records;
    pthread_mutex_t mu;
    unsigned long seq;
    unsigned long dropped;
    tw_upstream_record *recs;
    size_t n, cap;
};

static const char *const formats[] = {"openai", "anthropic", "vllm-native", NULL};

bool tw_upstream_format_known(const char *format)
{
    for (size_t i = 0; format && formats[i]; i++)
        if (strcmp(formats[i], format) == 0)
            return true;
    return false;
}

const char *tw_upstream_path(const char *format)
{
    if (!format)
        return NULL;
    if (strcmp(format, "openai") == 0)
        return "/v1/chat/completions";
    if (strcmp(format, "anthropic") == 0)
        return "/v1/messages";
    if (strcmp(format, "vllm-native") == 0)
        return "/generate";
    return NULL;
}

bool tw_upstream_spec_parse(const char *arg, char *format, size_t flen, unsigned short *port,
                            tw_error *err)
{
    const char *at = strrchr(arg, '@');
    char *end = NULL;
    long p = at ? strtol(at + 1, &end, 10) : 0;
    if (!at || !at[1] || *end || p < 1 || p > 65535 || (size_t)(at - arg) >= flen) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--upstream wants FORMAT@PORT (FORMAT openai, anthropic or "
                     "vllm-native; PORT 1..65535), got '%.100s'",
                     arg);
        return false;
    }
    memcpy(format, arg, (size_t)(at - arg));
    format[at - arg] = 0;
    if (!tw_upstream_format_known(format)) {
        return tw_unknown_name_error(err, "--upstream format", format, formats,
                                     sizeof formats / sizeof formats[0] - 1);
    }
    *port = (unsigned short)p;
    return true;
}

void tw_upstream_record_free(tw_upstream_record *r)
{
    if (!r)
        return;
    cJSON_Delete(r->body);
    tw_request_free(&r->req);
    free(r->nonce);
    free(r->model_text);
    tw_check_set_free(&r->checks);
    memset(r, 0, sizeof *r);
}

void tw_upstream_records_free(tw_upstream_record *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++)
        tw_upstream_record_free(&r[i]);
    free(r);
}

/* The error envelope of the format (docs/checks.md OAI-E01; Anthropic's own). */
static void error_reply(tw_api_kind kind, int status, const char *msg, tw_upstream_record *rec,
                        const char **ctype, tw_buf *out)
{
    rec->status = status;
    snprintf(rec->why, sizeof rec->why, "%s", msg);
    *ctype = "application/json";
    const char *type = status == 404   ? "not_found_error"
                       : status >= 500 ? "api_error"
                                       : "invalid_request_error";
    if (kind == TW_API_ANTHROPIC) {
        tw_buf_puts(out, "{\"type\":\"error\",\"error\":{\"type\":");
        tw_json_write_str(out, type, strlen(type), 0);
        tw_buf_puts(out, ",\"message\":");
        tw_json_write_str(out, msg, strlen(msg), 0);
        tw_buf_puts(out, "}}");
        return;
    }
    tw_buf_puts(out, "{\"error\":{\"message\":");
    tw_json_write_str(out, msg, strlen(msg), 0);
    tw_buf_puts(out, ",\"type\":");
    tw_json_write_str(out, type, strlen(type), 0);
    tw_buf_printf(out, ",\"param\":null,\"code\":\"%d\"}}", status);
}

static bool path_fits(const char *format, const char *path)
{
    size_t n = strcspn(path, "?#");
    const char *want = strcmp(format, "openai") == 0      ? "/chat/completions"
                       : strcmp(format, "anthropic") == 0 ? "/messages"
                                                          : "/generate";
    size_t w = strlen(want);
    return n >= w && strncmp(path + n - w, want, w) == 0;
}

void tw_upstream_answer(const char *format, const char *path, const char *body, size_t len,
                        const tw_limits *limits, tw_upstream_record *rec, const char **ctype,
                        tw_buf *out)
{
    tw_limits L;
    tw_limits_resolve(&L, limits);
    memset(rec, 0, sizeof *rec);
    rec->step = -1;
    snprintf(rec->path, sizeof rec->path, "%s", path);
    tw_api_kind kind = strcmp(format, "anthropic") == 0 ? TW_API_ANTHROPIC
                       : strcmp(format, "openai") == 0  ? TW_API_OPENAI
                                                        : TW_API_GENERATE;
    if (!path_fits(format, path)) {
        char msg[300];
        snprintf(msg, sizeof msg, "this %s upstream answers POST %s only", format,
                 tw_upstream_path(format));
        error_reply(kind, 404, msg, rec, ctype, out);
        tw_check_set_fill(&rec->checks, true, "not a request of the upstream's format");
        return;
    }
    if (tw_json_parse(body, len, L.max_depth, &rec->body, NULL) != TW_OK)
        rec->body = NULL;
    tw_checks_client(path, rec->body, &rec->checks);
    tw_check_set_put(&rec->checks, TW_CHK_CLI_07, TW_V_SKIP, -1, "the upstream asks for no retry");
    if (!cJSON_IsObject(rec->body)) {
        error_reply(kind, 400, "the request body is not a JSON object", rec, ctype, out);
        return;
    }
    rec->stream = kind != TW_API_GENERATE && cJSON_IsTrue(tw_json_get(rec->body, "stream"));
    const char *dec = kind == TW_API_ANTHROPIC ? "anthropic-request"
                      : kind == TW_API_OPENAI  ? "openai-request"
                                               : "vllm-generate-request";
    tw_decode_opts dopts;
    memset(&dopts, 0, sizeof dopts);
    dopts.limits = L;
    tw_neutral_value v;
    tw_error te;
    tw_error_clear(&te);
    tw_status st = tw_transcode_read(dec, body, len, &dopts, &v, NULL, &te);
    if (st != TW_OK || v.kind != TW_NEUTRAL_REQUEST) {
        if (st == TW_OK)
            tw_neutral_value_free(&v);
        char msg[400];
        snprintf(msg, sizeof msg, "the request does not decode as %s: %.223s", dec, te.message);
        error_reply(kind, st == TW_ERR_LIMIT ? 413 : 400, msg, rec, ctype, out);
        return;
    }
    rec->req = v.req;
    memset(&v.req, 0, sizeof v.req);
    rec->decoded = true;
    rec->nonce = tw_script_nonce(&rec->req);
    /* what the script writes (as the script profile decides it), for judging the answer */
    int reasoning = kind == TW_API_GENERATE ? -1 : tw_script_options_reasoning(rec->body);
    tw_script_answer ans;
    memset(&ans, 0, sizeof ans);
    st = tw_script_answer_with(&rec->req, reasoning, &L, &ans, &te);
    if (st == TW_OK) {
        rec->step = ans.step;
        rec->reasoning = ans.reasoning;
        rec->model_text =
            tw_strndup(ans.model_text.data ? ans.model_text.data : "", ans.model_text.len);
    }
    tw_script_answer_free(&ans);
    /* the answer itself: the script profile's reference answer for the endpoint */
    tw_ref_answer ra;
    tw_ref_answer_script(kind, rec->body, &L, &ra);
    if (ra.status != 200) {
        free(rec->model_text);
        rec->model_text = NULL;
        error_reply(kind, ra.status, ra.why, rec, ctype, out);
    } else if (!rec->model_text) {
        error_reply(kind, 500, "out of memory", rec, ctype, out);
    } else if (tw_buf_append(out, ra.body.data ? ra.body.data : "", ra.body.len) != TW_OK) {
        tw_buf_reset(out);
        error_reply(kind, 500, "the answer is larger than max_output_bytes", rec, ctype, out);
    } else {
        rec->status = 200;
        rec->stream = ra.stream;
        *ctype = ra.stream ? "text/event-stream" : "application/json";
    }
    tw_ref_answer_free(&ra);
}

static void keep(tw_upstream *u, tw_upstream_record *rec)
{
    pthread_mutex_lock(&u->mu);
    rec->seq = ++u->seq;
    if (u->n == u->max_records) {
        tw_upstream_record_free(&u->recs[0]);
        memmove(u->recs, u->recs + 1, (u->n - 1) * sizeof *u->recs);
        u->n--;
        u->dropped++;
    }
    if (u->n == u->cap) {
        size_t nc = u->cap ? u->cap * 2 : 16;
        if (nc > u->max_records)
            nc = u->max_records;
        tw_upstream_record *nr = realloc(u->recs, nc * sizeof *nr);
        if (!nr) {
            u->dropped++;
            tw_upstream_record_free(rec);
            pthread_mutex_unlock(&u->mu);
            return;
        }
        u->recs = nr;
        u->cap = nc;
    }
    u->recs[u->n++] = *rec;
    memset(rec, 0, sizeof *rec);
    pthread_mutex_unlock(&u->mu);
}

static void serve_one(void *user, const char *method, const char *url, const char *header,
                      const char *body, size_t len, tw_loop_reply *reply)
{
    (void)header;
    tw_upstream *u = user;
    tw_upstream_record rec;
    reply->body.max = u->limits.max_output_bytes;
    if (strcmp(method, "POST") != 0) {
        tw_api_kind kind = strcmp(u->format, "anthropic") == 0 ? TW_API_ANTHROPIC : TW_API_OPENAI;
        memset(&rec, 0, sizeof rec);
        rec.step = -1;
        snprintf(rec.path, sizeof rec.path, "%s", url);
        error_reply(kind, 405, "only POST is answered", &rec, &reply->ctype, &reply->body);
        reply->status = 405;
        tw_check_set_fill(&rec.checks, true, "not a POST");
        keep(u, &rec);
        return;
    }
    tw_upstream_answer(u->format, url, body, len, &u->limits, &rec, &reply->ctype, &reply->body);
    reply->status = rec.status;
    keep(u, &rec);
}

tw_status tw_upstream_start(const tw_upstream_opts *o, tw_upstream **out, tw_error *err)
{
    *out = NULL;
    if (!tw_upstream_format_known(o->format)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "unknown upstream format '%.40s' (openai, anthropic, vllm-native)",
                     o->format ? o->format : "");
        return TW_ERR_INVALID;
    }
    tw_upstream *u = calloc(1, sizeof *u);
    if (!u)
        return TW_ERR_NOMEM;
    snprintf(u->format, sizeof u->format, "%s", o->format);
    tw_limits_resolve(&u->limits, &o->limits);
    u->max_records = o->max_records ? o->max_records : 4096;
    pthread_mutex_init(&u->mu, NULL);
    tw_loop_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.port = o->port;
    lo.max_body = u->limits.max_input_bytes;
    /* the script answers at once: a few threads are enough */
    lo.threads = 2;
    lo.workers = 4;
    lo.fn = serve_one;
    lo.user = u;
    tw_error w = {.offset = -1};
    if (tw_loop_start(&lo, &u->loop, &w) != TW_OK) {
        tw_error_set(err, w.code, -1, NULL, "upstream %s: %s", o->format, w.message);
        pthread_mutex_destroy(&u->mu);
        free(u);
        return TW_ERR_IO;
    }
    *out = u;
    return TW_OK;
}

const char *tw_upstream_url(const tw_upstream *u)
{
    return tw_loop_url(u->loop);
}
unsigned short tw_upstream_port(const tw_upstream *u)
{
    return tw_loop_port(u->loop);
}

unsigned long tw_upstream_seq(tw_upstream *u)
{
    pthread_mutex_lock(&u->mu);
    unsigned long s = u->seq;
    pthread_mutex_unlock(&u->mu);
    return s;
}

unsigned long tw_upstream_dropped(tw_upstream *u)
{
    pthread_mutex_lock(&u->mu);
    unsigned long s = u->dropped;
    pthread_mutex_unlock(&u->mu);
    return s;
}

tw_status tw_upstream_take(tw_upstream *u, unsigned long since, tw_upstream_record **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&u->mu);
    size_t first = 0;
    while (first < u->n && u->recs[first].seq <= since)
        first++;
    size_t k = u->n - first;
    if (k) {
        tw_upstream_record *r = malloc(k * sizeof *r);
        if (!r) {
            pthread_mutex_unlock(&u->mu);
            return TW_ERR_NOMEM;
        }
        memcpy(r, u->recs + first, k * sizeof *r);
        u->n = first;
        *out = r;
        *n = k;
    }
    pthread_mutex_unlock(&u->mu);
    return TW_OK;
}

void tw_upstream_stop(tw_upstream *u)
{
    if (!u)
        return;
    tw_loop_stop(u->loop);
    for (size_t i = 0; i < u->n; i++)
        tw_upstream_record_free(&u->recs[i]);
    free(u->recs);
    pthread_mutex_destroy(&u->mu);
    free(u);
}
