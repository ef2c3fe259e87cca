/*
 * MiniMax-M2 (docs/formats/minimax-m2.md): the decode fixtures of
 * tests/data/decode/minimax-m2 (batch and every chunked replay), and what
 * they cannot say: the events, reuse after reset, a real sample with each
 * marker split at every byte, linear work on many calls and on a long
 * value fed byte by byte, the output encoder read back by the decoder, the
 * prompt reader's ids.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "dialect_tests.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/minimax.h"
#include "toolwire/neutral.h"
#include "work.h"
#include "twtest.h"

/* The template's layout after its generation prompt ("]~b]ai\n<think>\n"),
 * as the model writes it (forced_open). */
#define SAMPLE                                                                                     \
    "The user wants the weather.\n</think>\n\nLet me check.\n<minimax:tool_call>\n"                \
    "<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n"                  \
    "<parameter name=\"days\">3</parameter>\n</invoke>\n<invoke name=\"get_time\">\n"              \
    "<parameter name=\"tz\">CET</parameter>\n</invoke>\n</minimax:tool_call>[e~["

static const char *TOOLS_JSON =
    "[{\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\", \"properties\": "
    "{\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\"}}}},"
    "{\"name\": \"get_time\", \"parameters\": {\"type\": \"object\", \"properties\": "
    "{\"tz\": {\"type\": \"string\"}}}}]";

static tw_tool tools[2];
static cJSON *tools_json;

static void setup_tools(void)
{
    tools_json = cJSON_Parse(TOOLS_JSON);
    cr_assert_not_null(tools_json);
    for (int i = 0; i < 2; i++) {
        tw_error e;
        cr_assert_eq(tw_tool_read(cJSON_GetArrayItem(tools_json, i), &tools[i], &e), TW_OK);
    }
}

static void free_tools(void)
{
    for (int i = 0; i < 2; i++)
        tw_tool_free(&tools[i]);
    cJSON_Delete(tools_json);
}

static tw_decode_opts opts(bool forced)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = forced;
    o.tools = tools;
    o.ntools = 2;
    return o;
}

Test(minimax, decode_fixtures)
{
    tw_test_decode_dir("tests/data/decode/minimax-m2", 25);
}

static void check_sample(const tw_result *r)
{
    cr_assert_str_eq(r->msg.thinking.data ? r->msg.thinking.data : "",
                     "The user wants the weather.");
    cr_assert_str_eq(r->msg.content.data ? r->msg.content.data : "", "Let me check.");
    cr_assert_eq(r->msg.ncalls, 2);
    cr_assert_str_eq(r->msg.calls[0].id, "call_1");
    cr_assert_str_eq(r->msg.calls[0].name, "get_weather");
    cr_assert_eq(cJSON_GetObjectItem(r->msg.calls[0].arguments, "days")->valueint, 3);
    cr_assert_str_eq(r->msg.calls[1].id, "call_2");
    cr_assert_str_eq(r->msg.calls[1].name, "get_time");
    cr_assert_eq(r->errors.len, 0, "%s", r->errors.len ? r->errors.items[0].message : "");
    cr_assert_eq(r->warnings.len, 0, "%s", r->warnings.len ? r->warnings.items[0].message : "");
    cr_assert_str_eq(r->finish_reason, "tool_calls");
}

/* The sample cut into two pieces at every byte (every marker split at each
 * of its bytes), and into three around pairs of cuts: one result. */
Test(minimax, split_at_every_byte, .init = setup_tools, .fini = free_tools)
{
    tw_decode_opts o = opts(true);
    tw_dlt_split("minimax-m2", &o, SAMPLE, strlen(SAMPLE), check_sample, 30, 7, 5);
}

/* Events come in the order of the output, byte by byte as in one piece. */
Test(minimax, events_in_order, .init = setup_tools, .fini = free_tools)
{
    tw_decode_opts o = opts(true);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        tw_dlt_events ev;
        tw_result r;
        tw_dlt_decode("minimax-m2", &o, SAMPLE, strlen(SAMPLE), bytewise, &ev, &r);
        cr_assert_str_eq(ev.kinds, "tcT", "events %s", ev.kinds);
        cr_assert_str_eq(ev.calls, "[call_1 get_weather][call_2 get_time]");
        tw_result_free(&r);
        tw_dlt_events_free(&ev);
    }
}

/* A decoder reset after an unfinished decode gives a fresh decoder's
 * result, forced_open taken from the new options. */
Test(minimax, reset_reuse, .init = setup_tools, .fini = free_tools)
{
    tw_decode_opts o = opts(true);
    tw_dlt_reset_reuse("minimax-m2",
                       "<minimax:tool_call><invoke name=\"f\"><parameter name=\"a\">1</para",
                       "why</think>answer", "why", "answer", &o, SAMPLE, check_sample);
}

static void many_calls(tw_buf *b, size_t n)
{
    tw_buf_puts(b, "Calling.<minimax:tool_call>\n");
    for (size_t i = 0; i < n; i++)
        tw_buf_printf(b,
                      "<invoke name=\"f\">\n<parameter name=\"i\">%zu</parameter>\n"
                      "<parameter name=\"s\">text %zu</parameter>\n</invoke>\n",
                      i, i);
    tw_buf_puts(b, "</minimax:tool_call>");
}

/* Work grows with the input, not with calls x bytes, in one piece and fed
 * byte by byte (the open invoke's search resumes). */
Test(minimax, linear_work)
{
    tw_dlt_linear("minimax-m2", many_calls, 2000, 16, 2);
}

/* One long value fed byte by byte: the search for </parameter> resumes. */
Test(minimax, long_value_bytewise)
{
    tw_buf b = {0};
    tw_buf_puts(&b, "<minimax:tool_call><invoke name=\"f\"><parameter name=\"code\">");
    for (int i = 0; i < 20000; i++)
        tw_buf_puts(&b, "x < y; ");
    tw_buf_puts(&b, "</parameter></invoke></minimax:tool_call>");
    tw_minimax_dec *d = tw_minimax_dec_new(NULL, NULL, NULL);
    tw_work_reset();
    for (size_t i = 0; i < b.len; i++)
        cr_assert_eq(tw_minimax_dec_feed(d, b.data + i, 1), TW_OK);
    tw_result r;
    cr_assert_eq(tw_minimax_dec_finish(d, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_assert_leq(tw_work_count(), 16 * (uint64_t)b.len);
    tw_result_free(&r);
    tw_minimax_dec_free(d);
    tw_buf_free(&b);
}

/* The output encoder's bytes decode to the same result, with forced_open
 * or without; an id the model does not write warns not_carried. */
Test(minimax, output_encoder_round_trip, .init = setup_tools, .fini = free_tools)
{
    tw_decode_opts so = opts(true), ro = opts(false);
    tw_result r;
    tw_buf out;
    tw_encode_opts eo;
    tw_diag_list w;
    /* days (an integer) is read back as one only under the schema: said once */
    tw_dlt_round_trip("minimax-m2", &so, &ro, SAMPLE, check_sample, 1, &r, &out, &eo, &w);
    cr_assert_eq(w.items[0].code, TW_D_NOT_CARRIED);
    cr_assert_not_null(strstr(w.items[0].message, "schema"));
    tw_diag_list_free(&w);
    const tw_encoder_ops *e = tw_encoder_find("minimax-m2");
    free(r.msg.calls[0].id);
    r.msg.calls[0].id = strdup("toolu_1");
    out.len = 0;
    cr_assert_eq(e->encode_result(&r, &eo, &out), TW_OK);
    cr_assert_eq(w.len, 2);
    cr_assert_eq(w.items[0].code, TW_D_NOT_CARRIED);
    cr_assert_not_null(strstr(w.items[0].message, "toolu_1"));
    tw_diag_list_free(&w);
    tw_buf_free(&out);
    tw_result_free(&r);
}

/* The reader gives back the history calls with ids call_<n> and each
 * result's tool_call_id from the call it answers, the values typed by the
 * declared tools. */
Test(minimax, prompt_reader_ids)
{
    static const char prompt[] =
        "]~!b[]~b]system\nYou are a helpful assistant.[e~[\n]~b]user\nBoth?[e~[\n]~b]ai\n\n"
        "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter "
        "name=\"city\">Paris</parameter>\n<parameter name=\"days\">2</parameter>\n</invoke>\n"
        "<invoke name=\"get_time\">\n<parameter name=\"tz\">\"UTC\"</parameter>\n</invoke>\n"
        "</minimax:tool_call>[e~[\n]~b]tool\n<response>18</response>\n<response>12:00</response>"
        "[e~[\n]~b]ai\n<think>\n";
    tw_request r;
    tw_error err = {0};
    cr_assert_eq(tw_minimax_prompt_read(prompt, sizeof prompt - 1, NULL, &r, &err), TW_OK, "%s",
                 err.message);
    cr_assert_eq(r.nmessages, 4);
    cr_assert_eq(r.messages[0].role, TW_ROLE_USER);
    const tw_message *a = &r.messages[1];
    cr_assert_eq(a->ncalls, 2);
    cr_assert_str_eq(a->calls[0].id, "call_1");
    cr_assert_str_eq(a->calls[0].name, "get_weather");
    cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(a->calls[0].arguments, "days")));
    /* a quoted value stays the string as written */
    cr_assert_str_eq(cJSON_GetObjectItem(a->calls[1].arguments, "tz")->valuestring, "\"UTC\"");
    cr_assert_str_eq(r.messages[2].tool_call_id, "call_1");
    cr_assert_str_eq(r.messages[3].tool_call_id, "call_2");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r.options, "add_generation_prompt")));
    tw_buf out = {0};
    cr_assert_eq(tw_minimax_prompt_encode(&r, NULL, &out), TW_OK);
    cr_assert_eq(out.len, sizeof prompt - 1);
    cr_assert_eq(memcmp(out.data, prompt, out.len), 0);
    tw_request bad;
    cr_assert_neq(tw_minimax_prompt_read("<|im_start|>user\nhi<|im_end|>\n", 29, NULL, &bad, &err),
                  TW_OK);
    cr_assert_neq(err.message[0], '\0');
    cr_assert_eq(bad.nmessages, 0);
    tw_buf_free(&out);
    tw_request_free(&r);
}
