/* The regression gate (report.h): a report judged against a baseline, check
 * by check, fixture by fixture; its rows and their Markdown listing. The
 * gate's other forms (JSON, JUnit, workflow commands) are gate_out.c's. */
#include "report.h"
#include "report_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Evidence kept in a row, at most this many bytes. */
#define GATE_EVIDENCE_MAX 600
/* A missing row names at most this many exchanges and checks. */
#define GATE_MISSING_NAMED 12

const char *tw_gate_kind_name(tw_gate_kind k)
{
    switch (k) {
    case TW_GATE_REGRESSION: return "regression";
    case TW_GATE_MISSING: return "missing";
    case TW_GATE_IMPROVEMENT: return "improvement";
    case TW_GATE_KNOWN: return "known-failure";
    case TW_GATE_ADVISORY: return "advisory";
    }
    return "?";
}

typedef struct gate_ctx {
    const tw_rep_index *base, *cur;
    tw_gate_result *g;
    tw_status st;
} gate_ctx;

static tw_gate_row *add_row(gate_ctx *c, tw_gate_kind k, const tw_rep_fixture *f, size_t ex,
                            const char *id, const char *ev1, const char *ev2)
{
    tw_gate_result *g = c->g;
    if (c->st != TW_OK)
        return NULL;
    if (g->nrows == g->rows_cap) {
        size_t nc = g->rows_cap ? g->rows_cap * 2 : 16;
        tw_gate_row *nr = nc < SIZE_MAX / sizeof *nr ? realloc(g->rows, nc * sizeof *nr) : NULL;
        if (!nr) {
            c->st = TW_ERR_NOMEM;
            return NULL;
        }
        g->rows = nr;
        g->rows_cap = nc;
    }
    tw_gate_row *r = &g->rows[g->nrows];
    memset(r, 0, sizeof *r);
    r->kind = k;
    r->exchange = ex;
    snprintf(r->check, sizeof r->check, "%s", id ? id : "");
    const tw_check_def *d = id && *id ? tw_check_find(id) : NULL;
    r->sev = d ? d->sev : TW_SEV_ERROR;
    r->fixture = tw_strdup(f->name ? f->name : "");
    r->file = tw_strdup(f->file ? f->file : "");
    char ev[GATE_EVIDENCE_MAX];
    snprintf(ev, sizeof ev, "%s%s", ev1 ? ev1 : "", ev2 ? ev2 : "");
    r->evidence = tw_strdup(ev);
    if (!r->fixture || !r->file || !r->evidence) {
        free(r->fixture);
        free(r->file);
        free(r->evidence);
        c->st = TW_ERR_NOMEM;
        return NULL;
    }
    g->nrows++;
    return r;
}

/* One check the baseline and the report both hold. */
static void judge_check(gate_ctx *c, const tw_rep_fixture *f, const tw_rep_exchange *be,
                        const tw_rep_exchange *ce, const tw_rep_check *b, const tw_rep_check *n)
{
    const tw_check_def *d = tw_check_find(b->id);
    bool info = d && d->sev == TW_SEV_INFO;
    /* a check that passed and is a skip now because nothing came back to judge
     * (no response, a driver that failed) is a regression too */
    bool unjudged =
        b->verdict == TW_V_PASS && n->verdict == TW_V_SKIP && be->status != 0 && ce->status == 0;
    tw_gate_result *g = c->g;
    if (b->verdict == TW_V_PASS && (n->verdict == TW_V_FAIL || unjudged)) {
        const char *why = ce->error           ? ce->error
                          : ce->result_detail ? ce->result_detail
                                              : "no response";
        if (info)
            g->advisory++;
        else
            g->regressions++;
        add_row(c, info ? TW_GATE_ADVISORY : TW_GATE_REGRESSION, f, be->index, b->id,
                unjudged ? "not judged: " : "", unjudged ? why : n->evidence);
    } else if (b->verdict == TW_V_FAIL && n->verdict == TW_V_PASS) {
        if (info)
            g->advisory++;
        else
            g->improvements++;
        add_row(c, info ? TW_GATE_ADVISORY : TW_GATE_IMPROVEMENT, f, be->index, b->id,
                "failed in the baseline: ", b->evidence);
    } else if (b->verdict == TW_V_FAIL && n->verdict == TW_V_FAIL && !info) {
        g->known++;
        add_row(c, TW_GATE_KNOWN, f, be->index, b->id, "", n->evidence);
    }
}

/* Verdicts the baseline judged (pass or fail) in an exchange. */
static size_t judged(const tw_rep_exchange *e)
{
    size_t n = 0;
    for (size_t i = 0; i < e->nchecks; i++)
        n += e->checks[i].verdict != TW_V_SKIP;
    return n;
}

/* One fixture of the baseline: its checks against the report's, and one
 * row for what the report lacks of it. */
static void gate_fixture(gate_ctx *c, const tw_rep_fixture *f)
{
    tw_gate_result *g = c->g;
    const tw_rep_fixture *cf = tw_rep_find_fixture(c->cur, f->name);
    if (!cf) {
        size_t nv = 0;
        for (size_t k = 0; k < f->nex; k++)
            nv += judged(&f->ex[k]);
        g->missing_fixtures++;
        g->missing += nv;
        char ev[200];
        snprintf(ev, sizeof ev, "not run: %zu exchange(s), %zu verdict(s) the baseline judged",
                 f->nex, nv);
        add_row(c, TW_GATE_MISSING, f, SIZE_MAX, "", ev, NULL);
        return;
    }
    tw_buf what = {0};
    what.max = GATE_EVIDENCE_MAX - 100;
    size_t nex = 0, nchk = 0, named = 0, nv = 0;
    for (size_t k = 0; k < f->nex; k++) {
        const tw_rep_exchange *be = &f->ex[k];
        /* a second exchange of one index judges nothing, as a second fixture
         * of one name: the report's lookups name the first */
        if (tw_rep_find_exchange(c->base, f->name, be->index) != be)
            continue;
        const tw_rep_exchange *ce = tw_rep_find_exchange(c->cur, f->name, be->index);
        if (!ce) {
            nex++;
            nv += judged(be);
            if (named++ < GATE_MISSING_NAMED)
                tw_buf_printf(&what, "%sexchange #%zu", what.len ? ", " : "", be->index);
            continue;
        }
        for (size_t i = 0; i < be->nchecks; i++) {
            const tw_rep_check *b = &be->checks[i];
            bool run;
            /* nor does a second check of one id in an exchange (or a check the
             * baseline's lookups do not name: its fixture's name was taken by
             * a skipped fixture first) */
            if (tw_rep_find_check(c->base, f->name, be->index, b->id, &run) != b)
                continue;
            const tw_rep_check *n = tw_rep_find_check(c->cur, f->name, be->index, b->id, &run);
            if (n) {
                judge_check(c, f, be, ce, b, n);
                continue;
            }
            if (b->verdict == TW_V_SKIP)
                continue;
            nchk++;
            nv++;
            if (named++ < GATE_MISSING_NAMED)
                tw_buf_printf(&what, "%s%s #%zu", what.len ? ", " : "", b->id, be->index);
        }
    }
    if (nex || nchk) {
        g->missing_fixtures++;
        g->missing += nv;
        char ev[GATE_EVIDENCE_MAX];
        snprintf(ev, sizeof ev,
                 "%zu exchange(s) not run, %zu verdict(s) missing (%zu the baseline judged): "
                 "%s%s%s%.200s",
                 nex, nchk, nv, what.data ? what.data : "", named > GATE_MISSING_NAMED ? ", …" : "",
                 cf->note ? "; the report says: " : "", cf->note ? cf->note : "");
        add_row(c, TW_GATE_MISSING, f, SIZE_MAX, "", ev, NULL);
    }
    tw_buf_free(&what);
}

/* ---- the Markdown listing ---- */

static void list_rows(tw_rw *t, const tw_gate_result *g, tw_gate_kind k, bool evidence)
{
    for (size_t i = 0; i < g->nrows; i++) {
        const tw_gate_row *r = &g->rows[i];
        if (r->kind != k)
            continue;
        tw_rw_puts(t, "| ");
        tw_rep_md_cell(t, r->fixture, 120);
        if (k == TW_GATE_MISSING) {
            tw_rw_puts(t, " | ");
            tw_rep_md_cell(t, r->file, 160);
        } else {
            tw_rw_printf(t, " | %zu | %s | %s", r->exchange, r->check, tw_severity_name(r->sev));
        }
        if (evidence) {
            tw_rw_puts(t, " | ");
            tw_rep_md_cell(t, r->evidence, 200);
        }
        tw_rw_puts(t, " |\n");
    }
    tw_rw_putc(t, '\n');
}

static void gate_text(tw_rw *t, const tw_gate_result *g, const tw_report *baseline,
                      const tw_report *current, const tw_gate_opts *o)
{
    tw_rw_printf(t, "# toolwire gate: %s against baseline %s\n\n", current->backend,
                 baseline->backend);
    if (g->regressions) {
        tw_rw_printf(
            t,
            "❌ **%zu regression(s)**: checks that passed in the baseline fail now, or could not be "
            "judged now (nothing came back).\n\n"
            "| fixture | exchange | check | severity | evidence |\n|---|---:|---|---|---|\n",
            g->regressions);
        list_rows(t, g, TW_GATE_REGRESSION, true);
    }
    if (g->missing_fixtures) {
        if (o->allow_missing)
            tw_rw_printf(
                t,
                "%zu fixture(s) of the baseline not (wholly) judged in this report, %zu verdict(s) "
                "in all; accepted by `--allow-missing`:\n\n",
                g->missing_fixtures, g->missing);
        else
            tw_rw_printf(
                t,
                "❌ **%zu fixture(s) of the baseline missing** from this report (%zu verdict(s) the "
                "baseline judged): each is a regression; `--allow-missing` accepts them.\n\n",
                g->missing_fixtures, g->missing);
        tw_rw_puts(t, "| fixture | file | missing |\n|---|---|---|\n");
        list_rows(t, g, TW_GATE_MISSING, true);
    }
    if (!g->failed)
        tw_rw_puts(t, "✅ no regression: every check that passed in the baseline still passes.\n\n");
    if (g->improvements) {
        tw_rw_printf(t,
                     "%zu improvement(s): checks that failed in the baseline pass now.\n\n"
                     "| fixture | exchange | check | severity |\n|---|---:|---|---|\n",
                     g->improvements);
        list_rows(t, g, TW_GATE_IMPROVEMENT, false);
    }
    if (g->known) {
        tw_rw_printf(t,
                     "%zu known failure(s): checks that failed in the baseline and still fail (no "
                     "regression)%s\n\n",
                     g->known, o->all ? ":" : "; `--all` lists them.");
        if (o->all) {
            tw_rw_puts(
                t,
                "| fixture | exchange | check | severity | evidence |\n|---|---:|---|---|---|\n");
            list_rows(t, g, TW_GATE_KNOWN, true);
        }
    }
    if (g->advisory) {
        tw_rw_printf(t, "%zu info-level (advisory) change(s), which never fail the gate%s\n\n",
                     g->advisory, o->all ? ":" : "; `--all` lists them.");
        if (o->all) {
            tw_rw_puts(
                t,
                "| fixture | exchange | check | severity | evidence |\n|---|---:|---|---|---|\n");
            list_rows(t, g, TW_GATE_ADVISORY, true);
        }
    }
}

tw_status tw_gate_with(const tw_report *baseline, const tw_report *current,
                       const tw_gate_opts *opts, tw_gate_result *out)
{
    tw_gate_opts o = opts ? *opts : (tw_gate_opts){0};
    memset(out, 0, sizeof *out);
    out->text.max = o.max_text;
    tw_rep_index ix[2];
    tw_status st = tw_rep_index_build(&ix[0], baseline);
    if (st != TW_OK)
        return st;
    st = tw_rep_index_build(&ix[1], current);
    if (st != TW_OK) {
        tw_rep_index_free(&ix[0]);
        return st;
    }
    gate_ctx c = {&ix[0], &ix[1], out, TW_OK};
    for (size_t i = 0; i < baseline->nfx && c.st == TW_OK; i++) {
        const tw_rep_fixture *f = &baseline->fx[i];
        /* a fixture not run in the baseline, or a second of one name, judges nothing */
        if (f->skipped ||
            (f->nex && tw_rep_find_exchange(&ix[0], f->name, f->ex[0].index) != &f->ex[0]))
            continue;
        gate_fixture(&c, f);
    }
    tw_rep_index_free(&ix[0]);
    tw_rep_index_free(&ix[1]);
    out->failed = out->regressions || (out->missing_fixtures && !o.allow_missing);
    if (c.st != TW_OK)
        return c.st;
    tw_rw wr = {.b = &out->text, .st = TW_OK};
    gate_text(&wr, out, baseline, current, &o);
    /* the counts stand even when the text could not be written whole */
    return wr.st;
}

tw_status tw_gate(const tw_report *baseline, const tw_report *current, size_t max_text,
                  tw_gate_result *out)
{
    tw_gate_opts o = {.max_text = max_text};
    return tw_gate_with(baseline, current, &o, out);
}

void tw_gate_result_free(tw_gate_result *g)
{
    for (size_t i = 0; i < g->nrows; i++) {
        free(g->rows[i].fixture);
        free(g->rows[i].file);
        free(g->rows[i].evidence);
    }
    free(g->rows);
    tw_buf_free(&g->text);
    memset(g, 0, sizeof *g);
}
