/* Replay that real clients can use: what SDKs add is not compared, a request
 * that matches nothing gets a 404 naming the nearest exchange and the
 * differences, each fixture is served by the profile that fits it, and the
 * request body can be logged. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "mock.h"
#include "mock_match.h"
#include "post.h"
#include "redact.h"
#include "twtest.h"

/* ---- decorations ---- */

#define TOOLS_PLAIN                                                                                \
    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"     \
    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},\"opts\":{\"type\":"      \
    "\"object\",\"properties\":{\"u\":{\"type\":\"string\"}}}},\"required\":[\"city\"]}}}]"
#define PLAIN                                                                                      \
    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]," TOOLS_PLAIN "}"

static cJSON *parse(const char *s)
{
    cJSON *v = NULL;
    cr_assert_eq(tw_json_parse(s, strlen(s), 64, &v, NULL), TW_OK, "%s", s);
    return v;
}

/* Do the two bodies match once both are normalised as the mock does? */
static bool matches(const char *want, const char *got)
{
    cJSON *w = parse(want), *g = parse(got);
    bool nomem = false;
    cJSON *nw = tw_mock_normalise(w, &nomem);
    cr_assert_not(nomem);
    cJSON *ng = tw_mock_normalise(g, &nomem);
    cr_assert_not(nomem);
    bool ok = tw_mock_body_matches(nw, ng, TW_MATCH_NORMALISED, NULL);
    cJSON_Delete(w);
    cJSON_Delete(g);
    cJSON_Delete(nw);
    cJSON_Delete(ng);
    return ok;
}

Test(mock_replay, sdk_decorations_are_not_compared)
{
    cr_assert(matches(PLAIN, PLAIN));
    /* what the AI SDK and LangChain send for the same tools */
    const char *decorated =
        "{\"model\":\"gpt\",\"stream\":false,\"frequency_penalty\":0,\"presence_penalty\":0,"
        "\"max_completion_tokens\":100,\"tool_choice\":\"auto\",\"parallel_tool_calls\":true,"
        "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
        "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"strict\":false,"
        "\"parameters\":{\"$schema\":\"http://json-schema.org/draft-07/"
        "schema#\",\"type\":\"object\","
        "\"additionalProperties\":false,\"properties\":{\"city\":{\"type\":\"string\"},\"opts\":"
        "{\"type\":\"object\",\"additionalProperties\":false,\"$schema\":\"x\",\"properties\":{"
        "\"u\":"
        "{\"type\":\"string\"}}}},\"required\":[\"city\"]}}}]}";
    cr_assert(matches(PLAIN, decorated));
    cr_assert(matches(decorated, PLAIN));
    /* Anthropic: input_schema, {"type": "auto"} */
    const char *ant =
        "{\"model\":\"c\",\"max_tokens\":9,\"messages\":[],\"tools\":[{\"name\":\"t\","
        "\"input_schema\":{\"type\":\"object\",\"properties\":{}}}]}";
    const char *ant_dec =
        "{\"model\":\"c\",\"max_tokens\":9,\"messages\":[],\"tool_choice\":{\"type\":"
        "\"auto\"},\"tools\":[{\"name\":\"t\",\"input_schema\":{\"$schema\":\"s\","
        "\"type\":\"object\",\"additionalProperties\":false,\"properties\":{}}}]}";
    cr_assert(matches(ant, ant_dec));
}

/* The normalised copy: decorations gone at every depth, data and property
 * names kept, the body itself unchanged and its unchanged parts shared. */
Test(mock_replay, normalised_copy_strips_and_shares)
{
    const char *src =
        "{\"model\":\"m\",\"tool_choice\":\"auto\",\"parallel_tool_calls\":true,\"tools\":["
        "{\"type\":\"function\",\"function\":{\"name\":\"a\",\"strict\":false,\"parameters\":"
        "{\"$schema\":\"s\",\"type\":\"object\",\"additionalProperties\":false,\"properties\":"
        "{\"$schema\":{\"type\":\"string\",\"$schema\":\"x\"},\"e\":{\"enum\":[{\"$schema\":1}]},"
        "\"l\":{\"type\":\"array\",\"items\":[{\"$schema\":2,\"type\":\"integer\"}]}}}}},"
        "{\"type\":\"function\",\"function\":{\"name\":\"b\",\"parameters\":{\"type\":\"object\","
        "\"properties\":{\"c\":{\"type\":\"string\"}}}}},"
        "{\"type\":\"function\",\"name\":\"r\",\"strict\":false,\"parameters\":{\"$schema\":3}},"
        "{\"name\":\"t\",\"input_schema\":{\"additionalProperties\":false,\"properties\":{}}},"
        "\"x\",{\"type\":\"function\",\"function\":{\"name\":\"s\",\"strict\":true}}],"
        "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    cJSON *body = parse(src);
    char *before = cJSON_PrintUnformatted(body);
    bool nomem = true;
    cJSON *n = tw_mock_normalise(body, &nomem);
    cr_assert_not(nomem);
    char *got = cJSON_PrintUnformatted(n);
    cr_assert_str_eq(
        got,
        "{\"model\":\"m\",\"tools\":["
        "{\"type\":\"function\",\"function\":{\"name\":\"a\",\"parameters\":{\"type\":\"object\","
        "\"properties\":{\"$schema\":{\"type\":\"string\"},\"e\":{\"enum\":[{\"$schema\":1}]},"
        "\"l\":{\"type\":\"array\",\"items\":[{\"type\":\"integer\"}]}}}}},"
        "{\"type\":\"function\",\"function\":{\"name\":\"b\",\"parameters\":{\"type\":\"object\","
        "\"properties\":{\"c\":{\"type\":\"string\"}}}}},"
        "{\"type\":\"function\",\"name\":\"r\",\"parameters\":{}},"
        "{\"name\":\"t\",\"input_schema\":{\"properties\":{}}},"
        "\"x\",{\"type\":\"function\",\"function\":{\"name\":\"s\",\"strict\":true}}],"
        "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    char *after = cJSON_PrintUnformatted(body);
    cr_assert_str_eq(after, before, "the body is not changed");
    /* an unchanged tool and the messages are the body's nodes, not copies */
    const cJSON *bt = cJSON_GetArrayItem(tw_json_get(body, "tools"), 1);
    const cJSON *nt = cJSON_GetArrayItem(tw_json_get(n, "tools"), 1);
    cr_assert_eq(nt->child, bt->child);
    cr_assert_eq(tw_json_get(n, "messages")->child, tw_json_get(body, "messages")->child);
    cJSON_Delete(n);
    cJSON_Delete(body);
    free(before);
    free(got);
    free(after);
}

Test(mock_replay, changes_of_meaning_are_still_compared)
{
    const char *base = PLAIN;
    /* a tool_choice other than the default, strict mode, a closed schema without properties */
    cr_assert_not(matches(base,
                          "{\"model\":\"m\",\"tool_choice\":\"required\",\"messages\":[{\"role\":"
                          "\"user\",\"content\":\"hi\"}]," TOOLS_PLAIN "}"));
    cr_assert_not(matches(base,
                          "{\"model\":\"m\",\"parallel_tool_calls\":false,\"messages\":[{\"role\":"
                          "\"user\",\"content\":\"hi\"}]," TOOLS_PLAIN "}"));
    cr_assert_not(matches(
        "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]}",
        "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"strict\":true}}]}"));
    cr_assert_not(
        matches("{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
                "{\"type\":\"object\"}}}]}",
                "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
                "{\"type\":\"object\",\"additionalProperties\":false}}}]}"));
    /* "auto" is the default only when tools are given */
    cr_assert_not(matches("{\"messages\":[]}", "{\"messages\":[],\"tool_choice\":\"auto\"}"));
    /* a property named "$schema" and "$schema" inside enum values are data, not decorations */
    cr_assert_not(
        matches("{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
                "{\"type\":\"object\",\"properties\":{}}}}]}",
                "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
                "{\"type\":\"object\",\"properties\":{\"$schema\":{\"type\":\"string\"}}}}}]}"));
    cr_assert_not(
        matches("{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
                "{\"enum\":[{}]}}}]}",
                "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
                "{\"enum\":[{\"$schema\":\"x\"}]}}}]}"));
    /* outside a tool's schema "$schema" is compared */
    cr_assert_not(matches("{\"messages\":[]}", "{\"messages\":[],\"$schema\":\"x\"}"));
}

/* ---- the server ---- */

#define OK_RESP                                                                                    \
    "{\"status\":200,\"body\":{\"id\":\"c1\",\"object\":\"chat.completion\",\"created\":1,"        \
    "\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"   \
    "\"hello\"},\"finish_reason\":\"stop\"}]}}"
#define FX(name, ex)                                                                               \
    "{\"fixture_version\":1,\"name\":\"" name "\",\"description\":\"d\",\"backend\":\"openai\","   \
    "\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":[" ex "]}"

static tw_fixture fx[3];
static size_t nfx;
static tw_mock *mock;
static FILE *log_file;

static void start(const char *const *json, size_t n, const char *profile, bool log_bodies,
                  size_t body_max)
{
    tw_error why = {.offset = -1};
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(tw_fixture_parse(json[i], strlen(json[i]), "inline", NULL, &fx[i], &why),
                     TW_OK, "fixture %zu: %s", i, why.message);
    nfx = n;
    log_file = tmpfile();
    cr_assert(log_file);
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.profile = profile;
    o.log = log_file;
    o.log_bodies = log_bodies;
    o.log_body_max = body_max;
    cr_assert_eq(tw_mock_start(fx, n, &o, &mock, &why), TW_OK, "%s", why.message);
}

static void stop(void)
{
    tw_mock_stop(mock);
    mock = NULL;
    for (size_t i = 0; i < nfx; i++)
        tw_fixture_free(&fx[i]);
    nfx = 0;
    if (log_file)
        fclose(log_file);
    log_file = NULL;
}

static int post(const char *path, const char *body, tw_http_response *r)
{
    return tw_test_post(tw_mock_url(mock), path, NULL, 0, body, r);
}

static char *log_text(void)
{
    static char buf[65536];
    fflush(log_file);
    rewind(log_file);
    size_t n = fread(buf, 1, sizeof buf - 1, log_file);
    buf[n] = '\0';
    return buf;
}

TestSuite(mock_replay_server, .fini = stop);

Test(mock_replay_server, decorated_request_is_answered)
{
    const char *f[] = {FX("plain",
                          "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\","
                          "\"body\":" PLAIN "},\"response\":" OK_RESP "}")};
    start(f, 1, NULL, false, 0);
    tw_http_response r = {0};
    const char *body =
        "{\"model\":\"x\",\"tool_choice\":\"auto\",\"messages\":[{\"role\":\"user\","
        "\"content\":\"hi\"}],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":"
        "\"get_weather\",\"strict\":false,\"parameters\":{\"$schema\":\"s\",\"type\":"
        "\"object\",\"additionalProperties\":false,\"properties\":{\"city\":{\"type\":"
        "\"string\"},\"opts\":{\"type\":\"object\",\"properties\":{\"u\":{\"type\":"
        "\"string\"}}}},\"required\":[\"city\"]}}}]}";
    cr_assert_eq(post("/v1/chat/completions", body, &r), 200, "%s", r.body.data);
    cr_assert(strstr(log_text(), "-> plain#0 200"), "%s", log_text());
    /* the answer names the exchange that gave it */
    const char *by = NULL;
    for (size_t i = 0; i < r.nheaders; i++)
        if (strcmp(r.headers[i].name, "x-toolwire-answered-by") == 0)
            by = r.headers[i].value;
    cr_assert_not_null(by);
    cr_assert_str_eq(by, "plain#0");
    tw_http_response_free(&r);
}

#define MSG_EX(text)                                                                               \
    "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":{\"model\":"     \
    "\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" text "\"}],\"temperature\":0}},"       \
    "\"response\":" OK_RESP "}"

Test(mock_replay_server, no_match_names_the_nearest_exchange_and_the_differences)
{
    const char *f[] = {FX("far", MSG_EX("something else entirely") "," MSG_EX("x")),
                       FX("near", MSG_EX("what is the weather in Paris?")),
                       FX("other_path",
                          "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/messages\","
                          "\"body\":{\"model\":\"m\",\"messages\":[]}},\"response\":"
                          "{\"status\":200,\"body\":{}}}")};
    start(f, 3, NULL, false, 0);
    tw_http_response r = {0};
    /* one value differs from "near", and a key is extra; "far" differs in the same value too */
    const char *body =
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"what is the weather "
        "in Lyon?\"}],\"temperature\":1,\"metadata\":{\"k\":1}}";
    cr_assert_eq(post("/v1/chat/completions", body, &r), 404);
    cJSON *e = parse(r.body.data);
    const cJSON *err = tw_json_get(e, "error");
    cr_assert_str_eq(tw_json_get_str(err, "code"), "no_match");
    cr_assert_str_eq(tw_json_get_str(err, "type"), "not_found_error");
    /* "far#1" has the same number of differences: the first in load order wins */
    cr_assert_str_eq(tw_json_get_str(err, "nearest"), "far#0", "%s", r.body.data);
    const cJSON *d = tw_json_get(err, "differences");
    cr_assert_eq(cJSON_GetArraySize(d), 2, "%s", r.body.data);
    const cJSON *d0 = cJSON_GetArrayItem(d, 0), *d1 = cJSON_GetArrayItem(d, 1);
    cr_assert_str_eq(tw_json_get_str(d0, "path"), "$.messages[0].content");
    cr_assert_str_eq(tw_json_get_str(d0, "expected"), "\"something else entirely\"");
    cr_assert_str_eq(tw_json_get_str(d0, "got"), "\"what is the weather in Lyon?\"");
    cr_assert_str_eq(tw_json_get_str(d1, "path"), "$.metadata");
    cr_assert_str_eq(tw_json_get_str(d1, "expected"), "(absent)");
    cr_assert_str_eq(tw_json_get_str(d1, "got"), "{\"k\":1}");
    const char *msg = tw_json_get_str(err, "message");
    cr_assert(strstr(msg, "nearest: far#0, 2 differences: $.messages[0].content: expected "
                          "\"something else entirely\", got \"what is the weather in Lyon?\"; "
                          "$.metadata: expected (absent), got {\"k\":1}"),
              "%s", msg);
    /* the log line says the same */
    cr_assert(strstr(log_text(),
                     "(no match) 404: no fixture exchange matches this request; nearest: far#0, "
                     "2 differences: $.messages[0].content"),
              "%s", log_text());
    cJSON_Delete(e);
    tw_http_response_free(&r);

    /* with the content of "near", the extra key is its one difference: fewest wins */
    tw_http_response r2 = {0};
    cr_assert_eq(post("/v1/chat/completions",
                      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"what is the "
                      "weather in Paris?\"}],\"metadata\":{}}",
                      &r2),
                 404);
    e = parse(r2.body.data);
    cr_assert_str_eq(tw_json_get_str(tw_json_get(e, "error"), "nearest"), "near#0", "%s",
                     r2.body.data);
    cJSON_Delete(e);
    tw_http_response_free(&r2);

    /* Anthropic's envelope on /v1/messages */
    tw_http_response r3 = {0};
    cr_assert_eq(post("/v1/messages", "{\"model\":\"m\",\"messages\":[1]}", &r3), 404);
    e = parse(r3.body.data);
    cr_assert_str_eq(tw_json_get_str(e, "type"), "error");
    err = tw_json_get(e, "error");
    cr_assert_str_eq(tw_json_get_str(err, "type"), "not_found_error");
    cr_assert_str_eq(tw_json_get_str(err, "nearest"), "other_path#0");
    cr_assert_str_eq(
        tw_json_get_str(cJSON_GetArrayItem(tw_json_get(err, "differences"), 0), "path"),
        "$.messages[0]");
    cJSON_Delete(e);
    tw_http_response_free(&r3);

    /* a body that is not JSON */
    tw_http_response r5 = {0};
    cr_assert_eq(post("/v1/messages", "not json", &r5), 404);
    e = parse(r5.body.data);
    err = tw_json_get(e, "error");
    cr_assert_str_eq(tw_json_get_str(cJSON_GetArrayItem(tw_json_get(err, "differences"), 0), "got"),
                     "(no JSON body)", "%s", r5.body.data);
    cJSON_Delete(e);
    tw_http_response_free(&r5);

    /* a path no exchange has: no nearest */
    tw_http_response r4 = {0};
    cr_assert_eq(post("/generate", "{}", &r4), 404);
    e = parse(r4.body.data);
    cr_assert_null(tw_json_get(tw_json_get(e, "error"), "nearest"));
    const char *m4 = tw_json_get_str(tw_json_get(e, "error"), "message");
    cr_assert(strstr(m4, "no served exchange has method POST and path /generate; served: POST "),
              "%s", m4);
    cr_assert(strstr(m4, "/v1/chat/completions"), "the served paths are named: %s", m4);
    cJSON_Delete(e);
    tw_http_response_free(&r4);
}

Test(mock_replay_server, nearest_fixes_the_first_of_equals_and_prefers_fewer)
{
    const char *f[] = {FX("two", MSG_EX("a") "," MSG_EX("b")), FX("one", MSG_EX("c"))};
    start(f, 2, NULL, false, 0);
    tw_http_response r = {0};
    /* one difference from each; the extra key makes two from the others' view as well */
    cr_assert_eq(
        post(
            "/v1/chat/completions",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"b\",\"name\":\"n\"}]}",
            &r),
        404);
    cJSON *e = parse(r.body.data);
    /* "two#1" differs only by the extra key */
    cr_assert_str_eq(tw_json_get_str(tw_json_get(e, "error"), "nearest"), "two#1", "%s",
                     r.body.data);
    cJSON_Delete(e);
    tw_http_response_free(&r);
}

Test(mock_replay_server, excerpts_are_capped_and_escaped)
{
    const char *f[] = {FX("near", MSG_EX("hello"))};
    start(f, 1, NULL, false, 0);
    /* a long value with a newline, an escape byte and a quote */
    tw_buf b = {0};
    tw_buf_puts(
        &b, "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\\n\\u001b[31m\\\"");
    for (int i = 0; i < 20000; i++)
        tw_buf_putc(&b, 'z');
    tw_buf_puts(&b, "\"}]}");
    tw_http_response r = {0};
    cr_assert_eq(post("/v1/chat/completions", b.data, &r), 404);
    cr_assert_lt(r.body.len, 2000, "the 404 body holds excerpts only: %zu bytes", r.body.len);
    cJSON *e = parse(r.body.data);
    const char *got = tw_json_get_str(
        cJSON_GetArrayItem(tw_json_get(tw_json_get(e, "error"), "differences"), 0), "got");
    cr_assert(got && strncmp(got, "\"\\n\\u001b[31m\\\"zzz", 17) == 0, "%s", got);
    cr_assert(strstr(got, "\xE2\x80\xA6"), "cut excerpts end with an ellipsis: %s", got);
    const char *log = log_text();
    /* one line, no raw control byte */
    cr_assert_eq(strchr(log, '\n'), log + strlen(log) - 1, "%s", log);
    cr_assert_null(strchr(log, '\x1b'));
    cr_assert_lt(strlen(log), 2000);
    cJSON_Delete(e);
    tw_buf_free(&b);
    tw_http_response_free(&r);
}

/* Finding the nearest exchange is linear in the body: an object of 300,000
 * keys compared with one of 300,000 other keys would take 9e10 steps with a
 * key-by-key scan of the other side, which cannot finish within ctest's
 * timeout. */
Test(mock_replay, nearest_is_linear_in_the_body, .timeout = 120)
{
    enum { N = 300000 };
    tw_buf w = {0}, g = {0};
    tw_buf_puts(
        &w,
        "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":{\"o\":{");
    tw_buf_puts(&g, "{\"o\":{");
    for (int i = 0; i < N; i++) {
        tw_buf_printf(&w, "%s\"w%d\":%d", i ? "," : "", i, i);
        tw_buf_printf(&g, "%s\"g%d\":%d", i ? "," : "", i, i);
    }
    tw_buf_puts(&w, "}}},\"response\":{\"status\":200,\"body\":{}}}");
    tw_buf_puts(&g, "}}");
    tw_buf fxj = {0};
    tw_buf_puts(
        &fxj,
        "{\"fixture_version\":1,\"name\":\"wide\",\"description\":\"d\",\"backend\":\"openai\","
        "\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":[");
    tw_buf_append(&fxj, w.data, w.len);
    tw_buf_puts(&fxj, "]}");
    tw_limits L;
    memset(&L, 0, sizeof L);
    L.max_input_bytes = 64 << 20;
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_parse(fxj.data, fxj.len, "inline", &L, &f, &why), TW_OK, "%s",
                 why.message);
    cJSON *body = NULL;
    cr_assert_eq(tw_json_parse(g.data, g.len, 64, &body, NULL), TW_OK);
    bool served = true;
    size_t base = 0;
    tw_match_in in = {&f,
                      1,
                      &served,
                      NULL,
                      &base,
                      "POST",
                      "/v1/chat/completions",
                      body,
                      NULL,
                      "",
                      TW_MATCH_NORMALISED,
                      NULL,
                      NULL};
    tw_buf msg = {0}, near = {0}, diffs = {0};
    cr_assert_eq(tw_mock_nearest(&in, &msg, &near, &diffs), TW_OK);
    cr_assert_str_eq(near.data, "wide#0");
    cr_assert(strstr(msg.data, "600000 differences, the first 3: $.o.w0: expected 0, got (absent)"),
              "%.300s", msg.data);
    tw_buf_free(&msg);
    tw_buf_free(&near);
    tw_buf_free(&diffs);
    cJSON_Delete(body);
    tw_fixture_free(&f);
    tw_buf_free(&w);
    tw_buf_free(&g);
    tw_buf_free(&fxj);
}

/* ---- profiles ---- */

Test(mock_replay_server, auto_serves_each_fixture_with_the_profile_that_fits)
{
    const char *f[] = {FX("recorded", MSG_EX("one")),
                       FX("model",
                          "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\","
                          "\"body\":{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
                          "\"two\"}]}},\"model_text\":\"<tool_call>{\\\"name\\\":\\\"f\\\","
                          "\\\"arguments\\\":{\\\"a\\\":1}}</tool_call>\"}")};
    start(f, 2, "auto", false, 0);
    cr_assert_str_eq(tw_mock_profile_for("auto", &fx[0]), "replay");
    cr_assert_str_eq(tw_mock_profile_for("auto", &fx[1]), "hermes");
    cr_assert_null(tw_mock_profile_for("hermes", &fx[0]));
    cr_assert(tw_mock_profile_fits("auto", &fx[1]));
    tw_http_response r = {0};
    cr_assert_eq(post("/v1/chat/completions",
                      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"one\"}]}",
                      &r),
                 200);
    cr_assert(strstr(r.body.data, "\"hello\""), "%s", r.body.data);
    tw_http_response_free(&r);
    tw_http_response r2 = {0};
    cr_assert_eq(post("/v1/chat/completions",
                      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"two\"}]}",
                      &r2),
                 200, "%s", r2.body.data);
    /* the reference encoder answered with the call decoded from the model text */
    cr_assert(strstr(r2.body.data, "\"tool_calls\""), "%s", r2.body.data);
    cr_assert(strstr(r2.body.data, "chatcmpl-toolwire-mock"), "%s", r2.body.data);
    tw_http_response_free(&r2);
}

/* ---- logged bodies ---- */

Test(mock_replay_server, log_bodies_capped_escaped_and_redacted)
{
    const char *f[] = {FX("recorded", MSG_EX("one"))};
    start(f, 1, NULL, true, 40);
    tw_http_response r = {0};
    const char *body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"one\"}],"
                       "\"api_key\":\"sk-logged-secret-4242\"}";
    cr_assert_eq(post("/v1/chat/completions", body, &r), 404);
    tw_http_response_free(&r);
    const char *log = log_text();
    /* the first 40 bytes, then how long the body was */
    cr_assert(
        strstr(log, " body: {\"model\":\"m\",\"messages\":[{\"role\":\"user\",\xE2\x80\xA6 ("),
        "%s", log);
    char n[32];
    snprintf(n, sizeof n, "(%zu bytes)", strlen(body));
    cr_assert(strstr(log, n), "%s", log);
    /* the credential field joined the secret set that every output passes through */
    tw_buf out = {0};
    size_t hold = 0;
    const char *probe = "key sk-logged-secret-4242 here";
    cr_assert_eq(tw_secret_scrub(probe, strlen(probe), &out, &hold), TW_OK);
    cr_assert_null(strstr(out.data ? out.data : "", "sk-logged-secret-4242"), "%s", out.data);
    tw_buf_free(&out);

    /* a control byte of the body stays escaped on its one line */
    fclose(log_file);
    log_file = tmpfile();
    tw_mock_stop(mock);
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.log = log_file;
    o.log_bodies = true;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_mock_start(fx, 1, &o, &mock, &why), TW_OK);
    tw_http_response r2 = {0};
    post("/v1/chat/completions", "{\"a\":\"x\"}\n\x1b[2J", &r2);
    tw_http_response_free(&r2);
    log = log_text();
    cr_assert(strstr(log, "body: {\"a\":\"x\"}\\x0A\\x1B[2J"), "%s", log);
    cr_assert_eq(strchr(log, '\n'), log + strlen(log) - 1, "%s", log);
}

Test(mock_replay_server, bodies_not_logged_by_default)
{
    const char *f[] = {FX("recorded", MSG_EX("one"))};
    start(f, 1, NULL, false, 0);
    tw_http_response r = {0};
    post("/v1/chat/completions",
         "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"one\"}]}", &r);
    tw_http_response_free(&r);
    cr_assert_null(strstr(log_text(), "body:"), "%s", log_text());
}

Test(mock_replay_server, equal_matches_prefer_a_clean_answer)
{
    /* the same request: a 200 a check is expected to fail on, then a clean one */
    const char *f[] = {
        FX("broken", "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\","
                     "\"body\":" PLAIN "},\"response\":" OK_RESP ",\"expect\":{"
                     "\"failing_checks\":[{\"id\":\"OAI-R06\",\"reason\":\"r\"}]}}"),
        FX("clean", "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\","
                    "\"body\":" PLAIN "},\"response\":" OK_RESP "}")};
    start(f, 2, NULL, false, 0);
    tw_http_response r = {0};
    cr_assert_eq(post("/v1/chat/completions", PLAIN, &r), 200, "%s", r.body.data);
    cr_assert(strstr(log_text(), "-> clean#0 200"), "%s", log_text());
    tw_http_response_free(&r);
}

Test(mock_replay_server, stream_asked_of_a_recorded_body_is_said)
{
    const char *f[] = {FX("plain",
                          "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\","
                          "\"body\":" PLAIN "},\"response\":" OK_RESP "}")};
    start(f, 1, NULL, false, 0);
    tw_http_response r = {0};
    const char *body = "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\","
                       "\"content\":\"hi\"}]," TOOLS_PLAIN "}";
    cr_assert_eq(post("/v1/chat/completions", body, &r), 200, "%s", r.body.data);
    cr_assert(
        strstr(log_text(), "-> plain#0 200") &&
            strstr(log_text(),
                   ": the request asks for a stream; this exchange's recorded answer is not one"),
        "%s", log_text());
    tw_http_response_free(&r);
}

/* Gemini: the @google/genai SDK sends "generationConfig": {} with every
 * request, and its sampling options are the counterparts of the top-level
 * options OpenAI bodies leave out; what else it holds is compared. */
Test(mock_replay, gemini_generation_config)
{
    static const char G[] = "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]";
    char want[256], got[256];
    snprintf(want, sizeof want, "%s}", G);
    snprintf(got, sizeof got, "%s,\"generationConfig\":{}}", G);
    cr_assert(matches(want, got));
    cr_assert(matches(got, want));
    snprintf(got, sizeof got,
             "%s,\"generationConfig\":{\"temperature\":0.2,\"topK\":3,"
             "\"maxOutputTokens\":9}}",
             G);
    cr_assert(matches(want, got));
    snprintf(got, sizeof got,
             "%s,\"generationConfig\":{\"temperature\":0.2,"
             "\"responseMimeType\":\"application/json\"}}",
             G);
    cr_assert_not(matches(want, got));
    char want2[256];
    snprintf(want2, sizeof want2,
             "%s,\"generationConfig\":{\"responseMimeType\":"
             "\"application/json\",\"seed\":1}}",
             G);
    cr_assert(matches(want2, got));
}
