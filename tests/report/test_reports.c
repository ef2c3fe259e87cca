/* Reports: JSON shape against the schema, the other renderings, atomic writes. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "twtest.h"

static void sample(tw_report *r, const char *backend, tw_verdict r04)
{
    tw_report_init(r, backend, "mock:replay");
    tw_rep_fixture *f = tw_report_add_fixture(r, "openai/a", "fixtures/openai/a.json", "openai");
    tw_rep_exchange *e = tw_report_add_exchange(f);
    e->method = strdup("POST");
    e->path = strdup("/v1/chat/completions");
    e->status = 200;
    tw_report_add_check(e, "OAI-R01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "ok");
    tw_report_add_check(e, "OAI-R04", r04, TW_EXPECT_NOT_FAIL, 42,
                        "arguments <b>\"bad\"</b> | </script>");
    tw_report_add_check(e, "CLI-06", TW_V_FAIL, TW_EXPECT_ANY, -1, "advisory");
    tw_rep_fixture *s = tw_report_add_fixture(r, "hermes/b", "fixtures/hermes/b.json", "hermes");
    s->skipped = true;
    s->note = strdup("does not fit the replay profile");
    tw_report_summarise(r);
}

static char *tmpdir(void)
{
    char *d = strdup("/tmp/tw-reports-XXXXXX");
    cr_assert(mkdtemp(d));
    return d;
}

static void rm_rf(const char *d)
{
    DIR *dir = opendir(d);
    struct dirent *e;
    char p[1024];
    while (dir && (e = readdir(dir)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", d, e->d_name);
            unlink(p);
        }
    if (dir)
        closedir(dir);
    rmdir(d);
}

Test(reports, summary_and_match)
{
    tw_report r;
    sample(&r, "b", TW_V_PASS);
    cr_assert(r.ok);
    cr_assert_eq(r.n_skipped, 1);
    cr_assert_eq(r.n_pass, 2);
    cr_assert_eq(r.n_fail, 1);
    tw_report_free(&r);
    sample(&r, "b", TW_V_FAIL);
    cr_assert_not(r.ok);
    cr_assert_eq(r.n_mismatch, 1);
    cr_assert_not(r.fx[0].match);
    tw_report_free(&r);
}

Test(reports, json_follows_schema_and_parses_back)
{
    tw_report r;
    sample(&r, "back end/1", TW_V_FAIL);
    tw_buf b = {0};
    cr_assert_eq(tw_report_to_json(&r, &b), TW_OK);
    cJSON *j = cJSON_Parse(b.data);
    cr_assert(j);
    /* the keys the schema requires, at every level */
    tw_error why = {.offset = -1};
    cJSON *schema = tw_load_json_file(tw_test_src("reports/report.schema.json"), 1 << 20, 64, &why);
    cr_assert(schema, "%s", why.message);
    const cJSON *req = tw_json_get(schema, "required");
    for (const cJSON *k = req->child; k; k = k->next)
        cr_assert(tw_json_get(j, k->valuestring), "top-level %s", k->valuestring);
    const cJSON *defs = tw_json_get(schema, "$defs");
    struct {
        const char *def;
        const cJSON *obj;
    } levels[] = {
        {"summary", tw_json_get(j, "summary")},
        {"check_def", tw_json_get(j, "checks")->child},
        {"fixture", tw_json_get(j, "fixtures")->child},
        {"exchange", tw_json_get(tw_json_get(j, "fixtures")->child, "exchanges")->child},
        {"verdict",
         tw_json_get(tw_json_get(tw_json_get(j, "fixtures")->child, "exchanges")->child, "checks")
             ->child},
    };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const cJSON *d = tw_json_get(defs, levels[i].def);
        cr_assert(d, "schema defines %s", levels[i].def);
        cr_assert(levels[i].obj, "report has a %s", levels[i].def);
        for (const cJSON *k = tw_json_get(d, "required")->child; k; k = k->next)
            cr_assert(tw_json_get(levels[i].obj, k->valuestring), "%s.%s", levels[i].def,
                      k->valuestring);
        /* no key outside the schema's properties */
        const cJSON *props = tw_json_get(d, "properties");
        for (const cJSON *k = levels[i].obj->child; k; k = k->next)
            cr_assert(tw_json_get(props, k->string), "%s.%s is in the schema", levels[i].def,
                      k->string);
    }
    cr_assert_str_eq(tw_json_get_str(j, "schema"), TW_REPORT_SCHEMA);
    cr_assert_eq(tw_json_get(j, "version")->valueint, TW_REPORT_VERSION);
    cJSON_Delete(schema);
    cJSON_Delete(j);
    /* round trip */
    tw_report back;
    cr_assert_eq(tw_report_parse(b.data, b.len, &back, &why), TW_OK, "%s", why.message);
    cr_assert_str_eq(back.backend, "back end/1");
    cr_assert_eq(back.nfx, 2);
    cr_assert_eq(back.fx[0].ex[0].nchecks, 4, "RES-01 made on load from the result");
    cr_assert_str_eq(back.fx[0].ex[0].checks[2].id, "RES-01", "at its catalog place");
    cr_assert_eq(back.fx[0].ex[0].checks[2].verdict, TW_V_SKIP);
    cr_assert_str_eq(back.fx[0].ex[0].checks[1].id, "OAI-R04");
    cr_assert_eq(back.fx[0].ex[0].checks[1].verdict, TW_V_FAIL);
    cr_assert_eq(back.fx[0].ex[0].checks[1].offset, 42);
    cr_assert_eq(back.n_mismatch, r.n_mismatch);
    cr_assert(back.fx[1].skipped);
    tw_report_free(&back);
    tw_buf_free(&b);
    tw_report_free(&r);
}

Test(reports, renderings)
{
    tw_report r;
    sample(&r, "b", TW_V_FAIL);
    tw_buf md = {0}, x = {0}, h = {0};
    tw_report_to_markdown(&r, &md);
    cr_assert(strstr(md.data, "## Mismatches"));
    cr_assert(strstr(md.data, "OAI-R04"));
    cr_assert(strstr(md.data, "\\|"), "pipes escaped in cells");
    tw_report_to_junit(&r, &x);
    cr_assert(strstr(x.data, "<testsuite name=\"toolwire.b\" tests=\"2\" failures=\"1\""));
    cr_assert(strstr(x.data, "&lt;b&gt;"));
    cr_assert(strstr(x.data, "<skipped"));
    tw_report_to_html(&r, &h);
    cr_assert(strstr(h.data, "<!DOCTYPE html>"));
    cr_assert_null(strstr(h.data, "http://"), "no external assets");
    cr_assert_null(strstr(h.data, "https://"));
    /* the embedded data cannot close its script element */
    const char *data = strstr(h.data, "id=\"data\">");
    cr_assert(data);
    const char *end = strstr(data, "</script>");
    cr_assert(end);
    cr_assert(strstr(data, "\\u003c/script>"), "</script> in evidence is escaped");
    cr_assert(end > strstr(data, "\\u003c/script>"));
    tw_buf_free(&md);
    tw_buf_free(&x);
    tw_buf_free(&h);
    tw_report_free(&r);
}

Test(reports, atomic_writes)
{
    char *d = tmpdir();
    char path[512];
    tw_error why = {.offset = -1};
    snprintf(path, sizeof path, "%s/x.json", d);
    cr_assert_eq(tw_write_atomic(path, "old", 3, &why), TW_OK);
    cr_assert_eq(tw_write_atomic(path, "new!", 4, &why), TW_OK);
    size_t len;
    char *got = tw_read_file(path, 100, &len, &why);
    cr_assert_str_eq(got, "new!");
    free(got);
    /* a target that cannot be renamed over leaves no temporary behind */
    char sub[512];
    snprintf(sub, sizeof sub, "%s/dir.json", d);
    cr_assert_eq(mkdir(sub, 0777), 0);
    snprintf(path, sizeof path, "%s/dir.json/inner", d);
    mkdir(path, 0777);
    cr_assert_neq(tw_write_atomic(sub, "x", 1, &why), TW_OK);
    rmdir(path);
    rmdir(sub);
    /* all four renderings, then nothing but them in the directory */
    tw_report r;
    sample(&r, "be/2", TW_V_PASS);
    cr_assert_eq(tw_report_write_all(&r, d, &why), TW_OK, "%s", why.message);
    const char *want[] = {"be_2.json", "be_2.md", "be_2.junit.xml", "be_2.html", "x.json"};
    DIR *dir = opendir(d);
    struct dirent *e;
    size_t n = 0;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        bool known = false;
        for (size_t i = 0; i < 5; i++)
            known = known || strcmp(e->d_name, want[i]) == 0;
        cr_assert(known, "unexpected file %s (temporary left behind?)", e->d_name);
        n++;
    }
    closedir(dir);
    cr_assert_eq(n, 5);
    tw_report_free(&r);
    rm_rf(d);
    free(d);
}

/* The td of check `id` in the row of fixture number fi of an HTML report. */
static const char *cell(const char *html, size_t fi, const char *id, char *buf, size_t n)
{
    char row[64], key[64];
    snprintf(row, sizeof row, "data-f=%zu>", fi);
    const char *r = strstr(html, row);
    cr_assert(r, "row %zu", fi);
    const char *end = strstr(r, "</tr>");
    snprintf(key, sizeof key, "data-c=%s%s%s",
             strcmp(id, "result") && strcmp(id, "http") ? "\"" : "", id,
             strcmp(id, "result") && strcmp(id, "http") ? "\"" : "");
    const char *k = strstr(r, key);
    if (!k || k > end)
        return NULL;
    const char *td = k;
    while (td > r && strncmp(td, "<td", 3) != 0)
        td--;
    const char *close = strstr(k, "</td>");
    snprintf(buf, n, "%.*s", (int)(close - td), td);
    return buf;
}

static void html_sample(tw_report *r)
{
    tw_report_init(r, "b", "http://127.0.0.1:9/v1");
    /* 0: a pass, an unexpected failure, an expected (advisory) failure, an expected failure that
     *    did not come, a check that only skipped, a result that differs */
    tw_rep_fixture *f = tw_report_add_fixture(r, "openai/a", "fixtures/openai/a.json", "openai");
    tw_rep_exchange *e = tw_report_add_exchange(f);
    e->method = strdup("POST");
    e->path = strdup("/v1/chat/completions");
    e->status = 200;
    e->result = TW_V_FAIL;
    e->result_detail = strdup("content: expected \"hi\", got \"ho\"");
    tw_report_add_check(e, "OAI-R01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "ok");
    tw_report_add_check(e, "OAI-R04", TW_V_FAIL, TW_EXPECT_NOT_FAIL, 42, "arguments not a string");
    tw_report_add_check(e, "CLI-06", TW_V_FAIL, TW_EXPECT_ANY, -1, "advisory");
    tw_report_add_check(e, "OAI-R02", TW_V_PASS, TW_EXPECT_FAIL, -1, "passed");
    cr_assert_not_null(tw_report_set_result_check(e, TW_EXPECT_NOT_FAIL));
    tw_report_add_check(e, "ANT-R01", TW_V_SKIP, TW_EXPECT_NOT_FAIL, -1, "not an Anthropic answer");
    /* 1: no response at all */
    f = tw_report_add_fixture(r, "openai/b", "fixtures/openai/b.json", "openai");
    e = tw_report_add_exchange(f);
    e->method = strdup("POST");
    e->path = strdup("/v1/chat/completions");
    e->error = strdup("Connection refused");
    /* 2: an error status, the expected result */
    f = tw_report_add_fixture(r, "openai/c", "fixtures/openai/c.json", "openai");
    e = tw_report_add_exchange(f);
    e->method = strdup("POST");
    e->path = strdup("/v1/chat/completions");
    e->status = 404;
    e->result = TW_V_PASS;
    tw_report_add_check(e, "OAI-R01", TW_V_PASS, TW_EXPECT_NOT_FAIL, -1, "ok");
    cr_assert_not_null(tw_report_set_result_check(e, TW_EXPECT_NOT_FAIL));
    tw_report_summarise(r);
}

Test(reports, html_legend_cell_kinds_and_rows)
{
    tw_report r;
    html_sample(&r);
    tw_buf h = {0};
    cr_assert_eq(tw_report_to_html(&r, &h), TW_OK);
    char c[600];
    cr_assert(strstr(h.data, "<p id=legend>"));
    cr_assert(strstr(h.data, "failed as the fixture expects"));
    cr_assert(strstr(h.data, "failed, not expected (mismatch)"));
    /* the matrix is in the page itself, one kind of cell per meaning */
    cr_assert(strstr(cell(h.data, 0, "OAI-R01", c, sizeof c), "class=\"c pass\""), "%s", c);
    cr_assert(strstr(cell(h.data, 0, "OAI-R04", c, sizeof c), "class=\"c fail mm\""), "%s", c);
    cr_assert(strstr(cell(h.data, 0, "CLI-06", c, sizeof c), "class=\"c xfail\""), "%s", c);
    cr_assert(strstr(cell(h.data, 0, "OAI-R02", c, sizeof c), "class=\"c xpass mm\""), "%s", c);
    cr_assert(strstr(cell(h.data, 2, "OAI-R04", c, sizeof c), "class=\"c na\""), "%s", c);
    /* the result is a check of its own, RES-01 */
    cr_assert(strstr(cell(h.data, 0, "RES-01", c, sizeof c), "class=\"c fail mm\""), "%s", c);
    cr_assert(strstr(cell(h.data, 2, "RES-01", c, sizeof c), "class=\"c pass\""), "%s", c);
    cr_assert_null(strstr(h.data, "data-c=result"), "no column besides the check");
    cr_assert(strstr(h.data, "got \\\"ho\\\""), "the difference is in the page's data");
    /* HTTP status and transport errors in their rows */
    cr_assert(strstr(cell(h.data, 0, "http", c, sizeof c), "class=\"http hok\""), "%s", c);
    cr_assert(strstr(c, "\">200"), "%s", c);
    cr_assert(strstr(cell(h.data, 1, "http", c, sizeof c), "class=\"http terr\""), "%s", c);
    cr_assert(strstr(c, "title=\"no response: Connection refused\""), "%s", c);
    cr_assert(strstr(h.data, "openai/b <span class=err>Connection refused</span>"));
    cr_assert(strstr(cell(h.data, 2, "http", c, sizeof c), "class=\"http herr\""), "%s", c);
    cr_assert(strstr(c, "\">404"), "%s", c);
    /* rows carry what the filter needs */
    cr_assert(strstr(h.data, "<tr class=\"run mismatch hasfail haspass hasskip\" data-f=0>"));
    tw_buf_free(&h);
    tw_report_free(&r);
}

Test(reports, html_columns_only_for_checks_that_applied)
{
    tw_report r;
    html_sample(&r);
    tw_buf h = {0};
    cr_assert_eq(tw_report_to_html(&r, &h), TW_OK);
    const char *head = strstr(h.data, "<thead>");
    const char *end = strstr(head, "</thead>");
    cr_assert(head && end);
    size_t cols = 0;
    for (const char *p = head; (p = strstr(p, "<th class=v data-c=")) && p < end; p++)
        cols++;
    cr_assert_eq(cols, 5, "OAI-R01, OAI-R02, OAI-R04, RES-01, CLI-06: %zu", cols);
    char *hd = strndup(head, (size_t)(end - head));
    cr_assert(strstr(hd, "data-c=\"OAI-R04\""));
    cr_assert(strstr(hd, "data-c=\"OAI-R02\""), "a mismatch applies");
    cr_assert_null(strstr(hd, "data-c=\"ANT-R01\""), "a check that only skipped gets no column");
    cr_assert_null(strstr(hd, "data-c=\"HER-01\""), "nor one never judged");
    cr_assert_null(strstr(h.data, "data-c=\"ANT-R01\""));
    cr_assert(strstr(h.data, "5 of "));
    free(hd);
    /* a skipped fixture neither adds columns nor shows by default */
    tw_rep_fixture *s = tw_report_add_fixture(&r, "hermes/x", "fixtures/hermes/x.json", "hermes");
    s->skipped = true;
    tw_rep_exchange *e = tw_report_add_exchange(s);
    tw_report_add_check(e, "HER-01", TW_V_FAIL, TW_EXPECT_NOT_FAIL, -1, "not run");
    tw_report_summarise(&r);
    tw_buf h2 = {0};
    cr_assert_eq(tw_report_to_html(&r, &h2), TW_OK);
    cr_assert_null(strstr(h2.data, "<th class=v data-c=\"HER-01\""));
    cr_assert(strstr(h2.data, "<tr class=\"notrun\" data-f=3>"));
    tw_buf_free(&h2);
    tw_buf_free(&h);
    tw_report_free(&r);
}

Test(reports, html_comparison_marks_differences)
{
    tw_report a, b;
    sample(&a, "one", TW_V_PASS);
    sample(&b, "two", TW_V_FAIL);
    b.fx[0].ex[0].result = TW_V_FAIL;
    b.fx[0].ex[0].result_detail = strdup("finish_reason: expected stop, got length");
    a.fx[0].ex[0].result = TW_V_PASS;
    cr_assert_not_null(tw_report_set_result_check(&a.fx[0].ex[0], TW_EXPECT_NOT_FAIL));
    cr_assert_not_null(tw_report_set_result_check(&b.fx[0].ex[0], TW_EXPECT_NOT_FAIL));
    tw_report_summarise(&a);
    tw_report_summarise(&b);
    tw_report both[2] = {a, b};
    tw_buf h = {0};
    cr_assert_eq(tw_compare_html(both, 2, &h), TW_OK);
    cr_assert(strstr(h.data, "<p id=legend>"));
    cr_assert(
        strstr(h.data, "<p id=common>1 fixtures ran on at least two backends (1 on every one)"));
    const char *row = strstr(h.data, "<td>OAI-R04</td>");
    cr_assert(row, "the differing check has a row");
    const char *end = strstr(row, "</tr>");
    char *r4 = strndup(row, (size_t)(end - row));
    cr_assert(strstr(r4, "<td class=\"pass\""), "%s", r4);
    cr_assert(
        strstr(r4, "<td class=\"fail mm diff\" title=\"MISMATCH: failed, not expected: arguments"),
        "%s", r4);
    free(r4);
    cr_assert_null(strstr(h.data, "<td>OAI-R01</td>"), "checks that agree are not listed");
    row = strstr(h.data, "<td>RES-01</td><td class=\"sev error\">error</td>");
    cr_assert(row, "a differing result has a row, as its check");
    cr_assert(strstr(row, "finish_reason: expected stop, got length"));
    cr_assert_null(strstr(h.data, "id=nodiff"));
    tw_buf_free(&h);
    tw_report_free(&a);
    tw_report_free(&b);
}

/* A check listed as a difference fails on one of the reports: a pass beside
 * a skip (or beside a fixture the other did not judge) is no difference. */
Test(reports, comparison_lists_only_checks_that_fail_somewhere)
{
    tw_report r[2];
    for (int i = 0; i < 2; i++) {
        tw_report_init(&r[i], i ? "two" : "one", "mock:replay");
        tw_rep_fixture *f = tw_report_add_fixture(&r[i], "openai/a", "a.json", "openai");
        tw_rep_exchange *e = tw_report_add_exchange(f);
        e->status = 200;
        tw_report_add_check(e, "OAI-R01", i ? TW_V_SKIP : TW_V_PASS, TW_EXPECT_ANY, -1, "");
        tw_report_add_check(e, "OAI-R04", i ? TW_V_FAIL : TW_V_PASS, TW_EXPECT_ANY, -1, "");
        tw_report_summarise(&r[i]);
    }
    tw_buf md = {0}, html = {0};
    cr_assert_eq(tw_compare_markdown(r, 2, &md), TW_OK);
    cr_assert_eq(tw_compare_html(r, 2, &html), TW_OK);
    cr_assert(strstr(md.data, "| openai/a | 0 | OAI-R04 | error | pass | fail |"), "%s", md.data);
    cr_assert_null(strstr(md.data, "| OAI-R01 |"), "a pass beside a skip is listed: %s", md.data);
    cr_assert(strstr(html.data, "<td>OAI-R04</td>"));
    cr_assert_null(strstr(html.data, "<td>OAI-R01</td>"), "a pass beside a skip has a row");
    tw_buf_free(&md);
    tw_buf_free(&html);
    tw_report_free(&r[0]);
    tw_report_free(&r[1]);
}

Test(reports, html_escapes_hostile_text)
{
    const char *evil = "a\"><img src=x onerror=alert(1)>'";
    tw_report r;
    tw_report_init(&r, evil, evil);
    tw_rep_fixture *f = tw_report_add_fixture(&r, evil, evil, "openai");
    tw_rep_exchange *e = tw_report_add_exchange(f);
    e->method = strdup("POST");
    e->path = strdup(evil);
    e->error = strdup(evil);
    e->result = TW_V_FAIL;
    e->result_detail = strdup("</script><script>alert(2)</script><!--");
    tw_report_add_check(e, "OAI-R04", TW_V_FAIL, TW_EXPECT_NOT_FAIL, -1, evil);
    tw_report_summarise(&r);
    tw_report both[2] = {r, r};
    tw_buf h = {0}, c = {0};
    cr_assert_eq(tw_report_to_html(&r, &h), TW_OK);
    cr_assert_eq(tw_compare_html(both, 2, &c), TW_OK);
    const tw_buf *pages[] = {&h, &c};
    for (size_t i = 0; i < 2; i++) {
        const char *p = pages[i]->data;
        cr_assert_null(strstr(p, "<img"), "page %zu: markup from a report is escaped", i);
        cr_assert_null(strstr(p, "<script>alert"), "page %zu", i);
        cr_assert_null(strstr(p, "<!--"), "page %zu: no comment opens", i);
        cr_assert(strstr(p, "a&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&apos;"), "page %zu", i);
        cr_assert_null(strstr(p, "innerHTML"), "page %zu: the script writes text only", i);
        size_t scripts = 0;
        for (const char *s = p; (s = strstr(s, "</script>")); s++)
            scripts++;
        cr_assert_eq(scripts, i == 0 ? 2 : 1, "page %zu: only its own script elements close", i);
    }
    tw_buf_free(&h);
    tw_buf_free(&c);
    tw_report_free(&r);
}
