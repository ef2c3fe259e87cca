/* Parser conformance: the run of every parser over the decode fixtures of its dialects (parsers.h).
 */
#include "parsers.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clients.h"
#include "decode_fixtures.h"
#include "decode_opts.h"
#include "names.h"
#include "redact.h"
#include "report.h"
#include "run.h"
#include "toolwire/decode.h"
#include "toolwire/json.h"

/* A decode fixture is at most this large (as tw_decode_fixture_check reads them). */
#define FIXTURE_MAX ((size_t)64 << 20)
/* How much of the end of a driver's log a row keeps. */
#define LOG_TAIL 1000u
/* Findings and expected differences listed on stdout, each, per parser. */
#define LIST_CAP 50

/* One parser's run. */
typedef struct prun {
    const tw_parser_spec *spec;
    tw_parser_info info;
    bool dial[TW_PARSER_MAX_DIALECTS]; /* its dialects left by --dialect */
    tw_parser_expect *exp;             /* its expected differences, or NULL */
    tw_report rep;
    size_t nexpected; /* failing checks declared as expected differences */
    bool nomem;
    /* progress: the dialect whose fixtures run now, its first row, when it began */
    char pdialect[TW_PARSER_DIALECT_LEN];
    size_t prow0;
    long pt0;
} prun;

/* One fixture, read once for every parser. */
typedef struct fixture {
    const char *path;
    char name[256]; /* dialect/base */
    char base[200]; /* the file's name without .json */
    const char *dialect;
    const char *rule; /* or NULL */
    cJSON *j;         /* owned */
    char *text;       /* the input (owned) */
    size_t len;
    const cJSON *tools; /* options.tools, or NULL */
    bool forced_open;
    char skip[200]; /* why the protocol cannot carry it, or "" */
    tw_result ref;  /* the reference result */
} fixture;

/* ---- one driver run ---- */

/* The --parse input: the text cut at cuts[0..n) (n 1: one piece). */
static tw_status request_of(const fixture *fx, const size_t *cuts, size_t n, tw_buf *b)
{
    tw_status st = tw_buf_printf(b, "{\"protocol\":%d,\"dialect\":", TW_PARSER_PROTOCOL);
    if (st == TW_OK)
        st = tw_json_write_str(b, fx->dialect, strlen(fx->dialect), 0);
    if (st == TW_OK)
        st = tw_buf_puts(b, ",\"pieces\":[");
    for (size_t i = 0, p = 0; st == TW_OK && i < n; p = cuts[i], i++) {
        if (i)
            st = tw_buf_putc(b, ',');
        if (st == TW_OK)
            st = tw_json_write_str(b, fx->text + p, cuts[i] - p, 0);
    }
    if (st == TW_OK)
        st = tw_buf_putc(b, ']');
    if (st == TW_OK && fx->tools) {
        /* the OpenAI chat form of each declared tool */
        st = tw_buf_puts(b, ",\"tools\":[");
        size_t i = 0;
        for (const cJSON *t = fx->tools->child; st == TW_OK && t; t = t->next, i++) {
            bool openai = tw_json_get(t, "function") != NULL;
            st = tw_buf_printf(b, "%s%s", i ? "," : "",
                               openai ? "" : "{\"type\":\"function\",\"function\":");
            if (st == TW_OK)
                st = tw_json_write(b, t, 0);
            if (st == TW_OK && !openai)
                st = tw_buf_putc(b, '}');
        }
        if (st == TW_OK)
            st = tw_buf_putc(b, ']');
    }
    if (st == TW_OK)
        st = tw_buf_printf(b, ",\"options\":{\"reasoning\":true,\"forced_open\":%s}}",
                           fx->forced_open ? "true" : "false");
    return st;
}

/* The end of the driver's log onto b, scrubbed before the cut. */
static void log_tail(tw_buf *b, const tw_proc_result *pr)
{
    if (!pr->err_len)
        return;
    char *t = tw_secret_tail(pr->err, pr->err_len, LOG_TAIL);
    tw_buf_printf(b, "; driver log%s: ", pr->err_cut || pr->err_len > LOG_TAIL ? " (end)" : "");
    tw_json_write_str(b, t ? t : TW_REDACTED, t ? strlen(t) : strlen(TW_REDACTED), 0);
    free(t);
}

/* Run the driver on n pieces; the output read into *po (true), or a driver
 * finding in bad (false). log set to the end of the driver's log. */
static bool run_driver(const prun *r, const tw_parsers_opts *o, const fixture *fx,
                       const size_t *cuts, size_t n, tw_parser_output *po, char *bad, size_t nbad,
                       tw_buf *log, long *ms)
{
    tw_buf in = {0};
    tw_proc_result pr;
    bad[0] = 0;
    if (request_of(fx, cuts, n, &in) != TW_OK) {
        tw_buf_free(&in);
        snprintf(bad, nbad, "the request could not be written (out of memory)");
        return false;
    }
    long t0 = tw_clients_now_ms();
    tw_status st = tw_proc_run(r->spec->cmd, "--parse", in.data, in.len, o->timeout_ms, o->max_out,
                               o->max_err, &pr);
    *ms = tw_clients_now_ms() - t0;
    tw_buf_free(&in);
    if (st != TW_OK) {
        snprintf(bad, nbad, "crash: the driver could not be started");
        return false;
    }
    tw_error why = {.offset = -1};
    if (pr.timed_out)
        snprintf(bad, nbad, "hang: killed after %ld ms", o->timeout_ms);
    else if (pr.overflow)
        snprintf(bad, nbad, "bad output: more than %zu bytes on stdout (killed)", o->max_out);
    else if (pr.exit_code != 0)
        snprintf(bad, nbad, "crash: the driver exited with status %d%s", pr.exit_code,
                 pr.exit_code < 0 ? " (killed by a signal)" : "");
    else if (!tw_parser_output_read(pr.out, pr.out_len, n, o->limits.max_depth, po, &why)) {
        char *w = tw_secret_clip(why.message, 200);
        snprintf(bad, nbad, "bad output: %s", w ? w : TW_REDACTED);
        free(w);
    }
    log_tail(log, &pr);
    tw_proc_result_free(&pr);
    return bad[0] == 0;
}

/* ---- one row ---- */

/* The verdicts of set into e, a declared difference expected (any). */
static tw_status record(prun *r, const fixture *fx, bool stream, tw_check_set *set,
                        tw_rep_exchange *e)
{
    for (size_t i = 0; i < set->len; i++) {
        tw_check_result *c = &set->items[i];
        tw_parser_diff *d =
            c->verdict == TW_V_FAIL
                ? tw_parser_expect_match(r->exp, fx->dialect, fx->base, fx->rule, stream, c->check)
                : NULL;
        tw_rep_check *rc =
            tw_report_add_check(e, tw_check_name(c->check), c->verdict,
                                d ? TW_EXPECT_ANY : TW_EXPECT_NOT_FAIL, -1, c->evidence);
        if (!rc)
            return TW_ERR_NOMEM;
        if (d) {
            d->used++;
            r->nexpected++;
            tw_buf why = {0};
            if (tw_buf_printf(&why, "%s; %s", d->what, d->reason) != TW_OK) {
                tw_buf_free(&why);
                return TW_ERR_NOMEM;
            }
            rc->declared = why.data;
        }
    }
    return tw_report_set_result_check(e, TW_EXPECT_NOT_FAIL) ? TW_OK : TW_ERR_NOMEM;
}

/* Run one fixture in one mode into e; whole: the one-piece final message
 * (kept by the whole row for the stream row, NULL when it failed). */
static tw_status run_row(prun *r, const tw_parsers_opts *o, const fixture *fx, bool stream,
                         tw_rep_exchange *e, tw_parser_output *whole)
{
    size_t one = fx->len, n = 1;
    size_t *cuts = &one;
    size_t *many = NULL;
    if (stream) {
        uint64_t h = o->seed ^ 0xcbf29ce484222325ull;
        for (const char *p = fx->name; *p; p++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
        many = malloc((fx->len ? fx->len : 1) * sizeof *many);
        if (!many)
            return TW_ERR_NOMEM;
        n = tw_parser_cut(fx->text, fx->len, h, many);
        if (n == 0)
            many[n++] = 0; /* the empty text: one empty piece */
        cuts = many;
    }
    if (!stream && fx->len == 0)
        one = 0;
    e->index = 0;
    e->method = tw_strdup("PARSE");
    e->path = tw_strdup(fx->path);
    e->stream = stream;
    tw_parser_output po;
    memset(&po, 0, sizeof po);
    char bad[300];
    tw_buf log = {0}, det = {0};
    bool ok = run_driver(r, o, fx, cuts, n, &po, bad, sizeof bad, &log, &e->elapsed_ms);
    tw_check_set set = {0};
    if (!ok) {
        e->result = TW_V_FAIL;
        e->error = tw_strdup("the driver failed");
        tw_buf_printf(&det, "driver failure: %s (%zu piece%s)", bad, n, n == 1 ? "" : "s");
        tw_check_set_put(&set, TW_CHK_PRS_08, TW_V_FAIL, -1, "%s", bad);
        for (tw_check_id c = TW_CHK_PRS_01; c <= TW_CHK_PRS_07; c++)
            tw_check_set_put(&set, c, TW_V_SKIP, -1, "driver failure");
    } else {
        const cJSON *fin = po.msgs[po.nmsgs - 1];
        e->result = TW_V_SKIP;
        e->calls = cJSON_GetArraySize(tw_json_get(fin, "tool_calls"));
        tw_buf_printf(&det, "%s, %zu piece%s: the parser read %d call%s",
                      stream ? "stream" : "whole", n, n == 1 ? "" : "s", e->calls,
                      e->calls == 1 ? "" : "s");
        tw_parser_judge_final(fin, &fx->ref, o->limits.max_depth, &set);
        if (stream) {
            tw_parser_judge_stream(po.msgs, po.nmsgs, &set);
            if (whole->nmsgs)
                tw_parser_judge_same(fin, whole->msgs[whole->nmsgs - 1], &set);
            else
                tw_check_set_put(&set, TW_CHK_PRS_07, TW_V_SKIP, -1,
                                 "the one-piece run gave no final message");
        } else {
            tw_check_set_put(&set, TW_CHK_PRS_06, TW_V_SKIP, -1, "one piece");
            tw_check_set_put(&set, TW_CHK_PRS_07, TW_V_SKIP, -1, "one piece");
        }
        tw_check_set_put(&set, TW_CHK_PRS_08, TW_V_PASS, -1, "%zu lines by the protocol", po.nmsgs);
    }
    if (log.len)
        tw_buf_append(&det, log.data, log.len);
    tw_buf_free(&log);
    tw_check_set_sort(&set);
    e->result_detail = det.data;
    tw_status st = record(r, fx, stream, &set, e);
    tw_check_set_free(&set);
    if (!stream && ok)
        *whole = po;
    else
        tw_parser_output_free(&po);
    free(many);
    return st;
}

/* ---- fixtures ---- */

static void fixture_free(fixture *fx)
{
    cJSON_Delete(fx->j);
    free(fx->text);
    tw_result_free(&fx->ref);
}

/* Read one decode fixture; 1 read (fx->skip says when the protocol cannot
 * carry it), 0 not a text decoder's, -1 unreadable (err says why). */
static int fixture_read(const char *path, const tw_limits *L, fixture *fx, tw_error *err)
{
    memset(fx, 0, sizeof *fx);
    fx->path = path;
    fx->j = tw_load_json_file(path, FIXTURE_MAX, L->max_depth, err);
    if (!fx->j)
        return -1;
    fx->dialect = tw_json_get_str(fx->j, "format");
    if (!fx->dialect || !tw_parser_is_dialect(fx->dialect))
        return 0;
    fx->rule = tw_json_get_str(fx->j, "rule");
    const char *slash = strrchr(path, '/');
    snprintf(fx->base, sizeof fx->base, "%s", slash ? slash + 1 : path);
    size_t bl = strlen(fx->base);
    if (bl > 5 && strcmp(fx->base + bl - 5, ".json") == 0)
        fx->base[bl - 5] = 0;
    snprintf(fx->name, sizeof fx->name, "%s/%s", fx->dialect, fx->base);
    if (!tw_decode_fixture_input(fx->j, path, &fx->text, &fx->len, err))
        return -1;
    const cJSON *opts = tw_json_get(fx->j, "options");
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    tw_error why = {.offset = -1};
    if (!tw_opts_from_json(&h, opts, &why)) {
        tw_error_file(err, TW_ERR_INVALID, -1, path, "%s: %s", path, why.message);
        tw_opts_holder_free(&h);
        return -1;
    }
    h.o.limits = *L;
    const tw_format_ops *f = tw_format_find(fx->dialect);
    tw_status st = f->decode(fx->text, fx->len, &h.o, &fx->ref);
    tw_opts_holder_free(&h);
    if (st != TW_OK) {
        tw_error_file(err, st, -1, path, "%s: the reference decoder failed: %s", path,
                      tw_code_message(st));
        return -1;
    }
    /* what the protocol carries: tools and forced_open */
    for (const cJSON *k = opts ? opts->child : NULL; k; k = k->next) {
        if (strcmp(k->string, "tools") == 0)
            fx->tools = cJSON_IsArray(k) ? k : NULL;
        else if (strcmp(k->string, "forced_open") == 0)
            fx->forced_open = cJSON_IsTrue(k);
        else if (!fx->skip[0])
            snprintf(fx->skip, sizeof fx->skip,
                     "option %.60s is toolwire's own: the protocol does not carry it", k->string);
    }
    if (!fx->skip[0] && fx->len > L->max_input_bytes)
        snprintf(fx->skip, sizeof fx->skip, "the input is over limits.max_input_bytes (%zu bytes)",
                 L->max_input_bytes);
    if (!fx->skip[0] && !tw_parser_text_ok(fx->text, fx->len))
        snprintf(fx->skip, sizeof fx->skip,
                 "the input is not UTF-8 without U+0000: a JSON string cannot carry it");
    return 1;
}

/* ---- parsers ---- */

/* Describe the parser into r; false with why. */
static bool describe(prun *r, const tw_parsers_opts *o, tw_error *why)
{
    tw_proc_result pr;
    if (tw_proc_run(r->spec->cmd, "--describe", "", 0, o->timeout_ms, o->max_out, o->max_err,
                    &pr) != TW_OK) {
        tw_error_set(why, TW_ERR_IO, -1, NULL, "cannot start '%s'", r->spec->cmd);
        return false;
    }
    bool ok = false;
    if (pr.timed_out)
        tw_error_set(why, TW_ERR_INVALID, -1, NULL, "--describe ran past %ld ms", o->timeout_ms);
    else if (pr.exit_code != 0) {
        char *t = tw_secret_clip(pr.err, 300);
        size_t tl = t ? strlen(t) : 0;
        while (tl && (t[tl - 1] == '\n' || t[tl - 1] == '\r'))
            t[--tl] = '\0'; /* the log's last line end */
        tw_error_set(why, TW_ERR_INVALID, -1, NULL, "--describe exited with status %d: %s",
                     pr.exit_code, t ? t : TW_REDACTED);
        free(t);
    } else
        ok = tw_parser_describe_parse(pr.out, pr.out_len, o->limits.max_depth, &r->info, why);
    tw_proc_result_free(&pr);
    if (!ok)
        return false;
    size_t left = 0;
    for (size_t i = 0; i < r->info.ndialects; i++) {
        r->dial[i] = o->ndialects == 0;
        for (size_t k = 0; k < o->ndialects; k++)
            if (strcmp(o->dialects[k], r->info.dialects[i]) == 0)
                r->dial[i] = true;
        left += r->dial[i];
    }
    if (!left) {
        tw_buf t = {0};
        for (size_t i = 0; i < r->info.ndialects; i++)
            tw_buf_printf(&t, "%s%s", i ? ", " : "", r->info.dialects[i]);
        tw_error_set(why, TW_ERR_INVALID, -1, NULL,
                     "it reads none of the dialects --dialect names (it reads: %.400s)",
                     t.data ? t.data : "");
        tw_buf_free(&t);
        return false;
    }
    return true;
}

static bool reads(const prun *r, const char *dialect)
{
    for (size_t i = 0; i < r->info.ndialects; i++)
        if (r->dial[i] && strcmp(r->info.dialects[i], dialect) == 0)
            return true;
    return false;
}

/* The rows of one fixture for one parser: [whole], then [stream]. */
static tw_status run_fixture(prun *r, const tw_parsers_opts *o, const fixture *fx)
{
    tw_parser_output whole;
    memset(&whole, 0, sizeof whole);
    tw_status st = TW_OK;
    for (int m = 0; m < 2 && st == TW_OK; m++) {
        char row[300];
        snprintf(row, sizeof row, "%s [%s]", fx->name, m ? "stream" : "whole");
        tw_rep_fixture *rf = tw_report_add_fixture(&r->rep, row, fx->path, r->spec->name);
        if (!rf)
            st = TW_ERR_NOMEM;
        else if (fx->skip[0]) {
            rf->skipped = true;
            rf->note = tw_strdup(fx->skip);
        } else {
            tw_rep_exchange *e = tw_report_add_exchange(rf);
            st = e ? run_row(r, o, fx, m == 1, e, &whole) : TW_ERR_NOMEM;
        }
    }
    tw_parser_output_free(&whole);
    return st;
}

/* The progress line of the dialect r has run since its prow0 (stderr; a CI
 * log gets one line per parser and dialect), then starts the next one. */
static void progress(prun *r, const char *next, bool on)
{
    if (on && r->pdialect[0] && r->rep.nfx > r->prow0) {
        size_t rows = r->rep.nfx - r->prow0, skipped = 0, findings = 0;
        for (size_t i = r->prow0; i < r->rep.nfx; i++) {
            const tw_rep_fixture *f = &r->rep.fx[i];
            skipped += f->skipped;
            for (size_t k = 0; k < f->nex; k++)
                for (size_t c = 0; c < f->ex[k].nchecks; c++)
                    findings += f->ex[k].checks[c].verdict == TW_V_FAIL &&
                                f->ex[k].checks[c].expected == TW_EXPECT_NOT_FAIL;
        }
        fprintf(stderr, "toolwire parsers: %s %s: %zu rows (%zu skipped), %zu findings, %.1f s\n",
                r->spec->name, r->pdialect, rows, skipped, findings,
                (double)(tw_clients_now_ms() - r->pt0) / 1000.0);
    }
    snprintf(r->pdialect, sizeof r->pdialect, "%s", next ? next : "");
    r->prow0 = r->rep.nfx;
    r->pt0 = tw_clients_now_ms();
}

/* The expected differences of the run's parsers: 2 when a file does not read. */
static int load_expected(prun *pr, size_t n, tw_parser_expect *ex, const tw_parsers_opts *o)
{
    for (size_t i = 0; i < o->nexpected; i++) {
        tw_error why = {.offset = -1};
        if (!tw_parser_expect_load(o->expected[i], o->limits.max_depth, &ex[i], &why)) {
            fprintf(stderr, "toolwire parsers: --expected %s\n", why.message);
            return 2;
        }
        bool used = false;
        for (size_t k = 0; k < n; k++)
            if (strcmp(ex[i].parser, pr[k].spec->name) == 0 ||
                strcmp(ex[i].parser, pr[k].info.parser) == 0) {
                if (pr[k].exp) {
                    fprintf(stderr, "toolwire parsers: parser %s: two --expected files (%s, %s)\n",
                            pr[k].spec->name, pr[k].exp->path, ex[i].path);
                    return 2;
                }
                pr[k].exp = &ex[i];
                used = true;
            }
        if (!used)
            fprintf(stderr, "toolwire parsers: --expected %s: no parser named %s runs\n",
                    o->expected[i], ex[i].parser);
    }
    return 0;
}

/* The expected differences of one report, listed apart: at most cap lines. */
static void list_expected(FILE *out, const tw_report *rep, const char *who, size_t cap)
{
    size_t shown = 0, all = 0;
    for (size_t f = 0; f < rep->nfx; f++)
        for (size_t k = 0; k < rep->fx[f].nex; k++)
            for (size_t c = 0; c < rep->fx[f].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &rep->fx[f].ex[k].checks[c];
                if (ch->verdict != TW_V_FAIL || !ch->declared)
                    continue;
                if (all++ < cap) {
                    char *ev = tw_secret_clip(ch->evidence ? ch->evidence : "", 600);
                    char *dc = tw_secret_clip(ch->declared, 600);
                    fprintf(out, "  %sexpected %s %s: %s (expected difference: %s)\n", who,
                            rep->fx[f].name, ch->id, ev ? ev : TW_REDACTED, dc ? dc : TW_REDACTED);
                    free(ev);
                    free(dc);
                    shown++;
                }
            }
    if (all > shown)
        fprintf(out, "  %s… and %zu more expected differences\n", who, all - shown);
}

/* What one parser's run says at its end: 0, 1 a finding, 2 not judged. */
static int finish_parser(prun *r, const char *outdir, const tw_parsers_opts *o)
{
    tw_report *rep = &r->rep;
    tw_error why = {.offset = -1};
    int rc = 0;
    tw_report_summarise(rep);
    bool written = tw_report_write_all(rep, outdir, &why) == TW_OK;
    if (!written) {
        fprintf(stderr, "toolwire parsers: %s\n", why.message);
        rc = 2;
    }
    if (!rep->ok && rc == 0)
        rc = 1;
    if (rep->n_fixtures == 0) {
        fprintf(stderr,
                "toolwire parsers: parser %s: no decode fixture of its dialects is "
                "selected; nothing was judged\n",
                rep->backend);
        rc = 2;
    }
    /* an entry is stale when its dialect ran and it matched nothing; one of
     * a dialect left out by --dialect was never tried */
    for (size_t i = 0; r->exp && i < r->exp->n; i++)
        if (!r->exp->d[i].used &&
            (strcmp(r->exp->d[i].dialect, "*") == 0 || reads(r, r->exp->d[i].dialect)))
            fprintf(stderr,
                    "toolwire parsers: parser %s: %s: differences[%zu] (%s) matched no finding\n",
                    rep->backend, r->exp->path, i, r->exp->d[i].what);
    char base[TW_REPORT_BASE_MAX];
    tw_report_file_base(rep->backend, base, sizeof base);
    char where[4400];
    snprintf(where, sizeof where, "%s/%s.json (and .md, .html)", outdir, base);
    if (o->out && !o->quiet)
        fprintf(o->out,
                "parser %s (%s): %s, %zu rows, %zu skipped, %zu checks pass, %zu fail, %zu "
                "expected differences -> %s%s%s%s\n",
                rep->backend, rep->target, rep->ok ? "ok" : "FAIL", rep->n_fixtures, rep->n_skipped,
                rep->n_pass, rep->n_fail, r->nexpected, written ? outdir : "not written",
                written ? "/" : "", written ? base : "", written ? ".json" : "");
    char who[300] = "";
    if (o->quiet)
        snprintf(who, sizeof who, "parser %.200s: ", rep->backend);
    if (o->out && !rep->ok)
        tw_report_list_mismatches(o->out, rep, who, LIST_CAP, written ? where : NULL);
    if (o->out && r->nexpected)
        list_expected(o->out, rep, who, LIST_CAP);
    return rc;
}

static bool commands_fit(const tw_parser_spec *p, size_t n, const tw_limits *L)
{
    size_t cap = L->max_line_bytes < TW_PROC_MAX_CMD ? L->max_line_bytes : TW_PROC_MAX_CMD;
    for (size_t i = 0; i < n; i++)
        if (strlen(p[i].cmd) > cap) {
            fprintf(stderr,
                    "toolwire parsers: parser %s: its command is %zu bytes, over the limit of %zu "
                    "bytes\n",
                    p[i].name, strlen(p[i].cmd), cap);
            return false;
        }
    return true;
}

static void target_of(prun *r)
{
    tw_buf t = {0};
    tw_buf_printf(&t, "%s %s (", r->info.parser, r->info.version);
    size_t k = 0;
    for (size_t i = 0; i < r->info.ndialects; i++)
        if (r->dial[i])
            tw_buf_printf(&t, "%s%s%s%s%s", k++ ? ", " : "", r->info.dialects[i],
                          r->info.notes[i][0] ? " [" : "", r->info.notes[i],
                          r->info.notes[i][0] ? "]" : "");
    tw_buf_printf(&t, ") via %s", r->spec->cmd);
    tw_report_init(&r->rep, r->spec->name, t.data ? t.data : r->spec->name);
    tw_buf_free(&t);
}

int tw_parsers_run_all(const tw_parser_spec *p, size_t n, const char *outdir,
                       const tw_parsers_opts *oin)
{
    tw_parsers_opts o = *oin;
    if (o.timeout_ms <= 0)
        o.timeout_ms = 10000;
    if (!o.max_out)
        o.max_out = (size_t)8 << 20;
    if (!o.max_err)
        o.max_err = (size_t)64 << 10;
    tw_limits_resolve(&o.limits, &oin->limits);
    tw_error why = {.offset = -1};
    if (!tw_report_names_ok(n ? &p[0].name : NULL, n, sizeof *p, "parser", outdir, &why)) {
        fprintf(stderr, "toolwire parsers: %s\n", why.message);
        return 2;
    }
    if (!commands_fit(p, n, &o.limits))
        return 2;
    /* an unusable --out stops the run before any driver runs */
    if (!tw_report_dir_ready(outdir, &why)) {
        fprintf(stderr, "toolwire parsers: --out: %s\n", why.message);
        return 2;
    }
    for (size_t k = 0; k < o.ndialects; k++)
        if (!tw_parser_is_dialect(o.dialects[k])) {
            size_t nd = 0;
            const char *const *names = tw_parser_dialects(&nd);
            tw_error e = {.offset = -1};
            tw_unknown_name_error(&e, "--dialect (a text decoder)", o.dialects[k], names, nd);
            fprintf(stderr, "toolwire parsers: %s\n", e.message);
            return 2;
        }
    char **files = NULL;
    const char *dir = o.fixtures ? o.fixtures : "tests/data/decode";
    long nf = tw_list_files(dir, ".json", &files);
    if (nf <= 0) {
        fprintf(stderr, "toolwire parsers: no decode fixture under '%s'\n", dir);
        free(files);
        return 2;
    }
    prun *pr = calloc(n ? n : 1, sizeof *pr);
    tw_parser_expect *ex = calloc(o.nexpected ? o.nexpected : 1, sizeof *ex);
    int rc = pr && ex ? 0 : 2;
    /* a driver that exits before reading all of its input must not kill this process */
    struct sigaction ign, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        pr[i].spec = &p[i];
        if (!describe(&pr[i], &o, &why)) {
            char *w = tw_secret_clip(why.message, 400);
            fprintf(stderr, "toolwire parsers: parser %s: %s\n", p[i].name, w ? w : TW_REDACTED);
            free(w);
            rc = 2;
        }
    }
    if (rc == 0)
        rc = load_expected(pr, n, ex, &o);
    for (size_t i = 0; rc == 0 && i < n; i++)
        target_of(&pr[i]);
    size_t ninit = rc == 0 ? n : 0;
    /* each fixture read once, run through every parser that reads its dialect */
    for (long fi = 0; rc == 0 && fi < nf; fi++) {
        fixture fx;
        int fr = fixture_read(files[fi], &o.limits, &fx, &why);
        if (fr < 0) {
            fprintf(stderr, "toolwire parsers: %s\n", why.message);
            rc = 2;
        }
        for (size_t i = 0; fr > 0 && i < n; i++) {
            if (!reads(&pr[i], fx.dialect))
                continue;
            if (strcmp(pr[i].pdialect, fx.dialect) != 0)
                progress(&pr[i], fx.dialect, !o.quiet);
            if (run_fixture(&pr[i], &o, &fx) != TW_OK)
                pr[i].nomem = true;
        }
        fixture_free(&fx);
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        progress(&pr[i], NULL, !o.quiet);
    sigaction(SIGPIPE, &old_pipe, NULL);
    tw_report *reps = calloc(ninit ? ninit : 1, sizeof *reps);
    size_t nrep = 0;
    for (size_t i = 0; rc != 2 && i < ninit; i++) {
        if (pr[i].nomem) {
            fprintf(stderr, "toolwire parsers: parser %s: out of memory\n", p[i].name);
            rc = 2;
            continue;
        }
        int prc = finish_parser(&pr[i], outdir, &o);
        rc = prc > rc ? prc : rc;
        if (reps)
            reps[nrep++] = pr[i].rep;
    }
    if (nrep && tw_write_comparison(reps, nrep, outdir, &why) != TW_OK) {
        fprintf(stderr, "toolwire parsers: %s\n", why.message);
        rc = 2;
    }
    for (size_t i = 0; i < ninit; i++)
        tw_report_free(&pr[i].rep);
    for (size_t i = 0; ex && i < o.nexpected; i++)
        tw_parser_expect_free(&ex[i]);
    free(reps);
    free(ex);
    free(pr);
    tw_free_list(files, nf);
    return rc;
}
