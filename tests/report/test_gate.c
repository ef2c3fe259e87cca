/* The regression gate: a planted regression fails it; improvements do not. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static void make(tw_report *r, const char *name, tw_verdict r04, tw_verdict s01)
{
    tw_report_init(r, name, "mock:replay");
    tw_rep_fixture *f = tw_report_add_fixture(r, "openai/a", "a.json", "openai");
    tw_rep_exchange *e = tw_report_add_exchange(f);
    tw_report_add_check(e, "OAI-R01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "");
    tw_report_add_check(e, "OAI-R04", r04, TW_EXPECT_ANY, -1, "arguments are an object");
    tw_report_add_check(e, "OAI-S01", s01, TW_EXPECT_ANY, -1, "");
    tw_report_summarise(r);
}

static char dir[64];

static void write_report(const tw_report *r, const char *file)
{
    tw_buf b = {0};
    cr_assert_eq(tw_report_to_json(r, &b), TW_OK);
    char path[256];
    tw_error why = {.offset = -1};
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cr_assert_eq(tw_write_atomic(path, b.data, b.len, &why), TW_OK);
    tw_buf_free(&b);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/tw-gate-XXXXXX");
    cr_assert(mkdtemp(dir));
    tw_report base, regressed, improved;
    make(&base, "baseline", TW_V_PASS, TW_V_FAIL);
    make(&regressed, "now", TW_V_FAIL, TW_V_FAIL);
    make(&improved, "now", TW_V_PASS, TW_V_PASS);
    write_report(&base, "base.json");
    write_report(&regressed, "regressed.json");
    write_report(&improved, "improved.json");
    tw_report_free(&base);
    tw_report_free(&regressed);
    tw_report_free(&improved);
}

static void teardown(void)
{
    char p[256];
    const char *f[] = {"base.json", "regressed.json", "improved.json", "summary.md",
                       "bad-utf8.json"};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, f[i]);
        unlink(p);
    }
    rmdir(dir);
}

TestSuite(gate, .init = setup, .fini = teardown);

Test(gate, function)
{
    tw_report b, r;
    make(&b, "baseline", TW_V_PASS, TW_V_FAIL);
    make(&r, "now", TW_V_FAIL, TW_V_PASS);
    tw_gate_result g;
    cr_assert_eq(tw_gate(&b, &r, 0, &g), TW_OK);
    cr_assert_eq(g.regressions, 1);
    cr_assert_eq(g.improvements, 1);
    cr_assert(strstr(g.text.data, "OAI-R04"));
    cr_assert(strstr(g.text.data, "arguments are an object"));
    tw_gate_result_free(&g);
    tw_report_free(&b);
    tw_report_free(&r);
}

Test(gate, nothing_came_back_is_a_regression)
{
    /* a check that passed, then a skip because the exchange got no response (a
     * server down, a client driver that failed): a regression */
    tw_report b, r;
    make(&b, "baseline", TW_V_PASS, TW_V_FAIL);
    b.fx[0].ex[0].status = 200;
    make(&r, "now", TW_V_SKIP, TW_V_FAIL);
    r.fx[0].ex[0].status = 0;
    r.fx[0].ex[0].error = strdup("connection refused");
    tw_gate_result g;
    cr_assert_eq(tw_gate(&b, &r, 0, &g), TW_OK);
    cr_assert_eq(g.regressions, 1);
    cr_assert(strstr(g.text.data, "not judged: connection refused"), "%s", g.text.data);
    tw_gate_result_free(&g);
    /* a skip beside a response is no regression (the check did not apply) */
    r.fx[0].ex[0].status = 200;
    cr_assert_eq(tw_gate(&b, &r, 0, &g), TW_OK);
    cr_assert_eq(g.regressions, 0);
    tw_gate_result_free(&g);
    tw_report_free(&b);
    tw_report_free(&r);
}

/* Run the toolwire binary; returns its exit status, output into out. */
static int run_gate(const char *report, char *out, size_t outn, bool summary)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert(bin, "TOOLWIRE_BIN is set by ctest");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' gate --baseline '%s/base.json' %s%s%s '%s/%s' 2>&1", bin, dir,
             summary ? "--summary '" : "", summary ? dir : "", summary ? "/summary.md'" : "", dir,
             report);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(out, 1, outn - 1, p);
    out[n] = 0;
    int st = pclose(p);
    cr_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

Test(gate, binary_exits_1_on_planted_regression)
{
    char out[8192];
    cr_assert_eq(run_gate("regressed.json", out, sizeof out, true), 1, "%s", out);
    cr_assert(strstr(out, "1 regression"), "%s", out);
    cr_assert(strstr(out, "OAI-R04"));
    char p[256];
    snprintf(p, sizeof p, "%s/summary.md", dir);
    FILE *f = fopen(p, "r");
    cr_assert(f, "the summary file was written");
    fclose(f);
}

Test(gate, binary_exits_0_and_reports_improvements)
{
    char out[8192];
    cr_assert_eq(run_gate("improved.json", out, sizeof out, false), 0, "%s", out);
    cr_assert(strstr(out, "no regression"));
    cr_assert(strstr(out, "1 improvement"));
}

Test(gate, binary_usage_errors)
{
    char out[8192];
    cr_assert_eq(run_gate("missing.json", out, sizeof out, false), 2, "%s", out);
}

/* A report whose exchange holds one check id twice, or one exchange index
 * twice, gates against itself without a regression: only the first, the one
 * the lookups name, is judged (as only the first fixture of a name is). A
 * flip of that first one is still a regression. */
Test(gate, repeated_keys_judge_the_first_only)
{
    tw_report r, c;
    for (int k = 0; k < 2; k++) {
        tw_report *x = k ? &c : &r;
        tw_report_init(x, "b", "mock:replay");
        tw_rep_fixture *f = tw_report_add_fixture(x, "hermes/f", "f.json", "hermes");
        tw_rep_exchange *e = tw_report_add_exchange(f);
        tw_report_add_check(e, "HER-02", TW_V_FAIL, TW_EXPECT_ANY, -1, "cut");
        tw_report_add_check(e, "OAI-R01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "");
        tw_report_add_check(e, "HER-02", TW_V_PASS, TW_EXPECT_ANY, -1, "");
        tw_rep_exchange *e2 = tw_report_add_exchange(f); /* index 0 again */
        tw_report_add_check(e2, "OAI-R01", TW_V_FAIL, TW_EXPECT_ANY, -1, "second");
        tw_report_summarise(x);
    }
    tw_gate_result g;
    cr_assert_eq(tw_gate(&r, &r, 0, &g), TW_OK);
    cr_expect_eq(g.regressions, 0, "%s", g.text.data);
    cr_expect_eq(g.improvements, 0, "%s", g.text.data);
    cr_expect_eq(g.missing, 0, "%s", g.text.data);
    tw_gate_result_free(&g);
    c.fx[0].ex[0].checks[1].verdict = TW_V_FAIL;
    cr_assert_eq(tw_gate(&r, &c, 0, &g), TW_OK);
    cr_expect_eq(g.regressions, 1, "%s", g.text.data);
    cr_expect(g.text.data && strstr(g.text.data, "OAI-R01"), "%s", g.text.data);
    tw_gate_result_free(&g);
    tw_report_free(&r);
    tw_report_free(&c);
}

/* A report that is not RFC 8259 JSON (here a fixture name holding a byte that
 * is not UTF-8, which the writer would print as U+FFFD and so rename the
 * fixture) is refused: exit 2, naming the byte offset. */
Test(gate, binary_refuses_a_report_that_is_not_rfc8259)
{
    char p[256];
    snprintf(p, sizeof p, "%s/bad-utf8.json", dir);
    static const char bad[] = "{\"schema\":\"toolwire-report\",\"version\":1,\"backend\":\"now\","
                              "\"fixtures\":[{\"name\":\"openai/\xff\",\"exchanges\":[]}]}";
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_write_atomic(p, bad, sizeof bad - 1, &why), TW_OK);
    char out[8192];
    cr_assert_eq(run_gate("bad-utf8.json", out, sizeof out, false), 2, "%s", out);
    cr_expect(strstr(out, "not RFC 8259 JSON at byte 84: invalid UTF-8 inside a string"), "%s",
              out);
}
