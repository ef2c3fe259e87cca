/* Client conformance: the run of every client over its scenarios, --jobs at a time (clients.h). */
#include "clients.h"
#include "redact.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mock.h"
#include "progress.h"
#include "report.h"
#include "run.h"
#include "toolwire/json.h"

/* ---- the run ---- */

/* Which modes fit the exchange: a recorded stream only the streaming modes, a
 * recorded whole answer only the others, an error status or no recording all. */
static bool mode_fits(const tw_fx_exchange *x, const char *mode)
{
    if (!x->has_response || x->resp.status >= 400)
        return true;
    return tw_driver_mode_streams(mode) == x->resp.stream;
}

static const char *client_endpoint(const tw_fixture *f)
{
    return f->backend && strcmp(f->backend, "anthropic") == 0 ? "anthropic" : "openai";
}

/* The --run input for one exchange. */
static char *run_input(const tw_fixture *f, size_t k, const char *mode, const char *url,
                       long client_timeout)
{
    char scen[256];
    snprintf(scen, sizeof scen, "%s#%zu", f->name, k);
    cJSON *in = cJSON_CreateObject();
    cJSON_AddNumberToObject(in, "protocol", TW_DRIVER_PROTOCOL);
    cJSON_AddStringToObject(in, "base_url", url);
    cJSON_AddStringToObject(in, "mode", mode);
    cJSON_AddStringToObject(in, "scenario", scen);
    cJSON_AddItemToObject(in, "request",
                          f->exchanges[k].req.body ? cJSON_Duplicate(f->exchanges[k].req.body, true)
                                                   : cJSON_CreateObject());
    cJSON *h = cJSON_AddObjectToObject(in, "headers");
    cJSON_AddStringToObject(h, TW_MOCK_EXCHANGE_HEADER, scen);
    cJSON_AddNumberToObject(in, "timeout_ms", (double)client_timeout);
    char *s = cJSON_PrintUnformatted(in);
    cJSON_Delete(in);
    return s;
}

/* The end of the driver's log, for the evidence: its last
 * TW_CLIENTS_LOG_TAIL bytes at most, scrubbed whole first and cut after
 * (tw_secret_tail), so a key the cut would split is not kept in part. */
static void log_tail(tw_buf *b, const tw_proc_result *pr)
{
    if (!pr->err_len)
        return;
    char *t = tw_secret_tail(pr->err, pr->err_len, TW_CLIENTS_LOG_TAIL);
    tw_buf_printf(
        b, "; driver log%s: ", pr->err_cut || pr->err_len > TW_CLIENTS_LOG_TAIL ? " (end)" : "");
    tw_driver_quote(b, t ? t : TW_REDACTED);
    free(t);
}

typedef struct run_ctx {
    const tw_client_spec *c;
    const tw_driver_info *info;
    const tw_clients_opts *o;
    tw_limits L;
} run_ctx;

/* One exchange through the driver into e; TW_ERR_NOMEM when a verdict could not be recorded. */
static tw_status run_one(const run_ctx *cx, const tw_fixture *f, size_t k, const char *mode,
                         tw_rep_exchange *e)
{
    const tw_fx_exchange *x = &f->exchanges[k];
    e->index = k;
    e->method = tw_strdup(x->req.method);
    e->path = tw_strdup(x->req.path);
    e->stream = tw_driver_mode_streams(mode);
    tw_buf det = {0};
    tw_mock_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.profile = "auto";
    mo.limits = cx->L;
    mo.threads = 2;
    tw_mock *m = NULL;
    tw_error why = {.offset = -1};
    if (tw_mock_start(f, 1, &mo, &m, &why) != TW_OK) {
        e->result = TW_V_FAIL;
        tw_buf_printf(&det, "mock backend did not start: %s", why.message);
        e->result_detail = det.data;
        return tw_report_set_result_check(e, TW_EXPECT_NOT_FAIL) ? TW_OK : TW_ERR_NOMEM;
    }
    char *in = run_input(f, k, mode, tw_mock_url(m), cx->o->client_timeout_ms);
    tw_proc_result pr;
    long t0 = tw_clients_now_ms();
    tw_status st = in ? tw_proc_run(cx->c->cmd, "--run", in, strlen(in), cx->o->timeout_ms,
                                    cx->o->max_out, cx->o->max_err, &pr)
                      : TW_ERR_NOMEM;
    e->elapsed_ms = tw_clients_now_ms() - t0;
    free(in);
    tw_mock_record *recs = NULL;
    size_t nrec = 0;
    tw_mock_records(m, 0, &recs, &nrec);
    tw_mock_stop(m);
    e->attempts = (int)nrec;
    e->status = nrec ? recs[nrec - 1].status : 0;
    cJSON *out = NULL;
    char bad[300] = "";
    if (st != TW_OK)
        snprintf(bad, sizeof bad, "the driver could not be started");
    else if (pr.timed_out)
        snprintf(bad, sizeof bad, "the driver ran past %ld ms and was killed", cx->o->timeout_ms);
    else if (pr.overflow)
        snprintf(bad, sizeof bad, "the driver printed more than %zu bytes and was killed",
                 cx->o->max_out);
    else if (pr.exit_code != 0)
        snprintf(bad, sizeof bad, "the driver exited with status %d", pr.exit_code);
    else if (tw_json_parse(pr.out, pr.out_len, cx->L.max_depth, &out, NULL) != TW_OK)
        snprintf(bad, sizeof bad, "the driver did not print one JSON object");
    else if (!tw_driver_output_valid(out, &why)) {
        char *wm = tw_secret_clip(why.message, 200);
        snprintf(bad, sizeof bad, "the driver broke the protocol: %s", wm ? wm : TW_REDACTED);
        free(wm);
    }
    tw_check_set set = {0};
    if (bad[0]) {
        /* no verdict: the driver failed */
        e->result = TW_V_FAIL;
        tw_buf_printf(&det, "driver failure: %s", bad);
        for (tw_check_id c = TW_CHK_CLT_01; c <= TW_CHK_CLT_07; c++)
            tw_check_set_put(&set, c, TW_V_SKIP, -1, "driver failure");
    } else {
        e->result = TW_V_SKIP;
        tw_buf_printf(&det, "%s: client ", mode);
        tw_driver_output_summary(out, &det);
        const cJSON *rq = cJSON_GetObjectItemCaseSensitive(out, "requests");
        if (cJSON_IsNumber(rq))
            tw_buf_printf(&det, "; %d HTTP request%s", rq->valueint, rq->valueint == 1 ? "" : "s");
        tw_clients_judge(x, out, recs, nrec, &set);
    }
    if (st == TW_OK)
        log_tail(&det, &pr);
    tw_status rec = TW_OK;
    for (size_t i = 0; i < set.len && rec == TW_OK; i++) {
        const tw_check_def *d = tw_check_def_of(set.items[i].check);
        if (!tw_report_add_check(e, set.items[i].id, set.items[i].verdict,
                                 d && d->sev == TW_SEV_INFO ? TW_EXPECT_ANY : TW_EXPECT_NOT_FAIL,
                                 -1, set.items[i].evidence))
            rec = TW_ERR_NOMEM;
    }
    e->result_detail = det.data;
    if (rec == TW_OK && !tw_report_set_result_check(e, TW_EXPECT_NOT_FAIL))
        rec = TW_ERR_NOMEM;
    tw_check_set_free(&set);
    cJSON_Delete(out);
    tw_mock_records_free(recs, nrec);
    if (st == TW_OK)
        tw_proc_result_free(&pr);
    return rec;
}

/* Does a driver's log say that Node could not load a module (the drivers'
 * packages are not installed)? The line that says so, or NULL. */
static const char *module_missing(const char *log)
{
    static const char *const marks[] = {"Cannot find package", "Cannot find module",
                                        "ERR_MODULE_NOT_FOUND", NULL};
    for (size_t i = 0; marks[i]; i++) {
        const char *p = strstr(log, marks[i]);
        if (p) {
            while (p > log && p[-1] != '\n')
                p--;
            return p;
        }
    }
    return NULL;
}

typedef enum { DESC_OK, DESC_BAD, DESC_NO_MODULE } desc_status;

/* Ask the driver what it is. */
static desc_status describe(const tw_client_spec *c, const tw_clients_opts *o, tw_driver_info *info,
                            tw_error *err)
{
    tw_proc_result pr;
    if (tw_proc_run(c->cmd, "--describe", "", 0, o->timeout_ms, o->max_out, o->max_err, &pr) !=
        TW_OK) {
        tw_error_set(err, TW_ERR_IO, -1, NULL, "cannot start '%s'", c->cmd);
        return DESC_BAD;
    }
    desc_status ds = DESC_BAD;
    const char *nm = pr.exit_code != 0 && !pr.timed_out ? module_missing(pr.err) : NULL;
    if (pr.timed_out)
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "'%s --describe' ran past %ld ms", c->cmd,
                     o->timeout_ms);
    else if (nm) {
        size_t n = strcspn(nm, "\n");
        char *t = tw_secret_clip(nm, n < 300 ? n : 300);
        tw_error_set(err, TW_ERR_IO, -1, NULL, "its driver cannot load a module (%.*s)",
                     (int)(n < 300 ? n : 300), t ? t : TW_REDACTED);
        free(t);
        ds = DESC_NO_MODULE;
    } else if (pr.exit_code != 0) {
        char *t = tw_secret_clip(pr.err, 300);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "'%s --describe' exited with status %d: %s",
                     c->cmd, pr.exit_code, t ? t : TW_REDACTED);
        free(t);
    } else if (tw_driver_describe_parse(pr.out, pr.out_len, info, err))
        ds = DESC_OK;
    tw_proc_result_free(&pr);
    return ds;
}

bool tw_clients_modules_missing(const char *dir)
{
    struct stat sb;
    tw_buf p = {0};
    tw_buf_printf(&p, "%s/package.json", dir);
    bool has_pkg = p.data && stat(p.data, &sb) == 0 && S_ISREG(sb.st_mode);
    tw_buf_reset(&p);
    tw_buf_printf(&p, "%s/node_modules", dir);
    bool has_mods = p.data && stat(p.data, &sb) == 0 && S_ISDIR(sb.st_mode);
    tw_buf_free(&p);
    return has_pkg && !has_mods;
}

tw_status tw_clients_install(const char *dir, const tw_clients_opts *o, tw_error *err)
{
    if (strchr(dir, '\'')) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "cannot install in '%s': a quote in the path",
                     dir);
        return TW_ERR_INVALID;
    }
    /* npm's own output is captured and only its end shown, through the
     * redacting stderr */
    tw_proc_result pr;
    if (tw_proc_run("sh -c 'cd \"$1\" && exec " TW_CLIENTS_INSTALL "' npm-ci", dir, "", 0,
                    TW_CLIENTS_INSTALL_MS, o->max_out ? o->max_out : (size_t)1 << 20,
                    o->max_err ? o->max_err : (size_t)64 << 10, &pr) != TW_OK) {
        tw_error_set(err, TW_ERR_IO, -1, NULL, "cannot start `cd %s && " TW_CLIENTS_INSTALL "`",
                     dir);
        return TW_ERR_IO;
    }
    tw_status st = TW_OK;
    if (pr.timed_out || pr.exit_code != 0) {
        char *t = tw_secret_tail(pr.err, pr.err_len, 600);
        if (pr.timed_out)
            tw_error_set(err, TW_ERR_IO, -1, NULL,
                         "`cd %s && " TW_CLIENTS_INSTALL "` ran past %ld s", dir,
                         TW_CLIENTS_INSTALL_MS / 1000);
        else
            tw_error_set(err, TW_ERR_IO, -1, NULL,
                         "`cd %s && " TW_CLIENTS_INSTALL "` exited with status %d: %s", dir,
                         pr.exit_code, t ? t : TW_REDACTED);
        free(t);
        st = TW_ERR_IO;
    }
    tw_proc_result_free(&pr);
    return st;
}

/* ---- planning and running the rows, --jobs at a time ---- */

/* One client's rows of one fixture: what one thread runs, its exchanges in order. */
typedef struct unit {
    size_t client;
    const tw_fixture *f;
    size_t row0, nrows; /* its rows in the client's report */
} unit;

typedef struct client_run {
    run_ctx cx;
    tw_driver_info info;
    tw_report rep;
    size_t *row_mode; /* the mode (index in info.modes) of each row */
    bool nomem;
} client_run;

typedef struct pool {
    client_run *cr;
    unit *u;
    size_t nu, next, done;
    pthread_mutex_t mu;
    const tw_clients_opts *o;
    tw_progress *pg; /* NULL: no progress */
} pool;

/* The rows of one client, without verdicts yet, and its units. */
static tw_status plan_client(const tw_fixture_set *fs, pool *p, size_t ci)
{
    client_run *r = &p->cr[ci];
    tw_buf target = {0};
    tw_buf_printf(&target, "%s %s (%s) via %s", r->info.client, r->info.version, r->info.endpoint,
                  r->cx.c->cmd);
    if (!target.data)
        return TW_ERR_NOMEM;
    tw_report_init(&r->rep, r->cx.c->name, target.data);
    tw_buf_free(&target);
    for (size_t fi = 0; fi < fs->n; fi++) {
        const tw_fixture *f = &fs->fx[fi];
        if (strcmp(client_endpoint(f), r->info.endpoint) != 0)
            continue;
        size_t row0 = r->rep.nfx;
        for (size_t mi = 0; mi < r->info.nmodes; mi++) {
            const char *mode = r->info.modes[mi];
            bool streams = tw_driver_mode_streams(mode);
            /* rows line up across clients: one "stream" and one "whole" mode by name, others by
             * theirs */
            bool first = true;
            for (size_t k = 0; k < mi; k++)
                if (tw_driver_mode_streams(r->info.modes[k]) == streams)
                    first = false;
            tw_buf name = {0};
            tw_buf_printf(&name, "%s [%s]", f->name, first ? streams ? "stream" : "whole" : mode);
            tw_rep_fixture *rf = NULL;
            for (size_t k = 0; k < f->nexchanges; k++) {
                const tw_fx_exchange *x = &f->exchanges[k];
                if (!x->expect_client || !mode_fits(x, mode))
                    continue;
                if (!rf) {
                    size_t *nm = realloc(r->row_mode, (r->rep.nfx + 1) * sizeof *nm);
                    if (nm)
                        r->row_mode = nm;
                    if (!nm || !name.data ||
                        !(rf = tw_report_add_fixture(&r->rep, name.data, f->path, r->cx.c->name))) {
                        tw_buf_free(&name);
                        return TW_ERR_NOMEM;
                    }
                    r->row_mode[r->rep.nfx - 1] = mi;
                }
                tw_rep_exchange *e = tw_report_add_exchange(rf);
                if (!e) {
                    tw_buf_free(&name);
                    return TW_ERR_NOMEM;
                }
                e->index = k;
            }
            tw_buf_free(&name);
        }
        /* p->u has room for every client and file */
        if (r->rep.nfx > row0)
            p->u[p->nu++] = (unit){ci, f, row0, r->rep.nfx - row0};
    }
    return TW_OK;
}

/* Run a unit's exchanges in order; then, one unit at a time, its progress
 * line and the rows that failed. */
static void run_unit(pool *p, const unit *u)
{
    client_run *r = &p->cr[u->client];
    long t0 = tw_clients_now_ms();
    size_t nex = 0, nmis = 0;
    bool nomem = false;
    for (size_t ri = u->row0; ri < u->row0 + u->nrows; ri++) {
        tw_rep_fixture *rf = &r->rep.fx[ri];
        for (size_t k = 0; k < rf->nex; k++) {
            tw_rep_exchange *e = &rf->ex[k];
            if (run_one(&r->cx, u->f, e->index, r->info.modes[r->row_mode[ri]], e) != TW_OK)
                nomem = true;
            nex++;
            /* the result counts through its RES-01 verdict, a driver failure too */
            for (size_t c = 0; c < e->nchecks; c++)
                nmis += !e->checks[c].match;
        }
    }
    pthread_mutex_lock(&p->mu);
    r->nomem = r->nomem || nomem;
    p->done++;
    pthread_mutex_unlock(&p->mu);
    tw_progress_item(p->pg, r->cx.c->name, u->f->path, nex, nmis,
                     (double)(tw_clients_now_ms() - t0) / 1000.0, NULL);
}

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next < p->nu ? p->next++ : p->nu;
        pthread_mutex_unlock(&p->mu);
        if (i == p->nu)
            return NULL;
        run_unit(p, &p->u[i]);
    }
}

/* Every unit, over jobs threads (the calling one among them). */
static void run_units(pool *p, size_t jobs)
{
    pthread_t th[TW_CLIENTS_MAX_JOBS];
    size_t nt = 0;
    while (nt + 1 < jobs && nt + 1 < p->nu && pthread_create(&th[nt], NULL, worker, p) == 0)
        nt++;
    worker(p);
    for (size_t i = 0; i < nt; i++)
        pthread_join(th[i], NULL);
}

/* The drivers' modules: installed with --install, or exit 2 saying how. */
static bool modules_ready(const tw_clients_opts *o, bool *installed)
{
    tw_error why = {.offset = -1};
    if (!o->install) {
        fprintf(
            stderr,
            "toolwire clients: the drivers' node modules are not installed: run `cd %s && npm ci` "
            "(or give --install)\n",
            o->modules_dir);
        return false;
    }
    if (*installed)
        return false;
    fprintf(stderr,
            "toolwire clients: installing the drivers' node modules: cd %s && " TW_CLIENTS_INSTALL
            "\n",
            o->modules_dir);
    *installed = true;
    if (tw_clients_install(o->modules_dir, o, &why) != TW_OK) {
        fprintf(stderr, "toolwire clients: %s\n", why.message);
        return false;
    }
    return true;
}

/* Describe every client into p->cr; the count described, or -1 to stop with exit 2. */
static long describe_all(const tw_client_spec *c, size_t nc, pool *p, const tw_clients_opts *o,
                         int *rc)
{
    bool installed = false;
    tw_error why = {.offset = -1};
    if (o->modules_dir && tw_clients_modules_missing(o->modules_dir) &&
        !modules_ready(o, &installed))
        return -1;
    size_t done = 0;
    for (size_t i = 0; i < nc; i++) {
        client_run *r = &p->cr[done];
        desc_status ds = describe(&c[i], o, &r->info, &why);
        if (ds == DESC_NO_MODULE && o->modules_dir && o->install && !installed) {
            if (!modules_ready(o, &installed))
                return -1;
            ds = describe(&c[i], o, &r->info, &why);
        }
        if (ds == DESC_NO_MODULE) {
            fprintf(stderr, "toolwire clients: client %s: %s: ", c[i].name, why.message);
            if (o->modules_dir)
                fprintf(stderr,
                        "the drivers' node modules are not installed: run `cd %s && npm ci`%s\n",
                        o->modules_dir, o->install ? "" : " (or give --install)");
            else
                fprintf(stderr, "install the driver's packages (a Node driver: npm ci beside its "
                                "package.json)\n");
            return -1;
        }
        if (ds != DESC_OK) {
            fprintf(stderr, "toolwire clients: client %s: %s\n", c[i].name, why.message);
            *rc = 2;
            continue;
        }
        r->cx.c = &c[i];
        r->cx.o = o;
        done++;
    }
    return (long)done;
}

/* What one client's run says at its end; its exit status (0, 1 judged with a
 * failure, 2 not judged: no scenario of its endpoint, a report not written). */
static int finish_client(client_run *r, const char *outdir, const tw_clients_opts *o)
{
    tw_report *rep = &r->rep;
    tw_error why = {.offset = -1};
    int rc = 0;
    tw_report_summarise(rep);
    bool written = tw_report_write_all(rep, outdir, &why) == TW_OK;
    if (!written) {
        fprintf(stderr, "toolwire clients: %s\n", why.message);
        rc = 2;
    }
    if (!rep->ok && rc == 0)
        rc = 1;
    if (rep->n_fixtures == 0) {
        fprintf(
            stderr,
            "toolwire clients: client %s (endpoint %s): no scenario of its endpoint is selected; "
            "nothing was judged\n",
            rep->backend, r->info.endpoint);
        rc = 2;
    }
    char base[TW_REPORT_BASE_MAX];
    tw_report_file_base(rep->backend, base, sizeof base);
    /* driver failures are listed, --quiet or not (at most 50 a client, then where the rest are) */
    size_t nfail = 0;
    for (size_t f = 0; f < rep->nfx; f++)
        for (size_t k = 0; k < rep->fx[f].nex; k++) {
            const char *d = rep->fx[f].ex[k].result_detail;
            if (!d || strncmp(d, "driver failure: ", 16) != 0 || nfail++ >= 50)
                continue;
            char *dc = tw_secret_clip(d, 1200);
            fprintf(stderr, "toolwire clients: client %s: %s#%zu: %s\n", rep->backend,
                    rep->fx[f].name, rep->fx[f].ex[k].index, dc ? dc : TW_REDACTED);
            free(dc);
        }
    if (nfail > 50)
        fprintf(stderr,
                "toolwire clients: client %s: %zu driver failures in all, %zu more than listed "
                "here: %s%s%s%s%s\n",
                rep->backend, nfail, nfail - 50,
                written ? "every one is in " : "the report that holds them could not be written",
                written ? outdir : "", written ? "/" : "", written ? base : "",
                written ? ".json" : "");
    if (o->out && !o->quiet) {
        fprintf(o->out,
                "client %s (%s): %s, %zu scenario rows, %zu exchanges, %zu pass, %zu fail, %zu "
                "skip -> %s%s%s%s\n",
                rep->backend, rep->target, rep->ok ? "ok" : "FAIL", rep->n_fixtures,
                rep->n_exchanges, rep->n_pass, rep->n_fail, rep->n_skip,
                written ? outdir : "not written", written ? "/" : "", written ? base : "",
                written ? ".json" : "");
    }
    if (o->out && !rep->ok) {
        /* the same listing as run's: capped, then where the rest are */
        char who[300] = "", where[4400];
        if (o->quiet)
            snprintf(who, sizeof who, "client %.200s: ", rep->backend);
        snprintf(where, sizeof where, "%s/%s.json (and .md, .html)", outdir, base);
        tw_report_list_mismatches(o->out, rep, who, 50, written ? where : NULL);
    }
    return rc;
}

/* A driver command is one line of at most max_line_bytes, and one argument
 * of /bin/sh (the system's cap on one). */
static bool commands_fit(const tw_client_spec *c, size_t nc, const tw_limits *L)
{
    size_t cap = L->max_line_bytes < TW_PROC_MAX_CMD ? L->max_line_bytes : TW_PROC_MAX_CMD;
    for (size_t i = 0; i < nc; i++) {
        size_t n = strlen(c[i].cmd);
        if (n > cap) {
            fprintf(stderr,
                    "toolwire clients: client %s: its command is %zu bytes, over the limit of %zu "
                    "bytes (%s)\n",
                    c[i].name, n, cap,
                    cap == L->max_line_bytes ? "limits.max_line_bytes" : "one argument of /bin/sh");
            return false;
        }
    }
    return true;
}

int tw_clients_run_all(const tw_client_spec *c, size_t nc, char *const *paths, size_t npaths,
                       const char *outdir, const tw_clients_opts *oin)
{
    tw_clients_opts o = *oin;
    if (o.timeout_ms <= 0)
        o.timeout_ms = 60000;
    if (o.client_timeout_ms <= 0)
        o.client_timeout_ms = 20000;
    if (!o.max_out)
        o.max_out = (size_t)1 << 20;
    if (!o.max_err)
        o.max_err = (size_t)64 << 10;
    if (o.jobs == 0)
        o.jobs = 1;
    tw_limits L;
    tw_limits_resolve(&L, &o.limits);
    tw_fixture_set fs;
    tw_error why = {.offset = -1};
    if (o.jobs > TW_CLIENTS_MAX_JOBS) {
        fprintf(stderr, "toolwire clients: --jobs %zu is over the limit of %d\n", o.jobs,
                TW_CLIENTS_MAX_JOBS);
        return 2;
    }
    /* two reports in one file, or one in the comparison page's: refused
     * before any driver runs */
    if (!tw_report_names_ok(nc ? &c[0].name : NULL, nc, sizeof *c, "client", outdir, &why)) {
        fprintf(stderr, "toolwire clients: %s\n", why.message);
        return 2;
    }
    if (!commands_fit(c, nc, &L))
        return 2;
    /* an unusable --out stops the run before any driver runs */
    if (!tw_report_dir_ready(outdir, &why)) {
        fprintf(stderr, "toolwire clients: --out: %s\n", why.message);
        return 2;
    }
    if (!tw_fixture_set_load(&fs, paths, npaths, &L, &why)) {
        fprintf(stderr, "toolwire clients: %s\n", why.message);
        tw_fixture_set_free(&fs);
        return 2;
    }
    for (size_t i = 0; i < fs.nbad; i++)
        fprintf(stderr, "toolwire clients: %s: %s\n", fs.bad_files[i], fs.bad_why[i]);
    const char *tags[TW_FIXTURE_MAX_TAGS + 1] = {"clients"};
    tw_fixture_selection sel = o.sel;
    for (size_t i = 0; i < o.sel.ntags && i < TW_FIXTURE_MAX_TAGS; i++)
        tags[i + 1] = o.sel.tags[i];
    sel.tags = tags;
    sel.ntags = o.sel.ntags < TW_FIXTURE_MAX_TAGS ? o.sel.ntags + 1 : TW_FIXTURE_MAX_TAGS + 1;
    if (!tw_fixture_set_select(&fs, &sel) || fs.nbad) {
        if (!fs.nbad) {
            tw_buf d = {0};
            tw_selection_describe(&o.sel, &d);
            fprintf(stderr,
                    "toolwire clients: no scenario (fixture tagged clients) is selected%s%s\n",
                    d.data ? " by" : "", d.data ? d.data : "");
            tw_buf_free(&d);
        }
        tw_fixture_set_free(&fs);
        return 2;
    }
    if (o.shard && !tw_fixture_shard(&fs, o.shard, paths, npaths) && !o.quiet)
        fprintf(stderr, "toolwire clients: this --shard holds none of the selected scenarios "
                        "(empty reports)\n");
    pool p = {.o = &o};
    p.cr = calloc(nc ? nc : 1, sizeof *p.cr);
    if (!p.cr || pthread_mutex_init(&p.mu, NULL) != 0) {
        free(p.cr);
        tw_fixture_set_free(&fs);
        return 2;
    }
    /* 1: judged, a check or a driver failed; 2 (which stays): a client could not be judged */
    int rc = 0;
    long done = describe_all(c, nc, &p, &o, &rc);
    if (done > 0 && !(p.u = calloc((size_t)done * fs.n, sizeof *p.u))) {
        fprintf(stderr, "toolwire clients: out of memory\n");
        done = 0;
        rc = 2;
    }
    for (long i = 0; i < done; i++) {
        p.cr[i].cx.L = L;
        p.cr[i].cx.info = &p.cr[i].info;
        if (plan_client(&fs, &p, (size_t)i) != TW_OK)
            p.cr[i].nomem = true;
    }
    /* a driver that exits before reading all of its input must not kill
     * this process (set once here: threads must not race on the handler) */
    struct sigaction ign, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe);
    if (done > 0) {
        p.pg = tw_progress_begin("clients", NULL, p.nu, o.progress);
        run_units(&p, o.jobs);
        tw_progress_end(p.pg);
    }
    sigaction(SIGPIPE, &old_pipe, NULL);
    tw_report *reps = calloc(done > 0 ? (size_t)done : 1, sizeof *reps);
    size_t nrep = 0;
    for (long i = 0; i < done; i++) {
        client_run *r = &p.cr[i];
        if (r->nomem) {
            fprintf(stderr, "toolwire clients: client %s: out of memory\n", r->cx.c->name);
            rc = 2;
        } else {
            int crc = finish_client(r, outdir, &o);
            rc = crc > rc ? crc : rc;
            if (reps)
                reps[nrep++] = r->rep;
        }
        free(r->row_mode);
    }
    if (done < 0)
        rc = 2;
    else if (nrep && tw_write_comparison(reps, nrep, outdir, &why) != TW_OK) {
        fprintf(stderr, "toolwire clients: %s\n", why.message);
        rc = 2;
    }
    for (long i = 0; i < done; i++)
        tw_report_free(&p.cr[i].rep);
    free(reps);
    free(p.cr);
    free(p.u);
    pthread_mutex_destroy(&p.mu);
    tw_fixture_set_free(&fs);
    return rc;
}
