/*
 * The Harmony decoder (docs/formats/harmony.md): the decode fixtures of
 * tests/data/decode/harmony (batch and chunked), and what they cannot say:
 * the events in order, a decoder reset and reused, a real sample split in
 * two at every byte (every special token cut at every byte), one byte a
 * feed, linear work on many calls, and the output encoder's text decoding
 * back to the result it was written from.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "dialect_tests.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/harmony.h"
#include "toolwire/registry.h"
#include "twtest.h"
#include "../../src/work.h" /* the work counter (internal) */

/* A gpt-oss output as the model writes it: reasoning, a preamble, two calls. */
static const char SAMPLE[] =
    "<|channel|>analysis<|message|>User asks weather in Paris and time.<|end|>"
    "<|start|>assistant<|channel|>commentary<|message|>Checking both.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
    "<|message|>{\"city\": \"Paris\"}<|call|>"
    "<|start|>assistant to=functions.get_time<|channel|>commentary json"
    "<|message|>{\"tz\": \"Europe/Paris\"}<|call|>";

static const char SAMPLE_NEUTRAL_CONTENT[] = "Checking both.";
static const char SAMPLE_THINKING[] = "User asks weather in Paris and time.";

Test(harmony, fixtures)
{
    tw_test_decode_dir("tests/data/decode/harmony", 40);
}

static void check_sample(const tw_result *r, const char *how)
{
    cr_assert_str_eq(r->msg.content.data ? r->msg.content.data : "", SAMPLE_NEUTRAL_CONTENT, "%s",
                     how);
    cr_assert_str_eq(r->msg.thinking.data ? r->msg.thinking.data : "", SAMPLE_THINKING, "%s", how);
    cr_assert_eq(r->msg.ncalls, 2, "%s", how);
    cr_assert_str_eq(r->msg.calls[0].name, "get_weather", "%s", how);
    cr_assert_str_eq(r->msg.calls[0].id, "call_1", "%s", how);
    cr_assert_str_eq(r->msg.calls[1].name, "get_time", "%s", how);
    cr_assert_str_eq(r->msg.calls[1].id, "call_2", "%s", how);
    cr_assert_str_eq(tw_json_get_str(r->msg.calls[1].arguments, "tz"), "Europe/Paris", "%s", how);
    cr_assert_str_eq(r->finish_reason, "tool_calls", "%s", how);
    cr_assert_eq(r->errors.len, 0, "%s", how);
    cr_assert_eq(r->warnings.len, 0, "%s", how);
}

Test(harmony, sample_batch)
{
    tw_result r;
    cr_assert_eq(tw_harmony_output_decode(SAMPLE, strlen(SAMPLE), NULL, &r), TW_OK);
    check_sample(&r, "batch");
    tw_result_free(&r);
}

Test(harmony, split_at_every_byte)
{
    tw_dlt_split_same("harmony", NULL, SAMPLE, strlen(SAMPLE));
}

Test(harmony, events_in_order)
{
    tw_dlt_events l;
    tw_result r;
    tw_dlt_decode("harmony", NULL, SAMPLE, strlen(SAMPLE), 5, &l, &r);
    /* reasoning, then the preamble, then the two calls (one run of T) */
    cr_assert_str_eq(l.kinds, "tcT");
    cr_assert_str_eq(l.content.data ? l.content.data : "", SAMPLE_NEUTRAL_CONTENT);
    cr_assert_str_eq(l.thinking.data ? l.thinking.data : "", SAMPLE_THINKING);
    check_sample(&r, "events");
    tw_result_free(&r);
    tw_dlt_events_free(&l);
}

/* The reasoning streams before its message ends: a feed that stops inside
 * the body has already sent the text before it. */
Test(harmony, reasoning_streams)
{
    tw_dlt_events l;
    memset(&l, 0, sizeof l);
    tw_harmony_dec *d = tw_harmony_dec_new(NULL, tw_dlt_on_event, &l);
    const char *part = "<|channel|>analysis<|message|>Thinking hard<|en";
    cr_assert_eq(tw_harmony_dec_feed(d, part, strlen(part)), TW_OK);
    cr_assert_str_eq(l.thinking.data ? l.thinking.data : "", "Thinking hard");
    tw_harmony_dec_free(d);
    tw_dlt_events_free(&l);
}

Test(harmony, reset_and_reuse)
{
    tw_harmony_dec *d = tw_harmony_dec_new(NULL, NULL, NULL);
    const char *other = "<|channel|>final<|message|>first<|return|>";
    cr_assert_eq(tw_harmony_dec_feed(d, other, strlen(other) - 4), TW_OK);
    /* reset mid-decode: nothing of the first input is left */
    cr_assert_eq(tw_harmony_dec_reset(d, NULL, NULL, NULL), TW_OK);
    for (int round = 0; round < 3; round++) {
        cr_assert_eq(tw_harmony_dec_feed(d, SAMPLE, strlen(SAMPLE)), TW_OK);
        tw_result r;
        cr_assert_eq(tw_harmony_dec_finish(d, &r), TW_OK);
        check_sample(&r, "reuse");
        tw_result again;
        cr_assert_eq(tw_harmony_dec_finish(d, &again), TW_ERR_STATE);
        tw_result_free(&again);
        tw_harmony_dec_recycle(d, &r);
        cr_assert_eq(tw_harmony_dec_reset(d, NULL, NULL, NULL), TW_OK);
    }
    tw_harmony_dec_free(d);
}

/* n call messages, each argument holding token lookalikes that are text. */
static void many_calls(tw_buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(tw_buf_printf(b,
                                   "<|start|>assistant<|channel|>commentary to=functions.f "
                                   "<|constrain|>json<|message|>{\"q\": \"<|call <|end %zu\"}"
                                   "<|call|>",
                                   i),
                     TW_OK);
}

Test(harmony, linear_work)
{
    for (size_t n = 2000; n <= 8000; n *= 4) {
        tw_buf b = {0};
        many_calls(&b, n);
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_calls = n;
        o.limits.max_input_bytes = b.len + 1;
        tw_result r;
        tw_work_reset();
        cr_assert_eq(tw_harmony_output_decode(b.data, b.len, &o, &r), TW_OK);
        uint64_t work = tw_work_count();
        cr_assert_eq(r.msg.ncalls, n);
        cr_assert_eq(r.errors.len, 0);
        cr_assert_leq(work, 8 * (uint64_t)b.len, "%zu calls: %llu units for %zu bytes", n,
                      (unsigned long long)work, b.len);
        tw_result_free(&r);
        tw_buf_free(&b);
    }
}

/* A long analysis message fed a byte at a time is read once. */
Test(harmony, linear_streamed_reasoning)
{
    size_t n = 200000;
    tw_harmony_dec *d = tw_harmony_dec_new(NULL, NULL, NULL);
    const char *head = "<|channel|>analysis<|message|>";
    cr_assert_eq(tw_harmony_dec_feed(d, head, strlen(head)), TW_OK);
    tw_work_reset();
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(tw_harmony_dec_feed(d, i % 7 ? "a" : "<", 1), TW_OK);
    uint64_t work = tw_work_count();
    cr_assert_leq(work, 8 * (uint64_t)n, "%llu units for %zu bytes", (unsigned long long)work, n);
    tw_result r;
    cr_assert_eq(tw_harmony_dec_finish(d, &r), TW_OK);
    cr_assert_eq(r.msg.thinking.len, n);
    tw_result_free(&r);
    tw_harmony_dec_free(d);
}

/* The output encoder writes what the decoder reads back as the same result;
 * an id the dialect cannot carry is warned. */
Test(harmony, output_encoder_round_trip)
{
    const tw_encoder_ops *e = tw_encoder_find("harmony");
    cr_assert_not_null(e);
    cr_assert_eq(e->input, TW_ENC_RESULT);
    tw_result r;
    cr_assert_eq(tw_harmony_output_decode(SAMPLE, strlen(SAMPLE), NULL, &r), TW_OK);
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = &w;
    tw_buf out = {0};
    cr_assert_eq(e->encode_result(&r, &o, &out), TW_OK);
    cr_assert_eq(w.len, 0, "%s", w.len ? w.items[0].message : "");
    tw_result back;
    cr_assert_eq(tw_harmony_output_decode(out.data, out.len, NULL, &back), TW_OK);
    char *a = tw_test_neutral(&r), *b = tw_test_neutral(&back);
    cr_assert_str_eq(b, a, "wire: %s", out.data);
    free(a);
    free(b);
    tw_result_free(&back);
    /* an id other than call_N is not carried */
    free(r.msg.calls[0].id);
    r.msg.calls[0].id = strdup("toolu_1");
    out.len = 0;
    cr_assert_eq(e->encode_result(&r, &o, &out), TW_OK);
    cr_assert_eq(w.len, 1);
    cr_assert_eq(w.items[0].code, TW_D_NOT_CARRIED);
    tw_diag_list_free(&w);
    tw_buf_free(&out);
    tw_result_free(&r);
}
