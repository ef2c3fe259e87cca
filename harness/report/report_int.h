/* What the report files share (the model in report.c, its renderers, the
 * index, compare and gate); not an API. */
#ifndef TOOLWIRE_REPORT_INT_H
#define TOOLWIRE_REPORT_INT_H

#include "report.h"

#define TW_OUTCOME_KINDS 32

/* A comparison shows at most this many rows (TW_CMP_MAX_REPORTS: report.h). */
#define TW_CMP_MAX_ROWS 2000

/* ---- a writer whose first failure sticks ---- */

/*
 * Text appended to a tw_buf; the first failed append (TW_ERR_LIMIT past the
 * buffer's max, TW_ERR_NOMEM) is kept in st and every later append is
 * skipped, so a renderer writes on and returns st at the end: never a
 * document with a piece missing in its middle reported as whole.
 */
typedef tw_status (*tw_rw_sink_fn)(void *u, const char *p, size_t n);
typedef struct tw_rw {
    tw_buf *b;
    tw_status st;
    tw_rw_sink_fn sink; /* NULL: the whole document stays in b */
    void *sink_u;
} tw_rw;

/* A writer with a sink hands its bytes on in pieces of about this size. */
#define TW_RW_CHUNK ((size_t)64 << 10)

/* With a sink: once b holds TW_RW_CHUNK bytes or more (or anything, with
 * all), hand them to the sink and empty b; without one, nothing. A
 * renderer calls it between the pieces of a document (each exchange), so
 * a document written to a file is never held whole. */
void tw_rw_flush(tw_rw *w, bool all);

void tw_rw_append(tw_rw *w, const void *p, size_t n);
void tw_rw_puts(tw_rw *w, const char *s);
void tw_rw_putc(tw_rw *w, char c);
void tw_rw_printf(tw_rw *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Record a failure of the writer's own making (the first one sticks). */
void tw_rw_fail(tw_rw *w, tw_status st);

/* The renderers over a writer (report.h's tw_report_to_* are these over a
 * buffer); each flushes between exchanges and at its end. */
void tw_report_json_emit(const tw_report *r, tw_rw *w);
void tw_report_markdown_emit(const tw_report *r, tw_rw *w);
void tw_report_junit_emit(const tw_report *r, tw_rw *w);
void tw_report_html_emit(const tw_report *r, tw_rw *w);

/* ---- the model ---- */

/* Exchanges per outcome (status, or no response and why), in first-seen
 * order; outcomes past TW_OUTCOME_KINDS are counted under the last row. */
typedef struct tw_outcome_tally {
    char what[TW_OUTCOME_KINDS][200];
    size_t count[TW_OUTCOME_KINDS];
    size_t n;
} tw_outcome_tally;

void tw_rep_tally_outcomes(const tw_report *r, tw_outcome_tally *t);

/* "fail", "any", "not-fail" and back. */
const char *tw_expect_name(tw_expect x);
bool tw_expect_from_name(const char *s, tw_expect *out);

/* What a set of reports judged, in words: backends, client libraries (the
 * reports of `toolwire clients`, the ones holding CLT checks) or parsers
 * (of `toolwire parsers`, holding PRS checks); and whether their exchanges
 * are HTTP: a parser driver's rows are not (no status, no response). */
typedef struct tw_rep_words {
    const char *one;  /* "backend" / "client library" / "parser" */
    const char *many; /* "backends" / "client libraries" / "parsers" */
    bool http;        /* false for parsers */
} tw_rep_words;
void tw_rep_words_of(const tw_report *r, size_t n, tw_rep_words *w);

/* ---- renderers' pieces ---- */

/* What a cause check of e (report_fold.c) stands for: "HTTP 400", "no
 * response" (RSP-01), "no call" (LIV-01/LIV-02). */
void tw_rep_cause_what(const tw_rep_exchange *e, const tw_rep_check *cause, char *dst, size_t n);
/* The headline's mismatch count as a text: "3", or "3 (+4 consequences)". */
void tw_rep_mismatch_text(const tw_report *r, char *dst, size_t n);

/* Text for XML and HTML: markup characters escaped, control bytes as '?'. */
void tw_xml_text(tw_rw *w, const char *s);

/* s as one Markdown table cell: scrubbed of secrets, pipes and line breaks
 * escaped, cut to cap bytes. */
void tw_rep_md_cell(tw_rw *w, const char *s0, size_t cap);

/* ---- lookups by key, in constant time (report_index.c) ---- */

/*
 * An index of one report: its checks by (fixture name, exchange index,
 * check id), its exchanges by (fixture name, exchange index) and its
 * fixture names. Built in one pass; it points into the report, which must
 * outlive it and stay unchanged.
 */
typedef struct tw_rep_slot tw_rep_slot;
typedef struct tw_rep_index {
    tw_rep_slot *slots;
    size_t cap; /* a power of two, or 0 */
    size_t used;
} tw_rep_index;

tw_status tw_rep_index_build(tw_rep_index *ix, const tw_report *r);
void tw_rep_index_free(tw_rep_index *ix);

/* The check `id` of exchange `ex` of fixture `fx` (the first in report
 * order; none past a skipped fixture of that name); *fixture_run says
 * whether the report ran that exchange at all. */
const tw_rep_check *tw_rep_find_check(const tw_rep_index *ix, const char *fx, size_t ex,
                                      const char *id, bool *fixture_run);
/* One exchange by fixture name and index (fixtures not skipped); NULL when not run. */
const tw_rep_exchange *tw_rep_find_exchange(const tw_rep_index *ix, const char *fx, size_t ex);
/* Whether the report ran a fixture of that name (one not skipped). */
bool tw_rep_ran_fixture(const tw_rep_index *ix, const char *fx);
/* The first fixture of that name the report ran, or NULL. */
const tw_rep_fixture *tw_rep_find_fixture(const tw_rep_index *ix, const char *fx);

/* The indexes of n reports, in order; NULL (nothing to free) on failure.
 * With fewer than two reports nothing can differ between them: only the
 * fixture names are indexed (tw_rep_ran_fixture), and a comparison does not
 * walk the keys. */
tw_rep_index *tw_rep_index_all(const tw_report *r, size_t n);
void tw_rep_index_all_free(tw_rep_index *ix, size_t n);

/* Every (fixture, exchange, check) key of any report: a fixture is visited
 * in the first report that ran it (ix: the reports' indexes). */
typedef void (*tw_rep_key_fn)(void *u, const char *fx, size_t ex, const char *id);
void tw_rep_each_key(const tw_report *r, const tw_rep_index *ix, size_t n, tw_rep_key_fn fn,
                     void *u);

/* ---- comparison rows (compare.c; the page in report_html.c) ---- */

/* The verdicts of one check of one exchange across the reports compared. */
typedef struct tw_cmp_row {
    const tw_rep_check *ch[TW_CMP_MAX_REPORTS]; /* NULL: no verdict (skip when run) */
    bool run[TW_CMP_MAX_REPORTS];               /* the report ran the exchange */
    size_t first;                               /* the first report that ran it */
    tw_severity sev;                            /* the check's */
} tw_cmp_row;

/* Fill row for (fx, ex, id) over n reports' indexes; true when it is a row
 * of the comparison: at least two reports ran the exchange and, among them,
 * a failure stands beside a pass or a skip (a pass beside a skip, a check
 * that applies to one report only, is none). */
bool tw_cmp_row_of(const tw_rep_index *ix, size_t n, const char *fx, size_t ex, const char *id,
                   tw_cmp_row *row);
/* The name of report a's column: its label (o), else its backend name. */
const char *tw_cmp_label(const tw_report *r, const tw_cmp_opts *o, size_t a);
/* Does report a's label not begin with its backend name (the summary then names both)? */
bool tw_cmp_label_hides_backend(const tw_report *r, const tw_cmp_opts *o, size_t a);

#endif
