/* The cassettes in ../shared/real-traffic import (toolwire import --expect)
 * into fixtures that replay against mock:replay and pass: `toolwire run`
 * exits 0, its report lists every imported exchange with the verdicts the
 * fixtures expect, the Groq mid-stream error shows as OAI-S08 failing, and
 * secrets planted in a cassette reach no byte of the fixtures or reports. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "checks.h"
#include "cli.h"
#include "fixture.h"
#include "twtest.h"

static const char *const cassettes[] = {
    "real-traffic/openai_chat__stream__parallel_tool_calls.yaml",
    "real-traffic/anthropic_messages__stream__thinking_signature_then_tool_use.yaml",
    "real-traffic/deepseek_chat__nonstream__reasoning_content_parallel_tool_calls.yaml",
    "real-traffic/groq_chat__stream__reasoning_and_midstream_error_tool_use_failed.yaml"};
static const char *const stems[] = {
    "openai_chat__stream__parallel_tool_calls",
    "anthropic_messages__stream__thinking_signature_then_tool_use",
    "deepseek_chat__nonstream__reasoning_content_parallel_tool_calls",
    "groq_chat__stream__reasoning_and_midstream_error_tool_use_failed"};
#define NCAS (sizeof cassettes / sizeof cassettes[0])

static const char *bin(void)
{
    const char *b = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(b, "TOOLWIRE_BIN is set by ctest");
    return b;
}

static char *tmpdir(void)
{
    char t[] = "/tmp/tw_rtreplay_XXXXXX";
    cr_assert_not_null(mkdtemp(t));
    return strdup(t);
}

static void rm_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

/* Run a shell command; its exit status (-1 when it did not exit). */
static int sh(const char *cmd)
{
    int st = system(cmd);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path, size_t *len)
{
    tw_error why = {.offset = -1};
    char *b = tw_read_file(path, (size_t)64 << 20, len, &why);
    cr_assert_not_null(b, "%s", why.message);
    return b;
}

/* The imported cassettes' paths, quoted, space-separated. */
static void cassette_args(char *dst, size_t n)
{
    dst[0] = '\0';
    for (size_t i = 0; i < NCAS; i++) {
        const char *p = tw_test_shared(cassettes[i]);
        cr_assert_not_null(p, "%s is missing", cassettes[i]);
        size_t l = strlen(dst);
        snprintf(dst + l, n - l, " '%s'", p);
    }
}

static const cJSON *report_fixture(const cJSON *rep, const char *name)
{
    const cJSON *fx = tw_json_get(rep, "fixtures");
    for (const cJSON *f = cJSON_IsArray(fx) ? fx->child : NULL; f; f = f->next)
        if (tw_json_get_str(f, "name") && strcmp(tw_json_get_str(f, "name"), name) == 0)
            return f;
    return NULL;
}

static bool lists(const tw_fx_exchange *x, const char *id)
{
    for (size_t i = 0; i < x->nexpect_fail; i++)
        if (strcmp(x->expect_fail[i].check, id) == 0)
            return true;
    return false;
}

static const cJSON *report_check(const cJSON *ex, const char *id)
{
    const cJSON *cs = tw_json_get(ex, "checks");
    for (const cJSON *c = cJSON_IsArray(cs) ? cs->child : NULL; c; c = c->next)
        if (tw_json_get_str(c, "id") && strcmp(tw_json_get_str(c, "id"), id) == 0)
            return c;
    return NULL;
}

Test(real_traffic_replay, imported_cassettes_replay_and_pass, .timeout = 120)
{
    if (!tw_test_shared("real-traffic"))
        cr_skip_test("../shared/real-traffic is absent");
    char *dir = tmpdir();
    char args[4096], cmd[8192];
    cassette_args(args, sizeof args);
    snprintf(cmd, sizeof cmd,
             "'%s' import --from vcr --expect --out '%s/fixtures'%s > '%s/import.log' 2>&1", bin(),
             dir, args, dir);
    cr_assert_eq(sh(cmd), 0, "import failed: %s", cmd);
    snprintf(cmd, sizeof cmd,
             "'%s' run --quiet --backend rec=mock:replay --out '%s/reports' '%s/fixtures' > "
             "'%s/run.log' 2>&1",
             bin(), dir, dir, dir);
    int rc = sh(cmd);
    char p[1024];
    snprintf(p, sizeof p, "%s/run.log", dir);
    size_t ll = 0;
    char *log = slurp(p, &ll);
    cr_assert_eq(rc, 0, "toolwire run exited %d:\n%s", rc, log);
    free(log);

    snprintf(p, sizeof p, "%s/reports/rec.json", dir);
    size_t rl = 0;
    char *rtext = slurp(p, &rl);
    cJSON *rep = cJSON_ParseWithLength(rtext, rl);
    free(rtext);
    cr_assert_not_null(rep, "the report is JSON");
    cr_expect_eq(cJSON_GetArraySize(tw_json_get(rep, "fixtures")), (int)NCAS);

    size_t total = 0;
    bool groq_s08 = false;
    for (size_t i = 0; i < NCAS; i++) {
        char fpath[1024], name[300];
        tw_error why = {.offset = -1};
        snprintf(fpath, sizeof fpath, "%s/fixtures/%s.json", dir, stems[i]);
        snprintf(name, sizeof name, "imported/%s", stems[i]);
        tw_fixture f;
        cr_assert_eq(tw_fixture_load(fpath, NULL, &f, &why), TW_OK, "%s", why.message);
        const cJSON *rf = report_fixture(rep, name);
        cr_assert_not_null(rf, "%s is not in the report", name);
        cr_expect_not(cJSON_IsTrue(tw_json_get(rf, "skipped")), "%s was skipped", name);
        cr_expect(cJSON_IsTrue(tw_json_get(rf, "match")), "%s does not match", name);
        const cJSON *rex = tw_json_get(rf, "exchanges");
        cr_assert_eq(cJSON_GetArraySize(rex), (int)f.nexchanges, "%s: every exchange is reported",
                     name);
        for (size_t k = 0; k < f.nexchanges; k++) {
            const tw_fx_exchange *x = &f.exchanges[k];
            const cJSON *e = cJSON_GetArrayItem(rex, (int)k);
            cr_expect_eq((int)tw_json_get(e, "index")->valuedouble, (int)k);
            cr_expect(cJSON_IsTrue(tw_json_get(e, "match")), "%s#%zu does not match", name, k);
            /* the decoder's result was recorded and compared */
            cr_expect_not_null(x->expect_result, "%s#%zu has no expect.result", name, k);
            cr_expect_str_eq(tw_json_get_str(tw_json_get(e, "result"), "verdict"), "pass",
                             "%s#%zu result", name, k);
            /* every listed check fails, with the import's reason; no other error/warn check fails
             */
            for (size_t c = 0; c < x->nexpect_fail; c++) {
                const cJSON *rc2 = report_check(e, x->expect_fail[c].check);
                cr_assert_not_null(rc2, "%s#%zu: %s not reported", name, k,
                                   x->expect_fail[c].check);
                cr_expect_str_eq(tw_json_get_str(rc2, "verdict"), "fail");
                cr_expect(strncmp(x->expect_fail[c].reason, "observed when imported: ", 24) == 0,
                          "%s", x->expect_fail[c].reason);
            }
            const cJSON *cs = tw_json_get(e, "checks");
            for (const cJSON *c = cJSON_IsArray(cs) ? cs->child : NULL; c; c = c->next) {
                const char *id = tw_json_get_str(c, "id");
                const tw_check_def *d = tw_check_find(id);
                cr_assert_not_null(d, "unknown check %s", id);
                cr_expect(cJSON_IsTrue(tw_json_get(c, "match")), "%s#%zu %s does not match", name,
                          k, id);
                if (strcmp(tw_json_get_str(c, "verdict"), "fail") == 0 && d->sev != TW_SEV_INFO)
                    cr_expect(lists(x, id), "%s#%zu: %s fails but is not expected to", name, k, id);
            }
            total++;
        }
        if (i == 1) {
            /* a call without parameters streams partial_json "": not an ANT-S02 failure */
            const cJSON *s02 = report_check(cJSON_GetArrayItem(rex, 0), "ANT-S02");
            cr_assert_not_null(s02);
            cr_expect_str_eq(tw_json_get_str(s02, "verdict"), "pass");
        }
        if (i == 3) {
            const cJSON *s08 = report_check(cJSON_GetArrayItem(rex, 0), "OAI-S08");
            cr_assert_not_null(s08);
            groq_s08 =
                strcmp(tw_json_get_str(s08, "verdict"), "fail") == 0 &&
                strcmp(tw_json_get_str(s08, "expected"), "fail") == 0 &&
                strstr(tw_json_get_str(s08, "evidence"), "Tool call validation failed") != NULL;
            cr_expect(lists(&f.exchanges[0], "OAI-S08"));
        }
        tw_fixture_free(&f);
    }
    cr_expect(groq_s08, "the Groq mid-stream error is reported as OAI-S08 failing");
    cr_expect_eq(total, 11, "every imported exchange is judged");
    cr_expect_eq((int)tw_json_get(tw_json_get(rep, "summary"), "mismatches")->valuedouble, 0);
    cJSON_Delete(rep);
    rm_tree(dir);
    free(dir);
}

/* ---- planted secrets ---- */

/* Replace the first occurrence of `from` by `to` in a malloc'd string. */
static char *replace1(char *s, const char *from, const char *to)
{
    char *p = strstr(s, from);
    cr_assert_not_null(p, "marker '%s' not found", from);
    size_t a = (size_t)(p - s), fl = strlen(from), tl = strlen(to), n = strlen(s);
    char *o = malloc(n - fl + tl + 1);
    cr_assert_not_null(o);
    memcpy(o, s, a);
    memcpy(o + a, to, tl);
    memcpy(o + a + tl, p + fl, n - a - fl + 1);
    free(s);
    return o;
}

/* Built at run time so that no file of the project holds anything that
 * looks like a key. */
static void planted(char *key, char *token)
{
    strcpy(key, "sk-");
    for (int i = 0; i < 40; i++)
        key[3 + i] = (char)('a' + (i * 5 + 3) % 26);
    key[43] = '\0';
    strcpy(token, "qv");
    for (int i = 0; i < 30; i++)
        token[2 + i] = (char)('A' + (i * 7 + 1) % 26);
    token[32] = '\0';
}

/* No file directly in dir holds any of the needles. */
static void dir_clean(const char *dir, const char *const *needles, size_t nn, size_t *nfiles)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    struct dirent *e;
    for (size_t guard = 0; guard < 10000 && (e = readdir(d)); guard++) {
        if (e->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        size_t len = 0;
        char *b = slurp(p, &len);
        for (size_t i = 0; i < nn; i++)
            cr_expect_null(tw_memmem(b, len, needles[i], strlen(needles[i])),
                           "%s holds secret #%zu", p, i);
        free(b);
        (*nfiles)++;
    }
    closedir(d);
}

Test(real_traffic_replay, planted_secrets_reach_no_fixture_or_report, .timeout = 120)
{
    const char *src = tw_test_shared(cassettes[0]);
    if (!tw_test_shared("real-traffic") || !src)
        cr_skip_test("../shared/real-traffic is absent");
    char key[64], token[64];
    planted(key, token);
    size_t len = 0;
    char *y = slurp(src, &len);
    /* an API key header and a bearer token on the first request, both
     * also written into the request body */
    char hdr[512], body[512];
    snprintf(
        hdr, sizeof hdr,
        "    headers:\n      x-api-key:\n      - %s\n      authorization:\n      - Bearer %s\n",
        key, token);
    y = replace1(y, "    headers:\n", hdr);
    snprintf(body, sizeof body, "'Tell me (key %s, token %s): the capital", key, token);
    y = replace1(y, "'Tell me: the capital", body);
    char *dir = tmpdir();
    char in[1024];
    snprintf(in, sizeof in, "%s/planted.yaml", dir);
    FILE *f = fopen(in, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(y, 1, strlen(y), f), strlen(y));
    fclose(f);
    free(y);

    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "'%s' import --from vcr --expect --out '%s/fixtures' '%s' > '%s/import.log' 2>&1",
             bin(), dir, in, dir);
    cr_assert_eq(sh(cmd), 0, "import failed");
    snprintf(
        cmd, sizeof cmd,
        "'%s' run --backend rec=mock:replay --out '%s/reports' '%s/fixtures' > '%s/run.log' 2>&1",
        bin(), dir, dir, dir);
    cr_expect_eq(sh(cmd), 0, "the planted copy replays and passes");
    /* the planted input itself goes before the scan */
    cr_assert_eq(remove(in), 0);
    const char *const needles[] = {key, token, key + 3, token + 2};
    size_t nfiles = 0;
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/fixtures", dir);
    dir_clean(sub, needles, 4, &nfiles);
    cr_expect_eq(nfiles, 1, "one fixture written");
    snprintf(sub, sizeof sub, "%s/reports", dir);
    dir_clean(sub, needles, 4, &nfiles);
    cr_expect_geq(nfiles, 6, "the reports were written");
    dir_clean(dir, needles, 4, &nfiles); /* the import and run logs */
    /* the body kept its text, with the secrets replaced */
    snprintf(sub, sizeof sub, "%s/fixtures/planted.json", dir);
    size_t fl = 0;
    char *fx = slurp(sub, &fl);
    cr_expect_not_null(tw_memmem(fx, fl, "(key [REDACTED], token [REDACTED])", 34));
    cr_expect_not_null(tw_memmem(fx, fl, "\"failing_checks\"", 16), "--expect recorded the checks");
    free(fx);
    rm_tree(dir);
    free(dir);
}
