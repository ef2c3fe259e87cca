/* The conformance run (run.h). */
#include "run.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "datadir.h"
#include "decode_opts.h"
#include "fixture_write.h"
#include "live.h"
#include "out.h"
#include "progress.h"
#include "url.h"
#include "decode_fixtures.h"
#include "xlt.h"
#include "toolwire/registry.h"

bool tw_backend_spec_parse(const char *arg, char *store, tw_backend_spec *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    /* the URL's credentials are secrets from here on: nothing written
     * after this, this function's messages included, holds them */
    if (tw_url_learn_secrets(arg) != TW_OK) {
        tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory");
        return false;
    }
    strcpy(store, arg);
    char *eq = strchr(store, '=');
    if (!eq || eq == store || !eq[1]) {
        char *shown = tw_url_shown(arg);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--backend wants NAME=URL or NAME=mock:PROFILE, got '%s'", shown ? shown : "");
        free(shown);
        return false;
    }
    *eq = 0;
    out->name = store;
    const char *v = eq + 1;
    if (strncmp(v, "mock:", 5) == 0) {
        out->profile = v + 5;
        if (!tw_mock_profile_known(out->profile))
            return tw_mock_profile_error(err, "mock profile", out->profile);
    } else if (strncmp(v, "http://", 7) == 0 || strncmp(v, "https://", 8) == 0) {
        char what[300];
        snprintf(what, sizeof what, "backend '%.200s'", store);
        if (!tw_url_base_ok(v, what, err))
            return false;
        out->url = v;
    } else {
        char *shown = tw_url_shown(store);
        tw_error_set(
            err, TW_ERR_INVALID, -1, NULL,
            "backend '%s': the URL must start with http:// or https:// (or use mock:PROFILE)",
            shown ? shown : "");
        free(shown);
        return false;
    }
    return true;
}

/* ---- fixture sets ---- */

static bool push_bad(tw_fixture_set *s, const char *file, const char *why)
{
    char **nf = realloc(s->bad_files, (s->nbad + 1) * sizeof *nf);
    if (!nf)
        return false;
    s->bad_files = nf;
    char **nw = realloc(s->bad_why, (s->nbad + 1) * sizeof *nw);
    if (!nw)
        return false;
    s->bad_why = nw;
    s->bad_files[s->nbad] = tw_strdup(file);
    s->bad_why[s->nbad] = tw_strdup(why);
    s->nbad++;
    return true;
}

bool tw_fixture_set_load(tw_fixture_set *s, char *const *paths, size_t npaths,
                         const tw_limits *limits, tw_error *err)
{
    memset(s, 0, sizeof *s);
    for (size_t p = 0; p < npaths; p++) {
        char **files = NULL;
        /* fixtures/… is looked up in the data roots too (an installed toolwire) */
        char found[TW_DATA_PATH_MAX];
        bool resolved = tw_data_resolve(paths[p], found, sizeof found);
        errno = 0;
        long n = tw_list_files(resolved ? found : paths[p], ".json", &files);
        if (n < 0) {
            int en = errno;
            char looked[1024] = "";
            if (strncmp(paths[p], "fixtures", 8) == 0 &&
                (paths[p][8] == '\0' || paths[p][8] == '/')) {
                char roots[TW_DATA_MAX_ROOTS][TW_DATA_PATH_MAX];
                size_t nr = tw_data_roots(roots, TW_DATA_MAX_ROOTS), used = 0;
                used += (size_t)snprintf(looked, sizeof looked, " (looked in");
                for (size_t i = 0; i < nr && used < sizeof looked; i++)
                    used += (size_t)snprintf(looked + used, sizeof looked - used, "%s %s",
                                             i ? "," : "", roots[i]);
                if (used < sizeof looked)
                    snprintf(looked + used, sizeof looked - used,
                             "; set %s to a directory holding fixtures/)", TW_DATA_ENV);
            }
            tw_error_set(err, TW_ERR_IO, -1, NULL, "cannot read '%s': %s%s", paths[p],
                         en ? strerror(en) : "not a readable file or directory", looked);
            return false;
        }
        size_t here = 0; /* fixture files under this path */
        for (long i = 0; i < n; i++) {
            size_t fl = strlen(files[i]);
            if (fl >= 11 && strcmp(files[i] + fl - 11, "schema.json") == 0)
                continue;
            here++;
            tw_fixture *nf = realloc(s->fx, (s->n + 1) * sizeof *nf);
            if (!nf)
                break;
            s->fx = nf;
            tw_error fw = {.offset = -1};
            if (tw_fixture_load(files[i], limits, &s->fx[s->n], &fw) == TW_OK)
                s->n++;
            else
                push_bad(s, files[i], fw.message);
        }
        tw_free_list(files, n);
        if (!here) {
            /* nothing to judge there: a wrong directory, not a clean pass */
            tw_error_set(err, TW_ERR_IO, -1, NULL,
                         "'%s' holds no fixture (no *.json file other than *schema.json)",
                         paths[p]);
            return false;
        }
    }
    return true;
}

void tw_fixture_set_free(tw_fixture_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        tw_fixture_free(&s->fx[i]);
    free(s->fx);
    for (size_t i = 0; i < s->nbad; i++) {
        free(s->bad_files[i]);
        free(s->bad_why[i]);
    }
    free(s->bad_files);
    free(s->bad_why);
    memset(s, 0, sizeof *s);
}

size_t tw_fixture_set_select(tw_fixture_set *s, const tw_fixture_selection *sel)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (tw_fixture_selected(&s->fx[i], sel))
            s->fx[kept++] = s->fx[i];
        else
            tw_fixture_free(&s->fx[i]);
    }
    s->n = kept;
    return kept;
}

bool tw_fixture_set_select_cmd(tw_fixture_set *s, const tw_fixture_selection *sel, const char *cmd)
{
    if (!tw_selection_given(sel) || tw_fixture_set_select(s, sel) || s->nbad)
        return true;
    tw_buf d = {0};
    tw_selection_describe(sel, &d);
    fprintf(stderr, "toolwire %s: no fixture is selected by%s (nothing run)\n", cmd,
            d.data ? d.data : "");
    tw_buf_free(&d);
    return false;
}

bool tw_jobs_option(const char *arg, const tw_limits *limits, size_t *jobs, tw_error *err)
{
    tw_limits L;
    tw_limits_resolve(&L, limits);
    long v = 0;
    if (!tw_cli_parse_long(arg, 1, L.max_jobs > LONG_MAX ? LONG_MAX : (long)L.max_jobs, &v)) {
        tw_error_set(err, TW_ERR_LIMIT, -1, NULL,
                     "--jobs wants a whole number from 1 to %zu (the limit max_jobs), got '%s'",
                     L.max_jobs, arg);
        return false;
    }
    *jobs = (size_t)v;
    return true;
}

/* ---- one exchange ---- */

/* The expected neutral result: decode and compare. */
static tw_verdict judge_result(const tw_fx_exchange *x, const tw_http_response *r,
                               const tw_limits *L, char **detail)
{
    *detail = NULL;
    if (!x->expect_result || !x->decode_format)
        return TW_V_SKIP;
    const tw_format_ops *f = tw_format_find(x->decode_format);
    char d[800] = "";
    if (!f) {
        snprintf(d, sizeof d, "unknown decoder %s", x->decode_format);
        *detail = tw_strdup(d);
        return TW_V_FAIL;
    }
    const char *in = NULL;
    size_t len = 0;
    if (tw_decoder_is_text(x->decode_format) && (x->model_text || x->model_pass2)) {
        in = x->model_text ? x->model_text : x->model_pass2;
        len = strlen(in);
    } else {
        if (r->status == 0) {
            *detail = tw_strdup("no response to decode");
            return TW_V_FAIL;
        }
        if (r->status >= 400 && !(x->has_response && x->resp.status >= 400)) {
            snprintf(d, sizeof d, "HTTP %d where the fixture expects a success: nothing to decode",
                     r->status);
            *detail = tw_strdup(d);
            return TW_V_FAIL;
        }
        in = r->body.data ? r->body.data : "";
        len = r->body.len;
    }
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    tw_error de = {.offset = -1};
    if (x->decode_options && !tw_opts_from_json(&h, x->decode_options, &de)) {
        snprintf(d, sizeof d, "%.799s", de.message);
        tw_opts_holder_free(&h);
        char d2[900];
        snprintf(d2, sizeof d2, "decode options: %s", d);
        *detail = tw_strdup(d2);
        return TW_V_FAIL;
    }
    if (!(x->decode_options && tw_json_get(x->decode_options, "tools"))) {
        /* the decoder judges calls against the tools the request declared */
        const cJSON *rt = x->req.body ? tw_json_get(x->req.body, "tools") : NULL;
        tw_tool *t = NULL;
        size_t nt = 0;
        if (cJSON_IsArray(rt) && rt->child && tw_tools_read(rt, L, &t, &nt, NULL) == TW_OK)
            tw_opts_set_tools(&h, t, nt);
    }
    h.o.limits = *L;
    if (x->decode_options) {
        /* the fixture's limits override the run's */
        tw_opts_holder tmp;
        tw_opts_holder_init(&tmp);
        tw_opts_from_json(&tmp, x->decode_options, NULL);
        if (tw_json_get(x->decode_options, "max_args_bytes"))
            h.o.limits.max_args_bytes = tmp.o.limits.max_args_bytes;
        if (tw_json_get(x->decode_options, "max_calls"))
            h.o.limits.max_calls = tmp.o.limits.max_calls;
        if (tw_json_get(x->decode_options, "max_depth"))
            h.o.limits.max_depth = tmp.o.limits.max_depth;
        if (tw_json_get(x->decode_options, "max_input_bytes"))
            h.o.limits.max_input_bytes = tmp.o.limits.max_input_bytes;
        tw_opts_holder_free(&tmp);
    }
    char *copy = malloc(len ? len : 1);
    if (!copy) {
        tw_opts_holder_free(&h);
        return TW_V_SKIP;
    }
    if (len)
        memcpy(copy, in, len);
    tw_result res;
    tw_status st = f->decode(copy, len, &h.o, &res);
    free(copy);
    tw_opts_holder_free(&h);
    if (st == TW_ERR_UNSUPPORTED) {
        snprintf(d, sizeof d, "the %s decoder is not available", x->decode_format);
        *detail = tw_strdup(d);
        return TW_V_SKIP;
    }
    if (st != TW_OK) {
        snprintf(d, sizeof d, "the %s decoder failed: %s", x->decode_format, tw_code_message(st));
        *detail = tw_strdup(d);
        return TW_V_FAIL;
    }
    bool ok = tw_result_matches(&res, x->expect_result, &de);
    snprintf(d, sizeof d, "%.799s", de.message);
    tw_result_free(&res);
    if (!ok) {
        char d2[900];
        snprintf(d2, sizeof d2, "%s: %s", x->decode_format, d);
        *detail = tw_strdup(d2);
        return TW_V_FAIL;
    }
    return TW_V_PASS;
}

static bool expects_fail(const tw_fx_exchange *x, const char *id)
{
    for (size_t i = 0; i < x->nexpect_fail; i++)
        if (x->expect_fail[i].check && strcmp(x->expect_fail[i].check, id) == 0)
            return true;
    return false;
}

static bool fixture_has_faults(const tw_fixture *f)
{
    for (size_t i = 0; i < f->nexchanges; i++)
        if (f->exchanges[i].faults)
            return true;
    return false;
}

static bool fixture_streams(const tw_fx_exchange *x)
{
    return cJSON_IsTrue(tw_json_get(x->req.body, "stream"));
}

/* Strict sessions: did an earlier exchange of the same session pause with
 * tool calls? 0 when the exchange names no session. */
static int session_state(const tw_fixture *f, size_t k, const tw_http_response *resp)
{
    const tw_fx_exchange *x = &f->exchanges[k];
    const char *sid = tw_kv_get(x->req.headers, x->req.nheaders, "X-Session-Id");
    if (!sid)
        return 0;
    for (size_t j = k; j-- > 0;) {
        const tw_fx_exchange *y = &f->exchanges[j];
        const char *s2 = tw_kv_get(y->req.headers, y->req.nheaders, "X-Session-Id");
        if (!s2 || strcmp(s2, sid) != 0)
            continue;
        const char *b = resp[j].body.data;
        return resp[j].status == 200 && b && strstr(b, "\"tool_calls\"") ? 1 : -1;
    }
    return -1;
}

/* Faults that damage the response on purpose: the verdicts they cause are
 * reported, but only the ones the fixture lists are compared. */
static bool damaging_faults(const tw_fx_exchange *x)
{
    return x->faults && (tw_json_get(x->faults, "drop_after_events") ||
                         tw_json_get(x->faults, "truncate_sse_after_bytes") ||
                         tw_json_get(x->faults, "malformed_chunk_at"));
}

/* Client verdicts: from the mock's records for this exchange, or judged
 * locally on a live backend (CLI-07 from the client's own retry log). */
static void client_verdicts(tw_mock_record *recs, size_t nrec, const tw_fixture *f, size_t k,
                            const tw_limits *L, const tw_http_response *r, tw_check_set *out)
{
    const tw_fx_exchange *x = &f->exchanges[k];
    if (recs && nrec) {
        /* the last request carries CLI-01..06; CLI-07 from any retry */
        tw_check_set_merge(out, &recs[nrec - 1].checks);
        for (size_t i = 0; i < nrec; i++) {
            const tw_check_result *c7 = tw_check_set_get(&recs[i].checks, TW_CHK_CLI_07);
            if (c7 && c7->verdict != TW_V_SKIP)
                tw_check_set_put(out, TW_CHK_CLI_07, c7->verdict, c7->offset, "%s", c7->evidence);
        }
        return;
    }
    tw_checks_client(x->req.path, x->req.body, out);
    /* the request sent is the fixture's: its call ids are judged against the
     * fixture's recorded answers, as the mock and import judge them */
    tw_checks_client_context(x->req.path, x->req.body, f, k, false, L, out);
    long asked = -1, waited = -1;
    for (int i = 0; i + 1 < r->nattempts; i++)
        if (r->attempts[i].retry_after_ms >= 0 &&
            (r->attempts[i].status == 429 || r->attempts[i].status == 503)) {
            asked = r->attempts[i].retry_after_ms;
            waited = r->attempts[i].waited_ms;
        }
    tw_checks_client_retry_waited(asked, waited, out);
}

/* A backend's run over its fixtures, shared by the workers of --jobs: each
 * takes the next fixture and sends its exchanges in order on its own HTTP
 * client; the report's entries are made beforehand, in the fixtures' order,
 * so that the report does not depend on which worker ran what. */
typedef struct run_shared {
    const tw_fixture_set *fs;
    const tw_backend_spec *b;
    tw_limits L;
    tw_mock *m;
    const tw_proxied *px;
    tw_report *rep;
    size_t *slot; /* per fixture: its entry in rep->fx, SIZE_MAX when not run */
    tw_progress *progress;
    pthread_mutex_t mu;
    size_t next;  /* the next fixture to take */
    bool nomem;   /* a verdict could not be recorded: the report is not whole */
    tw_error err; /* the first such failure */
} run_shared;

typedef struct run_worker {
    run_shared *sh;
    tw_client *cl;
    pthread_t th;
    bool started;
} run_worker;

/* The next fixture to run (fs->n when none is left), and when it was taken. */
static size_t take_fixture(run_shared *sh, double *t0)
{
    pthread_mutex_lock(&sh->mu);
    while (sh->next < sh->fs->n && sh->slot[sh->next] == SIZE_MAX)
        sh->next++;
    size_t fi = sh->next < sh->fs->n ? sh->next++ : sh->fs->n;
    pthread_mutex_unlock(&sh->mu);
    *t0 = tw_progress_now();
    return fi;
}

/* One fixture done: its progress line. */
static void fixture_done(run_shared *sh, size_t fi, double t0)
{
    const tw_rep_fixture *rf = &sh->rep->fx[sh->slot[fi]];
    size_t mm = 0;
    for (size_t k = 0; k < rf->nex; k++) {
        mm += rf->ex[k].result == TW_V_FAIL;
        for (size_t c = 0; c < rf->ex[k].nchecks; c++)
            mm += !rf->ex[k].checks[c].match;
    }
    tw_progress_fixture(sh->progress, rf->name, rf->nex, mm, tw_progress_now() - t0,
                        rf->skipped ? rf->note : NULL);
}

/* Keep the records of the request named `hint` (in a parallel run the other
 * workers' requests are logged in between); the others are freed. */
static size_t own_records(tw_mock_record *r, size_t n, const char *hint)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(r[i].hint, hint, sizeof r[i].hint - 1) == 0)
            r[kept++] = r[i];
        else
            tw_check_set_free(&r[i].checks);
    }
    return kept;
}

static void *fixture_worker(void *arg)
{
    run_worker *w = arg;
    run_shared *sh = w->sh;
    const tw_fixture_set *fs = sh->fs;
    const tw_backend_spec *b = sh->b;
    const tw_limits L = sh->L;
    tw_mock *m = sh->m;
    const tw_proxied px = *sh->px;
    tw_client *cl = w->cl;
    bool nomem = false;
    tw_error werr = {.offset = -1}, *err = &werr;
    double t0 = 0;
    for (size_t fi = take_fixture(sh, &t0); fi < fs->n;
         fixture_done(sh, fi, t0), fi = take_fixture(sh, &t0)) {
        const tw_fixture *f = &fs->fx[fi];
        tw_rep_fixture *rf = &sh->rep->fx[sh->slot[fi]];
        if (b->profile && !tw_mock_profile_fits(b->profile, f)) {
            rf->skipped = true;
            char note[200];
            snprintf(note, sizeof note, "does not fit the %s profile", b->profile);
            rf->note = tw_strdup(note);
            continue;
        }
        if (!b->profile && fixture_has_faults(f)) {
            rf->skipped = true;
            rf->note = tw_strdup("fault injection needs the mock backend");
            continue;
        }
        size_t nx = f->nexchanges;
        tw_http_response *resp = calloc(nx ? nx : 1, sizeof *resp);
        tw_check_set *client = calloc(nx ? nx : 1, sizeof *client);
        tw_check_set *xlt = calloc(nx ? nx : 1, sizeof *xlt);
        /* live expectations and call-id placeholders: each answer decoded once */
        bool live = false;
        for (size_t k = 0; k < nx; k++)
            live = live || f->exchanges[k].live.json || f->exchanges[k].nplaceholders;
        tw_live_answer *ans = live ? calloc(nx, sizeof *ans) : NULL;
        size_t *unres = live ? calloc(nx, sizeof *unres) : NULL;
        char(*subst_why)[240] = live ? calloc(nx, sizeof *subst_why) : NULL;
        if (!resp || !client || !xlt || (live && (!ans || !unres || !subst_why))) {
            free(resp);
            free(client);
            free(xlt);
            free(ans);
            free(unres);
            free(subst_why);
            break;
        }
        /* 1: send every exchange, in order (multi-turn fixtures are sequences) */
        for (size_t k = 0; k < nx; k++) {
            const tw_fx_exchange *x = &f->exchanges[k];
            char *body = NULL;
            if (x->req.body && x->nplaceholders && ans) {
                tw_error se = {.offset = -1};
                cJSON *sub = tw_live_substitute(x->req.body, ans, k, &unres[k], &se);
                snprintf(subst_why[k], sizeof subst_why[k], "%.239s", se.message);
                body = sub ? tw_json_print(sub, NULL) : NULL;
                cJSON_Delete(sub);
            } else if (x->req.body)
                body = tw_json_print(x->req.body, NULL);
            tw_kv *hv = calloc(x->req.nheaders + 1, sizeof *hv);
            size_t nh = 0;
            char hint[300];
            for (size_t h = 0; hv && h < x->req.nheaders; h++)
                hv[nh++] = x->req.headers[h];
            /* every backend is told the exchange: a toolwire serve picks it by name, a live
             * server ignores an unknown header */
            snprintf(hint, sizeof hint, "%s#%zu", f->name, k);
            if (hv)
                hv[nh++] = (tw_kv){TW_MOCK_EXCHANGE_HEADER, hint};
            unsigned long since = m ? tw_mock_seq(m) : px.up ? tw_upstream_seq(px.up) : 0;
            tw_client_send(cl, x->req.method, x->req.path, hv, nh, body, body ? strlen(body) : 0,
                           &resp[k]);
            free(hv);
            free(body);
            tw_progress_exchange(sh->progress, f->name, k + 1, nx);
            tw_mock_record *recs = NULL;
            size_t nrec = 0;
            if (m && tw_mock_records(m, since, &recs, &nrec) == TW_OK)
                nrec = own_records(recs, nrec, hint);
            if (px.up)
                tw_xlt_exchange(px.up, since, x->req.path, x->req.body, fixture_streams(x),
                                &resp[k], &L, &client[k], &xlt[k]);
            else
                client_verdicts(recs, nrec, f, k, &L, &resp[k], &client[k]);
            tw_mock_records_free(recs, nrec);
            if (ans)
                tw_live_decode(x, resp[k].status, resp[k].body.data, resp[k].body.len, &L, &ans[k]);
        }
        /* 2: judge */
        for (size_t k = 0; k < nx; k++) {
            const tw_fx_exchange *x = &f->exchanges[k];
            tw_http_response *r = &resp[k];
            tw_judge_input in;
            memset(&in, 0, sizeof in);
            in.ex = x;
            in.path = x->req.path;
            in.req_body = x->req.body;
            in.req_headers = x->req.headers;
            in.nreq_headers = x->req.nheaders;
            in.status = r->status;
            in.resp_headers = r->headers;
            in.nresp_headers = r->nheaders;
            in.body = r->body.data ? r->body.data : "";
            in.body_len = r->body.len;
            in.transport_error = r->transport_error[0] ? r->transport_error : NULL;
            in.limits = &L;
            in.session_pending = session_state(f, k, resp);
            if (fixture_streams(x))
                for (size_t j = 0; j < nx; j++) {
                    const tw_fx_exchange *y = &f->exchanges[j];
                    if (j != k && !fixture_streams(y) && resp[j].status == 200 &&
                        strcmp(y->req.path, x->req.path) == 0 &&
                        tw_mock_body_matches(y->req.body, x->req.body, TW_MATCH_NORMALISED, NULL)) {
                        in.pair_body = resp[j].body.data ? resp[j].body.data : "";
                        in.pair_len = resp[j].body.len;
                        break;
                    }
                }
            tw_check_set set = {0};
            tw_checks_backend(&in, &set);
            if (ans)
                tw_live_judge(f, k, ans, unres[k], subst_why[k], &L, &set);
            tw_check_set_merge(&set, &client[k]);
            tw_check_set_merge(&set, &xlt[k]);
            tw_check_set_fill(&set, true, "no client verdict");
            tw_check_set_sort(&set);
            tw_rep_exchange *re = tw_report_add_exchange(rf);
            if (!re && !nomem) {
                nomem = true;
                tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory recording %s#%zu", f->name,
                             k);
            }
            if (re) {
                re->method = tw_strdup(x->req.method);
                re->path = tw_strdup(x->req.path);
                re->stream = fixture_streams(x);
                re->status = r->status;
                re->elapsed_ms = r->elapsed_ms;
                re->attempts = r->nattempts;
                re->error = r->transport_error[0] ? tw_strdup(r->transport_error) : NULL;
                if (ans && ans[k].decoded) {
                    char dw[600];
                    re->calls = (int)ans[k].res.msg.ncalls;
                    re->followed =
                        x->live.json ? tw_live_followed(x, &ans[k], &L, dw, sizeof dw) : -1;
                    re->directive = re->followed == 0 ? tw_strdup(dw) : NULL;
                }
                bool damaged = m && damaging_faults(x);
                re->result = judge_result(x, r, &L, &re->result_detail);
                if (damaged && re->result == TW_V_FAIL) {
                    free(re->result_detail);
                    re->result_detail = tw_strdup(
                        "not compared: the mock damaged this response on purpose (faults)");
                    re->result = TW_V_SKIP;
                }
                for (size_t c = 0; c < set.len; c++) {
                    const tw_check_def *d = tw_check_def_of(set.items[c].check);
                    tw_expect xp = expects_fail(x, set.items[c].id) ? TW_EXPECT_FAIL
                                   : (d && d->sev == TW_SEV_INFO) || (damaged && d && !d->client)
                                       ? TW_EXPECT_ANY
                                       : TW_EXPECT_NOT_FAIL;
                    if (!tw_report_add_check(re, set.items[c].id, set.items[c].verdict, xp,
                                             set.items[c].offset, set.items[c].evidence) &&
                        !nomem) {
                        nomem = true;
                        tw_error_set(err, TW_ERR_NOMEM, -1, NULL,
                                     "out of memory recording the verdicts of %s#%zu", f->name, k);
                    }
                }
                /* a failing check the catalog does not know cannot be matched */
                for (size_t e = 0; e < x->nexpect_fail; e++)
                    if (!tw_check_find(x->expect_fail[e].check)) {
                        char ev[200];
                        snprintf(ev, sizeof ev, "unknown check id %.60s", x->expect_fail[e].check);
                        free(re->result_detail);
                        re->result_detail = tw_strdup(ev);
                        re->result = TW_V_FAIL;
                    }
                /* the result comparison is a verdict like the checks' */
                if (!tw_report_set_result_check(re, expects_fail(x, tw_check_name(TW_CHK_RES_01))
                                                        ? TW_EXPECT_FAIL
                                                        : TW_EXPECT_NOT_FAIL) &&
                    !nomem) {
                    nomem = true;
                    tw_error_set(err, TW_ERR_NOMEM, -1, NULL,
                                 "out of memory recording the verdicts of %s#%zu", f->name, k);
                }
            }
            tw_check_set_free(&set);
        }
        for (size_t k = 0; k < nx; k++) {
            tw_http_response_free(&resp[k]);
            tw_check_set_free(&client[k]);
            tw_check_set_free(&xlt[k]);
            if (ans)
                tw_live_answer_free(&ans[k]);
        }
        free(resp);
        free(client);
        free(xlt);
        free(ans);
        free(unres);
        free(subst_why);
    }
    if (nomem) {
        pthread_mutex_lock(&sh->mu);
        if (!sh->nomem)
            sh->err = werr;
        sh->nomem = true;
        pthread_mutex_unlock(&sh->mu);
    }
    return NULL;
}

tw_status tw_run_backend(const tw_fixture_set *fs, const tw_backend_spec *b, const tw_run_opts *o,
                         tw_report *rep, tw_error *err)
{
    tw_limits L;
    tw_limits_resolve(&L, &o->limits);
    char target[512];
    /* the URL as it may be written: without its credentials (learnt when
     * the spec was parsed; again for a spec built without the parser) */
    char *shown = b->url ? tw_url_shown(b->url) : NULL;
    if (b->url && (!shown || tw_url_learn_secrets(b->url) != TW_OK)) {
        free(shown);
        tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory");
        return TW_ERR_NOMEM;
    }
    snprintf(target, sizeof target, "%s%s", b->profile ? "mock:" : "",
             b->profile ? b->profile
             : shown    ? shown
                        : "");
    tw_mock *m = NULL;
    tw_proxied px = {0};
    const tw_backend_upstream *bu = NULL;
    for (size_t i = 0; i < o->nupstreams && !bu; i++)
        if (strcmp(o->upstreams[i].backend, b->name) == 0)
            bu = &o->upstreams[i];
    if (bu) {
        if (tw_proxied_start(bu->format, bu->port, bu->proxy, shown, &L, &px, err) != TW_OK) {
            free(shown);
            return TW_ERR_IO;
        }
        snprintf(target, sizeof target, "%s", px.target);
    }
    tw_report_init(rep, b->name, target);
    if (b->profile) {
        tw_mock_opts mo;
        memset(&mo, 0, sizeof mo);
        mo.profile = b->profile;
        mo.match = o->match;
        mo.timing = o->timing;
        mo.limits = L;
        if (tw_mock_start(fs->fx, fs->n, &mo, &m, err) != TW_OK) {
            tw_proxied_stop(&px);
            free(shown);
            return TW_ERR_IO;
        }
    }
    tw_client_opts co = o->client;
    co.base_url = m ? tw_mock_url(m) : px.up ? tw_proxied_url(&px, b->url) : b->url;
    co.key_env = m ? NULL : o->key_env;
    if (!co.max_bytes)
        co.max_bytes = L.max_input_bytes;
    tw_client *cl = tw_client_new(&co);
    if (!cl) {
        tw_error_set(err, TW_ERR_IO, -1, NULL, "cannot create the HTTP client for %s",
                     m ? co.base_url : target);
        tw_mock_stop(m);
        tw_proxied_stop(&px);
        free(shown);
        return TW_ERR_IO;
    }
    free(shown);
    for (size_t i = 0; i < fs->nbad; i++) {
        tw_rep_fixture *rf = tw_report_add_fixture(rep, fs->bad_files[i], fs->bad_files[i], "");
        if (rf) {
            rf->note = tw_strdup(fs->bad_why[i]);
            rf->match = false;
        }
    }
    /* the report's entries first, in the fixtures' order */
    size_t *slot = malloc((fs->n ? fs->n : 1) * sizeof *slot);
    size_t nrun = 0;
    for (size_t fi = 0; slot && fi < fs->n; fi++)
        slot[fi] = SIZE_MAX;
    for (size_t fi = 0; slot && fi < fs->n; fi++) {
        if (!tw_fixture_selected(&fs->fx[fi], &b->suite))
            continue; /* not this backend's suite */
        if (!tw_report_add_fixture(rep, fs->fx[fi].name, fs->fx[fi].path, fs->fx[fi].backend))
            break;
        slot[fi] = rep->nfx - 1;
        nrun++;
    }
    /* the upstream of a proxied backend pairs what arrives by arrival: one exchange at a time */
    size_t nw = px.up || o->jobs < 1 ? 1 : o->jobs;
    if (nw > nrun)
        nw = nrun ? nrun : 1;
    run_shared sh = {.fs = fs,
                     .b = b,
                     .L = L,
                     .m = m,
                     .px = &px,
                     .rep = rep,
                     .slot = slot,
                     .err = {.offset = -1}};
    run_worker *w = slot ? calloc(nw, sizeof *w) : NULL;
    tw_status st = TW_OK;
    bool ok = w && pthread_mutex_init(&sh.mu, NULL) == 0;
    if (ok) {
        w[0].cl = cl;
        for (size_t i = 1; i < nw && ok; i++)
            ok = (w[i].cl = tw_client_new(&co)) != NULL;
        if (!ok) {
            st = TW_ERR_IO;
            tw_error_set(err, st, -1, NULL, "cannot create %zu HTTP clients for %s", nw,
                         m ? co.base_url : target);
            pthread_mutex_destroy(&sh.mu);
        }
    } else {
        st = TW_ERR_NOMEM;
        tw_error_set(err, st, -1, NULL, "out of memory");
    }
    if (ok) {
        sh.progress = tw_progress_begin(o->cmd, b->name, nrun, o->progress);
        for (size_t i = 0; i < nw; i++)
            w[i].sh = &sh;
        for (size_t i = 1; i < nw; i++)
            w[i].started = pthread_create(&w[i].th, NULL, fixture_worker, &w[i]) == 0;
        fixture_worker(&w[0]); /* a worker that could not start leaves its fixtures to the others */
        for (size_t i = 1; i < nw; i++)
            if (w[i].started)
                pthread_join(w[i].th, NULL);
        tw_progress_end(sh.progress);
        pthread_mutex_destroy(&sh.mu);
        if (sh.nomem) {
            st = TW_ERR_NOMEM;
            if (err)
                *err = sh.err;
        }
    }
    for (size_t i = 1; w && i < nw; i++)
        tw_client_free(w[i].cl);
    free(w);
    free(slot);
    tw_client_free(cl);
    tw_mock_stop(m);
    tw_proxied_stop(&px);
    tw_report_summarise(rep);
    return st;
}

tw_status tw_write_comparison(const tw_report *r, size_t n, const char *dir, tw_error *err)
{
    if (!tw_mkdirs(dir)) {
        tw_error_set(err, TW_ERR_IO, -1, NULL, "cannot create directory %s", dir);
        return TW_ERR_IO;
    }
    char p1[4200], p2[4200];
    if (!tw_path_join(p1, sizeof p1, dir, "comparison.md") ||
        !tw_path_join(p2, sizeof p2, dir, "comparison.html")) {
        tw_error_set(err, TW_ERR_LIMIT, -1, NULL, "%s: the path is too long", dir);
        return TW_ERR_LIMIT;
    }
    tw_buf md = {0}, html = {0};
    tw_status st = tw_compare_markdown(r, n, &md);
    if (st != TW_OK)
        tw_error_set(err, st, -1, NULL, "cannot render %s: %s", p1, tw_code_name(st));
    if (st == TW_OK && (st = tw_compare_html(r, n, &html)) != TW_OK)
        tw_error_set(err, st, -1, NULL, "cannot render %s: %s", p2, tw_code_name(st));
    if (st == TW_OK)
        st = tw_write_atomic(p1, md.data ? md.data : "", md.len, err);
    if (st == TW_OK)
        st = tw_write_atomic(p2, html.data ? html.data : "", html.len, err);
    tw_buf_free(&md);
    tw_buf_free(&html);
    return st;
}

/* A live backend none of whose exchanges got a response (a server that is
 * down, a wrong URL): true with their number and the first transport error. */
static bool nobody_answered(const tw_backend_spec *b, const tw_report *r, size_t *n,
                            const char **why)
{
    size_t none = 0, all = 0;
    *why = NULL;
    for (size_t f = 0; f < r->nfx; f++)
        for (size_t k = 0; !r->fx[f].skipped && k < r->fx[f].nex; k++) {
            all++;
            if (r->fx[f].ex[k].status == 0) {
                none++;
                if (!*why)
                    *why = r->fx[f].ex[k].error;
            }
        }
    *n = all;
    return !b->profile && all && none == all;
}

/* The fixtures a mock backend's profile does not fit, named on stderr (at
 * most 5, then how many more); returns how many. */
static size_t name_unfit(const char *cmd, const tw_backend_spec *b, const tw_report *r, bool say)
{
    size_t n = 0;
    tw_buf names = {0};
    for (size_t f = 0; f < r->nfx; f++) {
        const tw_rep_fixture *rf = &r->fx[f];
        if (!rf->skipped || !rf->note || strncmp(rf->note, "does not fit", 12) != 0)
            continue;
        if (n++ < 5)
            tw_buf_printf(&names, "%s%s", n > 1 ? ", " : "", rf->file ? rf->file : rf->name);
    }
    char more[48] = "";
    if (n > 5)
        snprintf(more, sizeof more, ", … (%zu more)", n - 5);
    if (n && say)
        fprintf(stderr,
                "toolwire %s: backend %s: %zu fixture(s) do not fit profile %s and were not run: "
                "%s%s\n",
                cmd, b->name, n, b->profile, names.data ? names.data : "", more);
    tw_buf_free(&names);
    return n;
}

int tw_run_all(const tw_backend_spec *b, size_t nb, char *const *paths, size_t npaths,
               const char *outdir, const tw_run_opts *o, size_t *mismatches)
{
    const char *cmd = o->cmd ? o->cmd : "run";
    tw_limits L;
    tw_limits_resolve(&L, &o->limits);
    tw_fixture_set fs;
    tw_error why = {.offset = -1};
    if (mismatches)
        *mismatches = 0;
    /* two reports in one file, or one in the comparison page's: refused
     * before anything runs */
    if (!tw_report_names_ok(nb ? &b[0].name : NULL, nb, sizeof *b, "backend", outdir, &why)) {
        fprintf(stderr, "toolwire %s: %s\n", cmd, why.message);
        return 2;
    }
    if (o->jobs > L.max_jobs) {
        fprintf(stderr, "toolwire %s: --jobs %zu is more than the limit max_jobs (%zu)\n", cmd,
                o->jobs, L.max_jobs);
        return 2;
    }
    if (!tw_fixture_set_load(&fs, paths, npaths, &L, &why)) {
        fprintf(stderr, "toolwire %s: %s\n", cmd, why.message);
        tw_fixture_set_free(&fs);
        return 2;
    }
    if (!tw_fixture_set_select_cmd(&fs, &o->sel, cmd)) {
        tw_fixture_set_free(&fs);
        return 2;
    }
    /* a fixture that does not load cannot be judged: listed, and exit status 2 */
    for (size_t i = 0; i < fs.nbad; i++)
        fprintf(stderr, "toolwire %s: cannot load fixture %s: %s\n", cmd, fs.bad_files[i],
                fs.bad_why[i]);
    if (o->shard && !tw_fixture_shard(&fs, o->shard, paths, npaths) && !fs.nbad && !o->quiet)
        fprintf(stderr,
                "toolwire %s: this --shard holds none of the selected fixtures (empty reports)\n",
                cmd);
    /* temporaries of an earlier run that was killed while writing */
    size_t stale = tw_clean_stale_temps(outdir);
    if (stale)
        fprintf(stderr, "toolwire %s: removed %zu stale temporary file(s) in %s\n", cmd, stale,
                outdir);
    tw_report *reps = calloc(nb ? nb : 1, sizeof *reps);
    if (!reps) {
        fprintf(stderr, "toolwire %s: out of memory\n", cmd);
        tw_fixture_set_free(&fs);
        return 2;
    }
    /* 1: judged, mismatches; 2 (which stays): something could not be judged */
    int rc = fs.nbad ? 2 : 0;
    size_t done = 0, total_mm = 0;
    for (size_t i = 0; i < nb; i++) {
        if (tw_run_backend(&fs, &b[i], o, &reps[done], &why) != TW_OK) {
            fprintf(stderr, "toolwire %s: backend %s: %s\n", cmd, b[i].name, why.message);
            tw_report_free(&reps[done]);
            rc = 2;
            continue;
        }
        tw_report *r = &reps[done++];
        if (tw_report_write_all(r, outdir, &why) != TW_OK) {
            fprintf(stderr, "toolwire %s: %s\n", cmd, why.message);
            rc = 2;
        }
        total_mm += r->n_mismatch - r->n_knockon;
        if (!r->ok && rc == 0)
            rc = 1;
        char base[TW_REPORT_BASE_MAX], where[4400];
        tw_report_file_base(r->backend, base, sizeof base);
        snprintf(where, sizeof where, "%s/%s.json (and .md, .html)", outdir, base);
        size_t nx = 0;
        const char *first = NULL;
        bool nobody = nobody_answered(&b[i], r, &nx, &first);
        if (nobody) {
            /* said once, instead of a mismatch line for each check of each exchange */
            fprintf(stderr,
                    "toolwire %s: backend %s: nobody answered at %s (%zu exchange(s), none got a "
                    "response%s%s)\n",
                    cmd, r->backend, r->target, nx, first ? ": " : "", first ? first : "");
            rc = 2;
        }
        size_t fitting = r->n_fixtures - r->n_skipped;
        if (b[i].profile && !o->unfit_ok && name_unfit(cmd, &b[i], r, !o->quiet || !fitting) &&
            !fitting) {
            fprintf(stderr,
                    "toolwire %s: backend %s: none of the fixtures given fits profile %s: nothing "
                    "was judged\n",
                    cmd, r->backend, b[i].profile);
            rc = 2;
        }
        if (o->out && !o->quiet) {
            size_t nerr = 0, nnone = 0;
            for (size_t f = 0; f < r->nfx; f++)
                for (size_t k = 0; !r->fx[f].skipped && k < r->fx[f].nex; k++) {
                    nnone += r->fx[f].ex[k].status == 0;
                    nerr += r->fx[f].ex[k].status >= 400;
                }
            char more[64];
            size_t causes = tw_report_headline(r, more, sizeof more);
            fprintf(o->out,
                    "backend %s (%s): %s, %zu fixtures run, %zu not fitting, %zu exchanges "
                    "(%zu error statuses, %zu without a response), "
                    "%zu pass, %zu fail, %zu skip, %zu mismatches%s -> %s/%s.json\n",
                    r->backend, r->target,
                    nobody  ? "NOT JUDGED (nobody answered)"
                    : r->ok ? "ok"
                            : "MISMATCH",
                    r->n_fixtures - r->n_skipped, r->n_skipped, r->n_exchanges, nerr, nnone,
                    r->n_pass, r->n_fail, r->n_skip, causes, more, outdir, base);
        }
        if (o->out && !r->ok && !nobody) {
            /* without the summary line above them, the lines name their backend */
            char who[300] = "";
            if (o->quiet)
                snprintf(who, sizeof who, "backend %.200s: ", r->backend);
            tw_report_list_mismatches(o->out, r, who, 50, where);
        }
    }
    if (done && tw_write_comparison(reps, done, outdir, &why) != TW_OK) {
        fprintf(stderr, "toolwire %s: %s\n", cmd, why.message);
        rc = 2;
    }
    for (size_t i = 0; i < done; i++)
        tw_report_free(&reps[i]);
    free(reps);
    tw_fixture_set_free(&fs);
    if (mismatches)
        *mismatches = total_mm;
    return rc;
}
