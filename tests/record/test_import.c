/* Importers and redaction: the real cassettes import into fixtures that
 * load, planted secrets never reach the output, HAR files import, bad
 * inputs are reported with file:line:col. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fixture.h"
#include "import.h"
#include "redact.h"
#include "twtest.h"

static const char *const cassettes[] = {
    "real-traffic/openai_chat__stream__parallel_tool_calls.yaml",
    "real-traffic/anthropic_messages__stream__thinking_signature_then_tool_use.yaml",
    "real-traffic/deepseek_chat__nonstream__reasoning_content_parallel_tool_calls.yaml",
    "real-traffic/groq_chat__stream__reasoning_and_midstream_error_tool_use_failed.yaml"};

static char *slurp(const char *path, size_t *len)
{
    tw_error why = {.offset = -1};
    char *b = tw_read_file(path, (size_t)64 << 20, len, &why);
    cr_assert_not_null(b, "%s", why.message);
    return b;
}

static void must_not_contain(const char *buf, size_t len, const char *needle, const char *file)
{
    cr_expect_null(tw_memmem(buf, len, needle, strlen(needle)), "%s holds \"%s\"", file, needle);
}

static char *tmpdir(void)
{
    char t[] = "/tmp/tw_import_XXXXXX";
    cr_assert_not_null(mkdtemp(t));
    return strdup(t);
}

static void rm_tree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

Test(import, real_cassettes_import_and_load)
{
    if (!tw_test_shared(cassettes[0]))
        cr_skip_test("../shared/real-traffic is absent");
    char *dir = tmpdir();
    tw_import_opts o = {TW_IMPORT_VCR, dir, "rt_", NULL, false};
    static const char *const backends[] = {"openai", "anthropic", "openai", "openai"};
    static const char *const formats[] = {"openai-stream", "anthropic-stream", "openai-response",
                                          "openai-stream"};
    for (size_t i = 0; i < 4; i++) {
        const char *src = tw_test_shared(cassettes[i]);
        cr_assert_not_null(src);
        tw_redactor red = {0};
        char *written = NULL;
        tw_error why = {.offset = -1};
        size_t nx = 0;
        tw_status st = tw_import_file(src, &o, &red, &written, &nx, &why);
        tw_redactor_free(&red);
        cr_assert_eq(st, TW_OK, "%s", why.message);
        cr_expect_geq(nx, 2);
        tw_fixture f;
        cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
        cr_expect_str_eq(f.backend, backends[i]);
        cr_expect_eq(f.nexchanges, nx);
        cr_expect_str_eq(f.exchanges[0].decode_format, formats[i]);
        cr_expect_str_eq(tw_json_get_str(f.provenance, "source"), "imported");
        for (size_t x = 0; x < f.nexchanges; x++) {
            const tw_fx_exchange *e = &f.exchanges[x];
            cr_expect_null(tw_kv_get(e->req.headers, e->req.nheaders, "cookie"));
            cr_expect_null(tw_kv_get(e->req.headers, e->req.nheaders, "authorization"));
            cr_expect_null(tw_kv_get(e->resp.headers, e->resp.nheaders, "openai-organization"));
            cr_expect_null(
                tw_kv_get(e->resp.headers, e->resp.nheaders, "anthropic-organization-id"));
            cr_expect_null(tw_kv_get(e->resp.headers, e->resp.nheaders, "content-encoding"));
        }
        if (i == 0) { /* a stream: events end with [DONE], a usage chunk before it */
            const tw_fx_response *r = &f.exchanges[0].resp;
            cr_assert(r->stream && r->nevents >= 3);
            cr_expect_str_eq(r->events[r->nevents - 1].data, "[DONE]");
            cr_expect_not_null(strstr(r->events[r->nevents - 2].data, "\"choices\":[]"));
        }
        if (i == 1) /* Anthropic events keep their event: names */
            cr_expect_str_eq(f.exchanges[0].resp.events[0].event, "message_start");
        if (i == 3) { /* the Groq stream ends with the error, no [DONE] */
            const tw_fx_response *r = &f.exchanges[0].resp;
            cr_expect_not_null(strstr(r->events[r->nevents - 1].data, "tool_use_failed"));
        }
        size_t len = 0;
        char *bytes = slurp(written, &len);
        must_not_contain(bytes, len, "pydantic-28gund", written);
        must_not_contain(bytes, len, "proj_dKobscVY9YJxeEaDJen54e3d", written);
        free(bytes);
        tw_fixture_free(&f);
        free(written);
    }
    rm_tree(dir);
    free(dir);
}

/* Replace the first occurrence of `from` by `to` in a malloc'd string. */
static char *replace1(char *s, const char *from, const char *to)
{
    char *p = strstr(s, from);
    cr_assert_not_null(p, "marker '%s' not found", from);
    size_t a = (size_t)(p - s), fl = strlen(from), tl = strlen(to), n = strlen(s);
    char *o = malloc(n - fl + tl + 1);
    memcpy(o, s, a);
    memcpy(o + a, to, tl);
    memcpy(o + a + tl, p + fl, n - a - fl + 1);
    free(s);
    return o;
}

/* Secret material planted in a copy of a real cassette; built at run time
 * so that no file of the project holds anything that looks like a key. */
static void planted(char *key, char *bearer, char *org)
{
    strcpy(key, "sk-");
    for (int i = 0; i < 40; i++)
        key[3 + i] = (char)('a' + (i * 7) % 26);
    key[43] = '\0';
    strcpy(bearer, "zq");
    for (int i = 0; i < 30; i++)
        bearer[2 + i] = (char)('A' + (i * 11) % 26);
    bearer[32] = '\0';
    strcpy(org, "org-planted-");
    for (int i = 0; i < 12; i++)
        org[12 + i] = (char)('0' + (i * 3) % 10);
    org[24] = '\0';
}

Test(import, planted_secrets_never_written)
{
    const char *src = tw_test_shared(cassettes[0]);
    if (!src)
        cr_skip_test("../shared/real-traffic is absent");
    char key[64], bearer[64], org[64];
    planted(key, bearer, org);
    size_t len = 0;
    char *y = slurp(src, &len);
    char hdr[512], body[256], uri[256], custom[128];
    /* a request header, a body token, a query key, a custom header */
    snprintf(hdr, sizeof hdr,
             "    headers:\n      authorization:\n      - Bearer %s\n      x-custom-secret-ish:\n"
             "      - keep-me-out\n      openai-organization:\n      - %s\n",
             bearer, org);
    y = replace1(y, "    headers:\n", hdr);
    snprintf(body, sizeof body, "'Tell me (my key is %s): the capital", key);
    y = replace1(y, "'Tell me: the capital", body);
    snprintf(uri, sizeof uri, "uri: https://api.openai.com/v1/chat/completions?api_key=%s", bearer);
    y = replace1(y, "uri: https://api.openai.com/v1/chat/completions", uri);
    snprintf(custom, sizeof custom, "content: 'Authorization: Bearer %s'", bearer);
    char *dir = tmpdir();
    char in[512];
    snprintf(in, sizeof in, "%s/planted.yaml", dir);
    FILE *f = fopen(in, "wb");
    cr_assert_not_null(f);
    fwrite(y, 1, strlen(y), f);
    fclose(f);
    free(y);

    tw_redactor red = {0};
    cr_assert_eq(tw_redactor_add_name(&red, "x-custom-secret-ish"), TW_OK);
    char out[512];
    snprintf(out, sizeof out, "%s/out", dir);
    mkdir(out, 0755);
    tw_import_opts o = {TW_IMPORT_VCR, out, NULL, NULL, false};
    char *written = NULL;
    tw_error why = {.offset = -1};
    size_t nx = 0;
    tw_status st = tw_import_file(in, &o, &red, &written, &nx, &why);
    cr_assert_eq(st, TW_OK, "%s", why.message);
    cr_expect_gt(red.scrubbed, 0);
    tw_redactor_free(&red);
    size_t olen = 0;
    char *bytes = slurp(written, &olen);
    must_not_contain(bytes, olen, key, written);
    must_not_contain(bytes, olen, bearer, written);
    must_not_contain(bytes, olen, org, written);
    must_not_contain(bytes, olen, "keep-me-out", written);
    must_not_contain(bytes, olen, "x-custom-secret-ish", written);
    cr_expect_not_null(tw_memmem(bytes, olen, "my key is [REDACTED]", 20));
    cr_expect_not_null(tw_memmem(bytes, olen, "?api_key=[REDACTED]", 19));
    free(bytes);
    /* the only file in the output directory is the fixture */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", out);
    cr_expect_eq(system(cmd), 0);
    free(written);
    rm_tree(dir);
    free(dir);
}

Test(import, har_file_imports)
{
    char *dir = tmpdir();
    tw_import_opts o = {TW_IMPORT_HAR, dir, "har_", NULL, false};
    tw_redactor red = {0};
    char *written = NULL;
    tw_error why = {.offset = -1};
    size_t nx = 0;
    tw_status st =
        tw_import_file(tw_test_src("tests/data/import/chat.har"), &o, &red, &written, &nx, &why);
    tw_redactor_free(&red);
    cr_assert_eq(st, TW_OK, "%s", why.message);
    cr_expect_eq(nx, 3);
    cr_expect(strstr(written, "/har_chat.json") != NULL, "%s", written);
    tw_fixture f;
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.name, "imported/har_chat");
    cr_expect_str_eq(f.backend, "openai");
    cr_expect_str_eq(tw_json_get_str(f.provenance, "recorded_at"), "2025-01-01T00:00:00.000Z");
    const tw_fx_exchange *x = &f.exchanges[0];
    cr_expect(x->resp.stream);
    cr_assert_eq(x->resp.nevents, 4); /* base64 body decoded and split */
    cr_expect_str_eq(x->resp.events[3].data, "[DONE]");
    cr_expect_str_eq(x->decode_format, "openai-stream");
    cr_expect(cJSON_IsTrue(tw_json_get(x->req.body, "stream")));
    cr_expect_str_eq(f.exchanges[1].decode_format, "openai-response");
    cr_expect_str_eq(f.exchanges[1].req.path, "/v1/chat/completions?api_key=" TW_REDACTED);
    cr_expect_str_eq(f.exchanges[2].decode_format, "anthropic-response");
    cr_expect_not_null(f.exchanges[1].resp.body);
    size_t len = 0;
    char *bytes = slurp(written, &len);
    must_not_contain(bytes, len, "placeholder", written);
    must_not_contain(bytes, len, "Authorization", written);
    must_not_contain(bytes, len, "Set-Cookie", written);
    free(bytes);
    tw_fixture_free(&f);
    free(written);
    rm_tree(dir);
    free(dir);
}

static void bad_input(tw_import_kind kind, const char *rel, const char *want)
{
    tw_import_opts o = {kind, "/nonexistent-dir-never-written", NULL, NULL, false};
    tw_redactor red = {0};
    tw_error why = {.offset = -1};
    tw_buf b = {0};
    tw_status st = tw_import_to_buf(tw_test_src(rel), &o, &red, &b, NULL, &why);
    tw_redactor_free(&red);
    cr_expect_neq(st, TW_OK, "%s imported", rel);
    cr_expect_eq(b.len, 0);
    tw_buf_free(&b);
    const char *p = strstr(why.message, rel);
    cr_assert_not_null(p, "'%s' does not name the file", why.message);
    cr_expect(strncmp(p + strlen(rel), want, strlen(want)) == 0, "got '%s', want '%s%s'",
              why.message, rel, want);
}

Test(import, bad_inputs_give_line_and_column)
{
    bad_input(TW_IMPORT_HAR, "tests/data/import/bad_syntax.har", ":4:19: ");
    bad_input(TW_IMPORT_HAR, "tests/data/import/bad_no_entries.har",
              ":2:10: log: expected an 'entries' array");
    bad_input(TW_IMPORT_HAR, "tests/data/import/bad_status.har",
              ":102:21: log.entries[1].response.status: expected an HTTP status from 100 to 599");
    bad_input(TW_IMPORT_VCR, "tests/data/import/bad_cassette.yaml", ":7:");
    bad_input(TW_IMPORT_VCR, "tests/data/import/does_not_exist.yaml", "");
}

Test(import, sse_split)
{
    static const char s[] = ": comment\r\nevent: a\r\ndata: x\r\ndata:y\r\nid: 3\r\n\r\n"
                            "data: {\"k\": 1}\n\n\n"
                            "retry: 10\rdata: z\r\rdata: tail";
    tw_fx_arena a = {0};
    tw_fx_sse *ev = NULL;
    size_t n = 0;
    char *b = tw_test_exact(s, sizeof s - 1);
    cr_assert_eq(tw_sse_split(b, sizeof s - 1, &a, &ev, &n), TW_OK);
    cr_assert_eq(n, 4);
    cr_expect_str_eq(ev[0].event, "a");
    cr_expect_str_eq(ev[0].data, "x\ny");
    cr_expect_str_eq(ev[0].id, "3");
    cr_expect_str_eq(ev[1].data, "{\"k\": 1}");
    cr_expect_null(ev[1].event);
    cr_expect_str_eq(ev[2].data, "z");
    cr_expect_str_eq(ev[3].data, "tail");
    free(b);
    tw_fx_arena_free(&a);
}

Test(import, redaction_rules)
{
    tw_redactor r = {0};
    static const char *const dropped[] = {"Authorization",  "api-key",
                                          "X-Api-Key",      "Cookie",
                                          "set-cookie",     "OpenAI-Organization",
                                          "openai-project", "anthropic-organization-id",
                                          "x-goog-api-key", "Proxy-Authorization"};
    for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++)
        cr_expect(tw_redact_header_dropped(&r, dropped[i]), "%s kept", dropped[i]);
    static const char *const kept[] = {"content-type", "x-request-id", "openai-processing-ms",
                                       "anthropic-version", "x-ratelimit-remaining-tokens"};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        cr_expect(!tw_redact_header_dropped(&r, kept[i]), "%s dropped", kept[i]);
    cr_expect(!tw_redact_header_dropped(&r, "x-trace"));
    tw_redactor_add_name(&r, "X-Trace");
    cr_expect(tw_redact_header_dropped(&r, "x-trace"));

    char key[64], bearer[64], org[64];
    planted(key, bearer, org);
    char in[512];
    snprintf(in, sizeof in, "a %s b; Bearer %s; /x?key=abc&b=1; ask-me sk-short task-%s", key,
             bearer, key + 3);
    char *out = tw_redact_str(&r, in);
    cr_assert_not_null(out);
    char want[512];
    snprintf(want, sizeof want,
             "a " TW_REDACTED " b; Bearer " TW_REDACTED "; /x?key=" TW_REDACTED
             "&b=1; ask-me sk-short task-%s",
             key + 3);
    cr_expect_str_eq(out, want);
    free(out);
    /* a remembered value is scrubbed anywhere, and its token alone too */
    char hv[128];
    snprintf(hv, sizeof hv, "Bearer %s", bearer);
    tw_redactor_add_value(&r, hv);
    tw_redactor_add_value(&r, org);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "note", org);
    cJSON_AddStringToObject(j, "api_key", "short");
    cJSON_AddStringToObject(j, bearer, "as a key");
    cr_assert_eq(tw_redact_json(&r, j, 64), TW_OK);
    char *s = tw_json_print(j, NULL);
    cr_expect_null(strstr(s, org));
    cr_expect_null(strstr(s, bearer));
    cr_expect_null(strstr(s, "short"));
    free(s);
    cJSON_Delete(j);
    tw_redactor_free(&r);
}
