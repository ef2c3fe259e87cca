/* What report.c shares with the HTML writer (report_html.c) and the
 * comparison (report_compare.c); not an API. */
#ifndef TOOLWIRE_REPORT_INT_H
#define TOOLWIRE_REPORT_INT_H

#include "report.h"

#define TW_OUTCOME_KINDS 32

/* Exchanges per outcome (status, or no response and why), in first-seen
 * order; outcomes past TW_OUTCOME_KINDS are counted under the last row. */
typedef struct tw_outcome_tally {
    char what[TW_OUTCOME_KINDS][200];
    size_t count[TW_OUTCOME_KINDS];
    size_t n;
} tw_outcome_tally;

void tw_rep_tally_outcomes(const tw_report *r, tw_outcome_tally *t);

/* Text for XML and HTML: markup characters escaped, control bytes as '?'. */
void tw_xml_text(tw_buf *b, const char *s);

/* The check `id` of exchange `ex` of fixture `fx`; *fixture_run says
 * whether the report ran that exchange at all. */
/* One exchange of a report by fixture name and index; NULL when not run. */
const tw_rep_exchange *tw_rep_find_exchange(const tw_report *r, const char *fx, size_t ex);
const tw_rep_check *tw_rep_find_check(const tw_report *r, const char *fx, size_t ex, const char *id,
                                      bool *fixture_run);

/* Every (fixture, exchange, check) key of any report, visited once. */
typedef void (*tw_rep_key_fn)(void *u, const char *fx, size_t ex, const char *id);
void tw_rep_each_key(const tw_report *r, size_t n, tw_rep_key_fn fn, void *u);

/* s as one Markdown table cell: pipes and line breaks escaped, cut to cap bytes. */
void tw_rep_md_cell(tw_buf *b, const char *s0, size_t cap);

#endif
