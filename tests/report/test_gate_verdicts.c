/* The gate and compare through the real binary: the decoded result as the
 * check RES-01 (also in reports written before it), missing fixtures, the
 * gate's JUnit, JSON and workflow commands, severities, folded info-level
 * rows and column labels. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "twtest.h"
#include "toolwire/json.h"

static char *dir;

static void setup(void)
{
    dir = tw_test_tmpdir("tw-gate-verdicts");
}
static void teardown(void)
{
    tw_test_rm_tree(dir);
    free(dir);
}

TestSuite(gate_verdicts, .init = setup, .fini = teardown);

static void save(tw_report *r, const char *file)
{
    tw_report_summarise(r);
    tw_buf b = {0};
    cr_assert_eq(tw_report_to_json(r, &b), TW_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    tw_test_spit(path, b.data);
    tw_buf_free(&b);
    tw_report_free(r);
}

/* One fixture of one exchange: OAI-R01 passes, `id` has verdict v; the
 * result as given. No RES-01 check: a report as toolwire wrote it before. */
static tw_rep_exchange *one(tw_report *r, const char *fx, const char *file, const char *id,
                            tw_verdict v)
{
    tw_rep_fixture *f = tw_report_add_fixture(r, fx, file, "openai");
    cr_assert_not_null(f);
    tw_rep_exchange *e = tw_report_add_exchange(f);
    cr_assert_not_null(e);
    e->status = 200;
    cr_assert_not_null(tw_report_add_check(e, "OAI-R01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, ""));
    if (id)
        cr_assert_not_null(
            tw_report_add_check(e, id, v, TW_EXPECT_ANY, -1, "evidence of the change"));
    return e;
}

/* Two reports of backend `name` in bfile and rfile: fixture openai/c whose
 * check id has verdict bv in the first, rv in the second. */
static void pair(const char *name, const char *bfile, const char *rfile, const char *id,
                 tw_verdict bv, tw_verdict rv)
{
    tw_report b, r;
    tw_report_init(&b, name, "http://x");
    tw_report_init(&r, name, "http://x");
    one(&b, "openai/c", "c.json", id, bv);
    one(&r, "openai/c", "c.json", id, rv);
    save(&b, bfile);
    save(&r, rfile);
}

static int toolwire(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Run `toolwire ARGS` in dir (stdout and stderr into *out); its exit status. */
static int toolwire(char **out, const char *fmt, ...)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert(bin, "TOOLWIRE_BIN is set by ctest");
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    int rc = tw_test_sh("cd '%s' && env -u GITHUB_ACTIONS '%s' %s >out.txt 2>&1", dir, bin, args);
    char p[512];
    snprintf(p, sizeof p, "%s/out.txt", dir);
    size_t len;
    *out = tw_test_slurp(p, &len);
    return rc;
}

/* `toolwire ARGS` exits rc and says needle (NULL: anything). */
static void expect(int rc, const char *needle, const char *args)
{
    char *out;
    cr_assert_eq(toolwire(&out, "%s", args), rc, "toolwire %s: %s", args, out);
    cr_assert(!needle || strstr(out, needle), "toolwire %s: no \"%s\" in %s", args, needle, out);
    free(out);
}

static char *file_in(const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    size_t len;
    return tw_test_slurp(p, &len);
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Point 1: a result that differs fails the gate and is a compare row, in a
 * report written before RES-01 too (its verdict made on load). */
Test(gate_verdicts, a_result_that_differs_is_a_regression_and_a_row)
{
    tw_report b, r;
    tw_report_init(&b, "staging", "http://old");
    tw_rep_exchange *e = one(&b, "openai/nonstream_parallel_calls",
                             "fixtures/openai/nonstream_parallel_calls.json", NULL, TW_V_SKIP);
    e->result = TW_V_PASS;
    save(&b, "base.json");
    tw_report_init(&r, "staging", "http://new");
    e = one(&r, "openai/nonstream_parallel_calls", "fixtures/openai/nonstream_parallel_calls.json",
            NULL, TW_V_SKIP);
    e->result = TW_V_FAIL;
    e->result_detail = strdup("openai-response: tool_calls: expected 2, got 1");
    save(&r, "now.json");
    char *base = file_in("base.json");
    cr_assert_eq(count(base, "\"RES-01\""), 1,
                 "RES-01 only in the catalog, no verdict: as before RES-01");
    free(base);

    char *out;
    cr_assert_eq(toolwire(&out, "gate --baseline base.json now.json"), 1, "%s", out);
    cr_assert(strstr(out, "1 regression(s)"), "%s", out);
    cr_assert(
        strstr(
            out,
            "| openai/nonstream_parallel_calls | 0 | RES-01 | error | openai-response: tool_calls: "
            "expected 2, got 1 |"),
        "%s", out);
    free(out);
    cr_assert_eq(toolwire(&out, "compare base.json now.json --html cmp.html"), 0, "%s", out);
    cr_assert_null(strstr(out, "No differences"), "%s", out);
    cr_assert(strstr(out, "| openai/nonstream_parallel_calls | 0 | RES-01 | error | pass | fail |"),
              "%s", out);
    free(out);
    char *html = file_in("cmp.html");
    cr_assert(strstr(html, "<td>RES-01</td><td class=\"sev error\">error</td>"),
              "the page lists the same row");
    cr_assert_null(strstr(html, "<td>result</td>"), "no row of its own besides the check");
    free(html);
    /* the report's own forms carry it as a check: Markdown, JUnit */
    cr_assert_eq(toolwire(&out, "gate --baseline now.json now.json"), 0, "%s", out);
    free(out);
}

/* Point 2: fixtures, exchanges and checks the baseline judged and the report
 * did not fail the gate, one line per fixture, unless --allow-missing. */
Test(gate_verdicts, missing_fixtures_fail_grouped_by_fixture)
{
    tw_report b, r;
    tw_report_init(&b, "staging", "http://x");
    tw_report_init(&r, "staging", "http://x");
    for (int i = 0; i < 12; i++) {
        char fx[64], file[64];
        snprintf(fx, sizeof fx, "openai/f%02d", i);
        snprintf(file, sizeof file, "fixtures/openai/f%02d.json", i);
        tw_rep_exchange *e = one(&b, fx, file, "OAI-R04", TW_V_PASS);
        tw_report_add_check(e, "OAI-S07", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "");
    }
    /* the report ran f00 whole, f01 without OAI-S07, no other */
    tw_rep_exchange *e = one(&r, "openai/f00", "fixtures/openai/f00.json", "OAI-R04", TW_V_PASS);
    tw_report_add_check(e, "OAI-S07", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "");
    one(&r, "openai/f01", "fixtures/openai/f01.json", "OAI-R04", TW_V_PASS);
    r.fx[1].note = strdup("a note of the run");
    save(&b, "base.json");
    save(&r, "now.json");

    char *out;
    cr_assert_eq(toolwire(&out, "gate --baseline base.json now.json"), 1, "%s", out);
    cr_assert(strstr(out, "❌ **11 fixture(s) of the baseline missing**"), "%s", out);
    cr_assert_eq(count(out, "| openai/f"), 11, "one line per fixture: %s", out);
    cr_assert(
        strstr(out,
               "| openai/f05 | fixtures/openai/f05.json | not run: 1 exchange(s), 3 verdict(s)"),
        "%s", out);
    cr_assert(strstr(out, "| openai/f01 | fixtures/openai/f01.json | 0 exchange(s) not run, 1 "
                          "verdict(s) missing"),
              "%s", out);
    cr_assert(strstr(out, "OAI-S07 #0; the report says: a note of the run |"),
              "the missing check is named: %s", out);
    cr_assert_null(strstr(out, "no regression"), "%s", out);
    free(out);
    cr_assert_eq(toolwire(&out, "gate --allow-missing --baseline base.json now.json"), 0, "%s",
                 out);
    cr_assert(strstr(out, "11 fixture(s) of the baseline not (wholly) judged"), "%s", out);
    cr_assert(strstr(out, "accepted by `--allow-missing`"), "%s", out);
    free(out);
}

/* Point 3: --junit, --json and, under GitHub Actions, one ::error line per
 * regression naming the fixture file, escaped. */
Test(gate_verdicts, junit_json_and_annotations)
{
    tw_report b, r;
    tw_report_init(&b, "staging", "http://x");
    tw_report_init(&r, "staging", "http://x");
    one(&b, "openai/regressed", "fixtures/a,b:c.json", "OAI-R04", TW_V_PASS);
    one(&b, "openai/known", "fixtures/known.json", "OAI-R04", TW_V_FAIL);
    one(&b, "openai/better", "fixtures/better.json", "OAI-R04", TW_V_FAIL);
    one(&b, "openai/lost", "fixtures/lost.json", "OAI-R04", TW_V_PASS);
    tw_rep_exchange *e = one(&r, "openai/regressed", "fixtures/a,b:c.json", NULL, TW_V_SKIP);
    tw_report_add_check(e, "OAI-R04", TW_V_FAIL, TW_EXPECT_ANY, -1, "100% wrong\nsecond line");
    one(&r, "openai/known", "fixtures/known.json", "OAI-R04", TW_V_FAIL);
    one(&r, "openai/better", "fixtures/better.json", "OAI-R04", TW_V_PASS);
    save(&b, "base.json");
    save(&r, "now.json");

    char *out;
    cr_assert_eq(toolwire(&out, "gate --baseline base.json --junit g.xml --json g.json now.json"),
                 1, "%s", out);
    cr_assert_null(strstr(out, "::error"), "no workflow commands outside GitHub Actions: %s", out);
    free(out);
    char *x = file_in("g.xml");
    cr_assert(strstr(x, "tests=\"4\" failures=\"2\""), "%s", x);
    cr_assert(strstr(x, "<testcase classname=\"openai/regressed\" file=\"fixtures/a,b:c.json\" "
                        "name=\"regression: #0 OAI-R04 (error)\"><failure"),
              "%s", x);
    cr_assert(strstr(x, "<testcase classname=\"openai/lost\" file=\"fixtures/lost.json\" "
                        "name=\"missing: fixture\">"
                        "<failure"),
              "%s", x);
    cr_assert(
        strstr(x,
               "name=\"known-failure: #0 OAI-R04 (error)\"><system-out>failed in the baseline too"),
        "a known failure is not marked failed: %s", x);
    cr_assert(strstr(x, "name=\"improvement: #0 OAI-R04 (error)\"><system-out>"), "%s", x);
    free(x);
    char *js = file_in("g.json");
    cJSON *j = cJSON_Parse(js);
    cr_assert_not_null(j, "%s", js);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(j, "passed")));
    cJSON *cn = cJSON_GetObjectItem(j, "counts");
    cr_assert_eq(cJSON_GetObjectItem(cn, "regressions")->valueint, 1);
    cr_assert_eq(cJSON_GetObjectItem(cn, "missing_fixtures")->valueint, 1);
    cr_assert_eq(cJSON_GetObjectItem(cn, "improvements")->valueint, 1);
    cr_assert_eq(cJSON_GetObjectItem(cn, "known_failures")->valueint, 1);
    cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(row, "kind")->valuestring, "regression");
    cr_assert_str_eq(cJSON_GetObjectItem(row, "fixture")->valuestring, "openai/regressed");
    cr_assert_str_eq(cJSON_GetObjectItem(row, "file")->valuestring, "fixtures/a,b:c.json");
    cr_assert_str_eq(cJSON_GetObjectItem(row, "check")->valuestring, "OAI-R04");
    cr_assert_str_eq(cJSON_GetObjectItem(row, "severity")->valuestring, "error");
    cr_assert_eq(cJSON_GetObjectItem(row, "exchange")->valueint, 0);
    cr_assert_str_eq(cJSON_GetObjectItem(row, "evidence")->valuestring, "100% wrong\nsecond line");
    cJSON_Delete(j);
    free(js);

    cr_assert_eq(toolwire(&out, "gate --quiet --baseline base.json now.json"), 1, "%s", out);
    cr_assert_null(strstr(out, "::error"), "%s", out);
    free(out);
    cr_assert_eq(
        tw_test_sh(
            "cd '%s' && GITHUB_ACTIONS=true '%s' gate --baseline base.json now.json >gha.txt", dir,
            getenv("TOOLWIRE_BIN")),
        1);
    out = file_in("gha.txt");
    cr_assert_eq(count(out, "::error "), 2, "one per row that fails the gate: %s", out);
    cr_assert(
        strstr(out,
               "::error file=fixtures/a%2Cb%3Ac.json,title=toolwire gate%3A OAI-R04 regressed::"
               "openai/regressed #0 OAI-R04 (error): 100%25 wrong%0Asecond line\n"),
        "%s", out);
    cr_assert(
        strstr(
            out,
            "::error file=fixtures/lost.json,title=toolwire gate%3A fixture missing::openai/lost: "
            "not run"),
        "%s", out);
    free(out);
    /* only GitHub's own value turns them on */
    cr_assert_eq(
        tw_test_sh(
            "cd '%s' && GITHUB_ACTIONS=false '%s' gate --baseline base.json now.json >gha.txt", dir,
            getenv("TOOLWIRE_BIN")),
        1);
    out = file_in("gha.txt");
    cr_assert_null(strstr(out, "::error"), "%s", out);
    free(out);
}

/* Point 4: severities on every row; info-level rows folded unless --all;
 * an info-level change never fails the gate. */
Test(gate_verdicts, severities_and_info_rows_folded)
{
    tw_report b, r;
    tw_report_init(&b, "a", "http://x");
    tw_report_init(&r, "b", "http://x");
    tw_rep_exchange *e = one(&b, "openai/c", "c.json", "OAI-R04", TW_V_PASS);
    tw_report_add_check(e, "CLI-06", TW_V_PASS, TW_EXPECT_ANY, -1, "");
    tw_report_add_check(e, "OAI-S02", TW_V_PASS, TW_EXPECT_ANY, -1, "");
    e = one(&r, "openai/c", "c.json", "OAI-R04", TW_V_PASS);
    tw_report_add_check(e, "CLI-06", TW_V_FAIL, TW_EXPECT_ANY, -1, "parallel_tool_calls not set");
    tw_report_add_check(e, "OAI-S02", TW_V_FAIL, TW_EXPECT_ANY, -1, "no role");
    save(&b, "a.json");
    save(&r, "b.json");
    char *out;
    cr_assert_eq(toolwire(&out, "compare a.json b.json --html c.html"), 0, "%s", out);
    cr_assert(strstr(out, "| fixture | exchange | check | severity | a | b |"), "%s", out);
    cr_assert(strstr(out, "| openai/c | 0 | OAI-S02 | warn | pass | fail |"), "%s", out);
    cr_assert_null(strstr(out, "| CLI-06 |"), "folded: %s", out);
    cr_assert(strstr(out, "1 info-level (advisory) row(s) folded: CLI-06; `--all` lists them."),
              "%s", out);
    free(out);
    char *html = file_in("c.html");
    cr_assert(
        strstr(html, "<details id=advisory><summary>1 info-level (advisory) row(s)</summary>"),
        "%s", html);
    cr_assert(strstr(html, "<td>CLI-06</td><td class=\"sev info\">info</td>"));
    free(html);
    cr_assert_eq(toolwire(&out, "compare --all a.json b.json"), 0, "%s", out);
    cr_assert(strstr(out, "| openai/c | 0 | CLI-06 | info | pass | fail |"), "%s", out);
    free(out);
    /* the gate: OAI-S02 (warn) regresses, CLI-06 is advisory */
    cr_assert_eq(toolwire(&out, "gate --baseline a.json b.json"), 1, "%s", out);
    cr_assert(strstr(out, "**1 regression(s)**"), "%s", out);
    cr_assert(strstr(out, "| openai/c | 0 | OAI-S02 | warn | no role |"), "%s", out);
    cr_assert(
        strstr(out,
               "1 info-level (advisory) change(s), which never fail the gate; `--all` lists them."),
        "%s", out);
    cr_assert_null(strstr(out, "CLI-06"), "%s", out);
    free(out);
    cr_assert_eq(toolwire(&out, "gate --all --baseline a.json b.json"), 1, "%s", out);
    cr_assert(strstr(out, "| openai/c | 0 | CLI-06 | info | parallel_tool_calls not set |"), "%s",
              out);
    free(out);
}

Test(gate_verdicts, an_info_change_alone_passes_the_gate)
{
    pair("a", "a.json", "b.json", "CLI-06", TW_V_PASS, TW_V_FAIL);
    expect(0, "no regression", "gate --baseline a.json b.json");
}

/* Point 4: two reports of one backend name are told apart, by --label or by file. */
Test(gate_verdicts, labels_name_the_columns)
{
    pair("staging", "monday.json", "tuesday.json", "OAI-R04", TW_V_PASS, TW_V_FAIL);
    expect(0, "| check | severity | staging [monday.json] | staging [tuesday.json] |",
           "compare monday.json tuesday.json");
    expect(0, "| check | severity | before | after |",
           "compare --label before --label after monday.json tuesday.json --html l.html");
    expect(0, "| before (staging) | `http://x` |",
           "compare --label before --label after monday.json tuesday.json");
    char *html = file_in("l.html");
    cr_assert(strstr(html, "<th class=v>before</th><th class=v>after</th>"), "%s", html);
    free(html);
    /* the label tells them apart: the other keeps its name */
    expect(0, "| check | severity | staging | new |",
           "compare --label tuesday.json=new monday.json tuesday.json");
    expect(2, "more labels than reports",
           "compare --label a --label b --label c monday.json tuesday.json");
    expect(2, "nope.json is not one of the reports given",
           "compare --label nope.json=x monday.json tuesday.json");
}
