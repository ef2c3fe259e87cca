/* DLX-01…05 (harness/checks/checks_dialect.c): a server's answer to model
 * text in a model dialect, judged against what the dialect's reference
 * decoder reads from that text. Each check is shown to pass on a faithful
 * answer and to fail on the answer of a server that misreads the dialect:
 * the call section left in content, the reasoning in content, the model's
 * own call id replaced, finish_reason stop beside a call; and to skip on
 * model text that is not in a dialect. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "judge.h"
#include "twtest.h"

static const char REQ[] =
    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Weather in Paris?\"}],"
    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}"
    "}]}";

/* gpt-oss: reasoning, then a call */
static const char HARMONY[] =
    "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary "
    "to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>";
/* Kimi K2: a call whose id the model wrote */
static const char KIMI[] = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
                           "<|tool_call_argument_begin|>{\"city\":\"Paris\"}<|tool_call_end|>"
                           "<|tool_calls_section_end|>";

/* A chat completion: content (NULL: null), reasoning (NULL: none), one
 * get_weather call with id (NULL: none), finish. */
static char *answer(const char *content, const char *reasoning, const char *id, const char *finish)
{
    static char b[2048];
    char c[600] = "null", r[300] = "", t[400] = "";
    if (content) {
        cJSON *s = cJSON_CreateString(content);
        char *p = cJSON_PrintUnformatted(s);
        snprintf(c, sizeof c, "%s", p);
        cJSON_free(p);
        cJSON_Delete(s);
    }
    if (reasoning)
        snprintf(r, sizeof r, ",\"reasoning_content\":\"%s\"", reasoning);
    if (id)
        snprintf(t, sizeof t,
                 ",\"tool_calls\":[{\"id\":\"%s\",\"type\":\"function\",\"function\":{\"name\":"
                 "\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]",
                 id);
    snprintf(
        b, sizeof b,
        "{\"id\":\"c\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":"
        "[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":%s%s%s},"
        "\"finish_reason\":\"%s\"}]}",
        c, r, t, finish);
    return b;
}

static tw_verdict judge_text(const char *fmt, const char *text, const char *body, tw_check_id id,
                             char *ev, size_t evn)
{
    tw_fx_exchange ex;
    memset(&ex, 0, sizeof ex);
    ex.model_text = text;
    ex.decode_format = fmt;
    ex.model_format = fmt;
    return tw_test_judge_ex(&ex, "/v1/chat/completions", REQ, 200, body, false, id, ev, evn);
}

Test(checks_dialect, faithful_answer_passes)
{
    const char *ok = answer(NULL, "Need the weather.", "call_1", "tool_calls");
    static const tw_check_id pass[] = {TW_CHK_DLX_01, TW_CHK_DLX_02, TW_CHK_DLX_03, TW_CHK_DLX_05};
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++) {
        char ev[300];
        tw_verdict v = judge_text("harmony", HARMONY, ok, pass[i], ev, sizeof ev);
        cr_expect_eq(v, TW_V_PASS, "%s: %s", tw_check_name(pass[i]), ev);
    }
    /* Harmony writes no ids: DLX-04 does not apply */
    cr_expect_eq(judge_text("harmony", HARMONY, ok, TW_CHK_DLX_04, NULL, 0), TW_V_SKIP);
}

Test(checks_dialect, call_section_left_in_content_fails)
{
    const char *left = answer("<|channel|>commentary to=functions.get_weather <|constrain|>json"
                              "<|message|>{\"city\":\"Paris\"}<|call|>",
                              "Need the weather.", NULL, "stop");
    char ev[300];
    cr_expect_eq(judge_text("harmony", HARMONY, left, TW_CHK_DLX_01, ev, sizeof ev), TW_V_FAIL);
    cr_expect(strstr(ev, "1 call(s), the response carries 0"), "%s", ev);
    cr_expect_eq(judge_text("harmony", HARMONY, left, TW_CHK_DLX_02, ev, sizeof ev), TW_V_FAIL);
    cr_expect(strstr(ev, "markup"), "%s", ev);
    cr_expect_eq(judge_text("harmony", HARMONY, left, TW_CHK_DLX_05, ev, sizeof ev), TW_V_FAIL);
}

Test(checks_dialect, reasoning_in_content_fails)
{
    const char *leak = answer("Need the weather.", NULL, "call_1", "tool_calls");
    char ev[300];
    cr_expect_eq(judge_text("harmony", HARMONY, leak, TW_CHK_DLX_03, ev, sizeof ev), TW_V_FAIL);
    cr_expect(strstr(ev, "in the response's content"), "%s", ev);
    cr_expect_eq(judge_text("harmony", HARMONY, leak, TW_CHK_DLX_02, ev, sizeof ev), TW_V_FAIL);
    cr_expect_eq(judge_text("harmony", HARMONY, leak, TW_CHK_DLX_01, ev, sizeof ev), TW_V_PASS);
}

Test(checks_dialect, arguments_changed_fail)
{
    char *b = answer(NULL, "Need the weather.", "call_1", "tool_calls");
    char *at = strstr(b, "Paris");
    cr_assert(at);
    memcpy(at, "Lille", 5); /* {"city":"Lille"}: another value */
    char ev[300];
    tw_verdict v = judge_text("harmony", HARMONY, b, TW_CHK_DLX_01, ev, sizeof ev);
    cr_expect_eq(v, TW_V_FAIL, "%s", ev);
}

Test(checks_dialect, model_call_id_kept_or_replaced)
{
    char ev[300];
    const char *kept = answer(NULL, NULL, "functions.get_weather:0", "tool_calls");
    cr_expect_eq(judge_text("kimi-k2", KIMI, kept, TW_CHK_DLX_04, ev, sizeof ev), TW_V_PASS, "%s",
                 ev);
    const char *renamed = answer(NULL, NULL, "call_1", "tool_calls");
    cr_expect_eq(judge_text("kimi-k2", KIMI, renamed, TW_CHK_DLX_04, ev, sizeof ev), TW_V_FAIL);
    cr_expect(strstr(ev, "functions.get_weather:0"), "%s", ev);
    cr_expect_eq(judge_text("kimi-k2", KIMI, renamed, TW_CHK_DLX_01, ev, sizeof ev), TW_V_PASS);
}

Test(checks_dialect, finish_stop_beside_a_call_fails)
{
    const char *stop = answer(NULL, "Need the weather.", "call_1", "stop");
    char ev[300];
    cr_expect_eq(judge_text("harmony", HARMONY, stop, TW_CHK_DLX_05, ev, sizeof ev), TW_V_FAIL);
    cr_expect(strstr(ev, "finish_reason stop"), "%s", ev);
}

Test(checks_dialect, not_a_dialect_skips)
{
    const char *ok = answer(NULL, NULL, "call_1", "tool_calls");
    static const tw_check_id all[] = {TW_CHK_DLX_01, TW_CHK_DLX_02, TW_CHK_DLX_03, TW_CHK_DLX_04,
                                      TW_CHK_DLX_05};
    const char *hermes = "<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}"
                         "</tool_call>";
    for (size_t i = 0; i < 5; i++) {
        cr_expect_eq(judge_text("hermes", hermes, ok, all[i], NULL, 0), TW_V_SKIP);
        cr_expect_eq(judge_text(NULL, NULL, ok, all[i], NULL, 0), TW_V_SKIP);
    }
}
