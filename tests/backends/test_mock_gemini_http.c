/* The mock on Gemini paths, as Google's SDKs meet it: a fixture recorded
 * under /v1beta/ answers the same method under /v1/ (and the reverse), a
 * request no exchange matches is a 404 in Gemini's error envelope, and an
 * injected 503 is {"error": {"code": 503, "status": "UNAVAILABLE"}}. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "mock.h"
#include "mock_match.h"
#include "post.h"
#include "twtest.h"

#define BODY "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Weather in Paris?\"}]}]}"
#define ANSWER                                                                                     \
    "{\"status\":200,\"body\":{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{"      \
    "\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}}}]},"                \
    "\"finishReason\":\"STOP\",\"index\":0}]}}"
#define FX(faults)                                                                                 \
    "{\"fixture_version\":1,\"name\":\"gem\",\"description\":\"d\",\"backend\":\"gemini\","        \
    "\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":[{" faults "\"request\":{"            \
    "\"method\":\"POST\",\"path\":\"/v1beta/models/gemini-2.5-flash:generateContent\","            \
    "\"body\":" BODY "},\"response\":" ANSWER "}]}"

static tw_fixture fx;
static tw_mock *mock;

static void start(const char *json)
{
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_parse(json, strlen(json), "inline", NULL, &fx, &why), TW_OK, "%s",
                 why.message);
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.profile = "replay";
    cr_assert_eq(tw_mock_start(&fx, 1, &o, &mock, &why), TW_OK, "%s", why.message);
}

static void stop(void)
{
    tw_mock_stop(mock);
    mock = NULL;
    tw_fixture_free(&fx);
}

static int post(const char *path, const char *body, tw_http_response *r)
{
    return tw_test_post(tw_mock_url(mock), path, NULL, 0, body, r);
}

/* error.code and error.status of a Gemini error body. */
static void expect_envelope(const tw_http_response *r, int code, const char *status)
{
    cJSON *j = cJSON_ParseWithLength(r->body.data, r->body.len);
    cr_assert_not_null(j, "%s", r->body.data);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "code")), code, "%s",
                 r->body.data);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "status")), status);
    const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
    cr_expect(msg && msg[0], "%s", r->body.data);
    /* not OpenAI's envelope */
    cr_expect_null(cJSON_GetObjectItemCaseSensitive(e, "type"));
    cJSON_Delete(j);
}

Test(mock_gemini, path_versions)
{
    const char *fx_path = "/v1beta/models/gemini-2.5-flash:generateContent";
    cr_expect(tw_mock_path_matches(fx_path, "/v1beta/models/gemini-2.5-flash:generateContent"));
    cr_expect(tw_mock_path_matches(fx_path, "/v1/models/gemini-2.5-flash:generateContent"));
    cr_expect(tw_mock_path_matches(fx_path, "/v1alpha/models/gemini-2.5-flash:generateContent"));
    cr_expect(tw_mock_path_matches("/v1/models/m:streamGenerateContent?alt=sse",
                                   "/v1beta/models/m:streamGenerateContent"));
    /* another model, another method, another prefix: no match */
    cr_expect_not(tw_mock_path_matches(fx_path, "/v1/models/gemini-2.0-flash:generateContent"));
    cr_expect_not(
        tw_mock_path_matches(fx_path, "/v1/models/gemini-2.5-flash:streamGenerateContent"));
    cr_expect_not(tw_mock_path_matches(fx_path, "/v2/models/gemini-2.5-flash:generateContent"));
    cr_expect_not(tw_mock_path_matches(fx_path, "/models/gemini-2.5-flash:generateContent"));
    /* only Gemini methods: other paths stay exact */
    cr_expect_not(
        tw_mock_path_matches("/v1beta/models/x/chat/completions", "/v1/models/x/chat/completions"));
}

TestSuite(mock_gemini_server, .fini = stop);

Test(mock_gemini_server, v1_request_gets_the_v1beta_exchange)
{
    start(FX(""));
    tw_http_response r = {0};
    cr_assert_eq(post("/v1/models/gemini-2.5-flash:generateContent", BODY, &r), 200, "%s",
                 r.body.data);
    cr_expect(strstr(r.body.data, "\"get_weather\""), "%s", r.body.data);
    tw_http_response_free(&r);
    tw_http_response r2 = {0};
    cr_assert_eq(post("/v1beta/models/gemini-2.5-flash:generateContent", BODY, &r2), 200);
    tw_http_response_free(&r2);
}

Test(mock_gemini_server, no_match_is_a_gemini_404)
{
    start(FX(""));
    tw_http_response r = {0};
    cr_assert_eq(post("/v1/models/gemini-2.5-flash:generateContent",
                      "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"other\"}]}]}", &r),
                 404);
    expect_envelope(&r, 404, "NOT_FOUND");
    tw_http_response_free(&r);
}

Test(mock_gemini_server, injected_503_is_unavailable)
{
    start(FX("\"faults\":{\"status\":503},"));
    tw_http_response r = {0};
    cr_assert_eq(post("/v1beta/models/gemini-2.5-flash:generateContent", BODY, &r), 503);
    expect_envelope(&r, 503, "UNAVAILABLE");
    tw_http_response_free(&r);
    /* the fault alternates: the next request is answered */
    tw_http_response r2 = {0};
    cr_assert_eq(post("/v1beta/models/gemini-2.5-flash:generateContent", BODY, &r2), 200);
    tw_http_response_free(&r2);
}

Test(mock_gemini_server, injected_429_is_resource_exhausted)
{
    start(FX("\"faults\":{\"status\":429},"));
    tw_http_response r = {0};
    cr_assert_eq(post("/v1beta/models/gemini-2.5-flash:generateContent", BODY, &r), 429);
    expect_envelope(&r, 429, "RESOURCE_EXHAUSTED");
    tw_http_response_free(&r);
}
