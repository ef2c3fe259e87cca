/*
 * Failures the user must be able to read: a server that answers an error
 * status everywhere, a port nobody listens on, a recording of error
 * responses, temporaries left by a killed writer, knock-on failures folded
 * under their cause, the stdout listing past its cap, answers that did not
 * follow the script directive. The servers here are
 * small libmicrohttpd ones of the test, not toolwire's mock backend.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "cli.h"
#include "fixture_write.h"
#include "out.h"
#include "report.h"
#include "run.h"
#include "twtest.h"

/* ---- a server that answers one status to every request ---- */

typedef struct fixed_server {
    struct MHD_Daemon *d;
    unsigned status;
    const char *body;
    unsigned short port;
} fixed_server;

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    (void)url, (void)method, (void)version, (void)upload;
    fixed_server *s = cls;
    static int started;
    if (!*con_cls) {
        *con_cls = &started; /* the first call only opens the request */
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0; /* the request body is read and ignored */
        return MHD_YES;
    }
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(s->body), (void *)s->body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, "Content-Type", "text/plain");
    enum MHD_Result ret = MHD_queue_response(conn, s->status, r);
    MHD_destroy_response(r);
    return ret;
}

static void server_start(fixed_server *s, unsigned status, const char *body)
{
    memset(s, 0, sizeof *s);
    s->status = status;
    s->body = body;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, answer, s,
                            MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_END);
    cr_assert_not_null(s->d, "the test server starts");
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    cr_assert_not_null(info);
    s->port = info->port;
}

static void server_stop(fixed_server *s)
{
    MHD_stop_daemon(s->d);
}

/* A loopback port with nobody listening: bound, then closed. */
static unsigned short closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    socklen_t sl = sizeof sa;
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    close(fd);
    return ntohs(sa.sin_port);
}

static char *tmpdir(void)
{
    char *d = strdup("/tmp/tw-failures-XXXXXX");
    cr_assert(mkdtemp(d));
    return d;
}

static void rm_rf(const char *d)
{
    DIR *dir = opendir(d);
    struct dirent *e;
    char p[1024];
    while (dir && (e = readdir(dir)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(p, sizeof p, "%s/%s", d, e->d_name);
            unlink(p);
        }
    if (dir)
        closedir(dir);
    rmdir(d);
}

static char *slurp(const char *dir, const char *name)
{
    char p[1024];
    tw_error why = {.offset = -1};
    snprintf(p, sizeof p, "%s/%s", dir, name);
    size_t len;
    char *t = tw_read_file(p, 64 << 20, &len, &why);
    cr_assert_not_null(t, "%s", why.message);
    return t;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Run two fixtures (an OpenAI and an Anthropic one, both expecting a
 * success) against url; the stdout text in *out, reports under dir. */
static int run_against(const char *url, const char *dir, char **out)
{
    char spec[200], store[200];
    tw_error why = {.offset = -1};
    snprintf(spec, sizeof spec, "b=%s", url);
    tw_backend_spec b;
    cr_assert(tw_backend_spec_parse(spec, store, &b, &why), "%s", why.message);
    char f1[1024], f2[1024];
    snprintf(f1, sizeof f1, "%s",
             tw_test_src("fixtures/openai/nonstream_arguments_double_encoded.json"));
    snprintf(f2, sizeof f2, "%s", tw_test_src("fixtures/anthropic/ref_tool_call.json"));
    char *paths[] = {f1, f2};
    size_t olen = 0;
    FILE *mem = open_memstream(out, &olen);
    cr_assert_not_null(mem);
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    o.client.max_retries = 0;
    o.client.connect_timeout_ms = 2000;
    o.client.total_timeout_ms = 5000;
    o.out = mem;
    size_t mm = 0;
    int rc = tw_run_all(&b, 1, paths, 2, dir, &o, &mm);
    fclose(mem);
    cr_assert_gt(mm, 0);
    return rc;
}

/* RSP-01 of every exchange of the JSON report fails with evidence holding want. */
static void rsp01_fails(const char *dir, const char *want)
{
    char p[1024];
    tw_error why = {.offset = -1};
    snprintf(p, sizeof p, "%s/b.json", dir);
    tw_report r;
    cr_assert_eq(tw_report_load(p, &r, &why), TW_OK, "%s", why.message);
    size_t seen = 0;
    for (size_t i = 0; i < r.nfx; i++)
        for (size_t k = 0; k < r.fx[i].nex; k++)
            for (size_t c = 0; c < r.fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &r.fx[i].ex[k].checks[c];
                if (strcmp(ch->id, "RSP-01") != 0)
                    continue;
                seen++;
                cr_expect_eq(ch->verdict, TW_V_FAIL, "%s", r.fx[i].name);
                cr_expect_eq(ch->expected, TW_EXPECT_NOT_FAIL);
                cr_expect(strstr(ch->evidence, want), "%s: %s", r.fx[i].name, ch->evidence);
            }
    cr_expect_eq(seen, 2, "one RSP-01 verdict per exchange");
    tw_report_free(&r);
}

Test(failures, error_status_everywhere)
{
    fixed_server s;
    server_start(&s, 404, "no such route");
    char *dir = tmpdir();
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", s.port);
    char *out = NULL;
    cr_expect_eq(run_against(url, dir, &out), 1);
    server_stop(&s);
    rsp01_fails(dir, "HTTP 404 where the fixture expects a success: no such route");
    /* stdout: the summary counts the error statuses, each mismatch names the status */
    cr_expect(strstr(out, "2 exchanges (2 error statuses, 0 without a response)"), "%s", out);
    cr_expect(strstr(out, "[HTTP 404] RSP-01: expected pass or skip, got fail"), "%s", out);
    /* the expected result cannot be compared without an answer: a consequence of the status */
    cr_expect(
        strstr(out, "consequences of HTTP 404 (RSP-01), not counted again: OAI-R04, RES-01\n"),
        "%s", out);
    char *json = slurp(dir, "b.json");
    cr_expect(strstr(json, "\"status\":\t404") || strstr(json, "\"status\": 404"),
              "json has the status");
    char *md = slurp(dir, "b.md");
    cr_expect(strstr(md, "| response | exchanges |\n|---|---:|\n| HTTP 404 | 2 |"), "%s", md);
    cr_expect(strstr(md, " | 0 | HTTP 404 | RSP-01 | not-fail | fail | HTTP 404 where"), "%s", md);
    char *junit = slurp(dir, "b.junit.xml");
    cr_expect_eq(count(junit, "<failure message=\"HTTP 404: verdicts differ"), 2, "%s", junit);
    cr_expect(strstr(junit, "response: HTTP 404\n"), "%s", junit);
    char *html = slurp(dir, "b.html");
    cr_expect(strstr(html, "<table id=responses>"), "html: the responses table");
    cr_expect(strstr(html, "<td class=\"herr\">HTTP 404</td><td>2</td>"), "html: the status row");
    cr_expect_eq(count(html, "<td class=\"http herr\" data-c=http title=\"HTTP 404\">404</td>"), 2,
                 "html: the status in each fixture's row");
    free(json);
    free(md);
    free(junit);
    free(html);
    free(out);
    rm_rf(dir);
    free(dir);
}

Test(failures, nobody_listening)
{
    char *dir = tmpdir();
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", closed_port());
    char *out = NULL;
    /* nobody answered: not judged (exit 2, said once on standard error instead of a
     * mismatch line per check); the reports still hold every transport error */
    cr_expect_eq(run_against(url, dir, &out), 2);
    rsp01_fails(dir, "no response: ");
    rsp01_fails(dir, "Connection refused");
    cr_expect(strstr(out, "2 exchanges (0 error statuses, 2 without a response)"), "%s", out);
    cr_expect_null(strstr(out, "[no response: "), "%s", out);
    cr_expect_eq(count(out, "Connection refused"), 0, "%s", out);
    char *json = slurp(dir, "b.json");
    cr_expect(strstr(json, "Connection refused"), "json names the transport error");
    char *md = slurp(dir, "b.md");
    /* the responses table groups equal outcomes; curl's "after N ms" may differ
     * between the two attempts, so the count may be split over two rows */
    cr_expect(strstr(md, "| no response: ") && strstr(md, "(Connection refused) | "), "%s", md);
    cr_expect_null(strstr(md, "does not apply"), "no check claims it does not apply");
    char *junit = slurp(dir, "b.junit.xml");
    cr_expect_eq(count(junit, "<failure message=\"no response: "), 2, "%s", junit);
    cr_expect(strstr(junit, "Connection refused"), "%s", junit);
    char *html = slurp(dir, "b.html");
    cr_expect(strstr(html, "<td class=\"herr\">no response: "), "html: the responses table");
    cr_expect_eq(count(html, "<td class=\"http terr\" data-c=http title=\"no response: "), 2,
                 "html: no response, in each fixture's row");
    free(json);
    free(md);
    free(junit);
    free(html);
    free(out);
    rm_rf(dir);
    free(dir);
}

/* ---- record ---- */

static int run_tool(const char *args, char *err, size_t errlen)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(bin, "TOOLWIRE_BIN is set by ctest");
    char errp[] = "/tmp/tw-failures-err-XXXXXX";
    int fd = mkstemp(errp);
    cr_assert_geq(fd, 0);
    close(fd);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>%s", bin, args, errp);
    int st = system(cmd);
    FILE *f = fopen(errp, "rb");
    size_t n = f ? fread(err, 1, errlen - 1, f) : 0;
    err[n] = 0;
    if (f)
        fclose(f);
    unlink(errp);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(failures, record_error_responses)
{
    fixed_server s;
    server_start(&s, 500, "{\"error\":{\"message\":\"boom\"}}");
    char *dir = tmpdir();
    char args[2048], err[4096], p[1024];
    const char *fx = tw_test_src("fixtures/openai/nonstream_arguments_double_encoded.json");
    snprintf(args, sizeof args, "record --backend http://127.0.0.1:%u --out %s %s", s.port, dir,
             fx);
    cr_expect_eq(run_tool(args, err, sizeof err), 1, "an error response is not a recording: %s",
                 err);
    cr_expect(
        strstr(err, "openai/nonstream_arguments_double_encoded#0: HTTP 500 after 3 attempt(s)"),
        "%s", err);
    cr_expect(strstr(err, "--keep-errors"), "%s", err);
    snprintf(p, sizeof p, "%s/nonstream_arguments_double_encoded.json", dir);
    struct stat sb;
    cr_expect_neq(stat(p, &sb), 0, "no fixture written");
    /* asked to keep them: written, exit 0, still said */
    snprintf(args, sizeof args, "record --keep-errors --backend http://127.0.0.1:%u --out %s %s",
             s.port, dir, fx);
    cr_expect_eq(run_tool(args, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(err, "HTTP 500"), "%s", err);
    cr_expect_eq(stat(p, &sb), 0, "the fixture is written");
    char *t = slurp(dir, "nonstream_arguments_double_encoded.json");
    cr_expect(strstr(t, "\"status\": 500") || strstr(t, "\"status\":\t500"), "%s", t);
    free(t);
    /* a fixture that expects the error records it without the option */
    const char *efx = tw_test_src("fixtures/openai/error_not_envelope.json");
    snprintf(args, sizeof args, "record --backend http://127.0.0.1:%u --out %s %s", s.port, dir,
             efx);
    cr_expect_eq(run_tool(args, err, sizeof err), 0, "%s", err);
    server_stop(&s);
    rm_rf(dir);
    free(dir);
}

/* ---- stale temporaries ---- */

static void touch(const char *dir, const char *name, time_t age)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs("partial", f);
    fclose(f);
    struct utimbuf ut = {time(NULL) - age, time(NULL) - age};
    cr_assert_eq(utime(p, &ut), 0);
}

static bool exists(const char *dir, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat sb;
    return stat(p, &sb) == 0;
}

static long gone_pid(void)
{
    pid_t c = fork();
    cr_assert_geq(c, 0);
    if (c == 0)
        _exit(0);
    waitpid(c, NULL, 0);
    return (long)c;
}

Test(failures, temp_names_carry_the_pid)
{
    char *t = tw_temp_template("/x/report.json");
    char want[64];
    snprintf(want, sizeof want, "/x/report.json.tmp.%ld.XXXXXX", (long)getpid());
    cr_expect_str_eq(t, want);
    free(t);
}

Test(failures, stale_temporaries_removed)
{
    char *dir = tmpdir();
    char dead[96], live[96], live_old[96], mine[96], other[96];
    long gp = gone_pid();
    snprintf(dead, sizeof dead, "b.json.tmp.%ld.Ab3dEf", gp);
    snprintf(live, sizeof live, "b.md.tmp.%ld.Ab3dEf", (long)getppid());
    snprintf(live_old, sizeof live_old, "b.html.tmp.%ld.Zz9yYx", (long)getppid());
    snprintf(mine, sizeof mine, "b.junit.xml.tmp.%ld.Ab3dEf", (long)getpid());
    snprintf(other, sizeof other, "notes.txt.tmp.%ld.Ab3dEf", gp);
    touch(dir, dead, 0);                            /* its writer is gone: stale at once */
    touch(dir, live, 0);                            /* a concurrent writer's: kept */
    touch(dir, live_old, TW_STALE_TEMP_AGE_S + 60); /* a reused pid, an old file: stale */
    touch(dir, mine, TW_STALE_TEMP_AGE_S + 60);     /* this process's own: kept */
    touch(dir, other, 0);                           /* not a file this program writes: kept */
    touch(dir, "c.json.tmp.q1W2e3", TW_STALE_TEMP_OLD_FORM_S + 60); /* old form, old: stale */
    touch(dir, "d.json.tmp.q1W2e3", 0);                      /* old form, just written: kept */
    touch(dir, "e.json.tmp.q1W2e", 3 * TW_STALE_TEMP_AGE_S); /* not mkstemp's six: kept */
    touch(dir, "b.json", 3 * TW_STALE_TEMP_AGE_S);           /* a report: kept */
    cr_expect_eq(tw_clean_stale_temps(dir), 3);
    cr_expect_not(exists(dir, dead));
    cr_expect_not(exists(dir, live_old));
    cr_expect_not(exists(dir, "c.json.tmp.q1W2e3"));
    cr_expect(exists(dir, live));
    cr_expect(exists(dir, mine));
    cr_expect(exists(dir, other));
    cr_expect(exists(dir, "d.json.tmp.q1W2e3"));
    cr_expect(exists(dir, "e.json.tmp.q1W2e"));
    cr_expect(exists(dir, "b.json"));
    cr_expect_eq(tw_clean_stale_temps("/nonexistent/tw-failures"), 0);
    rm_rf(dir);
    free(dir);
}

/* A run removes what a killed run left in its output folder. */
Test(failures, run_removes_stale_temporaries)
{
    char *dir = tmpdir();
    char dead[96];
    snprintf(dead, sizeof dead, "m.json.tmp.%ld.Ab3dEf", gone_pid());
    touch(dir, dead, 0);
    char store[64];
    tw_error why = {.offset = -1};
    tw_backend_spec b;
    cr_assert(tw_backend_spec_parse("m=mock:replay", store, &b, &why), "%s", why.message);
    char f1[1024];
    snprintf(f1, sizeof f1, "%s",
             tw_test_src("fixtures/openai/nonstream_arguments_double_encoded.json"));
    char *paths[] = {f1};
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    cr_expect_eq(tw_run_all(&b, 1, paths, 1, dir, &o, NULL), 0);
    cr_expect_not(exists(dir, dead));
    cr_expect(exists(dir, "m.json"));
    rm_rf(dir);
    free(dir);
}

/* ---- reading a failing run: knock-ons, the listing's cap, the directive ---- */

#define ENVELOPE                                                                                   \
    "{\"error\":{\"message\":\"bad "                                                               \
    "request\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}}"

/* `toolwire ARGS` with stdout in DIR/stdout; its exit status. */
static int run_stdout(const char *dir, const char *args)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(bin, "TOOLWIRE_BIN is set by ctest");
    int st = tw_test_sh("'%s' %s >'%s/stdout' 2>'%s/stderr'", bin, args, dir, dir);
    return st;
}

/* An HTTP 400 on both exchanges of a live fixture: RSP-01 fails, and LIV-01/02/03 (and
 * LIV-06 on the second) fail only because of it. */
Test(failures, knockons_fold_under_an_error_status)
{
    fixed_server s;
    server_start(&s, 400, ENVELOPE);
    char *dir = tmpdir();
    char args[2000];
    snprintf(args, sizeof args,
             "run --retries 0 --backend bad=http://127.0.0.1:%u/v1 --out '%s/out' '%s'", s.port,
             dir, tw_test_src("fixtures/live/openai/auto_call.json"));
    cr_assert_eq(run_stdout(dir, args), 1);
    server_stop(&s);
    char *out = slurp(dir, "stdout");
    /* counted once in the headline */
    cr_assert(strstr(out, ", 2 mismatches (+7 consequences) -> "), "%s", out);
    /* the cause, then its knock-ons on one line under it, never as mismatch lines of their own */
    cr_assert(
        strstr(
            out,
            "mismatch live/openai/auto_call#0 [HTTP 400] RSP-01: expected pass or skip, got fail"),
        "%s", out);
    cr_assert(
        strstr(
            out,
            "+ 3 consequences of HTTP 400 (RSP-01), not counted again: LIV-01, LIV-02, LIV-03\n"),
        "%s", out);
    cr_assert(strstr(out, "+ 4 consequences of HTTP 400 (RSP-01), not counted again: LIV-01, "
                          "LIV-02, LIV-03, LIV-06\n"),
              "%s", out);
    cr_assert_eq(count(out, "] LIV-0"), 0, "%s", out);
    cr_assert_eq(count(out, "  mismatch "), 2, "%s", out);
    /* Markdown: the headline cell and a ↳ row under each cause */
    char *md = slurp(dir, "out/bad.md");
    cr_assert(strstr(md, "| 2 (+7 consequences) |"), "%s", md);
    cr_assert(strstr(md, "| live/openai/auto_call | 0 | HTTP 400 | ↳ LIV-01, LIV-02, LIV-03 | | — "
                         "| 3 consequences of "
                         "HTTP 400 (RSP-01), not counted again |"),
              "%s", md);
    cr_assert_eq(count(md, "| HTTP 400 | LIV-0"), 0,
                 "no knock-on has a mismatch row of its own:\n%s", md);
    /* HTML: the headline and the knock-on cells */
    char *html = slurp(dir, "out/bad.html");
    cr_assert(strstr(html, "2 mismatches (+7 consequences);"));
    cr_assert(strstr(html, "<td class=\"c knock mm\" data-c=\"LIV-01\""));
    cr_assert(strstr(html, "<td class=\"c fail mm\" data-c=\"RSP-01\""));
    cr_assert_null(strstr(html, "<td class=\"c fail mm\" data-c=\"LIV-01\""));
    /* JSON: every verdict kept, each knock-on saying what it follows */
    char p[600];
    snprintf(p, sizeof p, "%s/out/bad.json", dir);
    tw_report r;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_report_load(p, &r, &why), TW_OK, "%s", why.message);
    cr_assert_eq(r.n_mismatch, 9);
    cr_assert_eq(r.n_knockon, 7);
    const tw_rep_exchange *e = &r.fx[0].ex[1];
    for (size_t c = 0; c < e->nchecks; c++) {
        const tw_rep_check *ch = &e->checks[c];
        bool knock = strcmp(ch->id, "LIV-01") == 0 || strcmp(ch->id, "LIV-02") == 0 ||
                     strcmp(ch->id, "LIV-03") == 0 || strcmp(ch->id, "LIV-06") == 0;
        if (knock) {
            cr_assert_eq(ch->verdict, TW_V_FAIL, "%s", ch->id);
            cr_assert_str_eq(ch->follows, "HTTP 400", "%s", ch->id);
            cr_assert_str_eq(ch->follows_check, "RSP-01");
        } else {
            cr_assert_str_empty(ch->follows, "%s follows %s", ch->id, ch->follows);
        }
    }
    tw_report_free(&r);
    char *junit = slurp(dir, "out/bad.junit.xml");
    cr_assert(strstr(junit, "LIV-06: expected not-fail, got fail: ") &&
                  strstr(junit, " (a consequence of HTTP 400, RSP-01)\n"),
              "%s", junit);
    free(junit);
    char *json = slurp(dir, "out/bad.json");
    cr_assert(strstr(json, "\"follows\": \"HTTP 400 (RSP-01)\""));
    cr_assert(strstr(json, "\"consequences\": 7"));
    free(json);
    free(out);
    free(md);
    free(html);
    tw_test_rm_tree(dir);
    free(dir);
}

/* Nobody listening: the knock-ons follow "no response". The run could not
 * judge (exit 2, said once instead of a listing); its reports still fold them. */
Test(failures, knockons_fold_under_no_response)
{
    unsigned short port = closed_port();
    char *dir = tmpdir();
    char args[2000];
    snprintf(args, sizeof args,
             "run --retries 0 --backend down=http://127.0.0.1:%u/v1 --out '%s/out' '%s'", port, dir,
             tw_test_src("fixtures/live/anthropic/auto_call.json"));
    cr_assert_eq(run_stdout(dir, args), 2);
    char *out = slurp(dir, "stdout");
    cr_assert(strstr(out, " 2 mismatches (+7 consequences) -> "), "%s", out);
    cr_assert(strstr(out, "backend down (http://127.0.0.1:") &&
                  strstr(out, "): NOT JUDGED (nobody answered), "),
              "%s", out);
    cr_assert_null(strstr(out, "  mismatch "), "%s", out);
    char *json = slurp(dir, "out/down.json");
    cr_assert(strstr(json, "\"follows\": \"no response (RSP-01)\""), "%s", json);
    cr_assert(strstr(json, "\"consequences\": 7"), "%s", json);
    char *md = slurp(dir, "out/down.md");
    cr_assert(strstr(md, "2 (+7 consequences)"), "%s", md);
    free(md);
    free(json);
    free(out);
    tw_test_rm_tree(dir);
    free(dir);
}

/* Past 50 mismatch lines the listing says how many more there are and where. */
Test(failures, listing_says_what_is_past_its_cap)
{
    fixed_server s;
    server_start(&s, 400, ENVELOPE);
    char *dir = tmpdir();
    char args[2000];
    snprintf(args, sizeof args,
             "run --retries 0 --backend bad=http://127.0.0.1:%u/v1 --out '%s/out' '%s' '%s'",
             s.port, dir, tw_test_src("fixtures/openai"), tw_test_src("fixtures/anthropic"));
    cr_assert_eq(run_stdout(dir, args), 1);
    char *out = slurp(dir, "stdout");
    size_t shown = count(out, "\n  mismatch ");
    cr_assert_eq(shown, 50, "%s", out);
    char p[600];
    snprintf(p, sizeof p, "%s/out/bad.json", dir);
    tw_report r;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_report_load(p, &r, &why), TW_OK, "%s", why.message);
    /* every cause is a line (results and checks), knock-ons are not */
    size_t causes = r.n_mismatch - r.n_knockon, more = causes - 50;
    char want[800];
    snprintf(want, sizeof want, "  … and %zu more mismatches (+", more);
    const char *at = strstr(out, want);
    cr_assert(at, "%s\nwanted: %s", out, want);
    cr_assert(strstr(at, "not shown here: every one is in ") &&
                  strstr(at, "/out/bad.json (and .md, .html)\n"),
              "%s", at);
    tw_report_free(&r);
    /* --quiet: the same cap, the lines naming their backend */
    snprintf(args, sizeof args,
             "run --quiet --retries 0 --backend bad=http://127.0.0.1:%u/v1 --out '%s/out' '%s'",
             s.port, dir, tw_test_src("fixtures/openai"));
    cr_assert_eq(run_stdout(dir, args), 1);
    server_stop(&s);
    free(out);
    out = slurp(dir, "stdout");
    cr_assert_eq(count(out, "backend bad: mismatch "), 50, "%s", out);
    cr_assert(strstr(out, "backend bad: … and "), "%s", out);
    free(out);
    tw_test_rm_tree(dir);
    free(dir);
}

/* A live exchange whose answer makes no call where the directive asks for one: LIV-01 is
 * the cause, LIV-02 follows "no call", and the report says once that the directive was not
 * followed. The answer comes from the mock replaying a recorded text answer. */
Test(failures, directive_not_followed)
{
    char *dir = tmpdir();
    size_t n;
    char *live = tw_test_slurp(tw_test_src("fixtures/live/openai/named.json"), &n);
    cJSON *f = cJSON_Parse(live);
    free(live);
    cr_assert_not_null(f);
    cJSON_ReplaceItemInObject(f, "name", cJSON_CreateString("reading/ignored"));
    cJSON *exs = cJSON_GetObjectItem(f, "exchanges");
    while (cJSON_GetArraySize(exs) > 1)
        cJSON_DeleteItemFromArray(exs, 1);
    cJSON *x = cJSON_GetArrayItem(exs, 0);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(x, "request"), "stream");
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(cJSON_GetObjectItem(x, "request"), "body"),
                               "stream");
    cJSON_AddItemToObject(
        x, "response",
        cJSON_Parse("{\"status\":200,\"headers\":{\"content-type\":\"application/json\"},\"body\":"
                    "{\"id\":\"c1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
                    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                    "\"I would rather not.\"},\"finish_reason\":\"stop\"}]}}"));
    char *text = cJSON_Print(f);
    cJSON_Delete(f);
    char p[600];
    snprintf(p, sizeof p, "%s/ignored.json", dir);
    tw_test_spit(p, text);
    free(text);
    char args[2000];
    snprintf(args, sizeof args, "run --backend model=mock:replay --out '%s/out' '%s'", dir, p);
    cr_assert_eq(run_stdout(dir, args), 1);
    char *out = slurp(dir, "stdout");
    cr_assert(
        strstr(
            out,
            "] LIV-01: expected pass or skip, got fail: expected a call of get_time; got no call"),
        "%s", out);
    cr_assert(strstr(out, "consequence of no call (LIV-01), not counted again: LIV-02"), "%s", out);
    cr_assert_eq(
        count(out, "note: the server did not follow the script directive in 1 of 1 exchanges"), 1,
        "%s", out);
    cr_assert(strstr(out, "reading/ignored#0: step 0 of the directive asks for a call of get_time; "
                          "the answer has no "
                          "call"),
              "%s", out);
    char *md = slurp(dir, "out/model.md");
    cr_assert(strstr(md, "> **Note:** the server did not follow the script directive"), "%s", md);
    char *html = slurp(dir, "out/model.html");
    cr_assert(strstr(
        html,
        "<p class=note id=directive><b>Note:</b> the server did not follow the script directive"));
    char *json = slurp(dir, "out/model.json");
    cr_assert(strstr(json, "\"directive_not_followed\": 1"), "%s", json);
    cr_assert(strstr(json, "\"followed\": false"), "%s", json);
    cr_assert(strstr(json, "\"calls\": 0"), "%s", json);
    free(out);
    free(md);
    free(html);
    free(json);
    tw_test_rm_tree(dir);
    free(dir);
}

/* Against the script reference server the directive is followed: no note. */
Test(failures, directive_followed_by_the_reference_server)
{
    char *dir = tmpdir();
    char args[2000];
    snprintf(args, sizeof args, "run --backend ref=mock:script --out '%s/out' '%s'", dir,
             tw_test_src("fixtures/live/openai"));
    cr_assert_eq(run_stdout(dir, args), 0);
    char *json = slurp(dir, "out/ref.json");
    cr_assert(strstr(json, "\"directive_not_followed\": 0"), "%s", json);
    cr_assert(strstr(json, "\"directive_note\": null"));
    cr_assert(strstr(json, "\"followed\": true"));
    cr_assert_null(strstr(json, "\"followed\": false"));
    free(json);
    tw_test_rm_tree(dir);
    free(dir);
}
