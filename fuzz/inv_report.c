/*
 * The report target: the input read as a report JSON (tw_report_parse), as
 * gate, compare and merge read one a CI hands over, then the report held
 * against itself, against its own JSON read back, against a copy with one
 * check flipped from pass to fail and against a copy with one fixture
 * removed (harness/report/report.h).
 *
 * Input: the report JSON, all of it. Which check is flipped and which
 * fixture removed is picked by a hash of the input's bytes.
 *
 * Invariants (docs/fuzzing.md):
 *  - parsing never crashes; a refusal has a safe, non-empty message; a
 *    report that loads is at most as large as its input allows (every
 *    fixture, exchange and check is an object of the input) and its summary
 *    counts what it holds;
 *  - tw_gate(r, r): no regression, nothing missing, no improvement;
 *  - r written back as JSON (tw_report_to_json) loads, and gates against r
 *    with no regression, nothing missing and no improvement, and r against
 *    it likewise (the round trip keeps every verdict);
 *  - the Markdown, JUnit and HTML renderers and tw_compare_markdown of
 *    (r, r) end with TW_OK or TW_ERR_LIMIT (a cap of 1 MiB), and the
 *    comparison lists no difference;
 *  - a check that passed and that the gate reads (the first of its id in the
 *    first exchange of its index, of the first fixture of its name, not
 *    skipped), of error or warn severity, flipped to fail: the gate counts
 *    at least one regression and a regression row names that fixture and
 *    check, and the gate fails;
 *  - a fixture the gate reads whose name no other fixture has, removed: the
 *    gate counts it missing with a row naming it and fails; with
 *    allow_missing it passes (no regression comes of a removal).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "invariants.h"
#include "report.h"
#include "report_int.h"

#define TW_FZ_REPORT_TEXT_MAX ((size_t)1 << 20)

static void check_gate_same(const tw_report *a, const tw_report *b, const char *what)
{
    tw_gate_result g;
    tw_status st = tw_gate(a, b, TW_FZ_REPORT_TEXT_MAX, &g);
    TW_FZ_CHECK(st == TW_OK || st == TW_ERR_LIMIT, "report: gate %s: status %s", what,
                tw_code_name(st));
    TW_FZ_CHECK(g.regressions == 0 && g.missing == 0 && g.missing_fixtures == 0 &&
                    g.improvements == 0 && !g.failed,
                "report: gate %s: %zu regression(s), %zu missing in %zu fixture(s), %zu "
                "improvement(s): %.400s",
                what, g.regressions, g.missing, g.missing_fixtures, g.improvements,
                g.text.data ? g.text.data : "");
    tw_gate_result_free(&g);
}

static void check_render(tw_status (*fn)(const tw_report *, tw_buf *), const tw_report *r,
                         const char *what)
{
    tw_buf b = {0};
    b.max = TW_FZ_REPORT_TEXT_MAX;
    tw_status st = fn(r, &b);
    TW_FZ_CHECK(st == TW_OK || st == TW_ERR_LIMIT, "report: %s: status %s", what, tw_code_name(st));
    tw_buf_free(&b);
}

/* Does the gate read fixture i of r (not skipped, the first of its name)? */
static bool gate_reads(const tw_report *r, const tw_rep_index *ix, size_t i)
{
    const tw_rep_fixture *f = &r->fx[i];
    if (f->skipped || !f->name)
        return false;
    if (tw_rep_find_fixture(ix, f->name) != f)
        return false;
    return !f->nex || tw_rep_find_exchange(ix, f->name, f->ex[0].index) == &f->ex[0];
}

static bool name_unique(const tw_report *r, size_t i)
{
    for (size_t k = 0; k < r->nfx; k++)
        if (k != i && r->fx[k].name && strcmp(r->fx[k].name, r->fx[i].name) == 0)
            return false;
    return true;
}

static bool has_row(const tw_gate_result *g, tw_gate_kind k, const char *fx, const char *id)
{
    for (size_t i = 0; i < g->nrows; i++)
        if (g->rows[i].kind == k && strcmp(g->rows[i].fixture, fx) == 0 &&
            (!id || strcmp(g->rows[i].check, id) == 0))
            return true;
    return false;
}

/* One check of r2 (a second load of the same input) flipped from pass to
 * fail, picked by pick among those the gate reads. */
static void check_flip(const tw_report *r, tw_report *r2, uint32_t pick)
{
    tw_rep_index ix;
    if (tw_rep_index_build(&ix, r2) != TW_OK)
        return;
    size_t n = 0;
    tw_rep_check *c = NULL;
    const char *fx = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t k = 0;
        for (size_t i = 0; i < r2->nfx; i++) {
            if (!gate_reads(r2, &ix, i))
                continue;
            tw_rep_fixture *f = &r2->fx[i];
            for (size_t e = 0; e < f->nex; e++) {
                if (tw_rep_find_exchange(&ix, f->name, f->ex[e].index) != &f->ex[e])
                    continue;
                for (size_t j = 0; j < f->ex[e].nchecks; j++) {
                    tw_rep_check *h = &f->ex[e].checks[j];
                    bool run;
                    const tw_check_def *d = tw_check_find(h->id);
                    if (h->verdict != TW_V_PASS || (d && d->sev == TW_SEV_INFO) ||
                        tw_rep_find_check(&ix, f->name, f->ex[e].index, h->id, &run) != h)
                        continue;
                    if (pass == 0)
                        n++;
                    else if (k++ == pick % n) {
                        c = h;
                        fx = f->name;
                    }
                }
            }
        }
        if (n == 0)
            break;
    }
    tw_rep_index_free(&ix);
    if (!c)
        return;
    c->verdict = TW_V_FAIL;
    tw_gate_result g;
    tw_status st = tw_gate(r, r2, TW_FZ_REPORT_TEXT_MAX, &g);
    TW_FZ_CHECK(st == TW_OK || st == TW_ERR_LIMIT, "report: gate of a flipped check: status %s",
                tw_code_name(st));
    TW_FZ_CHECK(g.regressions >= 1 && g.failed && has_row(&g, TW_GATE_REGRESSION, fx, c->id),
                "report: check %s of fixture %.200s flipped from pass to fail: %zu regression(s), "
                "failed %d, "
                "no regression row names it",
                c->id, fx, g.regressions, (int)g.failed);
    tw_gate_result_free(&g);
    c->verdict = TW_V_PASS;
}

/* One fixture of r2 taken out (moved past the end, then put back). */
static void check_remove(const tw_report *r, tw_report *r2, uint32_t pick)
{
    tw_rep_index ix;
    if (tw_rep_index_build(&ix, r2) != TW_OK)
        return;
    size_t n = 0, at = SIZE_MAX;
    for (size_t i = 0; i < r2->nfx; i++)
        n += gate_reads(r2, &ix, i) && name_unique(r2, i);
    for (size_t i = 0, k = 0; n && i < r2->nfx; i++)
        if (gate_reads(r2, &ix, i) && name_unique(r2, i) && k++ == pick % n)
            at = i;
    tw_rep_index_free(&ix);
    if (at == SIZE_MAX)
        return;
    tw_rep_fixture f = r2->fx[at];
    memmove(&r2->fx[at], &r2->fx[at + 1], (r2->nfx - at - 1) * sizeof f);
    r2->nfx--;
    for (int allow = 0; allow < 2; allow++) {
        tw_gate_opts o = {.max_text = TW_FZ_REPORT_TEXT_MAX, .allow_missing = allow};
        tw_gate_result g;
        tw_status st = tw_gate_with(r, r2, &o, &g);
        TW_FZ_CHECK(st == TW_OK || st == TW_ERR_LIMIT,
                    "report: gate of a removed fixture: status %s", tw_code_name(st));
        TW_FZ_CHECK(g.missing_fixtures >= 1 && has_row(&g, TW_GATE_MISSING, f.name, NULL) &&
                        g.regressions == 0 && g.failed == !allow,
                    "report: fixture %.200s removed (allow_missing %d): %zu missing fixture(s), "
                    "%zu regression(s), "
                    "failed %d",
                    f.name, allow, g.missing_fixtures, g.regressions, (int)g.failed);
        tw_gate_result_free(&g);
    }
    r2->nfx++;
    memmove(&r2->fx[at + 1], &r2->fx[at], (r2->nfx - at - 1) * sizeof f);
    r2->fx[at] = f;
}

/* The summary counts what the report holds. */
static void check_summary(const tw_report *r, size_t size)
{
    size_t ex = 0, chk = 0, skipped = 0;
    for (size_t i = 0; i < r->nfx; i++) {
        skipped += r->fx[i].skipped;
        ex += r->fx[i].nex;
        for (size_t e = 0; e < r->fx[i].nex; e++)
            chk += r->fx[i].ex[e].nchecks;
    }
    /* every fixture and exchange is an object of the input ("{}", 2 bytes
     * and a comma), every check one too, but for the RES-01 a load adds */
    TW_FZ_CHECK(3 * r->nfx <= size + 3 && 3 * ex <= size + 3 && chk <= ex + size / 3 + 1,
                "report: %zu fixture(s), %zu exchange(s), %zu check(s) from %zu bytes", r->nfx, ex,
                chk, size);
    TW_FZ_CHECK(r->n_fixtures == r->nfx && r->n_skipped == skipped,
                "report: summary says %zu fixture(s) (%zu skipped), the report holds %zu (%zu)",
                r->n_fixtures, r->n_skipped, r->nfx, skipped);
}

int tw_fz_report(const uint8_t *data, size_t size)
{
    char *in = tw_fz_copy(data, size);
    if (!in)
        return 0;
    tw_report r;
    tw_error err = {.offset = -1};
    tw_status st = tw_report_parse(in, size, &r, &err);
    if (st != TW_OK) {
        TW_FZ_CHECK(err.message[0] != '\0', "report: refused (%s) without a message",
                    tw_code_name(st));
        tw_fz_check_text(err.message, "report: the refusal's message");
        TW_FZ_CHECK(r.nfx == 0 && r.fx == NULL, "report: a refusal leaves fixtures behind");
        free(in);
        return 0;
    }
    check_summary(&r, size);
    check_gate_same(&r, &r, "(r, r)");

    /* the round trip */
    tw_buf js = {0};
    st = tw_report_to_json(&r, &js);
    TW_FZ_CHECK(st == TW_OK, "report: tw_report_to_json: status %s", tw_code_name(st));
    tw_report r3;
    tw_error e3 = {.offset = -1};
    st = tw_report_parse(js.data ? js.data : "", js.len, &r3, &e3);
    TW_FZ_CHECK(st == TW_OK, "report: its own JSON does not load (%s): %s\n%.2000s",
                tw_code_name(st), e3.message, js.data ? js.data : "");
    check_gate_same(&r, &r3, "(r, r written and read back)");
    check_gate_same(&r3, &r, "(r written and read back, r)");
    tw_report_free(&r3);
    tw_buf_free(&js);

    check_render(tw_report_to_markdown, &r, "tw_report_to_markdown");
    check_render(tw_report_to_junit, &r, "tw_report_to_junit");
    check_render(tw_report_to_html, &r, "tw_report_to_html");
    tw_report two[2] = {r, r};
    tw_buf cmp = {0};
    cmp.max = TW_FZ_REPORT_TEXT_MAX;
    st = tw_compare_markdown(two, 2, &cmp);
    TW_FZ_CHECK(st == TW_OK || st == TW_ERR_LIMIT, "report: tw_compare_markdown: status %s",
                tw_code_name(st));
    TW_FZ_CHECK(st != TW_OK || (cmp.data && strstr(cmp.data, "\nNo differences")),
                "report: the comparison of a report with itself lists a difference: %.2000s",
                cmp.data ? cmp.data : "");
    tw_buf_free(&cmp);

    /* the picks: a hash of the input */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    tw_report r2;
    if (tw_report_parse(in, size, &r2, &err) == TW_OK) {
        check_flip(&r, &r2, h);
        check_remove(&r, &r2, h >> 16);
        tw_report_free(&r2);
    }
    tw_report_free(&r);
    free(in);
    return 0;
}
