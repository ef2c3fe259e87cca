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
    tw_report_add_check(e, "OAI-R04", r04, TW_EXPECT_NOT_FAIL, 42, "arguments <b>\"bad\"</b> | </script>");
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
    char why[300];
    cJSON *schema = tw_load_json_file(tw_test_src("reports/report.schema.json"), 1 << 20, 64, why, sizeof why);
    cr_assert(schema, "%s", why);
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
        {"verdict", tw_json_get(tw_json_get(tw_json_get(j, "fixtures")->child, "exchanges")->child, "checks")->child},
    };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const cJSON *d = tw_json_get(defs, levels[i].def);
        cr_assert(d, "schema defines %s", levels[i].def);
        cr_assert(levels[i].obj, "report has a %s", levels[i].def);
        for (const cJSON *k = tw_json_get(d, "required")->child; k; k = k->next)
            cr_assert(tw_json_get(levels[i].obj, k->valuestring), "%s.%s", levels[i].def, k->valuestring);
        /* no key outside the schema's properties */
        const cJSON *props = tw_json_get(d, "properties");
        for (const cJSON *k = levels[i].obj->child; k; k = k->next)
            cr_assert(tw_json_get(props, k->string), "%s.%s is in the schema", levels[i].def, k->string);
    }
    cr_assert_str_eq(tw_json_get_str(j, "schema"), TW_REPORT_SCHEMA);
    cr_assert_eq(tw_json_get(j, "version")->valueint, TW_REPORT_VERSION);
    cJSON_Delete(schema);
    cJSON_Delete(j);
    /* round trip */
    tw_report back;
    cr_assert_eq(tw_report_parse(b.data, b.len, &back, why, sizeof why), TW_OK, "%s", why);
    cr_assert_str_eq(back.backend, "back end/1");
    cr_assert_eq(back.nfx, 2);
    cr_assert_eq(back.fx[0].ex[0].nchecks, 3);
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
    cr_assert(strstr(data, "<\\/script>"), "</script> in evidence is escaped");
    cr_assert(end > strstr(data, "<\\/script>"));
    tw_buf_free(&md);
    tw_buf_free(&x);
    tw_buf_free(&h);
    tw_report_free(&r);
}

Test(reports, atomic_writes)
{
    char *d = tmpdir();
    char path[512], why[300];
    snprintf(path, sizeof path, "%s/x.json", d);
    cr_assert_eq(tw_write_atomic(path, "old", 3, why, sizeof why), TW_OK);
    cr_assert_eq(tw_write_atomic(path, "new!", 4, why, sizeof why), TW_OK);
    size_t len;
    char *got = tw_read_file(path, 100, &len, why, sizeof why);
    cr_assert_str_eq(got, "new!");
    free(got);
    /* a target that cannot be renamed over leaves no temporary behind */
    char sub[512];
    snprintf(sub, sizeof sub, "%s/dir.json", d);
    cr_assert_eq(mkdir(sub, 0777), 0);
    snprintf(path, sizeof path, "%s/dir.json/inner", d);
    mkdir(path, 0777);
    cr_assert_neq(tw_write_atomic(sub, "x", 1, why, sizeof why), TW_OK);
    rmdir(path);
    rmdir(sub);
    /* all four renderings, then nothing but them in the directory */
    tw_report r;
    sample(&r, "be/2", TW_V_PASS);
    cr_assert_eq(tw_report_write_all(&r, d, why, sizeof why), TW_OK, "%s", why);
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
