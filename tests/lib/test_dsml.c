/*
 * DeepSeek V3.2 DSML (dsml): the decode fixtures of tests/data/decode/dsml,
 * then what they cannot express: the events of a push decode, reset and
 * reuse, a real sample split at every byte in two pieces, linear work on
 * many invokes and a long value fed a byte at a time, and the output
 * encoder read back by the decoder.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "dialect_tests.h"
#include "toolwire/decode.h"
#include "toolwire/dsml.h"
#include "toolwire/encode.h"
#include "twtest.h"
#include "work.h"

#define BAR "\xef\xbd\x9c"
#define TOK BAR "DSML" BAR
#define CALLS_OPEN "<" TOK "function_calls>"
#define CALLS_CLOSE "</" TOK "function_calls>"
#define INVOKE(n) "<" TOK "invoke name=\"" n "\">"
#define INVOKE_CLOSE "</" TOK "invoke>"
#define PARAM(k, s) "<" TOK "parameter name=\"" k "\" string=\"" s "\">"
#define PARAM_CLOSE "</" TOK "parameter>"
#define EOS "<" BAR "end\xe2\x96\x81of\xe2\x96\x81sentence" BAR ">"

/* A real shape (the template's layout): reasoning closed, content, two
 * invokes, end of sentence. */
static const char SAMPLE[] =
    "The user wants two cities.</think>Checking both.\n\n" CALLS_OPEN
    "\n" INVOKE("get_weather") "\n" PARAM("location", "true") "Paris" PARAM_CLOSE "\n" PARAM(
        "days", "false") "3" PARAM_CLOSE "\n" INVOKE_CLOSE
                         "\n" INVOKE("get_weather") "\n" PARAM(
                             "location", "true") "\xe6\x9d\xb1\xe4\xba\xac" PARAM_CLOSE
                                                 "\n" INVOKE_CLOSE "\n" CALLS_CLOSE EOS;

Test(dsml, fixtures)
{
    tw_test_decode_dir("tests/data/decode/dsml", 25);
}

static void check_sample(const tw_result *r)
{
    cr_assert_eq(r->errors.len, 0, "%s", r->errors.len ? r->errors.items[0].message : "");
    cr_assert_eq(r->warnings.len, 0);
    cr_assert_str_eq(r->msg.thinking.data, "The user wants two cities.");
    cr_assert_str_eq(r->msg.content.data, "Checking both.");
    cr_assert_eq(r->msg.ncalls, 2);
    cr_assert_str_eq(r->msg.calls[0].name, "get_weather");
    cr_assert_eq(cJSON_GetObjectItem(r->msg.calls[0].arguments, "days")->valuedouble, 3);
    cr_assert_str_eq(r->msg.calls[1].id, "call_2");
    cr_assert_str_eq(cJSON_GetObjectItem(r->msg.calls[1].arguments, "location")->valuestring,
                     "\xe6\x9d\xb1\xe4\xba\xac");
    cr_assert_str_eq(r->finish_reason, "tool_calls");
}

Test(dsml, split_at_every_byte)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    tw_dlt_split("dsml", &o, SAMPLE, sizeof SAMPLE - 1, check_sample, 0, 0, 0);
}

Test(dsml, events_in_order_byte_by_byte)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    tw_dlt_events l;
    tw_result r;
    tw_dlt_decode("dsml", &o, SAMPLE, sizeof SAMPLE - 1, 1, &l, &r);
    check_sample(&r);
    /* reasoning, content, then the two calls; no markup in the text sent */
    cr_assert_str_eq(l.kinds, "tcT", "%s", l.kinds);
    cr_assert_eq(l.thinking.len, r.msg.thinking.len);
    cr_assert_eq(l.content.len, 14);
    cr_assert_eq(memcmp(l.content.data, "Checking both.", 14), 0);
    tw_result_free(&r);
    tw_dlt_events_free(&l);
}

Test(dsml, reset_and_reuse)
{
    tw_dsml_dec *d = tw_dsml_dec_new(NULL, NULL, NULL);
    /* a decode left half-way (inside an invoke), then reset */
    static const char half[] = CALLS_OPEN INVOKE("f") PARAM("a", "true") "x";
    cr_assert_eq(tw_dsml_dec_feed(d, half, sizeof half - 1), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    cr_assert_eq(tw_dsml_dec_reset(d, &o, NULL, NULL), TW_OK);
    cr_assert_eq(tw_dsml_dec_feed(d, SAMPLE, sizeof SAMPLE - 1), TW_OK);
    tw_result r;
    cr_assert_eq(tw_dsml_dec_finish(d, &r), TW_OK);
    check_sample(&r);
    tw_result r2;
    cr_assert_eq(tw_dsml_dec_finish(d, &r2), TW_ERR_STATE);
    cr_assert_eq(r2.msg.ncalls, 0);
    cr_assert_eq(tw_dsml_dec_feed(d, "x", 1), TW_ERR_STATE);
    tw_dsml_dec_recycle(d, &r);
    /* reused without options: the reasoning is not forced open */
    cr_assert_eq(tw_dsml_dec_reset(d, NULL, NULL, NULL), TW_OK);
    cr_assert_eq(tw_dsml_dec_feed(d, "plain", 5), TW_OK);
    cr_assert_eq(tw_dsml_dec_finish(d, &r), TW_OK);
    cr_assert_str_eq(r.msg.content.data, "plain");
    cr_assert_eq(r.msg.thinking.len, 0);
    tw_result_free(&r);
    tw_dsml_dec_free(d);
}

/* n invokes in one block. */
static void many(tw_buf *b, size_t n)
{
    cr_assert_eq(tw_buf_puts(b, "Calling.\n\n" CALLS_OPEN "\n"), TW_OK);
    for (size_t i = 0; i < n; i++) {
        char one[256];
        int k = snprintf(one, sizeof one,
                         "<" TOK
                         "invoke name=\"f%zu\">\n" PARAM("i", "false") "%zu" PARAM_CLOSE "\n" PARAM(
                             "s", "true") "v%zu" PARAM_CLOSE "\n" INVOKE_CLOSE "\n",
                         i, i, i);
        cr_assert_eq(tw_buf_append(b, one, (size_t)k), TW_OK);
    }
    cr_assert_eq(tw_buf_puts(b, CALLS_CLOSE), TW_OK);
}

Test(dsml, linear_work_many_calls)
{
    for (size_t calls = 2000; calls <= 8000; calls *= 4) {
        tw_buf b = {0};
        many(&b, calls);
        uint64_t batch = tw_dlt_work("dsml", b.data, b.len, calls, b.len);
        uint64_t bytes = tw_dlt_work("dsml", b.data, b.len, calls, 1);
        cr_assert_lt(batch, 8 * (uint64_t)b.len, "%zu calls: %llu units for %zu bytes", calls,
                     (unsigned long long)batch, b.len);
        cr_assert_lt(bytes, 64 * (uint64_t)b.len, "%zu calls byte by byte: %llu units", calls,
                     (unsigned long long)bytes);
        tw_buf_free(&b);
    }
}

Test(dsml, linear_work_long_value)
{
    /* one long string value fed a byte at a time: the wait for the invoke's
     * end must not rescan what it holds */
    tw_buf b = {0};
    cr_assert_eq(tw_buf_puts(&b, CALLS_OPEN INVOKE("write") PARAM("text", "true")), TW_OK);
    for (int i = 0; i < 10000; i++)
        cr_assert_eq(tw_buf_puts(&b, "more text <"), TW_OK);
    cr_assert_eq(tw_buf_puts(&b, PARAM_CLOSE INVOKE_CLOSE CALLS_CLOSE), TW_OK);
    tw_dsml_dec *d = tw_dsml_dec_new(NULL, NULL, NULL);
    tw_work_reset();
    for (size_t i = 0; i < b.len; i++)
        cr_assert_eq(tw_dsml_dec_feed(d, b.data + i, 1), TW_OK);
    tw_result r;
    cr_assert_eq(tw_dsml_dec_finish(d, &r), TW_OK);
    cr_assert_lt(tw_work_count(), 64 * (uint64_t)b.len);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_assert_eq(strlen(cJSON_GetObjectItem(r.msg.calls[0].arguments, "text")->valuestring),
                 10000 * 11);
    tw_result_free(&r);
    tw_dsml_dec_free(d);
    tw_buf_free(&b);
}

Test(dsml, output_encoder_read_back)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    tw_result r;
    cr_assert_eq(tw_dsml_output_decode(SAMPLE, sizeof SAMPLE - 1, &o, &r), TW_OK);
    tw_buf out = {0};
    cr_assert_eq(tw_dsml_output_encode(&r, NULL, &out), TW_OK);
    /* the template's layout of calls */
    cr_assert_not_null(strstr(out.data, "\n\n" CALLS_OPEN "\n" INVOKE("get_weather") "\n" PARAM(
                                            "location", "true") "Paris" PARAM_CLOSE "\n"));
    cr_assert_not_null(strstr(out.data, PARAM("days", "false") "3" PARAM_CLOSE));
    tw_result back;
    cr_assert_eq(tw_dsml_output_decode(out.data, out.len, &o, &back), TW_OK);
    check_sample(&back);
    tw_result_free(&back);
    /* a string value holding a closing marker cannot be written back */
    cJSON_ReplaceItemInObject(r.msg.calls[1].arguments, "location",
                              cJSON_CreateString("a" PARAM_CLOSE "b"));
    out.len = 0;
    cr_assert_eq(tw_dsml_output_encode(&r, NULL, &out), TW_ERR_INVALID);
    tw_buf_free(&out);
    tw_result_free(&r);
}
