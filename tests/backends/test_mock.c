/* The embedded mock backend on loopback, driven through the libcurl client. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "mock.h"
#include "twtest.h"

#define REQ_TOOLS                                                                                  \
    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"     \
    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]" \
    "}}}],"                                                                                        \
    "\"parallel_tool_calls\":false"

#define USER_MSG "{\"role\":\"user\",\"content\":\"Weather in Paris?\"}"
#define NS_BODY "{\"model\":\"m\",\"messages\":[" USER_MSG "]," REQ_TOOLS "}"
#define S_BODY "{\"model\":\"m\",\"messages\":[" USER_MSG "]," REQ_TOOLS ",\"stream\":true}"
#define TURN2_BODY                                                                                 \
    "{\"model\":\"m\",\"messages\":[" USER_MSG                                                     \
    ",{\"role\":\"assistant\",\"content\":null,\"tool_calls\":"                                    \
    "[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","            \
    "\"arguments\":"                                                                               \
    "\"{\\\"city\\\": "                                                                            \
    "\\\"Paris\\\"}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"18C\"}]"    \
    "," REQ_TOOLS "}"

#define NS_RESP                                                                                    \
    "{\"status\":200,\"headers\":{\"content-type\":\"application/"                                 \
    "json\"},\"body\":{\"id\":\"c1\",\"object\":"                                                  \
    "\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{"    \
    "\"role\":"                                                                                    \
    "\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","     \
    "\"function\":"                                                                                \
    "{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": "                                    \
    "\\\"Paris\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}}"

#define FINAL_RESP                                                                                 \
    "{\"status\":200,\"body\":{\"id\":\"c2\",\"object\":\"chat.completion\",\"created\":1,"        \
    "\"model\":\"m\","                                                                             \
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"It is 18C.\"},"   \
    "\"finish_reason\":\"stop\"}]}}"

#define EV(d) "{\"data\":" d "}"
#define S_RESP                                                                                     \
    "{\"status\":200,\"headers\":{\"content-type\":\"text/event-stream\"},\"events\":[" EV(        \
        "\"{\\\"object\\\":\\\"chat.completion.chunk\\\",\\\"choices\\\":[{\\\"index\\\":0,"       \
        "\\\"delta\\\":{\\\"role\\\":\\\"assistant\\\"}}]}\"") "," EV("\"{\\\"object\\\":"         \
                                                                      "\\\"chat.completion."       \
                                                                      "chunk\\\",\\\"choices\\\":" \
                                                                      "[{\\\"index\\\":0,"         \
                                                                      "\\\"delta\\\":{\\\"tool_"   \
                                                                      "calls\\\":[{\\\"index\\\":" \
                                                                      "0,\\\"id\\\":\\\"call_"     \
                                                                      "1\\\",\\\"type\\\":"        \
                                                                      "\\\"function\\\","          \
                                                                      "\\\"function\\\":{"         \
                                                                      "\\\"name\\\":\\\"get_"      \
                                                                      "weather\\\","               \
                                                                      "\\\"arguments\\\":\\\"{"    \
                                                                      "\\\\\\\"city\\\\\\\": "     \
                                                                      "\\\\\\\"Paris\\\\\\\"}"     \
                                                                      "\\\"}}]}}]}\"") "," EV("\"" \
                                                                                              "{"  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              "ob" \
                                                                                              "je" \
                                                                                              "ct" \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              ":"  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              "ch" \
                                                                                              "at" \
                                                                                              ".c" \
                                                                                              "om" \
                                                                                              "pl" \
                                                                                              "et" \
                                                                                              "io" \
                                                                                              "n." \
                                                                                              "ch" \
                                                                                              "un" \
                                                                                              "k"  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              ","  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              "ch" \
                                                                                              "oi" \
                                                                                              "ce" \
                                                                                              "s"  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              ":[" \
                                                                                              "{"  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              "in" \
                                                                                              "de" \
                                                                                              "x"  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              ":0" \
                                                                                              ","  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              "de" \
                                                                                              "lt" \
                                                                                              "a"  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              ":{" \
                                                                                              "}," \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              "fi" \
                                                                                              "ni" \
                                                                                              "sh" \
                                                                                              "_r" \
                                                                                              "ea" \
                                                                                              "so" \
                                                                                              "n"  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              ":"  \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              "to" \
                                                                                              "ol" \
                                                                                              "_c" \
                                                                                              "al" \
                                                                                              "ls" \
                                                                                              "\\" \
                                                                                              "\"" \
                                                                                              "}]" \
                                                                                              "}"  \
                                                                                              "\"") "," EV("\"[DONE]\"") "]}"

static const char fx_json[] =
    "{\"fixture_version\":1,\"name\":\"t/loop\",\"description\":\"d\",\"backend\":\"openai\","
    "\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":["
    "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":" NS_BODY
    "},\"response\":" NS_RESP "},"
    "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":" S_BODY
    "},\"response\":" S_RESP "},"
    "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":" TURN2_BODY
    "},\"response\":" FINAL_RESP "}"
    "]}";

static tw_fixture fx;
static tw_mock *mock;

static void load_fixture(const char *faults_ex1)
{
    char *buf = malloc(sizeof fx_json + 512);
    cr_assert(buf);
    strcpy(buf, fx_json);
    if (faults_ex1) {
        /* put faults on the streamed exchange (index 1) */
        char *at = strstr(
            buf,
            "\"response\":{\"status\":200,\"headers\":{\"content-type\":\"text/event-stream\"");
        cr_assert(at);
        char tail[sizeof fx_json];
        strcpy(tail, at);
        sprintf(at, "\"faults\":%s,%s", faults_ex1, tail);
    }
    tw_error why = {.offset = -1};
    tw_status st = tw_fixture_parse(buf, strlen(buf), "inline", NULL, &fx, &why);
    free(buf);
    cr_assert_eq(st, TW_OK, "fixture: %s", why.message);
}

static void start(const char *faults_ex1, const char *server_faults)
{
    load_fixture(faults_ex1);
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    cJSON *sf = server_faults ? cJSON_Parse(server_faults) : NULL;
    o.faults = sf;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_mock_start(&fx, 1, &o, &mock, &why), TW_OK, "%s", why.message);
    cr_assert(tw_mock_port(mock) > 0);
    cr_assert(strncmp(tw_mock_url(mock), "http://127.0.0.1:", 17) == 0);
    /* o.faults is borrowed: kept until the test ends */
    static cJSON *keep;
    cJSON_Delete(keep);
    keep = sf;
}

static void stop(void)
{
    tw_mock_stop(mock);
    mock = NULL;
    tw_fixture_free(&fx);
}

static tw_client *client(int retries)
{
    tw_client_opts o;
    memset(&o, 0, sizeof o);
    o.base_url = tw_mock_url(mock);
    o.max_retries = retries;
    o.backoff_ms = 10;
    o.total_timeout_ms = 10000;
    tw_client *c = tw_client_new(&o);
    cr_assert(c);
    return c;
}

static tw_status post(tw_client *c, const char *body, tw_http_response *r)
{
    return tw_client_send(c, "POST", "/v1/chat/completions", NULL, 0, body, strlen(body), r);
}

TestSuite(mock, .fini = stop);

Test(mock, nonstreaming_replay)
{
    start(NULL, NULL);
    tw_client *c = client(0);
    tw_http_response r;
    cr_assert_eq(post(c, NS_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body.data, "\"chat.completion\""));
    cr_assert(strstr(tw_kv_get(r.headers, r.nheaders, "content-type"), "application/json"));
    tw_mock_record *rec;
    size_t n;
    cr_assert_eq(tw_mock_records(mock, 0, &rec, &n), TW_OK);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(rec[0].fixture, "t/loop");
    cr_assert_eq(rec[0].exchange, 0);
    cr_assert_eq(tw_check_set_get(&rec[0].checks, TW_CHK_CLI_03)->verdict, TW_V_PASS);
    cr_assert_eq(tw_check_set_get(&rec[0].checks, TW_CHK_CLI_06)->verdict, TW_V_PASS);
    tw_mock_records_free(rec, n);
    tw_http_response_free(&r);
    tw_client_free(c);
}

Test(mock, streaming_replay_keeps_events)
{
    start(NULL, NULL);
    tw_client *c = client(0);
    tw_http_response r;
    cr_assert_eq(post(c, S_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(tw_kv_get(r.headers, r.nheaders, "content-type"), "text/event-stream"));
    cr_assert_str_eq(r.transport_error, "");
    const char *end = r.body.data + r.body.len - 14;
    cr_assert(strcmp(end, "data: [DONE]\n\n") == 0, "body ends with [DONE]: %s", r.body.data);
    size_t events = 0;
    for (const char *p = r.body.data; (p = strstr(p, "\n\n")); p += 2)
        events++;
    cr_assert_eq(events, 4);
    tw_http_response_free(&r);
    tw_client_free(c);
}

Test(mock, multi_turn_matched_by_body)
{
    start(NULL, NULL);
    tw_client *c = client(0);
    tw_http_response r1, r2;
    cr_assert_eq(post(c, NS_BODY, &r1), TW_OK);
    cr_assert(strstr(r1.body.data, "call_1"));
    /* the second turn differs only by its messages; temperature is ignored */
    const char *t2 = TURN2_BODY;
    char *with_temp = malloc(strlen(t2) + 32);
    sprintf(with_temp, "{\"temperature\":0.3,%s", t2 + 1);
    cr_assert_eq(post(c, with_temp, &r2), TW_OK);
    free(with_temp);
    cr_assert_eq(r2.status, 200);
    cr_assert(strstr(r2.body.data, "It is 18C."));
    tw_mock_record *rec;
    size_t n;
    tw_mock_records(mock, 1, &rec, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(rec[0].exchange, 2);
    cr_assert_eq(tw_check_set_get(&rec[0].checks, TW_CHK_CLI_01)->verdict, TW_V_PASS);
    cr_assert_eq(tw_check_set_get(&rec[0].checks, TW_CHK_CLI_02)->verdict, TW_V_PASS);
    cr_assert_eq(tw_check_set_get(&rec[0].checks, TW_CHK_CLI_04)->verdict, TW_V_PASS);
    tw_mock_records_free(rec, n);
    tw_http_response_free(&r1);
    tw_http_response_free(&r2);
    tw_client_free(c);
}

Test(mock, no_match_and_body_cap)
{
    start(NULL, NULL);
    tw_client *c = client(0);
    tw_http_response r;
    cr_assert_eq(post(c, "{\"messages\":[]}", &r), TW_OK);
    cr_assert_eq(r.status, 404);
    cr_assert(strstr(r.body.data, "\"error\""));
    tw_http_response_free(&r);
    tw_client_free(c);
    /* bodies past max_input_bytes are refused */
    tw_mock_stop(mock);
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = 64;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_mock_start(&fx, 1, &o, &mock, &why), TW_OK);
    c = client(0);
    cr_assert_eq(post(c, NS_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 413);
    tw_http_response_free(&r);
    tw_client_free(c);
}

Test(mock, fault_delay)
{
    start("{\"delay_ms\": 300}", NULL);
    tw_client *c = client(0);
    tw_http_response r;
    cr_assert_eq(post(c, S_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    cr_assert_geq(r.elapsed_ms, 280);
    tw_http_response_free(&r);
    tw_client_free(c);
}

Test(mock, fault_drop_mid_stream)
{
    start("{\"drop_after_events\": 2}", NULL);
    tw_client *c = client(2);
    tw_http_response r;
    cr_assert_eq(post(c, S_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    cr_assert_neq(r.transport_error[0], 0, "the drop is reported");
    cr_assert_eq(r.nattempts, 1, "a stream that broke after its headers is not retried");
    cr_assert(strstr(r.body.data, "call_1"));
    cr_assert_null(strstr(r.body.data, "[DONE]"));
    tw_http_response_free(&r);
    tw_client_free(c);
}

Test(mock, fault_truncated_sse)
{
    start("{\"truncate_sse_after_bytes\": 100}", NULL);
    tw_client *c = client(0);
    tw_http_response r;
    cr_assert_eq(post(c, S_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.body.len, 100);
    cr_assert_str_eq(r.transport_error, "");
    tw_http_response_free(&r);
    tw_client_free(c);
}

Test(mock, fault_malformed_chunk)
{
    start("{\"malformed_chunk_at\": 1}", NULL);
    tw_client *c = client(0);
    tw_http_response r;
    cr_assert_eq(post(c, S_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body.data, "data: {\"choices\": [{\"delta\": {\"content\": \"x\"\n\n"));
    cr_assert_null(strstr(r.body.data, "call_1"), "the tool-call event was replaced");
    tw_http_response_free(&r);
    tw_client_free(c);
}

Test(mock, fault_429_retry_after_honoured)
{
    start("{\"status\": 429, \"retry_after\": 1}", NULL);
    tw_client *c = client(2);
    tw_http_response r;
    cr_assert_eq(post(c, S_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.nattempts, 2);
    cr_assert_eq(r.attempts[0].status, 429);
    cr_assert_eq(r.attempts[0].retry_after_ms, 1000);
    cr_assert_eq(r.attempts[0].waited_ms, 1000);
    cr_assert_geq(r.elapsed_ms, 1000);
    tw_mock_record *rec;
    size_t n;
    tw_mock_records(mock, 0, &rec, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(rec[0].status, 429);
    cr_assert(rec[0].fault);
    cr_assert_eq(tw_check_set_get(&rec[1].checks, TW_CHK_CLI_07)->verdict, TW_V_PASS);
    tw_mock_records_free(rec, n);
    tw_http_response_free(&r);
    tw_client_free(c);
}

Test(mock, fault_503_from_server_option_and_early_retry)
{
    start(NULL, "{\"status\": 503, \"retry_after\": 2}");
    tw_client *c = client(0); /* no retries: the 503 comes back as is */
    tw_http_response r;
    cr_assert_eq(post(c, NS_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 503);
    cr_assert_str_eq(tw_kv_get(r.headers, r.nheaders, "retry-after"), "2");
    cr_assert(strstr(r.body.data, "\"error\""));
    tw_http_response_free(&r);
    /* retrying at once ignores Retry-After: CLI-07 fails */
    cr_assert_eq(post(c, NS_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    tw_mock_record *rec;
    size_t n;
    tw_mock_records(mock, 1, &rec, &n);
    cr_assert_eq(n, 1);
    const tw_check_result *c7 = tw_check_set_get(&rec[0].checks, TW_CHK_CLI_07);
    cr_assert_eq(c7->verdict, TW_V_FAIL, "%s", c7->evidence);
    tw_mock_records_free(rec, n);
    tw_http_response_free(&r);
    tw_client_free(c);
}

#define THREADS 8
#define PER_THREAD 25

static void *worker(void *arg)
{
    long *ok = arg;
    tw_client_opts o;
    memset(&o, 0, sizeof o);
    o.base_url = tw_mock_url(mock);
    o.max_retries = 0;
    tw_client *c = tw_client_new(&o);
    for (int i = 0; c && i < PER_THREAD; i++) {
        tw_http_response r;
        const char *b = (i % 2) ? S_BODY : NS_BODY;
        if (post(c, b, &r) == TW_OK && r.status == 200 &&
            strstr(r.body.data, (i % 2) ? "[DONE]" : "chat.completion"))
            (*ok)++;
        tw_http_response_free(&r);
    }
    tw_client_free(c);
    return NULL;
}

Test(mock, concurrent_clients)
{
    start(NULL, NULL);
    pthread_t t[THREADS];
    long ok[THREADS] = {0};
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, worker, &ok[i]), 0);
    long total = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        total += ok[i];
    }
    cr_assert_eq(total, THREADS * PER_THREAD);
    cr_assert_eq(tw_mock_seq(mock), (unsigned long)(THREADS * PER_THREAD));
    tw_mock_record *rec;
    size_t n;
    tw_mock_records(mock, 0, &rec, &n);
    cr_assert_eq(n, (size_t)(THREADS * PER_THREAD));
    /* records are kept in completion order; every sequence number once */
    bool seen[THREADS * PER_THREAD + 1] = {false};
    for (size_t i = 0; i < n; i++) {
        cr_assert(rec[i].seq >= 1 && rec[i].seq <= (unsigned long)(THREADS * PER_THREAD));
        cr_assert_not(seen[rec[i].seq]);
        seen[rec[i].seq] = true;
        cr_assert_str_eq(rec[i].fixture, "t/loop");
    }
    tw_mock_records_free(rec, n);
}

Test(mock, profiles)
{
    load_fixture(NULL);
    cr_assert(tw_mock_profile_fits("replay", &fx));
    cr_assert_not(tw_mock_profile_fits("hermes", &fx));
    cr_assert_not(tw_mock_profile_known("nope"));
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.profile = "nope";
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_mock_start(&fx, 1, &o, &mock, &why), TW_ERR_INVALID);
    cr_assert_null(mock);
}
