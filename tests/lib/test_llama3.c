/*
 * The Llama 3.x decoder (docs/formats/llama3.md): the fixtures of
 * tests/data/decode/llama3, a real sample split at every byte, events,
 * reset and reuse, the output encoder read back, and linear work on many
 * calls.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "dialect_tests.h"
#include "toolwire/llama3.h"
#include "toolwire/decode.h"
#include "twtest.h"

/* The library's work counter (src/work.h, internal: declared here so the
 * test needs no internal include path). */
uint64_t tw_work_count(void);
void tw_work_reset(void);

Test(llama3, fixtures)
{
    tw_test_decode_dir("tests/data/decode/llama3", 25);
}

/* The compact neutral form of a result, for comparing two results. */
static char *summary(const tw_result *r)
{
    tw_buf b = {0};
    tw_buf_append(&b, r->msg.content.data ? r->msg.content.data : "", r->msg.content.len);
    tw_buf_puts(&b, "|");
    for (size_t i = 0; i < r->msg.ncalls; i++) {
        tw_buf_printf(&b, "%s %s ", r->msg.calls[i].id, r->msg.calls[i].name);
        tw_json_write(&b, r->msg.calls[i].arguments, 0);
        tw_buf_puts(&b, ";");
    }
    for (size_t i = 0; i < r->errors.len; i++)
        tw_buf_printf(&b, "E%s@%lld", tw_code_name(r->errors.items[i].code),
                      (long long)r->errors.items[i].offset);
    tw_buf_printf(&b, "|%s", r->finish_reason ? r->finish_reason : "");
    size_t n;
    return tw_buf_take(&b, &n);
}

/* Real output shapes (llama.cpp's and vLLM's parser tests): every special
 * token and call split at every byte decodes as the whole. */
Test(llama3, split_at_every_byte)
{
    static const char *const samples[] = {
        "<|python_tag|>{\"name\": \"special_function\", \"parameters\": {\"arg1\": 1}}<|eom_id|>",
        "I'll search.\n<|python_tag|>brave_search.call(query=\"what is llama\")<|eom_id|>",
        "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Tokyo\"}}; {\"name\": "
        "\"get_weather\", \"arguments\": {\"city\": \"Osaka\"}}<|eot_id|>",
        "<|python_tag|>import math\nprint(math.pi)<|eom_id|>",
        "Plain answer with {\"a\": 1} inside.<|eot_id|>",
        /* escapes, quotes and brackets inside strings */
        "{\"name\": \"f\", \"parameters\": {\"s\": \"a\\\"}b\\\\\", \"t\": "
        "\"]{\\\\\\\"\"}}<|eot_id|>",
        /* one ';' separates calls: a second is prose, however the stream cuts it */
        "{\"name\": \"noop\", \"parameters\": {}}; ;{\"name\": \"noop\"}<|eot_id|>",
    };
    for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
        const char *in = samples[k];
        tw_result whole;
        cr_assert_eq(tw_llama3_output_decode(in, strlen(in), NULL, &whole), TW_OK);
        cr_assert(whole.msg.ncalls > 0 || k == 4, "sample %zu: no call", k);
        tw_result_free(&whole);
        tw_dlt_split_same("llama3", NULL, in, strlen(in));
    }
}

static tw_status count_events(void *user, const tw_event *ev)
{
    size_t *n = user;
    if (ev->kind == TW_EV_TOOL_CALL)
        n[0]++;
    else if (ev->kind == TW_EV_CONTENT)
        n[1]++;
    return TW_OK;
}

Test(llama3, events_and_reuse)
{
    static const char in[] = "Let me check.<|python_tag|>{\"name\": \"a\", \"parameters\": {}}";
    size_t n[2] = {0, 0};
    tw_llama3_dec *d = tw_llama3_dec_new(NULL, count_events, n);
    cr_assert_not_null(d);
    for (size_t i = 0; i < sizeof in - 1; i++)
        cr_assert_eq(tw_llama3_dec_feed(d, in + i, 1), TW_OK);
    tw_result r;
    cr_assert_eq(tw_llama3_dec_finish(d, &r), TW_OK);
    cr_assert_eq(n[0], 1);
    cr_assert_geq(n[1], 1);
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_llama3_dec_recycle(d, &r);
    /* a second feed after finish is refused; a reset starts over */
    cr_assert_eq(tw_llama3_dec_feed(d, "x", 1), TW_ERR_STATE);
    cr_assert_eq(tw_llama3_dec_reset(d, NULL, NULL, NULL), TW_OK);
    cr_assert_eq(tw_llama3_dec_feed(d, "Hi there", 8), TW_OK);
    cr_assert_eq(tw_llama3_dec_finish(d, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(r.msg.content.len, 8);
    cr_assert_str_eq(r.finish_reason, "stop");
    tw_llama3_dec_recycle(d, &r);
    tw_llama3_dec_free(d);
}

/* The output encoder's text reads back as the same calls and content. */
Test(llama3, output_encoder_round_trip)
{
    static const char in[] =
        "Looking.<|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": 1E5}}; "
        "{\"name\": \"b\", \"parameters\": {\"s\": \"é\"}}";
    tw_result r, back;
    cr_assert_eq(tw_llama3_output_decode(in, sizeof in - 1, NULL, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 2);
    tw_buf out = {0};
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = &w;
    cr_assert_eq(tw_llama3_output_encode(&r, &o, &out), TW_OK);
    cr_assert_eq(w.len, 0);
    cr_assert_eq(tw_llama3_output_decode(out.data, out.len, NULL, &back), TW_OK);
    char *a = summary(&r), *b = summary(&back);
    cr_assert_str_eq(a, b);
    cr_assert(strstr(out.data, "1E5") != NULL, "the spelling is kept: %s", out.data);
    free(a);
    free(b);
    tw_buf_free(&out);
    tw_diag_list_free(&w);
    tw_result_free(&r);
    tw_result_free(&back);
}

/* Many calls, fed a byte at a time and at once: the work stays linear. */
Test(llama3, linear_work)
{
    size_t counts[2] = {200, 2000};
    uint64_t per_byte[2];
    for (size_t k = 0; k < 2; k++) {
        tw_buf b = {0};
        for (size_t i = 0; i < counts[k]; i++)
            tw_buf_printf(&b, "%s{\"name\": \"f\", \"parameters\": {\"i\": %zu, \"s\": \"%s\"}}",
                          i ? "; " : "", i, "some text <| with | bars");
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_calls = counts[k];
        tw_llama3_dec *d = tw_llama3_dec_new(&o, NULL, NULL);
        tw_work_reset();
        for (size_t i = 0; i < b.len; i++)
            cr_assert_eq(tw_llama3_dec_feed(d, b.data + i, 1), TW_OK);
        tw_result r;
        cr_assert_eq(tw_llama3_dec_finish(d, &r), TW_OK);
        cr_assert_eq(r.msg.ncalls, counts[k]);
        per_byte[k] = tw_work_count() / b.len;
        tw_llama3_dec_recycle(d, &r);
        tw_llama3_dec_free(d);
        tw_buf_free(&b);
    }
    cr_assert_leq(per_byte[1], per_byte[0] + 4, "work per byte grows: %llu then %llu",
                  (unsigned long long)per_byte[0], (unsigned long long)per_byte[1]);
    cr_assert_leq(per_byte[1], 32, "work per byte %llu", (unsigned long long)per_byte[1]);
}
