/*
 * The Mistral decoder (src/mistral.c, docs/formats/mistral.md): the decode
 * fixtures of tests/data/decode/mistral (each replayed whole and in
 * chunks), and what they cannot express: the events in order, a special
 * token split at every byte of a real sample, reset and reuse, the
 * encode -> decode round trip of the output encoder, and linear work on
 * many calls.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "dialect_tests.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/mistral.h"
#include "twtest.h"

/* the library's work counter (src/work.h, internal) */
uint64_t tw_work_count(void);
void tw_work_reset(void);

Test(mistral, fixtures)
{
    tw_test_decode_dir("tests/data/decode/mistral", 25);
}

/* A Small 3.2 / Magistral sample: reasoning, content, two calls, </s>. */
static const char SAMPLE[] =
    "[THINK]The user wants the weather in Paris and the time.[/THINK]Let me check."
    "[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{\"city\": \"Paris\", \"note\": \"[ARGS]{}\"}"
    "[TOOL_CALLS]get_time[CALL_ID]Zz9Yy8Xx7[ARGS]{\"tz\": \"Europe/Paris\"}</s>";

static void check_sample(const tw_result *r, const char *how)
{
    cr_assert_str_eq(r->msg.content.data ? r->msg.content.data : "", "Let me check.", "%s", how);
    cr_assert_str_eq(r->msg.thinking.data ? r->msg.thinking.data : "",
                     "The user wants the weather in Paris and the time.", "%s", how);
    cr_assert_eq(r->msg.ncalls, 2, "%s", how);
    cr_assert_str_eq(r->msg.calls[0].id, "a1B2c3D4e", "%s", how);
    cr_assert_str_eq(r->msg.calls[0].name, "get_weather", "%s", how);
    cr_assert_str_eq(cJSON_GetObjectItem(r->msg.calls[0].arguments, "note")->valuestring,
                     "[ARGS]{}", "%s", how);
    cr_assert_str_eq(r->msg.calls[1].id, "Zz9Yy8Xx7", "%s", how);
    cr_assert_eq(r->errors.len, 0, "%s", how);
    cr_assert_str_eq(r->finish_reason, "tool_calls", "%s", how);
}

static void check_split(const tw_result *r)
{
    check_sample(r, "split");
}

Test(mistral, split_at_every_byte)
{
    tw_dlt_split("mistral", NULL, SAMPLE, sizeof SAMPLE - 1, check_split, 0, 0, 0);
    /* one byte at a time */
    tw_result r;
    tw_dlt_decode("mistral", NULL, SAMPLE, sizeof SAMPLE - 1, 1, NULL, &r);
    check_sample(&r, "byte by byte");
    tw_result_free(&r);
}

Test(mistral, events_in_order)
{
    tw_dlt_events s;
    tw_result r;
    tw_dlt_decode("mistral", NULL, SAMPLE, sizeof SAMPLE - 1, 7, &s, &r);
    /* thinking, content, then the calls (runs of one kind collapsed) */
    cr_assert_str_eq(s.kinds, "tcT");
    check_sample(&r, "events");
    tw_result_free(&r);
    tw_dlt_events_free(&s);
}

Test(mistral, reset_mid_call_and_reuse)
{
    tw_mistral_dec *d = tw_mistral_dec_new(NULL, NULL, NULL);
    cr_assert_eq(tw_mistral_dec_feed(d, "[TOOL_CALLS]f[ARGS]{\"a\": [1, ", 30), TW_OK);
    cr_assert_eq(tw_mistral_dec_reset(d, NULL, NULL, NULL), TW_OK);
    cr_assert_eq(tw_mistral_dec_feed(d, SAMPLE, sizeof SAMPLE - 1), TW_OK);
    tw_result r;
    cr_assert_eq(tw_mistral_dec_finish(d, &r), TW_OK);
    check_sample(&r, "after reset");
    tw_result r2;
    cr_assert_eq(tw_mistral_dec_finish(d, &r2), TW_ERR_STATE);
    cr_assert_eq(r2.msg.ncalls, 0);
    cr_assert_eq(tw_mistral_dec_feed(d, "x", 1), TW_ERR_STATE);
    tw_result_free(&r);
    tw_result_free(&r2);
    tw_mistral_dec_free(d);
}

Test(mistral, forced_open_split)
{
    static const char in[] = "reasoning here[/THINK]answer";
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    for (size_t cut = 0; cut < sizeof in; cut++) {
        tw_mistral_dec *d = tw_mistral_dec_new(&o, NULL, NULL);
        cr_assert_eq(tw_mistral_dec_feed(d, in, cut), TW_OK);
        cr_assert_eq(tw_mistral_dec_feed(d, in + cut, sizeof in - 1 - cut), TW_OK);
        tw_result r;
        cr_assert_eq(tw_mistral_dec_finish(d, &r), TW_OK);
        cr_assert_str_eq(r.msg.thinking.data, "reasoning here", "cut %zu", cut);
        cr_assert_str_eq(r.msg.content.data, "answer", "cut %zu", cut);
        tw_result_free(&r);
        tw_mistral_dec_free(d);
    }
}

Test(mistral, output_encoder_round_trip)
{
    tw_result r;
    cr_assert_eq(tw_mistral_output_decode(SAMPLE, sizeof SAMPLE - 1, NULL, &r), TW_OK);
    const tw_encoder_ops *e = tw_encoder_find("mistral");
    cr_assert_not_null(e);
    tw_buf out = {0};
    cr_assert_eq(e->encode_result(&r, NULL, &out), TW_OK);
    cr_assert(strstr(out.data, "[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{") != NULL, "%s",
              out.data);
    tw_result back;
    cr_assert_eq(tw_mistral_output_decode(out.data, out.len, NULL, &back), TW_OK);
    check_sample(&back, "encoded and decoded again");
    tw_result_free(&back);
    tw_result_free(&r);
    tw_buf_free(&out);
}

/* n calls "[TOOL_CALLS]f[CALL_ID]xxxxxxxxx[ARGS]{"i": k}" */
static char *many(size_t n, size_t *len)
{
    tw_buf b = {0};
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(tw_buf_printf(&b,
                                   "[TOOL_CALLS]f[CALL_ID]%09zu[ARGS]{\"i\": %zu, \"s\": \"%s\"}",
                                   i, i, "[TOOL_CALLS] inside a string"),
                     TW_OK);
    *len = b.len;
    return b.data;
}

Test(mistral, linear_on_many_calls)
{
    uint64_t per[2];
    for (int k = 0; k < 2; k++) {
        size_t n = k ? 8000 : 2000, len;
        char *in = many(n, &len);
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_calls = n;
        o.limits.max_input_bytes = len + 1;
        tw_mistral_dec *d = tw_mistral_dec_new(&o, NULL, NULL);
        tw_work_reset();
        for (size_t i = 0; i < len; i += 1000)
            cr_assert_eq(tw_mistral_dec_feed(d, in + i, len - i < 1000 ? len - i : 1000), TW_OK);
        tw_result r;
        cr_assert_eq(tw_mistral_dec_finish(d, &r), TW_OK);
        per[k] = tw_work_count() / len;
        cr_assert_eq(r.msg.ncalls, n);
        cr_assert_eq(r.errors.len, 0);
        cr_assert_lt(per[k], 8, "work per byte %llu", (unsigned long long)per[k]);
        tw_result_free(&r);
        tw_mistral_dec_free(d);
        free(in);
    }
    cr_assert_leq(per[1], per[0] + 1);
}

/* A name or [CALL_ID] with invalid UTF-8 is refused: written with U+FFFD it
 * would be another, longer one (fuzz/regressions/mistral). */
Test(mistral, invalid_utf8_name_or_id_refused)
{
    static const char id[] = "[TOOL_CALLS]f[CALL_ID]call-\xbb\xbb"
                             "1[ARGS]{\"a\": 1}";
    static const char name[] = "[TOOL_CALLS]f\xff[ARGS]{\"a\": 1}";
    tw_result r;
    cr_assert_eq(tw_mistral_output_decode(id, sizeof id - 1, NULL, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(r.errors.len == 1 && r.errors.items[0].code == TW_D_TOOL_CALL_JSON);
    tw_result_free(&r);
    cr_assert_eq(tw_mistral_output_decode(name, sizeof name - 1, NULL, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(r.errors.len == 1 && r.errors.items[0].code == TW_D_MISSING_NAME);
    tw_result_free(&r);
}
