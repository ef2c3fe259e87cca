/*
 * The mock backend's request handling (mock.h): reading a request, choosing
 * the fixture exchange, building the answer (replayed, reference or fault)
 * and streaming it.
 */
#include "mock_int.h"

/* ---- per request ---- */

typedef struct req_ctx {
    tw_buf body;
    bool too_large;
    bool over_budget; /* the in-flight budget was full: answer 503 */
    size_t held;      /* bytes counted in tw_mock.inflight */
    bool delayed;     /* the delay_ms fault has been waited */
    long arrived_ms;  /* when the whole request had arrived */
    tw_mock_job *job; /* the plain mode: the handler's job while it runs */
} req_ctx;

typedef tw_mock_chunk chunk;

/* s into dst[n] (n > 0), cut to n - 1 bytes as snprintf's "%s" cuts it;
 * the length written. */
static size_t copy_cut(char *dst, size_t n, const char *s)
{
    size_t l = strnlen(s, n - 1);
    memcpy(dst, s, l);
    dst[l] = '\0';
    return l;
}

/* A response being streamed: a list of chunks. */
typedef struct out_resp {
    tw_mock *m;
    struct MHD_Connection *conn;
    chunk *c;
    size_t n, cap;
    bool borrowed; /* c is a prepared answer's (tw_mock_prep): not freed here */
    size_t idx, pos;
    bool delayed;
    size_t drop_after; /* chunks sent before the connection is dropped (SIZE_MAX: never) */
    size_t byte_cap;   /* bytes sent before the stream ends (SIZE_MAX: all) */
    size_t sent;
} out_resp;

static void out_free(out_resp *r)
{
    if (!r)
        return;
    if (!r->borrowed) {
        for (size_t i = 0; i < r->n; i++)
            free(r->c[i].data);
        free(r->c);
    }
    free(r);
}

static bool out_add(out_resp *r, const char *p, size_t n, long delay)
{
    if (r->n == r->cap) {
        size_t nc = r->cap ? r->cap * 2 : 16;
        chunk *c = realloc(r->c, nc * sizeof *c);
        if (!c)
            return false;
        r->c = c;
        r->cap = nc;
    }
    char *d = malloc(n ? n : 1);
    if (!d)
        return false;
    if (n)
        memcpy(d, p, n);
    r->c[r->n++] = (chunk){d, n, delay};
    return true;
}

/* As many bytes as fit, across chunks: a chunk's delay (and a drop) comes
 * only after what is before it has been handed over. */
static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    out_resp *r = cls;
    size_t done = 0;
    while (r->idx < r->n) {
        if (r->pos == 0 && !r->delayed) {
            if (r->idx >= r->drop_after)
                return done ? (ssize_t)done : MHD_CONTENT_READER_END_WITH_ERROR;
            if (r->c[r->idx].delay_ms > 0 && done)
                return (ssize_t)done;
            r->delayed = true;
            if (r->c[r->idx].delay_ms > 0) {
                if (r->conn && tw_mock_defer(r->m, r->conn, r->c[r->idx].delay_ms))
                    return 0; /* called again once resumed */
                tw_mock_nap(r->m, r->c[r->idx].delay_ms);
            }
        }
        if (atomic_load(&r->m->stopping))
            return MHD_CONTENT_READER_END_WITH_ERROR;
        if (r->sent >= r->byte_cap)
            return done ? (ssize_t)done : MHD_CONTENT_READER_END_OF_STREAM;
        chunk *c = &r->c[r->idx];
        size_t n = c->len - r->pos;
        if (n > max - done)
            n = max - done;
        if (r->byte_cap - r->sent < n)
            n = r->byte_cap - r->sent;
        memcpy(buf + done, c->data + r->pos, n);
        done += n;
        r->pos += n;
        r->sent += n;
        if (r->pos == c->len) {
            r->idx++;
            r->pos = 0;
            r->delayed = false;
        }
        if (done == max)
            return (ssize_t)done;
    }
    if (done)
        return (ssize_t)done;
    if (r->drop_after != SIZE_MAX)
        return MHD_CONTENT_READER_END_WITH_ERROR; /* dropped after the last chunk */
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static void reader_free(void *cls)
{
    out_free(cls);
}

/* ---- building answers ---- */

/* Split an SSE byte stream into its events (each ends with a blank line). */
static bool add_sse_split(out_resp *r, const char *p, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (p[i] == '\n' && p[i + 1] == '\n') {
            if (!out_add(r, p + start, i + 2 - start, 0))
                return false;
            start = i + 2;
            i++;
        } else if (i + 3 < n && memcmp(p + i, "\r\n\r\n", 4) == 0) {
            if (!out_add(r, p + start, i + 4 - start, 0))
                return false;
            start = i + 4;
            i += 3;
        }
    }
    if (start < n)
        return out_add(r, p + start, n - start, 0);
    return true;
}

static bool add_recorded_event(out_resp *r, const tw_fx_sse *e, bool timing)
{
    tw_buf b = {0};
    if (e->event)
        tw_buf_printf(&b, "event: %s\n", e->event);
    if (e->id)
        tw_buf_printf(&b, "id: %s\n", e->id);
    const char *d = e->data ? e->data : "";
    for (;;) {
        const char *nl = strchr(d, '\n');
        size_t len = nl ? (size_t)(nl - d) : strlen(d);
        tw_buf_puts(&b, "data: ");
        tw_buf_append(&b, d, len);
        tw_buf_putc(&b, '\n');
        if (!nl)
            break;
        d = nl + 1;
    }
    tw_buf_putc(&b, '\n');
    bool ok = b.data && out_add(r, b.data, b.len, timing ? e->delay_ms : 0);
    tw_buf_free(&b);
    return ok;
}

/* v in decimal at p, NUL-terminated (as "%zu" writes it; 21 bytes at most). */
static void fmt_index(char *p, size_t v)
{
    char t[24];
    size_t n = 0;
    do
        t[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = t[--n];
    *p = '\0';
}

static bool is_hop_header(const char *n)
{
    static const char *const hop[] = {"content-length", "transfer-encoding",
                                      "connection",     "content-encoding",
                                      "keep-alive",     "date",
                                      "server",         NULL};
    for (size_t i = 0; hop[i]; i++)
        if (strcasecmp(n, hop[i]) == 0)
            return true;
    return false;
}

typedef struct answer {
    int status;
    char ctype[64];
    tw_kv *headers; /* borrowed from the fixture (replay) */
    size_t nheaders;
    bool stream;
    out_resp *out;
    char why[200];
} answer;

/* The reference servers: the model text (the exchange's, or the script's),
 * decoded and encoded by mock_ref.c. */
static void answer_reference(tw_mock *m, const char *profile, const tw_fx_exchange *x,
                             const cJSON *body, const char *url, tw_api_kind kind, bool post,
                             answer *a)
{
    tw_ref_answer r;
    /* Gemini: the URL names the model and asks for a stream, which toolwire
     * sends as SSE (alt=sse) only; the JSON-array stream is refused */
    bool gstream = kind == TW_API_GEMINI && strstr(url, ":streamGenerateContent") != NULL;
    char gmodel[128] = "";
    const char *gm = kind == TW_API_GEMINI ? strstr(url, "/models/") : NULL;
    if (gm) {
        gm += 8;
        size_t gl = strcspn(gm, ":");
        snprintf(gmodel, sizeof gmodel, "%.*s", (int)(gl < 120 ? gl : 120), gm);
    }
    const char *alt =
        gstream ? MHD_lookup_connection_value(a->out->conn, MHD_GET_ARGUMENT_KIND, "alt") : NULL;
    if (gstream && (!alt || strcmp(alt, "sse") != 0)) {
        memset(&r, 0, sizeof r);
        r.status = 400;
        snprintf(r.why, sizeof r.why,
                 "streamGenerateContent is served as server-sent events only: add ?alt=sse "
                 "(the JSON-array stream is not supported)");
    } else if (strcmp(profile, "script") == 0) {
        tw_ref_answer_script_at(post ? kind : 0, gstream, gmodel[0] ? gmodel : NULL, body,
                                &m->o.limits, &r);
    } else {
        /* the text's format: the fixture's decoder, else the model dialect its
         * backend names (the loader's model_format) */
        const char *tf = x->decode_format ? x->decode_format : x->model_format;
        tw_ref_text t = {x->model_text,     x->model_pass1, x->model_pass2,           tf,
                         x->decode_options, gstream,        gmodel[0] ? gmodel : NULL};
        /* a dialect's profile (qwen3-coder, harmony, …) answers /generate as the
         * vllm-native server with its decoder as the tool parser */
        tw_profile pr = tw_profile_of(profile);
        bool qg = kind == TW_API_GENERATE && tw_profile_is_dialect(pr);
        if (qg && !t.decode_format)
            t.decode_format = tw_profile_decoder(pr);
        tw_ref_answer_text(qg ? "vllm-native" : profile, &t, body, &m->o.limits, &r);
    }
    a->status = r.status;
    tw_secret_clip_into(a->why, sizeof a->why, r.why);
    if (r.status == 404) {
        tw_buf eb = {0};
        tw_mock_error_body(&eb, kind, 404, "not_found_error", a->why, "not_found");
        if (!out_add(a->out, eb.data ? eb.data : "", eb.len, 0))
            a->status = 500;
        snprintf(a->ctype, sizeof a->ctype, "application/json");
        tw_buf_free(&eb);
    } else if (r.status == 200) {
        a->stream = r.stream;
        snprintf(a->ctype, sizeof a->ctype, "%s",
                 r.stream ? "text/event-stream" : "application/json");
        bool ok = r.stream ? add_sse_split(a->out, r.body.data ? r.body.data : "", r.body.len)
                           : out_add(a->out, r.body.data ? r.body.data : "", r.body.len, 0);
        if (!ok) {
            a->status = 500;
            snprintf(a->why, sizeof a->why, "out of memory");
        }
    }
    tw_ref_answer_free(&r);
}

/* The recorded answer's bytes, as chunks (an event each for a stream). */
static bool replay_chunks(tw_mock *m, const tw_fx_exchange *x, out_resp *o)
{
    const tw_fx_response *r = &x->resp;
    bool ok = true;
    if (r->stream) {
        for (size_t i = 0; ok && i < r->nevents; i++)
            ok = add_recorded_event(o, &r->events[i], m->o.timing);
    } else if (r->body) {
        char *s = tw_json_print(r->body, NULL);
        ok = s && out_add(o, s, strlen(s), 0);
        free(s);
    } else if (r->body_text) {
        ok = out_add(o, r->body_text, strlen(r->body_text), 0);
    }
    return ok;
}

void tw_mock_prep_free(tw_mock *m)
{
    for (size_t i = 0; m->prep && i < m->ntotal; i++) {
        free(m->prep[i].bytes);
        free(m->prep[i].ev);
    }
    free(m->prep);
    m->prep = NULL;
}

bool tw_mock_prepare(tw_mock *m)
{
    m->prep = calloc(m->ntotal + 1, sizeof *m->prep);
    if (!m->prep)
        return false;
    for (size_t i = 0; i < m->nfx; i++) {
        if (!m->served[i] || tw_profile_of(m->fprof[i]) != TW_PROFILE_REPLAY)
            continue;
        for (size_t k = 0; k < m->fx[i].nexchanges; k++) {
            out_resp o;
            memset(&o, 0, sizeof o);
            tw_mock_prep *p = &m->prep[m->ex_base[i] + k];
            size_t len = 0;
            bool ok = replay_chunks(m, &m->fx[i].exchanges[k], &o);
            for (size_t j = 0; ok && j < o.n; j++)
                len += o.c[j].len;
            p->bytes = ok ? malloc(len + 1) : NULL;
            p->ev = ok ? calloc(o.n + 1, sizeof *p->ev) : NULL;
            ok = p->bytes && p->ev;
            for (size_t j = 0; ok && j < o.n; j++) {
                memcpy(p->bytes + p->len, o.c[j].data, o.c[j].len);
                p->ev[j] = (chunk){p->bytes + p->len, o.c[j].len, o.c[j].delay_ms};
                p->len += o.c[j].len;
            }
            if (ok)
                p->nev = o.n;
            for (size_t j = 0; j < o.n; j++)
                free(o.c[j].data);
            free(o.c);
            if (!ok)
                return false;
        }
    }
    return true;
}

/* The answer's chunks owned by the response (to be changed by a fault). */
static bool own_chunks(out_resp *o)
{
    if (!o->borrowed)
        return true;
    chunk *c = calloc(o->n + 1, sizeof *c);
    for (size_t i = 0; c && i < o->n; i++) {
        c[i] = o->c[i];
        c[i].data = malloc(o->c[i].len + 1);
        if (!c[i].data) {
            while (i--)
                free(c[i].data);
            free(c);
            c = NULL;
            break;
        }
        memcpy(c[i].data, o->c[i].data, o->c[i].len);
    }
    if (!c)
        return false;
    o->c = c;
    o->cap = o->n;
    o->borrowed = false;
    return true;
}

static void answer_replay(tw_mock *m, const tw_fx_exchange *x, const tw_mock_prep *p, answer *a)
{
    const tw_fx_response *r = &x->resp;
    a->status = r->status;
    a->headers = r->headers;
    a->nheaders = r->nheaders;
    a->stream = r->stream;
    const char *ct = tw_kv_get(r->headers, r->nheaders, "Content-Type");
    copy_cut(a->ctype, sizeof a->ctype,
             ct             ? ct
             : r->stream    ? "text/event-stream"
             : r->body_text ? "text/plain"
                            : "application/json");
    bool ok = true;
    if (p && p->bytes) {
        /* prepared when the server started: borrowed, not copied */
        a->out->c = p->ev;
        a->out->n = a->out->cap = p->nev;
        a->out->borrowed = true;
    } else {
        ok = replay_chunks(m, x, a->out);
    }
    if (!ok) {
        a->status = 500;
        a->headers = NULL;
        a->nheaders = 0;
        snprintf(a->why, sizeof a->why, "out of memory");
    }
}

static long fault_int(const cJSON *f, const char *key, long dflt)
{
    const cJSON *v = tw_json_get(f, key);
    return (long)tw_json_int(v, LONG_MIN, LONG_MAX, dflt);
}

/* Replace chunk k by one that is not valid JSON (an event cut inside a value). */
static void make_malformed(out_resp *o, size_t k, bool stream)
{
    if (k >= o->n || !own_chunks(o))
        return;
    static const char bad_sse[] = "data: {\"choices\": [{\"delta\": {\"content\": \"x\"\n\n";
    static const char bad_json[] = "{\"choices\": [{\"message\": ";
    const char *b = stream ? bad_sse : bad_json;
    char *d = tw_strdup(b);
    if (!d)
        return;
    free(o->c[k].data);
    o->c[k].data = d;
    o->c[k].len = strlen(d);
}

/* ---- the access handler ---- */

/* A credential header's or query parameter's value joins the secret set. */
static enum MHD_Result learn_secret(void *cls, enum MHD_ValueKind kind, const char *name,
                                    const char *value)
{
    (void)cls;
    if (name && value &&
        (kind == MHD_HEADER_KIND ? tw_redact_header_dropped(NULL, name)
                                 : tw_redact_param_secret(NULL, name)))
        tw_secret_add(value);
    return MHD_YES;
}

static void request_headers(struct MHD_Connection *c, const char *name, char *dst, size_t n)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
    copy_cut(dst, n, v ? v : "");
}

static enum MHD_Result send_simple(struct MHD_Connection *conn, int status, const char *ctype,
                                   const char *body, size_t len, const char *retry_after)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", ctype);
    if (retry_after)
        MHD_add_response_header(r, "Retry-After", retry_after);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static void log_record(tw_mock *m, tw_mock_record *rec)
{
    tw_buf line = {0}, extra = {0};
    /* the note and the body (parsed for credentials) are prepared outside the lock */
    if (m->o.log)
        tw_mock_log_extra(&extra, rec, m->o.log_bodies ? m->o.log_body_max : 0,
                          m->o.limits.max_depth);
    pthread_mutex_lock(&m->mu);
    rec->seq = ++m->seq;
    if (m->o.log) {
        size_t fails = 0;
        tw_buf_printf(&line, "#%lu ", rec->seq);
        tw_log_escape(&line, rec->path, strlen(rec->path));
        tw_buf_puts(&line, " -> ");
        if (rec->fixture[0]) {
            tw_log_escape(&line, rec->fixture, strlen(rec->fixture));
            tw_buf_printf(&line, "#%ld", rec->exchange);
        } else {
            tw_buf_puts(&line, "(no match)");
        }
        tw_buf_printf(&line, " %d%s", rec->status, rec->fault ? " fault" : "");
        if (rec->ambiguous > 1)
            tw_buf_printf(&line,
                          " ambiguous: %zu exchanges match; answered %s#%ld; name one "
                          "with " TW_MOCK_EXCHANGE_HEADER,
                          rec->ambiguous, rec->fixture, rec->exchange);
        /* error and warn checks as failures; info checks (advice) apart */
        size_t infos = 0;
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < rec->checks.len; i++) {
                if (rec->checks.items[i].verdict != TW_V_FAIL)
                    continue;
                const tw_check_def *d = tw_check_def_of(rec->checks.items[i].check);
                bool info = d && d->sev == TW_SEV_INFO;
                if (info != (pass == 1))
                    continue;
                if (info)
                    tw_buf_printf(&line, "%s%s", infos++ ? "," : " client advice (info): ",
                                  rec->checks.items[i].id);
                else
                    tw_buf_printf(&line, "%s%s", fails++ ? "," : " client checks failed: ",
                                  rec->checks.items[i].id);
            }
        if (extra.len)
            tw_buf_append(&line, extra.data, extra.len);
        tw_buf_putc(&line, '\n');
    }
    rec->note = NULL; /* borrowed for the line only */
    rec->body = NULL;
    tw_mock_ring_push(&m->log, rec);
    if (m->o.log && line.data) {
        fwrite(line.data, 1, line.len, m->o.log);
        fflush(m->o.log);
    }
    pthread_mutex_unlock(&m->mu);
    tw_buf_free(&line);
    tw_buf_free(&extra);
}

/* The verdicts in catalog order, by their ids' enum (check_ids.h follows
 * the catalog): no search of the catalog, no string compared. */
static void sort_client_checks(tw_check_set *s)
{
    for (size_t i = 1; i < s->len; i++) {
        tw_check_result v = s->items[i];
        size_t j = i;
        for (; j > 0 && s->items[j - 1].check > v.check; j--)
            s->items[j] = s->items[j - 1];
        s->items[j] = v;
    }
}

/* Free the body and give its bytes back to the in-flight budget. */
static void release_body(tw_mock *m, req_ctx *rc)
{
    if (rc->held)
        atomic_fetch_sub(&m->inflight, rc->held);
    rc->held = 0;
    tw_buf_free(&rc->body);
}

enum MHD_Result tw_mock_handle(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)version;
    tw_mock *m = cls;
    req_ctx *rc = *con_cls;
    if (!rc) {
        rc = calloc(1, sizeof *rc);
        if (!rc)
            return MHD_NO;
        rc->body.max = m->o.limits.max_input_bytes;
        *con_cls = rc;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (rc->too_large || rc->over_budget)
            return MHD_YES; /* the rest is read and dropped */
        if (rc->body.max && rc->body.len + n > rc->body.max) {
            rc->too_large = true;
            release_body(m, rc);
            return MHD_YES;
        }
        /* one budget for the body bytes held across all connections */
        size_t before = atomic_fetch_add(&m->inflight, n);
        if (before + n > m->o.inflight_budget || before + n < before) {
            atomic_fetch_sub(&m->inflight, n);
            rc->over_budget = true;
            release_body(m, rc);
            return MHD_YES;
        }
        rc->held += n;
        if (tw_buf_append(&rc->body, upload, n) != TW_OK) {
            rc->too_large = true;
            release_body(m, rc);
        }
        return MHD_YES;
    }
    if (m->o.handler)
        return tw_mock_plain_answer(m, conn, url, method, &rc->body, rc->too_large, rc->over_budget,
                                    &rc->job);
    /* a client's credentials never reach a log or report of this process */
    MHD_get_connection_values(conn, MHD_HEADER_KIND, learn_secret, NULL);
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, learn_secret, NULL);
    tw_api_kind kind = tw_path_kind(url);
    tw_buf eb = {0};
    tw_mock_record rec;
    memset(&rec, 0, sizeof rec);
    rec.exchange = -1;
    copy_cut(rec.path, sizeof rec.path, url);
    rec.body = rc->body.data;
    rec.body_len = rc->body.len;
    if (!rc->arrived_ms)
        rc->arrived_ms = tw_mock_mono_ms();
    tw_mock_conn_answering(m, conn, true);
    /* the exchange the request names, kept in its record (also when it is refused below) */
    char hint[256];
    request_headers(conn, TW_MOCK_EXCHANGE_HEADER, hint, sizeof hint);
    snprintf(rec.hint, sizeof rec.hint, "%s", hint);

    if (rc->over_budget) {
        tw_mock_error_body(&eb, kind, 503,
                           kind == TW_API_ANTHROPIC ? "overloaded_error" : "server_error",
                           "the server holds too many request bytes; retry later", "busy");
        rec.status = 503;
        enum MHD_Result ret = send_simple(conn, 503, "application/json", eb.data, eb.len, "1");
        tw_check_set_fill(&rec.checks, true, "request refused: in-flight budget full");
        log_record(m, &rec);
        tw_buf_free(&eb);
        return ret;
    }
    if (rc->too_large) {
        tw_mock_error_body(&eb, kind, 413, "invalid_request_error", "request body too large",
                           "body_too_large");
        rec.status = 413;
        enum MHD_Result ret = send_simple(conn, 413, "application/json", eb.data, eb.len, NULL);
        tw_check_set_fill(&rec.checks, true, "request body too large");
        log_record(m, &rec);
        tw_buf_free(&eb);
        return ret;
    }
    /* match: the bytes of a request that matched before take the choice
     * made then, and the body's tree parsed then */
    tw_match_out mo;
    const cJSON *kept = NULL;
    uint64_t mkey = 0;
    conn_ent *ce = tw_mock_conn_of(conn);
    bool memo = !hint[0] && tw_match_memo_get(m->memo, ce ? &ce->memo_last : NULL, method, url,
                                              rc->body.data, rc->body.len, &mkey, &mo, &kept);
    cJSON *own = NULL; /* the body's tree when this request parsed it */
    tw_error perr;     /* why the body is not JSON, for a reference server's 400 */
    tw_error_clear(&perr);
    if (!memo) {
        tw_mock_arena_begin();
        if (rc->body.len)
            tw_json_parse(rc->body.data, rc->body.len, m->o.limits.max_depth, &own, &perr);
        tw_mock_arena_end();
    }
    const cJSON *body = memo ? kept : own;
    /* the client checks, on every request */
    tw_checks_client(url, body, &rec.checks);

    bool nomem = false;
    cJSON *norm = NULL;
    tw_match_in mi = {m->fx,      m->nfx, m->served,  (const cJSON *const *)m->norm,
                      m->ex_base, method, url,        body,
                      NULL,       hint,   m->o.match, m->o.ignore_keys,
                      m->index};
    if (!memo) {
        /* a named exchange is picked by its name: the body is not compared */
        tw_mock_arena_resume();
        norm =
            m->o.match == TW_MATCH_NORMALISED && !hint[0] ? tw_mock_normalise(body, &nomem) : NULL;
        tw_mock_arena_end();
        mi.body_norm = norm;
        /* the exchange the connection's last request matched, when the
         * index would offer it alone, costs one comparison and no hash */
        if (hint[0] || !ce || !tw_mock_match_one(&mi, ce->match_last, &mo))
            tw_mock_match(&mi, &mo);
        if (ce && mo.found && !hint[0])
            ce->match_last = m->ex_base[mo.fi] + mo.xi;
        /* kept for the next request of these bytes: a body that parsed (or
         * none), its tree parsed again outside the thread's block */
        if (!hint[0] && mo.found && !nomem && (body || !rc->body.len) &&
            tw_match_memo_claim(m->memo, m->ex_base[mo.fi] + mo.xi)) {
            cJSON *tree = NULL;
            if (!rc->body.len || tw_json_parse(rc->body.data, rc->body.len, m->o.limits.max_depth,
                                               &tree, NULL) == TW_OK)
                tw_match_memo_put(m->memo, mkey, method, url, rc->body.data, rc->body.len, &mo,
                                  tree);
        }
    }
    if (!mo.found && m->script) {
        /* the scripted model answers every request; faults come from the options */
        mo.found = true;
        mo.fi = m->nfx;
        mo.xi = 0;
        mo.nbest = 0;
    }
    if (!mo.found) {
        tw_buf msg = {0}, near = {0}, diffs = {0};
        if (mo.hint_elsewhere || hint[0])
            tw_buf_puts(&msg,
                        mo.hint_elsewhere
                            ? "the exchange named by " TW_MOCK_EXCHANGE_HEADER
                              " has another method or path than this request"
                            : "no served exchange has the name given in " TW_MOCK_EXCHANGE_HEADER
                              " (expected FIXTURE#N: a fixture name as the fixture index lists"
                              " it and an exchange number from 0)");
        else if (nomem || tw_mock_nearest(&mi, &msg, &near, &diffs) != TW_OK)
            tw_buf_puts(&msg, "no fixture exchange matches this request");
        tw_mock_not_found_body(&eb, kind, msg.data ? msg.data : "", near.data, diffs.data);
        rec.status = 404;
        rec.note = msg.data;
        tw_check_set_put(&rec.checks, TW_CHK_CLI_07, TW_V_SKIP, -1, "no matching exchange");
        tw_check_set_fill(&rec.checks, true, "");
        enum MHD_Result ret = send_simple(conn, 404, "application/json", eb.data, eb.len, NULL);
        log_record(m, &rec);
        tw_mock_arena_drop(own);
        tw_mock_arena_drop(norm);
        tw_buf_free(&eb);
        tw_buf_free(&msg);
        tw_buf_free(&near);
        tw_buf_free(&diffs);
        return ret;
    }
    tw_mock_arena_drop(norm);
    const tw_fixture *mf = mo.fi == m->nfx ? &m->script_fx : &m->fx[mo.fi];
    size_t mfi = mo.fi, mxi = mo.xi, nbest = mo.nbest;
    const tw_fx_exchange *x = &mf->exchanges[mxi];
    /* a replayed answer of the other kind than the request asks for: said in the log */
    if (x->has_response && tw_profile_of(m->fprof[mfi]) == TW_PROFILE_REPLAY) {
        /* Gemini streams by its method (:streamGenerateContent), not a body key */
        bool want_stream = kind == TW_API_GEMINI ? strstr(url, ":streamGenerateContent") != NULL
                                                 : cJSON_IsTrue(tw_json_get(body, "stream"));
        bool is_stream = x->resp.nevents > 0;
        if (want_stream != is_stream)
            rec.note =
                want_stream
                    ? "the request asks for a stream; this exchange's recorded answer is not one"
                    : "the request asks for no stream; this exchange's recorded answer is a stream";
    }
    size_t fl = copy_cut(rec.fixture, sizeof rec.fixture, mf->name ? mf->name : "");
    rec.exchange = (long)mxi;
    rec.ambiguous = hint[0] ? 0 : nbest;
    /* a reference or scripted answer signs every call turn and thinking
     * block; a replayed one signed what its recording did */
    tw_checks_client_context(url, body, mf, mxi, tw_profile_of(m->fprof[mfi]) != TW_PROFILE_REPLAY,
                             &m->o.limits, &rec.checks);
    const cJSON *faults = x->faults ? x->faults : m->o.faults;
    long delay = fault_int(faults, "delay_ms", 0);
    if (delay > 0 && !rc->delayed) {
        /* wait without holding a thread; the handler is called again once resumed */
        rc->delayed = true;
        if (tw_mock_defer(m, conn, delay)) {
            tw_mock_arena_drop(own);
            tw_check_set_free(&rec.checks);
            return MHD_YES;
        }
        tw_mock_nap(m, delay);
    }
    if (delay > 0)
        rec.fault = true;
    long f_status = fault_int(faults, "status", 0);
    long f_retry = fault_int(faults, "retry_after", -1);
    bool send_fault = false;
    /* CLI-07 and the fault toggle share the exchange state */
    pthread_mutex_lock(&m->mu);
    ex_state *es = &m->st[m->ex_base[mfi] + mxi];
    long now = rc->arrived_ms; /* the retry came when it arrived, not after a delay */
    tw_checks_client_retry(es->retry_due_ms, es->retry_asked_ms, now, &rec.checks);
    es->retry_due_ms = 0;
    if (f_status >= 400) {
        send_fault = !es->faulted;
        es->faulted = send_fault;
        if (send_fault && f_retry >= 0 && (f_status == 429 || f_status == 503)) {
            es->retry_due_ms = now + f_retry * 1000;
            es->retry_asked_ms = f_retry * 1000;
        }
    }
    pthread_mutex_unlock(&m->mu);
    tw_check_set_fill(&rec.checks, true, "");
    sort_client_checks(&rec.checks);

    if (send_fault) {
        char ra[32];
        snprintf(ra, sizeof ra, "%ld", f_retry);
        tw_mock_error_body(
            &eb, kind, (int)f_status, f_status == 429 ? "rate_limit_error" : "server_error",
            f_status == 429 ? "rate limited (injected fault)" : "unavailable (injected fault)",
            f_status == 429 ? "rate_limit_exceeded" : "server_error");
        rec.status = (int)f_status;
        rec.fault = true;
        enum MHD_Result ret = send_simple(conn, (int)f_status, "application/json", eb.data, eb.len,
                                          f_retry >= 0 ? ra : NULL);
        log_record(m, &rec);
        tw_mock_arena_drop(own);
        tw_buf_free(&eb);
        return ret;
    }

    answer a;
    memset(&a, 0, sizeof a);
    a.out = calloc(1, sizeof *a.out);
    if (!a.out) {
        tw_mock_arena_drop(own);
        tw_check_set_free(&rec.checks);
        return MHD_NO;
    }
    a.out->m = m;
    a.out->conn = conn;
    a.out->drop_after = SIZE_MAX;
    a.out->byte_cap = SIZE_MAX;
    if (tw_profile_of(m->fprof[mfi]) == TW_PROFILE_REPLAY)
        answer_replay(m, x, mfi < m->nfx ? &m->prep[m->ex_base[mfi] + mxi] : NULL, &a);
    else {
        answer_reference(m, m->fprof[mfi], x, body, url, kind, strcmp(method, "POST") == 0, &a);
        /* a body that does not parse: where and what was expected */
        if (a.status == 400 && !body && rc->body.len && perr.message[0]) {
            char pm[160]; /* the message quotes the body: scrubbed whole, then cut */
            tw_secret_clip_into(pm, sizeof pm, perr.message);
            snprintf(a.why, sizeof a.why, "the request body is not JSON: %s", pm);
        }
    }
    tw_mock_arena_drop(own);
    if (a.out->borrowed && a.out->n == 0) {
        /* nothing borrowed: an error body may be added */
        a.out->c = NULL;
        a.out->cap = 0;
        a.out->borrowed = false;
    }
    if (a.status >= 500 && a.why[0] && a.out->n == 0) {
        tw_mock_error_body(&eb, kind, a.status, "server_error", a.why, "mock_error");
        out_add(a.out, eb.data, eb.len, 0);
        snprintf(a.ctype, sizeof a.ctype, "application/json");
    } else if (a.status == 400 && a.out->n == 0) {
        tw_mock_error_body(&eb, kind, 400, "invalid_request_error", a.why, "invalid_request");
        out_add(a.out, eb.data, eb.len, 0);
        snprintf(a.ctype, sizeof a.ctype, "application/json");
    }
    tw_buf_free(&eb);
    /* stream faults */
    long drop = fault_int(faults, "drop_after_events", -1);
    long trunc = fault_int(faults, "truncate_sse_after_bytes", -1);
    long bad = fault_int(faults, "malformed_chunk_at", -1);
    if (bad >= 0) {
        make_malformed(a.out, (size_t)bad, a.stream);
        rec.fault = true;
    }
    if (drop >= 0) {
        a.out->drop_after = (size_t)drop;
        if (a.out->drop_after >= a.out->n)
            a.out->drop_after = a.out->n; /* drop after everything: no clean end */
        rec.fault = true;
    }
    if (trunc >= 0) {
        a.out->byte_cap = (size_t)trunc;
        rec.fault = true;
    }
    size_t total = 0;
    for (size_t i = 0; i < a.out->n; i++)
        total += a.out->c[i].len;
    bool whole = !a.stream && drop < 0 && trunc < 0;
    /* a prepared stream with no pacing and no fault goes as one body with its
     * Content-Length: every event at once, as a chunked reader would send them
     * back to back (paced or faulted streams keep the reader below) */
    bool paced = false;
    for (size_t i = 0; i < a.out->n && !paced; i++)
        paced = a.out->c[i].delay_ms > 0;
    if (a.stream && a.out->borrowed && !paced && drop < 0 && trunc < 0 && bad < 0)
        whole = true;
    struct MHD_Response *resp;
    if (whole && a.out->borrowed) {
        /* a prepared body with its Content-Length, sent from where it lies */
        resp = MHD_create_response_from_buffer(
            mfi < m->nfx ? m->prep[m->ex_base[mfi] + mxi].len : 0,
            mfi < m->nfx ? m->prep[m->ex_base[mfi] + mxi].bytes : (void *)"",
            MHD_RESPMEM_PERSISTENT);
        out_free(a.out);
    } else if (whole) {
        /* a plain body with its Content-Length */
        tw_buf all = {0};
        for (size_t i = 0; i < a.out->n; i++)
            tw_buf_append(&all, a.out->c[i].data, a.out->c[i].len);
        resp = MHD_create_response_from_buffer(all.len, all.data ? all.data : (void *)"",
                                               MHD_RESPMEM_MUST_COPY);
        tw_buf_free(&all);
        out_free(a.out);
    } else {
        (void)total;
        resp =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, reader, a.out, reader_free);
        if (!resp)
            out_free(a.out);
    }
    if (!resp) {
        tw_check_set_free(&rec.checks);
        return MHD_NO;
    }
    bool has_ct = false;
    for (size_t i = 0; i < a.nheaders; i++) {
        if (!a.headers[i].name || !a.headers[i].value || is_hop_header(a.headers[i].name))
            continue;
        if (strcasecmp(a.headers[i].name, "content-type") == 0)
            has_ct = true;
        MHD_add_response_header(resp, a.headers[i].name, a.headers[i].value);
    }
    if (!has_ct)
        MHD_add_response_header(resp, "Content-Type", a.ctype);
    if (a.stream)
        MHD_add_response_header(resp, "Cache-Control", "no-cache");
    /* which exchange answered, for a client that sees no log (printable names only) */
    char by[sizeof rec.fixture + 24];
    memcpy(by, rec.fixture, fl);
    by[fl] = '#';
    fmt_index(by + fl + 1, (size_t)rec.exchange);
    bool printable = true;
    for (const char *p = by; *p && printable; p++)
        printable = *p >= 0x20 && *p < 0x7f;
    if (printable)
        MHD_add_response_header(resp, TW_MOCK_ANSWERED_HEADER, by);
    rec.status = a.status;
    log_record(m, &rec);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)a.status, resp);
    MHD_destroy_response(resp);
    return ret;
}

void tw_mock_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                       enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    tw_mock *m = cls;
    req_ctx *rc = *con_cls;
    if (rc) {
        tw_mock_job_free(rc->job); /* a job resumed but not answered before the server stopped */
        release_body(m, rc);
        free(rc);
        *con_cls = NULL;
    }
    tw_mock_conn_answering(m, c, false);
}
