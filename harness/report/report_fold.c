/*
 * Reading a run (report.h): its summary, knock-on failures folded under their
 * cause, the headline that counts each cause once, the note on answers that
 * did not follow the script directive, and run's stdout listing of
 * mismatches with what lies past its cap.
 */
#include "report.h"
#include "report_int.h"

#include <stdio.h>
#include <string.h>

#include "redact.h"

/* What an exchange's other failures can follow from. */
enum {
    CAUSE_STATUS = 1,  /* an error status (HTTP >= 400) */
    CAUSE_NOREPLY = 2, /* no response (status 0: refused, reset, timeout) */
    CAUSE_NOCALL = 4   /* an answer with no call where the live expectations want one */
};

/* The checks whose failure is the cause, tried in this order. */
static const struct {
    unsigned cause;
    const char *check;
} CAUSES[] = {
    {CAUSE_STATUS | CAUSE_NOREPLY, "RSP-01"},
    {CAUSE_NOCALL, "LIV-01"},
    {CAUSE_NOCALL, "LIV-02"},
};

/*
 * The knock-on table: each check that can only fail because of a cause,
 * and the causes it follows (docs/harness.md lists it). After an error
 * status or no response there is no answer: every live expectation fails
 * "expected an answer to judge" (LIV-01..LIV-06), a session continuation
 * gets no final answer (SES-01), a proxy's answer cannot be held against
 * the script (XLT-07), the decoded result cannot be compared (RES-01). After
 * an answer with no call: the call count (LIV-02, when LIV-01 is the cause)
 * and the agreement with another exchange's calls (LIV-06).
 */
static const struct {
    const char *check;
    unsigned causes;
} KNOCKONS[] = {
    {"LIV-01", CAUSE_STATUS | CAUSE_NOREPLY},
    {"LIV-02", CAUSE_STATUS | CAUSE_NOREPLY | CAUSE_NOCALL},
    {"LIV-03", CAUSE_STATUS | CAUSE_NOREPLY},
    {"LIV-04", CAUSE_STATUS | CAUSE_NOREPLY},
    {"LIV-05", CAUSE_STATUS | CAUSE_NOREPLY},
    {"LIV-06", CAUSE_STATUS | CAUSE_NOREPLY | CAUSE_NOCALL},
    {"SES-01", CAUSE_STATUS | CAUSE_NOREPLY},
    {"XLT-07", CAUSE_STATUS | CAUSE_NOREPLY},
    {"RES-01", CAUSE_STATUS | CAUSE_NOREPLY},
};

static bool failed(const tw_rep_check *c)
{
    return !c->match && c->verdict == TW_V_FAIL;
}

static unsigned knockon_causes(const char *id)
{
    for (size_t i = 0; i < sizeof KNOCKONS / sizeof KNOCKONS[0]; i++)
        if (strcmp(KNOCKONS[i].check, id) == 0)
            return KNOCKONS[i].causes;
    return 0;
}

/* The failed check of e that is the cause of kind `kind`, or NULL. */
static const tw_rep_check *find_cause(const tw_rep_exchange *e, unsigned kind)
{
    for (size_t i = 0; i < sizeof CAUSES / sizeof CAUSES[0]; i++) {
        if (!(CAUSES[i].cause & kind))
            continue;
        for (size_t c = 0; c < e->nchecks; c++)
            if (failed(&e->checks[c]) && strcmp(e->checks[c].id, CAUSES[i].check) == 0)
                return &e->checks[c];
    }
    return NULL;
}

void tw_rep_cause_what(const tw_rep_exchange *e, const tw_rep_check *cause, char *dst, size_t n)
{
    if (strcmp(cause->id, "RSP-01") != 0)
        snprintf(dst, n, "no call");
    else if (e->status == 0)
        snprintf(dst, n, "no response");
    else
        snprintf(dst, n, "HTTP %d", e->status);
}

static bool has_result_check(const tw_rep_exchange *e)
{
    for (size_t c = 0; c < e->nchecks; c++)
        if (strcmp(e->checks[c].id, "RES-01") == 0)
            return true;
    return false;
}

size_t tw_rep_fold(tw_rep_exchange *e)
{
    for (size_t c = 0; c < e->nchecks; c++)
        e->checks[c].follows[0] = e->checks[c].follows_check[0] = '\0';
    e->result_follows = false;
    unsigned kind = e->status == 0 ? CAUSE_NOREPLY : e->status >= 400 ? CAUSE_STATUS : 0;
    const tw_rep_check *cause = kind ? find_cause(e, kind) : NULL;
    if (!cause && e->calls == 0 && (cause = find_cause(e, CAUSE_NOCALL)) != NULL)
        kind = CAUSE_NOCALL;
    if (!cause)
        return 0;
    char what[48];
    tw_rep_cause_what(e, cause, what, sizeof what);
    char cid[16];
    snprintf(cid, sizeof cid, "%s", cause->id);
    size_t n = 0;
    for (size_t c = 0; c < e->nchecks; c++) {
        tw_rep_check *ch = &e->checks[c];
        /* with nothing back, a failure the fixture expects cannot come either: a skip
         * where a failure was expected follows too */
        bool unjudged = kind != CAUSE_NOCALL && !ch->match && ch->verdict == TW_V_SKIP;
        if (ch == cause || (!unjudged && (!failed(ch) || !(knockon_causes(ch->id) & kind))))
            continue;
        snprintf(ch->follows, sizeof ch->follows, "%s", what);
        snprintf(ch->follows_check, sizeof ch->follows_check, "%s", cid);
        n++;
    }
    /* nothing came back to decode: the expected result cannot be compared either
     * (an exchange without its RES-01 verdict; with it, the table above folds it) */
    if (kind != CAUSE_NOCALL && e->result == TW_V_FAIL && !has_result_check(e)) {
        e->result_follows = true;
        n++;
    }
    return n;
}

size_t tw_rep_knockons_of(const tw_rep_exchange *e, const tw_rep_check *cause, char *ids, size_t n)
{
    size_t k = 0, used = 0;
    if (n)
        ids[0] = '\0';
    for (size_t c = 0; c < e->nchecks; c++) {
        const tw_rep_check *ch = &e->checks[c];
        if (!ch->follows[0] || strcmp(ch->follows_check, cause->id) != 0)
            continue;
        k++;
        if (used < n) {
            int w = snprintf(ids + used, n - used, "%s%s", used ? ", " : "", ch->id);
            used += w > 0 ? (size_t)w : 0;
        }
    }
    if (e->result_follows && strcmp(cause->id, "RSP-01") == 0) {
        k++;
        if (used < n)
            snprintf(ids + used, n - used, "%sthe expected result", used ? ", " : "");
    }
    return k;
}

size_t tw_report_headline(const tw_report *r, char *more, size_t n)
{
    if (n)
        more[0] = '\0';
    if (r->n_knockon && n)
        snprintf(more, n, " (+%zu consequence%s)", r->n_knockon, r->n_knockon == 1 ? "" : "s");
    return r->n_mismatch - r->n_knockon;
}

void tw_rep_mismatch_text(const tw_report *r, char *dst, size_t n)
{
    char more[64];
    size_t causes = tw_report_headline(r, more, sizeof more);
    snprintf(dst, n, "%zu%s", causes, more);
}

void tw_report_directive_note(const tw_report *r, char *dst, size_t n)
{
    if (!n)
        return;
    dst[0] = '\0';
    if (!r->n_undirected)
        return;
    for (size_t i = 0; i < r->nfx; i++)
        for (size_t k = 0; !r->fx[i].skipped && k < r->fx[i].nex; k++) {
            const tw_rep_exchange *e = &r->fx[i].ex[k];
            if (e->followed != 0)
                continue;
            snprintf(dst, n,
                     "the server did not follow the script directive in %zu of %zu exchanges that "
                     "carry one "
                     "(first: %.120s#%zu: %.200s); the live expectations of those exchanges judge "
                     "what its model "
                     "chose to answer, not the wire format (docs/live.md)",
                     r->n_undirected, r->n_directed, r->fx[i].name, e->index,
                     e->directive ? e->directive : "");
            return;
        }
}

/* ---- run's stdout listing ---- */

typedef struct listing {
    FILE *out;
    const char *who;
    size_t cap, shown, more, more_knockon;
} listing;

/* Room for one more line? Past the cap, the line is counted. */
static bool room(listing *l)
{
    if (l->shown < l->cap) {
        l->shown++;
        return true;
    }
    l->more++;
    return false;
}

static void list_exchange(listing *l, const tw_rep_fixture *f, const tw_rep_exchange *e)
{
    char oc[300];
    tw_rep_exchange_outcome(e, oc, sizeof oc);
    if (e->result == TW_V_FAIL && !e->result_follows && !has_result_check(e) && room(l))
        fprintf(l->out, "  %smismatch %s#%zu [%s] result: %s\n", l->who, f->name, e->index, oc,
                e->result_detail ? e->result_detail : "");
    for (size_t c = 0; c < e->nchecks; c++) {
        const tw_rep_check *ch = &e->checks[c];
        if (ch->match)
            continue;
        if (ch->follows[0]) {
            /* shown under its cause; counted there when the cause is past the cap */
            continue;
        }
        char ids[400];
        size_t nk = tw_rep_knockons_of(e, ch, ids, sizeof ids);
        if (!room(l)) {
            l->more_knockon += nk;
            continue;
        }
        fprintf(l->out, "  %smismatch %s#%zu [%s] %s: expected %s, got %s: %s\n", l->who, f->name,
                e->index, oc, ch->id, ch->expected == TW_EXPECT_FAIL ? "fail" : "pass or skip",
                tw_verdict_name(ch->verdict), ch->evidence);
        char what[48];
        tw_rep_cause_what(e, ch, what, sizeof what);
        if (nk)
            fprintf(l->out, "  %s  + %zu consequence%s of %s (%s), not counted again: %s\n", l->who,
                    nk, nk == 1 ? "" : "s", what, ch->id, ids);
    }
}

void tw_report_list_mismatches(FILE *out, const tw_report *r, const char *who, size_t cap,
                               const char *path)
{
    if (!out || r->ok)
        return;
    listing l = {.out = out, .who = who ? who : "", .cap = cap};
    for (size_t f = 0; f < r->nfx; f++) {
        const tw_rep_fixture *rf = &r->fx[f];
        if (rf->skipped || rf->match)
            continue;
        if (rf->nex == 0 && room(&l))
            fprintf(out, "  %smismatch %s: %s\n", l.who, rf->name, rf->note ? rf->note : "");
        for (size_t k = 0; k < rf->nex; k++)
            list_exchange(&l, rf, &rf->ex[k]);
    }
    if (l.more) {
        char plus[64] = "";
        if (l.more_knockon)
            snprintf(plus, sizeof plus, " (+%zu consequence%s)", l.more_knockon,
                     l.more_knockon == 1 ? "" : "s");
        fprintf(out, "  %s… and %zu more mismatch%s%s not shown here: every one is in %s\n", l.who,
                l.more, l.more == 1 ? "" : "es", plus, path ? path : "the report");
    }
    char note[600];
    tw_report_directive_note(r, note, sizeof note);
    if (note[0])
        fprintf(out, "  %snote: %s\n", l.who, note);
}

/* ================================================================ summary */

void tw_report_summarise(tw_report *r)
{
    const char *res_id = tw_check_name(TW_CHK_RES_01);
    r->n_fixtures = r->nfx;
    r->n_skipped = r->n_exchanges = r->n_pass = r->n_fail = r->n_skip = r->n_mismatch = 0;
    r->n_knockon = r->n_directed = r->n_undirected = r->n_declared = 0;
    for (size_t i = 0; i < r->nfx; i++) {
        tw_rep_fixture *f = &r->fx[i];
        if (f->skipped) {
            r->n_skipped++;
            continue;
        }
        bool fm = true;
        for (size_t k = 0; k < f->nex; k++) {
            tw_rep_exchange *e = &f->ex[k];
            r->n_exchanges++;
            r->n_knockon += tw_rep_fold(e);
            r->n_directed += e->followed >= 0;
            r->n_undirected += e->followed == 0;
            bool em = !(e->error && e->status == 0 && e->nchecks == 0);
            /* the result counts through its RES-01 verdict; an exchange built
             * without one counts a failed result as a mismatch of its own */
            bool res_check = false;
            for (size_t c = 0; c < e->nchecks; c++) {
                tw_rep_check *ch = &e->checks[c];
                res_check = res_check || strcmp(ch->id, res_id) == 0;
                if (ch->verdict == TW_V_PASS)
                    r->n_pass++;
                else if (ch->verdict == TW_V_FAIL) {
                    r->n_fail++;
                    r->n_declared += ch->declared != NULL;
                } else
                    r->n_skip++;
                if (!ch->match) {
                    em = false;
                    r->n_mismatch++;
                }
            }
            if (!res_check && e->result == TW_V_FAIL) {
                em = false;
                r->n_mismatch++;
            }
            e->match = em;
            fm = fm && em;
        }
        if (f->note && !f->skipped && f->nex == 0)
            fm = false;
        f->match = fm;
    }
    r->ok = r->n_mismatch == 0;
    for (size_t i = 0; i < r->nfx; i++)
        if (!r->fx[i].skipped && !r->fx[i].match)
            r->ok = false;
}
