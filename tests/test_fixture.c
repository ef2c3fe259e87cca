/* The fixture loader: every fixture under fixtures/ loads, bad fixtures are
 * reported with file:line:col and the exact message, writing round-trips. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "cli.h"
#include "fixture.h"
#include "fixture_write.h"
#include "out.h"
#include "decode_fixtures.h"
#include "toolwire/registry.h"
#include "twtest.h"

static char *slurp(const char *path, size_t *len)
{
    tw_error why = {.offset = -1};
    char *b = tw_read_file(path, (size_t)64 << 20, len, &why);
    cr_assert_not_null(b, "%s", why.message);
    return b;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static bool is_schema(const char *p) { return strcmp(base(p), "fixture.schema.json") == 0; }

Test(fixture, every_fixture_loads)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("fixtures"), ".json", &files);
    cr_assert_geq(n, 61, "expected at least 60 fixtures, found %ld", n);
    static const char *const folders[] = {"openai", "anthropic", "hermes", "vllm-native", "proxy",
                                          "session"};
    long per[6] = {0};
    long loaded = 0;
    char **names = calloc((size_t)n, sizeof *names);
    for (long i = 0; i < n; i++) {
        if (is_schema(files[i]))
            continue;
        tw_fixture f;
        tw_error why = {.offset = -1};
        tw_status st = tw_fixture_load(files[i], NULL, &f, &why);
        cr_expect_eq(st, TW_OK, "%s", why.message);
        if (st != TW_OK)
            continue;
        loaded++;
        /* name is FOLDER/STEM (FOLDER/SUB/STEM below a sub-folder), matching the file's place */
        const char *slash = strrchr(files[i], '/');
        const char *prev = slash;
        while (prev > files[i] && prev[-1] != '/')
            prev--;
        const char *rel = strstr(files[i], "/fixtures/");
        rel = rel ? rel + strlen("/fixtures/") : prev;
        char want[512];
        snprintf(want, sizeof want, "%.*s", (int)(strlen(rel) - 5), rel);
        cr_expect_str_eq(f.name, want, "%s: name", files[i]);
        for (int k = 0; k < 6; k++)
            if ((size_t)(slash - prev) == strlen(folders[k]) &&
                strncmp(prev, folders[k], (size_t)(slash - prev)) == 0)
                per[k]++;
        for (long j = 0; j < i; j++)
            if (names[j])
                cr_expect_str_neq(names[j], f.name, "duplicate fixture name %s", f.name);
        names[i] = strdup(f.name);
        /* non-conforming fixtures say which checks fail and why */
        bool nonconf = false;
        for (size_t t = 0; t < f.ntags; t++)
            nonconf = nonconf || strcmp(f.tags[t], "non-conforming") == 0;
        size_t nfail = 0;
        for (size_t x = 0; x < f.nexchanges; x++)
            nfail += f.exchanges[x].nexpect_fail;
        if (nonconf)
            cr_expect_gt(nfail, 0, "%s is non-conforming but lists no failing check", files[i]);
        tw_fixture_free(&f);
    }
    for (long i = 0; i < n; i++)
        free(names[i]);
    free(names);
    for (int k = 0; k < 6; k++)
        cr_expect_geq(per[k], 5, "fixtures/%s: %ld fixtures", folders[k], per[k]);
    cr_expect_geq(loaded, 60);
    tw_free_list(files, n);
}

/*
 * An expected message with "{decoders}" in it: the token replaced by every
 * registered decoder's name, in registry order, joined with ", " (so adding
 * a format changes no expectation file). Returns a new string.
 */
static char *expand_decoders(const char *want)
{
    const char *tok = strstr(want, "{decoders}");
    if (!tok)
        return strdup(want);
    tw_buf b = {0};
    cr_assert_eq(tw_buf_append(&b, want, (size_t)(tok - want)), TW_OK);
    size_t n = 0, ndec = 0;
    const tw_module *m = tw_modules(&n);
    for (size_t i = 0; i < n; i++) {
        if (m[i].kind != TW_MODULE_DECODER)
            continue;
        cr_assert_eq(tw_buf_puts(&b, ndec++ ? ", " : ""), TW_OK);
        cr_assert_eq(tw_buf_puts(&b, m[i].name), TW_OK);
    }
    cr_assert_gt(ndec, 0);
    cr_assert_eq(tw_buf_puts(&b, tok + strlen("{decoders}")), TW_OK);
    return b.data;
}

Test(fixture, bad_fixtures_report_file_line_col)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("tests/data/fixtures-bad"), ".json", &files);
    cr_assert_geq(n, 20);
    for (long i = 0; i < n; i++) {
        size_t len = 0, elen = 0;
        char *buf = slurp(files[i], &len);
        char *exact = tw_test_exact(buf, len);
        char txt[1024];
        snprintf(txt, sizeof txt, "%.*s.txt", (int)(strlen(files[i]) - 5), files[i]);
        char *want = slurp(txt, &elen);
        while (elen && (want[elen - 1] == '\n' || want[elen - 1] == '\r'))
            want[--elen] = '\0';
        char *expanded = expand_decoders(want);
        free(want);
        want = expanded;
        tw_fixture f;
        tw_error why = {.offset = -1};
        tw_status st = tw_fixture_parse(exact, len, base(files[i]), NULL, &f, &why);
        cr_expect(st == TW_ERR_PARSE || st == TW_ERR_INVALID, "%s loaded", files[i]);
        cr_expect_str_eq(why.message, want, "%s", files[i]);
        cr_expect_null(f.root);
        tw_fixture_free(&f);
        free(exact);
        free(buf);
        free(want);
    }
    tw_free_list(files, n);
}

/* A fixture written back out loads again with the same content. */
Test(fixture, write_round_trips)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("fixtures"), ".json", &files);
    for (long i = 0; i < n; i++) {
        if (is_schema(files[i]))
            continue;
        tw_fixture a, b;
        tw_error why = {.offset = -1};
        cr_assert_eq(tw_fixture_load(files[i], NULL, &a, &why), TW_OK, "%s", why.message);
        tw_buf out = {0};
        cr_assert_eq(tw_fixture_write(&out, &a), TW_OK);
        cr_assert_eq(tw_fixture_parse(out.data, out.len, files[i], NULL, &b, &why),
                     TW_OK, "%s", why.message);
        cJSON *ja = tw_fixture_to_json(&a), *jb = tw_fixture_to_json(&b);
        cr_expect(tw_json_equal(ja, jb), "%s changes when written", files[i]);
        cJSON_Delete(ja);
        cJSON_Delete(jb);
        tw_buf_free(&out);
        tw_fixture_free(&a);
        tw_fixture_free(&b);
    }
    tw_free_list(files, n);
}

static const char small[] =
    "{\"fixture_version\": 1, \"name\": \"t/x\", \"description\": \"d\", \"backend\": \"openai\",\n"
    " \"provenance\": {\"source\": \"hand-made\"},\n"
    " \"exchanges\": [{\"request\": {\"method\": \"POST\", \"path\": \"/v1/chat/completions\",\n"
    "   \"headers\": {\"Content-Type\": \"application/json\", \"X-Session-Id\": \"s1\"}},\n"
    "   \"response\": {\"status\": 200, \"events\": [{\"data\": {\"a\": [1, 2]}},\n"
    "     {\"event\": \"done\", \"data\": \"[DONE]\", \"id\": \"7\", \"delay_ms\": 5}]},\n"
    "   \"faults\": {\"drop_after_events\": 1, \"retry_after\": 2}, \"x-note\": \"extension\"}]}\n";

Test(fixture, typed_views)
{
    tw_fixture f;
    tw_error why = {.offset = -1};
    char *b = tw_test_exact(small, sizeof small - 1);
    cr_assert_eq(tw_fixture_parse(b, sizeof small - 1, "small.json", NULL, &f, &why),
                 TW_OK, "%s", why.message);
    cr_assert_eq(f.nexchanges, 1);
    const tw_fx_exchange *x = &f.exchanges[0];
    cr_expect_str_eq(tw_kv_get(x->req.headers, x->req.nheaders, "x-session-id"), "s1");
    cr_expect_str_eq(tw_kv_get(x->req.headers, x->req.nheaders, "CONTENT-TYPE"), "application/json");
    cr_expect_null(tw_kv_get(x->req.headers, x->req.nheaders, "authorization"));
    cr_expect(x->has_response && x->resp.stream);
    cr_assert_eq(x->resp.nevents, 2);
    cr_expect_str_eq(x->resp.events[0].data, "{\"a\":[1,2]}"); /* JSON data serialised */
    cr_expect_null(x->resp.events[0].event);
    cr_expect_str_eq(x->resp.events[1].event, "done");
    cr_expect_str_eq(x->resp.events[1].id, "7");
    cr_expect_eq(x->resp.events[1].delay_ms, 5);
    cr_expect_not_null(x->faults);
    cr_expect_null(x->req.body);
    cr_expect_null(x->model_text);
    tw_fixture_free(&f);
    free(b);
}

Test(fixture, limits_are_enforced)
{
    tw_fixture f;
    tw_error why = {.offset = -1};
    tw_limits lim = {0};
    lim.max_input_bytes = 64;
    cr_expect_eq(tw_fixture_parse(small, sizeof small - 1, "small.json", &lim, &f, &why),
                 TW_ERR_LIMIT);
    lim.max_input_bytes = 0;
    lim.max_depth = 3;
    cr_expect_eq(tw_fixture_parse(small, sizeof small - 1, "small.json", &lim, &f, &why),
                 TW_ERR_PARSE);
    cr_expect(strncmp(why.message, "small.json:", 11) == 0, "%s", why.message);
    lim.max_depth = 0;
    lim.max_messages = 0;
    cr_expect_eq(tw_fixture_load("/nonexistent/x.json", NULL, &f, &why), TW_ERR_IO);
}

/* A failing_checks id is resolved through the check catalog when the fixture
 * loads: every catalog id is taken, an unknown one is a load error naming the
 * file, the JSON path and the id (it would otherwise never match a verdict). */
Test(fixture, failing_check_ids_come_from_the_catalog)
{
    size_t len = 0;
    char *buf = slurp(tw_test_src("tests/data/fixtures-bad/bad_check_id.json"), &len);
    char *at = strstr(buf, "\"r04\"");
    cr_assert(at);
    size_t head = (size_t)(at - buf), tail = len - head - 5;
    size_t n;
    const tw_check_def *d = tw_checks_catalog(&n);
    for (size_t i = 0; i <= n; i++) {
        const char *id = i < n ? d[i].id : "OAI-R40";
        tw_buf t = {0};
        cr_assert_eq(tw_buf_printf(&t, "%.*s\"%s\"%.*s", (int)head, buf, id, (int)tail, at + 5), TW_OK);
        char *exact = tw_test_exact(t.data, t.len);
        tw_fixture f;
        tw_error why = {.offset = -1};
        tw_status st = tw_fixture_parse(exact, t.len, "typo.json", NULL, &f, &why);
        if (i < n) {
            cr_expect_eq(st, TW_OK, "%s: %s", id, why.message);
            cr_expect_str_eq(f.exchanges[0].expect_fail[0].check, id);
        } else {
            cr_expect_eq(st, TW_ERR_INVALID);
            cr_expect(strncmp(why.message, "typo.json:", 10) == 0, "%s", why.message);
            cr_expect(strstr(why.message, "exchanges[0].expect.failing_checks[0].id"), "%s", why.message);
            cr_expect(strstr(why.message, "unknown check id \"OAI-R40\""), "%s", why.message);
        }
        tw_fixture_free(&f);
        free(exact);
        tw_buf_free(&t);
    }
    free(buf);
}

Test(fixture, locate_paths)
{
    const char *s = "{\n  \"a\": [1, {\"b\": \"x\"}],\n  \"c\\u0064\": true\n}";
    size_t line, col;
    tw_json_locate(s, strlen(s), "a[1].b", false, &line, &col);
    cr_expect(line == 2 && col == 18, "%zu:%zu", line, col);
    tw_json_locate(s, strlen(s), "a[1].b", true, &line, &col);
    cr_expect(line == 2 && col == 13, "%zu:%zu", line, col);
    tw_json_locate(s, strlen(s), "cd", false, &line, &col);
    cr_expect(line == 3 && col == 14, "%zu:%zu", line, col);
    tw_json_locate(s, strlen(s), "a[7]", false, &line, &col); /* falls back to a */
    cr_expect(line == 2 && col == 8, "%zu:%zu", line, col);
}

Test(fixture, atomic_write_leaves_no_temp_files)
{
    char dir[] = "/tmp/tw_fx_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/out.json", dir);
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_out_write_file(path, "{}\n", 3, &why), TW_OK, "%s", why.message);
    cr_assert_eq(tw_out_write_file(path, "[]\n", 3, &why), TW_OK, "%s", why.message);
    size_t len = 0;
    char *b = slurp(path, &len);
    cr_expect(len == 3 && memcmp(b, "[]\n", 3) == 0);
    free(b);
    DIR *d = opendir(dir);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            count++;
    closedir(d);
    cr_expect_eq(count, 1);
    snprintf(path, sizeof path, "%s/missing/out.json", dir);
    cr_expect_eq(tw_out_write_file(path, "{}", 2, &why), TW_ERR_IO);
    snprintf(path, sizeof path, "%s/out.json", dir);
    unlink(path);
    rmdir(dir);
}
