/* How the mock picks an exchange: paths with a query string, requests that
 * several exchanges match, and the faults object it is given. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "client.h"
#include "mock.h"
#include "mock_match.h"
#include "post.h"
#include "twtest.h"

#define BODY "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
#define OK_RESP                                                                                    \
    "{\"status\":200,\"body\":{\"id\":\"c1\",\"object\":\"chat.completion\",\"created\":1,"        \
    "\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"   \
    "\"hello\"},\"finish_reason\":\"stop\"}]}}"
#define ERR_RESP "{\"status\":500,\"body\":{\"error\":\"boom\"}}"
#define FX(name, ex)                                                                               \
    "{\"fixture_version\":1,\"name\":\"" name "\",\"description\":\"d\",\"backend\":\"openai\","   \
    "\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":[" ex "]}"
#define EXCH(path, resp)                                                                           \
    "{\"request\":{\"method\":\"POST\",\"path\":\"" path "\",\"body\":" BODY                       \
    "},\"response\":" resp "}"

static tw_fixture fx;
static tw_mock *mock;
static FILE *log_file;

static void start(const char *json)
{
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_parse(json, strlen(json), "inline", NULL, &fx, &why), TW_OK,
                 "fixture: %s", why.message);
    log_file = tmpfile();
    cr_assert(log_file);
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.log = log_file;
    cr_assert_eq(tw_mock_start(&fx, 1, &o, &mock, &why), TW_OK, "%s", why.message);
}

static void stop(void)
{
    tw_mock_stop(mock);
    mock = NULL;
    tw_fixture_free(&fx);
    if (log_file)
        fclose(log_file);
    log_file = NULL;
}

static int post(const char *path, const char *hint, tw_http_response *r)
{
    tw_kv h = {TW_MOCK_EXCHANGE_HEADER, hint};
    return tw_test_post(tw_mock_url(mock), path, hint ? &h : NULL, hint ? 1 : 0, BODY, r);
}

static char *log_text(void)
{
    static char buf[4096];
    fflush(log_file);
    rewind(log_file);
    size_t n = fread(buf, 1, sizeof buf - 1, log_file);
    buf[n] = '\0';
    return buf;
}

TestSuite(mock_matching, .fini = stop);

Test(mock_matching, fixture_path_with_query_is_replayed)
{
    start(FX("t/query", EXCH("/v1/chat/completions?foo=bar", OK_RESP)));
    tw_http_response r;
    /* as `run` sends it: the fixture's path with its query */
    cr_assert_eq(post("/v1/chat/completions?foo=bar", NULL, &r), 200, "%s", r.body.data);
    tw_http_response_free(&r);
    cr_assert_eq(post("/v1/chat/completions?foo=bar", "t/query#0", &r), 200, "%s", r.body.data);
    tw_http_response_free(&r);
    /* the query is not matched: another query or none reaches the same exchange */
    cr_assert_eq(post("/v1/chat/completions", "t/query#0", &r), 200, "%s", r.body.data);
    tw_http_response_free(&r);
    /* the path still is */
    cr_assert_eq(post("/v1/chat/completion?foo=bar", NULL, &r), 404);
    tw_http_response_free(&r);
}

Test(mock_matching, equal_matches_prefer_a_success_and_say_so)
{
    start(FX(
        "t/amb",
        EXCH("/v1/chat/completions", ERR_RESP) "," EXCH("/v1/chat/completions", ERR_RESP) "," EXCH(
            "/v1/chat/completions", OK_RESP) "," EXCH("/v1/chat/completions", OK_RESP)));
    bool partial = true;
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    cr_assert_eq(tw_mock_shared_bodies(&fx, 1, &o, &partial), 1);
    cr_assert(!partial);
    tw_http_response r;
    /* the same bytes again: the choice made for the first is made again, said the same way */
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(post("/v1/chat/completions", NULL, &r), 200, "%s", r.body.data);
        tw_http_response_free(&r);
    }
    tw_mock_record *rec;
    size_t n;
    cr_assert_eq(tw_mock_records(mock, 0, &rec, &n), TW_OK);
    cr_assert_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(rec[i].exchange, 2, "the first success exchange answers");
        cr_assert_eq(rec[i].ambiguous, 4);
    }
    tw_mock_records_free(rec, n);
    const char *l = log_text();
    const char *amb =
        " ambiguous: 4 exchanges match; answered t/amb#2; name one with X-Toolwire-Exchange";
    cr_assert(strstr(l, amb) && strstr(strstr(l, amb) + 1, amb), "%s", l);
    /* a named exchange is not ambiguous */
    cr_assert_eq(post("/v1/chat/completions", "t/amb#0", &r), 500);
    tw_http_response_free(&r);
    l = log_text();
    cr_assert(strstr(l, "t/amb#0 500\n"), "%s", l);
}

/* Of two exchanges a request matches apart from ignored keys, the one with its
 * stream flag answers, whichever comes first in the file. */
Test(mock_matching, a_request_prefers_the_exchange_with_its_stream_flag)
{
#define SBODY(flag, temp)                                                                          \
    "{\"model\":\"m\",\"stream\":" flag ",\"temperature\":" temp                                   \
    ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
#define SEXCH(flag)                                                                                \
    "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":" SBODY(         \
        flag, "0") "},\"response\":" OK_RESP "}"
    static const char *const bodies[] = {SBODY("true", "0.5"), SBODY("false", "0.5")};
    for (int order = 0; order < 2; order++) {
        start(order ? FX("t/st", SEXCH("true") "," SEXCH("false"))
                    : FX("t/st", SEXCH("false") "," SEXCH("true")));
        for (int want_stream = 0; want_stream < 2; want_stream++) {
            tw_http_response r;
            tw_test_post(tw_mock_url(mock), "/v1/chat/completions", NULL, 0,
                         bodies[want_stream ? 0 : 1], &r);
            tw_http_response_free(&r);
            tw_mock_record *rec;
            size_t n;
            cr_assert_eq(tw_mock_records(mock, 0, &rec, &n), TW_OK);
            cr_assert_geq(n, 1);
            /* the exchange of the same flag: #1 or #0 as the order puts it */
            size_t want = (size_t)(want_stream == order ? 0 : 1);
            cr_expect_eq(rec[n - 1].exchange, (long)want, "order %d, stream %d: exchange %ld",
                         order, want_stream, (long)rec[n - 1].exchange);
            tw_mock_records_free(rec, n);
        }
        if (!order)
            stop(); /* the suite's fini stops the last */
    }
#undef SEXCH
#undef SBODY
}

/* The generation options an SDK sets (max_tokens, temperature, …) are not
 * compared; the rest of the body is, both ways. */
Test(mock_matching, generation_options_are_not_compared)
{
    cJSON *want = cJSON_Parse("{\"model\":\"a\",\"max_tokens\":100,\"temperature\":0,"
                              "\"max_completion_tokens\":5,\"messages\":[1]}");
    cJSON *got = cJSON_Parse("{\"model\":\"b\",\"max_tokens\":200,\"temperature\":1,"
                             "\"max_completion_tokens\":9,\"top_k\":3,\"messages\":[1]}");
    cJSON *other = cJSON_Parse("{\"model\":\"a\",\"messages\":[2]}");
    cr_assert(want && got && other);
    cr_expect(tw_mock_body_matches(want, got, TW_MATCH_NORMALISED, NULL));
    cr_expect(tw_mock_body_matches(got, want, TW_MATCH_NORMALISED, NULL));
    cr_expect_not(tw_mock_body_matches(want, other, TW_MATCH_NORMALISED, NULL));
    cr_expect_not(tw_mock_body_matches(want, got, TW_MATCH_EXACT, NULL));
    cJSON_Delete(want);
    cJSON_Delete(got);
    cJSON_Delete(other);
}

/* A path matches itself (its query aside), not a longer or shorter one. */
Test(mock_matching, paths_match_whole)
{
    cr_expect(tw_mock_path_matches("/v1/chat/completions?x=1", "/v1/chat/completions"));
    cr_expect_not(tw_mock_path_matches("/v1/chat/completions", "/v1/chat/completionsX"));
    cr_expect_not(tw_mock_path_matches("/v1/chat/completions", "/v1/chat/completions/x"));
    cr_expect_not(tw_mock_path_matches("/v1/chat/completions", "/v1/chat/complet"));
    cr_expect(
        tw_mock_path_matches("/v1beta/models/g:generateContent", "/v1/models/g:generateContent"));
    cr_expect_not(
        tw_mock_path_matches("/v1beta/models/g:generateContent", "/v1/models/g:generateContentX"));
}

Test(mock_matching, equal_faults_only_first_in_file_order)
{
    start(FX("t/amb2",
             EXCH("/v1/chat/completions", ERR_RESP) "," EXCH("/v1/chat/completions", ERR_RESP)));
    tw_http_response r;
    cr_assert_eq(post("/v1/chat/completions", NULL, &r), 500);
    tw_http_response_free(&r);
    cr_assert(strstr(log_text(), "answered t/amb2#0;"), "%s", log_text());
}

Test(mock_matching, faults_object_is_validated)
{
    static const struct {
        const char *in, *want;
    } bad[] = {
        {"{\"stauts\":503}", "--fault:1:2: stauts: unknown key (expected one of: delay_ms,"},
        {"{\"status\":\"503\"}",
         "--fault:1:11: status: expected an integer from 100 to 599, got a string"},
        {"{\"status\":700}", "--fault:1:11: status: expected an integer from 100 to 599, got 700"},
        {"{\"status\":99}", "status: expected an integer from 100 to 599, got 99"},
        {"{\"delay_ms\":1.5}", "delay_ms: expected an integer from 0 to 600000, got a fraction"},
        {"[503]", "--fault:1:1: expected an object, got an array"},
        {"{\"status\":", "--fault:1:10: unexpected end of JSON inside an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *j = (cJSON *)1;
        tw_error why = {.offset = -1};
        tw_status st = tw_fixture_check_faults(bad[i].in, strlen(bad[i].in), "--fault", &j, &why);
        cr_assert_neq(st, TW_OK, "%s accepted", bad[i].in);
        cr_assert_null(j);
        cr_assert(strstr(why.message, bad[i].want), "%s: got '%s'", bad[i].in, why.message);
    }
    cJSON *j = NULL;
    tw_error why = {.offset = -1};
    const char *good = "{\"status\":503,\"retry_after\":1}";
    cr_assert_eq(tw_fixture_check_faults(good, strlen(good), "--fault", &j, &why), TW_OK, "%s",
                 why.message);
    cr_assert_eq(tw_json_get(j, "status")->valueint, 503);
    cJSON_Delete(j);
}

/* The command line refuses a bad --fault with exit 2 and names the key. */
Test(mock_matching, serve_refuses_bad_fault)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(bin);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' serve --for 1 --fault '{\"status\":700}' /nonexistent 2>&1",
             bin);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    char out[2048] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %d: %s", st, out);
    cr_assert(strstr(out, "status: expected an integer from 100 to 599, got 700"), "%s", out);
}

static int post_body(tw_client *c, const char *path, const char *body, tw_http_response *r)
{
    cr_assert_eq(tw_client_send(c, "POST", path, NULL, 0, body, strlen(body), r), TW_OK);
    return r->status;
}

#define BODY_B "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}"

Test(mock_matching, repeated_bytes_are_matched_as_before)
{
    start(FX("t/rep", EXCH("/v1/chat/completions",
                           OK_RESP) ","
                                    "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/"
                                    "completions\",\"body\":" BODY_B "},\"response\":" OK_RESP
                                    "}," EXCH("/v2/chat/completions", OK_RESP)));
    /* each request twice: the second finds the choice the first made, for
     * its own method, URL and bytes only */
    static const struct {
        const char *path, *body;
        int status;
        long exchange;
    } reqs[] = {
        {"/v1/chat/completions", BODY, 200, 0},
        {"/v1/chat/completions", BODY, 200, 0},
        {"/v2/chat/completions", BODY, 200, 2},
        {"/v2/chat/completions", BODY, 200, 2},
        {"/v1/chat/completions", BODY_B, 200, 1},
        {"/v1/chat/completions", BODY_B, 200, 1},
        {"/v1/chat/completions", " " BODY, 200, 0},
        {"/v1/chat/completions", " " BODY, 200, 0},
        {"/v1/chat/completions",
         "{\"model\":\"other\",\"messages\":[{\"role\":\"user\",\"content\":\"bye\"}]}", 200, 1},
        {"/v3/chat/completions", BODY, 404, -1},
        {"/v3/chat/completions", BODY, 404, -1},
        {"/v1/chat/completions", "{\"messages\":[]}", 404, -1},
        {"/v1/chat/completions", "{\"messages\":[]}", 404, -1},
        {"/v1/chat/completions", BODY, 200, 0},
    };
    size_t nreq = sizeof reqs / sizeof reqs[0];
    /* one client (its connection kept between requests, when it can be) */
    tw_client_opts o;
    memset(&o, 0, sizeof o);
    o.base_url = tw_mock_url(mock);
    o.total_timeout_ms = 10000;
    tw_client *c = tw_client_new(&o);
    cr_assert(c);
    for (size_t i = 0; i < nreq; i++) {
        tw_http_response r;
        cr_assert_eq(post_body(c, reqs[i].path, reqs[i].body, &r), reqs[i].status,
                     "request %zu: %s", i, r.body.data);
        tw_http_response_free(&r);
    }
    tw_client_free(c);
    tw_mock_record *rec;
    size_t n;
    cr_assert_eq(tw_mock_records(mock, 0, &rec, &n), TW_OK);
    cr_assert_eq(n, nreq);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(rec[i].exchange, reqs[i].exchange, "request %zu", i);
        cr_assert_eq(rec[i].ambiguous, reqs[i].exchange < 0 ? 0 : 1, "request %zu", i);
    }
    tw_mock_records_free(rec, n);
}
