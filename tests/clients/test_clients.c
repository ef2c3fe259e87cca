/* Client conformance: the driver protocol, the client checks CLT-* on canned driver outputs,
 * the driver process limits, and whole runs with stand-in drivers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "clients.h"
#include "report.h"
#include "decode_fixtures.h"
#include "twtest.h"

/* ---- helpers ---- */

#define OREQ                                                                                       \
    "{\"method\":\"POST\",\"path\":\"/v1/chat/"                                                    \
    "completions\",\"body\":{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}" \
    "]}}"
#define OREQ_RESULTS                                                                               \
    "{\"method\":\"POST\",\"path\":\"/v1/chat/"                                                    \
    "completions\",\"body\":{\"model\":\"m\",\"messages\":[{\"role\":\"user\","                    \
    "\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\"," \
    "\"type\":\"function\","                                                                       \
    "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":"   \
    "\"c1\",\"content\":\"ok\"}]}}"
#define STREAM_RESP "{\"status\":200,\"events\":[{\"data\":\"[DONE]\"}]}"
#define WHOLE_RESP "{\"status\":200,\"body\":{\"x\":1}}"
#define RESULT                                                                                     \
    "{\"result\":{\"content\":\"Let me check.\",\"thinking\":\"I "                                 \
    "think.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":"                                            \
    "\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}],\"finish_reason\":\"tool_calls\"}}"

static tw_fixture fx;

/* One fixture of one exchange: request, response, expect.client, faults (may be NULL). */
static const tw_fx_exchange *exchange(const char *req, const char *resp, const char *client,
                                      const char *faults)
{
    char *text = NULL;
    int n = asprintf(
        &text,
        "{\"fixture_version\":1,\"name\":\"t/x\",\"description\":\"d\",\"backend\":\"openai\","
        "\"tags\":[\"clients\"],\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":[{"
        "\"request\":%s,"
        "\"response\":%s,\"expect\":{\"client\":%s}%s%s}]}",
        req, resp, client, faults ? ",\"faults\":" : "", faults ? faults : "");
    cr_assert(n > 0);
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_parse(text, strlen(text), "t.json", NULL, &fx, &why), TW_OK, "%s",
                 why.message);
    free(text);
    return &fx.exchanges[0];
}

static tw_check_set judged;

/* Judge a canned driver output; returns the verdict of id, evidence into ev. */
static tw_verdict judge(const tw_fx_exchange *x, const char *out, const tw_mock_record *recs,
                        size_t nrec, tw_check_id id, char *ev, size_t evn)
{
    cJSON *o = cJSON_Parse(out);
    cr_assert(o, "canned output parses");
    /* the two keys every output carries (tested apart), when a canned one leaves them out */
    if (!cJSON_GetObjectItem(o, "tool_calls"))
        cJSON_AddArrayToObject(o, "tool_calls");
    if (!cJSON_GetObjectItem(o, "error"))
        cJSON_AddNullToObject(o, "error");
    tw_error why = {.offset = -1};
    cr_assert(tw_driver_output_valid(o, &why), "%s", why.message);
    tw_check_set_free(&judged);
    tw_clients_judge(x, o, recs, nrec, &judged);
    cJSON_Delete(o);
    /* every client-library check has a verdict */
    for (tw_check_id k = TW_CHK_CLT_01; k <= TW_CHK_CLT_07; k++)
        cr_assert(tw_check_set_get(&judged, k), "%s has a verdict", tw_check_name(k));
    const tw_check_result *r = tw_check_set_get(&judged, id);
    if (ev)
        snprintf(ev, evn, "%s", r->evidence);
    return r->verdict;
}

static void fini(void)
{
    tw_check_set_free(&judged);
    tw_fixture_free(&fx);
}

TestSuite(clients, .fini = fini);

#define GOOD                                                                                       \
    "{\"content\":\"Let me check.\",\"reasoning\":\"I "                                            \
    "think.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"get_weather\","                            \
    "\"arguments\":{\"city\":\"Paris\"}}],\"finish_reason\":\"tool_calls\",\"error\":null,"        \
    "\"requests\":1}"
/* what @langchain/openai hands on after a stream cut inside the arguments */
#define LANGCHAIN_CUT                                                                              \
    "{\"content\":\"\",\"reasoning\":null,\"tool_calls\":[{\"id\":\"c1\",\"name\":\"get_"          \
    "weather\",\"arguments\":{}}],"                                                                \
    "\"finish_reason\":\"tool_calls\",\"error\":null,\"requests\":1}"
/* what the ai SDK hands on after the same cut */
#define AISDK_CUT                                                                                  \
    "{\"content\":\"\",\"reasoning\":null,\"tool_calls\":[{\"id\":\"c1\",\"name\":\"get_"          \
    "weather\",\"arguments\":\"\"}],"                                                              \
    "\"finish_reason\":\"other\",\"error\":null,\"requests\":1}"
#define HUNG                                                                                       \
    "{\"content\":null,\"reasoning\":null,\"tool_calls\":[],\"finish_reason\":null,\"error\":{"    \
    "\"type\":\"DriverTimeout\","                                                                  \
    "\"message\":\"the client returned nothing within 20000 ms\",\"status\":null},\"requests\":1}"
#define RAISED                                                                                     \
    "{\"content\":null,\"reasoning\":null,\"tool_calls\":[],\"finish_reason\":null,\"error\":{"    \
    "\"type\":\"APIError\","                                                                       \
    "\"message\":\"terminated\",\"status\":null},\"requests\":1}"

/* ---- the protocol ---- */

Test(clients, describe_parse)
{
    tw_driver_info d;
    tw_error why = {.offset = -1};
    const char *good =
        "{\"protocol\":1,\"client\":\"openai\",\"version\":\"6.49.0\",\"endpoint\":\"openai\","
        "\"modes\":[\"create\",\"stream\"]}";
    cr_assert(tw_driver_describe_parse(good, strlen(good), &d, &why), "%s", why.message);
    cr_assert_str_eq(d.client, "openai");
    cr_assert_eq(d.nmodes, 2);
    cr_assert_str_eq(d.modes[1], "stream");
    static const char *const bad[] = {
        "[]",
        "{\"protocol\":2,\"client\":\"a\",\"version\":\"1\",\"endpoint\":\"openai\",\"modes\":["
        "\"x\"]}",
        "{\"protocol\":1,\"client\":\"a\",\"version\":\"1\",\"endpoint\":\"vllm\",\"modes\":[\"x\"]"
        "}",
        "{\"protocol\":1,\"client\":\"a\",\"version\":\"1\",\"endpoint\":\"openai\",\"modes\":[]}",
        "{\"protocol\":1,\"client\":\"a\",\"version\":\"1\",\"endpoint\":\"openai\",\"modes\":[\"a "
        "b\"]}",
        "{\"protocol\":1,\"client\":\"a\",\"version\":\"1\",\"endpoint\":\"openai\",\"modes\":["
        "\"x\",\"x\"]}",
        "{\"protocol\":1,\"client\":\"a\",\"version\":\"1\",\"endpoint\":\"openai\",\"modes\":"
        "[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]}",
        "{\"protocol\":1,\"version\":\"1\",\"endpoint\":\"openai\",\"modes\":[\"x\"]}",
        NULL};
    for (size_t i = 0; bad[i]; i++)
        cr_assert_not(tw_driver_describe_parse(bad[i], strlen(bad[i]), &d, &why), "%s", bad[i]);
}

Test(clients, output_valid_and_modes)
{
    tw_error why = {.offset = -1};
    cJSON *o = cJSON_Parse(GOOD);
    cr_assert(tw_driver_output_valid(o, &why));
    cJSON_Delete(o);
    static const char *const bad[] = {
        "[]",
        "{\"content\":1,\"tool_calls\":[],\"error\":null}",
        "{\"tool_calls\":{},\"error\":null}",
        "{\"tool_calls\":[1],\"error\":null}",
        "{\"error\":\"x\",\"tool_calls\":[]}",
        "{\"tool_calls\":[{\"id\":1}],\"error\":null}",
        "{\"tool_calls\":[{\"id\":\"a\",\"invalid\":\"yes\"}],\"error\":null}",
        "{\"tool_calls\":[{\"id\":\"a\",\"invalid\":true,\"invalid_reason\":5}],\"error\":null}",
        NULL};
    for (size_t i = 0; bad[i]; i++) {
        o = cJSON_Parse(bad[i]);
        cr_assert_not(tw_driver_output_valid(o, &why), "%s", bad[i]);
        cJSON_Delete(o);
    }
    /* leaving out tool_calls or error is the driver's failure: it would read as "no call", "no
     * error" */
    static const char *const partial[] = {"{\"content\":\"hi\",\"error\":null}",
                                          "{\"content\":\"hi\",\"tool_calls\":[]}", NULL};
    static const char *const missing[] = {"\"tool_calls\" is missing", "\"error\" is missing"};
    for (size_t i = 0; partial[i]; i++) {
        o = cJSON_Parse(partial[i]);
        cr_assert_not(tw_driver_output_valid(o, &why), "%s", partial[i]);
        cr_assert(strstr(why.message, missing[i]), "%s", why.message);
        cJSON_Delete(o);
    }
    o = cJSON_Parse("{\"tool_calls\":null,\"error\":null}");
    cr_assert(tw_driver_output_valid(o, &why), "null is none: %s", why.message);
    cJSON_Delete(o);
    cr_assert(tw_driver_mode_streams("stream"));
    cr_assert(tw_driver_mode_streams("streamText"));
    cr_assert_not(tw_driver_mode_streams("create"));
    cr_assert_not(tw_driver_mode_streams("generateText"));
}

Test(clients, expect_client_loaded_and_validated)
{
    const tw_fx_exchange *x = exchange(OREQ, WHOLE_RESP, RESULT, NULL);
    cr_assert(x->expect_client);
    tw_fixture_free(&fx);
    static const char *const bad[] = {
        "{}",
        "{\"raises\":false}",
        "{\"raises\":1}",
        "{\"raises\":true,\"result\":{}}",
        "{\"result\":{\"tool_calls\":[{\"id\":\"a\"}]}}",
        "{\"result\":{\"tool_calls\":[{\"name\":\"a\",\"arguments\":3}]}}",
        "{\"result\":{\"content\":3}}",
        "{\"raises\":true,\"why\":1}",
        NULL};
    for (size_t i = 0; bad[i]; i++) {
        char *text = NULL;
        cr_assert(
            asprintf(&text,
                     "{\"fixture_version\":1,\"name\":\"t/"
                     "x\",\"description\":\"d\",\"backend\":\"openai\",\"provenance\":{\"source\":"
                     "\"hand-made\"},\"exchanges\":[{\"request\":%s,\"expect\":{\"client\":%s}}]}",
                     OREQ, bad[i]) > 0);
        tw_error why = {.offset = -1};
        tw_fixture f;
        cr_assert_neq(tw_fixture_parse(text, strlen(text), "t.json", NULL, &f, &why), TW_OK, "%s",
                      bad[i]);
        cr_assert(strstr(why.message, "expect.client"), "%s names expect.client: %s", bad[i],
                  why.message);
        free(text);
    }
}

Test(clients, every_scenario_loads)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("fixtures/clients"), ".json", &files);
    cr_assert_geq(n, 20, "the client scenarios are there");
    long raises = 0, cut = 0;
    for (long i = 0; i < n; i++) {
        tw_fixture f;
        tw_error why = {.offset = -1};
        cr_assert_eq(tw_fixture_load(files[i], NULL, &f, &why), TW_OK, "%s", why.message);
        cr_assert(tw_fixture_has_tag(&f, "clients"), "%s is tagged clients", files[i]);
        for (size_t k = 0; k < f.nexchanges; k++) {
            cr_assert(f.exchanges[k].expect_client, "%s#%zu has expect.client", files[i], k);
            raises += cJSON_IsTrue(cJSON_GetObjectItem(f.exchanges[k].expect_client, "raises"));
            cut += f.exchanges[k].faults &&
                   cJSON_GetObjectItem(f.exchanges[k].faults, "truncate_sse_after_bytes");
        }
        tw_fixture_free(&f);
    }
    tw_free_list(files, n);
    cr_assert_geq(raises, 8);
    cr_assert_eq(cut, 2, "a stream cut inside the arguments for each endpoint");
}

/* ---- the checks ---- */

Test(clients, result_surfaced_whole)
{
    const tw_fx_exchange *x = exchange(OREQ, WHOLE_RESP, RESULT, NULL);
    char ev[600];
    cr_assert_eq(judge(x, GOOD, NULL, 0, TW_CHK_CLT_01, ev, sizeof ev), TW_V_PASS, "%s", ev);
    cr_assert_eq(judge(x, GOOD, NULL, 0, TW_CHK_CLT_02, NULL, 0), TW_V_PASS);
    cr_assert_eq(judge(x, GOOD, NULL, 0, TW_CHK_CLT_03, NULL, 0), TW_V_PASS);
    cr_assert_eq(judge(x, GOOD, NULL, 0, TW_CHK_CLT_04, NULL, 0), TW_V_SKIP);
    /* arguments as the JSON string the SDK hands on are the same arguments */
    const char *str =
        "{\"content\":\"Let me check.\",\"reasoning\":\"I think.\",\"tool_calls\":[{\"id\":\"c1\","
        "\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": "
        "\\\"Paris\\\"}\"}],\"error\":null}";
    cr_assert_eq(judge(x, str, NULL, 0, TW_CHK_CLT_01, ev, sizeof ev), TW_V_PASS, "%s", ev);
}

Test(clients, result_calls_wrong)
{
    const tw_fx_exchange *x = exchange(OREQ, WHOLE_RESP, RESULT, NULL);
    char ev[600];
    /* arguments replaced by {} */
    cr_assert_eq(judge(x, LANGCHAIN_CUT, NULL, 0, TW_CHK_CLT_01, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "wrong arguments"), "%s", ev);
    cr_assert(strstr(ev, "{\"city\":\"Paris\"}"), "the right arguments are in the evidence: %s",
              ev);
    /* another id, another name, a missing call, an extra call */
    const char *id =
        "{\"content\":\"Let me check.\",\"tool_calls\":[{\"id\":\"zz\",\"name\":\"get_weather\","
        "\"arguments\":{\"city\":\"Paris\"}}]}";
    cr_assert_eq(judge(x, id, NULL, 0, TW_CHK_CLT_01, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "wrong id"), "%s", ev);
    const char *name = "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"get_time\",\"arguments\":{"
                       "\"city\":\"Paris\"}}]}";
    cr_assert_eq(judge(x, name, NULL, 0, TW_CHK_CLT_01, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "wrong name"), "%s", ev);
    cr_assert_eq(judge(x, "{\"content\":\"Let me check.\",\"tool_calls\":[]}", NULL, 0,
                       TW_CHK_CLT_01, ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "0 calls handed on, 1 sent"), "%s", ev);
    const char *two = "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"get_weather\",\"arguments\":{"
                      "\"city\":\"Paris\"}},"
                      "{\"id\":\"c2\",\"name\":\"f\",\"arguments\":{}}]}";
    cr_assert_eq(judge(x, two, NULL, 0, TW_CHK_CLT_01, NULL, 0), TW_V_FAIL);
    /* raising where a result is right fails the result checks */
    cr_assert_eq(judge(x, RAISED, NULL, 0, TW_CHK_CLT_01, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "raised APIError"), "%s", ev);
    cr_assert_eq(judge(x, RAISED, NULL, 0, TW_CHK_CLT_02, NULL, 0), TW_V_FAIL);
    cr_assert_eq(judge(x, RAISED, NULL, 0, TW_CHK_CLT_03, NULL, 0), TW_V_FAIL);
}

Test(clients, content_and_reasoning)
{
    const tw_fx_exchange *x = exchange(OREQ, WHOLE_RESP, RESULT, NULL);
    char ev[600];
    const char *changed =
        "{\"content\":\"Let me\",\"reasoning\":\"k.\",\"tool_calls\":[{\"id\":\"c1\",\"name\":"
        "\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}]}";
    cr_assert_eq(judge(x, changed, NULL, 0, TW_CHK_CLT_02, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "\"Let me\"") && strstr(ev, "\"Let me check.\""), "%s", ev);
    cr_assert_eq(judge(x, changed, NULL, 0, TW_CHK_CLT_03, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "\"k.\""), "%s", ev);
    const char *dropped =
        "{\"content\":\"Let me check.\",\"reasoning\":null,\"tool_calls\":[{\"id\":\"c1\",\"name\":"
        "\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}]}";
    cr_assert_eq(judge(x, dropped, NULL, 0, TW_CHK_CLT_03, NULL, 0), TW_V_FAIL);
    cr_assert_eq(judge(x, dropped, NULL, 0, TW_CHK_CLT_01, NULL, 0), TW_V_PASS);
    tw_fixture_free(&fx);
    /* no reasoning sent: nothing to keep */
    x = exchange(OREQ, WHOLE_RESP, "{\"result\":{\"content\":\"hi\"}}", NULL);
    cr_assert_eq(judge(x, "{\"content\":\"hi\"}", NULL, 0, TW_CHK_CLT_03, NULL, 0), TW_V_SKIP);
    cr_assert_eq(judge(x, "{\"content\":\"hi\"}", NULL, 0, TW_CHK_CLT_01, NULL, 0), TW_V_PASS);
}

Test(clients, cut_stream_must_raise)
{
    const tw_fx_exchange *x =
        exchange(OREQ, STREAM_RESP, "{\"raises\":true}", "{\"truncate_sse_after_bytes\":600}");
    char ev[600];
    /* the silent acceptance of a truncated call: {} arguments, or "" input with finish "other" */
    cr_assert_eq(judge(x, LANGCHAIN_CUT, NULL, 0, TW_CHK_CLT_04, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "returned 1 call: c1 get_weather({})"), "%s", ev);
    cr_assert_eq(judge(x, AISDK_CUT, NULL, 0, TW_CHK_CLT_04, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "get_weather(\"\")") && strstr(ev, "finish \"other\""), "%s", ev);
    cr_assert_eq(judge(x, AISDK_CUT, NULL, 0, TW_CHK_CLT_05, NULL, 0), TW_V_SKIP);
    cr_assert_eq(judge(x, AISDK_CUT, NULL, 0, TW_CHK_CLT_01, NULL, 0), TW_V_SKIP);
    cr_assert_eq(judge(x, RAISED, NULL, 0, TW_CHK_CLT_04, ev, sizeof ev), TW_V_PASS);
    cr_assert(strstr(ev, "raised APIError"), "%s", ev);
    /* the driver's watchdog is no raise: a library that hung fails */
    cr_assert_eq(judge(x, HUNG, NULL, 0, TW_CHK_CLT_04, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "the library hung"), "%s", ev);
    tw_fixture_free(&fx);
    x = exchange(OREQ, STREAM_RESP, "{\"raises\":true}", "{\"malformed_chunk_at\":1}");
    cr_assert_eq(judge(x, GOOD, NULL, 0, TW_CHK_CLT_04, NULL, 0), TW_V_FAIL);
    cr_assert_eq(judge(x, RAISED, NULL, 0, TW_CHK_CLT_04, NULL, 0), TW_V_PASS);
}

/* A call the library flagged invalid (the AI SDK's invalid: true, LangChain's invalid_tool_calls)
 * is still a call handed on: the verdicts stand, the evidence says the library flagged it. */
Test(clients, flagged_invalid_calls)
{
    const tw_fx_exchange *x =
        exchange(OREQ, STREAM_RESP, "{\"raises\":true}", "{\"truncate_sse_after_bytes\":600}");
    char ev[600];
    const char *flagged =
        "{\"content\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"get_weather\",\"arguments\":"
        "\"{\\\"city\\\"\",\"invalid\":true,\"invalid_reason\":\"InvalidToolInputError: Invalid "
        "input\"}],"
        "\"finish_reason\":\"unknown\",\"error\":null}";
    cr_assert_eq(judge(x, flagged, NULL, 0, TW_CHK_CLT_04, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "[flagged invalid: \"InvalidToolInputError: Invalid input\"]"), "%s", ev);
    /* not flagged: no mark */
    cr_assert_eq(judge(x, AISDK_CUT, NULL, 0, TW_CHK_CLT_04, ev, sizeof ev), TW_V_FAIL);
    cr_assert_null(strstr(ev, "flagged"), "%s", ev);
    tw_fixture_free(&fx);
    /* arguments that are not JSON, handed on as the string and flagged: the right call */
    x = exchange(OREQ, WHOLE_RESP,
                 "{\"result\":{\"content\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\","
                 "\"arguments\":\"city=Paris\"}]}}",
                 NULL);
    const char *str = "{\"content\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\","
                      "\"arguments\":\"city=Paris\","
                      "\"invalid\":true}],\"error\":null}";
    cr_assert_eq(judge(x, str, NULL, 0, TW_CHK_CLT_01, ev, sizeof ev), TW_V_PASS, "%s", ev);
    cr_assert(strstr(ev, "f(\"city=Paris\") [flagged invalid]"), "%s", ev);
}

Test(clients, error_event_must_raise)
{
    const tw_fx_exchange *x = exchange(OREQ, STREAM_RESP, "{\"raises\":true}", NULL);
    char ev[600];
    cr_assert_eq(judge(x, LANGCHAIN_CUT, NULL, 0, TW_CHK_CLT_05, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "error event"), "%s", ev);
    cr_assert_eq(judge(x, LANGCHAIN_CUT, NULL, 0, TW_CHK_CLT_04, NULL, 0), TW_V_SKIP);
    cr_assert_eq(judge(x, RAISED, NULL, 0, TW_CHK_CLT_05, NULL, 0), TW_V_PASS);
}

Test(clients, may_raise)
{
    const tw_fx_exchange *x = exchange(OREQ, WHOLE_RESP,
                                       "{\"may_raise\":true,\"result\":{\"tool_calls\":[{\"id\":"
                                       "\"c1\",\"name\":\"f\",\"arguments\":\"{a: 1\"}]}}",
                                       NULL);
    cr_assert_eq(judge(x, RAISED, NULL, 0, TW_CHK_CLT_01, NULL, 0), TW_V_SKIP);
    const char *raw = "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"arguments\":\"{a: 1\"}]}";
    cr_assert_eq(judge(x, raw, NULL, 0, TW_CHK_CLT_01, NULL, 0), TW_V_PASS);
    const char *empty = "{\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"arguments\":{}}]}";
    cr_assert_eq(judge(x, empty, NULL, 0, TW_CHK_CLT_01, NULL, 0), TW_V_FAIL);
}

static tw_mock_record rec(tw_check_id id, tw_verdict v, const char *ev)
{
    tw_mock_record r;
    memset(&r, 0, sizeof r);
    r.status = 200;
    tw_check_set_put(&r.checks, id, v, -1, "%s", ev);
    return r;
}

Test(clients, retry_after_from_the_mock)
{
    const tw_fx_exchange *x =
        exchange(OREQ, WHOLE_RESP, RESULT, "{\"status\":429,\"retry_after\":1}");
    char ev[600];
    tw_mock_record r[2] = {
        rec(TW_CHK_CLI_07, TW_V_SKIP, "no Retry-After pending"),
        rec(TW_CHK_CLI_07, TW_V_PASS, "retried after the 1000 ms Retry-After asked")};
    cr_assert_eq(judge(x, GOOD, r, 2, TW_CHK_CLT_06, ev, sizeof ev), TW_V_PASS);
    cr_assert(strstr(ev, "1000 ms"), "%s", ev);
    tw_check_set_free(&r[1].checks);
    r[1] = rec(TW_CHK_CLI_07, TW_V_FAIL, "retried 980 ms early (Retry-After asked 1000 ms)");
    cr_assert_eq(judge(x, GOOD, r, 2, TW_CHK_CLT_06, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "980 ms early"), "%s", ev);
    /* no retry: nothing to honour */
    cr_assert_eq(judge(x, RAISED, r, 1, TW_CHK_CLT_06, NULL, 0), TW_V_SKIP);
    tw_check_set_free(&r[0].checks);
    tw_check_set_free(&r[1].checks);
    tw_fixture_free(&fx);
    x = exchange(OREQ, WHOLE_RESP, RESULT, NULL);
    cr_assert_eq(judge(x, GOOD, NULL, 0, TW_CHK_CLT_06, NULL, 0), TW_V_SKIP);
}

Test(clients, tool_results_ids_from_the_mock)
{
    const tw_fx_exchange *x =
        exchange(OREQ_RESULTS, WHOLE_RESP, "{\"result\":{\"content\":\"done\"}}", NULL);
    char ev[600];
    tw_mock_record r = rec(TW_CHK_CLI_01, TW_V_PASS, "");
    tw_check_set_put(&r.checks, TW_CHK_CLI_02, TW_V_PASS, -1, "%s", "answered");
    cr_assert_eq(judge(x, "{\"content\":\"done\"}", &r, 1, TW_CHK_CLT_07, ev, sizeof ev), TW_V_PASS,
                 "%s", ev);
    tw_check_set_put(&r.checks, TW_CHK_CLI_01, TW_V_FAIL, -1,
                     "messages[2].tool_call_id \"c9\" names no call");
    cr_assert_eq(judge(x, "{\"content\":\"done\"}", &r, 1, TW_CHK_CLT_07, ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "CLI-01") && strstr(ev, "c9"), "%s", ev);
    /* nothing reached the mock */
    cr_assert_eq(judge(x, RAISED, NULL, 0, TW_CHK_CLT_07, NULL, 0), TW_V_SKIP);
    tw_check_set_free(&r.checks);
    tw_fixture_free(&fx);
    /* no results in the request */
    x = exchange(OREQ, WHOLE_RESP, "{\"result\":{\"content\":\"done\"}}", NULL);
    cr_assert_eq(judge(x, "{\"content\":\"done\"}", NULL, 0, TW_CHK_CLT_07, NULL, 0), TW_V_SKIP);
}

/* ---- the driver process ---- */

Test(clients, proc_stdin_stdout_exit)
{
    tw_proc_result r;
    cr_assert_eq(tw_proc_run("sh -c 'cat; echo log >&2; exit 3'", "--run", "hello", 5, 10000, 1000,
                             1000, &r),
                 TW_OK);
    cr_assert_str_eq(r.out, "hello");
    cr_assert_str_eq(r.err, "log\n");
    cr_assert_eq(r.exit_code, 3);
    cr_assert_not(r.timed_out);
    tw_proc_result_free(&r);
    /* the argument reaches the command */
    cr_assert_eq(tw_proc_run("printf %s", "--describe", "", 0, 10000, 1000, 1000, &r), TW_OK);
    cr_assert_str_eq(r.out, "--describe");
    cr_assert_eq(r.exit_code, 0);
    tw_proc_result_free(&r);
}

Test(clients, proc_killed_at_deadline)
{
    tw_proc_result r;
    /* a child of the driver holds stdout too: the whole group is killed */
    cr_assert_eq(tw_proc_run("sleep 30 & sleep 30 #", "--run", "", 0, 300, 1000, 1000, &r), TW_OK);
    cr_assert(r.timed_out);
    cr_assert_eq(r.exit_code, -1);
    tw_proc_result_free(&r);
}

Test(clients, proc_output_capped)
{
    tw_proc_result r;
    /* endless output: killed at the stdout cap, not read forever */
    cr_assert_eq(tw_proc_run("yes #", "--run", "", 0, 60000, 4096, 1000, &r), TW_OK);
    cr_assert(r.overflow);
    cr_assert_leq(r.out_len, 4096);
    tw_proc_result_free(&r);
    /* endless log: kept up to its cap, drained, the driver still finishes */
    cr_assert_eq(tw_proc_run("sh -c 'head -c 300000 /dev/zero >&2; echo done'", "--run", "", 0,
                             60000, 4096, 1000, &r),
                 TW_OK);
    cr_assert_eq(r.err_len, 1000);
    cr_assert(r.err_cut);
    cr_assert_str_eq(r.out, "done\n");
    tw_proc_result_free(&r);
    /* a driver that never reads a big input does not block the run */
    size_t big = 1 << 20;
    char *in = malloc(big);
    memset(in, 'x', big);
    cr_assert_eq(tw_proc_run("echo early; true", "--run", in, big, 60000, 4096, 1000, &r), TW_OK);
    cr_assert_str_eq(r.out, "early\n");
    cr_assert_eq(r.exit_code, 0);
    tw_proc_result_free(&r);
    free(in);
}

/* ---- whole runs with stand-in drivers ---- */

static char dir[] = "/tmp/tw-clients-XXXXXX";

/* A driver script that describes itself as an openai client and answers every run with out. */
static void write_driver(const char *path, const char *out)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f,
            "if [ \"$1\" = --describe ]; then echo "
            "'{\"protocol\":1,\"client\":\"stand-in\",\"version\":\"1\","
            "\"endpoint\":\"openai\",\"modes\":[\"create\",\"stream\"]}'; exit 0; fi\ncat "
            ">/dev/null\n%s\n",
            out);
    fclose(f);
}

static cJSON *load_report(const char *name)
{
    char p[400];
    tw_error why = {.offset = -1};
    snprintf(p, sizeof p, "%s/out/%s.json", dir, name);
    cJSON *j = tw_load_json_file(p, 1 << 24, 64, &why);
    cr_assert(j, "%s", why.message);
    return j;
}

/* The verdict of check id in the report's row of fixture name. */
static const char *verdict_of(const cJSON *rep, const char *name, const char *id,
                              const char **evidence)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(rep, "fixtures"))
    {
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "name")), name) != 0)
            continue;
        const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(f, "exchanges"), 0), *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(e, "checks"))
        {
            if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "id")), id) == 0) {
                if (evidence)
                    *evidence = cJSON_GetStringValue(cJSON_GetObjectItem(c, "evidence"));
                return cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
            }
        }
    }
    return NULL;
}

Test(clients, run_reports_silent_truncation)
{
    cr_assert(mkdtemp(dir));
    char drv[300], out[300], spec[700];
    snprintf(drv, sizeof drv, "%s/driver.sh", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    write_driver(drv, "echo '" LANGCHAIN_CUT "'");
    snprintf(spec, sizeof spec, "sh %s", drv);
    tw_client_spec c = {"stand-in", spec};
    char *paths[] = {(char *)tw_test_src("fixtures/clients/openai_stream_cut_in_arguments.json")};
    tw_clients_opts o;
    memset(&o, 0, sizeof o);
    o.quiet = true;
    cr_assert_eq(tw_clients_run_all(&c, 1, paths, 1, out, &o), 1, "a failing check fails the run");
    cJSON *rep = load_report("stand-in");
    const char *ev = NULL;
    const char *v =
        verdict_of(rep, "clients/openai_stream_cut_in_arguments [stream]", "CLT-04", &ev);
    cr_assert(v && strcmp(v, "fail") == 0, "CLT-04 fails: %s", v ? v : "(no row)");
    cr_assert(ev && strstr(ev, "get_weather({})"), "%s", ev ? ev : "");
    cJSON_Delete(rep);
    for (const char *const *k = (const char *const[]){"md", "junit.xml", "html", NULL}; *k; k++) {
        char p[400];
        struct stat sb;
        snprintf(p, sizeof p, "%s/stand-in.%s", out, *k);
        cr_assert_eq(stat(p, &sb), 0, "%s written", p);
    }
    char p[400];
    struct stat sb;
    snprintf(p, sizeof p, "%s/comparison.md", out);
    cr_assert_eq(stat(p, &sb), 0);
    /* the right behaviour passes */
    write_driver(drv, "echo '" RAISED "'");
    cr_assert_eq(tw_clients_run_all(&c, 1, paths, 1, out, &o), 0);
    rep = load_report("stand-in");
    v = verdict_of(rep, "clients/openai_stream_cut_in_arguments [stream]", "CLT-04", NULL);
    cr_assert(v && strcmp(v, "pass") == 0);
    cJSON_Delete(rep);
}

Test(clients, run_driver_failures_are_not_verdicts)
{
    cr_assert(mkdtemp(dir));
    char drv[300], out[300], spec[700];
    snprintf(drv, sizeof drv, "%s/driver.sh", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(spec, sizeof spec, "sh %s", drv);
    tw_client_spec c = {"stand-in", spec};
    char *paths[] = {(char *)tw_test_src("fixtures/clients/openai_single_call.json")};
    tw_clients_opts o;
    memset(&o, 0, sizeof o);
    o.quiet = true;
    o.timeout_ms = 1500;
    static const char *const bodies[] = {"echo crashed >&2; exit 4",
                                         "echo not json",
                                         "echo '{\"content\":5}'",
                                         "sleep 30",
                                         "echo '{\"content\":\"x\",\"tool_calls\":[]}'",
                                         NULL};
    static const char *const why[] = {"exited with status 4",
                                      "did not print one JSON object",
                                      "broke the protocol",
                                      "ran past 1500 ms",
                                      "broke the protocol: \"error\" is missing",
                                      NULL};
    for (size_t i = 0; bodies[i]; i++) {
        write_driver(drv, bodies[i]);
        cr_assert_eq(tw_clients_run_all(&c, 1, paths, 1, out, &o), 1, "%s", bodies[i]);
        cJSON *rep = load_report("stand-in");
        const cJSON *e = cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(rep, "fixtures"), 0),
                                "exchanges"),
            0);
        const cJSON *res = cJSON_GetObjectItem(e, "result");
        cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(res, "verdict")), "fail");
        const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(res, "detail"));
        cr_assert(d && strstr(d, "driver failure") && strstr(d, why[i]), "%s: %s", bodies[i],
                  d ? d : "");
        const char *v = verdict_of(rep, "clients/openai_single_call [whole]", "CLT-01", NULL);
        cr_assert(v && strcmp(v, "skip") == 0, "no verdict on a driver failure");
        cJSON_Delete(rep);
    }
    /* a driver whose --describe breaks the protocol is not run */
    FILE *f = fopen(drv, "w");
    fprintf(f, "echo '{\"protocol\":7}'\n");
    fclose(f);
    cr_assert_eq(tw_clients_run_all(&c, 1, paths, 1, out, &o), 2);
}
