/* Comparing reports (report.h): the comparison table and the gate. */
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

/* ================================================================ compare */

static const tw_rep_check *find_check(const tw_report *r, const char *fx, size_t ex, const char *id,
                                      bool *fixture_run)
{
    *fixture_run = false;
    for (size_t i = 0; i < r->nfx; i++) {
        if (strcmp(r->fx[i].name, fx) != 0)
            continue;
        if (r->fx[i].skipped)
            return NULL;
        for (size_t k = 0; k < r->fx[i].nex; k++) {
            if (r->fx[i].ex[k].index != ex)
                continue;
            *fixture_run = true;
            for (size_t c = 0; c < r->fx[i].ex[k].nchecks; c++)
                if (strcmp(r->fx[i].ex[k].checks[c].id, id) == 0)
                    return &r->fx[i].ex[k].checks[c];
        }
    }
    return NULL;
}

const tw_rep_exchange *tw_rep_find_exchange(const tw_report *r, const char *fx, size_t ex)
{
    for (size_t i = 0; i < r->nfx; i++) {
        if (r->fx[i].skipped || strcmp(r->fx[i].name, fx) != 0)
            continue;
        for (size_t k = 0; k < r->fx[i].nex; k++)
            if (r->fx[i].ex[k].index == ex)
                return &r->fx[i].ex[k];
    }
    return NULL;
}

/* Every (fixture, exchange, check) key of any report, visited once. */
typedef void (*key_fn)(void *u, const char *fx, size_t ex, const char *id);

static void each_key(const tw_report *r, size_t n, key_fn fn, void *u)
{
    size_t nc;
    const tw_check_def *defs = tw_checks_catalog(&nc);
    for (size_t a = 0; a < n; a++)
        for (size_t i = 0; i < r[a].nfx; i++) {
            const tw_rep_fixture *f = &r[a].fx[i];
            if (f->skipped)
                continue;
            /* first report that ran this fixture owns the key */
            bool earlier = false;
            for (size_t b = 0; b < a && !earlier; b++)
                for (size_t j = 0; j < r[b].nfx; j++)
                    if (!r[b].fx[j].skipped && strcmp(r[b].fx[j].name, f->name) == 0)
                        earlier = true;
            if (earlier)
                continue;
            for (size_t k = 0; k < f->nex; k++)
                for (size_t d = 0; d < nc; d++)
                    fn(u, f->name, f->ex[k].index, defs[d].id);
        }
}

const tw_rep_check *tw_rep_find_check(const tw_report *r, const char *fx, size_t ex, const char *id,
                                      bool *fixture_run)
{
    return find_check(r, fx, ex, id, fixture_run);
}

void tw_rep_each_key(const tw_report *r, size_t n, tw_rep_key_fn fn, void *u)
{
    each_key(r, n, fn, u);
}

typedef struct cmp_ctx {
    const tw_report *r;
    size_t n;
    tw_buf *out;
    size_t rows;
} cmp_ctx;

static void cmp_row(void *u, const char *fx, size_t ex, const char *id)
{
    cmp_ctx *c = u;
    const char *v[64];
    size_t n = c->n < 64 ? c->n : 64;
    bool differ = false;
    size_t present = 0;
    for (size_t a = 0; a < n; a++) {
        bool run;
        const tw_rep_check *ch = find_check(&c->r[a], fx, ex, id, &run);
        v[a] = ch ? tw_verdict_name(ch->verdict) : run ? "skip" : "—";
        if (ch || run)
            present++;
    }
    /* among the backends that ran the fixture (one that did not is no difference), a
     * failure beside a pass or a skip (a check that applies to one backend only, pass
     * beside skip, is none) */
    const char *first = NULL;
    bool any_fail = false;
    for (size_t a = 0; a < n; a++) {
        if (strcmp(v[a], "—") == 0)
            continue;
        any_fail = any_fail || strcmp(v[a], "fail") == 0;
        if (!first)
            first = v[a];
        else if (strcmp(v[a], first) != 0)
            differ = true;
    }
    differ = differ && any_fail;
    if (!differ || present < 2)
        return;
    if (c->rows++ >= 2000)
        return;
    tw_buf_puts(c->out, "| ");
    tw_rep_md_cell(c->out, fx, 120);
    tw_buf_printf(c->out, " | %zu | %s |", ex, id);
    for (size_t a = 0; a < n; a++)
        tw_buf_printf(c->out, " %s |", v[a]);
    tw_buf_putc(c->out, '\n');
}

static void cmp_summary(const tw_report *r, size_t n, tw_buf *out)
{
    tw_buf_puts(out, "| backend | target | fixtures run | pass | fail | skip | mismatches |\n|---|---|---:|---:|---:|---:|---:|\n");
    for (size_t a = 0; a < n; a++) {
        tw_buf_puts(out, "| ");
        tw_rep_md_cell(out, r[a].backend, 80);
        tw_buf_puts(out, " | `");
        tw_rep_md_cell(out, r[a].target, 120);
        tw_buf_printf(out, "` | %zu | %zu | %zu | %zu | %zu |\n", r[a].n_fixtures - r[a].n_skipped, r[a].n_pass,
                      r[a].n_fail, r[a].n_skip, r[a].n_mismatch);
    }
}

tw_status tw_compare_markdown(const tw_report *r, size_t n, tw_buf *out)
{
    tw_buf_puts(out, "# toolwire: backends compared\n\n");
    cmp_summary(r, n, out);
    tw_buf_puts(out, "\n## Where the backends differ\n\nOnly fixtures that at least two backends ran, and checks that fail on one of them; `—` means "
                     "the backend did not run the fixture.\n\n| fixture | exchange | check |");
    for (size_t a = 0; a < n && a < 64; a++) {
        tw_buf_putc(out, ' ');
        tw_rep_md_cell(out, r[a].backend, 60);
        tw_buf_puts(out, " |");
    }
    tw_buf_puts(out, "\n|---|---:|---|");
    for (size_t a = 0; a < n && a < 64; a++)
        tw_buf_puts(out, "---|");
    tw_buf_putc(out, '\n');
    cmp_ctx c = {r, n, out, 0};
    each_key(r, n, cmp_row, &c);
    if (c.rows == 0)
        tw_buf_puts(out, "\nNo differences: every check gives the same verdict on every backend that ran it.\n");
    else if (c.rows > 2000)
        tw_buf_printf(out, "\n… %zu rows in all; the first 2000 are shown.\n", c.rows);
    return TW_OK;
}

/* ================================================================ gate */

typedef struct gate_ctx {
    const tw_report *base, *cur;
    tw_gate_result *g;
    tw_buf reg, imp, mis;
} gate_ctx;

static void gate_key(void *u, const char *fx, size_t ex, const char *id)
{
    gate_ctx *c = u;
    bool brun, crun;
    const tw_rep_check *b = find_check(c->base, fx, ex, id, &brun);
    if (!b)
        return;
    const tw_rep_check *n = find_check(c->cur, fx, ex, id, &crun);
    if (!n) {
        if (b->verdict == TW_V_PASS) {
            c->g->missing++;
            tw_buf_puts(&c->mis, "- ");
            tw_rep_md_cell(&c->mis, fx, 120);
            tw_buf_printf(&c->mis, " #%zu %s: passed in the baseline, not run now\n", ex, id);
        }
        return;
    }
    /* a check that passed and is a skip now because nothing came back to judge
     * (no response, a driver that failed) is a regression too */
    bool unjudged = false;
    if (b->verdict == TW_V_PASS && n->verdict == TW_V_SKIP) {
        const tw_rep_exchange *be = tw_rep_find_exchange(c->base, fx, ex);
        const tw_rep_exchange *ce = tw_rep_find_exchange(c->cur, fx, ex);
        unjudged = be && ce && be->status != 0 && ce->status == 0;
    }
    if (b->verdict == TW_V_PASS && (n->verdict == TW_V_FAIL || unjudged)) {
        c->g->regressions++;
        tw_buf_puts(&c->reg, "| ");
        tw_rep_md_cell(&c->reg, fx, 120);
        tw_buf_printf(&c->reg, " | %zu | %s | ", ex, id);
        if (unjudged) {
            const tw_rep_exchange *ce = tw_rep_find_exchange(c->cur, fx, ex);
            tw_buf_puts(&c->reg, "not judged: ");
            tw_rep_md_cell(&c->reg, ce->error ? ce->error : ce->result_detail ? ce->result_detail : "no response", 200);
        } else {
            tw_rep_md_cell(&c->reg, n->evidence, 200);
        }
        tw_buf_puts(&c->reg, " |\n");
    } else if (b->verdict == TW_V_FAIL && n->verdict == TW_V_PASS) {
        c->g->improvements++;
        tw_buf_puts(&c->imp, "| ");
        tw_rep_md_cell(&c->imp, fx, 120);
        tw_buf_printf(&c->imp, " | %zu | %s |\n", ex, id);
    }
}

tw_status tw_gate(const tw_report *baseline, const tw_report *current, tw_gate_result *out)
{
    memset(out, 0, sizeof *out);
    gate_ctx c;
    memset(&c, 0, sizeof c);
    c.base = baseline;
    c.cur = current;
    c.g = out;
    each_key(baseline, 1, gate_key, &c);
    tw_buf *t = &out->text;
    tw_buf_printf(t, "# toolwire gate: %s against baseline %s\n\n", current->backend, baseline->backend);
    if (out->regressions) {
        tw_buf_printf(t, "❌ **%zu regression(s)**: checks that passed in the baseline fail now, or could not be judged now (nothing came back).\n\n"
                         "| fixture | exchange | check | evidence |\n|---|---:|---|---|\n",
                      out->regressions);
        tw_buf_append(t, c.reg.data ? c.reg.data : "", c.reg.len);
        tw_buf_putc(t, '\n');
    } else {
        tw_buf_puts(t, "✅ no regression: every check that passed in the baseline still passes.\n\n");
    }
    if (out->improvements) {
        tw_buf_printf(t, "%zu improvement(s): checks that failed in the baseline pass now.\n\n"
                         "| fixture | exchange | check |\n|---|---:|---|\n",
                      out->improvements);
        tw_buf_append(t, c.imp.data ? c.imp.data : "", c.imp.len);
        tw_buf_putc(t, '\n');
    }
    if (out->missing) {
        tw_buf_printf(t, "%zu passing baseline verdict(s) have no counterpart in this report:\n\n", out->missing);
        tw_buf_append(t, c.mis.data ? c.mis.data : "", c.mis.len);
    }
    tw_buf_free(&c.reg);
    tw_buf_free(&c.imp);
    tw_buf_free(&c.mis);
    return TW_OK;
}

void tw_gate_result_free(tw_gate_result *g)
{
    tw_buf_free(&g->text);
    memset(g, 0, sizeof *g);
}
