/*
 * GLM-4.5/4.6/4.7 (docs/formats/glm.md): the decode fixtures of
 * tests/data/decode/glm (batch and every chunked replay), and what they
 * cannot say: the events, reuse after reset, a real sample with each special
 * token split at every byte, linear work on many calls, the output encoder
 * read back by the decoder.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "dialect_tests.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/glm.h"
#include "toolwire/json.h"
#include "twtest.h"

/* GLM-4.6 as it writes a turn: reasoning, a line of content, two calls with
 * line breaks between the elements, the end-of-turn token. */
#define SAMPLE                                                                                     \
    "<think>The user wants the weather.</think>\nLet me check.\n"                                  \
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"              \
    "</tool_call>\n<tool_call>get_time\n<arg_key>tz</arg_key>\n<arg_value>CET</arg_value>\n"       \
    "</tool_call><|observation|>"

/* The same turn as GLM-4.7 writes it (no line breaks), forced open. */
#define SAMPLE47                                                                                   \
    "The user wants the weather.</think>Let me check.<tool_call>get_weather<arg_key>city"          \
    "</arg_key><arg_value>Paris</arg_value></tool_call><tool_call>get_time<arg_key>tz</arg_key>"   \
    "<arg_value>CET</arg_value></tool_call>"

Test(glm, decode_fixtures)
{
    tw_test_decode_dir("tests/data/decode/glm", 25);
}

static void check_sample(const tw_result *r)
{
    cr_assert_str_eq(r->msg.thinking.data ? r->msg.thinking.data : "",
                     "The user wants the weather.");
    cr_assert_str_eq(r->msg.content.data ? r->msg.content.data : "", "Let me check.");
    cr_assert_eq(r->msg.ncalls, 2);
    cr_assert_str_eq(r->msg.calls[0].id, "call_1");
    cr_assert_str_eq(r->msg.calls[0].name, "get_weather");
    cr_assert_str_eq(cJSON_GetObjectItem(r->msg.calls[0].arguments, "city")->valuestring, "Paris");
    cr_assert_str_eq(r->msg.calls[1].id, "call_2");
    cr_assert_str_eq(r->msg.calls[1].name, "get_time");
    cr_assert_str_eq(cJSON_GetObjectItem(r->msg.calls[1].arguments, "tz")->valuestring, "CET");
    cr_assert_eq(r->errors.len, 0);
    /* no tools declared: each call's values are untyped strings */
    cr_assert_eq(r->warnings.len, 2);
    cr_assert_eq(r->warnings.items[0].code, TW_D_XML_UNTYPED);
    cr_assert_str_eq(r->finish_reason, "tool_calls");
}

/* The samples cut into two pieces at every byte (every special token split
 * at each of its bytes), and into three around pairs of cuts: one result. */
Test(glm, split_at_every_byte)
{
    tw_dlt_split("glm", NULL, SAMPLE, strlen(SAMPLE), check_sample, 30, 7, 5);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    tw_dlt_split("glm", &o, SAMPLE47, strlen(SAMPLE47), check_sample, 30, 7, 5);
}

/* Events come in the order of the output, byte by byte as in one piece; a
 * call's event comes at its </tool_call>. */
Test(glm, events_in_order)
{
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        tw_dlt_events ev;
        tw_result r;
        tw_dlt_decode("glm", NULL, SAMPLE, strlen(SAMPLE), bytewise, &ev, &r);
        cr_assert_str_eq(ev.kinds, "tcTWTW", "events %s", ev.kinds);
        cr_assert_str_eq(ev.calls, "[call_1 get_weather][call_2 get_time]");
        tw_result_free(&r);
        tw_dlt_events_free(&ev);
    }
}

/* A decoder reset after an unfinished decode gives a fresh decoder's
 * result, forced_open taken from the new options. */
Test(glm, reset_reuse)
{
    tw_dlt_reset_reuse("glm", "<tool_call>f<arg_key>a</arg_key><arg_val", "why</think>answer",
                       "why", "answer", NULL, SAMPLE, check_sample);
}

static void many_calls(tw_buf *b, size_t n)
{
    tw_buf_puts(b, "Calling.\n");
    for (size_t i = 0; i < n; i++)
        tw_buf_printf(b,
                      "<tool_call>f\n<arg_key>i</arg_key>\n<arg_value>%zu</arg_value>\n"
                      "<arg_key>s</arg_key>\n<arg_value>x</arg_value>\n</tool_call>\n",
                      i);
}

/* Work grows with the input, not with calls x bytes, in one piece and fed
 * byte by byte (the open call's search resumes). */
Test(glm, linear_work)
{
    tw_dlt_linear("glm", many_calls, 2000, 16, 2);
}

/* The output encoder's bytes decode to the same result, forced open or
 * not; what the decoder would read otherwise warns not_carried. */
Test(glm, output_encoder_round_trip)
{
    tw_result r;
    tw_buf out;
    tw_encode_opts eo;
    tw_diag_list w;
    tw_dlt_round_trip("glm", NULL, NULL, SAMPLE, check_sample, 0, &r, &out, &eo, &w);
    const tw_encoder_ops *e = tw_encoder_find("glm");
    /* the 4.6 layout */
    const char *layout = "\n<tool_call>get_time\n<arg_key>tz</arg_key>\n<arg_value>CET"
                         "</arg_value>\n</tool_call>";
    cr_assert_not_null(tw_memmem(out.data, out.len, layout, strlen(layout)));
    /* a foreign id, a value holding the dialect's closing marker */
    strcpy(r.msg.calls[0].id, "t_9"); /* no longer than the id it replaces */
    cJSON_ReplaceItemInObject(r.msg.calls[1].arguments, "tz", cJSON_CreateString("a</arg_value>b"));
    out.len = 0;
    cr_assert_eq(e->encode_result(&r, &eo, &out), TW_OK);
    cr_assert_eq(w.len, 2);
    cr_assert_eq(w.items[0].code, TW_D_NOT_CARRIED);
    cr_assert_eq(w.items[1].code, TW_D_NOT_CARRIED);
    tw_diag_list_free(&w);
    tw_buf_free(&out);
    tw_result_free(&r);
}
