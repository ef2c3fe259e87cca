/* The report's Markdown form (report.h), sized for a CI job summary. */
#include "report.h"
#include "report_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

/* Table-cell-safe text: pipes escaped, newlines as spaces, capped. */
void tw_rep_md_cell(tw_rw *b, const char *s0, size_t cap)
{
    if (b->st != TW_OK)
        return;
    /* scrubbed first, cut after (tw_excerpt_end: never inside a marker nor a secret-shaped token)
     */
    tw_buf clean = {0};
    tw_status st = s0 ? tw_secret_scrub(s0, strlen(s0), &clean, NULL) : TW_OK;
    if (st != TW_OK) {
        tw_buf_free(&clean);
        tw_rw_fail(b, st); /* nothing unscrubbed is written */
        return;
    }
    if (clean.data)
        clean.data[clean.len] = '\0'; /* the scrubber may only reserve room for it */
    const char *s = s0 ? (clean.data ? clean.data : "") : NULL;
    if (s && clean.len > cap)
        cap = tw_excerpt_end(s, clean.len, cap);
    size_t n = 0;
    for (; s && *s && n < cap; s++, n++) {
        if (*s == '|')
            tw_rw_puts(b, "\\|");
        else if (*s == '\n' || *s == '\r')
            tw_rw_putc(b, ' ');
        else if (*s == '<')
            tw_rw_puts(b, "&lt;");
        else if (*s == '>')
            tw_rw_puts(b, "&gt;");
        else if (*s == '`')
            tw_rw_putc(b, '\'');
        else
            tw_rw_putc(b, *s);
    }
    if (s && *s)
        tw_rw_puts(b, "…");
    tw_buf_free(&clean);
}

#define MD_MAX_ROWS 300
/* the mismatch table's head; what came back is a response, or a parser driver's outcome */
static void mismatch_head(tw_rw *out, const tw_rep_words *w)
{
    tw_rw_printf(out,
                 "## Mismatches\n\n| fixture | exchange | %s | check | expected | got | evidence "
                 "|\n|---|---:|---|---|---|---|---|\n",
                 w->http ? "response" : "outcome");
}

void tw_report_markdown_emit(const tw_report *r, tw_rw *out)
{
    tw_rep_words w;
    tw_rep_words_of(r, 1, &w);
    tw_rw_printf(out, "# toolwire conformance: %s\n\n", r->backend);
    tw_rw_printf(out, "%s **%s** — target `%s`, %s, toolwire %s\n\n", r->ok ? "✅" : "❌",
                 r->ok ? "every verdict matches the fixtures' expectations"
                       : "some verdicts differ from the fixtures' expectations",
                 r->target, r->generated, r->toolwire);
    tw_rw_puts(out, "| fixtures | skipped | exchanges | pass | fail | skip | mismatches |\n"
                    "|---:|---:|---:|---:|---:|---:|---:|\n");
    char mm[96];
    tw_rep_mismatch_text(r, mm, sizeof mm);
    tw_rw_printf(out, "| %zu | %zu | %zu | %zu | %zu | %zu | %s |\n\n", r->n_fixtures, r->n_skipped,
                 r->n_exchanges, r->n_pass, r->n_fail, r->n_skip, mm);
    if (r->n_declared)
        tw_rw_printf(out,
                     "Expected differences: %zu of the %zu failing checks, declared in the %s's "
                     "--expected file, each with its reason (listed below); not mismatches.\n\n",
                     r->n_declared, r->n_fail, w.one);
    if (r->n_knockon)
        tw_rw_puts(
            out,
            "A failure that only follows from an earlier one of its exchange (an error status, no "
            "response, no call) is listed under it as a consequence (↳), counted once.\n\n");
    char note[600];
    tw_report_directive_note(r, note, sizeof note);
    if (note[0]) {
        tw_rw_puts(out, "> **Note:** ");
        tw_rep_md_cell(out, note, sizeof note);
        tw_rw_puts(out, "\n\n");
    }
    /* mismatches */
    size_t rows = 0;
    for (size_t i = 0; i < r->nfx; i++) {
        const tw_rep_fixture *f = &r->fx[i];
        if (f->skipped)
            continue;
        if (f->nex == 0 && f->note) {
            if (!rows++)
                mismatch_head(out, &w);
            tw_rw_puts(out, "| ");
            tw_rep_md_cell(out, f->name, 120);
            tw_rw_puts(out, " | | | | | | ");
            tw_rep_md_cell(out, f->note, 200);
            tw_rw_puts(out, " |\n");
        }
        for (size_t k = 0; k < f->nex; k++) {
            const tw_rep_exchange *e = &f->ex[k];
            char oc[200];
            tw_rep_exchange_outcome(e, oc, sizeof oc);
            for (size_t c = 0; c < e->nchecks; c++) {
                const tw_rep_check *ch = &e->checks[c];
                if (ch->match || ch->follows[0])
                    continue; /* a knock-on is shown under its cause */
                if (rows++ >= MD_MAX_ROWS)
                    continue;
                if (rows == 1)
                    mismatch_head(out, &w);
                tw_rw_puts(out, "| ");
                tw_rep_md_cell(out, f->name, 120);
                tw_rw_printf(out, " | %zu | ", e->index);
                tw_rep_md_cell(out, oc, 160);
                tw_rw_printf(out, " | %s | %s | %s | ", ch->id, tw_expect_name(ch->expected),
                             tw_verdict_name(ch->verdict));
                tw_rep_md_cell(out, ch->evidence, 200);
                tw_rw_puts(out, " |\n");
                char ids[400], what[48];
                size_t nk = tw_rep_knockons_of(e, ch, ids, sizeof ids);
                if (nk) {
                    tw_rep_cause_what(e, ch, what, sizeof what);
                    tw_rw_puts(out, "| ");
                    tw_rep_md_cell(out, f->name, 120);
                    tw_rw_printf(out, " | %zu | ", e->index);
                    tw_rep_md_cell(out, oc, 160);
                    tw_rw_printf(
                        out, " | ↳ %s | | — | %zu consequence%s of %s (%s), not counted again |\n",
                        ids, nk, nk == 1 ? "" : "s", what, ch->id);
                }
            }
        }
    }
    if (rows > MD_MAX_ROWS)
        tw_rw_printf(out, "\n… and %zu more (see the JSON report)\n", rows - MD_MAX_ROWS);
    if (rows)
        tw_rw_putc(out, '\n');
    /* what came back */
    tw_outcome_tally t;
    tw_rep_tally_outcomes(r, &t);
    if (t.n) {
        tw_rw_puts(out, w.http ? "## Responses\n\n| response | exchanges |\n|---|---:|\n"
                               : "## Driver outcomes\n\n| outcome | rows |\n|---|---:|\n");
        for (size_t j = 0; j < t.n; j++) {
            tw_rw_puts(out, "| ");
            tw_rep_md_cell(out, t.what[j], 200);
            tw_rw_printf(out, " | %zu |\n", t.count[j]);
        }
        tw_rw_putc(out, '\n');
    }
    /* per check */
    size_t nc;
    const tw_check_def *defs = tw_checks_catalog(&nc);
    tw_rw_puts(out, "## Checks\n\n| check | severity | pass | fail | skip | rule "
                    "|\n|---|---|---:|---:|---:|---|\n");
    /* pass, fail and skip counts per catalog entry, in one pass over the verdicts */
    size_t *counts = calloc(nc ? 3 * nc : 1, sizeof *counts);
    if (!counts) {
        tw_rw_fail(out, TW_ERR_NOMEM);
        return;
    }
    for (size_t i = 0; i < r->nfx; i++)
        for (size_t k = 0; k < r->fx[i].nex; k++)
            for (size_t c = 0; c < r->fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &r->fx[i].ex[k].checks[c];
                int d = tw_check_index(ch->id);
                if (d >= 0 && (size_t)d < nc)
                    counts[3 * (size_t)d + (ch->verdict == TW_V_PASS   ? 0
                                            : ch->verdict == TW_V_FAIL ? 1
                                                                       : 2)]++;
            }
    /* a check no exchange of this run reached is counted, not listed: a parser's or a
     * client's report would otherwise list every backend check at 0 */
    size_t unreached = 0;
    for (size_t d = 0; d < nc; d++) {
        size_t p = counts[3 * d], fl = counts[3 * d + 1], sk = counts[3 * d + 2];
        if (p + fl + sk == 0) {
            unreached++;
            continue;
        }
        tw_rw_printf(out, "| %s | %s | %zu | %zu | %zu | ", defs[d].id,
                     tw_severity_name(defs[d].sev), p, fl, sk);
        tw_rep_md_cell(out, defs[d].rule, 160);
        tw_rw_puts(out, " |\n");
    }
    if (unreached)
        tw_rw_printf(
            out, "\n%zu other check%s of the catalogue (docs/checks.md) judged no exchange here.\n",
            unreached, unreached == 1 ? "" : "s");
    free(counts);
    /* failures the fixtures expect, for the record */
    size_t ef = 0;
    for (size_t i = 0; i < r->nfx; i++)
        for (size_t k = 0; k < r->fx[i].nex; k++)
            for (size_t c = 0; c < r->fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &r->fx[i].ex[k].checks[c];
                if (ch->verdict != TW_V_FAIL || !ch->match || ch->declared)
                    continue; /* expected differences: their own section */
                if (ef++ >= MD_MAX_ROWS)
                    continue;
                if (ef == 1)
                    tw_rw_puts(out,
                               "\n## Failing checks (as the fixtures expect, or advisory)\n\n| "
                               "fixture | exchange | check | evidence |\n|---|---:|---|---|\n");
                tw_rw_puts(out, "| ");
                tw_rep_md_cell(out, r->fx[i].name, 120);
                tw_rw_printf(out, " | %zu | %s | ", r->fx[i].ex[k].index, ch->id);
                tw_rep_md_cell(out, ch->evidence, 200);
                tw_rw_puts(out, " |\n");
            }
    /* expected differences, each with the entry that declares it */
    size_t ed = 0;
    for (size_t i = 0; r->n_declared && i < r->nfx; i++)
        for (size_t k = 0; k < r->fx[i].nex; k++)
            for (size_t c = 0; c < r->fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &r->fx[i].ex[k].checks[c];
                if (ch->verdict != TW_V_FAIL || !ch->declared)
                    continue;
                if (ed++ >= MD_MAX_ROWS)
                    continue;
                if (ed == 1)
                    tw_rw_puts(out, "\n## Expected differences (declared in --expected, with the "
                                    "reason)\n\n| fixture | exchange | check | evidence | declared "
                                    "|\n|---|---:|---|---|---|\n");
                tw_rw_puts(out, "| ");
                tw_rep_md_cell(out, r->fx[i].name, 120);
                tw_rw_printf(out, " | %zu | %s | ", r->fx[i].ex[k].index, ch->id);
                tw_rep_md_cell(out, ch->evidence, 200);
                tw_rw_puts(out, " | ");
                tw_rep_md_cell(out, ch->declared, 300);
                tw_rw_puts(out, " |\n");
            }
    if (ed > MD_MAX_ROWS)
        tw_rw_printf(out, "\n… and %zu more (see the JSON report)\n", ed - MD_MAX_ROWS);
    if (r->n_skipped) {
        tw_rw_printf(out, "\n## Fixtures not run on this %s\n\n", w.one);
        size_t shown = 0;
        for (size_t i = 0; i < r->nfx && shown < MD_MAX_ROWS; i++)
            if (r->fx[i].skipped) {
                tw_rw_puts(out, "- ");
                tw_rep_md_cell(out, r->fx[i].name, 120);
                tw_rw_puts(out, ": ");
                tw_rep_md_cell(out, r->fx[i].note ? r->fx[i].note : "", 200);
                tw_rw_putc(out, '\n');
                shown++;
            }
    }
    tw_rw_flush(out, true);
}

tw_status tw_report_to_markdown(const tw_report *r, tw_buf *buf)
{
    tw_rw w = {.b = buf, .st = TW_OK};
    tw_report_markdown_emit(r, &w);
    return w.st;
}
