/* The OpenAI Responses checks (ORS-*, CLI-* on Responses requests), on crafted exchanges. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "judge.h"
#include "twtest.h"

#define RSP "/v1/responses"
#define REQ                                                                                        \
    "{\"input\":\"hi\",\"tools\":[{\"type\":\"function\",\"name\":\"f\",\"parameters\":{\"type\":" \
    "\"object\"}}]}"
#define SREQ                                                                                       \
    "{\"input\":\"hi\",\"stream\":true,\"tools\":[{\"type\":\"function\",\"name\":\"f\","          \
    "\"parameters\":{\"type\":\"object\"}}]}"

static tw_verdict judge_l(const char *path, const char *req, const char *body, bool sse,
                          const tw_limits *L, tw_check_id id, char *ev, size_t evn)
{
    return tw_test_judge(path, req, 200, body, sse, L, id, ev, evn, false);
}

static tw_verdict judge(const char *req, const char *body, bool sse, tw_check_id id, char *ev,
                        size_t evn)
{
    return judge_l(RSP, req, body, sse, NULL, id, ev, evn);
}

#define FC(cid, name, args)                                                                        \
    "{\"type\":\"function_call\",\"id\":\"fc_" cid "\",\"call_id\":\"" cid "\",\"name\":\"" name   \
    "\",\"arguments\":" args "}"
#define BODY(out, st, extra)                                                                       \
    "{\"object\":\"response\",\"status\":\"" st "\",\"output\":[" out "]" extra "}"

Test(responses, path_kind)
{
    cr_assert_eq(tw_path_kind("/v1/responses"), 'r');
    cr_assert_eq(tw_path_kind("/openai/v1/responses?api-version=1"), 'r');
    cr_assert_eq(tw_path_kind("/v1/chat/completions"), 'o');
    cr_assert_eq(tw_path_kind("/v1/myresponses"), 0);
}

Test(responses, body_good_and_bad)
{
    char ev[400];
    const char *good = BODY(FC("c1", "f", "\"{\\\"x\\\":1}\""), "completed",
                            ",\"incomplete_details\":null,\"error\":null");
    static const tw_check_id pass[] = {TW_CHK_ORS_01, TW_CHK_ORS_05, TW_CHK_ORS_06, TW_CHK_ORS_08,
                                       TW_CHK_ORS_09};
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
        cr_assert_eq(judge(REQ, good, false, pass[i], ev, sizeof ev), TW_V_PASS, "%s: %s",
                     tw_check_name(pass[i]), ev);
    cr_assert_eq(judge(REQ, good, false, TW_CHK_ORS_02, NULL, 0), TW_V_SKIP);
    cr_assert_eq(judge(REQ, good, false, TW_CHK_OAI_R01, NULL, 0), TW_V_SKIP);
    /* a chat.completion where a response object is due */
    cr_assert_eq(judge(REQ, "{\"object\":\"chat.completion\",\"choices\":[]}", false, TW_CHK_ORS_01,
                       ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "chat.completion"), "%s", ev);
    /* call_id missing, undeclared name, repeated call_id */
    cr_assert_eq(judge(REQ,
                       BODY("{\"type\":\"function_call\",\"name\":\"f\",\"arguments\":\"{}\"}",
                            "completed", ""),
                       false, TW_CHK_ORS_05, ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "call_id"), "%s", ev);
    cr_assert_eq(judge(REQ, BODY(FC("c1", "g", "\"{}\""), "completed", ""), false, TW_CHK_ORS_05,
                       ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "g is not a function tool"), "%s", ev);
    cr_assert_eq(judge(REQ,
                       BODY(FC("c1", "f", "\"{}\"") "," FC("c1", "f", "\"{}\""), "completed", ""),
                       false, TW_CHK_ORS_05, ev, sizeof ev),
                 TW_V_FAIL);
    cr_assert(strstr(ev, "given to two calls"), "%s", ev);
    /* arguments */
    cr_assert_eq(judge(REQ, BODY(FC("c1", "f", "\"{\\\"x\\\":\""), "completed", ""), false,
                       TW_CHK_ORS_06, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(
        judge(REQ, BODY(FC("c1", "f", "{}"), "completed", ""), false, TW_CHK_ORS_06, NULL, 0),
        TW_V_FAIL);
    cr_assert_eq(
        judge(REQ, BODY(FC("c1", "f", "\"[1]\""), "completed", ""), false, TW_CHK_ORS_06, NULL, 0),
        TW_V_FAIL);
    /* status */
    cr_assert_eq(
        judge(REQ,
              BODY("", "completed", ",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}"),
              false, TW_CHK_ORS_08, NULL, 0),
        TW_V_FAIL);
    cr_assert_eq(judge(REQ, BODY("", "incomplete", ",\"incomplete_details\":null"), false,
                       TW_CHK_ORS_08, NULL, 0),
                 TW_V_FAIL);
    cr_assert_eq(
        judge(REQ,
              BODY("", "incomplete", ",\"incomplete_details\":{\"reason\":\"max_output_tokens\"}"),
              false, TW_CHK_ORS_08, NULL, 0),
        TW_V_PASS);
    const char *failed =
        BODY("", "failed", ",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}");
    cr_assert_eq(judge(REQ, failed, false, TW_CHK_ORS_08, NULL, 0), TW_V_PASS);
    cr_assert_eq(judge(REQ, failed, false, TW_CHK_ORS_09, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "boom"), "%s", ev);
}

#define EV(t, rest) "event: " t "\ndata: {\"type\":\"" t "\"" rest "}\n\n"
#define CREATED(n)                                                                                 \
    EV("response.created", ",\"sequence_number\":" n ",\"response\":{\"status\":\"in_progress\"}")
#define ADDED(n, i, id)                                                                            \
    EV("response.output_item.added",                                                               \
       ",\"sequence_number\":" n ",\"output_index\":" i                                            \
       ",\"item\":{\"type\":\"function_call\",\"id\":\"" id "\",\"call_id\":\"c_" id               \
       "\",\"name\":\"f\",\"arguments\":\"\"}")
#define DELTA(n, i, id, d)                                                                         \
    EV("response.function_call_arguments.delta", ",\"sequence_number\":" n ",\"output_index\":" i  \
                                                 ",\"item_id\":\"" id "\",\"delta\":\"" d "\"")
#define ADONE(n, i, id, a)                                                                         \
    EV("response.function_call_arguments.done", ",\"sequence_number\":" n ",\"output_index\":" i   \
                                                ",\"item_id\":\"" id "\",\"arguments\":\"" a "\"")
#define IDONE(n, i, id, a)                                                                         \
    EV("response.output_item.done",                                                                \
       ",\"sequence_number\":" n ",\"output_index\":" i                                            \
       ",\"item\":{\"type\":\"function_call\",\"id\":\"" id "\",\"call_id\":\"c_" id               \
       "\",\"name\":\"f\",\"arguments\":\"" a "\"}")
#define COMPLETED(n)                                                                               \
    EV("response.completed",                                                                       \
       ",\"sequence_number\":" n                                                                   \
       ",\"response\":{\"status\":\"completed\",\"incomplete_details\":null,\"error\":null}")

static const char good_stream[] =
    CREATED("0") ADDED("1", "0", "fc1") DELTA("2", "0", "fc1", "{\\\"x\\\":")
        DELTA("3", "0", "fc1", "1}") ADONE("4", "0", "fc1", "{\\\"x\\\":1}")
            IDONE("5", "0", "fc1", "{\\\"x\\\":1}") COMPLETED("6");

Test(responses, stream_good)
{
    char ev[400];
    for (size_t i = 0; i < 9; i++) {
        tw_check_id id = (tw_check_id)(TW_CHK_ORS_01 + i);
        cr_assert_eq(judge(SREQ, good_stream, true, id, ev, sizeof ev), TW_V_PASS, "%s: %s",
                     tw_check_name(id), ev);
    }
    cr_assert_eq(judge(SREQ, good_stream, true, TW_CHK_OAI_S01, NULL, 0), TW_V_SKIP);
}

Test(responses, stream_failures)
{
    char ev[400];
    /* sequence numbers out of order */
    const char *seq = CREATED("0") ADDED("1", "0", "fc1") DELTA("3", "0", "fc1", "{\\\"x\\\":")
        DELTA("2", "0", "fc1", "1}") ADONE("4", "0", "fc1", "{\\\"x\\\":1}")
            IDONE("5", "0", "fc1", "{\\\"x\\\":1}") COMPLETED("6");
    cr_assert_eq(judge(SREQ, seq, true, TW_CHK_ORS_03, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "sequence_number 2 after 3"), "%s", ev);
    cr_assert_eq(judge(SREQ, seq, true, TW_CHK_ORS_07, NULL, 0), TW_V_PASS);
    /* not created first */
    const char *late =
        ADDED("1", "0", "fc1") CREATED("2") IDONE("3", "0", "fc1", "{}") COMPLETED("4");
    cr_assert_eq(judge(SREQ, late, true, TW_CHK_ORS_02, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "not response.created"), "%s", ev);
    /* a delta for an index never added */
    const char *unknown = CREATED("0") ADDED("1", "0", "fc1") DELTA("2", "1", "fc9", "{}")
        IDONE("3", "0", "fc1", "{}") COMPLETED("4");
    cr_assert_eq(judge(SREQ, unknown, true, TW_CHK_ORS_04, NULL, 0), TW_V_FAIL);
    cr_assert_eq(judge(SREQ, unknown, true, TW_CHK_ORS_02, NULL, 0), TW_V_FAIL);
    /* an item_id other than the added item's */
    const char *wrong_id = CREATED("0") ADDED("1", "0", "fc1") DELTA("2", "0", "fc2", "{}")
        ADONE("3", "0", "fc1", "{}") IDONE("4", "0", "fc1", "{}") COMPLETED("5");
    cr_assert_eq(judge(SREQ, wrong_id, true, TW_CHK_ORS_04, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "fc2"), "%s", ev);
    /* .done differs from the deltas, and the done item from .done */
    const char *differ = CREATED("0") ADDED("1", "0", "fc1") DELTA("2", "0", "fc1", "{\\\"x\\\":1}")
        ADONE("3", "0", "fc1", "{\\\"x\\\":2}") IDONE("4", "0", "fc1", "{\\\"x\\\":2}")
            COMPLETED("5");
    cr_assert_eq(judge(SREQ, differ, true, TW_CHK_ORS_07, ev, sizeof ev), TW_V_FAIL);
    const char *item_differs = CREATED("0") ADDED("1", "0", "fc1") DELTA("2", "0", "fc1", "{}")
        ADONE("3", "0", "fc1", "{}") IDONE("4", "0", "fc1", "{\\\"x\\\":2}") COMPLETED("5");
    cr_assert_eq(judge(SREQ, item_differs, true, TW_CHK_ORS_07, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "done item"), "%s", ev);
    /* no terminal event; events after it */
    const char *open = CREATED("0") ADDED("1", "0", "fc1") IDONE("2", "0", "fc1", "{}");
    cr_assert_eq(judge(SREQ, open, true, TW_CHK_ORS_02, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "no terminal event"), "%s", ev);
    cr_assert_eq(judge(SREQ, open, true, TW_CHK_ORS_08, NULL, 0), TW_V_SKIP);
    const char *after = CREATED("0") COMPLETED("1") CREATED("2");
    cr_assert_eq(judge(SREQ, after, true, TW_CHK_ORS_02, NULL, 0), TW_V_FAIL);
    /* an error event; a terminal event whose status disagrees */
    const char *err = CREATED("0")
        EV("error", ",\"sequence_number\":1,\"code\":\"server_error\",\"message\":\"overloaded\"");
    cr_assert_eq(judge(SREQ, err, true, TW_CHK_ORS_09, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "overloaded"), "%s", ev);
    const char *mismatch = CREATED("0")
        EV("response.completed", ",\"sequence_number\":1,\"response\":{\"status\":\"incomplete\","
                                 "\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}");
    cr_assert_eq(judge(SREQ, mismatch, true, TW_CHK_ORS_08, NULL, 0), TW_V_FAIL);
    /* the event name and the type disagree; not an event stream */
    const char *named =
        "event: response.in_progress\ndata: {\"type\":\"response.created\"}\n\n" COMPLETED("1");
    cr_assert_eq(judge(SREQ, named, true, TW_CHK_ORS_01, NULL, 0), TW_V_FAIL);
    cr_assert_eq(judge(SREQ, good_stream, false, TW_CHK_ORS_01, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "Content-Type"), "%s", ev);
}

Test(responses, output_items_capped_by_the_limits)
{
    /* max_calls 1: at most 2 x 1 + 16 = 18 output items */
    tw_limits L = {0};
    L.max_calls = 1;
    char *s = malloc(64 * 200 + 512);
    cr_assert(s);
    size_t n = (size_t)sprintf(s, "%s", CREATED("0"));
    for (int i = 0; i < 19; i++)
        n += (size_t)sprintf(
            s + n,
            "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\","
            "\"output_index\":%d,\"item\":{\"type\":\"message\",\"id\":\"m%d\"}}\n\n",
            i, i);
    char ev[400];
    cr_assert_eq(judge_l(RSP, SREQ, s, true, &L, TW_CHK_ORS_04, ev, sizeof ev), TW_V_FAIL);
    cr_assert(strstr(ev, "more than 18 output items"), "%s", ev);
    free(s);
}

static tw_verdict client(const char *body, tw_check_id id)
{
    cJSON *b = cJSON_Parse(body);
    cr_assert(b, "bad test JSON");
    tw_check_set s = {0};
    tw_checks_client(RSP, b, &s);
    const tw_check_result *r = tw_check_set_get(&s, id);
    cr_assert(r, "%s", tw_check_name(id));
    tw_verdict v = r->verdict;
    tw_check_set_free(&s);
    cJSON_Delete(b);
    return v;
}

#define ICALL(cid)                                                                                 \
    "{\"type\":\"function_call\",\"call_id\":\"" cid "\",\"name\":\"f\",\"arguments\":\"{}\"}"
#define IOUT(cid) "{\"type\":\"function_call_output\",\"call_id\":\"" cid "\",\"output\":\"r\"}"
#define IUSER "{\"role\":\"user\",\"content\":\"hi\"}"
#define IASSIST                                                                                    \
    "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\","         \
    "\"text\":\"Looking.\"}]}"
#define IREF(id) "{\"type\":\"item_reference\",\"id\":\"" id "\"}"
#define IREASON(enc) "{\"type\":\"reasoning\",\"id\":\"rs\",\"summary\":[]" enc "}"
#define TOOLS                                                                                      \
    ",\"tools\":[{\"type\":\"function\",\"name\":\"f\",\"parameters\":{\"type\":\"object\"}},{"    \
    "\"type\":\"web_search\"}]"
#define STATELESS ",\"store\":false,\"include\":[\"reasoning.encrypted_content\"]"

Test(responses, client_requests)
{
    const char *good = "{\"input\":[" IUSER
                       "," ICALL("c1") "," IOUT("c1") "]" TOOLS ",\"parallel_tool_calls\":true}";
    static const tw_check_id pass[] = {TW_CHK_CLI_01, TW_CHK_CLI_02, TW_CHK_CLI_03, TW_CHK_CLI_04,
                                       TW_CHK_CLI_06};
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
        cr_assert_eq(client(good, pass[i]), TW_V_PASS, "%s", tw_check_name(pass[i]));
    cr_assert_eq(client(good, TW_CHK_CLI_05), TW_V_SKIP);
    cr_assert_eq(client(good, TW_CHK_CLI_08), TW_V_SKIP);
    /* an output for no call, an output before its call, a call never answered */
    cr_assert_eq(client("{\"input\":[" IUSER "," ICALL("c1") "," IOUT("c9") "]}", TW_CHK_CLI_01),
                 TW_V_FAIL);
    cr_assert_eq(client("{\"input\":[" IUSER "," IOUT("c1") "," ICALL("c1") "]}", TW_CHK_CLI_01),
                 TW_V_FAIL);
    cr_assert_eq(client("{\"input\":[" IUSER "," ICALL("c1") "," IUSER "]}", TW_CHK_CLI_02),
                 TW_V_FAIL);
    /* pending calls at the very end are allowed */
    cr_assert_eq(client("{\"input\":[" IUSER "," ICALL("c1") "," ICALL("c2") "]}", TW_CHK_CLI_02),
                 TW_V_PASS);
    /* previous_response_id keeps the calls on the server */
    cr_assert_eq(
        client("{\"previous_response_id\":\"resp_1\",\"input\":[" IOUT("c1") "]}", TW_CHK_CLI_01),
        TW_V_SKIP);
    cr_assert_eq(client("{\"input\":[],\"tools\":[{\"type\":\"function\",\"name\":\"bad name\"}]}",
                        TW_CHK_CLI_03),
                 TW_V_FAIL);
    cr_assert_eq(client("{\"input\":[{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\","
                        "\"arguments\":{}}," IOUT("c1") "]}",
                        TW_CHK_CLI_04),
                 TW_V_FAIL);
    cr_assert_eq(client("{\"input\":[]" TOOLS "}", TW_CHK_CLI_06), TW_V_FAIL);
    /* encrypted reasoning under store: false */
    cr_assert_eq(client("{\"input\":[" IUSER
                        "," IREASON(",\"encrypted_content\":\"gAAA\"") "," ICALL("c1") "," IOUT(
                            "c1") "]" STATELESS "}",
                        TW_CHK_CLI_08),
                 TW_V_PASS);
    cr_assert_eq(client("{\"input\":[" IUSER "," ICALL("c1") "," IOUT("c1") "]" STATELESS "}",
                        TW_CHK_CLI_08),
                 TW_V_FAIL);
    cr_assert_eq(client("{\"input\":[" IUSER
                        "," IREASON("") "," ICALL("c1") "," IOUT("c1") "],\"store\":false}",
                        TW_CHK_CLI_08),
                 TW_V_FAIL);
    cr_assert_eq(client("{\"input\":[" IUSER "," ICALL("c1") "," IOUT("c1") "]}", TW_CHK_CLI_08),
                 TW_V_SKIP);
    /* output order is reasoning, the assistant's message, then the calls: the
     * message is part of the turn; a user message ends it */
    cr_assert_eq(client("{\"input\":[" IUSER
                        "," IREASON(",\"encrypted_content\":\"gAAA\"") "," IASSIST "," ICALL(
                            "c1") "," IOUT("c1") "]" STATELESS "}",
                        TW_CHK_CLI_08),
                 TW_V_PASS);
    cr_assert_eq(
        client("{\"input\":[" IREASON(",\"encrypted_content\":\"gAAA\"") "," IUSER "," ICALL(
                   "c1") "," IOUT("c1") "]" STATELESS "}",
               TW_CHK_CLI_08),
        TW_V_FAIL);
    /* an item_reference stands for a stored item (the AI SDK with store on
     * sends its calls so): an output after one is not judged by input alone */
    cr_assert_eq(
        client("{\"input\":[" IUSER "," IREF("fc_0") "," IOUT("call_1") "]}", TW_CHK_CLI_01),
        TW_V_PASS);
    cr_assert_eq(
        client("{\"input\":[" IUSER "," IOUT("call_1") "," IREF("fc_0") "]}", TW_CHK_CLI_01),
        TW_V_FAIL);
    /* chat requests skip it */
    cJSON *b = cJSON_Parse("{\"messages\":[]}");
    tw_check_set s = {0};
    tw_checks_client("/v1/chat/completions", b, &s);
    cr_assert_eq(tw_check_set_get(&s, TW_CHK_CLI_08)->verdict, TW_V_SKIP);
    tw_check_set_free(&s);
    cJSON_Delete(b);
}
