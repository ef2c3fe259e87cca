/*
 * Conformance reports: one per backend (or client library), as JSON
 * (versioned, described by reports/report.schema.json), Markdown (fits a CI
 * job summary), JUnit XML and a self-contained HTML page; plus the
 * comparison of several reports (Markdown and HTML) and the regression gate
 * against a baseline.
 *
 * The model is report.c, its forms report_json.c, report_md.c,
 * report_junit.c and report_html.c, the comparison compare.c (its page in
 * report_html.c), the gate gate.c. Every renderer returns the real status:
 * TW_ERR_LIMIT when the output buffer's max is reached, TW_ERR_NOMEM when
 * memory runs out; the buffer then holds a cut document that must not be
 * used. Every file is written atomically (files.h); tw_report_write_all
 * hands each document to its file in pieces as it is rendered (out.h's
 * tw_out_file), so a report of any size is never held whole.
 */
#ifndef TOOLWIRE_REPORT_H
#define TOOLWIRE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "checks.h"
#include "files.h"

#define TW_REPORT_SCHEMA "toolwire-report"
#define TW_REPORT_VERSION 1
/* A report read back (compare, gate) is at most this large and this deep. */
#define TW_REPORT_MAX_BYTES ((size_t)256 << 20)
#define TW_REPORT_MAX_DEPTH 64

/* What was expected of a check in one exchange. */
typedef enum tw_expect { TW_EXPECT_NOT_FAIL = 0, TW_EXPECT_FAIL, TW_EXPECT_ANY } tw_expect;

typedef struct tw_rep_check {
    char id[16];
    tw_verdict verdict;
    tw_expect expected;
    bool match;
    int64_t offset;
    char *evidence; /* owned */
    /* a knock-on failure (report_fold.c): what it follows from ("HTTP 400",
     * "no response", "no call") and the check that failed for it ("RSP-01");
     * both "" for a verdict that stands on its own */
    char follows[48];
    char follows_check[16];
    /* a difference the run was told to expect (a parser's --expected file,
     * docs/parsers.md): which entry and why, "what; reason" (owned); NULL
     * for a verdict no such file declared */
    char *declared;
} tw_rep_check;

typedef struct tw_rep_exchange {
    size_t index;
    char *method, *path; /* owned */
    bool stream;
    int status;
    long elapsed_ms;
    int attempts;
    char *error;         /* transport error, or NULL */
    int calls;           /* calls in the decoded answer; -1 when not decoded */
    int followed;        /* the answer against the script directive (docs/live.md):
                          * 1 followed it, 0 did not, -1 not judged */
    char *directive;     /* followed 0: how it did not (owned), else NULL */
    tw_verdict result;   /* expected neutral result: pass, fail, skip */
    char *result_detail; /* owned, or NULL */
    bool result_follows; /* a failed result that is a knock-on of the status (tw_rep_fold) */
    bool match;          /* every verdict as expected */
    tw_rep_check *checks;
    size_t nchecks, checks_cap;
} tw_rep_exchange;

typedef struct tw_rep_fixture {
    char *name, *file, *backend; /* owned */
    bool skipped;
    char *note; /* why skipped / what went wrong, or NULL */
    bool match;
    tw_rep_exchange *ex;
    size_t nex, ex_cap;
} tw_rep_fixture;

typedef struct tw_report {
    int version;
    char *backend;   /* the name given with --backend */
    char *target;    /* "mock:replay" or the base URL (never a key) */
    char *generated; /* UTC time, ISO 8601 */
    char *toolwire;  /* program version */
    tw_rep_fixture *fx;
    size_t nfx, fx_cap;
    /* summary (tw_report_summarise) */
    size_t n_fixtures, n_skipped, n_exchanges, n_pass, n_fail, n_skip, n_mismatch;
    size_t n_knockon;    /* of n_mismatch, failures folded under their cause */
    size_t n_declared;   /* of n_fail, expected differences (tw_rep_check.declared) */
    size_t n_directed;   /* exchanges whose answer was held against a directive */
    size_t n_undirected; /* of those, answers that did not follow it */
    bool ok;
} tw_report;

void tw_report_init(tw_report *r, const char *backend, const char *target);
void tw_report_free(tw_report *r);
/* Append a fixture (zeroed, owned by the report); NULL on allocation failure. */
tw_rep_fixture *tw_report_add_fixture(tw_report *r, const char *name, const char *file,
                                      const char *backend);
tw_rep_exchange *tw_report_add_exchange(tw_rep_fixture *f);
tw_rep_check *tw_report_add_check(tw_rep_exchange *e, const char *id, tw_verdict v, tw_expect x,
                                  int64_t offset, const char *evidence);
/*
 * The exchange's decoded-result comparison (result, result_detail) as its
 * RES-01 verdict, expected x: added at its catalog place among the checks,
 * or replacing the RES-01 already there. Every report kind carries it, so
 * the comparison is counted, compared and gated like any check; a report
 * read back that has none (written before RES-01) gets it on load. NULL
 * when memory runs out.
 */
tw_rep_check *tw_report_set_result_check(tw_rep_exchange *e, tw_expect x);
/* What came back, in one line: "HTTP 404", "no response: <transport error>",
 * "HTTP 200, transfer broke: <transport error>"; a parser driver's row
 * (method "PARSE"): "parsed", or its error ("the driver failed"). */
void tw_rep_exchange_outcome(const tw_rep_exchange *e, char *dst, size_t n);
/* Recompute match flags upward, the knock-on marks (tw_rep_fold) and the
 * summary counts. */
void tw_report_summarise(tw_report *r);

/*
 * Knock-on failures (report_fold.c, docs/harness.md "Reading a failing run"):
 * when an exchange got an error status, no response, or no call where its
 * live expectations wanted one, the checks that could only fail because of
 * it are marked with what they follow (tw_rep_check.follows) under the first
 * failure, the cause (RSP-01, or LIV-01/LIV-02 for no call). Which checks
 * follow which cause is one table there. The verdicts stay as they are
 * (gating is check by check); readers fold them. Returns how many mismatched
 * verdicts of e are knock-ons.
 */
size_t tw_rep_fold(tw_rep_exchange *e);
/* The mismatched knock-ons of e that follow its check `cause`, in report
 * order, as "LIV-01, LIV-02" (at most n bytes); returns how many. */
size_t tw_rep_knockons_of(const tw_rep_exchange *e, const tw_rep_check *cause, char *ids, size_t n);
/* The headline's count of mismatches: each cause once, its knock-ons as
 * " (+K consequences)" in more (n bytes; "" when none). */
size_t tw_report_headline(const tw_report *r, char *more, size_t n);
/* One paragraph on the answers that did not follow the script directive
 * (docs/live.md), or "" when every directed answer followed it: once per
 * report, naming the first such exchange. */
void tw_report_directive_note(const tw_report *r, char *dst, size_t n);

/*
 * The mismatch lines of run's stdout listing (and main's): at most cap lines
 * (causes; a cause's knock-ons are one line under it), then, past the cap,
 * how many more there are and which report holds them (path). who prefixes
 * each line ("backend NAME: " without a summary line above, or "").
 */
void tw_report_list_mismatches(FILE *out, const tw_report *r, const char *who, size_t cap,
                               const char *path);

/* Serialise as the versioned JSON. */
tw_status tw_report_to_json(const tw_report *r, tw_buf *out);
/* Read a report JSON back (compare, gate). why says what is wrong. */
tw_status tw_report_load(const char *path, tw_report *out, tw_error *err);
tw_status tw_report_parse(const char *buf, size_t len, tw_report *out, tw_error *err);

tw_status tw_report_to_markdown(const tw_report *r, tw_buf *out);
tw_status tw_report_to_junit(const tw_report *r, tw_buf *out);
tw_status tw_report_to_html(const tw_report *r, tw_buf *out);

/* Write <dir>/<base>.{json,md,junit.xml,html}, base from the report's
 * backend name by tw_report_file_base; mkdir -p dir. On failure why says
 * which file and what failed. */
tw_status tw_report_write_all(const tw_report *r, const char *dir, tw_error *err);

/* Can reports be written into dir? mkdir -p dir, then it must be a
 * directory this process can write into. A run (parsers, clients) asks
 * before any driver runs, so an unusable --out stops it at once. false with
 * err saying which directory and why (strerror). */
bool tw_report_dir_ready(const char *dir, tw_error *err);

/* The buffer tw_report_file_base fills: a base is at most 199 bytes. */
#define TW_REPORT_BASE_MAX 200

/* The base of the file names of a backend's (or client's) report: the name
 * with every byte outside A-Z a-z 0-9 . _ - written '_', a leading '.'
 * written '_', cut to fit dst (n bytes, at most TW_REPORT_BASE_MAX used). */
void tw_report_file_base(const char *name, char *dst, size_t n);

/*
 * Can the reports of these n names (the backends or clients of one run,
 * `what` "backend" or "client") be written to dir side by side? Not when
 * two names have one base (tw_report_file_base; bases that differ only in
 * case count as one, as a file system that ignores case holds them), nor
 * when a base is a name the run writes besides: "comparison"
 * (comparison.md and comparison.html). false with err naming both names
 * and the file. Time O(n log n). The names are read in place: name i at
 * `stride` bytes times i from names (&specs[0].name, sizeof specs[0]; a plain
 * array of names: sizeof *names).
 */
bool tw_report_names_ok(const char *const *names, size_t n, size_t stride, const char *what,
                        const char *dir, tw_error *err);

/* A comparison puts at most this many reports side by side. */
#define TW_CMP_MAX_REPORTS 64

/* Comparison across reports: verdicts that differ, check by check. The
 * words follow the reports: "backends", or "client libraries" when every
 * report that holds a check holds a client-library (CLT) check, "parsers"
 * when every one holds a parser (PRS) check. */
tw_status tw_compare_markdown(const tw_report *r, size_t n, tw_buf *out);
tw_status tw_compare_html(const tw_report *r, size_t n, tw_buf *out);

/* How a comparison is shown. Each row names its check's severity; rows of
 * info-level checks (advisory, e.g. CLI-06) are folded: the Markdown counts
 * them in one line (all: lists them in the table), the page lists them in a
 * collapsed section. */
typedef struct tw_cmp_opts {
    const char *const
        *labels; /* n column names, or NULL (or a NULL entry): the report's backend name */
    bool all;    /* Markdown: info-level rows in the table too */
} tw_cmp_opts;
/* The same with options (NULL: the defaults, as above). */
tw_status tw_compare_markdown_with(const tw_report *r, size_t n, const tw_cmp_opts *o, tw_buf *out);
tw_status tw_compare_html_with(const tw_report *r, size_t n, const tw_cmp_opts *o, tw_buf *out);

/*
 * Gate: a report judged against a baseline, check by check (gate.c).
 *  - a regression: a check of error or warn severity that passed in the
 *    baseline and fails now, or that could not be judged now because
 *    nothing came back (no response, a driver that failed);
 *  - missing: a fixture the baseline ran that the report did not, or an
 *    exchange of it, or a check the baseline judged (pass or fail) of which
 *    the report has no verdict; one row per fixture; each fails the gate
 *    unless allow_missing;
 *  - an improvement: failed in the baseline, passes now;
 *  - a known failure: failed in the baseline and still fails (no regression);
 *  - advisory: an info-level check that changed (never fails the gate).
 */
typedef enum tw_gate_kind {
    TW_GATE_REGRESSION = 0,
    TW_GATE_MISSING,
    TW_GATE_IMPROVEMENT,
    TW_GATE_KNOWN,
    TW_GATE_ADVISORY
} tw_gate_kind;

/* One verdict of the gate; every string owned. A missing row's exchange is
 * SIZE_MAX and its check "" (it stands for the fixture). */
typedef struct tw_gate_row {
    tw_gate_kind kind;
    char *fixture, *file;
    size_t exchange;
    char check[16];
    tw_severity sev;
    char *evidence;
} tw_gate_row;

typedef struct tw_gate_opts {
    size_t max_text;    /* the text's cap in bytes (0: none), past which TW_ERR_LIMIT (the counts
                           stand) */
    bool allow_missing; /* missing fixtures, exchanges and checks do not fail the gate */
    bool all;           /* the text lists the known failures and the advisory rows too */
} tw_gate_opts;

typedef struct tw_gate_result {
    size_t regressions;
    size_t improvements;
    size_t known;            /* failed in the baseline, still fail */
    size_t advisory;         /* info-level changes */
    size_t missing_fixtures; /* fixtures with something missing (one row each) */
    size_t missing;          /* baseline verdicts with no counterpart now */
    bool failed;             /* a regression, or something missing without allow_missing */
    tw_gate_row *rows;       /* report order: fixture by fixture */
    size_t nrows, rows_cap;
    tw_buf text; /* Markdown listing each */
} tw_gate_result;

/* out is overwritten (opts NULL: no cap, missing fails, folded). */
tw_status tw_gate_with(const tw_report *baseline, const tw_report *current,
                       const tw_gate_opts *opts, tw_gate_result *out);
/* The same with only a text cap of max_text bytes. */
tw_status tw_gate(const tw_report *baseline, const tw_report *current, size_t max_text,
                  tw_gate_result *out);
void tw_gate_result_free(tw_gate_result *g);
const char *tw_gate_kind_name(tw_gate_kind k);

/* The gate's verdicts as JSON (schema "toolwire-gate", version 1): the
 * reports' names, the counts, whether it passed, each row. */
tw_status tw_gate_to_json(const tw_gate_result *g, const tw_report *baseline,
                          const tw_report *current, bool allow_missing, tw_buf *out);
/* As JUnit XML: one testcase per regression, missing fixture, improvement
 * and known failure; regressions (and missing fixtures, unless
 * allow_missing) fail, known failures and improvements do not. */
tw_status tw_gate_to_junit(const tw_gate_result *g, const tw_report *current, bool allow_missing,
                           tw_buf *out);
/* GitHub Actions workflow commands: one `::error file=…,title=…::…` line
 * per row that fails the gate, naming the fixture file. */
tw_status tw_gate_to_annotations(const tw_gate_result *g, bool allow_missing, tw_buf *out);

#endif
