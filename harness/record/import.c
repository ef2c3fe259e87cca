/* Importers: vcrpy cassettes and HAR files into fixtures (import.h). */
#include "import.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cassette.h"
#include "checks.h"
#include "decode_opts.h"
#include "har.h"
#include "import_text.h"
#include "mock.h"
#include "out.h"
#include "toolwire/decode.h"
#include "toolwire/registry.h"

/* One recorded interaction, whatever file it came from. Pointers refer to
 * the loaded cassette / HAR document. */
typedef struct rawx {
    const char *method;
    const char *url;
    tw_kv *rqh;
    size_t nrqh;
    const char *rq_body;
    size_t rq_len;
    const cJSON *rq_json;
    int status;
    tw_kv *rsh;
    size_t nrsh;
    const char *rs_body;
    size_t rs_len;
    const cJSON *rs_json;
    size_t line, col;
    const char *started;
    const tw_har_header *cookies[2]; /* a HAR's request and response cookies[] */
    size_t ncookies[2];
} rawx;

/* ---- SSE splitting ---- */

typedef struct sse_acc {
    tw_buf data;
    bool has_data;
    const char *event;
    const char *id;
} sse_acc;

static tw_status sse_push(tw_fx_arena *a, sse_acc *s, tw_fx_sse **ev, size_t *n, size_t *cap)
{
    if (!s->has_data) {
        s->event = s->id = NULL;
        return TW_OK;
    }
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        tw_fx_sse *g = tw_fx_arena_grow(a, *ev, *cap, nc, sizeof **ev);
        if (!g)
            return TW_ERR_NOMEM;
        *ev = g;
        *cap = nc;
    }
    tw_fx_sse *e = &(*ev)[(*n)++];
    e->event = s->event;
    e->id = s->id;
    e->data = tw_fx_arena_strn(a, s->data.data ? s->data.data : "", s->data.len);
    if (!e->data)
        return TW_ERR_NOMEM;
    tw_buf_reset(&s->data);
    s->has_data = false;
    s->event = s->id = NULL;
    return TW_OK;
}

tw_status tw_sse_split(const char *buf, size_t len, tw_fx_arena *a, tw_fx_sse **events,
                       size_t *nevents)
{
    *events = NULL;
    *nevents = 0;
    size_t cap = 0;
    sse_acc s;
    memset(&s, 0, sizeof s);
    tw_status st = TW_OK;
    size_t i = 0;
    while (i < len && st == TW_OK) {
        size_t e = i;
        while (e < len && buf[e] != '\n' && buf[e] != '\r')
            e++;
        const char *line = buf + i;
        size_t ll = e - i;
        /* next line start */
        size_t next = e;
        if (next < len && buf[next] == '\r')
            next++;
        if (next < len && buf[next] == '\n' && (next == e || buf[e] == '\r'))
            next++;
        if (next == e && e < len)
            next = e + 1;
        i = next;
        if (ll == 0) {
            st = sse_push(a, &s, events, nevents, &cap);
            continue;
        }
        if (line[0] == ':')
            continue;
        const char *colon = memchr(line, ':', ll);
        size_t fl = colon ? (size_t)(colon - line) : ll;
        const char *v = colon ? colon + 1 : line + ll;
        size_t vl = colon ? ll - fl - 1 : 0;
        if (vl && *v == ' ')
            v++, vl--;
        if (fl == 4 && memcmp(line, "data", 4) == 0) {
            if (s.has_data)
                st = tw_buf_putc(&s.data, '\n');
            if (st == TW_OK)
                st = tw_buf_append(&s.data, v, vl);
            if (st == TW_OK && !s.data.data)
                st = tw_buf_reserve(&s.data, 1);
            s.has_data = true;
        } else if (fl == 5 && memcmp(line, "event", 5) == 0) {
            s.event = vl ? tw_fx_arena_strn(a, v, vl) : NULL;
        } else if (fl == 2 && memcmp(line, "id", 2) == 0) {
            s.id = tw_fx_arena_strn(a, v, vl);
        }
    }
    if (st == TW_OK)
        st = sse_push(a, &s, events, nevents, &cap);
    tw_buf_free(&s.data);
    return st;
}

/* ---- helpers ---- */

static bool ci_contains(const char *hay, const char *needle)
{
    if (!hay)
        return false;
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* "/v1/chat/completions?x" from "https://host/v1/chat/completions?x". */
static const char *url_path(const char *url)
{
    const char *p = strstr(url, "://");
    if (!p)
        return url[0] == '/' ? url : NULL;
    p = strchr(p + 3, '/');
    return p ? p : "/";
}

static bool looks_sse(const char *b, size_t n)
{
    while (n && (*b == ' ' || *b == '\n' || *b == '\r'))
        b++, n--;
    return (n >= 5 && memcmp(b, "data:", 5) == 0) || (n >= 6 && memcmp(b, "event:", 6) == 0) ||
           (n >= 1 && b[0] == ':');
}

/* Headers that describe the recorded transfer, not the body we write. */
static bool transfer_header(const char *name)
{
    return strcasecmp(name, "content-length") == 0 || strcasecmp(name, "content-encoding") == 0 ||
           strcasecmp(name, "transfer-encoding") == 0;
}

static tw_status copy_headers(tw_fx_arena *a, tw_redactor *red, const tw_kv *in, size_t n,
                              tw_kv **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (!n)
        return TW_OK;
    tw_kv *kv = tw_fx_arena_calloc(a, n, sizeof *kv);
    if (!kv)
        return TW_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!in[i].name || !in[i].name[0] || tw_redact_header_dropped(red, in[i].name) ||
            transfer_header(in[i].name) || strpbrk(in[i].name, " \t\r\n:"))
            continue;
        /* a header recorded with several values: keep the first */
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++)
            seen = strcasecmp(kv[j].name, in[i].name) == 0;
        if (seen)
            continue;
        char *v = tw_redact_str(red, in[i].value ? in[i].value : "");
        if (!v)
            return TW_ERR_NOMEM;
        for (char *p = v; *p; p++)
            if (*p == '\r' || *p == '\n')
                *p = ' ';
        kv[k].name = tw_fx_arena_str(a, in[i].name);
        kv[k].value = tw_fx_arena_str(a, v);
        free(v);
        if (!kv[k].name || !kv[k].value)
            return TW_ERR_NOMEM;
        k++;
    }
    *out = kv;
    *nout = k;
    return TW_OK;
}

/* A JSON body from parsed JSON or bytes; non-JSON bytes become a JSON string. */
static tw_status body_json(tw_fx_arena *a, tw_redactor *red, const tw_limits *lim,
                           const cJSON *parsed, const char *b, size_t n, const cJSON **out)
{
    *out = NULL;
    cJSON *v = NULL;
    if (parsed)
        v = cJSON_Duplicate(parsed, 1);
    else if (b && n) {
        if (tw_json_parse(b, n, lim->max_depth, &v, NULL) != TW_OK || !v) {
            char *s = tw_strndup(b, n);
            char *r = s ? tw_redact_str(red, s) : NULL;
            free(s);
            if (!r)
                return TW_ERR_NOMEM;
            v = cJSON_CreateString(r);
            free(r);
        }
    } else
        return TW_OK;
    if (!v)
        return TW_ERR_NOMEM;
    tw_status st = tw_redact_json(red, v, lim->max_depth);
    if (st != TW_OK) {
        cJSON_Delete(v);
        return st;
    }
    *out = tw_fx_arena_json(a, v);
    return *out ? TW_OK : TW_ERR_NOMEM;
}

/* ---- building the fixture ---- */

/* A secret split across the events of a streamed tool call: redacted in
 * the assembled arguments, fragment by fragment. */
/* The events of every streamed exchange of the file, in file order, as one
 * stream: the text they carry in pieces is scrubbed joined (a secret cut
 * across two events, or across two interactions), then each event's fields
 * on their own (scrubbed first, an event would lose a secret's first part
 * and leave the rest unknown in the next). */
static tw_status redact_streams(tw_fx_arena *a, tw_redactor *red, const tw_limits *lim,
                                tw_fixture *f)
{
    size_t n = 0;
    for (size_t k = 0; k < f->nexchanges; k++)
        n += f->exchanges[k].resp.stream ? f->exchanges[k].resp.nevents : 0;
    if (!n)
        return TW_OK;
    tw_fx_sse **ev = malloc(n * sizeof *ev);
    const char **data = malloc(n * sizeof *data);
    size_t *len = malloc(n * sizeof *len);
    char **out = calloc(n, sizeof *out);
    tw_status st = ev && data && len && out ? TW_OK : TW_ERR_NOMEM;
    size_t i = 0;
    for (size_t k = 0; st == TW_OK && k < f->nexchanges; k++)
        for (size_t e = 0; f->exchanges[k].resp.stream && e < f->exchanges[k].resp.nevents;
             e++, i++) {
            ev[i] = &f->exchanges[k].resp.events[e];
            data[i] = ev[i]->data ? ev[i]->data : "";
            len[i] = strlen(data[i]);
        }
    if (st == TW_OK)
        st = tw_redact_stream(red, data, len, n, lim->max_depth, out);
    for (i = 0; out && i < n; i++) {
        if (st == TW_OK && out[i] && !(ev[i]->data = tw_fx_arena_str(a, out[i])))
            st = TW_ERR_NOMEM;
        free(out[i]);
    }
    for (i = 0; i < n && st == TW_OK; i++) {
        const char **fl[3] = {&ev[i]->event, &ev[i]->data, &ev[i]->id};
        for (size_t k = 0; k < 3 && st == TW_OK; k++) {
            if (!*fl[k])
                continue;
            char *c = tw_redact_str(red, *fl[k]);
            if (!c || !(*fl[k] = tw_fx_arena_str(a, c)))
                st = TW_ERR_NOMEM;
            free(c);
        }
    }
    free(ev);
    free(data);
    free(len);
    free(out);
    return st;
}

static tw_status build_exchange(tw_fx_arena *a, tw_redactor *red, const tw_limits *lim,
                                const rawx *r, tw_fx_exchange *x, const char **fmt_out)
{
    tw_status st;
    x->req.method = tw_fx_arena_str(a, r->method && *r->method ? r->method : "POST");
    if (!x->req.method)
        return TW_ERR_NOMEM;
    for (char *m = (char *)x->req.method; *m; m++)
        if (*m >= 'a' && *m <= 'z')
            *m = (char)(*m - 'a' + 'A');
    const char *p = r->url ? url_path(r->url) : NULL;
    char *scrubbed = tw_redact_str(red, p && *p ? p : "/");
    if (!scrubbed)
        return TW_ERR_NOMEM;
    x->req.path = tw_fx_arena_str(a, scrubbed);
    free(scrubbed);
    if (!x->req.path)
        return TW_ERR_NOMEM;
    if ((st = copy_headers(a, red, r->rqh, r->nrqh, &x->req.headers, &x->req.nheaders)) != TW_OK ||
        (st = body_json(a, red, lim, r->rq_json, r->rq_body, r->rq_len, &x->req.body)) != TW_OK)
        return st;
    x->has_response = true;
    x->resp.status = r->status;
    if ((st = copy_headers(a, red, r->rsh, r->nrsh, &x->resp.headers, &x->resp.nheaders)) != TW_OK)
        return st;
    const char *ct = tw_kv_get(r->rsh, r->nrsh, "content-type");
    bool sse = !r->rs_json && r->rs_body &&
               (ci_contains(ct, "text/event-stream") || (!ct && looks_sse(r->rs_body, r->rs_len)));
    if (sse) {
        /* split as it came: scrubbed with every stream of the file once all
         * exchanges are built (redact_streams) */
        st = tw_sse_split(r->rs_body, r->rs_len, a, &x->resp.events, &x->resp.nevents);
        if (st != TW_OK)
            return st;
        x->resp.stream = true;
    } else if (r->rs_json || (r->rs_body && r->rs_len)) {
        cJSON *v = NULL;
        if (!r->rs_json &&
            tw_json_parse(r->rs_body, r->rs_len, lim->max_depth, &v, NULL) != TW_OK) {
            char *s = tw_strndup(r->rs_body, r->rs_len);
            char *c = s ? tw_redact_str(red, s) : NULL;
            free(s);
            if (!c)
                return TW_ERR_NOMEM;
            x->resp.body_text = tw_fx_arena_str(a, c);
            free(c);
            if (!x->resp.body_text)
                return TW_ERR_NOMEM;
        } else {
            cJSON_Delete(v);
            if ((st = body_json(a, red, lim, r->rs_json, r->rs_body, r->rs_len, &x->resp.body)) !=
                TW_OK)
                return st;
        }
    }
    /* which reference decoder judges it, from the path (the table of formats) */
    const char *fmt = tw_api_recorded_decoder(x->req.path, sse);
    if (fmt && !tw_format_find(fmt))
        fmt = NULL;
    x->decode_format = fmt;
    *fmt_out = fmt;
    return TW_OK;
}

/* ---- expectations (--expect) ---- */

/* The bytes the mock backend's replay profile sends for a recorded response
 * (mock.c, answer_replay): each SSE event with its event:/id: lines and one
 * data: line per line of data, a JSON body compact, or the text body. */
static tw_status replay_bytes(const tw_fx_response *r, tw_buf *out)
{
    tw_status st = tw_buf_reserve(out, 1);
    if (st != TW_OK)
        return st;
    if (r->stream) {
        for (size_t i = 0; st == TW_OK && i < r->nevents; i++) {
            const tw_fx_sse *e = &r->events[i];
            if (e->event)
                st = tw_buf_printf(out, "event: %s\n", e->event);
            if (st == TW_OK && e->id)
                st = tw_buf_printf(out, "id: %s\n", e->id);
            const char *d = e->data ? e->data : "";
            size_t lines = strlen(d) + 1; /* at most one line per byte, plus the last */
            for (size_t l = 0; st == TW_OK && l < lines; l++) {
                const char *nl = strchr(d, '\n');
                size_t len = nl ? (size_t)(nl - d) : strlen(d);
                st = tw_buf_puts(out, "data: ");
                if (st == TW_OK)
                    st = tw_buf_append(out, d, len);
                if (st == TW_OK)
                    st = tw_buf_putc(out, '\n');
                if (!nl)
                    break;
                d = nl + 1;
            }
            if (st == TW_OK)
                st = tw_buf_putc(out, '\n');
        }
    } else if (r->body) {
        char *j = tw_json_print(r->body, NULL);
        st = j ? tw_buf_append(out, j, strlen(j)) : TW_ERR_NOMEM;
        free(j);
    } else if (r->body_text) {
        st = tw_buf_puts(out, r->body_text);
    }
    return st;
}

/* The content type the replay sends: the recorded one, else the mock's default. */
static const char *replay_ctype(const tw_fx_response *r)
{
    const char *ct = tw_kv_get(r->headers, r->nheaders, "content-type");
    return ct             ? ct
           : r->stream    ? "text/event-stream"
           : r->body_text ? "text/plain"
                          : "application/json";
}

/* As tw_run_backend's session rule: did an earlier exchange of the same
 * strict session pause with tool calls? 0 when the exchange names none. */
static int replay_session(const tw_fixture *f, size_t k, const tw_buf *bytes)
{
    const tw_fx_exchange *x = &f->exchanges[k];
    const char *sid = tw_kv_get(x->req.headers, x->req.nheaders, "X-Session-Id");
    if (!sid)
        return 0;
    for (size_t j = k; j-- > 0;) {
        const tw_fx_exchange *y = &f->exchanges[j];
        const char *s2 = tw_kv_get(y->req.headers, y->req.nheaders, "X-Session-Id");
        if (!s2 || strcmp(s2, sid) != 0)
            continue;
        return y->resp.status == 200 && bytes[j].data && strstr(bytes[j].data, "\"tool_calls\"")
                   ? 1
                   : -1;
    }
    return -1;
}

static bool req_streams(const tw_fx_exchange *x)
{
    return cJSON_IsTrue(tw_json_get(x->req.body, "stream"));
}

/* expect.result: the neutral result the reference decoder gives for the
 * replayed bytes (tools from the request, as the run decodes them), without
 * diagnostic offsets (they point into bytes, not into the recording). */
static tw_status expect_result(tw_fx_arena *a, const tw_limits *L, tw_fx_exchange *x,
                               const tw_buf *b)
{
    const tw_format_ops *f = x->decode_format ? tw_format_find(x->decode_format) : NULL;
    if (!f)
        return TW_OK;
    tw_buf text = {0};
    if (x->model_text && tw_decoder_is_text(x->decode_format)) {
        /* a text decoder reads the model text, not the replayed bytes */
        text.data = (char *)x->model_text;
        text.len = strlen(x->model_text);
        b = &text;
    }
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    h.o.limits = *L;
    const cJSON *rt = tw_json_get(x->req.body, "tools");
    tw_tool *t = NULL;
    size_t nt = 0;
    if (cJSON_IsArray(rt) && rt->child && tw_tools_read(rt, L, &t, &nt, NULL) == TW_OK)
        tw_opts_set_tools(&h, t, nt);
    char *copy = malloc(b->len ? b->len : 1);
    if (!copy) {
        tw_opts_holder_free(&h);
        return TW_ERR_NOMEM;
    }
    if (b->len)
        memcpy(copy, b->data, b->len);
    tw_result r;
    tw_status st = f->decode(copy, b->len, &h.o, &r);
    free(copy);
    tw_opts_holder_free(&h);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK)
        return TW_OK; /* no decoder result: nothing to expect */
    tw_buf out = {0};
    st = tw_result_write(&out, &r, 0);
    tw_result_free(&r);
    cJSON *j = NULL;
    if (st == TW_OK && tw_json_parse(out.data, out.len, L->max_depth + 8, &j, NULL) != TW_OK)
        st = TW_ERR_NOMEM;
    tw_buf_free(&out);
    if (st != TW_OK) {
        cJSON_Delete(j);
        return st;
    }
    static const char *const lists[] = {"errors", "warnings"};
    for (size_t i = 0; i < 2; i++) {
        cJSON *l = cJSON_GetObjectItemCaseSensitive(j, lists[i]);
        for (cJSON *d = cJSON_IsArray(l) ? l->child : NULL; d; d = d->next)
            cJSON_DeleteItemFromObjectCaseSensitive(d, "offset");
    }
    x->expect_result = tw_fx_arena_json(a, j);
    return x->expect_result ? TW_OK : TW_ERR_NOMEM;
}

/* expect.failing_checks: every check that fails on the replayed exchange,
 * backend checks as tw_run_backend applies them, client checks as the mock
 * judges the request. */
static tw_status expect_checks(tw_fx_arena *a, const tw_limits *L, const tw_fixture *f, size_t k,
                               const tw_buf *bytes)
{
    tw_fx_exchange *x = &f->exchanges[k];
    const tw_fx_response *r = &x->resp;
    tw_kv *rh = tw_fx_arena_calloc(a, r->nheaders + 1, sizeof *rh);
    if (!rh)
        return TW_ERR_NOMEM;
    size_t nrh = 0;
    for (size_t i = 0; i < r->nheaders; i++)
        rh[nrh++] = r->headers[i];
    if (!tw_kv_get(r->headers, r->nheaders, "content-type"))
        rh[nrh++] = (tw_kv){"content-type", replay_ctype(r)};
    tw_judge_input in;
    memset(&in, 0, sizeof in);
    in.ex = x;
    in.path = x->req.path;
    in.req_body = x->req.body;
    in.req_headers = x->req.headers;
    in.nreq_headers = x->req.nheaders;
    in.status = r->status;
    in.resp_headers = rh;
    in.nresp_headers = nrh;
    in.body = bytes[k].data ? bytes[k].data : "";
    in.body_len = bytes[k].len;
    in.limits = L;
    in.session_pending = replay_session(f, k, bytes);
    if (req_streams(x))
        for (size_t j = 0; j < f->nexchanges; j++) {
            const tw_fx_exchange *y = &f->exchanges[j];
            if (j != k && !req_streams(y) && y->resp.status == 200 &&
                strcmp(y->req.path, x->req.path) == 0 &&
                tw_mock_body_matches(y->req.body, x->req.body, TW_MATCH_NORMALISED, NULL)) {
                in.pair_body = bytes[j].data ? bytes[j].data : "";
                in.pair_len = bytes[j].len;
                break;
            }
        }
    tw_check_set set = {0};
    tw_checks_backend(&in, &set);
    tw_check_set cl = {0};
    tw_checks_client(x->req.path, x->req.body, &cl);
    tw_checks_client_context(x->req.path, x->req.body, f, k, false, L, &cl);
    tw_check_set_merge(&set, &cl);
    tw_check_set_free(&cl);
    tw_check_set_sort(&set);
    size_t nfail = 0;
    for (size_t i = 0; i < set.len; i++)
        nfail += set.items[i].verdict == TW_V_FAIL;
    tw_status st = TW_OK;
    if (nfail) {
        x->expect_fail = tw_fx_arena_calloc(a, nfail, sizeof *x->expect_fail);
        if (!x->expect_fail)
            st = TW_ERR_NOMEM;
    }
    for (size_t i = 0; st == TW_OK && i < set.len; i++) {
        const tw_check_result *c = &set.items[i];
        if (c->verdict != TW_V_FAIL)
            continue;
        tw_buf reason = {0};
        st = tw_buf_printf(&reason, "observed when imported: %s",
                           c->evidence && c->evidence[0] ? c->evidence : "(no evidence)");
        tw_fx_expect_fail *e = &x->expect_fail[x->nexpect_fail];
        if (st == TW_OK) {
            e->check = tw_fx_arena_str(a, c->id);
            e->reason = tw_fx_arena_strn(a, reason.data, reason.len);
            if (!e->check || !e->reason)
                st = TW_ERR_NOMEM;
            else
                x->nexpect_fail++;
        }
        tw_buf_free(&reason);
    }
    tw_check_set_free(&set);
    return st;
}

static tw_status add_expectations(tw_fx_arena *a, const tw_limits *L, const tw_fixture *f)
{
    tw_buf *bytes = calloc(f->nexchanges ? f->nexchanges : 1, sizeof *bytes);
    if (!bytes)
        return TW_ERR_NOMEM;
    tw_status st = TW_OK;
    for (size_t k = 0; st == TW_OK && k < f->nexchanges; k++)
        st = replay_bytes(&f->exchanges[k].resp, &bytes[k]);
    for (size_t k = 0; st == TW_OK && k < f->nexchanges; k++) {
        st = expect_result(a, L, &f->exchanges[k], &bytes[k]);
        if (st == TW_OK)
            st = expect_checks(a, L, f, k, bytes);
    }
    for (size_t k = 0; k < f->nexchanges; k++)
        tw_buf_free(&bytes[k]);
    free(bytes);
    return st;
}

/* the backend of the API whose decoder fmt is (the table of formats) */
static const char *backend_of(const char *fmt)
{
    if (!fmt)
        return NULL;
    const char *be = tw_api_backend_of(fmt);
    return be ? be : "vllm-native";
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* PREFIX + base name without extension, restricted to [A-Za-z0-9._-]. */
static char *fixture_stem(const char *path, const char *prefix)
{
    const char *b = base_name(path);
    size_t n = strlen(b);
    static const char *const exts[] = {".yaml", ".yml", ".har", ".json", NULL};
    for (const char *const *e = exts; *e; e++)
        if (ends_with(b, n, *e)) {
            n -= strlen(*e);
            break;
        }
    tw_buf s = {0};
    if ((prefix && tw_buf_puts(&s, prefix) != TW_OK) || tw_buf_append(&s, b, n) != TW_OK) {
        tw_buf_free(&s);
        return NULL;
    }
    if (!s.len && tw_buf_puts(&s, "imported") != TW_OK) {
        tw_buf_free(&s);
        return NULL;
    }
    for (size_t i = 0; i < s.len; i++) {
        char c = s.data[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            s.data[i] = '_';
    }
    return tw_buf_take(&s, NULL);
}

typedef struct source {
    tw_cassette cas;
    tw_har har;
    rawx *x;
    size_t n;
} source;

static void source_free(source *s)
{
    tw_cassette_free(&s->cas);
    tw_har_free(&s->har);
    free(s->x);
}

/* tw_kv views of the loaded headers live in the arena. */
static tw_kv *kv_view(tw_fx_arena *a, size_t n, const void *src, size_t stride, size_t name_off,
                      size_t value_off)
{
    tw_kv *kv = tw_fx_arena_calloc(a, n, sizeof *kv);
    for (size_t i = 0; kv && i < n; i++) {
        const char *base = (const char *)src + i * stride;
        memcpy(&kv[i].name, base + name_off, sizeof(char *));
        memcpy(&kv[i].value, base + value_off, sizeof(char *));
    }
    return kv;
}

/* data NULL: read the file at path; otherwise parse len bytes of data. */
static tw_status load_source(const char *path, const char *data, size_t len,
                             const tw_import_opts *o, tw_fx_arena *a, source *s, tw_error *err)
{
    memset(s, 0, sizeof *s);
    tw_status st;
    if (o->kind == TW_IMPORT_VCR) {
        st = data ? tw_cassette_parse(data, len, path, o->limits, &s->cas, err)
                  : tw_cassette_load(path, o->limits, &s->cas, err);
        if (st != TW_OK)
            return st;
        s->n = s->cas.ninteractions;
    } else {
        st = data ? tw_har_parse(data, len, path, o->limits, &s->har, err)
                  : tw_har_load(path, o->limits, &s->har, err);
        if (st != TW_OK)
            return st;
        s->n = s->har.nentries;
    }
    if (s->n == 0) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%s:1:1: no interactions to import", path);
        return TW_ERR_INVALID;
    }
    s->x = calloc(s->n, sizeof *s->x);
    if (!s->x)
        return TW_ERR_NOMEM;
    for (size_t i = 0; i < s->n; i++) {
        rawx *r = &s->x[i];
        if (o->kind == TW_IMPORT_VCR) {
            const tw_cassette_interaction *ci = &s->cas.interactions[i];
            r->method = ci->request.method;
            r->url = ci->request.uri;
            r->nrqh = ci->request.nheaders;
            r->rqh =
                kv_view(a, r->nrqh, ci->request.headers, sizeof(tw_cassette_header),
                        offsetof(tw_cassette_header, name), offsetof(tw_cassette_header, value));
            r->rq_json = ci->request.body.json;
            r->rq_body = ci->request.body.data;
            r->rq_len = ci->request.body.len;
            r->status = ci->response.status;
            r->nrsh = ci->response.nheaders;
            r->rsh =
                kv_view(a, r->nrsh, ci->response.headers, sizeof(tw_cassette_header),
                        offsetof(tw_cassette_header, name), offsetof(tw_cassette_header, value));
            r->rs_json = ci->response.body.json;
            r->rs_body = ci->response.body.data;
            r->rs_len = ci->response.body.len;
            r->line = ci->line;
            r->col = 1;
        } else {
            const tw_har_entry *e = &s->har.entries[i];
            r->method = e->method;
            r->url = e->url;
            r->nrqh = e->request.nheaders;
            r->rqh = kv_view(a, r->nrqh, e->request.headers, sizeof(tw_har_header),
                             offsetof(tw_har_header, name), offsetof(tw_har_header, value));
            r->rq_body = e->request.has_body ? e->request.body : NULL;
            r->rq_len = e->request.body_len;
            r->status = e->status;
            r->nrsh = e->response.nheaders;
            r->rsh = kv_view(a, r->nrsh, e->response.headers, sizeof(tw_har_header),
                             offsetof(tw_har_header, name), offsetof(tw_har_header, value));
            r->rs_body = e->response.has_body ? e->response.body : NULL;
            r->rs_len = e->response.body_len;
            r->line = e->line;
            r->col = e->col;
            r->started = e->started;
            r->cookies[0] = e->request.cookies;
            r->ncookies[0] = e->request.ncookies;
            r->cookies[1] = e->response.cookies;
            r->ncookies[1] = e->response.ncookies;
        }
        if ((r->nrqh && !r->rqh) || (r->nrsh && !r->rsh))
            return TW_ERR_NOMEM;
        if (!r->url || !r->url[0]) {
            tw_error_set(err, TW_ERR_PARSE, -1, NULL,
                         "%s:%zu:%zu: interaction %zu: expected a request URI", path, r->line,
                         r->col, i + 1);
            return TW_ERR_INVALID;
        }
        if (r->status < 100 || r->status > 599) {
            tw_error_set(err, TW_ERR_PARSE, -1, NULL,
                         "%s:%zu:%zu: interaction %zu: expected a response status from 100 to 599",
                         path, r->line, r->col, i + 1);
            return TW_ERR_INVALID;
        }
    }
    return TW_OK;
}

static tw_status import_any(const char *path, const char *data, size_t len, const tw_import_opts *o,
                            tw_redactor *red, tw_buf *out, size_t *nexchanges, tw_error *err)
{
    tw_limits lim;
    tw_limits_resolve(&lim, o->limits);
    tw_fx_arena a;
    memset(&a, 0, sizeof a);
    source s;
    tw_status st = load_source(path, data, len, o, &a, &s, err);
    if (st != TW_OK) {
        if (st == TW_ERR_NOMEM)
            tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "%s: out of memory", path);
        source_free(&s);
        tw_fx_arena_free(&a);
        return st;
    }
    /* First every secret value anywhere in the file (credential headers,
     * cookies, query parameters, body fields at any depth, bearer tokens),
     * so that it is scrubbed wherever it appears, in any interaction. */
    for (size_t i = 0; i < s.n && st == TW_OK; i++) {
        const rawx *r = &s.x[i];
        for (size_t k = 0; k < r->nrqh && st == TW_OK; k++)
            st = tw_redact_discover_header(red, r->rqh[k].name, r->rqh[k].value);
        for (size_t k = 0; k < r->nrsh && st == TW_OK; k++)
            st = tw_redact_discover_header(red, r->rsh[k].name, r->rsh[k].value);
        /* a HAR's cookies[] values are secrets as a Cookie header's are */
        for (size_t m = 0; m < 2; m++)
            for (size_t k = 0; k < r->ncookies[m] && st == TW_OK; k++)
                st = tw_redactor_add_value(red, r->cookies[m][k].value);
        if (st == TW_OK && r->url)
            st = tw_redact_discover_text(red, r->url, strlen(r->url));
        if (st == TW_OK)
            st = r->rq_json ? tw_redact_discover_json(red, r->rq_json, lim.max_depth)
                            : tw_redact_discover_body(red, r->rq_body, r->rq_len, lim.max_depth);
        if (st == TW_OK)
            st = r->rs_json ? tw_redact_discover_json(red, r->rs_json, lim.max_depth)
                            : tw_redact_discover_body(red, r->rs_body, r->rs_len, lim.max_depth);
    }
    tw_fixture f;
    memset(&f, 0, sizeof f);
    char *stem = fixture_stem(path, o->name_prefix);
    char desc[512];
    snprintf(desc, sizeof desc, "Imported from the %s %s (%zu interaction%s).",
             o->kind == TW_IMPORT_VCR ? "vcrpy cassette" : "HAR file", base_name(path), s.n,
             s.n == 1 ? "" : "s");
    char *name = NULL;
    if (stem && (name = malloc(strlen(stem) + 10)))
        sprintf(name, "imported/%s", stem);
    f.name = name ? tw_fx_arena_str(&a, name) : NULL;
    f.description = tw_fx_arena_str(&a, desc);
    f.exchanges = tw_fx_arena_calloc(&a, s.n, sizeof *f.exchanges);
    if (st == TW_OK && (!f.name || !f.description || !f.exchanges))
        st = TW_ERR_NOMEM;
    bool any_stream = false;
    const char *dialect = NULL;
    const char **fmts = calloc(s.n ? s.n : 1, sizeof *fmts);
    if (st == TW_OK && !fmts)
        st = TW_ERR_NOMEM;
    for (size_t i = 0; i < s.n && st == TW_OK; i++) {
        st = build_exchange(&a, red, &lim, &s.x[i], &f.exchanges[i], &fmts[i]);
        f.nexchanges = i + 1;
    }
    if (st == TW_OK)
        st = redact_streams(&a, red, &lim, &f);
    for (size_t i = 0; i < f.nexchanges && st == TW_OK; i++) {
        const char *fmt = fmts[i];
        const char *d = NULL;
        if (st == TW_OK)
            st = tw_import_detect_text(&a, &lim, &f.exchanges[i], &d);
        if (d && !dialect) {
            dialect = d;
            f.backend = d; /* the first answer in a text dialect names the backend */
        }
        if (!f.backend)
            f.backend = fmt                                                      ? backend_of(fmt)
                        : tw_path_kind(f.exchanges[i].req.path) == TW_API_GEMINI ? "gemini"
                                                                                 : NULL;
        any_stream = any_stream || f.exchanges[i].resp.stream;
    }
    free(fmts);
    if (!f.backend)
        f.backend = "openai";
    if (st == TW_OK && o->expect)
        st = add_expectations(&a, &lim, &f);
    const char *tags[3] = {"imported", o->kind == TW_IMPORT_VCR ? "vcr" : "har", "stream"};
    f.tags = tags;
    f.ntags = any_stream ? 3 : 2;
    cJSON *prov = cJSON_CreateObject();
    char from[400];
    snprintf(from, sizeof from, "%s %s", o->kind == TW_IMPORT_VCR ? "vcrpy cassette" : "HAR file",
             base_name(path));
    if (!prov || !cJSON_AddStringToObject(prov, "source", "imported") ||
        !cJSON_AddStringToObject(prov, "from", from) ||
        (s.x[0].started && !cJSON_AddStringToObject(prov, "recorded_at", s.x[0].started)))
        st = st == TW_OK ? TW_ERR_NOMEM : st;
    f.provenance = tw_fx_arena_json(&a, prov);
    if (st == TW_OK && !f.provenance)
        st = TW_ERR_NOMEM;
    size_t start = out->len;
    if (st == TW_OK)
        st = tw_fixture_write(out, &f);
    if (st == TW_OK) {
        /* Last line of defence: no known secret value may be written. */
        for (size_t v = 0; v < red->nvalues; v++)
            if (tw_memmem(out->data + start, out->len - start, red->values[v],
                          strlen(red->values[v]))) {
                tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                             "%s: a secret value survived redaction; nothing written", path);
                st = TW_ERR_INVALID;
                break;
            }
    } else if (st == TW_ERR_NOMEM || st == TW_ERR_LIMIT) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%s: %s", path, tw_code_message(st));
    }
    if (st == TW_OK) {
        /* What we write must load as a fixture. */
        tw_fixture chk;
        tw_error inner = {.offset = -1};
        if (tw_fixture_parse(out->data + start, out->len - start, stem ? stem : path, &lim, &chk,
                             &inner) != TW_OK) {
            tw_error_file(err, TW_ERR_INVALID, inner.offset, path,
                          "%s: the imported fixture does not validate: %s", path, inner.message);
            st = TW_ERR_INVALID;
        }
        tw_fixture_free(&chk);
    }
    if (st != TW_OK && out->len > start) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
    }
    if (nexchanges)
        *nexchanges = st == TW_OK ? f.nexchanges : 0;
    free(name);
    free(stem);
    source_free(&s);
    tw_fx_arena_free(&a);
    return st;
}

tw_status tw_import_to_buf(const char *path, const tw_import_opts *o, tw_redactor *red, tw_buf *out,
                           size_t *nexchanges, tw_error *err)
{
    return import_any(path, NULL, 0, o, red, out, nexchanges, err);
}

tw_status tw_import_mem_to_buf(const char *data, size_t len, const char *name,
                               const tw_import_opts *o, tw_redactor *red, tw_buf *out,
                               size_t *nexchanges, tw_error *err)
{
    return import_any(name ? name : "<memory>", data ? data : "", len, o, red, out, nexchanges,
                      err);
}

tw_status tw_import_file(const char *path, const tw_import_opts *o, tw_redactor *red,
                         char **written, size_t *nexchanges, tw_error *err)
{
    if (written)
        *written = NULL;
    tw_buf b = {0};
    tw_status st = tw_import_to_buf(path, o, red, &b, nexchanges, err);
    if (st != TW_OK) {
        tw_buf_free(&b);
        return st;
    }
    char *stem = fixture_stem(path, o->name_prefix);
    const char *dir = o->out_dir && *o->out_dir ? o->out_dir : ".";
    char *dst = stem ? malloc(strlen(dir) + strlen(stem) + 8) : NULL;
    if (!dst) {
        tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "%s: out of memory", path);
        free(stem);
        tw_buf_free(&b);
        return TW_ERR_NOMEM;
    }
    sprintf(dst, "%s/%s.json", dir, stem);
    free(stem);
    st = tw_out_write_file(dst, b.data, b.len, err);
    tw_buf_free(&b);
    if (st == TW_OK && written)
        *written = dst;
    else
        free(dst);
    return st;
}
