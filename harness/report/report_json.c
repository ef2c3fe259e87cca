/* The report's JSON form (report.h): writing it and reading it back. */
#include "report.h"
#include "report_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"

/*
 * The JSON is written as it is walked, never built as a tree: the same
 * bytes as tw_json_write(TW_JSON_PRETTY) of the document (two-space
 * indentation, ": " after a key, an empty array as []), produced piece by
 * piece so that a report of any size goes to its file in chunks.
 */
typedef struct jw {
    tw_rw *w;
    int level;
    bool first; /* no member yet in the innermost open value */
} jw;

static void j_put(jw *j, tw_status st)
{
    if (st != TW_OK)
        tw_rw_fail(j->w, st);
}

static void j_indent(jw *j)
{
    static const char spaces[] = "                                                                ";
    tw_rw_putc(j->w, '\n');
    for (size_t n = (size_t)j->level * 2; n;) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        tw_rw_append(j->w, spaces, k);
        n -= k;
    }
}

/* The separator and indentation before the next member; its key when not
 * NULL. One append: ",\n", the indentation, "\"key\": " (keys are the
 * renderer's own, short and plain). */
static void j_next(jw *j, const char *key)
{
    char tmp[96];
    size_t n = 0, ind = (size_t)j->level * 2, kl = key ? strlen(key) : 0;
    if (ind + kl + 8 > sizeof tmp) {
        if (!j->first)
            tw_rw_putc(j->w, ',');
        j->first = false;
        j_indent(j);
        if (key) {
            tw_rw_putc(j->w, '"');
            tw_rw_puts(j->w, key);
            tw_rw_puts(j->w, "\": ");
        }
        return;
    }
    if (!j->first)
        tmp[n++] = ',';
    j->first = false;
    tmp[n++] = '\n';
    memset(tmp + n, ' ', ind);
    n += ind;
    if (key) {
        tmp[n++] = '"';
        memcpy(tmp + n, key, kl);
        n += kl;
        memcpy(tmp + n, "\": ", 3);
        n += 3;
    }
    tw_rw_append(j->w, tmp, n);
}

static void j_open(jw *j, const char *key, char c)
{
    j_next(j, key);
    tw_rw_putc(j->w, c);
    j->level++;
    j->first = true;
}

static void j_close(jw *j, char c)
{
    j->level--;
    if (!j->first)
        j_indent(j);
    tw_rw_putc(j->w, c);
    j->first = false;
}

static void j_str(jw *j, const char *key, const char *v)
{
    j_next(j, key);
    if (j->w->st != TW_OK)
        return;
    if (!v)
        tw_rw_puts(j->w, "null");
    else
        j_put(j, tw_json_write_str(j->w->b, v, strlen(v), TW_JSON_PRETTY));
}

static void j_num(jw *j, const char *key, double v)
{
    j_next(j, key);
    if (j->w->st == TW_OK)
        j_put(j, tw_json_write_num(j->w->b, v));
}

/* An integer: the bytes tw_json_write_num gives for it, without printf. */
static void j_int(jw *j, const char *key, int64_t v)
{
    if (v <= -((int64_t)1 << 53) || v >= ((int64_t)1 << 53)) {
        j_num(j, key, (double)v);
        return;
    }
    j_next(j, key);
    char tmp[24];
    size_t n = sizeof tmp;
    uint64_t u = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
    do {
        tmp[--n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--n] = '-';
    tw_rw_append(j->w, tmp + n, sizeof tmp - n);
}

static void j_bool(jw *j, const char *key, bool v)
{
    j_next(j, key);
    tw_rw_puts(j->w, v ? "true" : "false");
}

void tw_report_json_emit(const tw_report *r, tw_rw *w)
{
    jw jj = {w, 0, true}, *j = &jj;
    tw_rw_putc(w, '{');
    j->level = 1;
    j_str(j, "schema", TW_REPORT_SCHEMA);
    j_int(j, "version", r->version);
    j_str(j, "toolwire", r->toolwire ? r->toolwire : "");
    j_str(j, "backend", r->backend ? r->backend : "");
    j_str(j, "target", r->target ? r->target : "");
    j_str(j, "generated", r->generated ? r->generated : "");
    j_open(j, "summary", '{');
    j_num(j, "fixtures", (double)r->n_fixtures);
    j_num(j, "skipped_fixtures", (double)r->n_skipped);
    j_num(j, "exchanges", (double)r->n_exchanges);
    j_num(j, "pass", (double)r->n_pass);
    j_num(j, "fail", (double)r->n_fail);
    j_num(j, "skip", (double)r->n_skip);
    j_num(j, "mismatches", (double)r->n_mismatch);
    j_num(j, "consequences", (double)r->n_knockon);
    j_num(j, "expected_differences", (double)r->n_declared);
    j_num(j, "directive_not_followed", (double)r->n_undirected);
    char note[600];
    tw_report_directive_note(r, note, sizeof note);
    j_str(j, "directive_note", note[0] ? note : NULL);
    j_bool(j, "ok", r->ok);
    j_close(j, '}');
    j_open(j, "checks", '[');
    size_t nc;
    const tw_check_def *defs = tw_checks_catalog(&nc);
    for (size_t i = 0; i < nc; i++) {
        j_open(j, NULL, '{');
        j_str(j, "id", defs[i].id);
        j_str(j, "severity", tw_severity_name(defs[i].sev));
        j_str(j, "kind",
              defs[i].client                    ? "client"
              : defs[i].family == TW_CHF_PARSER ? "parser"
                                                : "backend");
        j_str(j, "rule", defs[i].rule);
        j_close(j, '}');
    }
    j_close(j, ']');
    j_open(j, "fixtures", '[');
    for (size_t i = 0; i < r->nfx; i++) {
        const tw_rep_fixture *f = &r->fx[i];
        j_open(j, NULL, '{');
        j_str(j, "name", f->name ? f->name : "");
        j_str(j, "file", f->file ? f->file : "");
        j_str(j, "backend", f->backend ? f->backend : "");
        j_bool(j, "skipped", f->skipped);
        j_str(j, "note", f->note);
        j_bool(j, "match", f->match);
        j_open(j, "exchanges", '[');
        for (size_t k = 0; k < f->nex; k++) {
            const tw_rep_exchange *e = &f->ex[k];
            j_open(j, NULL, '{');
            j_int(j, "index", (int64_t)e->index);
            j_str(j, "method", e->method ? e->method : "");
            j_str(j, "path", e->path ? e->path : "");
            j_bool(j, "stream", e->stream);
            j_int(j, "status", e->status);
            j_int(j, "elapsed_ms", e->elapsed_ms);
            j_int(j, "attempts", e->attempts);
            j_str(j, "error", e->error);
            j_open(j, "result", '{');
            j_str(j, "verdict", tw_verdict_name(e->result));
            j_str(j, "detail", e->result_detail);
            j_close(j, '}');
            j_bool(j, "match", e->match);
            if (e->calls >= 0)
                j_int(j, "calls", e->calls);
            if (e->followed >= 0) {
                j_open(j, "directive", '{');
                j_bool(j, "followed", e->followed == 1);
                j_str(j, "detail", e->directive);
                j_close(j, '}');
            }
            j_open(j, "checks", '[');
            for (size_t c = 0; c < e->nchecks; c++) {
                const tw_rep_check *ch = &e->checks[c];
                j_open(j, NULL, '{');
                j_str(j, "id", ch->id);
                j_str(j, "verdict", tw_verdict_name(ch->verdict));
                j_str(j, "expected", tw_expect_name(ch->expected));
                j_bool(j, "match", ch->match);
                j_int(j, "offset", ch->offset);
                j_str(j, "evidence", ch->evidence ? ch->evidence : "");
                if (ch->follows[0]) {
                    char fw[80];
                    snprintf(fw, sizeof fw, "%s (%s)", ch->follows, ch->follows_check);
                    j_str(j, "follows", fw);
                }
                if (ch->declared)
                    j_str(j, "declared", ch->declared);
                j_close(j, '}');
            }
            j_close(j, ']');
            j_close(j, '}');
            tw_rw_flush(w, false);
        }
        j_close(j, ']');
        j_close(j, '}');
    }
    j_close(j, ']');
    j_close(j, '}');
    tw_rw_putc(w, '\n');
    tw_rw_flush(w, true);
}

tw_status tw_report_to_json(const tw_report *r, tw_buf *out)
{
    tw_rw w = {.b = out, .st = TW_OK};
    tw_report_json_emit(r, &w);
    return w.st;
}

static char *jstr(const cJSON *o, const char *k)
{
    const char *s = tw_json_get_str(o, k);
    return s ? tw_strdup(s) : NULL;
}

tw_status tw_report_parse(const char *buf, size_t len, tw_report *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *root = NULL;
    tw_error e;
    if (tw_json_parse(buf, len, TW_REPORT_MAX_DEPTH, &root, &e) != TW_OK) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "not JSON: %s", e.message);
        return TW_ERR_PARSE;
    }
    /* Every report toolwire writes is RFC 8259 text. One that is not (invalid
     * UTF-8 in a name, which the writer would print as U+FFFD) would not read
     * back as itself: a fixture named with such a byte would be missing from
     * its own copy written again, and gate or merge would pair it with nothing. */
    tw_json_lint lint;
    tw_json_lint_scan(buf, len, &lint);
    if (lint.nonstd_offset >= 0) {
        tw_error_set(err, TW_ERR_INVALID, lint.nonstd_offset, NULL,
                     "not RFC 8259 JSON at byte %lld: %s (every report toolwire writes is)",
                     (long long)lint.nonstd_offset, lint.nonstd_what);
        cJSON_Delete(root);
        return TW_ERR_PARSE;
    }
    const char *schema = tw_json_get_str(root, "schema");
    const cJSON *ver = tw_json_get(root, "version");
    const cJSON *fxs = tw_json_get(root, "fixtures");
    if (!schema || strcmp(schema, TW_REPORT_SCHEMA) != 0 || !cJSON_IsNumber(ver) ||
        !cJSON_IsArray(fxs)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "not a toolwire report (schema, version, fixtures)");
        cJSON_Delete(root);
        return TW_ERR_INVALID;
    }
    if (tw_json_int(ver, 0, INT_MAX, 0) > TW_REPORT_VERSION) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "report version %d is newer than this program reads (%d)",
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
        tw_rep_fixture *f =
            tw_report_add_fixture(out, tw_json_get_str(jf, "name"), tw_json_get_str(jf, "file"),
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
            v = tw_json_get(je, "calls");
            x->calls = cJSON_IsNumber(v) ? (int)tw_json_int(v, 0, INT_MAX, 0) : -1;
            const cJSON *jd = tw_json_get(je, "directive");
            if (cJSON_IsObject(jd)) {
                x->followed = cJSON_IsTrue(tw_json_get(jd, "followed"));
                x->directive = x->followed ? NULL : jstr(jd, "detail");
            }
            const cJSON *jcs = tw_json_get(je, "checks");
            bool has_res = false;
            for (const cJSON *jc = cJSON_IsArray(jcs) ? jcs->child : NULL; jc; jc = jc->next) {
                tw_verdict vd;
                tw_expect xp = TW_EXPECT_ANY;
                const char *id = tw_json_get_str(jc, "id");
                if (!id || !tw_verdict_from_name(tw_json_get_str(jc, "verdict"), &vd)) {
                    tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                                 "fixture %s: a check without id or verdict", f->name);
                    st = TW_ERR_INVALID;
                    break;
                }
                tw_expect_from_name(tw_json_get_str(jc, "expected"), &xp);
                const cJSON *off = tw_json_get(jc, "offset");
                tw_rep_check *c =
                    tw_report_add_check(x, id, vd, xp, tw_json_int(off, -1, INT64_MAX, -1),
                                        tw_json_get_str(jc, "evidence"));
                if (!c) {
                    st = TW_ERR_NOMEM;
                    break;
                }
                /* absent from a report written before the field */
                c->declared = jstr(jc, "declared");
                const cJSON *m = tw_json_get(jc, "match");
                if (cJSON_IsBool(m))
                    c->match = cJSON_IsTrue(m);
                has_res = has_res || strcmp(c->id, tw_check_name(TW_CHK_RES_01)) == 0;
            }
            /* a report written before RES-01: its verdict from the result */
            if (st == TW_OK && !has_res && !tw_report_set_result_check(x, TW_EXPECT_NOT_FAIL))
                st = TW_ERR_NOMEM;
        }
    }
    cJSON_Delete(root);
    if (st != TW_OK) {
        if (st == TW_ERR_NOMEM)
            tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory");
        tw_report_free(out);
        return st;
    }
    tw_report_summarise(out);
    return TW_OK;
}

tw_status tw_report_load(const char *path, tw_report *out, tw_error *err)
{
    size_t len = 0;
    char *buf = tw_read_file(path, TW_REPORT_MAX_BYTES, &len, err);
    if (!buf) {
        memset(out, 0, sizeof *out);
        return TW_ERR_IO;
    }
    tw_error w2 = {.offset = -1};
    tw_status st = tw_report_parse(buf, len, out, &w2);
    if (st != TW_OK)
        tw_error_file(err, w2.code, w2.offset, path, "%s: %s", path, w2.message);
    free(buf);
    return st;
}
