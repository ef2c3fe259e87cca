/*
 * The format-module template (src/template/format_template.c) builds and
 * keeps the decoder contract of include/toolwire/decode.h: batch and push
 * agree, bad input is a diagnostic, a cap is a diagnostic, a failure leaves
 * *out valid and empty.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../src/template/format_template.c"
#include "cases.h"

static const char sample[] = "hello\n"
                             "CALL get_weather {\"city\": \"Paris\", \"days\": 2}\n"
                             "CALL broken {not json}\n"
                             "bye\n";

Test(template, batch_and_push_agree)
{
    tw_result a, b;
    cr_assert_eq(tw_format_lines.decode(sample, strlen(sample), NULL, &a), TW_OK);
    cr_assert_eq(tw_decode_chunked(&tw_format_lines, sample, strlen(sample), 1, NULL, &b), TW_OK);
    cr_assert_str_eq(a.msg.content.data, "hello\nbye\n");
    cr_assert_eq(a.msg.ncalls, 1);
    cr_assert_str_eq(a.msg.calls[0].name, "get_weather");
    cr_assert_str_eq(a.msg.calls[0].id, "call_1");
    cr_assert_str_eq(a.finish_reason, "tool_calls");
    /* the bad line is an error diagnostic, not a failure */
    cr_assert_eq(a.errors.len, 1);
    cr_assert_eq(a.errors.items[0].code, TW_D_TOOL_CALL_JSON);
    tw_buf ja = {0}, jb = {0};
    cr_assert_eq(tw_result_write(&ja, &a, TW_JSON_COMPACT), TW_OK);
    cr_assert_eq(tw_result_write(&jb, &b, TW_JSON_COMPACT), TW_OK);
    cr_assert_str_eq(ja.data, jb.data);
    tw_buf_free(&ja);
    tw_buf_free(&jb);
    tw_result_free(&a);
    tw_result_free(&b);
}

Test(template, caps_are_diagnostics)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = 10;
    tw_result r;
    cr_assert_eq(tw_format_lines.decode(sample, strlen(sample), &o, &r), TW_OK);
    cr_assert(tw_diag_has(&r.errors, TW_D_INPUT_TOO_LARGE));
    cr_assert_eq(r.msg.content.len, 10);
    tw_result_free(&r);

    memset(&o, 0, sizeof o);
    o.limits.max_calls = 1;
    static const char two[] = "CALL a {}\nCALL b {}\n";
    cr_assert_eq(tw_format_lines.decode(two, strlen(two), &o, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_assert(tw_diag_has(&r.errors, TW_D_TOO_MANY_CALLS));
    tw_result_free(&r);
}

static long fail_from = -1;
static long nallocs;

static void *failing_malloc(size_t n)
{
    if (fail_from >= 0 && nallocs++ >= fail_from)
        return NULL;
    return malloc(n);
}

Test(template, failures_leave_out_empty)
{
    size_t failures = 0;
    for (long k = 0; k < 100; k++) {
        tw_result r;
        memset(&r, 0xA5, sizeof r);
        fail_from = k;
        nallocs = 0;
        cJSON_Hooks h = {failing_malloc, free};
        cJSON_InitHooks(&h);
        tw_status st = tw_format_lines.decode(sample, strlen(sample), NULL, &r);
        cJSON_InitHooks(NULL);
        if (st == TW_OK) {
            tw_result_free(&r);
            break;
        }
        cr_assert_eq(st, TW_ERR_NOMEM, "%s", tw_code_name(st));
        cr_assert_eq(r.msg.content.len, 0);
        cr_assert_eq(r.msg.ncalls, 0);
        cr_assert_null(r.finish_reason);
        cr_assert_eq(r.errors.len, 0);
        tw_result_free(&r);
        failures++;
    }
    cr_assert_gt(failures, 0);

    /* a finish out of order: TW_ERR_STATE, *out empty */
    tw_stream *s = tw_stream_new(&tw_format_lines, NULL, NULL, NULL);
    cr_assert_not_null(s);
    cr_assert_eq(tw_stream_feed(s, "x\n", 2), TW_OK);
    tw_result r;
    cr_assert_eq(tw_stream_finish(s, &r), TW_OK);
    tw_result_free(&r);
    memset(&r, 0xA5, sizeof r);
    cr_assert_eq(tw_stream_finish(s, &r), TW_ERR_STATE);
    cr_assert_eq(r.msg.content.len, 0);
    tw_result_free(&r);
    tw_stream_free(s);
}

/* The opaque decoder a module publishes: new, feed, finish, reset, free. */
Test(template, opaque_decoder_reused)
{
    tw_result a, b;
    cr_assert_eq(tw_format_lines.decode(sample, strlen(sample), NULL, &a), TW_OK);
    tw_lines_dec *d = tw_lines_dec_new(NULL, NULL, NULL);
    cr_assert_not_null(d);
    for (int round = 0; round < 3; round++) {
        if (round)
            cr_assert_eq(tw_lines_dec_reset(d, NULL, NULL, NULL), TW_OK);
        cr_assert_eq(tw_lines_dec_feed(d, sample, 7), TW_OK);
        cr_assert_eq(tw_lines_dec_feed(d, sample + 7, strlen(sample) - 7), TW_OK);
        cr_assert_eq(tw_lines_dec_finish(d, &b), TW_OK);
        char *ja = tw_test_neutral(&a), *jb = tw_test_neutral(&b);
        cr_assert_str_eq(jb, ja, "round %d", round);
        free(jb);
        tw_result_free(&b);
        cr_assert_eq(tw_lines_dec_finish(d, &b), TW_ERR_STATE, "a second finish");
        cr_assert_eq(b.msg.ncalls, 0);
        cr_assert_eq(tw_lines_dec_feed(d, "x", 1), TW_ERR_STATE, "a feed after finish");
        tw_result_free(&b); /* the empty result of the second finish */
        /* a reset in the middle of a decode drops what it held */
        cr_assert_eq(tw_lines_dec_reset(d, NULL, NULL, NULL), TW_OK);
        cr_assert_eq(tw_lines_dec_feed(d, "CALL x {}\npartial", 17), TW_OK);
        cr_assert_eq(tw_lines_dec_reset(d, NULL, NULL, NULL), TW_OK);
        cr_assert_eq(tw_lines_dec_feed(d, sample, strlen(sample)), TW_OK);
        cr_assert_eq(tw_lines_dec_finish(d, &b), TW_OK);
        jb = tw_test_neutral(&b);
        cr_assert_str_eq(jb, ja, "round %d, after a reset mid-decode", round);
        free(ja);
        free(jb);
        tw_result_free(&b);
    }
    tw_lines_dec_free(d);
    tw_lines_dec_free(NULL);
    tw_result_free(&a);
}
