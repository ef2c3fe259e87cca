/*
 * The conformance report's model (report.h): building it and the outcome
 * tally; the sticky writer its renderers share (report_int.h). The lowest
 * file of the reports: its summary is in report_fold.c, the writing of its
 * files in report_write.c.
 */
#include "report.h"
#include "report_int.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"
#include "files.h"
#include "out.h"

/* ================================================================ writer */

void tw_rw_fail(tw_rw *w, tw_status st)
{
    if (w->st == TW_OK)
        w->st = st;
}

void tw_rw_flush(tw_rw *w, bool all)
{
    if (!w->sink || w->st != TW_OK || !w->b->len || (!all && w->b->len < TW_RW_CHUNK))
        return;
    w->st = w->sink(w->sink_u, w->b->data, w->b->len);
    w->b->len = 0;
    w->b->data[0] = '\0';
}

void tw_rw_append(tw_rw *w, const void *p, size_t n)
{
    if (w->st == TW_OK)
        w->st = tw_buf_append(w->b, p, n);
}

void tw_rw_puts(tw_rw *w, const char *s)
{
    if (w->st == TW_OK)
        w->st = tw_buf_puts(w->b, s);
}

void tw_rw_putc(tw_rw *w, char c)
{
    if (w->st == TW_OK)
        w->st = tw_buf_putc(w->b, c);
}

void tw_rw_printf(tw_rw *w, const char *fmt, ...)
{
    if (w->st != TW_OK)
        return;
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        w->st = TW_ERR_INVALID;
        return;
    }
    if ((size_t)n < sizeof small) {
        w->st = tw_buf_append(w->b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        w->st = TW_ERR_NOMEM;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    w->st = tw_buf_append(w->b, big, (size_t)n);
    free(big);
}

/* ================================================================ model */

void tw_report_init(tw_report *r, const char *backend, const char *target)
{
    memset(r, 0, sizeof *r);
    r->version = TW_REPORT_VERSION;
    r->backend = tw_strdup(backend ? backend : "backend");
    r->target = tw_strdup(target ? target : "");
    char ts[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    r->generated = tw_strdup(ts);
    r->toolwire = tw_strdup(TOOLWIRE_VERSION);
}

static void ex_free(tw_rep_exchange *e)
{
    free(e->method);
    free(e->path);
    free(e->error);
    free(e->result_detail);
    free(e->directive);
    for (size_t i = 0; i < e->nchecks; i++) {
        free(e->checks[i].evidence);
        free(e->checks[i].declared);
    }
    free(e->checks);
}

void tw_report_free(tw_report *r)
{
    for (size_t i = 0; i < r->nfx; i++) {
        tw_rep_fixture *f = &r->fx[i];
        free(f->name);
        free(f->file);
        free(f->backend);
        free(f->note);
        for (size_t k = 0; k < f->nex; k++)
            ex_free(&f->ex[k]);
        free(f->ex);
    }
    free(r->fx);
    free(r->backend);
    free(r->target);
    free(r->generated);
    free(r->toolwire);
    memset(r, 0, sizeof *r);
}

/* p with room for one more of its n items (capacity *cap, doubling); NULL
 * (p unchanged) when there is no memory. */
static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return p;
    size_t nc = *cap ? *cap * 2 : 1;
    if (nc < *cap || nc > SIZE_MAX / size)
        return NULL;
    void *q = realloc(p, nc * size);
    if (q)
        *cap = nc;
    return q;
}

tw_rep_fixture *tw_report_add_fixture(tw_report *r, const char *name, const char *file,
                                      const char *backend)
{
    tw_rep_fixture *nf = grow(r->fx, &r->fx_cap, r->nfx, sizeof *nf);
    if (!nf)
        return NULL;
    r->fx = nf;
    tw_rep_fixture *f = &r->fx[r->nfx++];
    memset(f, 0, sizeof *f);
    f->name = tw_strdup(name ? name : "");
    f->file = tw_strdup(file ? file : "");
    f->backend = tw_strdup(backend ? backend : "");
    f->match = true;
    if (!f->name || !f->file || !f->backend) {
        free(f->name);
        free(f->file);
        free(f->backend);
        r->nfx--;
        return NULL;
    }
    return f;
}

tw_rep_exchange *tw_report_add_exchange(tw_rep_fixture *f)
{
    tw_rep_exchange *ne = grow(f->ex, &f->ex_cap, f->nex, sizeof *ne);
    if (!ne)
        return NULL;
    f->ex = ne;
    tw_rep_exchange *e = &f->ex[f->nex];
    memset(e, 0, sizeof *e);
    e->index = f->nex++;
    e->calls = -1;
    e->followed = -1;
    e->match = true;
    e->result = TW_V_SKIP;
    return e;
}

/* Does verdict v meet expectation x? */
static bool check_match(tw_expect x, tw_verdict v)
{
    return x == TW_EXPECT_ANY || (x == TW_EXPECT_FAIL ? v == TW_V_FAIL : v != TW_V_FAIL);
}

tw_rep_check *tw_report_add_check(tw_rep_exchange *e, const char *id, tw_verdict v, tw_expect x,
                                  int64_t offset, const char *evidence)
{
    tw_rep_check *nc = grow(e->checks, &e->checks_cap, e->nchecks, sizeof *nc);
    if (!nc)
        return NULL;
    e->checks = nc;
    tw_rep_check *c = &e->checks[e->nchecks++];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    c->verdict = v;
    c->expected = x;
    c->offset = offset;
    c->evidence = tw_strdup(evidence ? evidence : "");
    if (!c->evidence) {
        e->nchecks--;
        return NULL;
    }
    c->match = check_match(x, v);
    return c;
}

tw_rep_check *tw_report_set_result_check(tw_rep_exchange *e, tw_expect x)
{
    const char *id = tw_check_name(TW_CHK_RES_01);
    int at = tw_check_index(id);
    char ev[400];
    const char *d = e->result_detail && *e->result_detail ? e->result_detail : NULL;
    if (e->result == TW_V_PASS) {
        d = "the decoded response is the expected result";
    } else if (e->result == TW_V_FAIL) {
        d = d ? d : "the decoded response differs from the expected result";
    } else if (!d) {
        d = "no expected result to compare with";
    } else {
        /* a skip's detail may run on (a client driver's log): its first line */
        size_t n = strcspn(d, "\n");
        bool cut = n > 380 || d[n] != '\0';
        snprintf(ev, sizeof ev, "%.*s%s", (int)(n > 380 ? 380 : n), d, cut ? " …" : "");
        d = ev;
    }
    for (size_t c = 0; c < e->nchecks; c++)
        if (strcmp(e->checks[c].id, id) == 0) {
            char *copy = tw_strdup(d);
            if (!copy)
                return NULL;
            tw_rep_check *ch = &e->checks[c];
            free(ch->evidence);
            free(ch->declared);
            ch->declared = NULL;
            ch->evidence = copy;
            ch->verdict = e->result;
            ch->expected = x;
            ch->offset = -1;
            ch->match = check_match(x, e->result);
            return ch;
        }
    if (!tw_report_add_check(e, id, e->result, x, -1, d))
        return NULL;
    /* to its catalog place: before the first check that comes after it */
    size_t pos = e->nchecks - 1;
    while (pos > 0 && tw_check_index(e->checks[pos - 1].id) > at)
        pos--;
    tw_rep_check me = e->checks[e->nchecks - 1];
    memmove(&e->checks[pos + 1], &e->checks[pos], (e->nchecks - 1 - pos) * sizeof *e->checks);
    e->checks[pos] = me;
    return &e->checks[pos];
}

const char *tw_expect_name(tw_expect x)
{
    return x == TW_EXPECT_FAIL ? "fail" : x == TW_EXPECT_ANY ? "any" : "not-fail";
}

bool tw_expect_from_name(const char *s, tw_expect *out)
{
    if (!s)
        return false;
    if (strcmp(s, "fail") == 0)
        *out = TW_EXPECT_FAIL;
    else if (strcmp(s, "any") == 0)
        *out = TW_EXPECT_ANY;
    else if (strcmp(s, "not-fail") == 0)
        *out = TW_EXPECT_NOT_FAIL;
    else
        return false;
    return true;
}

void tw_rep_exchange_outcome(const tw_rep_exchange *e, char *dst, size_t n)
{
    if (!n)
        return;
    if (e->method && strcmp(e->method, "PARSE") == 0) /* a parser driver's row (parsers/) */
        snprintf(dst, n, "%s", e->error && *e->error ? e->error : "parsed");
    else if (e->status == 0)
        snprintf(dst, n, "no response: %s",
                 e->error && *e->error ? e->error : "the transfer failed");
    else if (e->error && *e->error)
        snprintf(dst, n, "HTTP %d, transfer broke: %s", e->status, e->error);
    else
        snprintf(dst, n, "HTTP %d", e->status);
}

void tw_rep_tally_outcomes(const tw_report *r, tw_outcome_tally *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < r->nfx; i++) {
        if (r->fx[i].skipped)
            continue;
        for (size_t k = 0; k < r->fx[i].nex; k++) {
            char o[200];
            tw_rep_exchange_outcome(&r->fx[i].ex[k], o, sizeof o);
            size_t j = 0;
            while (j < t->n && strcmp(t->what[j], o) != 0)
                j++;
            if (j == t->n) {
                if (t->n == TW_OUTCOME_KINDS) {
                    j = TW_OUTCOME_KINDS - 1;
                    snprintf(t->what[j], sizeof t->what[j], "%s", "other outcomes");
                } else {
                    snprintf(t->what[t->n++], sizeof t->what[j], "%s", o);
                }
            }
            t->count[j]++;
        }
    }
}

void tw_rep_words_of(const tw_report *r, size_t n, tw_rep_words *w)
{
    /* client (parser) reports: every report that holds a check holds a client-library
     * (parser) check */
    size_t judged = 0, clients = 0, parsers = 0;
    for (size_t a = 0; a < n; a++) {
        bool any = false, clt = false, prs = false;
        for (size_t i = 0; i < r[a].nfx && !clt && !prs; i++)
            for (size_t k = 0; k < r[a].fx[i].nex && !clt && !prs; k++)
                for (size_t c = 0; c < r[a].fx[i].ex[k].nchecks && !clt && !prs; c++) {
                    any = true;
                    clt = strncmp(r[a].fx[i].ex[k].checks[c].id, "CLT-", 4) == 0;
                    prs = strncmp(r[a].fx[i].ex[k].checks[c].id, "PRS-", 4) == 0;
                }
        judged += any;
        clients += clt;
        parsers += prs;
    }
    bool client = judged > 0 && clients == judged;
    bool parser = judged > 0 && parsers == judged;
    w->one = client ? "client library" : parser ? "parser" : "backend";
    w->many = client ? "client libraries" : parser ? "parsers" : "backends";
    w->http = !parser;
}

/* ================================================================ files */

void tw_report_file_base(const char *name, char *dst, size_t n)
{
    tw_safe_name(dst, n < TW_REPORT_BASE_MAX ? n : TW_REPORT_BASE_MAX, name);
}

/* A name's base and its place among the names given. */
typedef struct name_base {
    char base[TW_REPORT_BASE_MAX];
    size_t i;
} name_base;

static int cmp_base(const void *a, const void *b)
{
    const name_base *x = a, *y = b;
    int c = strcasecmp(x->base, y->base);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

bool tw_report_names_ok(const char *const *names, size_t n, size_t stride, const char *what,
                        const char *dir, tw_error *err)
{
#define NAME(i) (*(const char *const *)((const char *)names + (i)*stride))
    /* the files a run writes beside the reports (tw_write_comparison) */
    static const char *const reserved[] = {"comparison", NULL};
    name_base *nb = calloc(n ? n : 1, sizeof *nb);
    if (!nb) {
        tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        tw_report_file_base(NAME(i), nb[i].base, sizeof nb[i].base);
        nb[i].i = i;
        for (const char *const *r = reserved; *r; r++)
            if (strcasecmp(nb[i].base, *r) == 0) {
                tw_error_set(
                    err, TW_ERR_INVALID, -1, NULL,
                    "%s '%.200s' would write %.300s/%s.md and %s.html, where the run "
                    "writes its comparison page (%s.md, %s.html)%s; give the %s another name",
                    what, NAME(i), dir, nb[i].base, nb[i].base, *r, *r,
                    strcmp(nb[i].base, *r) ? " on a file system that ignores case" : "", what);
                free(nb);
                return false;
            }
    }
    qsort(nb, n, sizeof *nb, cmp_base);
    for (size_t k = 1; k < n; k++)
        if (strcasecmp(nb[k - 1].base, nb[k].base) == 0) {
            bool same = strcmp(nb[k - 1].base, nb[k].base) == 0;
            tw_error_set(
                err, TW_ERR_INVALID, -1, NULL,
                "%ss '%.200s' and '%.200s' would both write %.300s/%s.json (and its .md, "
                ".junit.xml, .html), one replacing the other%s: a report's file is named "
                "after its %s with each byte outside A-Z a-z 0-9 . _ - written '_' (cut at 199 "
                "bytes); "
                "give them names that differ there",
                what, NAME(nb[k - 1].i), NAME(nb[k].i), dir, nb[k - 1].base,
                same ? "" : " on a file system that ignores case", what);
            free(nb);
            return false;
        }
    free(nb);
    return true;
#undef NAME
}
