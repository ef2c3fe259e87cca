/*
 * DeepSeek V3.1 (deepseek-v3.1): the decode fixtures of
 * tests/data/decode/deepseek-v3.1, then what they cannot express: the
 * events of a push decode, reset and reuse, a real sample split at every
 * byte in two pieces, linear work on many calls and a long reasoning fed a
 * byte at a time, and the output encoder read back by the decoder.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "dialect_tests.h"
#include "toolwire/deepseek.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "twtest.h"
#include "work.h"

#define BAR "\xef\xbd\x9c"
#define SP "\xe2\x96\x81"
#define CALLS_BEGIN "<" BAR "tool" SP "calls" SP "begin" BAR ">"
#define CALLS_END "<" BAR "tool" SP "calls" SP "end" BAR ">"
#define CALL_BEGIN "<" BAR "tool" SP "call" SP "begin" BAR ">"
#define CALL_END "<" BAR "tool" SP "call" SP "end" BAR ">"
#define SEP "<" BAR "tool" SP "sep" BAR ">"
#define EOS "<" BAR "end" SP "of" SP "sentence" BAR ">"

/* A real shape: reasoning closed, content, two calls, end of sentence. */
static const char SAMPLE[] =
    "The user wants two cities.</think>Checking both." CALLS_BEGIN CALL_BEGIN "get_weather" SEP
    "{\"city\": \"Paris\"}" CALL_END CALL_BEGIN "get_weather" SEP
    "{\"city\": \"\xe6\x9d\xb1\xe4\xba\xac\"}" CALL_END CALLS_END EOS;

Test(deepseek, fixtures)
{
    tw_test_decode_dir("tests/data/decode/deepseek-v3.1", 25);
}

static void check_sample(const tw_result *r)
{
    cr_assert_eq(r->errors.len, 0, "%s", r->errors.len ? r->errors.items[0].message : "");
    cr_assert_eq(r->warnings.len, 0);
    cr_assert_str_eq(r->msg.thinking.data, "The user wants two cities.");
    cr_assert_str_eq(r->msg.content.data, "Checking both.");
    cr_assert_eq(r->msg.ncalls, 2);
    cr_assert_str_eq(r->msg.calls[0].name, "get_weather");
    cr_assert_str_eq(r->msg.calls[1].id, "call_2");
    cr_assert_str_eq(cJSON_GetObjectItem(r->msg.calls[1].arguments, "city")->valuestring,
                     "\xe6\x9d\xb1\xe4\xba\xac");
    cr_assert_str_eq(r->finish_reason, "tool_calls");
}

Test(deepseek, split_at_every_byte)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    tw_dlt_split("deepseek-v3.1", &o, SAMPLE, sizeof SAMPLE - 1, check_sample, 0, 0, 0);
}

Test(deepseek, events_in_order_byte_by_byte)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    tw_dlt_events l;
    tw_result r;
    tw_dlt_decode("deepseek-v3.1", &o, SAMPLE, sizeof SAMPLE - 1, 1, &l, &r);
    check_sample(&r);
    /* reasoning, content, then the two calls; no markup in the text sent */
    cr_assert_str_eq(l.kinds, "tcT", "%s", l.kinds);
    cr_assert_eq(l.thinking.len, r.msg.thinking.len);
    cr_assert_eq(memcmp(l.content.data, "Checking both.", 14), 0);
    cr_assert_eq(l.content.len, 14);
    tw_result_free(&r);
    tw_dlt_events_free(&l);
}

/* unterminated=direct: a reasoning never closed is the answer, and what the
 * events sent is that answer too (the reasoning is held until a </think> or
 * the end decides it); a closed one is sent as reasoning. */
Test(deepseek, direct_events_match_the_result)
{
    static const char *const in[] = {"The answer is 4.", "plan</think>answer"};
    static const char *const content[] = {"The answer is 4.", "answer"};
    static const char *const thinking[] = {"", "plan"};
    for (size_t i = 0; i < 2; i++) {
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.forced_open = true;
        o.unterminated = TW_UNTERM_DIRECT;
        tw_dlt_events l;
        tw_result r;
        tw_dlt_decode("deepseek-v3.1", &o, in[i], strlen(in[i]), 1, &l, &r);
        cr_assert_str_eq(r.msg.content.data ? r.msg.content.data : "", content[i]);
        cr_assert_eq(r.msg.thinking.len, strlen(thinking[i]));
        cr_assert_eq(l.content.len, r.msg.content.len, "input %zu", i);
        cr_assert_eq(memcmp(l.content.data, content[i], l.content.len), 0);
        cr_assert_eq(l.thinking.len, r.msg.thinking.len, "input %zu", i);
        cr_assert_eq(r.errors.len, i == 0 ? 1u : 0u);
        tw_result_free(&r);
        tw_dlt_events_free(&l);
    }
}

Test(deepseek, reset_and_reuse)
{
    tw_deepseek_dec *d = tw_deepseek_dec_new(NULL, NULL, NULL);
    /* a decode left half-way (inside a call), then reset */
    cr_assert_eq(tw_deepseek_dec_feed(d, CALLS_BEGIN CALL_BEGIN "f" SEP "{", 40), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    cr_assert_eq(tw_deepseek_dec_reset(d, &o, NULL, NULL), TW_OK);
    cr_assert_eq(tw_deepseek_dec_feed(d, SAMPLE, sizeof SAMPLE - 1), TW_OK);
    tw_result r;
    cr_assert_eq(tw_deepseek_dec_finish(d, &r), TW_OK);
    check_sample(&r);
    /* a second finish is out of order */
    tw_result r2;
    cr_assert_eq(tw_deepseek_dec_finish(d, &r2), TW_ERR_STATE);
    cr_assert_eq(r2.msg.ncalls, 0);
    cr_assert_eq(tw_deepseek_dec_feed(d, "x", 1), TW_ERR_STATE);
    tw_deepseek_dec_recycle(d, &r);
    /* reused without options: the reasoning is not forced open */
    cr_assert_eq(tw_deepseek_dec_reset(d, NULL, NULL, NULL), TW_OK);
    cr_assert_eq(tw_deepseek_dec_feed(d, "plain", 5), TW_OK);
    cr_assert_eq(tw_deepseek_dec_finish(d, &r), TW_OK);
    cr_assert_str_eq(r.msg.content.data, "plain");
    cr_assert_eq(r.msg.thinking.len, 0);
    tw_result_free(&r);
    tw_deepseek_dec_free(d);
}

/* n calls in one section. */
static void many(tw_buf *b, size_t n)
{
    cr_assert_eq(tw_buf_puts(b, "Calling." CALLS_BEGIN), TW_OK);
    for (size_t i = 0; i < n; i++) {
        char one[128];
        int k = snprintf(one, sizeof one, CALL_BEGIN "f%zu" SEP "{\"i\": %zu}" CALL_END, i, i);
        cr_assert_eq(tw_buf_append(b, one, (size_t)k), TW_OK);
    }
    cr_assert_eq(tw_buf_puts(b, CALLS_END), TW_OK);
}

Test(deepseek, linear_work_many_calls)
{
    for (size_t calls = 2000; calls <= 8000; calls *= 4) {
        tw_buf b = {0};
        many(&b, calls);
        uint64_t batch = tw_dlt_work("deepseek-v3.1", b.data, b.len, calls, b.len);
        uint64_t bytes = tw_dlt_work("deepseek-v3.1", b.data, b.len, calls, 1);
        cr_assert_lt(batch, 8 * (uint64_t)b.len, "%zu calls: %llu units for %zu bytes", calls,
                     (unsigned long long)batch, b.len);
        cr_assert_lt(bytes, 64 * (uint64_t)b.len, "%zu calls byte by byte: %llu units", calls,
                     (unsigned long long)bytes);
        tw_buf_free(&b);
    }
}

Test(deepseek, linear_work_long_held_section)
{
    /* a section inside the reasoning waits for a </think>: fed a byte at a
     * time, the wait must not rescan what it holds */
    tw_buf b = {0};
    cr_assert_eq(tw_buf_puts(&b, "plan" CALLS_BEGIN), TW_OK);
    for (int i = 0; i < 20000; i++)
        cr_assert_eq(tw_buf_puts(&b, "more reasoning "), TW_OK);
    cr_assert_eq(tw_buf_puts(&b, "</think>done"), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    tw_deepseek_dec *d = tw_deepseek_dec_new(&o, NULL, NULL);
    tw_work_reset();
    for (size_t i = 0; i < b.len; i++)
        cr_assert_eq(tw_deepseek_dec_feed(d, b.data + i, 1), TW_OK);
    tw_result r;
    cr_assert_eq(tw_deepseek_dec_finish(d, &r), TW_OK);
    cr_assert_lt(tw_work_count(), 64 * (uint64_t)b.len);
    cr_assert_str_eq(r.msg.content.data, "done");
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(r.msg.thinking.len, b.len - 8 - 4 - 1, "%zu", r.msg.thinking.len);
    tw_result_free(&r);
    tw_deepseek_dec_free(d);
    tw_buf_free(&b);
}

Test(deepseek, output_encoder_read_back)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    tw_result r;
    tw_buf out;
    tw_encode_opts eo;
    tw_diag_list w;
    tw_dlt_round_trip("deepseek-v3.1", &o, NULL, SAMPLE, check_sample, 0, &r, &out, &eo, &w);
    /* content that the decoder would read as markup is refused */
    tw_buf_free(&out);
    tw_buf_append(&r.msg.content, CALLS_BEGIN, sizeof CALLS_BEGIN - 1);
    cr_assert_eq(tw_encoder_find("deepseek-v3.1")->encode_result(&r, &eo, &out), TW_ERR_INVALID);
    cr_assert_eq(w.len, 1);
    cr_assert_eq(w.items[0].code, TW_D_NOT_CARRIED);
    tw_diag_list_free(&w);
    tw_buf_free(&out);
    tw_result_free(&r);
}
