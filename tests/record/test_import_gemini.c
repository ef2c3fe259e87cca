/* Importing Gemini traffic (`…:generateContent`, `…:streamGenerateContent?alt=sse`,
 * under /v1beta/, /v1/ or a Vertex publisher path): the recorded cassettes
 * and a HAR file import into gemini fixtures that replay against the mock
 * with no mismatch, credentials stay out, and the GEM checks give the
 * verdicts the recorded exchanges call for. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "cli.h"
#include "files.h"
#include "fixture.h"
#include "import.h"
#include "redact.h"
#include "run.h"
#include "import_run.h"
#include "twtest.h"

/* The thoughtSignature of the first part of a content object. */
static const char *part_signature(const cJSON *content)
{
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(content, "parts");
    const cJSON *p0 = cJSON_IsArray(parts) ? parts->child : NULL;
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p0, "thoughtSignature"));
}

/* Two base64 spellings of the same bytes: the standard alphabet and the
 * URL-safe one a client may send back. */
static bool same_base64(const char *a, const char *b)
{
    size_t n = strlen(a);
    if (n != strlen(b))
        return false;
    for (size_t i = 0; i < n; i++) {
        char x = a[i] == '-' ? '+' : a[i] == '_' ? '/' : a[i];
        char y = b[i] == '-' ? '+' : b[i] == '_' ? '/' : b[i];
        if (x != y)
            return false;
    }
    return true;
}

/* pydantic-ai against gemini-2.0-flash with mode ANY: a call of
 * get_user_country, its result sent back, then the final_result call. Both
 * answers end with finishReason STOP beside a functionCall, which is what
 * the API says for a call (GEM-03 passes); the second request answers the
 * call by id (GEM-C01). That model gives no thoughtSignature, so the call
 * goes back without one and GEM-C02 has nothing to judge: no warning for
 * --expect to record. */
Test(import_gemini, real_body_cassette)
{
    const char *src =
        tw_test_shared("real-traffic/gemini__nonstream__function_call_then_result.yaml");
    if (!src)
        cr_skip_test("../shared/real-traffic is absent");
    char dir[] = "/tmp/tw_import_gem_XXXXXX";
    char *written = tw_test_import_one(TW_IMPORT_VCR, src, dir, true, 2);
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.backend, "gemini");
    cr_expect_str_eq(f.exchanges[0].req.path, "/v1beta/models/gemini-2.0-flash:generateContent");
    cr_expect_str_eq(f.exchanges[0].decode_format, "gemini");
    cr_expect_not(f.exchanges[0].resp.stream);
    cr_expect_eq(f.exchanges[0].nexpect_fail, 0);
    cr_expect_eq(f.exchanges[1].nexpect_fail, 0);
    /* the decoder's result recorded on import: the call and its arguments */
    const cJSON *calls = tw_json_get(f.exchanges[1].expect_result, "tool_calls");
    cr_assert_eq(cJSON_GetArraySize(calls), 1);
    cr_expect_str_eq(cJSON_GetStringValue(tw_json_get(calls->child, "name")), "final_result");
    cr_expect_str_eq(
        cJSON_GetStringValue(tw_json_get(tw_json_get(calls->child, "arguments"), "city")),
        "Mexico City");
    cr_expect_str_eq(
        cJSON_GetStringValue(tw_json_get(f.exchanges[1].expect_result, "finish_reason")),
        "tool_calls");
    tw_fixture_free(&f);
    tw_report rep;
    tw_test_replay_clean(written, 2, &rep);
    static const char *const pass[] = {"GEM-01", "GEM-02", "GEM-03", NULL};
    tw_test_expect_verdicts(&rep, 0, pass, TW_V_PASS);
    tw_test_expect_verdicts(&rep, 1, pass, TW_V_PASS);
    static const char *const skip[] = {"GEM-04", "GEM-05", NULL};
    tw_test_expect_verdicts(&rep, 0, skip, TW_V_SKIP);
    tw_test_expect_verdicts(&rep, 1, skip, TW_V_SKIP);
    cr_expect_eq(tw_test_verdict(&rep, 1, "GEM-C01", NULL), TW_V_PASS);
    /* gemini-2.0-flash signs nothing, so the call goes back unsigned and
     * that is no fault of the client */
    const char *ev = "";
    cr_expect_eq(tw_test_verdict(&rep, 1, "GEM-C02", &ev), TW_V_SKIP, "%s", ev);
    cr_expect(strstr(ev, "no thoughtSignature"), "%s", ev);
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}

/* pydantic-ai against gemini-3-pro-preview, streamed: a signed call of
 * get_country, then the text answer after the result. The client sends the
 * signature back on the call (URL-safe base64 of the same bytes), so
 * GEM-C02 passes; each stream ends with finishReason STOP (GEM-04). */
Test(import_gemini, real_stream_cassette)
{
    const char *src =
        tw_test_shared("real-traffic/gemini__stream__function_call_thought_signature.yaml");
    if (!src)
        cr_skip_test("../shared/real-traffic is absent");
    char dir[] = "/tmp/tw_import_gem_XXXXXX";
    char *written = tw_test_import_one(TW_IMPORT_VCR, src, dir, true, 2);
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.backend, "gemini");
    cr_expect_str_eq(f.exchanges[0].req.path,
                     "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
    cr_expect_str_eq(f.exchanges[0].decode_format, "gemini-stream");
    cr_assert(f.exchanges[0].resp.stream);
    cr_assert_eq(f.exchanges[0].resp.nevents, 2);
    cr_expect_eq(f.exchanges[0].nexpect_fail, 0);
    cr_expect_eq(f.exchanges[1].nexpect_fail, 0);
    /* the signature the model gave is the one the client sent back */
    cJSON *ev0 = NULL;
    const char *d0 = f.exchanges[0].resp.events[0].data;
    cr_assert_eq(tw_json_parse(d0, strlen(d0), 64, &ev0, NULL), TW_OK);
    const cJSON *cand = cJSON_GetArrayItem(tw_json_get(ev0, "candidates"), 0);
    const char *given = part_signature(tw_json_get(cand, "content"));
    const char *sent =
        part_signature(cJSON_GetArrayItem(tw_json_get(f.exchanges[1].req.body, "contents"), 1));
    cr_assert_not_null(given);
    cr_assert_not_null(sent);
    cr_expect_gt(strlen(given), 100);
    cr_expect(same_base64(given, sent), "given %.40s…, sent %.40s…", given, sent);
    cJSON_Delete(ev0);
    const cJSON *calls = tw_json_get(f.exchanges[0].expect_result, "tool_calls");
    cr_assert_eq(cJSON_GetArraySize(calls), 1);
    cr_expect_str_eq(cJSON_GetStringValue(tw_json_get(calls->child, "name")), "get_country");
    cr_expect_str_eq(cJSON_GetStringValue(tw_json_get(f.exchanges[1].expect_result, "content")),
                     "The capital of Mexico is Mexico City.");
    tw_fixture_free(&f);
    tw_report rep;
    tw_test_replay_clean(written, 2, &rep);
    static const char *const pass0[] = {"GEM-01", "GEM-02", "GEM-03", "GEM-04", NULL};
    tw_test_expect_verdicts(&rep, 0, pass0, TW_V_PASS);
    /* the answer after the result is text: no call to judge */
    static const char *const pass1[] = {"GEM-01", "GEM-03", "GEM-04", "GEM-C01", "GEM-C02", NULL};
    tw_test_expect_verdicts(&rep, 1, pass1, TW_V_PASS);
    cr_expect_eq(tw_test_verdict(&rep, 1, "GEM-02", NULL), TW_V_SKIP);
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}

/* A HAR of Vertex AI traffic: publisher paths under /v1/, the API key
 * header, bearer token and cookies dropped, the key in the query redacted,
 * ?alt=sse kept, the signed call sent back in the streamed second turn. */
Test(import_gemini, har_vertex_paths)
{
    char dir[] = "/tmp/tw_import_gem_XXXXXX";
    char *written = tw_test_import_one(
        TW_IMPORT_HAR, tw_test_src("tests/data/import/gemini_vertex.har"), dir, true, 2);
    size_t n = 0;
    tw_error why = {.offset = -1};
    char *text = tw_read_file(written, 1 << 20, &n, &why);
    cr_assert_not_null(text, "%s", why.message);
    static const char *const secrets[] = {"placeholder-goog-key",     "placeholder-oauth-token",
                                          "placeholder-cookie-value", "placeholder-set-cookie",
                                          "x-goog-api-key",           NULL};
    for (size_t i = 0; secrets[i]; i++)
        cr_expect_null(strstr(text, secrets[i]), "%s reached the fixture", secrets[i]);
    free(text);
    tw_fixture f;
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.backend, "gemini");
    cr_expect_str_eq(f.exchanges[0].req.path,
                     "/v1/projects/demo-project/locations/europe-west4/"
                     "publishers/google/models/gemini-2.5-flash:generateContent?key=[REDACTED]");
    cr_expect_str_eq(f.exchanges[1].req.path,
                     "/v1/projects/demo-project/locations/europe-west4/"
                     "publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    cr_expect_str_eq(f.exchanges[0].decode_format, "gemini");
    cr_expect_str_eq(f.exchanges[1].decode_format, "gemini-stream");
    cr_expect_null(
        tw_kv_get(f.exchanges[0].req.headers, f.exchanges[0].req.nheaders, "authorization"));
    cr_expect_null(tw_kv_get(f.exchanges[0].req.headers, f.exchanges[0].req.nheaders, "cookie"));
    cr_assert(f.exchanges[1].resp.stream);
    cr_expect_eq(f.exchanges[1].resp.nevents, 2);
    tw_fixture_free(&f);
    tw_report rep;
    tw_test_replay_clean(written, 2, &rep);
    static const char *const pass0[] = {"GEM-01", "GEM-02", "GEM-03", NULL};
    tw_test_expect_verdicts(&rep, 0, pass0, TW_V_PASS);
    static const char *const pass1[] = {"GEM-01", "GEM-03", "GEM-04", "GEM-C01", "GEM-C02", NULL};
    tw_test_expect_verdicts(&rep, 1, pass1, TW_V_PASS);
    cr_expect_eq(tw_test_verdict(&rep, 1, "GEM-02", NULL), TW_V_SKIP);
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}

/* GEM-C02 judges the request against what the model's answers carried: the
 * hand-made fixture's answer signed its call and the client sent the call
 * back unsigned (fail); the same request carrying the signature, in the
 * URL-safe spelling, passes; with an answer that signed nothing the unsigned
 * call is not judged; a reference server (which signs every call turn) fails
 * an unsigned call turn whatever the fixture says. */
Test(import_gemini, signature_judged_against_the_answers)
{
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_load(tw_test_src("fixtures/gemini/client_response_id_mismatch.json"),
                                 NULL, &f, &why),
                 TW_OK, "%s", why.message);
    cr_assert_eq(f.nexchanges, 2);
    cJSON *body = cJSON_Duplicate(f.exchanges[1].req.body, 1);
    tw_check_set cs = {0};
    tw_checks_client_gemini(body, &f, 1, false, NULL, &cs);
    const tw_check_result *c = tw_check_set_get(&cs, TW_CHK_GEM_C02);
    cr_assert_not_null(c);
    cr_expect_eq(c->verdict, TW_V_FAIL, "%s", c->evidence);
    cr_expect(strstr(c->evidence, "not sent back"), "%s", c->evidence);
    /* the first turn of the fixture: nothing given yet */
    tw_checks_client_gemini(body, &f, 0, false, NULL, &cs);
    cr_expect_eq(tw_check_set_get(&cs, TW_CHK_GEM_C02)->verdict, TW_V_SKIP);
    /* a reference server signs every call turn: unsigned fails */
    tw_checks_client_gemini(body, &f, 0, true, NULL, &cs);
    cr_expect_eq(tw_check_set_get(&cs, TW_CHK_GEM_C02)->verdict, TW_V_FAIL);
    /* the signature sent back (c2lnLXBhcmlz in its URL-safe, padded form) */
    cJSON *part = cJSON_GetArrayItem(
        tw_json_get(cJSON_GetArrayItem(tw_json_get(body, "contents"), 1), "parts"), 0);
    cr_assert_not_null(cJSON_AddStringToObject(part, "thoughtSignature", "c2lnLXBhcmlz"));
    tw_checks_client_gemini(body, &f, 1, false, NULL, &cs);
    c = tw_check_set_get(&cs, TW_CHK_GEM_C02);
    cr_expect_eq(c->verdict, TW_V_PASS, "%s", c->evidence);
    tw_checks_client_gemini(body, &f, 0, true, NULL, &cs);
    cr_expect_eq(tw_check_set_get(&cs, TW_CHK_GEM_C02)->verdict, TW_V_PASS);
    /* an answer that signed nothing: the unsigned call is not judged */
    cJSON_DeleteItemFromObject(part, "thoughtSignature");
    cJSON *given = (cJSON *)cJSON_GetArrayItem(
        tw_json_get(
            tw_json_get(cJSON_GetArrayItem(tw_json_get(f.exchanges[0].resp.body, "candidates"), 0),
                        "content"),
            "parts"),
        0);
    cJSON_DeleteItemFromObject(given, "thoughtSignature");
    tw_checks_client_gemini(body, &f, 1, false, NULL, &cs);
    c = tw_check_set_get(&cs, TW_CHK_GEM_C02);
    cr_expect_eq(c->verdict, TW_V_SKIP, "%s", c->evidence);
    tw_check_set_free(&cs);
    cJSON_Delete(body);
    tw_fixture_free(&f);
}
