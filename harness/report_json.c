/* The report's JSON form (report.h): writing it and reading it back. */
#include "report.h"
#include "report_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"

static cJSON *str_or_null(const char *s) { return s ? cJSON_CreateString(s) : cJSON_CreateNull(); }

/* Add an item; on failure (no memory: a NULL item or container) it is freed. */
static bool add_item(cJSON *arr, cJSON *item)
{
    if (arr && item && cJSON_AddItemToArray(arr, item))
        return true;
    cJSON_Delete(item);
    return false;
}

static bool add_field(cJSON *obj, const char *key, cJSON *item)
{
    if (obj && item && cJSON_AddItemToObject(obj, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

/* Every cJSON call that can fail for want of memory is checked. */
#define NEED(x)                                                                                              \
    do {                                                                                                     \
        if (!(x))                                                                                            \
            ok = false;                                                                                      \
    } while (0)

tw_status tw_report_to_json(const tw_report *r, tw_buf *out)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return TW_ERR_NOMEM;
    bool ok = true;
    NEED(cJSON_AddStringToObject(root, "schema", TW_REPORT_SCHEMA));
    NEED(cJSON_AddNumberToObject(root, "version", r->version));
    NEED(cJSON_AddStringToObject(root, "toolwire", r->toolwire ? r->toolwire : ""));
    NEED(cJSON_AddStringToObject(root, "backend", r->backend ? r->backend : ""));
    NEED(cJSON_AddStringToObject(root, "target", r->target ? r->target : ""));
    NEED(cJSON_AddStringToObject(root, "generated", r->generated ? r->generated : ""));
    cJSON *s = cJSON_AddObjectToObject(root, "summary");
    NEED(s);
    NEED(cJSON_AddNumberToObject(s, "fixtures", (double)r->n_fixtures));
    NEED(cJSON_AddNumberToObject(s, "skipped_fixtures", (double)r->n_skipped));
    NEED(cJSON_AddNumberToObject(s, "exchanges", (double)r->n_exchanges));
    NEED(cJSON_AddNumberToObject(s, "pass", (double)r->n_pass));
    NEED(cJSON_AddNumberToObject(s, "fail", (double)r->n_fail));
    NEED(cJSON_AddNumberToObject(s, "skip", (double)r->n_skip));
    NEED(cJSON_AddNumberToObject(s, "mismatches", (double)r->n_mismatch));
    NEED(cJSON_AddBoolToObject(s, "ok", r->ok));
    cJSON *cat = cJSON_AddArrayToObject(root, "checks");
    NEED(cat);
    size_t nc;
    const tw_check_def *defs = tw_checks_catalog(&nc);
    for (size_t i = 0; i < nc; i++) {
        cJSON *d = cJSON_CreateObject();
        NEED(cJSON_AddStringToObject(d, "id", defs[i].id));
        NEED(cJSON_AddStringToObject(d, "severity", tw_severity_name(defs[i].sev)));
        NEED(cJSON_AddStringToObject(d, "kind", defs[i].client ? "client" : "backend"));
        NEED(cJSON_AddStringToObject(d, "rule", defs[i].rule));
        NEED(add_item(cat, d));
    }
    cJSON *fxs = cJSON_AddArrayToObject(root, "fixtures");
    NEED(fxs);
    for (size_t i = 0; i < r->nfx; i++) {
        const tw_rep_fixture *f = &r->fx[i];
        cJSON *jf = cJSON_CreateObject();
        NEED(cJSON_AddStringToObject(jf, "name", f->name));
        NEED(cJSON_AddStringToObject(jf, "file", f->file));
        NEED(cJSON_AddStringToObject(jf, "backend", f->backend));
        NEED(cJSON_AddBoolToObject(jf, "skipped", f->skipped));
        NEED(add_field(jf, "note", str_or_null(f->note)));
        NEED(cJSON_AddBoolToObject(jf, "match", f->match));
        cJSON *exs = cJSON_AddArrayToObject(jf, "exchanges");
        NEED(exs);
        for (size_t k = 0; k < f->nex; k++) {
            const tw_rep_exchange *e = &f->ex[k];
            cJSON *je = cJSON_CreateObject();
            NEED(cJSON_AddNumberToObject(je, "index", (double)e->index));
            NEED(cJSON_AddStringToObject(je, "method", e->method ? e->method : ""));
            NEED(cJSON_AddStringToObject(je, "path", e->path ? e->path : ""));
            NEED(cJSON_AddBoolToObject(je, "stream", e->stream));
            NEED(cJSON_AddNumberToObject(je, "status", e->status));
            NEED(cJSON_AddNumberToObject(je, "elapsed_ms", (double)e->elapsed_ms));
            NEED(cJSON_AddNumberToObject(je, "attempts", e->attempts));
            NEED(add_field(je, "error", str_or_null(e->error)));
            cJSON *jr = cJSON_AddObjectToObject(je, "result");
            NEED(jr);
            NEED(cJSON_AddStringToObject(jr, "verdict", tw_verdict_name(e->result)));
            NEED(add_field(jr, "detail", str_or_null(e->result_detail)));
            NEED(cJSON_AddBoolToObject(je, "match", e->match));
            cJSON *jcs = cJSON_AddArrayToObject(je, "checks");
            NEED(jcs);
            for (size_t c = 0; c < e->nchecks; c++) {
                const tw_rep_check *ch = &e->checks[c];
                cJSON *jc = cJSON_CreateObject();
                NEED(cJSON_AddStringToObject(jc, "id", ch->id));
                NEED(cJSON_AddStringToObject(jc, "verdict", tw_verdict_name(ch->verdict)));
                NEED(cJSON_AddStringToObject(jc, "expected", tw_expect_name(ch->expected)));
                NEED(cJSON_AddBoolToObject(jc, "match", ch->match));
                NEED(cJSON_AddNumberToObject(jc, "offset", (double)ch->offset));
                NEED(cJSON_AddStringToObject(jc, "evidence", ch->evidence ? ch->evidence : ""));
                NEED(add_item(jcs, jc));
            }
            NEED(add_item(exs, je));
        }
        NEED(add_item(fxs, jf));
    }
    tw_status st = ok ? tw_json_write(out, root, TW_JSON_PRETTY) : TW_ERR_NOMEM;
    if (st == TW_OK)
        st = tw_buf_putc(out, '\n');
    cJSON_Delete(root);
    return st;
}

static char *jstr(const cJSON *o, const char *k)
{
    const char *s = tw_json_get_str(o, k);
    return s ? tw_strdup(s) : NULL;
}

tw_status tw_report_parse(const char *buf, size_t len, tw_report *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    cJSON *root = NULL;
    tw_error e;
    if (tw_json_parse(buf, len, TW_REPORT_MAX_DEPTH, &root, &e) != TW_OK) {
        snprintf(why, whylen, "not JSON: %s", e.message);
        return TW_ERR_PARSE;
    }
    const char *schema = tw_json_get_str(root, "schema");
    const cJSON *ver = tw_json_get(root, "version");
    const cJSON *fxs = tw_json_get(root, "fixtures");
    if (!schema || strcmp(schema, TW_REPORT_SCHEMA) != 0 || !cJSON_IsNumber(ver) || !cJSON_IsArray(fxs)) {
        snprintf(why, whylen, "not a toolwire report (schema, version, fixtures)");
        cJSON_Delete(root);
        return TW_ERR_INVALID;
    }
    if (tw_json_int(ver, 0, INT_MAX, 0) > TW_REPORT_VERSION) {
        snprintf(why, whylen, "report version %d is newer than this program reads (%d)",
                 (int)tw_json_int(ver, 0, INT_MAX, 0), TW_REPORT_VERSION);
        cJSON_Delete(root);
        return TW_ERR_INVALID;
    }
    out->version = (int)tw_json_int(ver, 0, INT_MAX, 0);
    out->backend = jstr(root, "backend");
    out->target = jstr(root, "target");
    out->generated = jstr(root, "generated");
    out->toolwire = jstr(root, "toolwire");
    tw_status st = TW_OK;
    for (const cJSON *jf = fxs->child; jf && st == TW_OK; jf = jf->next) {
        tw_rep_fixture *f = tw_report_add_fixture(out, tw_json_get_str(jf, "name"),
                                                  tw_json_get_str(jf, "file"),
                                                  tw_json_get_str(jf, "backend"));
        if (!f) {
            st = TW_ERR_NOMEM;
            break;
        }
        f->skipped = cJSON_IsTrue(tw_json_get(jf, "skipped"));
        f->note = jstr(jf, "note");
        f->match = !cJSON_IsFalse(tw_json_get(jf, "match"));
        const cJSON *exs = tw_json_get(jf, "exchanges");
        for (const cJSON *je = cJSON_IsArray(exs) ? exs->child : NULL; je; je = je->next) {
            tw_rep_exchange *x = tw_report_add_exchange(f);
            if (!x) {
                st = TW_ERR_NOMEM;
                break;
            }
            const cJSON *ix = tw_json_get(je, "index");
            if (cJSON_IsNumber(ix))
                x->index = (size_t)tw_json_int(ix, 0, INT64_MAX, 0);
            x->method = jstr(je, "method");
            x->path = jstr(je, "path");
            x->stream = cJSON_IsTrue(tw_json_get(je, "stream"));
            const cJSON *v = tw_json_get(je, "status");
            x->status = (int)tw_json_int(v, 0, 999, 0);
            v = tw_json_get(je, "elapsed_ms");
            x->elapsed_ms = (long)tw_json_int(v, 0, LONG_MAX, 0);
            v = tw_json_get(je, "attempts");
            x->attempts = (int)tw_json_int(v, 0, INT_MAX, 0);
            x->error = jstr(je, "error");
            const cJSON *jr = tw_json_get(je, "result");
            tw_verdict_from_name(tw_json_get_str(jr, "verdict"), &x->result);
            x->result_detail = jstr(jr, "detail");
            x->match = !cJSON_IsFalse(tw_json_get(je, "match"));
            const cJSON *jcs = tw_json_get(je, "checks");
            for (const cJSON *jc = cJSON_IsArray(jcs) ? jcs->child : NULL; jc; jc = jc->next) {
                tw_verdict vd;
                tw_expect xp = TW_EXPECT_ANY;
                const char *id = tw_json_get_str(jc, "id");
                if (!id || !tw_verdict_from_name(tw_json_get_str(jc, "verdict"), &vd)) {
                    snprintf(why, whylen, "fixture %s: a check without id or verdict", f->name);
                    st = TW_ERR_INVALID;
                    break;
                }
                tw_expect_from_name(tw_json_get_str(jc, "expected"), &xp);
                const cJSON *off = tw_json_get(jc, "offset");
                tw_rep_check *c = tw_report_add_check(
                    x, id, vd, xp, tw_json_int(off, -1, INT64_MAX, -1),
                    tw_json_get_str(jc, "evidence"));
                if (!c) {
                    st = TW_ERR_NOMEM;
                    break;
                }
                const cJSON *m = tw_json_get(jc, "match");
                if (cJSON_IsBool(m))
                    c->match = cJSON_IsTrue(m);
            }
        }
    }
    cJSON_Delete(root);
    if (st != TW_OK) {
        if (st == TW_ERR_NOMEM)
            snprintf(why, whylen, "out of memory");
        tw_report_free(out);
        return st;
    }
    tw_report_summarise(out);
    return TW_OK;
}

tw_status tw_report_load(const char *path, tw_report *out, char *why, size_t whylen)
{
    size_t len = 0;
    char inner[300];
    char *buf = tw_read_file(path, TW_REPORT_MAX_BYTES, &len, inner, sizeof inner);
    if (!buf) {
        memset(out, 0, sizeof *out);
        snprintf(why, whylen, "%s", inner);
        return TW_ERR_IO;
    }
    char w2[300] = "";
    tw_status st = tw_report_parse(buf, len, out, w2, sizeof w2);
    if (st != TW_OK)
        snprintf(why, whylen, "%s: %s", path, w2);
    free(buf);
    return st;
}

