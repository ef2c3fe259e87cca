/*
 * Gemma 4 (docs/formats/gemma4.md): the decode fixtures of
 * tests/data/decode/gemma4 (batch and every chunked replay), and what they
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
#include "toolwire/gemma.h"
#include "toolwire/json.h"
#include "twtest.h"

/* Gemma 4 as it writes a turn: its thought channel, a line of content,
 * two calls, the token that opens the tool results. */
#define Q "<|\"|>"
#define SAMPLE                                                                                     \
    "<|channel>thought\nThe user wants the weather.<channel|>Let me check."                        \
    "<|tool_call>call:get_weather{city:" Q "Paris" Q ",days:3}<tool_call|>"                        \
    "<|tool_call>call:get_time{tz:" Q "CET" Q "}<tool_call|><|tool_response>"

/* The same turn forced open (the prompt opened the thought channel). */
#define SAMPLE_OPEN                                                                                \
    "The user wants the weather.<channel|>Let me check."                                           \
    "<|tool_call>call:get_weather{city:" Q "Paris" Q ",days:3}<tool_call|>"                        \
    "<|tool_call>call:get_time{tz:" Q "CET" Q "}<tool_call|>"

Test(gemma, decode_fixtures)
{
    tw_test_decode_dir("tests/data/decode/gemma4", 25);
}

static void check_sample(const tw_result *r, size_t nwarn)
{
    cr_assert_str_eq(r->msg.thinking.data ? r->msg.thinking.data : "",
                     "The user wants the weather.");
    cr_assert_str_eq(r->msg.content.data ? r->msg.content.data : "", "Let me check.");
    cr_assert_eq(r->msg.ncalls, 2);
    cr_assert_str_eq(r->msg.calls[0].id, "call_1");
    cr_assert_str_eq(r->msg.calls[0].name, "get_weather");
    cr_assert_str_eq(cJSON_GetObjectItem(r->msg.calls[0].arguments, "city")->valuestring, "Paris");
    /* a bare value no schema types is kept as a string */
    cr_assert_str_eq(cJSON_GetObjectItem(r->msg.calls[0].arguments, "days")->valuestring, "3");
    cr_assert_str_eq(r->msg.calls[1].id, "call_2");
    cr_assert_str_eq(r->msg.calls[1].name, "get_time");
    cr_assert_str_eq(cJSON_GetObjectItem(r->msg.calls[1].arguments, "tz")->valuestring, "CET");
    cr_assert_eq(r->errors.len, 0);
    /* no tools declared: the bare value is an untyped string (read back
     * from the encoder it is quoted: no warning) */
    cr_assert_eq(r->warnings.len, nwarn);
    if (nwarn)
        cr_assert_eq(r->warnings.items[0].code, TW_D_XML_UNTYPED);
    cr_assert_str_eq(r->finish_reason, "tool_calls");
}

/* The sample as decoded: one warning (the untyped bare value). */
static void check_decoded(const tw_result *r)
{
    check_sample(r, 1);
}

/* The sample read back from the encoder: no warning (the value is quoted). */
static void check_encoded(const tw_result *r)
{
    check_sample(r, 0);
}

/* The samples cut into two pieces at every byte (every special token split
 * at each of its bytes), and into three around pairs of cuts: one result. */
Test(gemma, split_at_every_byte)
{
    tw_dlt_split("gemma4", NULL, SAMPLE, strlen(SAMPLE), check_decoded, 30, 7, 5);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    tw_dlt_split("gemma4", &o, SAMPLE_OPEN, strlen(SAMPLE_OPEN), check_decoded, 30, 7, 5);
}

/* Events come in the order of the output, byte by byte as in one piece; a
 * call's event comes at its <tool_call|>. */
Test(gemma, events_in_order)
{
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        tw_dlt_events ev;
        tw_result r;
        tw_dlt_decode("gemma4", NULL, SAMPLE, strlen(SAMPLE), bytewise, &ev, &r);
        cr_assert_str_eq(ev.kinds, "tcTWT", "events %s", ev.kinds);
        cr_assert_str_eq(ev.calls, "[call_1 get_weather][call_2 get_time]");
        tw_result_free(&r);
        tw_dlt_events_free(&ev);
    }
}

/* A decoder reset after an unfinished decode gives a fresh decoder's
 * result, forced_open taken from the new options. */
Test(gemma, reset_reuse)
{
    tw_dlt_reset_reuse("gemma4", "<|tool_call>call:f{a:" Q "x", "why<channel|>answer", "why",
                       "answer", NULL, SAMPLE, check_decoded);
}

static void many_calls(tw_buf *b, size_t n)
{
    tw_buf_puts(b, "Calling.\n");
    for (size_t i = 0; i < n; i++)
        tw_buf_printf(b, "<|tool_call>call:f{i:%zu,s:" Q "x" Q ",o:{k:[1,2]}}<tool_call|>\n", i);
}

/* Work grows with the input, not with calls x bytes, in one piece and fed
 * byte by byte (the open call's search resumes). */
Test(gemma, linear_work)
{
    tw_dlt_linear("gemma4", many_calls, 2000, 16, 2);
}

/* The output encoder's bytes decode to the same result, forced open or
 * not; what the decoder would read otherwise warns not_carried. */
Test(gemma, output_encoder_round_trip)
{
    tw_result r;
    tw_buf out;
    tw_encode_opts eo;
    tw_diag_list w;
    tw_dlt_round_trip("gemma4", NULL, NULL, SAMPLE, check_encoded, 0, &r, &out, &eo, &w);
    const tw_encoder_ops *e = tw_encoder_find("gemma4");
    const char *layout = "<|tool_call>call:get_time{tz:" Q "CET" Q "}<tool_call|>";
    cr_assert_not_null(tw_memmem(out.data, out.len, layout, strlen(layout)));
    /* a foreign id, a value holding the dialect's closing marker */
    strcpy(r.msg.calls[0].id, "tool_9"); /* fits in "call_1" */
    cJSON_ReplaceItemInObject(r.msg.calls[1].arguments, "tz", cJSON_CreateString("a" Q "b"));
    out.len = 0;
    cr_assert_eq(e->encode_result(&r, &eo, &out), TW_OK);
    cr_assert_eq(w.len, 2);
    cr_assert_eq(w.items[0].code, TW_D_NOT_CARRIED);
    cr_assert_eq(w.items[1].code, TW_D_NOT_CARRIED);
    tw_diag_list_free(&w);
    tw_buf_free(&out);
    tw_result_free(&r);
}

/* Content without reasoning, encoded and read back under forced_open: the
 * encoder writes the (empty) thought channel, so the content does not turn
 * into reasoning (a fuzz finding). */
Test(gemma, encoder_empty_reasoning_forced_open)
{
    const char *in = "<channel|>hinking";
    tw_decode_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.forced_open = true;
    tw_result r;
    cr_assert_eq(tw_gemma_output_decode(in, strlen(in), &fo, &r), TW_OK);
    cr_assert_str_eq(r.msg.content.data, "hinking");
    cr_assert_eq(r.msg.thinking.len, 0);
    tw_buf out = {0};
    tw_diag_list w = {0};
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.warnings = &w;
    cr_assert_eq(tw_gemma_output_encode(&r, &eo, &out), TW_OK);
    cr_assert_eq(w.len, 0);
    tw_result back;
    cr_assert_eq(tw_gemma_output_decode(out.data, out.len, &fo, &back), TW_OK);
    cr_assert_str_eq(back.msg.content.data, "hinking", "wire %.*s", (int)out.len, out.data);
    cr_assert_eq(back.msg.thinking.len, 0);
    tw_result_free(&back);
    cr_assert_eq(tw_gemma_output_decode(out.data, out.len, NULL, &back), TW_OK);
    cr_assert_str_eq(back.msg.content.data, "hinking");
    cr_assert_eq(back.msg.thinking.len, 0);
    tw_result_free(&back);
    tw_diag_list_free(&w);
    tw_buf_free(&out);
    tw_result_free(&r);
}
