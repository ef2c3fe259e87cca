/* Comparing reports (report.h): the summary per report and, check by check,
 * every verdict that differs, as Markdown. The HTML page is report_html.c's;
 * both take their rows from tw_cmp_row_of. */
#include "report.h"
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

bool tw_cmp_row_of(const tw_rep_index *ix, size_t n, const char *fx, size_t ex, const char *id,
                   tw_cmp_row *row)
{
    if (n > TW_CMP_MAX_REPORTS)
        n = TW_CMP_MAX_REPORTS;
    const tw_check_def *d = tw_check_find(id);
    row->sev = d ? d->sev : TW_SEV_ERROR;
    row->first = n;
    size_t present = 0;
    bool differ = false, any_fail = false;
    tw_verdict first = TW_V_SKIP;
    for (size_t a = 0; a < n; a++) {
        row->ch[a] = tw_rep_find_check(&ix[a], fx, ex, id, &row->run[a]);
        if (!row->run[a])
            continue;
        tw_verdict v = row->ch[a] ? row->ch[a]->verdict : TW_V_SKIP;
        present++;
        any_fail = any_fail || v == TW_V_FAIL;
        if (row->first == n) {
            row->first = a;
            first = v;
        } else if (v != first) {
            differ = true;
        }
    }
    return present >= 2 && differ && any_fail;
}

const char *tw_cmp_label(const tw_report *r, const tw_cmp_opts *o, size_t a)
{
    if (o && o->labels && o->labels[a] && *o->labels[a])
        return o->labels[a];
    return r[a].backend ? r[a].backend : "";
}

bool tw_cmp_label_hides_backend(const tw_report *r, const tw_cmp_opts *o, size_t a)
{
    const char *label = tw_cmp_label(r, o, a);
    return r[a].backend && strncmp(label, r[a].backend, strlen(r[a].backend)) != 0;
}

typedef struct cmp_ctx {
    const tw_rep_index *ix;
    size_t n;
    bool all;
    tw_rw *out;
    size_t rows;
    size_t folded;
    bool *folded_id; /* by catalog index: the info-level checks folded */
} cmp_ctx;

static void cmp_row(void *u, const char *fx, size_t ex, const char *id)
{
    cmp_ctx *c = u;
    tw_cmp_row row;
    if (!tw_cmp_row_of(c->ix, c->n, fx, ex, id, &row))
        return;
    if (row.sev == TW_SEV_INFO && !c->all) {
        c->folded++;
        int d = tw_check_index(id);
        if (d >= 0)
            c->folded_id[d] = true;
        return;
    }
    if (c->rows++ >= TW_CMP_MAX_ROWS)
        return;
    tw_rw_puts(c->out, "| ");
    tw_rep_md_cell(c->out, fx, 120);
    tw_rw_printf(c->out, " | %zu | %s | %s |", ex, id, tw_severity_name(row.sev));
    for (size_t a = 0; a < c->n && a < TW_CMP_MAX_REPORTS; a++)
        tw_rw_printf(c->out, " %s |",
                     row.ch[a]    ? tw_verdict_name(row.ch[a]->verdict)
                     : row.run[a] ? "skip"
                                  : "—");
    tw_rw_putc(c->out, '\n');
}

static void cmp_summary(const tw_report *r, size_t n, const tw_cmp_opts *o, const tw_rep_words *w,
                        tw_rw *out)
{
    tw_rw_printf(out,
                 "| %s | target | fixtures run | pass | fail | skip | mismatches |\n"
                 "|---|---|---:|---:|---:|---:|---:|\n",
                 w->one);
    for (size_t a = 0; a < n; a++) {
        tw_rw_puts(out, "| ");
        tw_rep_md_cell(out, tw_cmp_label(r, o, a), 80);
        if (tw_cmp_label_hides_backend(r, o, a)) {
            tw_rw_puts(out, " (");
            tw_rep_md_cell(out, r[a].backend, 80);
            tw_rw_putc(out, ')');
        }
        tw_rw_puts(out, " | `");
        tw_rep_md_cell(out, r[a].target, 120);
        tw_rw_printf(out, "` | %zu | %zu | %zu | %zu | %zu |\n", r[a].n_fixtures - r[a].n_skipped,
                     r[a].n_pass, r[a].n_fail, r[a].n_skip, r[a].n_mismatch);
    }
}

tw_status tw_compare_markdown_with(const tw_report *r, size_t n, const tw_cmp_opts *o, tw_buf *buf)
{
    size_t nc;
    const tw_check_def *defs = tw_checks_catalog(&nc);
    bool *folded_id = calloc(nc ? nc : 1, sizeof *folded_id);
    tw_rep_index *ix = folded_id ? tw_rep_index_all(r, n) : NULL;
    if (!ix) {
        free(folded_id);
        return TW_ERR_NOMEM;
    }
    tw_rep_words w;
    tw_rep_words_of(r, n, &w);
    tw_rw wr = {.b = buf, .st = TW_OK}, *out = &wr;
    tw_rw_printf(out, "# toolwire: %s compared\n\n", w.many);
    cmp_summary(r, n, o, &w, out);
    tw_rw_printf(
        out,
        "\n## Where the %s differ\n\nOnly fixtures that at least two %s ran, and checks that fail "
        "on "
        "one of them; `—` means the %s did not run the fixture.\n\n| fixture | exchange | check | "
        "severity |",
        w.many, w.many, w.one);
    for (size_t a = 0; a < n && a < TW_CMP_MAX_REPORTS; a++) {
        tw_rw_putc(out, ' ');
        tw_rep_md_cell(out, tw_cmp_label(r, o, a), 60);
        tw_rw_puts(out, " |");
    }
    tw_rw_puts(out, "\n|---|---:|---|---|");
    for (size_t a = 0; a < n && a < TW_CMP_MAX_REPORTS; a++)
        tw_rw_puts(out, "---|");
    tw_rw_putc(out, '\n');
    cmp_ctx c = {ix, n, o && o->all, out, 0, 0, folded_id};
    if (n >= 2) /* a row needs two reports that ran its fixture */
        tw_rep_each_key(r, ix, n, cmp_row, &c);
    if (c.rows == 0)
        tw_rw_printf(
            out,
            "\nNo differences%s: every %scheck gives the same verdict on every %s that ran it.\n",
            c.folded ? " but in advisory checks" : "", c.folded ? "other " : "", w.one);
    else if (c.rows > TW_CMP_MAX_ROWS)
        tw_rw_printf(out, "\n… %zu rows in all; the first %d are shown.\n", c.rows,
                     TW_CMP_MAX_ROWS);
    if (c.folded) {
        tw_rw_printf(out, "\n%zu info-level (advisory) row(s) folded:", c.folded);
        for (size_t d = 0; d < nc; d++)
            if (folded_id[d])
                tw_rw_printf(out, " %s", defs[d].id);
        tw_rw_puts(out, "; `--all` lists them.\n");
    }
    tw_rep_index_all_free(ix, n);
    free(folded_id);
    return wr.st;
}

tw_status tw_compare_markdown(const tw_report *r, size_t n, tw_buf *buf)
{
    return tw_compare_markdown_with(r, n, NULL, buf);
}
