/*
 * Helpers shared by the conformance checks: evidence excerpts, header
 * lookups, the id index, SSE framing and the light views of a response.
 */
#include "checks_int.h"

/* ================================================================ helpers */

char tw_path_kind(const char *path)
{
    if (!path)
        return 0;
    size_t n = strlen(path);
    const char *q = memchr(path, '?', n);
    if (q)
        n = (size_t)(q - path);
    if (n >= 16 && memcmp(path + n - 16, "chat/completions", 16) == 0)
        return 'o';
    if (n >= 8 && memcmp(path + n - 8, "messages", 8) == 0)
        return 'a';
    if (n >= 8 && memcmp(path + n - 8, "generate", 8) == 0)
        return 'g';
    return 0;
}

cJSON *tw_chk_parse_json(const char *p, size_t n, size_t depth)
{
    cJSON *v = NULL;
    if (tw_json_parse(p, n, depth, &v, NULL) != TW_OK)
        return NULL;
    return v;
}

/* A short printable excerpt of a value for evidence: scrubbed of every
 * known secret first, cut after (never inside a [REDACTED] marker). */
void tw_chk_excerpt(char *dst, size_t dn, const char *p0, size_t n0)
{
    tw_buf clean = {0};
    if (tw_secret_scrub(p0, n0, &clean, NULL) != TW_OK) {
        tw_buf_free(&clean);
        snprintf(dst, dn, "%s", TW_REDACTED);
        return;
    }
    const char *p = clean.data ? clean.data : "";
    size_t n = clean.len;
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < dn; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\n') {
            dst[o++] = '\\';
            dst[o++] = 'n';
        } else if (c < 0x20 || c == 0x7f) {
            dst[o++] = '?';
        } else {
            dst[o++] = (char)c;
        }
        if (i + 1 < n && o + 5 >= dn) {
            o = tw_redacted_cut(dst, o);
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
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

bool tw_chk_str_nonempty(const cJSON *v) { return cJSON_IsString(v) && v->valuestring[0]; }

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

void tw_chk_sse_parse(const char *b, size_t n, size_t max_event, sse_list *out)
{
    memset(out, 0, sizeof *out);
    tw_buf data = {0}, type = {0};
    data.max = max_event;
    bool open = false, has_data = false, has_type = false;
    size_t ev_off = 0, i = 0;
    if (n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i <= n) {
        size_t ls = i;
        while (i < n && b[i] != '\n' && b[i] != '\r')
            i++;
        bool at_end = i >= n;
        size_t le = i;
        if (!at_end) {
            if (b[i] == '\r' && i + 1 < n && b[i + 1] == '\n')
                i += 2;
            else
                i++;
        }
        if (le == ls && !at_end) {
            /* blank line: dispatch */
            if (open && out->n < SSE_MAX_EVENTS) {
                if (out->n == out->cap) {
                    size_t nc = out->cap ? out->cap * 2 : 32;
                    sse_ev *nv = realloc(out->v, nc * sizeof *nv);
                    if (!nv)
                        break;
                    out->v = nv;
                    out->cap = nc;
                }
                sse_ev *e = &out->v[out->n++];
                e->type = has_type ? tw_strndup(type.data ? type.data : "", type.len) : NULL;
                e->data = tw_strndup(data.data ? data.data : "", data.len);
                e->data_len = data.len;
                e->off = ev_off;
                e->has_data = has_data;
                e->terminated = true;
            } else if (open) {
                out->capped = true;
            }
            tw_buf_reset(&data);
            tw_buf_reset(&type);
            open = has_data = has_type = false;
            continue;
        }
        if (at_end && le == ls)
            break;
        if (b[ls] == ':') {
            if (at_end)
                break;
            continue;
        }
        if (!open) {
            open = true;
            ev_off = ls;
        }
        size_t colon = ls;
        while (colon < le && b[colon] != ':')
            colon++;
        size_t fl = colon - ls;
        size_t vs = colon < le ? colon + 1 : le;
        if (vs < le && b[vs] == ' ')
            vs++;
        if (fl == 4 && memcmp(b + ls, "data", 4) == 0) {
            if (has_data)
                tw_buf_putc(&data, '\n');
            tw_buf_append(&data, b + vs, le - vs);
            has_data = true;
        } else if (fl == 5 && memcmp(b + ls, "event", 5) == 0) {
            tw_buf_reset(&type);
            tw_buf_append(&type, b + vs, le - vs);
            has_type = true;
        }
        if (at_end)
            break;
    }
    if (open && out->n < SSE_MAX_EVENTS) {
        /* an event the stream never ended with a blank line */
        sse_ev *nv = out->n == out->cap ? realloc(out->v, (out->cap + 1) * sizeof *nv) : out->v;
        if (nv) {
            if (out->n == out->cap)
                out->cap++;
            out->v = nv;
            sse_ev *e = &out->v[out->n++];
            e->type = has_type ? tw_strndup(type.data ? type.data : "", type.len) : NULL;
            e->data = tw_strndup(data.data ? data.data : "", data.len);
            e->data_len = data.len;
            e->off = ev_off;
            e->has_data = has_data;
            e->terminated = false;
        }
    }
    tw_buf_free(&data);
    tw_buf_free(&type);
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
