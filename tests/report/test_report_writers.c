/*
 * The report writers return the real status: every renderer (JSON,
 * Markdown, JUnit, HTML, the comparison in Markdown and HTML, the gate)
 * fails with TW_ERR_LIMIT when its output buffer's max is reached, and the
 * commands turn a write that fails into a message and a non-zero exit. The
 * file utilities (files.h). Compare, gate and the comparison page in time
 * linear in fixtures: reports so large that a lookup per key over all
 * fixtures could not finish inside the ctest timeout.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_catalog.h"
#include "files.h"
#include "redact.h"
#include "report.h"

static void sample(tw_report *r, const char *backend, tw_verdict r04)
{
    tw_report_init(r, backend, "mock:replay");
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "openai/f%d", i);
        tw_rep_fixture *f = tw_report_add_fixture(r, name, "fixtures/openai/f.json", "openai");
        cr_assert_not_null(f);
        tw_rep_exchange *e = tw_report_add_exchange(f);
        cr_assert_not_null(e);
        e->method = strdup("POST");
        e->path = strdup("/v1/chat/completions");
        e->status = 200;
        cr_assert_not_null(
            tw_report_add_check(e, "OAI-R01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "ok"));
        cr_assert_not_null(tw_report_add_check(e, "OAI-R04", r04, TW_EXPECT_NOT_FAIL, 42,
                                               "arguments <b>\"bad\"</b> |"));
        cr_assert_not_null(
            tw_report_add_check(e, "CLI-06", TW_V_FAIL, TW_EXPECT_ANY, -1, "advisory"));
    }
    tw_rep_fixture *s = tw_report_add_fixture(r, "hermes/b", "fixtures/hermes/b.json", "hermes");
    s->skipped = true;
    s->note = strdup("does not fit the replay profile");
    tw_report_summarise(r);
}

typedef tw_status (*render_fn)(const tw_report *r, size_t n, tw_buf *out);

static tw_status one_json(const tw_report *r, size_t n, tw_buf *o)
{
    (void)n;
    return tw_report_to_json(r, o);
}
static tw_status one_md(const tw_report *r, size_t n, tw_buf *o)
{
    (void)n;
    return tw_report_to_markdown(r, o);
}
static tw_status one_junit(const tw_report *r, size_t n, tw_buf *o)
{
    (void)n;
    return tw_report_to_junit(r, o);
}
static tw_status one_html(const tw_report *r, size_t n, tw_buf *o)
{
    (void)n;
    return tw_report_to_html(r, o);
}

/* Whole, the rendering fits a buffer of exactly its length; one byte less,
 * or a cut anywhere, is TW_ERR_LIMIT, never OK. */
static void assert_status(const char *what, render_fn fn, const tw_report *r, size_t n)
{
    tw_buf whole = {0};
    cr_assert_eq(fn(r, n, &whole), TW_OK, "%s", what);
    cr_assert_gt(whole.len, 100, "%s", what);
    tw_buf exact = {0};
    exact.max = whole.len;
    cr_assert_eq(fn(r, n, &exact), TW_OK, "%s: a buffer of exactly its length", what);
    cr_assert_eq(exact.len, whole.len, "%s", what);
    cr_assert(memcmp(exact.data, whole.data, whole.len) == 0, "%s", what);
    tw_buf_free(&exact);
    size_t cuts[] = {whole.len - 1, whole.len - 2, whole.len * 3 / 4, whole.len / 2, 40, 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        tw_buf b = {0};
        b.max = cuts[i];
        tw_status st = fn(r, n, &b);
        cr_assert_eq(st, TW_ERR_LIMIT, "%s: capped at %zu of %zu bytes: %s", what, cuts[i],
                     whole.len, tw_code_name(st));
        cr_assert_leq(b.len, cuts[i]);
        tw_buf_free(&b);
    }
    tw_buf_free(&whole);
}

Test(writers, every_renderer_returns_limit_when_its_buffer_is_full)
{
    tw_report r[2];
    sample(&r[0], "a", TW_V_PASS);
    sample(&r[1], "b", TW_V_FAIL);
    assert_status("json", one_json, &r[1], 1);
    assert_status("markdown", one_md, &r[1], 1);
    assert_status("junit", one_junit, &r[1], 1);
    assert_status("html", one_html, &r[1], 1);
    assert_status("compare markdown", tw_compare_markdown, r, 2);
    assert_status("compare html", tw_compare_html, r, 2);
    tw_report_free(&r[0]);
    tw_report_free(&r[1]);
}

Test(writers, gate_returns_limit_and_keeps_its_counts)
{
    tw_report b, r;
    sample(&b, "base", TW_V_PASS);
    sample(&r, "now", TW_V_FAIL);
    tw_gate_result g;
    cr_assert_eq(tw_gate(&b, &r, 0, &g), TW_OK);
    size_t len = g.text.len;
    cr_assert_eq(g.regressions, 3);
    tw_gate_result_free(&g);
    cr_assert_eq(tw_gate(&b, &r, len, &g), TW_OK, "a cap of exactly the text's length");
    cr_assert_eq(g.text.len, len);
    tw_gate_result_free(&g);
    size_t cuts[] = {len - 1, len / 2, 10};
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(tw_gate(&b, &r, cuts[i], &g), TW_ERR_LIMIT, "capped at %zu of %zu", cuts[i],
                     len);
        cr_assert_eq(g.regressions, 3, "the counts stand");
        cr_assert_leq(g.text.len, cuts[i]);
        tw_gate_result_free(&g);
    }
    tw_report_free(&b);
    tw_report_free(&r);
}

/* ---- writing files ---- */

static char dir[64];

static void mkdir_tmp(void)
{
    snprintf(dir, sizeof dir, "/tmp/tw-writers-XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void rm_rf(const char *d)
{
    DIR *dd = opendir(d);
    if (!dd)
        return;
    struct dirent *e;
    while ((e = readdir(dd))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", d, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            rm_rf(p);
        else
            unlink(p);
    }
    closedir(dd);
    rmdir(d);
}

static void rm_tmp(void)
{
    rm_rf(dir);
}

static void put_file(const char *name, const char *text)
{
    char p[256];
    tw_error why = {.offset = -1};
    snprintf(p, sizeof p, "%s/%s", dir, name);
    cr_assert_eq(tw_write_atomic(p, text, strlen(text), &why), TW_OK, "%s", why.message);
}

static void put_report(const tw_report *r, const char *name)
{
    tw_buf b = {0};
    cr_assert_eq(tw_report_to_json(r, &b), TW_OK);
    put_file(name, b.data);
    tw_buf_free(&b);
}

TestSuite(files, .init = mkdir_tmp, .fini = rm_tmp);

Test(files, write_all_into_an_unwritable_dir_says_why)
{
    tw_report r;
    sample(&r, "b", TW_V_FAIL);
    put_file("plain", "x");
    char out[256];
    tw_error why = {.offset = -1};
    snprintf(out, sizeof out, "%s/plain/reports", dir); /* below a regular file */
    cr_assert_eq(tw_report_write_all(&r, out, &why), TW_ERR_IO);
    cr_assert(strstr(why.message, "cannot create directory") &&
                  strstr(why.message, "plain/reports"),
              "%s", why.message);
    /* a directory whose files cannot be created: a directory in place of the file */
    snprintf(out, sizeof out, "%s/rep", dir);
    cr_assert(tw_mkdirs(out));
    char p[300];
    snprintf(p, sizeof p, "%s/b.md", out);
    cr_assert_eq(mkdir(p, 0777), 0);
    why.message[0] = 0;
    cr_assert_eq(tw_report_write_all(&r, out, &why), TW_ERR_IO);
    cr_assert(strstr(why.message, "b.md: cannot write"), "%s", why.message);
    tw_report_free(&r);
}

/* The files tw_report_write_all writes in pieces are the renderings the
 * buffers hold, redacted as a whole: a secret that straddles two pieces is
 * caught as well as one inside a piece. */
Test(files, write_all_in_pieces_equals_the_whole_renderings)
{
    static const char secret[] = "sk-live-0123456789abcdefSECRET";
    tw_secret_reset();
    cr_assert_eq(tw_secret_add(secret), TW_OK);
    tw_report r;
    tw_report_init(&r, "big", "mock:replay");
    tw_rep_fixture *f =
        tw_report_add_fixture(&r, "openai/big", "fixtures/openai/big.json", "openai");
    cr_assert_not_null(f);
    char ev[300];
    for (int k = 0; k < 3000; k++) {
        tw_rep_exchange *e = tw_report_add_exchange(f);
        cr_assert_not_null(e);
        e->method = strdup("POST");
        e->path = strdup("/v1/chat/completions");
        e->status = 200;
        /* the secret lands at every offset modulo a piece over the exchanges */
        snprintf(ev, sizeof ev, "%.*s key %s <tail>", k % 97,
                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                 "xxxxxxxxxxxxxxxx",
                 secret);
        cr_assert_not_null(
            tw_report_add_check(e, "OAI-R01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, ev));
        cr_assert_not_null(tw_report_add_check(e, "OAI-R04", k % 5 ? TW_V_PASS : TW_V_FAIL,
                                               TW_EXPECT_NOT_FAIL, k, ev));
    }
    tw_report_summarise(&r);
    char out[256];
    tw_error why = {.offset = -1};
    snprintf(out, sizeof out, "%s/big", dir);
    cr_assert_eq(tw_report_write_all(&r, out, &why), TW_OK, "%s", why.message);
    static const char *const ext[] = {"json", "md", "junit.xml", "html"};
    tw_status (*const fn[])(const tw_report *, tw_buf *) = {
        tw_report_to_json, tw_report_to_markdown, tw_report_to_junit, tw_report_to_html};
    for (int i = 0; i < 4; i++) {
        tw_buf whole = {0}, clean = {0};
        cr_assert_eq(fn[i](&r, &whole), TW_OK);
        cr_assert_eq(tw_secret_scrub(whole.data, whole.len, &clean, NULL), TW_OK);
        char p[400];
        snprintf(p, sizeof p, "%s/big.%s", out, ext[i]);
        size_t len = 0;
        char *d = tw_read_file(p, 0, &len, &why);
        cr_assert_not_null(d, "%s", why.message);
        cr_assert_eq(len, clean.len, "%s: %zu bytes written, %zu rendered", ext[i], len, clean.len);
        cr_assert(memcmp(d, clean.data, len) == 0, "%s differs from its rendering", ext[i]);
        cr_assert_null(strstr(d, secret), "%s holds the secret", ext[i]);
        if (i != 1) /* the Markdown lists failures only */
            cr_assert_not_null(strstr(d, TW_REDACTED), "%s", ext[i]);
        free(d);
        tw_buf_free(&whole);
        tw_buf_free(&clean);
    }
    /* large enough to be written in many pieces */
    struct stat st;
    char p[400];
    snprintf(p, sizeof p, "%s/big.json", out);
    cr_assert_eq(stat(p, &st), 0);
    cr_assert_gt((long long)st.st_size, 8LL * 64 * 1024);
    tw_report_free(&r);
    tw_secret_reset();
}

Test(files, read_write_mkdirs_join)
{
    put_file("ten", "0123456789");
    char p[256];
    tw_error why = {.offset = -1};
    snprintf(p, sizeof p, "%s/ten", dir);
    char *d = NULL;
    size_t len = 0;
    cr_assert_eq(tw_file_read(p, 10, &d, &len, &why), TW_OK, "%s", why.message);
    cr_assert_eq(len, 10);
    cr_assert_str_eq(d, "0123456789");
    free(d);
    cr_assert_eq(tw_file_read(p, 9, &d, &len, &why), TW_ERR_LIMIT);
    cr_assert_null(d);
    cr_assert(strstr(why.message, "is larger than 9 bytes"), "%s", why.message);
    cr_assert_null(tw_read_file(p, 9, &len, &why));
    d = tw_read_file_head(p, 4, &len, &why);
    cr_assert_not_null(d, "%s", why.message);
    cr_assert_eq(len, 4);
    cr_assert(memcmp(d, "0123", 4) == 0);
    free(d);
    snprintf(p, sizeof p, "%s/missing", dir);
    cr_assert_eq(tw_file_read(p, 0, &d, &len, &why), TW_ERR_IO);
    cr_assert(strstr(why.message, "cannot open"), "%s", why.message);
    /* mkdir -p, and not over a file */
    snprintf(p, sizeof p, "%s/a/b/c", dir);
    cr_assert(tw_mkdirs(p));
    cr_assert(tw_mkdirs(p), "an existing directory is fine");
    snprintf(p, sizeof p, "%s/ten", dir);
    cr_assert_not(tw_mkdirs(p));
    cr_assert_eq(errno, ENOTDIR);
    cr_assert_not(tw_mkdirs(""));
    /* appending */
    snprintf(p, sizeof p, "%s/log", dir);
    cr_assert_eq(tw_append_file(p, "ab", 2, &why), TW_OK);
    cr_assert_eq(tw_append_file(p, "cd", 2, &why), TW_OK);
    d = tw_read_file(p, 0, &len, &why);
    cr_assert_str_eq(d, "abcd");
    free(d);
    snprintf(p, sizeof p, "%s/ten/log", dir);
    cr_assert_eq(tw_append_file(p, "ab", 2, &why), TW_ERR_IO);
    cr_assert(strstr(why.message, "cannot append"), "%s", why.message);
    /* joining */
    char j[8];
    cr_assert(tw_path_join(j, sizeof j, "ab", "cd"));
    cr_assert_str_eq(j, "ab/cd");
    cr_assert_not(tw_path_join(j, sizeof j, "abcd", "efgh"));
    char s[8];
    tw_safe_name(s, sizeof s, ".a b/c");
    cr_assert_str_eq(s, "_a_b_c");
}

/* Run the toolwire binary with a shell redirection; its exit status, stderr into err. */
static int run(const char *args, char *err, size_t errn)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert(bin, "TOOLWIRE_BIN is set by ctest");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && { '%s' %s; } 2>&1", dir, bin, args);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(err, 1, errn - 1, p);
    err[n] = 0;
    int st = pclose(p);
    cr_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

Test(files, compare_and_gate_fail_when_they_cannot_write)
{
    tw_report b, r;
    sample(&b, "base", TW_V_PASS);
    sample(&r, "now", TW_V_FAIL);
    put_report(&b, "base.json");
    put_report(&r, "now.json");
    put_file("plain", "x");
    char out[8192];
    /* gate: the --summary file cannot be opened */
    cr_assert_eq(
        run("gate --baseline base.json --summary plain/summary.md base.json", out, sizeof out), 2,
        "%s", out);
    cr_assert(strstr(out, "toolwire gate: plain/summary.md: cannot append"), "%s", out);
    /* gate: standard output is full */
    cr_assert_eq(run("gate --baseline base.json now.json 2>&1 >/dev/full", out, sizeof out), 2,
                 "%s", out);
    cr_assert(strstr(out, "toolwire gate: cannot write to standard output"), "%s", out);
    /* compare: standard output is full; the --html page cannot be written */
    cr_assert_eq(run("compare base.json now.json 2>&1 >/dev/full", out, sizeof out), 2, "%s", out);
    cr_assert(strstr(out, "toolwire compare: cannot write to standard output"), "%s", out);
    cr_assert_eq(run("compare --html plain/c.html base.json now.json >/dev/null", out, sizeof out),
                 2, "%s", out);
    cr_assert(strstr(out, "toolwire compare: plain/c.html: cannot create a temporary file"), "%s",
              out);
    /* and when all is well */
    cr_assert_eq(
        run("gate --baseline base.json --summary s.md base.json >/dev/null", out, sizeof out), 0,
        "%s", out);
    cr_assert_eq(run("compare --html c.html base.json now.json >/dev/null", out, sizeof out), 0,
                 "%s", out);
    tw_report_free(&b);
    tw_report_free(&r);
}

/* ---- client reports, in the words of clients ---- */

Test(writers, compare_of_client_reports_speaks_of_client_libraries)
{
    tw_report r[2];
    for (int i = 0; i < 2; i++) {
        tw_report_init(&r[i], i ? "sdk-b" : "sdk-a", "sdk 1.0 (openai) via node driver.mjs");
        tw_rep_fixture *f =
            tw_report_add_fixture(&r[i], "clients/a [whole]", "a.json", r[i].backend);
        tw_rep_exchange *e = tw_report_add_exchange(f);
        e->status = 200;
        tw_report_add_check(e, "CLT-01", i ? TW_V_FAIL : TW_V_PASS, TW_EXPECT_ANY, -1, "");
        tw_report_summarise(&r[i]);
    }
    tw_buf md = {0}, html = {0};
    cr_assert_eq(tw_compare_markdown(r, 2, &md), TW_OK);
    cr_assert_eq(tw_compare_html(r, 2, &html), TW_OK);
    cr_assert(strstr(md.data, "# toolwire: client libraries compared"), "%s", md.data);
    cr_assert(strstr(md.data, "## Where the client libraries differ"), "%s", md.data);
    cr_assert(strstr(md.data, "| client library | target |"), "%s", md.data);
    cr_assert(strstr(md.data, "| clients/a [whole] | 0 | CLT-01 | error | pass | fail |"), "%s",
              md.data);
    cr_assert_null(strstr(md.data, "backend"), "%s", md.data);
    cr_assert(strstr(html.data, "<h1>toolwire: client libraries compared</h1>"));
    cr_assert_null(strstr(html.data, "Where the backends"));
    cr_assert_null(strstr(html.data, "not run on this backend"));
    tw_buf_free(&md);
    tw_buf_free(&html);
    /* beside a backend report the words stay "backends" */
    tw_report_free(&r[1]);
    tw_report_init(&r[1], "mock", "mock:replay");
    tw_rep_fixture *f = tw_report_add_fixture(&r[1], "openai/a", "a.json", "openai");
    tw_report_add_check(tw_report_add_exchange(f), "OAI-R01", TW_V_PASS, TW_EXPECT_ANY, -1, "");
    tw_report_summarise(&r[1]);
    cr_assert_eq(tw_compare_markdown(r, 2, &md), TW_OK);
    cr_assert(strstr(md.data, "# toolwire: backends compared"), "%s", md.data);
    tw_buf_free(&md);
    tw_report_free(&r[0]);
    tw_report_free(&r[1]);
}

/* The table of checks lists the checks this run judged, with their counts, and
 * only counts the others of the catalogue: a parser's report is not a list of
 * every backend check at 0. */
Test(writers, markdown_lists_only_the_checks_the_run_judged)
{
    tw_report r;
    sample(&r, "mock", TW_V_FAIL);
    tw_buf md = {0};
    cr_assert_eq(tw_report_to_markdown(&r, &md), TW_OK);
    cr_assert(strstr(md.data, "| OAI-R01 | error | 3 | 0 | 0 |"), "%s", md.data);
    cr_assert(strstr(md.data, "| OAI-R04 | error | 0 | 3 | 0 |"), "%s", md.data);
    cr_assert(strstr(md.data, "| CLI-06 |"), "%s", md.data);
    cr_assert_null(strstr(md.data, "| OAI-R02 |"), "a check no exchange reached is listed");
    size_t nc;
    (void)tw_checks_catalog(&nc);
    char line[128];
    snprintf(line, sizeof line,
             "\n%zu other checks of the catalogue (docs/checks.md) judged no exchange here.\n",
             nc - 3);
    cr_assert(strstr(md.data, line), "wanted %s in %s", line, md.data);
    tw_buf_free(&md);
    tw_report_free(&r);
}

/* A parser's report (PRS checks, rows read by a driver, not sent over HTTP):
 * one row passes, one has a failure its --expected file declares, one is
 * skipped. */
static void parser_sample(tw_report *r)
{
    tw_report_init(r, "p", "p 1.0 (hermes) via drv");
    for (int i = 0; i < 2; i++) {
        tw_rep_fixture *f = tw_report_add_fixture(r, i ? "hermes/a [stream]" : "hermes/a [whole]",
                                                  "tests/data/decode/hermes/a.json", "p");
        tw_rep_exchange *e = tw_report_add_exchange(f);
        cr_assert_not_null(e);
        e->method = strdup("PARSE");
        e->path = strdup("tests/data/decode/hermes/a.json");
        e->result = TW_V_SKIP;
        cr_assert_not_null(
            tw_report_add_check(e, "PRS-01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "1 call"));
        tw_rep_check *c = tw_report_add_check(e, "PRS-02", i ? TW_V_FAIL : TW_V_PASS,
                                              i ? TW_EXPECT_ANY : TW_EXPECT_NOT_FAIL, -1,
                                              i ? "call 0: an extra member" : "same");
        cr_assert_not_null(c);
        if (i)
            c->declared = strdup("an extra member; the parser adds one on purpose");
        cr_assert_not_null(tw_report_set_result_check(e, TW_EXPECT_NOT_FAIL));
    }
    tw_rep_fixture *s = tw_report_add_fixture(r, "hermes/b [whole]", "b.json", "p");
    s->skipped = true;
    s->note = strdup("option max_calls is toolwire's own");
    tw_report_summarise(r);
}

Test(writers, parser_report_has_no_http_and_counts_expected_differences)
{
    tw_report r;
    parser_sample(&r);
    cr_assert_eq(r.n_fail, 1);
    cr_assert_eq(r.n_declared, 1);
    cr_assert(r.ok);
    tw_buf html = {0}, md = {0}, js = {0};
    cr_assert_eq(tw_report_to_html(&r, &html), TW_OK);
    cr_assert_eq(tw_report_to_markdown(&r, &md), TW_OK);
    cr_assert_eq(tw_report_to_json(&r, &js), TW_OK);
    /* no HTTP column, no HTTP key in the legend: a driver's row has no status */
    cr_assert_null(strstr(html.data, "class=\"http"), "%s", html.data);
    cr_assert_null(strstr(html.data, ">HTTP</th>"), "%s", html.data);
    cr_assert_null(strstr(html.data, "HTTP column"), "%s", html.data);
    cr_assert(strstr(html.data, "<tr><td class=\"hok\">parsed</td><td>2</td></tr>"), "%s",
              html.data);
    cr_assert(strstr(html.data, "<p id=declared><b>Expected differences: 1</b> of the 1 failing"),
              "%s", html.data);
    /* the Markdown speaks of the parser, and lists the expected difference apart */
    cr_assert_null(strstr(md.data, "backend"), "%s", md.data);
    cr_assert(strstr(md.data, "## Fixtures not run on this parser"), "%s", md.data);
    cr_assert(strstr(md.data, "## Driver outcomes\n\n| outcome | rows |"), "%s", md.data);
    cr_assert(strstr(md.data, "Expected differences: 1 of the 1 failing checks"), "%s", md.data);
    cr_assert(strstr(md.data, "## Expected differences (declared in --expected, with the reason)"),
              "%s", md.data);
    cr_assert(strstr(md.data, "| hermes/a [stream] | 0 | PRS-02 | call 0: an extra member | an "
                              "extra member; the parser adds one on purpose |"),
              "%s", md.data);
    cr_assert_null(strstr(md.data, "Failing checks"), "%s", md.data);
    /* the JSON: a count of their own, each verdict marked; read back the same */
    cr_assert(strstr(js.data, "\"expected_differences\": 1"), "%s", js.data);
    cr_assert(strstr(js.data, "\"declared\": \"an extra member; the parser adds one on purpose\""),
              "%s", js.data);
    tw_report back;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_report_parse(js.data, js.len, &back, &why), TW_OK, "%s", why.message);
    cr_assert_eq(back.n_declared, 1);
    for (size_t i = 0; i < 2; i++)
        for (size_t c = 0; c < back.fx[i].ex[0].nchecks; c++) {
            const tw_rep_check *ch = &back.fx[i].ex[0].checks[c];
            if (i == 1 && strcmp(ch->id, "PRS-02") == 0)
                cr_assert_str_eq(ch->declared, "an extra member; the parser adds one on purpose");
            else
                cr_assert_null(ch->declared, "%zu %s", i, ch->id);
        }
    free(back.generated);
    back.generated = strdup(r.generated);
    tw_buf again = {0};
    cr_assert_eq(tw_report_to_json(&back, &again), TW_OK);
    cr_assert_str_eq(again.data, js.data, "the report round-trips");
    tw_report_free(&back);
    /* a report written before the field: read, with no expected difference */
    char *old = strdup(js.data);
    char *d;
    while ((d = strstr(old, "\"declared\": ")) != NULL) {
        char *line = d;
        while (line > old && line[-1] != '\n')
            line--;
        char *end = strchr(d, '\n');
        /* the member before it ends with a comma: drop that and the line */
        char *prev = line - 1;
        while (prev > old && (prev[-1] == ' ' || prev[-1] == '\n'))
            prev--;
        if (prev[-1] == ',')
            prev--;
        memmove(prev, end, strlen(end) + 1);
    }
    cr_assert_null(strstr(old, "\"declared\":"));
    cr_assert_eq(tw_report_parse(old, strlen(old), &back, &why), TW_OK, "%s\n%s", why.message, old);
    cr_assert_eq(back.n_declared, 0);
    cr_assert_eq(back.n_fail, 1);
    tw_report_free(&back);
    free(old);
    tw_buf_free(&again);
    tw_buf_free(&html);
    tw_buf_free(&md);
    tw_buf_free(&js);
    tw_report_free(&r);
}

/* The comparison page of parsers speaks of no HTTP either. */
Test(writers, parser_comparison_has_no_http)
{
    tw_report r[2];
    parser_sample(&r[0]);
    parser_sample(&r[1]);
    tw_buf h = {0};
    cr_assert_eq(tw_compare_html(r, 2, &h), TW_OK);
    cr_assert(strstr(h.data, "Where the parsers differ"), "%s", h.data);
    cr_assert_null(strstr(h.data, "HTTP"), "%s", h.data);
    tw_buf_free(&h);
    tw_report_free(&r[0]);
    tw_report_free(&r[1]);
}

/* A client library's exchanges are HTTP (the driver's requests to the mock):
 * its page keeps the HTTP column. */
Test(writers, client_report_keeps_the_http_column)
{
    tw_report r;
    tw_report_init(&r, "sdk", "sdk 1.0 (openai) via node driver.mjs");
    tw_rep_fixture *f = tw_report_add_fixture(&r, "clients/a [whole]", "a.json", "sdk");
    tw_rep_exchange *e = tw_report_add_exchange(f);
    e->method = strdup("POST");
    e->path = strdup("/v1/chat/completions");
    e->status = 200;
    tw_report_add_check(e, "CLT-01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "");
    tw_report_summarise(&r);
    tw_buf html = {0};
    cr_assert_eq(tw_report_to_html(&r, &html), TW_OK);
    cr_assert(strstr(html.data, "<td class=\"http hok\" data-c=http"), "%s", html.data);
    cr_assert(strstr(html.data, "HTTP column"), "%s", html.data);
    tw_buf_free(&html);
    tw_report_free(&r);
}

/* ---- linear time ---- */

#define MANY 30000

/* MANY fixtures with long names that share a prefix (a comparison of two
 * names costs their length), one exchange and one check each. */
static void many(tw_report *r, const char *name, tw_verdict v)
{
    tw_report_init(r, name, "mock:replay");
    for (size_t i = 0; i < MANY; i++) {
        char fx[96];
        snprintf(fx, sizeof fx, "openai/a-fixture-name-with-a-long-common-prefix-%08zu", i);
        tw_rep_fixture *f = tw_report_add_fixture(r, fx, "f.json", "openai");
        cr_assert_not_null(f);
        tw_rep_exchange *e = tw_report_add_exchange(f);
        cr_assert_not_null(e);
        e->status = 200;
        cr_assert_not_null(tw_report_add_check(e, "OAI-R04", v, TW_EXPECT_ANY, -1, "evidence"));
    }
    tw_report_summarise(r);
}

Test(linear, compare_and_gate_of_large_reports, .timeout = 500)
{
    tw_report r[2];
    many(&r[0], "a", TW_V_PASS);
    many(&r[1], "b", TW_V_FAIL);
    tw_buf md = {0};
    cr_assert_eq(tw_compare_markdown(r, 2, &md), TW_OK);
    char want[128];
    snprintf(want, sizeof want, "… %d rows in all; the first 2000 are shown.", MANY);
    cr_assert(strstr(md.data, want), "every key was compared");
    tw_buf_free(&md);
    tw_buf html = {0};
    cr_assert_eq(tw_compare_html(r, 2, &html), TW_OK);
    snprintf(want, sizeof want, "%d fixtures ran on at least two backends (%d on every one)", MANY,
             MANY);
    cr_assert(strstr(html.data, want), "every fixture was found in common");
    tw_buf_free(&html);
    tw_gate_result g;
    cr_assert_eq(tw_gate(&r[0], &r[1], 0, &g), TW_OK);
    cr_assert_eq(g.regressions, MANY);
    cr_assert_eq(g.missing, 0);
    tw_gate_result_free(&g);
    tw_report_free(&r[0]);
    tw_report_free(&r[1]);
}
