/* Writing fixtures back to JSON (fixture_write.h). */
#include "fixture_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

/* ---- arena ---- */

static bool arena_keep(tw_fx_arena *a, void *p)
{
    if (a->nblocks == a->capblocks) {
        size_t nc = a->capblocks ? a->capblocks * 2 : 32;
        void **nb = realloc(a->blocks, nc * sizeof *nb);
        if (!nb)
            return false;
        a->blocks = nb;
        a->capblocks = nc;
    }
    a->blocks[a->nblocks++] = p;
    return true;
}

const char *tw_fx_arena_strn(tw_fx_arena *a, const char *s, size_t n)
{
    char *p = tw_strndup(s, n);
    if (p && !arena_keep(a, p)) {
        free(p);
        return NULL;
    }
    return p;
}

const char *tw_fx_arena_str(tw_fx_arena *a, const char *s)
{
    return s ? tw_fx_arena_strn(a, s, strlen(s)) : NULL;
}

void *tw_fx_arena_calloc(tw_fx_arena *a, size_t n, size_t sz)
{
    if (n == 0)
        return NULL;
    void *p = calloc(n, sz);
    if (p && !arena_keep(a, p)) {
        free(p);
        return NULL;
    }
    return p;
}

void *tw_fx_arena_grow(tw_fx_arena *a, void *arr, size_t old_n, size_t n, size_t sz)
{
    if (n <= old_n)
        return arr;
    if (n > ((size_t)-1) / sz)
        return NULL;
    size_t slot = a->nblocks;
    if (arr) {
        for (slot = 0; slot < a->nblocks && a->blocks[slot] != arr; slot++)
            ;
        if (slot == a->nblocks)
            return NULL; /* not ours */
    }
    void *p = realloc(arr, n * sz);
    if (!p)
        return NULL;
    memset((char *)p + old_n * sz, 0, (n - old_n) * sz);
    if (arr)
        a->blocks[slot] = p;
    else if (!arena_keep(a, p)) {
        free(p);
        return NULL;
    }
    return p;
}

cJSON *tw_fx_arena_json(tw_fx_arena *a, cJSON *take)
{
    if (!take)
        return NULL;
    if (!a->trees && !(a->trees = cJSON_CreateArray())) {
        cJSON_Delete(take);
        return NULL;
    }
    if (!cJSON_AddItemToArray(a->trees, take)) {
        cJSON_Delete(take);
        return NULL;
    }
    return take;
}

void tw_fx_arena_free(tw_fx_arena *a)
{
    for (size_t i = 0; i < a->nblocks; i++)
        free(a->blocks[i]);
    free(a->blocks);
    cJSON_Delete(a->trees);
    memset(a, 0, sizeof *a);
}

/* ---- to JSON ---- */

static bool add_str(cJSON *o, const char *k, const char *v)
{
    return !v || cJSON_AddStringToObject(o, k, v) != NULL;
}

static bool add_copy(cJSON *o, const char *k, const cJSON *v)
{
    if (!v)
        return true;
    cJSON *c = cJSON_Duplicate(v, 1);
    if (!c)
        return false;
    if (!cJSON_AddItemToObject(o, k, c)) {
        cJSON_Delete(c);
        return false;
    }
    return true;
}

static bool add_headers(cJSON *o, const tw_kv *kv, size_t n)
{
    if (!n)
        return true;
    cJSON *h = cJSON_AddObjectToObject(o, "headers");
    if (!h)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!cJSON_AddStringToObject(h, kv[i].name, kv[i].value ? kv[i].value : ""))
            return false;
    return true;
}

static bool add_exchange(cJSON *arr, const tw_fx_exchange *x)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        return false;
    }
    cJSON *rq = cJSON_AddObjectToObject(o, "request");
    if (!rq || !add_str(rq, "method", x->req.method ? x->req.method : "POST") ||
        !add_str(rq, "path", x->req.path ? x->req.path : "/") ||
        !add_headers(rq, x->req.headers, x->req.nheaders) || !add_copy(rq, "body", x->req.body))
        return false;
    if (x->has_response) {
        const tw_fx_response *r = &x->resp;
        cJSON *rs = cJSON_AddObjectToObject(o, "response");
        if (!rs || !cJSON_AddNumberToObject(rs, "status", r->status) ||
            !add_headers(rs, r->headers, r->nheaders))
            return false;
        if (r->events || r->stream) {
            cJSON *ev = cJSON_AddArrayToObject(rs, "events");
            if (!ev)
                return false;
            for (size_t i = 0; i < r->nevents; i++) {
                const tw_fx_sse *e = &r->events[i];
                cJSON *eo = cJSON_CreateObject();
                if (!eo || !cJSON_AddItemToArray(ev, eo)) {
                    cJSON_Delete(eo);
                    return false;
                }
                if (!add_str(eo, "event", e->event) || !add_str(eo, "data", e->data ? e->data : "") ||
                    !add_str(eo, "id", e->id) ||
                    (e->delay_ms > 0 && !cJSON_AddNumberToObject(eo, "delay_ms", (double)e->delay_ms)))
                    return false;
            }
        } else if (r->body) {
            if (!add_copy(rs, "body", r->body))
                return false;
        } else if (r->body_text) {
            if (!add_str(rs, "body_text", r->body_text))
                return false;
        }
    }
    if (x->model_text && !add_str(o, "model_text", x->model_text))
        return false;
    if (x->model_pass1 || x->model_pass2) {
        cJSON *mp = cJSON_AddObjectToObject(o, "model_passes");
        if (!mp || !add_str(mp, "pass1", x->model_pass1 ? x->model_pass1 : "") ||
            !add_str(mp, "pass2", x->model_pass2 ? x->model_pass2 : ""))
            return false;
    }
    if (x->decode_format) {
        cJSON *d = cJSON_AddObjectToObject(o, "decode");
        if (!d || !add_str(d, "format", x->decode_format) ||
            !add_copy(d, "options", x->decode_options))
            return false;
    }
    if (x->expect_result || x->nexpect_fail || x->live.json) {
        cJSON *e = cJSON_AddObjectToObject(o, "expect");
        if (!e || !add_copy(e, "result", x->expect_result) || !add_copy(e, "live", x->live.json))
            return false;
        if (x->nexpect_fail) {
            cJSON *fc = cJSON_AddArrayToObject(e, "failing_checks");
            if (!fc)
                return false;
            for (size_t i = 0; i < x->nexpect_fail; i++) {
                cJSON *c = cJSON_CreateObject();
                if (!c || !cJSON_AddItemToArray(fc, c)) {
                    cJSON_Delete(c);
                    return false;
                }
                if (!add_str(c, "id", x->expect_fail[i].check) ||
                    !add_str(c, "reason", x->expect_fail[i].reason))
                    return false;
            }
        }
    }
    return add_copy(o, "faults", x->faults);
}

cJSON *tw_fixture_to_json(const tw_fixture *f)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = cJSON_AddNumberToObject(o, "fixture_version", TW_FIXTURE_VERSION) &&
              add_str(o, "name", f->name ? f->name : "unnamed") &&
              add_str(o, "description", f->description ? f->description : "(no description)") &&
              add_str(o, "backend", f->backend ? f->backend : "openai");
    if (ok && f->ntags) {
        cJSON *t = cJSON_AddArrayToObject(o, "tags");
        ok = t != NULL;
        for (size_t i = 0; ok && i < f->ntags; i++) {
            cJSON *s = cJSON_CreateString(f->tags[i]);
            ok = s && cJSON_AddItemToArray(t, s);
            if (!ok)
                cJSON_Delete(s);
        }
    }
    if (ok) {
        if (f->provenance)
            ok = add_copy(o, "provenance", f->provenance);
        else {
            cJSON *p = cJSON_AddObjectToObject(o, "provenance");
            ok = p && add_str(p, "source", "hand-made");
        }
    }
    cJSON *ex = ok ? cJSON_AddArrayToObject(o, "exchanges") : NULL;
    ok = ex != NULL;
    for (size_t i = 0; ok && i < f->nexchanges; i++)
        ok = add_exchange(ex, &f->exchanges[i]);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

tw_status tw_fixture_write(tw_buf *out, const tw_fixture *f)
{
    cJSON *j = tw_fixture_to_json(f);
    if (!j)
        return TW_ERR_NOMEM;
    tw_status st = tw_json_write(out, j, TW_JSON_PRETTY);
    cJSON_Delete(j);
    return st == TW_OK ? tw_buf_putc(out, '\n') : st;
}

tw_status tw_fixture_write_file(const char *path, const tw_fixture *f, tw_error *err)
{
    tw_buf b = {0};
    tw_status st = tw_fixture_write(&b, f);
    if (st != TW_OK) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%s: cannot serialise the fixture: %s", path, tw_code_message(st));
        tw_buf_free(&b);
        return st;
    }
    st = tw_out_write_file(path, b.data, b.len, err);
    tw_buf_free(&b);
    return st;
}
