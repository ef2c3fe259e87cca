/* Comparing reports (report.h): the summary per report and, check by check,
 * every verdict that differs, as Markdown. The HTML page is report_html.c's. */
#include "report.h"
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct cmp_ctx {
    const tw_report *r;
    const tw_rep_index *ix;
    size_t n;
    tw_rw *out;
    size_t rows;
} cmp_ctx;

static void cmp_row(void *u, const char *fx, size_t ex, const char *id)
{
    cmp_ctx *c = u;
    const char *v[TW_CMP_MAX_REPORTS];
    size_t n = c->n < TW_CMP_MAX_REPORTS ? c->n : TW_CMP_MAX_REPORTS;
    bool differ = false;
    size_t present = 0;
    for (size_t a = 0; a < n; a++) {
        bool run;
        const tw_rep_check *ch = tw_rep_find_check(&c->ix[a], fx, ex, id, &run);
        v[a] = ch ? tw_verdict_name(ch->verdict) : run ? "skip" : "—";
        if (ch || run)
            present++;
    }
    /* among the reports that ran the fixture (one that did not is no difference), a
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
    if (c->rows++ >= TW_CMP_MAX_ROWS)
        return;
    tw_rw_puts(c->out, "| ");
    tw_rep_md_cell(c->out, fx, 120);
    tw_rw_printf(c->out, " | %zu | %s |", ex, id);
    for (size_t a = 0; a < n; a++)
        tw_rw_printf(c->out, " %s |", v[a]);
    tw_rw_putc(c->out, '\n');
}

static void cmp_summary(const tw_report *r, size_t n, const tw_rep_words *w, tw_rw *out)
{
    tw_rw_printf(out, "| %s | target | fixtures run | pass | fail | skip | mismatches |\n"
                      "|---|---|---:|---:|---:|---:|---:|\n",
                 w->one);
    for (size_t a = 0; a < n; a++) {
        tw_rw_puts(out, "| ");
        tw_rep_md_cell(out, r[a].backend, 80);
        tw_rw_puts(out, " | `");
        tw_rep_md_cell(out, r[a].target, 120);
        tw_rw_printf(out, "` | %zu | %zu | %zu | %zu | %zu |\n", r[a].n_fixtures - r[a].n_skipped, r[a].n_pass,
                     r[a].n_fail, r[a].n_skip, r[a].n_mismatch);
    }
}

tw_status tw_compare_markdown(const tw_report *r, size_t n, tw_buf *buf)
{
    tw_rep_index *ix = tw_rep_index_all(r, n);
    if (!ix)
        return TW_ERR_NOMEM;
    tw_rep_words w;
    tw_rep_words_of(r, n, &w);
    tw_rw wr = {.b = buf, .st = TW_OK}, *out = &wr;
    tw_rw_printf(out, "# toolwire: %s compared\n\n", w.many);
    cmp_summary(r, n, &w, out);
    tw_rw_printf(out, "\n## Where the %s differ\n\nOnly fixtures that at least two %s ran, and checks that fail on "
                      "one of them; `—` means the %s did not run the fixture.\n\n| fixture | exchange | check |",
                 w.many, w.many, w.one);
    for (size_t a = 0; a < n && a < TW_CMP_MAX_REPORTS; a++) {
        tw_rw_putc(out, ' ');
        tw_rep_md_cell(out, r[a].backend, 60);
        tw_rw_puts(out, " |");
    }
    tw_rw_puts(out, "\n|---|---:|---|");
    for (size_t a = 0; a < n && a < TW_CMP_MAX_REPORTS; a++)
        tw_rw_puts(out, "---|");
    tw_rw_putc(out, '\n');
    cmp_ctx c = {r, ix, n, out, 0};
    if (n >= 2) /* a row needs two reports that ran its fixture */
        tw_rep_each_key(r, ix, n, cmp_row, &c);
    if (c.rows == 0)
        tw_rw_printf(out, "\nNo differences: every check gives the same verdict on every %s that ran it.\n", w.one);
    else if (c.rows > TW_CMP_MAX_ROWS)
        tw_rw_printf(out, "\n… %zu rows in all; the first %d are shown.\n", c.rows, TW_CMP_MAX_ROWS);
    tw_rep_index_all_free(ix, n);
    return wr.st;
}
