/* The check catalog and the checks, on crafted exchanges. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "redact.h"
#include "cli.h"
#include "fixture.h"
#include "judge.h"
#include "twtest.h"

static tw_kv json_ct[] = {{"content-type", "application/json"}};
static tw_kv sse_ct[] = {{"content-type", "text/event-stream"}};

static tw_verdict judge(const char *path, const char *req, int status, const char *body, bool sse,
                        tw_check_id id, char *ev, size_t evn)
{
    return tw_test_judge(path, req, status, body, sse, NULL, id, ev, evn, true);
}

#define OAI "/v1/chat/completions"
#define REQ                                                                                        \
    "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[{\"type\":\"function\","    \
    "\"function\":{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{"     \
    "\"type\":\"integer\"}},\"required\":[\"x\"]}}}]}"
#define MSG(tc, fr)                                                                                \
    "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"             \
    "\"assistant\",\"content\":null" tc "},\"finish_reason\":\"" fr "\"}]}"
#define CALL(id, name, args)                                                                       \
    "{\"id\":\"" id "\",\"type\":\"function\",\"function\":{\"name\":\"" name                      \
    "\",\"arguments\":" args "}}"

Test(checks, catalog_matches_docs)
{
    size_t n;
    const tw_check_def *d = tw_checks_catalog(&n);
    cr_assert_eq(n, (size_t)TW_CHK_COUNT);
    cr_assert_geq(n, 64, "no check leaves the catalog (ids are never reused)");
    for (size_t i = 0; i < n; i++) {
        /* entry i is the enumerator i, found by its string, once */
        cr_assert_eq((size_t)d[i].chk, i);
        cr_assert_eq(tw_check_def_of(d[i].chk), &d[i]);
        cr_assert_str_eq(tw_check_name(d[i].chk), d[i].id);
        cr_assert_eq(tw_check_index(d[i].id), (int)i, "%s is listed once", d[i].id);
        tw_check_id back;
        cr_assert(tw_check_from_name(d[i].id, &back) && back == d[i].chk);
        /* the client flag follows the family */
        cr_assert_eq(d[i].client, d[i].family == TW_CHF_CLIENT || d[i].family == TW_CHF_CLIENT_LIB,
                     "%s", d[i].id);
    }
    tw_check_id none;
    cr_assert_not(tw_check_from_name("OAI-R40", &none));
    cr_assert_not(tw_check_from_name(NULL, &none));
    tw_error why = {.offset = -1};
    size_t len;
    char *text = tw_read_file(tw_test_src("docs/checks.md"), 1 << 20, &len, &why);
    cr_assert(text, "%s", why.message);
    /* every "| ID |" row of docs/checks.md has a catalog entry, and the other way round */
    size_t rows = 0;
    for (char *p = text; (p = strstr(p, "\n| ")); p++) {
        char id[16];
        if (sscanf(p, "\n| %15[A-Z0-9-] |", id) == 1 && id[0] >= 'A' && strchr(id, '-')) {
            cr_assert(tw_check_find(id), "%s from docs/checks.md is in the catalog", id);
            rows++;
        }
    }
    cr_assert_eq(rows, n);
    free(text);
}

Test(checks, catalog_documented)
{
    tw_error why = {.offset = -1};
    size_t len;
    char *text = tw_read_file(tw_test_src("docs/checks.md"), 1 << 20, &len, &why);
    cr_assert(text, "%s", why.message);
    size_t n;
    const tw_check_def *d = tw_checks_catalog(&n);
    for (size_t i = 0; i < n; i++) {
        char row[32];
        snprintf(row, sizeof row, "\n| %s |", d[i].id);
        cr_assert(strstr(text, row), "%s has a row in docs/checks.md", d[i].id);
    }
    free(text);
}

Test(checks, openai_response_good)
{
    const char *b = MSG(",\"tool_calls\":[" CALL("a", "f", "\"{\\\"x\\\": 1}\"") "]", "tool_calls");
    for (tw_check_id id = TW_CHK_OAI_R01; id <= TW_CHK_OAI_R07; id++)
        cr_assert_eq(judge(OAI, REQ, 200, b, false, id, NULL, 0), TW_V_PASS, "%s",
                     tw_check_name(id));
    cr_assert_eq(judge(OAI, REQ, 200, b, false, TW_CHK_OAI_S01, NULL, 0), TW_V_SKIP);
    cr_assert_eq(judge(OAI, REQ, 200, b, false, TW_CHK_OAI_E01, NULL, 0), TW_V_SKIP);
}

Test(checks, openai_response_failures)
{
    char ev[600];
    cr_assert_eq(judge(OAI, REQ, 200, "{\"object\":\"x\"}", false, TW_CHK_OAI_R01, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(
        judge(OAI, REQ, 200,
              MSG(",\"tool_calls\":[" CALL("a", "f", "\"{}\"") "," CALL("a", "f", "\"{}\"") "]",
                  "tool_calls"),
              false, TW_CHK_OAI_R02, ev, sizeof ev),
        TW_V_FAIL);
    cr_assert(strstr(ev, "repeated"));
    cr_assert_eq(judge(OAI, REQ, 200,
                       MSG(",\"tool_calls\":[" CALL("a", "g", "\"{}\"") "]", "tool_calls"), false,
                       TW_CHK_OAI_R03, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(judge(OAI, REQ, 200,
                       MSG(",\"tool_calls\":[" CALL("a", "f", "{\"x\":1}") "]", "tool_calls"),
                       false, TW_CHK_OAI_R04, ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "not a string"));
    cr_assert_eq(
        judge(OAI, REQ, 200,
              MSG(",\"tool_calls\":[" CALL("a", "f", "\"\\\"{\\\\\\\"x\\\\\\\": 1}\\\"\"") "]",
                  "tool_calls"),
              false, TW_CHK_OAI_R04, ev, sizeof ev),
        TW_V_FAIL);
    cr_assert(strstr(ev, "double-encoded"), "%s", ev);
    cr_assert_eq(judge(OAI, REQ, 200,
                       MSG(",\"tool_calls\":[" CALL("a", "f", "\"{\\\"x\\\": \\\"1\\\"}\"") "]",
                           "tool_calls"),
                       false, TW_CHK_OAI_R05, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(judge(OAI, REQ, 200,
                       MSG(",\"tool_calls\":[" CALL("a", "f", "\"{\\\"x\\\": 1}\"") "]", "stop"),
                       false, TW_CHK_OAI_R06, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(
        judge(OAI, REQ, 200,
              "{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"role\":\"assistant\","
              "\"content\":\"ok <tool_call>{}</tool_call>\"},\"finish_reason\":\"stop\"}]}",
              false, TW_CHK_OAI_R07, ev, sizeof ev),
        TW_V_FAIL);
    cr_assert(strstr(ev, "<tool_call>"));
    cr_assert_eq(
        judge(OAI, REQ, 200,
              "{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"role\":\"assistant\","
              "\"content\":\"ok\",\"reasoning_content\":\"r\"},\"finish_reason\":\"stop\"}]}",
              false, TW_CHK_OAI_R08, ev, sizeof ev),
        TW_V_PASS);
    cr_assert(strstr(ev, "reasoning_content"));
}

/* Evidence quotes a backend's text scrubbed first and cut after: a key
 * echoed across the 120-byte cut of an error message leaves no part. */
Test(checks, evidence_is_scrubbed_before_the_cut)
{
    const char *key = "twK3y_T3stSecr/AbC+dEf=Gh1jKq";
    tw_secret_reset();
    cr_assert_eq(tw_secret_add(key), TW_OK);
    for (size_t pad = 95; pad <= 125; pad += 5) {
        char body[400], ev[600];
        int o = snprintf(body, sizeof body, "{\"error\":{\"message\":\"");
        memset(body + o, 'M', pad);
        snprintf(body + o + pad, sizeof body - o - pad,
                 "%s\",\"type\":\"t\",\"param\":null,\"code\":null}}", key);
        cr_assert_eq(judge(OAI, REQ, 401, body, false, TW_CHK_OAI_E01, ev, sizeof ev), TW_V_PASS);
        cr_expect(!strstr(ev, "twK3y_T3"), "pad %zu: %s", pad, ev);
        const char *m = strchr(ev, '[');
        if (m)
            cr_expect(strncmp(m, "[REDACTED]", 10) == 0, "pad %zu: %s", pad, ev);
    }
    tw_secret_reset();
}

Test(checks, openai_error_envelope)
{
    cr_assert_eq(
        judge(OAI, REQ, 400,
              "{\"error\":{\"message\":\"m\",\"type\":\"t\",\"param\":null,\"code\":null}}", false,
              TW_CHK_OAI_E01, NULL, 0),
        TW_V_PASS);
    cr_assert_eq(judge(OAI, REQ, 500, "{\"detail\":\"boom\"}", false, TW_CHK_OAI_E01, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(
        judge(OAI, REQ, 429, "{\"error\":{\"message\":\"m\"}}", false, TW_CHK_OAI_E01, NULL, 0),
        TW_V_FAIL);
}

#define CH(delta)                                                                                  \
    "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" delta       \
    "}]}\n\n"
#define CHF(fr)                                                                                    \
    "data: "                                                                                       \
    "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_"       \
    "reason\":\"" fr "\"}]}\n\n"
#define TC(i, id, name, args)                                                                      \
    "{\"tool_calls\":[{\"index\":" #i id name ",\"function\":{" args "}}]}"
#define SREQ                                                                                       \
    "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[{\"type\":" \
    "\"function\",\"function\":{\"name\":\"f\"}}]}"

static const char good_stream[] = CH("{\"role\":\"assistant\"}")
    CH("{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":"
       "\"f\",\"arguments\":\"{\\\"x\\\":\"}}]}")
        CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\" 1}\"}}]}")
            CH("{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"type\":\"function\",\"function\":{"
               "\"name\":\"f\",\"arguments\":\"{\\\"x\\\": 2}\"}}]}")
                CHF("tool_calls") "data: "
                                  "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
                                  "\"total_tokens\":3}}\n\n"
                                  "data: [DONE]\n\n";

Test(checks, openai_stream_good)
{
    static const tw_check_id pass[] = {TW_CHK_OAI_S01, TW_CHK_OAI_S02, TW_CHK_OAI_S03,
                                       TW_CHK_OAI_S04, TW_CHK_OAI_S05, TW_CHK_OAI_S06,
                                       TW_CHK_OAI_S08, TW_CHK_OAI_R03, TW_CHK_OAI_R06};
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
        cr_assert_eq(judge(OAI, SREQ, 200, good_stream, true, pass[i], NULL, 0), TW_V_PASS, "%s",
                     tw_check_name(pass[i]));
    cr_assert_eq(judge(OAI, SREQ, 200, good_stream, true, TW_CHK_OAI_S07, NULL, 0), TW_V_SKIP);
}

Test(checks, openai_stream_failures)
{
    char ev[600];
    cr_assert_eq(judge(OAI, SREQ, 200, good_stream, false, TW_CHK_OAI_S01, ev, sizeof ev),
                 TW_V_FAIL, "content type");
    cr_assert_eq(judge(OAI, SREQ, 200, CH("{\"role\":\"assistant\",\"content\":\"x\"}") CHF("stop"),
                       true, TW_CHK_OAI_S01, ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "[DONE]"));
    cr_assert_eq(judge(OAI, SREQ, 200, "data: {oops\n\n" CHF("stop") "data: [DONE]\n\n", true,
                       TW_CHK_OAI_S01, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(judge(OAI, SREQ, 200, CH("{\"content\":\"x\"}") CHF("stop") "data: [DONE]\n\n",
                       true, TW_CHK_OAI_S02, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(judge(OAI, SREQ, 200,
                       CH("{\"tool_calls\":[{\"id\":\"a\",\"type\":\"function\",\"function\":{"
                          "\"name\":\"f\",\"arguments\":\"{}\"}}]}")
                           CHF("tool_calls") "data: [DONE]\n\n",
                       true, TW_CHK_OAI_S03, ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "without index"));
    cr_assert_eq(judge(OAI, SREQ, 200,
                       CH("{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"type\":\"function\","
                          "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\"\"}}]}")
                           CHF("tool_calls") "data: [DONE]\n\n",
                       true, TW_CHK_OAI_S04, NULL, 0),
                 TW_V_FAIL);
    const char *reuse = CH("{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"type\":\"function\","
                           "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}")
        CH("{\"tool_calls\":[{\"index\":0,\"id\":\"b\",\"type\":\"function\",\"function\":{"
           "\"name\":\"f\",\"arguments\":\"{}\"}}]}") CHF("tool_calls") "data: [DONE]\n\n";
    cr_assert_eq(judge(OAI, SREQ, 200, reuse, true, TW_CHK_OAI_S05, NULL, 0), TW_V_FAIL);
    cr_assert_eq(judge(OAI, SREQ, 200, reuse, true, TW_CHK_OAI_S04, NULL, 0), TW_V_PASS,
                 "calls split by id");
    cr_assert_eq(judge(OAI, SREQ, 200,
                       CH("{\"content\":\"x\"}") CHF("stop") CHF("stop") "data: [DONE]\n\n", true,
                       TW_CHK_OAI_S06, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(judge(OAI, SREQ, 200,
                       CH("{\"content\":\"x\"}") "data: {\"error\":{\"message\":\"boom\"}}\n\n",
                       true, TW_CHK_OAI_S08, ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "boom"));
}

Test(checks, openai_stream_equals_nonstream)
{
    cJSON *rq = cJSON_Parse(SREQ);
    const char *s = CH("{\"role\":\"assistant\",\"content\":\"He\"}") CH("{\"content\":\"llo\"}")
        CHF("stop") "data: [DONE]\n\n";
    const char *same = "{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"role\":"
                       "\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"stop\"}]}";
    const char *diff = "{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"role\":"
                       "\"assistant\",\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}";
    for (int k = 0; k < 2; k++) {
        tw_judge_input in;
        memset(&in, 0, sizeof in);
        in.path = OAI;
        in.req_body = rq;
        in.status = 200;
        in.resp_headers = sse_ct;
        in.nresp_headers = 1;
        in.body = s;
        in.body_len = strlen(s);
        in.pair_body = k ? diff : same;
        in.pair_len = strlen(in.pair_body);
        tw_check_set set = {0};
        tw_checks_backend(&in, &set);
        cr_assert_eq(tw_check_set_get(&set, TW_CHK_OAI_S07)->verdict, k ? TW_V_FAIL : TW_V_PASS,
                     "%s", tw_check_set_get(&set, TW_CHK_OAI_S07)->evidence);
        tw_check_set_free(&set);
    }
    cJSON_Delete(rq);
}

/* NUM-01: streamed and non-streamed arguments spelled alike */
Test(checks, number_spelling_stream_vs_nonstream)
{
    cJSON *rq = cJSON_Parse(SREQ);
    const char *s =
        CH("{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":"
           "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"v\\\": "
           "9007199254740993, \\\"w\\\": 100}\"}}]}") CHF("tool_calls") "data: [DONE]\n\n";
    const char *same = MSG(
        ",\"tool_calls\":[" CALL("c1", "f", "\"{\\\"v\\\":9007199254740993,\\\"w\\\":100}\"") "]",
        "tool_calls");
    const char *respelled = MSG(
        ",\"tool_calls\":[" CALL("c1", "f", "\"{\\\"v\\\":9007199254740993,\\\"w\\\":100.0}\"") "]",
        "tool_calls");
    for (int k = 0; k < 2; k++) {
        tw_judge_input in;
        memset(&in, 0, sizeof in);
        in.path = OAI;
        in.req_body = rq;
        in.status = 200;
        in.resp_headers = sse_ct;
        in.nresp_headers = 1;
        in.body = s;
        in.body_len = strlen(s);
        in.pair_body = k ? respelled : same;
        in.pair_len = strlen(in.pair_body);
        tw_check_set set = {0};
        tw_checks_backend(&in, &set);
        const tw_check_result *r = tw_check_set_get(&set, TW_CHK_NUM_01);
        cr_assert_eq(r->verdict, k ? TW_V_FAIL : TW_V_PASS, "%s", r->evidence);
        if (k)
            cr_assert(strstr(r->evidence, "/w: 100 vs 100.0"), "%s", r->evidence);
        /* as values they are equal */
        cr_assert_eq(tw_check_set_get(&set, TW_CHK_OAI_S07)->verdict, TW_V_PASS, "%s",
                     tw_check_set_get(&set, TW_CHK_OAI_S07)->evidence);
        tw_check_set_free(&set);
    }
    cr_assert_eq(judge(OAI, SREQ, 200, s, true, TW_CHK_NUM_01, NULL, 0), TW_V_SKIP, "no pair");
    cJSON_Delete(rq);
}

/* NUM-02: the response's numbers against the model text's, by exact value */
Test(checks, number_values_against_model_text)
{
    cJSON *rq = cJSON_Parse(REQ);
    tw_fx_exchange ex;
    memset(&ex, 0, sizeof ex);
    ex.model_text = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 9007199254740993, "
                    "\"y\": [100.0, 1e400]}}\n</tool_call>";
    static const struct {
        const char *args;
        tw_verdict v;
        const char *ev;
    } cases[] = {
        {"\"{\\\"x\\\": 9007199254740993, \\\"y\\\": [100.0, 1e400]}\"", TW_V_PASS, ""},
        {"\"{\\\"x\\\": 9.007199254740993e15, \\\"y\\\": [100, 10e399]}\"", TW_V_PASS, ""},
        {"\"{\\\"x\\\": 9007199254740992, \\\"y\\\": [100.0, 1e400]}\"", TW_V_FAIL,
         "/x: 9007199254740993 vs 9007199254740992"},
        {"\"{\\\"x\\\": 9007199254740993, \\\"y\\\": [100.0, null]}\"", TW_V_PASS, ""},
        {"\"{\\\"x\\\": 9007199254740993, \\\"y\\\": [100.0, 1.7976931348623157e308]}\"", TW_V_FAIL,
         "/y/1: 1e400 vs 1.7976931348623157e308"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[512];
        snprintf(
            body, sizeof body,
            "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
            "\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
            "\"function\":{\"name\":\"f\",\"arguments\":%s}}]},\"finish_reason\":\"tool_calls\"}]}",
            cases[i].args);
        tw_judge_input in;
        memset(&in, 0, sizeof in);
        in.ex = &ex;
        in.path = OAI;
        in.req_body = rq;
        in.status = 200;
        in.resp_headers = json_ct;
        in.nresp_headers = 1;
        in.body = body;
        in.body_len = strlen(body);
        tw_check_set set = {0};
        tw_checks_backend(&in, &set);
        const tw_check_result *r = tw_check_set_get(&set, TW_CHK_NUM_02);
        cr_assert_eq(r->verdict, cases[i].v, "case %zu: %s", i, r->evidence);
        cr_assert(strstr(r->evidence, cases[i].ev), "case %zu: %s", i, r->evidence);
        tw_check_set_free(&set);
    }
    cJSON_Delete(rq);
}

#define ANT "/v1/messages"
#define AEV(t, d) "event: " t "\ndata: " d "\n\n"

Test(checks, anthropic)
{
    const char *ok = "{\"type\":\"message\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"t\","
                     "\"signature\":\"s\"},"
                     "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"f\",\"input\":{\"x\":1}}"
                     "],\"stop_reason\":\"tool_use\"}";
    cr_assert_eq(judge(ANT, "{}", 200, ok, false, TW_CHK_ANT_R01, NULL, 0), TW_V_PASS);
    cr_assert_eq(judge(ANT, "{}", 200, ok, false, TW_CHK_ANT_R02, NULL, 0), TW_V_PASS);
    cr_assert_eq(judge(ANT, "{}", 200, ok, false, TW_CHK_ANT_S03, NULL, 0), TW_V_PASS);
    const char *bad = "{\"type\":\"message\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_"
                      "1\",\"name\":\"f\",\"input\":\"{}\"}],\"stop_reason\":\"end_turn\"}";
    cr_assert_eq(judge(ANT, "{}", 200, bad, false, TW_CHK_ANT_R01, NULL, 0), TW_V_FAIL);
    cr_assert_eq(judge(ANT, "{}", 200, bad, false, TW_CHK_ANT_R02, NULL, 0), TW_V_FAIL);
    const char *stream = AEV("message_start", "{\"type\":\"message_start\",\"message\":{}}") AEV(
        "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\","
        "\"thinking\":\"\"}}") AEV("content_block_stop",
                                   "{\"type\":\"content_block_stop\",\"index\":0}")
        AEV("ping", "{\"type\":\"ping\"}") AEV(
            "content_block_start",
            "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_"
            "use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{}}}")
            AEV("content_block_delta",
                "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_"
                "delta\",\"partial_json\":\"{\\\"x\\\":\"}}")
                AEV("content_block_delta",
                    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_"
                    "json_delta\",\"partial_json\":\" 1}\"}}")
                    AEV("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}")
                        AEV("message_delta",
                            "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}")
                            AEV("message_stop", "{\"type\":\"message_stop\"}");
    cr_assert_eq(judge(ANT, "{\"stream\":true}", 200, stream, true, TW_CHK_ANT_S01, NULL, 0),
                 TW_V_PASS);
    cr_assert_eq(judge(ANT, "{\"stream\":true}", 200, stream, true, TW_CHK_ANT_S02, NULL, 0),
                 TW_V_PASS);
    cr_assert_eq(judge(ANT, "{\"stream\":true}", 200, stream, true, TW_CHK_ANT_S03, NULL, 0),
                 TW_V_FAIL, "unsigned thinking");
    cr_assert_eq(judge(ANT, "{\"stream\":true}", 200, stream, true, TW_CHK_ANT_R02, NULL, 0),
                 TW_V_PASS);
    /* without message_stop */
    char *cut = strdup(stream);
    *strstr(cut, "event: message_stop") = 0;
    cr_assert_eq(judge(ANT, "{\"stream\":true}", 200, cut, true, TW_CHK_ANT_S01, NULL, 0),
                 TW_V_FAIL);
    free(cut);
}

Test(checks, vllm_generate)
{
    const char *req = "{\"max_thinking_tokens\":3,\"max_response_tokens\":100,\"tools\":[{\"name\":"
                      "\"f\",\"parameters\":{\"type\":\"object\",\"required\":[\"x\"]}}]}";
    cr_assert_eq(judge("/generate", req, 200,
                       "{\"thinking\":\"a\",\"response\":\"b\",\"tool_calls\":[]}", false,
                       TW_CHK_VLN_01, NULL, 0),
                 TW_V_PASS);
    cr_assert_eq(judge("/generate", req, 200,
                       "{\"thinking\":\"a\",\"response\":\"\",\"tool_calls\":[{\"id\":\"call_1\","
                       "\"name\":\"f\",\"arguments\":{\"x\":1}}]}",
                       false, TW_CHK_VLN_01, NULL, 0),
                 TW_V_FAIL, "no pre_tool_text");
    cr_assert_eq(judge("/generate", req, 200,
                       "{\"thinking\":\"one two three four\",\"response\":\"b\",\"tool_calls\":[]}",
                       false, TW_CHK_VLN_02, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(judge("/generate", req, 200,
                       "{\"thinking\":\"a\",\"response\":\"\",\"pre_tool_text\":\"\",\"tool_"
                       "calls\":[{\"id\":\"call_1\",\"name\":\"f\",\"arguments\":{}}]}",
                       false, TW_CHK_OAI_R05, NULL, 0),
                 TW_V_FAIL);
}

Test(checks, sessions)
{
    tw_kv strict_nosess[] = {{"X-Tool-Event-Format", "openai"}};
    tw_kv strict[] = {{"X-Tool-Event-Format", "openai"}, {"X-Session-Id", "s1"}};
    const char *cont =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"tool_"
        "calls\":[" CALL(
            "c1", "f",
            "\"{}\"") "]},{\"role\":\"tool\",\"tool_call_id\":\"%s\",\"content\":\"r\"}]}";
    const char *err = "{\"error\":{\"message\":\"bad\",\"type\":\"invalid_request_error\","
                      "\"param\":null,\"code\":null}}";
    const char *final = "{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"role\":"
                        "\"assistant\",\"content\":\"done\"},\"finish_reason\":\"stop\"}]}";
    struct {
        tw_kv *h;
        size_t nh;
        const char *id;
        int status;
        const char *body;
        tw_check_id check;
        tw_verdict want;
    } cases[] = {
        {strict_nosess, 1, "c1", 400, err, TW_CHK_SES_03, TW_V_PASS},
        {strict_nosess, 1, "c1", 200, final, TW_CHK_SES_03, TW_V_FAIL},
        {strict, 2, "c1", 200, final, TW_CHK_SES_01, TW_V_PASS},
        {strict, 2, "c1", 400, err, TW_CHK_SES_01, TW_V_FAIL},
        {strict, 2, "zz", 400, err, TW_CHK_SES_02, TW_V_PASS},
        {strict, 2, "zz", 200, final, TW_CHK_SES_02, TW_V_FAIL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char req[1024];
        snprintf(req, sizeof req, cont, cases[i].id);
        cJSON *rq = cJSON_Parse(req);
        tw_judge_input in;
        memset(&in, 0, sizeof in);
        in.path = OAI;
        in.req_body = rq;
        in.req_headers = cases[i].h;
        in.nreq_headers = cases[i].nh;
        in.status = cases[i].status;
        in.resp_headers = json_ct;
        in.nresp_headers = 1;
        in.body = cases[i].body;
        in.body_len = strlen(cases[i].body);
        tw_check_set s = {0};
        tw_checks_backend(&in, &s);
        cr_assert_eq(tw_check_set_get(&s, cases[i].check)->verdict, cases[i].want, "case %zu: %s",
                     i, tw_check_set_get(&s, cases[i].check)->evidence);
        tw_check_set_free(&s);
        cJSON_Delete(rq);
    }
}

static tw_verdict client(const char *path, const char *body, tw_check_id id)
{
    cJSON *b = cJSON_Parse(body);
    cr_assert(b, "bad test JSON");
    tw_check_set s = {0};
    tw_checks_client(path, b, &s);
    const tw_check_result *r = tw_check_set_get(&s, id);
    cr_assert(r, "%s", tw_check_name(id));
    tw_verdict v = r->verdict;
    tw_check_set_free(&s);
    cJSON_Delete(b);
    return v;
}

Test(checks, client_openai)
{
    const char *good =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"tool_"
        "calls\":[" CALL(
            "c1", "f",
            "\"{}\"") "]},{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"r\"}],\"tools\":"
                      "[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{"
                      "\"type\":\"object\"}}}],\"parallel_tool_calls\":false}";
    static const tw_check_id pass[] = {TW_CHK_CLI_01, TW_CHK_CLI_02, TW_CHK_CLI_03, TW_CHK_CLI_04,
                                       TW_CHK_CLI_06};
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
        cr_assert_eq(client(OAI, good, pass[i]), TW_V_PASS, "%s", tw_check_name(pass[i]));
    cr_assert_eq(client(OAI, good, TW_CHK_CLI_05), TW_V_SKIP);
    cr_assert_eq(
        client(OAI,
               "{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[" CALL(
                   "c1", "f",
                   "\"{}\"") "]},{\"role\":\"tool\",\"tool_call_id\":\"c9\",\"content\":\"r\"}]}",
               TW_CHK_CLI_01),
        TW_V_FAIL);
    cr_assert_eq(client(OAI,
                        "{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[" CALL(
                            "c1", "f", "\"{}\"") "]},{\"role\":\"user\",\"content\":\"?\"}]}",
                        TW_CHK_CLI_02),
                 TW_V_FAIL);
    cr_assert_eq(client(OAI,
                        "{\"messages\":[],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":"
                        "\"bad name\"}}]}",
                        TW_CHK_CLI_03),
                 TW_V_FAIL);
    cr_assert_eq(client(OAI,
                        "{\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[" CALL("c1", "f",
                                                                                       "{}") "]}]}",
                        TW_CHK_CLI_04),
                 TW_V_FAIL);
    cr_assert_eq(
        client(
            OAI,
            "{\"messages\":[],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]}",
            TW_CHK_CLI_06),
        TW_V_FAIL);
}

Test(checks, client_anthropic)
{
    const char *good =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":"
        "[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{}}]},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\","
        "\"content\":\"r\"},{\"type\":\"text\",\"text\":\"go on\"}]}]}";
    cr_assert_eq(client(ANT, good, TW_CHK_CLI_01), TW_V_PASS);
    cr_assert_eq(client(ANT, good, TW_CHK_CLI_02), TW_V_PASS);
    cr_assert_eq(client(ANT, good, TW_CHK_CLI_05), TW_V_PASS);
    const char *text_first =
        "{\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\","
        "\"name\":\"f\",\"input\":{}}]},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"here\"},{\"type\":\"tool_"
        "result\",\"tool_use_id\":\"t1\",\"content\":\"r\"}]}]}";
    cr_assert_eq(client(ANT, text_first, TW_CHK_CLI_05), TW_V_FAIL);
    cr_assert_eq(client(ANT, text_first, TW_CHK_CLI_01), TW_V_PASS);
}

/* CLI-10 on the thinking blocks an Anthropic request sends back. */
static tw_check_set sig_set;

static tw_verdict sig_verdict(const cJSON *body, const tw_fixture *f, size_t xi, bool model_signs,
                              const char **evidence)
{
    tw_checks_client_anthropic(body, f, xi, model_signs, NULL, &sig_set);
    const tw_check_result *c = tw_check_set_get(&sig_set, TW_CHK_CLI_10);
    cr_assert_not_null(c);
    if (evidence)
        *evidence = c->evidence;
    return c->verdict;
}

static cJSON *thinking_block(cJSON *body)
{
    cJSON *asst = cJSON_GetArrayItem(tw_json_get(body, "messages"), 1);
    cJSON *b = cJSON_GetArrayItem(tw_json_get(asst, "content"), 0);
    cr_assert_str_eq(tw_json_get_str(b, "type"), "thinking");
    return b;
}

/* Replayed: the streamed answer's signature_delta is the only signature the
 * second turn may carry; a reference server's signature is the one of the
 * block's text. */
Test(checks, client_thinking_signatures)
{
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(
        tw_fixture_load(tw_test_src("fixtures/anthropic/client_thinking_signature_carried.json"),
                        NULL, &f, &why),
        TW_OK, "%s", why.message);
    cJSON *body = cJSON_Duplicate(f.exchanges[1].req.body, 1);
    const char *ev = NULL;
    cr_expect_eq(sig_verdict(body, &f, 1, false, &ev), TW_V_PASS, "%s", ev);
    /* the first turn: nothing given yet; the first request: nothing sent back */
    cr_expect_eq(sig_verdict(body, &f, 0, false, &ev), TW_V_SKIP, "%s", ev);
    cr_expect_eq(sig_verdict(f.exchanges[0].req.body, &f, 0, false, &ev), TW_V_SKIP, "%s", ev);
    cr_expect_str_eq(ev, "no thinking blocks sent back");
    /* another vendor's signature in its place */
    cJSON *b = thinking_block(body);
    cr_assert(cJSON_ReplaceItemInObject(b, "signature", cJSON_CreateString("CiQBVKhc7ZpQ")));
    cr_expect_eq(sig_verdict(body, &f, 1, false, &ev), TW_V_FAIL, "%s", ev);
    cr_expect(strstr(ev, "messages[1].content[0]") && strstr(ev, "CiQBVKhc7ZpQ"), "%s", ev);
    /* no signature at all */
    cJSON_DeleteItemFromObject(b, "signature");
    cr_expect_eq(sig_verdict(body, &f, 1, false, &ev), TW_V_FAIL, "%s", ev);
    cr_expect(strstr(ev, "without its signature"), "%s", ev);
    /* a reference server: the signature of the text, and no other */
    const char *text = tw_json_get_str(b, "thinking");
    char sig[TW_REF_SIG_MAX];
    tw_chk_ref_signature(text, strlen(text), sig);
    cr_expect_eq(strncmp(sig, "toolwire-sig-", 13), 0, "%s", sig);
    cr_assert(cJSON_AddStringToObject(b, "signature", sig));
    cr_expect_eq(sig_verdict(body, &f, 1, true, &ev), TW_V_PASS, "%s", ev);
    cr_assert(cJSON_ReplaceItemInObject(b, "thinking", cJSON_CreateString("edited thinking")));
    cr_expect_eq(sig_verdict(body, &f, 1, true, &ev), TW_V_FAIL, "%s", ev);
    cr_expect(strstr(ev, "not the one the server gave"), "%s", ev);
    /* a redacted_thinking block goes back with its data */
    cr_assert(cJSON_ReplaceItemInObject(b, "type", cJSON_CreateString("redacted_thinking")));
    cr_expect_eq(sig_verdict(body, &f, 1, true, &ev), TW_V_FAIL, "%s", ev);
    cr_expect(strstr(ev, "without its data"), "%s", ev);
    cr_expect_eq(sig_set.len, 1, "one verdict per check");
    tw_check_set_free(&sig_set);
    cJSON_Delete(body);
    tw_fixture_free(&f);
}

/* CLI-07 is judged with the client checks: the mock hands over when the
 * retry was due and when it came, the live run its own retry log. */
Test(checks, client_retry_after)
{
    tw_check_set s = {0};
    tw_checks_client_retry(0, 0, 5000, &s);
    const tw_check_result *r = tw_check_set_get(&s, TW_CHK_CLI_07);
    cr_assert(r);
    cr_assert_eq(r->verdict, TW_V_SKIP);
    cr_assert_str_eq(r->evidence, "no Retry-After pending");
    /* due at 6000 after asking 1000 ms: at 5020 it is 980 ms early */
    tw_checks_client_retry(6000, 1000, 5020, &s);
    r = tw_check_set_get(&s, TW_CHK_CLI_07);
    cr_assert_eq(r->verdict, TW_V_FAIL);
    cr_assert_str_eq(r->evidence, "retried 980 ms early (Retry-After asked 1000 ms)");
    /* a few ms early is the clock's slack, late is fine */
    tw_checks_client_retry(6000, 1000, 5960, &s);
    cr_assert_eq(tw_check_set_get(&s, TW_CHK_CLI_07)->verdict, TW_V_PASS);
    tw_checks_client_retry(6000, 1000, 7000, &s);
    r = tw_check_set_get(&s, TW_CHK_CLI_07);
    cr_assert_eq(r->verdict, TW_V_PASS);
    cr_assert_str_eq(r->evidence, "retried after the 1000 ms Retry-After asked");
    cr_assert_eq(s.len, 1, "one verdict per check");
    tw_checks_client_retry_waited(-1, -1, &s);
    cr_assert_eq(tw_check_set_get(&s, TW_CHK_CLI_07)->verdict, TW_V_SKIP);
    tw_checks_client_retry_waited(2000, 1500, &s);
    r = tw_check_set_get(&s, TW_CHK_CLI_07);
    cr_assert_eq(r->verdict, TW_V_FAIL);
    cr_assert_str_eq(r->evidence, "waited 1500 ms, Retry-After asked 2000 ms");
    tw_checks_client_retry_waited(2000, 2000, &s);
    cr_assert_eq(tw_check_set_get(&s, TW_CHK_CLI_07)->verdict, TW_V_PASS);
    tw_check_set_free(&s);
}

/* Streams are framed by the library's SSE parser under the limits' caps:
 * CR line ends, a last event without its blank line, and a block without a
 * data line (no event); an event over max_event_bytes is dropped and fails
 * OAI-S01 / ANT-S01 at its offset. */
static tw_verdict judge_capped(const char *path, const char *req, const char *body,
                               size_t max_event, tw_check_id id, char *ev, size_t evn, int64_t *off)
{
    cJSON *rq = cJSON_Parse(req);
    tw_limits L = {0};
    L.max_event_bytes = max_event;
    tw_judge_input in;
    memset(&in, 0, sizeof in);
    in.path = path;
    in.req_body = rq;
    in.status = 200;
    in.resp_headers = sse_ct;
    in.nresp_headers = 1;
    char *exact = tw_test_exact(body, strlen(body));
    in.body = exact;
    in.body_len = strlen(body);
    in.limits = &L;
    tw_check_set s = {0};
    tw_checks_backend(&in, &s);
    const tw_check_result *r = tw_check_set_get(&s, id);
    cr_assert(r, "%s has a verdict", tw_check_name(id));
    tw_verdict v = r->verdict;
    snprintf(ev, evn, "%s", r->evidence);
    *off = r->offset;
    tw_check_set_free(&s);
    free(exact);
    cJSON_Delete(rq);
    return v;
}

Test(checks, streams_framed_by_the_sse_parser)
{
    char ev[600];
    int64_t off;
    /* CR line ends and a final [DONE] without its blank line */
    const char *cr =
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
        "{\"role\":\"assistant\",\"content\":\"x\"}}]}\r\r"
        "event: error\r\r" /* no data line: no event */
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},"
        "\"finish_reason\":\"stop\"}]}\r\rdata: [DONE]";
    cr_assert_eq(judge_capped(OAI, SREQ, cr, 0, TW_CHK_OAI_S01, ev, sizeof ev, &off), TW_V_PASS,
                 "%s", ev);
    cr_assert_eq(judge_capped(OAI, SREQ, cr, 0, TW_CHK_OAI_S08, ev, sizeof ev, &off), TW_V_PASS,
                 "%s", ev);
    /* the second event is over a 200-byte cap: dropped, and S01 says where */
    char big[1024];
    snprintf(big, sizeof big, "%s%s%s", CH("{\"role\":\"assistant\"}"),
             CH("{\"content\":\""
                "0123456789012345678901234567890123456789012345678901234567890123456789"
                "0123456789012345678901234567890123456789012345678901234567890123456789\"}"),
             CHF("stop") "data: [DONE]\n\n");
    size_t first = strlen(CH("{\"role\":\"assistant\"}"));
    cr_assert_eq(judge_capped(OAI, SREQ, big, 0, TW_CHK_OAI_S01, ev, sizeof ev, &off), TW_V_PASS,
                 "%s", ev);
    cr_assert_eq(judge_capped(OAI, SREQ, big, 200, TW_CHK_OAI_S01, ev, sizeof ev, &off), TW_V_FAIL);
    cr_assert_eq(off, (int64_t)first);
    cr_assert_str_eq(ev, "event dropped: SSE event exceeds max_event_bytes");
    const char *ant =
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
        "event: ping\ndata: "
        "{\"type\":\"ping\",\"pad\":"
        "\"01234567890123456789012345678901234567890123456789012345678901234567890123456789\"}\n\n"
        "event: message_delta\ndata: "
        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    cr_assert_eq(
        judge_capped(ANT, "{\"stream\":true}", ant, 0, TW_CHK_ANT_S01, ev, sizeof ev, &off),
        TW_V_PASS, "%s", ev);
    cr_assert_str_eq(ev, "4 events in order");
    cr_assert_eq(
        judge_capped(ANT, "{\"stream\":true}", ant, 70, TW_CHK_ANT_S01, ev, sizeof ev, &off),
        TW_V_FAIL);
    cr_assert_eq(
        off, (int64_t)strlen(
                 "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"));
    cr_assert_str_eq(ev, "event dropped: SSE event exceeds max_event_bytes");
}

/* A literal evidence text is kept by reference while the secret set leaves
 * it as it is, and scrubbed into a copy once the set holds a value it
 * contains: the answer kept for a literal lasts only until the set changes. */
Test(checks, literal_evidence_follows_the_secret_set)
{
    static const char lit[] = "literal evidence naming sk-literal-4242 in passing";
    tw_secret_reset();
    tw_check_set s = {0};
    tw_check_set_put(&s, TW_CHK_CLI_03, TW_V_PASS, -1, lit);
    const tw_check_result *r = tw_check_set_get(&s, TW_CHK_CLI_03);
    cr_assert(r && r->borrowed);
    cr_assert_eq(r->evidence, lit, "kept by reference");
    tw_check_set_put_static(&s, TW_CHK_CLI_04, TW_V_SKIP, -1, lit);
    cr_assert(tw_check_set_get(&s, TW_CHK_CLI_04)->borrowed);
    /* the set learns a value the literal holds: both ways in scrub it now */
    cr_assert_eq(tw_secret_add("sk-literal-4242"), TW_OK);
    tw_check_set_put(&s, TW_CHK_CLI_03, TW_V_FAIL, 3, lit);
    r = tw_check_set_get(&s, TW_CHK_CLI_03);
    cr_assert(!r->borrowed);
    cr_assert_eq(r->verdict, TW_V_FAIL);
    cr_assert_eq(r->offset, 3);
    cr_assert_str_eq(r->evidence, "literal evidence naming [REDACTED] in passing");
    tw_check_set_put_static(&s, TW_CHK_CLI_04, TW_V_SKIP, -1, lit);
    r = tw_check_set_get(&s, TW_CHK_CLI_04);
    cr_assert(!r->borrowed);
    cr_assert_str_eq(r->evidence, "literal evidence naming [REDACTED] in passing");
    cr_assert_eq(s.len, 2, "one verdict per check");
    /* a literal without the value stays by reference with the set not empty */
    tw_check_set_put_static(&s, TW_CHK_CLI_05, TW_V_SKIP, -1, "no tool results");
    cr_assert(tw_check_set_get(&s, TW_CHK_CLI_05)->borrowed);
    /* fill's skips without a reason share one empty text */
    tw_check_set_fill(&s, true, "");
    r = tw_check_set_get(&s, TW_CHK_CLI_01);
    cr_assert(r && r->borrowed);
    cr_assert_str_eq(r->evidence, "");
    tw_check_set_free(&s);
    tw_secret_reset();
}
