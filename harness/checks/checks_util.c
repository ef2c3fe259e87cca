/*
 * Helpers shared by the conformance checks: evidence excerpts, header
 * lookups, the id index, the SSE events of a body (framed by the library's
 * parser, toolwire/sse.h) and the light views of a response.
 */
#include "checks_int.h"

#include "apis.h"

/* ================================================================ helpers */

/* tw_path_kind: the table of formats (harness/common/apis.c) */

cJSON *tw_chk_parse_json(const char *p, size_t n, size_t depth)
{
    cJSON *v = NULL;
    if (tw_json_parse(p, n, depth, &v, NULL) != TW_OK)
        return NULL;
    return v;
}

/* A short printable excerpt of a value for evidence: scrubbed of every
 * known secret first, cut after where tw_excerpt_end places the cut. */
void tw_chk_excerpt(char *dst, size_t dn, const char *p0, size_t n0)
{
    if (dn < 4) {
        if (dn)
            dst[0] = '\0';
        return;
    }
    tw_buf clean = {0};
    if (tw_secret_scrub(p0, n0, &clean, NULL) != TW_OK) {
        tw_buf_free(&clean);
        snprintf(dst, dn, "%s", TW_REDACTED);
        return;
    }
    const char *p = clean.data ? clean.data : "";
    size_t n = clean.len;
    /* how many bytes fit once escaped; the cut placed by tw_excerpt_end */
    size_t fit = 0, w = 0;
    while (fit < n && w + (p[fit] == '\n' ? 2u : 1u) + 5 <= dn) {
        w += p[fit] == '\n' ? 2u : 1u;
        fit++;
    }
    size_t end = fit < n ? tw_excerpt_end(p, n, fit) : n;
    size_t o = 0;
    for (size_t i = 0; i < end; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\n') {
            dst[o++] = '\\';
            dst[o++] = 'n';
        } else if (c < 0x20 || c == 0x7f) {
            dst[o++] = '?';
        } else {
            dst[o++] = (char)c;
        }
    }
    if (end < n) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = 0;
    tw_buf_free(&clean);
}

/* s scrubbed of every known secret, then cut to max bytes ("..." after a
 * cut), into buf (max + 4 bytes or more). */
const char *tw_chk_clip(char *buf, size_t bn, const char *s, size_t max)
{
    char *c = tw_secret_clip(s ? s : "", max);
    snprintf(buf, bn, "%s", c ? c : TW_REDACTED);
    free(c);
    return buf;
}

void tw_chk_excerpt_json(char *dst, size_t dn, const cJSON *v)
{
    char *s = v ? tw_json_print(v, NULL) : NULL;
    if (s) {
        tw_chk_excerpt(dst, dn, s, strlen(s));
        free(s);
    } else {
        snprintf(dst, dn, "%s", v ? "?" : "(absent)");
    }
}

int64_t tw_chk_find_off(const tw_judge_input *in, const char *needle)
{
    if (!needle || !*needle || !in->body)
        return -1;
    const char *p = tw_memmem(in->body, in->body_len, needle, strlen(needle));
    return p ? (int64_t)(p - in->body) : -1;
}

const char *tw_chk_header(const tw_kv *kv, size_t n, const char *name)
{
    return kv ? tw_kv_get(kv, n, name) : NULL;
}

bool tw_chk_ctype_is(const tw_judge_input *in, const char *want)
{
    const char *ct = tw_chk_header(in->resp_headers, in->nresp_headers, "Content-Type");
    return ct && strncasecmp(ct, want, strlen(want)) == 0;
}

bool tw_chk_str_nonempty(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring[0];
}

void tw_chk_idx_add(id_index *x, const char *id)
{
    if (!id || x->nomem)
        return;
    if (x->n == x->cap) {
        size_t nc = x->cap ? x->cap * 2 : 16;
        idx_ent *nv = realloc(x->v, nc * sizeof *nv);
        if (!nv) {
            x->nomem = true;
            return;
        }
        x->v = nv;
        x->cap = nc;
    }
    x->v[x->n].id = id;
    x->v[x->n].pos = x->n;
    x->n++;
}

static int idx_cmp(const void *a, const void *b)
{
    const idx_ent *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Sort the index: ids in order, equal ids by order of addition. */
void tw_chk_idx_seal(id_index *x)
{
    if (x->n > 1)
        qsort(x->v, x->n, sizeof *x->v, idx_cmp);
}

bool tw_chk_idx_has(const id_index *x, const char *id)
{
    size_t lo = 0, hi = x->n;
    while (id && lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(x->v[mid].id, id);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

void tw_chk_idx_free(id_index *x)
{
    free(x->v);
    memset(x, 0, sizeof *x);
}

/* The string member idkey of each element of list, sealed. */
void tw_chk_idx_of_list(id_index *x, const cJSON *list, const char *idkey)
{
    for (const cJSON *c = cJSON_IsArray(list) || cJSON_IsObject(list) ? list->child : NULL; c;
         c = c->next)
        tw_chk_idx_add(x, tw_json_get_str(c, idkey));
    tw_chk_idx_seal(x);
}

/* Events kept per judged stream; later ones are dropped (sse_list.capped). */
#define SSE_MAX_EVENTS 200000u

void tw_chk_sse_free(sse_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].type);
        free(l->v[i].data);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

static sse_ev *sse_push(sse_list *l)
{
    if (l->n >= SSE_MAX_EVENTS) {
        l->capped = true;
        return NULL;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 32;
        sse_ev *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        l->v = nv;
        l->cap = nc;
    }
    sse_ev *e = &l->v[l->n++];
    memset(e, 0, sizeof *e);
    return e;
}

static tw_status sse_on_event(void *user, const tw_sse_event *ev)
{
    sse_list *l = user;
    if (l->n >= SSE_MAX_EVENTS) {
        l->capped = true;
        return TW_OK;
    }
    sse_ev *e = sse_push(l);
    if (!e)
        return TW_ERR_NOMEM;
    e->type = tw_strndup(ev->type, ev->type_len);
    e->data = tw_strndup(ev->data, ev->data_len);
    e->data_len = ev->data_len;
    e->off = (size_t)ev->offset;
    e->terminated = ev->terminated;
    if (!e->type || !e->data)
        return TW_ERR_NOMEM;
    return TW_OK;
}

/* An event the parser dropped (a line or the event over its cap) stays in
 * the list, flagged, so that the checks can say where the stream broke. */
static tw_status sse_on_diag(void *user, tw_status code, uint64_t offset)
{
    sse_list *l = user;
    if (l->n && l->v[l->n - 1].over_cap && l->v[l->n - 1].off == (size_t)offset)
        return TW_OK; /* another long line of the same dropped event */
    if (l->n >= SSE_MAX_EVENTS) {
        l->capped = true;
        return TW_OK;
    }
    sse_ev *e = sse_push(l);
    if (!e)
        return TW_ERR_NOMEM;
    e->type = tw_strdup("message");
    e->data = tw_strdup("");
    e->off = (size_t)offset;
    e->over_cap = code;
    e->terminated = true;
    return e->type && e->data ? TW_OK : TW_ERR_NOMEM;
}

void tw_chk_sse_parse(const char *b, size_t n, const tw_limits *limits, sse_list *out)
{
    memset(out, 0, sizeof *out);
    tw_limits L;
    tw_limits_resolve(&L, limits);
    /* one line is capped by the event cap: a long data line is no fault of
     * its own, only an event over max_event_bytes is */
    if (L.max_line_bytes < L.max_event_bytes)
        L.max_line_bytes = L.max_event_bytes;
    tw_sse p;
    /* the last event stays even when no blank line ends it (terminated = false) */
    tw_sse_init(&p, &L, true, sse_on_event, sse_on_diag, out);
    if (tw_sse_feed(&p, b ? b : "", n) == TW_OK)
        tw_sse_finish(&p);
    tw_sse_release(&p);
}

void tw_chk_rview_free(rview *v)
{
    tw_buf_free(&v->content);
    for (size_t i = 0; i < v->ncalls; i++) {
        free(v->calls[i].id);
        free(v->calls[i].name);
        cJSON_Delete(v->calls[i].args);
    }
    free(v->calls);
    free(v->finish);
    memset(v, 0, sizeof *v);
}

void tw_chk_rview_add(rview *v, const char *id, const char *name, cJSON *args, size_t off)
{
    vcall *nc = v->calls;
    if (v->ncalls == v->cap_calls) {
        size_t cap = v->cap_calls ? v->cap_calls * 2 : 8;
        nc = realloc(v->calls, cap * sizeof *nc);
        if (!nc) {
            cJSON_Delete(args);
            return;
        }
        v->calls = nc;
        v->cap_calls = cap;
    }
    nc[v->ncalls++] = (vcall){tw_strdup(id ? id : ""), tw_strdup(name ? name : ""), args, off};
}

/* Arguments given as a JSON string or an object: parsed object or NULL. */
cJSON *tw_chk_args_value(const cJSON *a, size_t depth)
{
    if (cJSON_IsObject(a))
        return cJSON_Duplicate(a, 1);
    if (cJSON_IsString(a)) {
        cJSON *v = tw_chk_parse_json(a->valuestring, strlen(a->valuestring), depth);
        if (cJSON_IsObject(v))
            return v;
        cJSON_Delete(v);
    }
    return NULL;
}

void tw_chk_content_text(const cJSON *c, tw_buf *out)
{
    if (cJSON_IsString(c)) {
        tw_buf_puts(out, c->valuestring);
    } else if (cJSON_IsArray(c)) {
        for (const cJSON *p = c->child; p; p = p->next) {
            const char *t = tw_json_get_str(p, "text");
            if (t)
                tw_buf_puts(out, t);
        }
    }
}

/* ---- the OpenAI non-streaming body ---- */

const cJSON *tw_chk_oai_message(const cJSON *body)
{
    const cJSON *ch = tw_json_get(body, "choices");
    if (!cJSON_IsArray(ch) || !ch->child)
        return NULL;
    const cJSON *m = tw_json_get(ch->child, "message");
    return cJSON_IsObject(m) ? m : NULL;
}

void tw_chk_view_openai(const cJSON *body, size_t depth, rview *v)
{
    const cJSON *m = tw_chk_oai_message(body);
    if (!m)
        return;
    v->ok = true;
    tw_chk_content_text(tw_json_get(m, "content"), &v->content);
    const cJSON *tc = tw_json_get(m, "tool_calls");
    if (tc && (cJSON_IsArray(tc) || cJSON_IsObject(tc)))
        for (const cJSON *c = tc->child; c; c = c->next) {
            const cJSON *fn = tw_json_get(c, "function");
            tw_chk_rview_add(v, tw_json_get_str(c, "id"), tw_json_get_str(fn, "name"),
                             tw_chk_args_value(tw_json_get(fn, "arguments"), depth), 0);
        }
    const char *fr = tw_json_get_str(tw_json_get(body, "choices")->child, "finish_reason");
    v->finish = fr ? tw_strdup(fr) : NULL;
}

void tw_chk_view_anthropic(const cJSON *body, rview *v)
{
    const cJSON *content = tw_json_get(body, "content");
    if (!cJSON_IsArray(content))
        return;
    v->ok = true;
    for (const cJSON *b = content->child; b; b = b->next) {
        const char *t = tw_json_get_str(b, "type");
        if (t && strcmp(t, "text") == 0 && tw_json_get_str(b, "text"))
            tw_buf_puts(&v->content, tw_json_get_str(b, "text"));
        else if (t && strcmp(t, "tool_use") == 0) {
            const cJSON *in = tw_json_get(b, "input");
            tw_chk_rview_add(v, tw_json_get_str(b, "id"), tw_json_get_str(b, "name"),
                             cJSON_IsObject(in) ? cJSON_Duplicate(in, 1) : NULL, 0);
        }
    }
    const char *sr = tw_json_get_str(body, "stop_reason");
    v->finish = sr ? tw_strdup(sr) : NULL;
}

void tw_chk_view_generate(const cJSON *body, size_t depth, rview *v)
{
    if (!cJSON_IsObject(body))
        return;
    v->ok = true;
    const char *r = tw_json_get_str(body, "response");
    if (r)
        tw_buf_puts(&v->content, r);
    const cJSON *tc = tw_json_get(body, "tool_calls");
    if (cJSON_IsArray(tc))
        for (const cJSON *c = tc->child; c; c = c->next)
            tw_chk_rview_add(v, tw_json_get_str(c, "id"), tw_json_get_str(c, "name"),
                             tw_chk_args_value(tw_json_get(c, "arguments"), depth), 0);
}

tw_status tw_decode_response(const char *path, bool stream, const char *body, size_t len,
                             const tw_decode_opts *o, tw_result *out)
{
    const char *name = tw_api_decoder(tw_path_kind(path), stream); /* the table of formats */
    const tw_format_ops *f = name ? tw_format_find(name) : NULL;
    if (!f)
        return TW_ERR_UNSUPPORTED;
    /* exact-size copy: decoders never rely on a terminator */
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return TW_ERR_NOMEM;
    if (len)
        memcpy(copy, body, len);
    tw_status st = f->decode(copy, len, o, out);
    free(copy);
    return st;
}

void tw_chk_model_opts(judge *j, const tw_fx_exchange *ex, tw_opts_holder *h)
{
    tw_opts_holder_init(h);
    if (ex->decode_options && !tw_opts_from_json(h, ex->decode_options, NULL)) {
        tw_opts_holder_free(h);
        tw_opts_holder_init(h);
    }
    if (!tw_json_get(ex->decode_options, "tools")) {
        /* as the run decodes it: the tools the request declared type the values */
        const cJSON *rt = tw_json_get(j->in->req_body, "tools");
        tw_tool *t = NULL;
        size_t nt = 0;
        if (cJSON_IsArray(rt) && rt->child && tw_tools_read(rt, &j->L, &t, &nt, NULL) == TW_OK)
            tw_opts_set_tools(h, t, nt);
    }
    h->o.limits = j->L;
}

const char *tw_chk_ex_dialect(const tw_fx_exchange *ex)
{
    const char *f = !ex ? NULL : ex->model_format ? ex->model_format : ex->decode_format;
    if (!f || tw_profile_of_dialect(f) == TW_NPROFILES || strcmp(f, "qwen3-coder") == 0)
        return NULL;
    return f;
}
