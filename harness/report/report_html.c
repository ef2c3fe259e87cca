/*
 * The HTML pages of the reports (report.h): one backend's matrix of checks
 * and the comparison of several backends. Each page is self-contained (styles,
 * script and data inline; nothing is fetched) and reads without its script:
 * the matrix is rendered here, the script only filters rows and shows the
 * evidence of a clicked cell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_int.h"

/* JSON for a <script> element: no '<' at all (JSON has it only inside strings, where
 * \u003c reads the same), so the data can neither close its element nor open a comment.
 * The sink of the writer the JSON is rendered into. */
static tw_status script_json(void *u, const char *s, size_t n)
{
    tw_rw *out = u;
    const char *end = s + n;
    while (s < end) {
        const char *lt = memchr(s, '<', (size_t)(end - s));
        size_t run = (size_t)((lt ? lt : end) - s);
        tw_rw_append(out, s, run);
        if (!lt)
            break;
        tw_rw_puts(out, "\\u003c");
        s = lt + 1;
    }
    tw_rw_flush(out, false);
    return out->st;
}

/* One cell of the matrix: what a check said over a fixture's exchanges,
 * in increasing order of weight (the heaviest exchange names the cell). */
typedef enum cell_kind {
    CELL_NA = 0,
    CELL_SKIP,
    CELL_PASS,
    CELL_XFAIL,
    CELL_KNOCK,
    CELL_XPASS,
    CELL_FAIL
} cell_kind;

static const char *const cell_class[] = {"na",       "skip",     "pass",   "xfail",
                                         "knock mm", "xpass mm", "fail mm"};
static const char *const cell_mark[] = {"", "·", "✓", "✗", "↳", "!", "✗"};
static const char *const cell_title[] = {"n/a: the check does not apply here",
                                         "skipped",
                                         "pass",
                                         "failed, as the fixture expects (or advisory)",
                                         ("MISMATCH, a consequence: failed only because of an "
                                          "earlier failure of its exchange, counted under it"),
                                         "MISMATCH: expected to fail, did not",
                                         "MISMATCH: failed, not expected"};

static cell_kind check_kind(const tw_rep_check *c)
{
    if (!c->match)
        return c->verdict != TW_V_FAIL ? CELL_XPASS : c->follows[0] ? CELL_KNOCK : CELL_FAIL;
    return c->verdict == TW_V_FAIL ? CELL_XFAIL : c->verdict == TW_V_PASS ? CELL_PASS : CELL_SKIP;
}

static const char html_style[] =
    "<style>\n"
    "body{font:14px/1.4 system-ui,-apple-system,Segoe UI,sans-serif;margin:1em 1.2em "
    "12em;color:#1b1f24}\n"
    "h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em}table{border-collapse:collapse}\n"
    "th,td{border:1px solid #d0d7de;padding:2px 5px;text-align:center}\n"
    "code{word-break:break-all}\n"
    ".wrap{max-width:100%;overflow-x:auto}\n"
    "#m thead th,#cmp thead th{position:sticky;top:0;background:#f6f8fa;z-index:2}\n"
    "#m th.v,.cmp "
    "th.v{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;font-size:11px;"
    "padding:3px 0;line-height:1;white-space:nowrap;max-height:7em}\n"
    "#m td.c,#m td.http{padding:1px 0;min-width:14px;font-size:12px;cursor:pointer}\n"
    "#m .fx{position:sticky;left:0;z-index:1;background:#fff;text-align:left;white-space:nowrap;"
    "max-width:260px;overflow:hidden;text-overflow:ellipsis}\n"
    "#m thead th.fx{z-index:3;background:#f6f8fa}\n"
    "#cmp td.fx{text-align:left;white-space:nowrap}\n"
    ".err{color:#cf222e;font-size:12px}\n"
    ".pass{background:#dafbe1;color:#1a7f37}\n"
    ".xfail{background:#fff8c5;color:#7d4e00}\n"
    ".fail{background:#cf222e;color:#fff;font-weight:bold}\n"
    ".xpass{background:#fff;color:#cf222e;font-weight:bold;box-shadow:inset 0 0 0 2px #cf222e}\n"
    ".knock{background:#ffebe9;color:#cf222e}\n"
    ".note{background:#fff8c5;padding:.3em .6em;border-left:4px solid #bf8700}\n"
    ".skip{color:#8c959f}.na{background:#f6f8fa}\n"
    ".hok{color:#57606a}.herr{background:#ffebe9;color:#cf222e;font-weight:bold}"
    ".terr{background:#6e7781;color:#fff;font-weight:bold}\n"
    ".diff{box-shadow:inset 0 0 0 2px #0969da}\n"
    "#responses td:first-child{text-align:left}\n"
    "#legend span.k{display:inline-block;min-width:1.4em;border:1px solid "
    "#d0d7de;text-align:center;margin:0 .2em 0 .8em}\n"
    "#detail{position:fixed;left:0;right:0;bottom:0;background:#f6f8fa;border-top:2px solid "
    "#d0d7de;"
    "padding:.5em "
    "1em;max-height:35vh;overflow:auto;white-space:pre-wrap;font-family:ui-monospace,monospace;"
    "font-size:12px;margin:0;z-index:5}\n"
    ".ok{color:#1a7f37}.bad{color:#cf222e}\n"
    "</style>\n";

static const char html_legend[] =
    "<p id=legend>"
    "<span class=\"k pass\">✓</span>pass"
    "<span class=\"k xfail\">✗</span>failed as the fixture expects (or advisory)"
    "<span class=\"k fail mm\">✗</span>failed, not expected (mismatch)"
    "<span class=\"k xpass mm\">!</span>expected to fail, did not (mismatch)"
    "<span class=\"k knock mm\">↳</span>failed only as a consequence of an earlier failure of its "
    "exchange "
    "(an error status, no response, no call; counted under it)"
    "<span class=\"k skip\">·</span>skipped"
    "<span class=\"k na\">&nbsp;</span>n/a";
/* the legend's end for reports whose exchanges are HTTP (not a parser's) */
static const char html_legend_http[] =
    "<br>HTTP column: "
    "<span class=\"k hok\">200</span>status <span class=\"k herr\">404</span>error status "
    "<span class=\"k terr\">✕</span>no response or the transfer broke.";

static const char html_script[] =
    "<script>\n"
    "(function(){\n"
    "var R=JSON.parse(document.getElementById('data').textContent);\n"
    "var D=document.getElementById('detail');\n"
    "function show(fi,id){var fx=R.fixtures[fi];if(!fx)return;"
    "var s=fx.name+'  '+(id==='http'?'HTTP':id)+'\\n'+(fx.file?fx.file+'\\n':'')+(fx.note?'note: "
    "'+fx.note+'\\n':'');"
    "fx.exchanges.forEach(function(e){var o;if(e.method==='PARSE')o=e.error||'parsed';else{"
    "o=e.status?'HTTP '+e.status:'no response';"
    "if(e.error)o+=(e.status?', transfer broke: ':': ')+e.error;}"
    "s+='\\n#'+e.index+' '+e.method+' '+e.path+(e.stream?' (stream)':'')+' -> '+o;"
    "if(id!=='http'){e.checks.forEach(function(c){if(c.id!==id)return;"
    "s+='\\n  '+c.verdict+' (expected '+c.expected+(c.match?'':', MISMATCH')+')'+(c.offset>=0?'  "
    "@'+c.offset:'')"
    "+'\\n  '+c.evidence+(c.follows?'\\n  a consequence of '+c.follows+', counted under "
    "it':'')+(c.declared?'\\n  an expected difference (--expected): '+c.declared:'');});}});"
    "D.textContent=s;}\n"
    "document.getElementById('m').addEventListener('click',function(ev){var "
    "td=ev.target.closest('td[data-c]');"
    "if(!td)return;show(+td.parentNode.getAttribute('data-f'),td.getAttribute('data-c'));});\n"
    "var F=document.getElementById('filter');\n"
    "function filt(){var v=F.value,rows=document.querySelectorAll('#m tbody tr');for(var "
    "i=0;i<rows.length;i++){"
    "var c=rows[i].classList;var "
    "keep=v==='all'||(!c.contains('notrun')&&(v==='run'||c.contains(v)));"
    "rows[i].style.display=keep?'':'none';}}\n"
    "F.addEventListener('change',filt);filt();\n"
    "})();\n"
    "</script>\n";

/* The checks that said something in this run: a pass, a fail or a mismatch
 * on a fixture that ran. applied[] follows the catalog. */
static size_t applied_checks(const tw_report *r, bool *applied, size_t nc)
{
    memset(applied, 0, nc * sizeof *applied);
    size_t n = 0;
    for (size_t i = 0; i < r->nfx; i++) {
        if (r->fx[i].skipped)
            continue;
        for (size_t k = 0; k < r->fx[i].nex; k++)
            for (size_t c = 0; c < r->fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &r->fx[i].ex[k].checks[c];
                int d = tw_check_index(ch->id);
                if (d < 0 || (size_t)d >= nc || applied[d])
                    continue;
                if (ch->verdict != TW_V_SKIP || !ch->match) {
                    applied[d] = true;
                    n++;
                }
            }
    }
    return n;
}

/* The HTTP cell: the worst outcome of the fixture's exchanges. */
static void http_cell(tw_rw *out, const tw_rep_fixture *f)
{
    if (f->skipped) {
        tw_rw_puts(out, "<td class=\"http na\" data-c=http></td>");
        return;
    }
    const tw_rep_exchange *worst = NULL;
    int wrank = -1;
    for (size_t k = 0; k < f->nex; k++) {
        const tw_rep_exchange *e = &f->ex[k];
        int rank = e->status == 0 ? 3 : (e->error && *e->error) ? 2 : e->status >= 400 ? 1 : 0;
        if (rank > wrank)
            worst = e, wrank = rank;
    }
    if (!worst) {
        tw_rw_puts(out, "<td class=\"http terr\" data-c=http title=\"");
        tw_xml_text(out, f->note ? f->note : "nothing was sent");
        tw_rw_puts(out, "\">✕</td>");
        return;
    }
    char oc[200];
    tw_rep_exchange_outcome(worst, oc, sizeof oc);
    tw_rw_printf(out, "<td class=\"http %s\" data-c=http title=\"",
                 wrank >= 2   ? "terr"
                 : wrank == 1 ? "herr"
                              : "hok");
    tw_xml_text(out, oc);
    if (wrank == 3)
        tw_rw_puts(out, "\">✕</td>");
    else
        tw_rw_printf(out, "\">%d%s</td>", worst->status, wrank == 2 ? "✕" : "");
}

static void matrix_row(tw_rw *out, const tw_rep_fixture *f, size_t fi, const bool *applied,
                       cell_kind *cells, size_t nc, bool http)
{
    memset(cells, 0, nc * sizeof *cells);
    bool hf = false, hp = false, hs = false;
    const char *transport = NULL;
    for (size_t k = 0; k < f->nex; k++) {
        const tw_rep_exchange *e = &f->ex[k];
        if (e->error && *e->error && !transport)
            transport = e->error;
        for (size_t c = 0; c < e->nchecks; c++) {
            const tw_rep_check *ch = &e->checks[c];
            int d = tw_check_index(ch->id);
            hf = hf || ch->verdict == TW_V_FAIL;
            hp = hp || ch->verdict == TW_V_PASS;
            hs = hs || ch->verdict == TW_V_SKIP;
            cell_kind kd = check_kind(ch);
            if (d >= 0 && (size_t)d < nc && kd > cells[d])
                cells[d] = kd;
        }
    }
    if (!f->skipped && f->nex == 0 && f->note)
        transport = f->note;
    tw_rw_printf(out, "<tr class=\"%s%s%s%s%s\" data-f=%zu><td class=fx title=\"",
                 f->skipped ? "notrun" : "run", f->skipped || f->match ? "" : " mismatch",
                 hf && !f->skipped ? " hasfail" : "", hp && !f->skipped ? " haspass" : "",
                 hs && !f->skipped ? " hasskip" : "", fi);
    tw_xml_text(out, f->file);
    tw_rw_puts(out, "\">");
    if (!f->skipped && !f->match)
        tw_rw_puts(out, "<b class=bad>≠</b> ");
    tw_xml_text(out, f->name);
    if (f->skipped)
        tw_rw_puts(out, " <i>(not run)</i>");
    if (transport) {
        tw_rw_puts(out, " <span class=err>");
        tw_xml_text(out, transport);
        tw_rw_puts(out, "</span>");
    }
    tw_rw_puts(out, "</td>");
    if (http)
        http_cell(out, f);
    size_t ncat;
    const tw_check_def *defs = tw_checks_catalog(&ncat);
    for (size_t d = 0; d < nc && d < ncat; d++) {
        if (!applied[d])
            continue;
        tw_rw_printf(out, "<td class=\"c %s\" data-c=\"%s\" title=\"%s: %s\">%s</td>",
                     cell_class[cells[d]], defs[d].id, defs[d].id, cell_title[cells[d]],
                     cell_mark[cells[d]]);
    }
    tw_rw_puts(out, "</tr>\n");
}

void tw_report_html_emit(const tw_report *r, tw_rw *out)
{
    size_t nc;
    const tw_check_def *defs = tw_checks_catalog(&nc);
    bool *applied = calloc(nc ? nc : 1, sizeof *applied);
    cell_kind *cells = calloc(nc ? nc : 1, sizeof *cells);
    if (!applied || !cells) {
        free(applied);
        free(cells);
        tw_rw_fail(out, TW_ERR_NOMEM);
        return;
    }
    size_t napplied = applied_checks(r, applied, nc);
    tw_rep_words w;
    tw_rep_words_of(r, 1, &w);
    tw_rw_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width\">\n<title>toolwire: ");
    tw_xml_text(out, r->backend);
    tw_rw_puts(out, "</title>\n");
    tw_rw_puts(out, html_style);
    tw_rw_puts(out, "</head><body>\n<h1>toolwire conformance: ");
    tw_xml_text(out, r->backend);
    tw_rw_puts(out, "</h1>\n<p>");
    tw_rw_puts(out, r->ok
                        ? "<b class=ok>every verdict matches the fixtures' expectations</b>"
                        : "<b class=bad>some verdicts differ from the fixtures' expectations</b>");
    tw_rw_puts(out, " — target <code>");
    tw_xml_text(out, r->target);
    char more[64];
    size_t causes = tw_report_headline(r, more, sizeof more);
    tw_rw_printf(
        out,
        "</code>, %s. %zu fixtures (%zu not run), %zu exchanges: %zu pass, %zu fail, %zu skip, "
        "%zu mismatches%s; %zu of %zu checks applied.</p>\n",
        r->generated ? r->generated : "", r->n_fixtures, r->n_skipped, r->n_exchanges, r->n_pass,
        r->n_fail, r->n_skip, causes, more, napplied, nc);
    if (r->n_declared)
        tw_rw_printf(out,
                     "<p id=declared><b>Expected differences: %zu</b> of the %zu failing checks, "
                     "declared in the %s's --expected file, each with its reason (click its "
                     "cell); not mismatches.</p>\n",
                     r->n_declared, r->n_fail, w.one);
    char note[600];
    tw_report_directive_note(r, note, sizeof note);
    if (note[0]) {
        tw_rw_puts(out, "<p class=note id=directive><b>Note:</b> ");
        tw_xml_text(out, note);
        tw_rw_puts(out, "</p>\n");
    }
    tw_outcome_tally t;
    tw_rep_tally_outcomes(r, &t);
    if (t.n) {
        tw_rw_puts(out, w.http
                            ? "<table id=responses><tr><th>response</th><th>exchanges</th></tr>\n"
                            : "<table id=responses><tr><th>outcome</th><th>rows</th></tr>\n");
        for (size_t j = 0; j < t.n; j++) {
            bool bad = w.http ? strncmp(t.what[j], "HTTP ", 5) != 0 || atoi(t.what[j] + 5) >= 400 ||
                                    strchr(t.what[j], ',') != NULL
                              : strcmp(t.what[j], "parsed") != 0;
            tw_rw_printf(out, "<tr><td class=\"%s\">", bad ? "herr" : "hok");
            tw_xml_text(out, t.what[j]);
            tw_rw_printf(out, "</td><td>%zu</td></tr>\n", t.count[j]);
        }
        tw_rw_puts(out, "</table>\n");
    }
    tw_rw_puts(out, html_legend);
    if (w.http)
        tw_rw_puts(out, html_legend_http);
    tw_rw_puts(out, " Click a cell for its evidence.</p>\n");
    tw_rw_puts(out, "<p><label>show <select id=filter><option value=run selected>fixtures this "
                    "backend ran</option>"
                    "<option value=all>all fixtures</option>"
                    "<option value=mismatch>mismatches</option><option value=hasfail>with a "
                    "failing check</option>"
                    "<option value=haspass>with a passing check</option>"
                    "<option value=hasskip>with a skipped check</option></select></label></p>\n");
    tw_rw_puts(out, "<div class=wrap><table id=m>\n<thead><tr><th class=fx>fixture</th>");
    if (w.http)
        tw_rw_puts(out, "<th class=v>HTTP</th>");
    for (size_t d = 0; d < nc; d++) {
        if (!applied[d])
            continue;
        tw_rw_printf(out, "<th class=v data-c=\"%s\" title=\"%s (%s): ", defs[d].id, defs[d].id,
                     tw_severity_name(defs[d].sev));
        tw_xml_text(out, defs[d].rule);
        tw_rw_printf(out, "\">%s</th>", defs[d].id);
    }
    tw_rw_puts(out, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < r->nfx; i++) {
        matrix_row(out, &r->fx[i], i, applied, cells, nc, w.http);
        tw_rw_flush(out, false);
    }
    tw_rw_puts(out, "</tbody></table></div>\n<pre id=detail>click a cell for its evidence</pre>\n");
    tw_rw_puts(out, "<script type=\"application/json\" id=\"data\">");
    /* the report's JSON, rendered in pieces through script_json into out */
    tw_buf jb = {0};
    tw_rw jw = {.b = &jb, .st = out->st, .sink = script_json, .sink_u = out};
    if (out->st == TW_OK) {
        tw_report_json_emit(r, &jw);
        tw_rw_fail(out, jw.st);
    }
    tw_buf_free(&jb);
    tw_rw_puts(out, "</script>\n");
    tw_rw_puts(out, html_script);
    tw_rw_puts(out, "</body></html>\n");
    tw_rw_flush(out, true);
    free(applied);
    free(cells);
}

tw_status tw_report_to_html(const tw_report *r, tw_buf *buf)
{
    tw_rw w = {.b = buf, .st = TW_OK};
    tw_report_html_emit(r, &w);
    return w.st;
}

/* ================================================================ comparison */

typedef struct hcmp_ctx {
    const tw_rep_index *ix;
    size_t n;
    tw_rw *out;  /* the table's rows */
    tw_rw *info; /* the info-level rows, folded under the table */
    size_t rows, nfolded;
    tw_rep_words w;
} hcmp_ctx;

static void cmp_cell(tw_rw *out, const tw_rep_words *w, cell_kind kd, bool run, bool differs,
                     const char *evidence, const char *label)
{
    tw_rw_printf(out, "<td class=\"%s%s\" title=\"", run ? cell_class[kd] : "na",
                 differs ? " diff" : "");
    if (run)
        tw_xml_text(out, cell_title[kd]);
    else
        tw_rw_printf(out, "not run on this %s", w->one);
    if (evidence && *evidence) {
        tw_rw_puts(out, ": ");
        tw_xml_text(out, evidence);
    }
    tw_rw_printf(out, "\">%s</td>", run ? label : "—");
}

static void hcmp_row(void *u, const char *fx, size_t ex, const char *id)
{
    hcmp_ctx *c = u;
    tw_cmp_row row;
    if (!tw_cmp_row_of(c->ix, c->n, fx, ex, id, &row))
        return;
    bool info = row.sev == TW_SEV_INFO;
    size_t *count = info ? &c->nfolded : &c->rows;
    if ((*count)++ >= TW_CMP_MAX_ROWS)
        return;
    tw_rw *out = info ? c->info : c->out;
    tw_rw_puts(out, "<tr><td class=fx>");
    tw_xml_text(out, fx);
    tw_rw_printf(out, "</td><td>%zu</td><td>%s</td><td class=\"sev %s\">%s</td>", ex, id,
                 tw_severity_name(row.sev), tw_severity_name(row.sev));
    size_t n = c->n < TW_CMP_MAX_REPORTS ? c->n : TW_CMP_MAX_REPORTS;
    tw_verdict first = row.ch[row.first] ? row.ch[row.first]->verdict : TW_V_SKIP;
    for (size_t a = 0; a < n; a++) {
        const tw_rep_check *ch = row.ch[a];
        tw_verdict v = ch ? ch->verdict : TW_V_SKIP;
        cmp_cell(out, &c->w, ch ? check_kind(ch) : CELL_SKIP, row.run[a],
                 row.run[a] && a != row.first && v != first, ch ? ch->evidence : NULL,
                 tw_verdict_name(v));
    }
    tw_rw_puts(out, "</tr>\n");
}

/* Fixtures that at least two reports ran, and that every report ran. */
static void fixtures_in_common(const tw_report *r, const tw_rep_index *ix, size_t n, size_t *two,
                               size_t *all)
{
    *two = *all = 0;
    for (size_t a = 0; a < n; a++)
        for (size_t i = 0; i < r[a].nfx; i++) {
            const tw_rep_fixture *f = &r[a].fx[i];
            if (f->skipped)
                continue;
            bool earlier = false;
            size_t ran = 0;
            for (size_t b = 0; b < n; b++)
                if (tw_rep_ran_fixture(&ix[b], f->name)) {
                    earlier = earlier || b < a;
                    ran++;
                }
            if (earlier)
                continue;
            if (ran >= 2)
                (*two)++;
            if (ran == n)
                (*all)++;
        }
}

/* The head of a table of comparison rows. */
static void cmp_head(tw_rw *out, const char *id, const tw_report *r, size_t shown,
                     const tw_cmp_opts *o)
{
    tw_rw_printf(
        out,
        "<div class=wrap><table id=%s class=cmp><thead><tr><th>fixture</th><th>exchange</th>"
        "<th>check</th><th>severity</th>",
        id);
    for (size_t a = 0; a < shown; a++) {
        tw_rw_puts(out, "<th class=v>"); /* upright names would widen the table past a screen */
        tw_xml_text(out, tw_cmp_label(r, o, a));
        tw_rw_puts(out, "</th>");
    }
    tw_rw_puts(out, "</tr></thead>\n<tbody>\n");
}

tw_status tw_compare_html_with(const tw_report *r, size_t n, const tw_cmp_opts *o, tw_buf *buf)
{
    tw_rep_index *ix = tw_rep_index_all(r, n);
    if (!ix)
        return TW_ERR_NOMEM;
    tw_rep_words w;
    tw_rep_words_of(r, n, &w);
    tw_rw wr = {.b = buf, .st = TW_OK}, *out = &wr;
    size_t shown = n < TW_CMP_MAX_REPORTS ? n : TW_CMP_MAX_REPORTS;
    tw_rw_printf(out,
                 "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width\">\n"
                 "<title>toolwire: %s compared</title>\n",
                 w.many);
    tw_rw_puts(out, html_style);
    tw_rw_printf(out, "</head><body>\n<h1>toolwire: %s compared</h1>\n", w.many);
    tw_rw_printf(
        out,
        "<table id=backends><thead><tr><th>%s</th><th>target</th><th>fixtures run</th><th>pass</th>"
        "<th>fail</th><th>skip</th><th>mismatches</th></tr></thead>\n",
        w.one);
    for (size_t a = 0; a < n; a++) {
        tw_rw_puts(out, "<tr><td>");
        tw_xml_text(out, tw_cmp_label(r, o, a));
        if (tw_cmp_label_hides_backend(r, o, a)) {
            tw_rw_puts(out, " (");
            tw_xml_text(out, r[a].backend);
            tw_rw_putc(out, ')');
        }
        tw_rw_puts(out, "</td><td><code>");
        tw_xml_text(out, r[a].target);
        tw_rw_printf(out,
                     "</code></td><td>%zu</td><td>%zu</td><td>%zu</td><td>%zu</td><td "
                     "class=\"%s\">%zu</td></tr>\n",
                     r[a].n_fixtures - r[a].n_skipped, r[a].n_pass, r[a].n_fail, r[a].n_skip,
                     r[a].n_mismatch ? "herr" : "hok", r[a].n_mismatch);
    }
    tw_rw_puts(out, "</table>\n");
    size_t two, all;
    fixtures_in_common(r, ix, n, &two, &all);
    tw_rw_printf(
        out,
        "<h2>Where the %s differ</h2>\n<p id=common>%zu fixtures ran on at least two %s "
        "(%zu on every one). Listed: each check (the decoded result is RES-01's%s) whose verdict "
        "differs between %s that ran it with a failure on one of them (a "
        "check that applies to one %s only, a pass beside a skip, is not listed), with the check's "
        "severity; info-level (advisory) rows are folded below the table; a blue outline marks a "
        "cell that differs from the first %s of its row; — means the %s did not run the fixture. "
        "Hover or click a cell for its evidence. <label><input type=checkbox id=onlyfail> rows "
        "with a failure only</label></p>\n",
        w.many, two, w.many, all, w.http ? ", the HTTP status RSP-01's" : "", w.many, w.one, w.one,
        w.one);
    tw_rw_puts(out, html_legend);
    if (w.http)
        tw_rw_puts(out, html_legend_http);
    tw_rw_puts(out, " Click a cell for its evidence.</p>\n");
    cmp_head(out, "cmp", r, shown, o);
    tw_buf ib = {0};
    tw_rw info = {.b = &ib, .st = TW_OK};
    hcmp_ctx c = {ix, n, out, &info, 0, 0, w};
    if (n >= 2) /* a row needs two reports that ran its fixture */
        tw_rep_each_key(r, ix, n, hcmp_row, &c);
    tw_rw_puts(out, "</tbody></table></div>\n");
    if (c.rows == 0)
        tw_rw_printf(
            out,
            "<p id=nodiff>No differences%s: every %scheck gives the same verdict on every %s that "
            "ran it.</p>\n",
            c.nfolded ? " but in advisory checks" : "", c.nfolded ? "other " : "", w.one);
    else if (c.rows > TW_CMP_MAX_ROWS)
        tw_rw_printf(out, "<p>… %zu rows in all; the first %d are shown.</p>\n", c.rows,
                     TW_CMP_MAX_ROWS);
    if (c.nfolded) {
        tw_rw_printf(out,
                     "<details id=advisory><summary>%zu info-level (advisory) row(s)</summary>\n",
                     c.nfolded);
        cmp_head(out, "cmpinfo", r, shown, o);
        tw_rw_fail(out, info.st);
        tw_rw_append(out, ib.data ? ib.data : "", ib.len);
        tw_rw_puts(out, "</tbody></table></div>\n");
        if (c.nfolded > TW_CMP_MAX_ROWS)
            tw_rw_printf(out, "<p>… %zu rows in all; the first %d are shown.</p>\n", c.nfolded,
                         TW_CMP_MAX_ROWS);
        tw_rw_puts(out, "</details>\n");
    }
    tw_buf_free(&ib);
    tw_rw_puts(out, "<pre id=detail>click a cell for its evidence</pre>\n");
    tw_rw_puts(out,
               "<script>\n(function(){\nvar D=document.getElementById('detail');\n"
               "document.addEventListener('click',function(ev){"
               "var td=ev.target.closest('table.cmp td[title]');if(!td)return;var tr=td.parentNode;"
               "D.textContent=tr.cells[0].textContent+' #'+tr.cells[1].textContent+' "
               "'+tr.cells[2].textContent"
               "+'\\n'+td.getAttribute('title');});\n"
               "document.getElementById('onlyfail').addEventListener('change',function(e){"
               "var rows=document.querySelectorAll('#cmp tbody tr');for(var i=0;i<rows.length;i++){"
               "rows[i].style.display=(e.target.checked&&!rows[i].querySelector('td.fail,td.xfail')"
               ")?'none':'';}});\n"
               "})();\n</script>\n</body></html>\n");
    tw_rep_index_all_free(ix, n);
    return wr.st;
}

tw_status tw_compare_html(const tw_report *r, size_t n, tw_buf *buf)
{
    return tw_compare_html_with(r, n, NULL, buf);
}
