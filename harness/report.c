/* Conformance reports (report.h). */
#include "report.h"
#include "report_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "out.h"
#include "redact.h"

/* ================================================================ model */

void tw_report_init(tw_report *r, const char *backend, const char *target)
{
    memset(r, 0, sizeof *r);
    r->version = TW_REPORT_VERSION;
    r->backend = tw_strdup(backend ? backend : "backend");
    r->target = tw_strdup(target ? target : "");
    char ts[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    r->generated = tw_strdup(ts);
    r->toolwire = tw_strdup(TOOLWIRE_VERSION);
}

static void ex_free(tw_rep_exchange *e)
{
    free(e->method);
    free(e->path);
    free(e->error);
    free(e->result_detail);
    for (size_t i = 0; i < e->nchecks; i++)
        free(e->checks[i].evidence);
    free(e->checks);
}

void tw_report_free(tw_report *r)
{
    for (size_t i = 0; i < r->nfx; i++) {
        tw_rep_fixture *f = &r->fx[i];
        free(f->name);
        free(f->file);
        free(f->backend);
        free(f->note);
        for (size_t k = 0; k < f->nex; k++)
            ex_free(&f->ex[k]);
        free(f->ex);
    }
    free(r->fx);
    free(r->backend);
    free(r->target);
    free(r->generated);
    free(r->toolwire);
    memset(r, 0, sizeof *r);
}

tw_rep_fixture *tw_report_add_fixture(tw_report *r, const char *name, const char *file,
                                      const char *backend)
{
    tw_rep_fixture *nf = realloc(r->fx, (r->nfx + 1) * sizeof *nf);
    if (!nf)
        return NULL;
    r->fx = nf;
    tw_rep_fixture *f = &nf[r->nfx++];
    memset(f, 0, sizeof *f);
    f->name = tw_strdup(name ? name : "");
    f->file = tw_strdup(file ? file : "");
    f->backend = tw_strdup(backend ? backend : "");
    f->match = true;
    return f;
}

tw_rep_exchange *tw_report_add_exchange(tw_rep_fixture *f)
{
    tw_rep_exchange *ne = realloc(f->ex, (f->nex + 1) * sizeof *ne);
    if (!ne)
        return NULL;
    f->ex = ne;
    tw_rep_exchange *e = &ne[f->nex];
    memset(e, 0, sizeof *e);
    e->index = f->nex++;
    e->match = true;
    e->result = TW_V_SKIP;
    return e;
}

tw_rep_check *tw_report_add_check(tw_rep_exchange *e, const char *id, tw_verdict v, tw_expect x,
                                  int64_t offset, const char *evidence)
{
    tw_rep_check *nc = realloc(e->checks, (e->nchecks + 1) * sizeof *nc);
    if (!nc)
        return NULL;
    e->checks = nc;
    tw_rep_check *c = &nc[e->nchecks++];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    c->verdict = v;
    c->expected = x;
    c->offset = offset;
    c->evidence = tw_strdup(evidence ? evidence : "");
    c->match = x == TW_EXPECT_ANY || (x == TW_EXPECT_FAIL ? v == TW_V_FAIL : v != TW_V_FAIL);
    return c;
}

void tw_report_summarise(tw_report *r)
{
    r->n_fixtures = r->nfx;
    r->n_skipped = r->n_exchanges = r->n_pass = r->n_fail = r->n_skip = r->n_mismatch = 0;
    for (size_t i = 0; i < r->nfx; i++) {
        tw_rep_fixture *f = &r->fx[i];
        if (f->skipped) {
            r->n_skipped++;
            continue;
        }
        bool fm = true;
        for (size_t k = 0; k < f->nex; k++) {
            tw_rep_exchange *e = &f->ex[k];
            r->n_exchanges++;
            bool em = e->result != TW_V_FAIL && !(e->error && e->status == 0 && e->nchecks == 0);
            for (size_t c = 0; c < e->nchecks; c++) {
                tw_rep_check *ch = &e->checks[c];
                if (ch->verdict == TW_V_PASS)
                    r->n_pass++;
                else if (ch->verdict == TW_V_FAIL)
                    r->n_fail++;
                else
                    r->n_skip++;
                if (!ch->match) {
                    em = false;
                    r->n_mismatch++;
                }
            }
            if (e->result == TW_V_FAIL)
                r->n_mismatch++;
            e->match = em;
            fm = fm && em;
        }
        if (f->note && !f->skipped && f->nex == 0)
            fm = false;
        f->match = fm;
    }
    r->ok = r->n_mismatch == 0;
    for (size_t i = 0; i < r->nfx; i++)
        if (!r->fx[i].skipped && !r->fx[i].match)
            r->ok = false;
}

static const char *expect_name(tw_expect x)
{
    return x == TW_EXPECT_FAIL ? "fail" : x == TW_EXPECT_ANY ? "any" : "not-fail";
}

static bool expect_from_name(const char *s, tw_expect *out)
{
    if (!s)
        return false;
    if (strcmp(s, "fail") == 0)
        *out = TW_EXPECT_FAIL;
    else if (strcmp(s, "any") == 0)
        *out = TW_EXPECT_ANY;
    else if (strcmp(s, "not-fail") == 0)
        *out = TW_EXPECT_NOT_FAIL;
    else
        return false;
    return true;
}

void tw_rep_exchange_outcome(const tw_rep_exchange *e, char *dst, size_t n)
{
    if (!n)
        return;
    if (e->status == 0)
        snprintf(dst, n, "no response: %s", e->error && *e->error ? e->error : "the transfer failed");
    else if (e->error && *e->error)
        snprintf(dst, n, "HTTP %d, transfer broke: %s", e->status, e->error);
    else
        snprintf(dst, n, "HTTP %d", e->status);
}

void tw_rep_tally_outcomes(const tw_report *r, tw_outcome_tally *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < r->nfx; i++) {
        if (r->fx[i].skipped)
            continue;
        for (size_t k = 0; k < r->fx[i].nex; k++) {
            char o[200];
            tw_rep_exchange_outcome(&r->fx[i].ex[k], o, sizeof o);
            size_t j = 0;
            while (j < t->n && strcmp(t->what[j], o) != 0)
                j++;
            if (j == t->n) {
                if (t->n == TW_OUTCOME_KINDS) {
                    j = TW_OUTCOME_KINDS - 1;
                    snprintf(t->what[j], sizeof t->what[j], "%s", "other outcomes");
                } else {
                    snprintf(t->what[t->n++], sizeof t->what[j], "%s", o);
                }
            }
            t->count[j]++;
        }
    }
}

/* ================================================================ JSON */

static cJSON *str_or_null(const char *s) { return s ? cJSON_CreateString(s) : cJSON_CreateNull(); }

tw_status tw_report_to_json(const tw_report *r, tw_buf *out)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return TW_ERR_NOMEM;
    cJSON_AddStringToObject(root, "schema", TW_REPORT_SCHEMA);
    cJSON_AddNumberToObject(root, "version", r->version);
    cJSON_AddStringToObject(root, "toolwire", r->toolwire ? r->toolwire : "");
    cJSON_AddStringToObject(root, "backend", r->backend ? r->backend : "");
    cJSON_AddStringToObject(root, "target", r->target ? r->target : "");
    cJSON_AddStringToObject(root, "generated", r->generated ? r->generated : "");
    cJSON *s = cJSON_AddObjectToObject(root, "summary");
    cJSON_AddNumberToObject(s, "fixtures", (double)r->n_fixtures);
    cJSON_AddNumberToObject(s, "skipped_fixtures", (double)r->n_skipped);
    cJSON_AddNumberToObject(s, "exchanges", (double)r->n_exchanges);
    cJSON_AddNumberToObject(s, "pass", (double)r->n_pass);
    cJSON_AddNumberToObject(s, "fail", (double)r->n_fail);
    cJSON_AddNumberToObject(s, "skip", (double)r->n_skip);
    cJSON_AddNumberToObject(s, "mismatches", (double)r->n_mismatch);
    cJSON_AddBoolToObject(s, "ok", r->ok);
    cJSON *cat = cJSON_AddArrayToObject(root, "checks");
    size_t nc;
    const tw_check_def *defs = tw_checks_catalog(&nc);
    for (size_t i = 0; i < nc; i++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "id", defs[i].id);
        cJSON_AddStringToObject(d, "severity", tw_severity_name(defs[i].sev));
        cJSON_AddStringToObject(d, "kind", defs[i].client ? "client" : "backend");
        cJSON_AddStringToObject(d, "rule", defs[i].rule);
        cJSON_AddItemToArray(cat, d);
    }
    cJSON *fxs = cJSON_AddArrayToObject(root, "fixtures");
    for (size_t i = 0; i < r->nfx; i++) {
        const tw_rep_fixture *f = &r->fx[i];
        cJSON *jf = cJSON_CreateObject();
        cJSON_AddStringToObject(jf, "name", f->name);
        cJSON_AddStringToObject(jf, "file", f->file);
        cJSON_AddStringToObject(jf, "backend", f->backend);
        cJSON_AddBoolToObject(jf, "skipped", f->skipped);
        cJSON_AddItemToObject(jf, "note", str_or_null(f->note));
        cJSON_AddBoolToObject(jf, "match", f->match);
        cJSON *exs = cJSON_AddArrayToObject(jf, "exchanges");
        for (size_t k = 0; k < f->nex; k++) {
            const tw_rep_exchange *e = &f->ex[k];
            cJSON *je = cJSON_CreateObject();
            cJSON_AddNumberToObject(je, "index", (double)e->index);
            cJSON_AddStringToObject(je, "method", e->method ? e->method : "");
            cJSON_AddStringToObject(je, "path", e->path ? e->path : "");
            cJSON_AddBoolToObject(je, "stream", e->stream);
            cJSON_AddNumberToObject(je, "status", e->status);
            cJSON_AddNumberToObject(je, "elapsed_ms", (double)e->elapsed_ms);
            cJSON_AddNumberToObject(je, "attempts", e->attempts);
            cJSON_AddItemToObject(je, "error", str_or_null(e->error));
            cJSON *jr = cJSON_AddObjectToObject(je, "result");
            cJSON_AddStringToObject(jr, "verdict", tw_verdict_name(e->result));
            cJSON_AddItemToObject(jr, "detail", str_or_null(e->result_detail));
            cJSON_AddBoolToObject(je, "match", e->match);
            cJSON *jcs = cJSON_AddArrayToObject(je, "checks");
            for (size_t c = 0; c < e->nchecks; c++) {
                const tw_rep_check *ch = &e->checks[c];
                cJSON *jc = cJSON_CreateObject();
                cJSON_AddStringToObject(jc, "id", ch->id);
                cJSON_AddStringToObject(jc, "verdict", tw_verdict_name(ch->verdict));
                cJSON_AddStringToObject(jc, "expected", expect_name(ch->expected));
                cJSON_AddBoolToObject(jc, "match", ch->match);
                cJSON_AddNumberToObject(jc, "offset", (double)ch->offset);
                cJSON_AddStringToObject(jc, "evidence", ch->evidence ? ch->evidence : "");
                cJSON_AddItemToArray(jcs, jc);
            }
            cJSON_AddItemToArray(exs, je);
        }
        cJSON_AddItemToArray(fxs, jf);
    }
    tw_status st = tw_json_write(out, root, TW_JSON_PRETTY);
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
    tw_json_error e;
    if (tw_json_parse(buf, len, 64, &root, &e) != TW_OK) {
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
                expect_from_name(tw_json_get_str(jc, "expected"), &xp);
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
    char *buf = tw_read_file(path, (size_t)256 << 20, &len, inner, sizeof inner);
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

/* ================================================================ Markdown */

/* Table-cell-safe text: pipes escaped, newlines as spaces, capped. */
static void md_cell(tw_buf *b, const char *s0, size_t cap)
{
    /* scrubbed first, cut after (never inside a [REDACTED] marker) */
    tw_buf clean = {0};
    if (s0 && tw_secret_scrub(s0, strlen(s0), &clean, NULL) != TW_OK) {
        tw_buf_free(&clean);
        tw_buf_puts(b, TW_REDACTED);
        return;
    }
    if (clean.data)
        clean.data[clean.len] = '\0'; /* the scrubber may only reserve room for it */
    const char *s = s0 ? (clean.data ? clean.data : "") : NULL;
    if (s && clean.len > cap)
        cap = tw_redacted_cut(s, cap);
    size_t n = 0;
    for (; s && *s && n < cap; s++, n++) {
        if (*s == '|')
            tw_buf_puts(b, "\\|");
        else if (*s == '\n' || *s == '\r')
            tw_buf_putc(b, ' ');
        else if (*s == '<')
            tw_buf_puts(b, "&lt;");
        else if (*s == '>')
            tw_buf_puts(b, "&gt;");
        else if (*s == '`')
            tw_buf_putc(b, '\'');
        else
            tw_buf_putc(b, *s);
    }
    if (s && *s)
        tw_buf_puts(b, "…");
    tw_buf_free(&clean);
}

void tw_rep_md_cell(tw_buf *b, const char *s0, size_t cap)
{
    md_cell(b, s0, cap);
}

#define MD_MAX_ROWS 300
#define MD_MISMATCH_HEAD                                                                                  \
    "## Mismatches\n\n| fixture | exchange | response | check | expected | got | evidence |\n"                 \
    "|---|---:|---|---|---|---|---|\n"

tw_status tw_report_to_markdown(const tw_report *r, tw_buf *out)
{
    tw_buf_printf(out, "# toolwire conformance: %s\n\n", r->backend);
    tw_buf_printf(out, "%s **%s** — target `%s`, %s, toolwire %s\n\n",
                  r->ok ? "✅" : "❌",
                  r->ok ? "every verdict matches the fixtures' expectations"
                        : "some verdicts differ from the fixtures' expectations",
                  r->target, r->generated, r->toolwire);
    tw_buf_puts(out, "| fixtures | skipped | exchanges | pass | fail | skip | mismatches |\n"
                     "|---:|---:|---:|---:|---:|---:|---:|\n");
    tw_buf_printf(out, "| %zu | %zu | %zu | %zu | %zu | %zu | %zu |\n\n", r->n_fixtures, r->n_skipped,
                  r->n_exchanges, r->n_pass, r->n_fail, r->n_skip, r->n_mismatch);
    /* mismatches */
    size_t rows = 0;
    for (size_t i = 0; i < r->nfx; i++) {
        const tw_rep_fixture *f = &r->fx[i];
        if (f->skipped)
            continue;
        if (f->nex == 0 && f->note) {
            if (!rows++)
                tw_buf_puts(out, MD_MISMATCH_HEAD);
            tw_buf_puts(out, "| ");
            md_cell(out, f->name, 120);
            tw_buf_puts(out, " | | | | | | ");
            md_cell(out, f->note, 200);
            tw_buf_puts(out, " |\n");
        }
        for (size_t k = 0; k < f->nex; k++) {
            const tw_rep_exchange *e = &f->ex[k];
            char oc[200];
            tw_rep_exchange_outcome(e, oc, sizeof oc);
            if (e->result == TW_V_FAIL && rows < MD_MAX_ROWS) {
                if (!rows++)
                    tw_buf_puts(out, MD_MISMATCH_HEAD);
                tw_buf_puts(out, "| ");
                md_cell(out, f->name, 120);
                tw_buf_printf(out, " | %zu | ", e->index);
                md_cell(out, oc, 160);
                tw_buf_puts(out, " | result | expected result | differs | ");
                md_cell(out, e->result_detail, 200);
                tw_buf_puts(out, " |\n");
            }
            for (size_t c = 0; c < e->nchecks; c++) {
                const tw_rep_check *ch = &e->checks[c];
                if (ch->match)
                    continue;
                if (rows++ >= MD_MAX_ROWS)
                    continue;
                if (rows == 1)
                    tw_buf_puts(out, MD_MISMATCH_HEAD);
                tw_buf_puts(out, "| ");
                md_cell(out, f->name, 120);
                tw_buf_printf(out, " | %zu | ", e->index);
                md_cell(out, oc, 160);
                tw_buf_printf(out, " | %s | %s | %s | ", ch->id, expect_name(ch->expected),
                              tw_verdict_name(ch->verdict));
                md_cell(out, ch->evidence, 200);
                tw_buf_puts(out, " |\n");
            }
        }
    }
    if (rows > MD_MAX_ROWS)
        tw_buf_printf(out, "\n… and %zu more (see the JSON report)\n", rows - MD_MAX_ROWS);
    if (rows)
        tw_buf_putc(out, '\n');
    /* what came back */
    tw_outcome_tally t;
    tw_rep_tally_outcomes(r, &t);
    if (t.n) {
        tw_buf_puts(out, "## Responses\n\n| response | exchanges |\n|---|---:|\n");
        for (size_t j = 0; j < t.n; j++) {
            tw_buf_puts(out, "| ");
            md_cell(out, t.what[j], 200);
            tw_buf_printf(out, " | %zu |\n", t.count[j]);
        }
        tw_buf_putc(out, '\n');
    }
    /* per check */
    size_t nc;
    const tw_check_def *defs = tw_checks_catalog(&nc);
    tw_buf_puts(out, "## Checks\n\n| check | severity | pass | fail | skip | rule |\n|---|---|---:|---:|---:|---|\n");
    for (size_t d = 0; d < nc; d++) {
        size_t p = 0, fl = 0, sk = 0;
        for (size_t i = 0; i < r->nfx; i++)
            for (size_t k = 0; k < r->fx[i].nex; k++)
                for (size_t c = 0; c < r->fx[i].ex[k].nchecks; c++) {
                    const tw_rep_check *ch = &r->fx[i].ex[k].checks[c];
                    if (strcmp(ch->id, defs[d].id) != 0)
                        continue;
                    if (ch->verdict == TW_V_PASS)
                        p++;
                    else if (ch->verdict == TW_V_FAIL)
                        fl++;
                    else
                        sk++;
                }
        tw_buf_printf(out, "| %s | %s | %zu | %zu | %zu | ", defs[d].id, tw_severity_name(defs[d].sev), p,
                      fl, sk);
        md_cell(out, defs[d].rule, 160);
        tw_buf_puts(out, " |\n");
    }
    /* failures the fixtures expect, for the record */
    size_t ef = 0;
    for (size_t i = 0; i < r->nfx; i++)
        for (size_t k = 0; k < r->fx[i].nex; k++)
            for (size_t c = 0; c < r->fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &r->fx[i].ex[k].checks[c];
                if (ch->verdict != TW_V_FAIL || !ch->match)
                    continue;
                if (ef++ >= MD_MAX_ROWS)
                    continue;
                if (ef == 1)
                    tw_buf_puts(out, "\n## Failing checks (as the fixtures expect, or advisory)\n\n| fixture | exchange | check | evidence |\n|---|---:|---|---|\n");
                tw_buf_puts(out, "| ");
                md_cell(out, r->fx[i].name, 120);
                tw_buf_printf(out, " | %zu | %s | ", r->fx[i].ex[k].index, ch->id);
                md_cell(out, ch->evidence, 200);
                tw_buf_puts(out, " |\n");
            }
    if (r->n_skipped) {
        tw_buf_puts(out, "\n## Fixtures not run on this backend\n\n");
        size_t shown = 0;
        for (size_t i = 0; i < r->nfx && shown < MD_MAX_ROWS; i++)
            if (r->fx[i].skipped) {
                tw_buf_puts(out, "- ");
                md_cell(out, r->fx[i].name, 120);
                tw_buf_puts(out, ": ");
                md_cell(out, r->fx[i].note ? r->fx[i].note : "", 200);
                tw_buf_putc(out, '\n');
                shown++;
            }
    }
    return TW_OK;
}

/* ================================================================ JUnit */

static void xml_text(tw_buf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '<': tw_buf_puts(b, "&lt;"); break;
        case '>': tw_buf_puts(b, "&gt;"); break;
        case '&': tw_buf_puts(b, "&amp;"); break;
        case '"': tw_buf_puts(b, "&quot;"); break;
        case '\'': tw_buf_puts(b, "&apos;"); break;
        default:
            if (c < 0x20 && c != '\n' && c != '\t')
                tw_buf_putc(b, '?'); /* not allowed in XML 1.0 */
            else
                tw_buf_putc(b, (char)c);
        }
    }
}

void tw_xml_text(tw_buf *b, const char *s)
{
    xml_text(b, s);
}

tw_status tw_report_to_junit(const tw_report *r, tw_buf *out)
{
    size_t tests = 0, failures = 0, skipped = 0;
    for (size_t i = 0; i < r->nfx; i++) {
        if (r->fx[i].skipped) {
            tests++, skipped++;
            continue;
        }
        if (r->fx[i].nex == 0)
            tests++, failures++;
        for (size_t k = 0; k < r->fx[i].nex; k++) {
            tests++;
            if (!r->fx[i].ex[k].match)
                failures++;
        }
    }
    tw_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"toolwire\">\n");
    tw_buf_puts(out, "  <testsuite name=\"toolwire.");
    xml_text(out, r->backend);
    tw_buf_printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" timestamp=\"", tests,
                  failures, skipped);
    xml_text(out, r->generated);
    tw_buf_puts(out, "\">\n");
    for (size_t i = 0; i < r->nfx; i++) {
        const tw_rep_fixture *f = &r->fx[i];
        if (f->skipped || f->nex == 0) {
            tw_buf_puts(out, "    <testcase classname=\"");
            xml_text(out, r->backend);
            tw_buf_puts(out, "\" name=\"");
            xml_text(out, f->name);
            tw_buf_puts(out, f->skipped ? "\">\n      <skipped message=\"" : "\">\n      <failure message=\"");
            xml_text(out, f->note ? f->note : "");
            tw_buf_puts(out, f->skipped ? "\"/>\n    </testcase>\n" : "\"/>\n    </testcase>\n");
            continue;
        }
        for (size_t k = 0; k < f->nex; k++) {
            const tw_rep_exchange *e = &f->ex[k];
            tw_buf_puts(out, "    <testcase classname=\"");
            xml_text(out, r->backend);
            tw_buf_puts(out, "\" name=\"");
            xml_text(out, f->name);
            tw_buf_printf(out, "#%zu\" time=\"%.3f\">\n", e->index, (double)e->elapsed_ms / 1000.0);
            char oc[200];
            tw_rep_exchange_outcome(e, oc, sizeof oc);
            if (!e->match) {
                tw_buf_puts(out, "      <failure message=\"");
                xml_text(out, oc);
                tw_buf_puts(out, ": verdicts differ from the fixture's expectations\">");
            }
            if (e->match) {
                tw_buf_puts(out, "      <system-out>");
                xml_text(out, e->method);
                tw_buf_putc(out, ' ');
                xml_text(out, e->path);
                tw_buf_puts(out, ": ");
                xml_text(out, oc);
                tw_buf_puts(out, "</system-out>\n    </testcase>\n");
                continue;
            }
            tw_buf_puts(out, "response: ");
            xml_text(out, oc);
            tw_buf_putc(out, '\n');
            if (e->result == TW_V_FAIL) {
                tw_buf_puts(out, "result: ");
                xml_text(out, e->result_detail);
                tw_buf_putc(out, '\n');
            }
            for (size_t c = 0; c < e->nchecks; c++) {
                const tw_rep_check *ch = &e->checks[c];
                if (ch->match)
                    continue;
                tw_buf_printf(out, "%s: expected %s, got %s: ", ch->id, expect_name(ch->expected),
                              tw_verdict_name(ch->verdict));
                xml_text(out, ch->evidence);
                tw_buf_putc(out, '\n');
            }
            tw_buf_puts(out, "</failure>\n    </testcase>\n");
        }
    }
    tw_buf_puts(out, "  </testsuite>\n</testsuites>\n");
    return TW_OK;
}

/* ================================================================ files */

bool tw_mkdirs(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    size_t n = strlen(p);
    if (n == 0)
        return false;
    for (size_t i = 1; i <= n; i++) {
        if (p[i] == '/' || p[i] == 0) {
            char c = p[i];
            p[i] = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST)
                return false;
            p[i] = c;
        }
    }
    struct stat sb;
    return stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
}

tw_status tw_write_atomic(const char *path, const char *data, size_t len, char *why, size_t whylen)
{
    return tw_out_write_file(path, data, len, why, whylen);
}

void tw_safe_name(char *dst, size_t n, const char *src)
{
    size_t o = 0;
    for (; src && *src && o + 1 < n; src++) {
        char c = *src;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                  c == '_' || c == '.';
        dst[o++] = ok ? c : '_';
    }
    if (o == 0 && n > 1)
        dst[o++] = '_';
    if (n)
        dst[o] = 0;
    if (dst[0] == '.')
        dst[0] = '_';
}

tw_status tw_report_write_all(const tw_report *r, const char *dir, char *why, size_t whylen)
{
    if (!tw_mkdirs(dir)) {
        snprintf(why, whylen, "cannot create directory %s", dir);
        return TW_ERR_IO;
    }
    char base[200];
    tw_safe_name(base, sizeof base, r->backend);
    static const char *const ext[] = {"json", "md", "junit.xml", "html"};
    tw_status (*const fn[])(const tw_report *, tw_buf *) = {tw_report_to_json, tw_report_to_markdown,
                                                            tw_report_to_junit, tw_report_to_html};
    for (size_t i = 0; i < 4; i++) {
        tw_buf b = {0};
        tw_status st = fn[i](r, &b);
        char path[4400];
        snprintf(path, sizeof path, "%s/%s.%s", dir, base, ext[i]);
        if (st == TW_OK)
            st = tw_write_atomic(path, b.data ? b.data : "", b.len, why, whylen);
        else
            snprintf(why, whylen, "cannot render %s", path);
        tw_buf_free(&b);
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}
