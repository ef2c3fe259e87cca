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
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/gemma.h"
#include "toolwire/json.h"
#include "twtest.h"
#include "work.h"

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

static void split_all(const char *s, const tw_decode_opts *o)
{
    size_t n = strlen(s);
    tw_gemma_dec *d = tw_gemma_dec_new(o, NULL, NULL);
    cr_assert_not_null(d);
    for (size_t cut = 0; cut <= n; cut++) {
        cr_assert_eq(tw_gemma_dec_reset(d, o, NULL, NULL), TW_OK);
        cr_assert_eq(tw_gemma_dec_feed(d, s, cut), TW_OK);
        cr_assert_eq(tw_gemma_dec_feed(d, s + cut, n - cut), TW_OK);
        tw_result r;
        cr_assert_eq(tw_gemma_dec_finish(d, &r), TW_OK);
        check_sample(&r, 1);
        tw_gemma_dec_recycle(d, &r);
    }
    for (size_t a = 30; a < n; a += 7)
        for (size_t b = a; b <= n; b += 5) {
            cr_assert_eq(tw_gemma_dec_reset(d, o, NULL, NULL), TW_OK);
            cr_assert_eq(tw_gemma_dec_feed(d, s, a), TW_OK);
            cr_assert_eq(tw_gemma_dec_feed(d, s + a, b - a), TW_OK);
            cr_assert_eq(tw_gemma_dec_feed(d, s + b, n - b), TW_OK);
            tw_result r;
            cr_assert_eq(tw_gemma_dec_finish(d, &r), TW_OK);
            check_sample(&r, 1);
            tw_result_free(&r);
        }
    tw_gemma_dec_free(d);
}

/* The samples cut into two pieces at every byte (every special token split
 * at each of its bytes), and into three around pairs of cuts: one result. */
Test(gemma, split_at_every_byte)
{
    split_all(SAMPLE, NULL);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    split_all(SAMPLE_OPEN, &o);
}

typedef struct seen {
    char kinds[64];
    size_t n;
    char text[256];
} seen;

static tw_status on_event(void *user, const tw_event *ev)
{
    seen *s = user;
    char c = ev->kind == TW_EV_CONTENT     ? 'c'
             : ev->kind == TW_EV_THINKING  ? 't'
             : ev->kind == TW_EV_TOOL_CALL ? 'T'
             : ev->kind == TW_EV_ERROR     ? 'E'
             : ev->kind == TW_EV_WARNING   ? 'W'
                                           : '?';
    if (s->n == 0 || s->kinds[s->n - 1] != c)
        if (s->n + 1 < sizeof s->kinds)
            s->kinds[s->n++] = c;
    if (ev->kind == TW_EV_TOOL_CALL && ev->call)
        snprintf(s->text + strlen(s->text), sizeof s->text - strlen(s->text), "[%s %s]",
                 ev->call->id ? ev->call->id : "", ev->call->name ? ev->call->name : "");
    return TW_OK;
}

/* Events come in the order of the output, byte by byte as in one piece; a
 * call's event comes at its </tool_call>. */
Test(gemma, events_in_order)
{
    const char *s = SAMPLE;
    size_t n = strlen(s);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        seen sn;
        memset(&sn, 0, sizeof sn);
        tw_gemma_dec *d = tw_gemma_dec_new(NULL, on_event, &sn);
        if (bytewise)
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(tw_gemma_dec_feed(d, s + i, 1), TW_OK);
        else
            cr_assert_eq(tw_gemma_dec_feed(d, s, n), TW_OK);
        tw_result r;
        cr_assert_eq(tw_gemma_dec_finish(d, &r), TW_OK);
        sn.kinds[sn.n] = '\0';
        cr_assert_str_eq(sn.kinds, "tcTWT", "events %s", sn.kinds);
        cr_assert_str_eq(sn.text, "[call_1 get_weather][call_2 get_time]");
        tw_result_free(&r);
        tw_gemma_dec_free(d);
    }
}

/* A decoder reset after an unfinished decode gives a fresh decoder's
 * result, forced_open taken from the new options. */
Test(gemma, reset_reuse)
{
    tw_gemma_dec *d = tw_gemma_dec_new(NULL, NULL, NULL);
    const char *open = "<|tool_call>call:f{a:" Q "x";
    cr_assert_eq(tw_gemma_dec_feed(d, open, strlen(open)), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    cr_assert_eq(tw_gemma_dec_reset(d, &o, NULL, NULL), TW_OK);
    const char *t = "why<channel|>answer";
    cr_assert_eq(tw_gemma_dec_feed(d, t, strlen(t)), TW_OK);
    tw_result r;
    cr_assert_eq(tw_gemma_dec_finish(d, &r), TW_OK);
    cr_assert_str_eq(r.msg.thinking.data, "why");
    cr_assert_str_eq(r.msg.content.data, "answer");
    cr_assert_eq(r.errors.len, 0);
    tw_gemma_dec_recycle(d, &r);
    cr_assert_eq(tw_gemma_dec_finish(d, &r), TW_ERR_STATE);
    cr_assert_eq(r.msg.ncalls, 0);
    tw_result_free(&r);
    cr_assert_eq(tw_gemma_dec_reset(d, NULL, NULL, NULL), TW_OK);
    cr_assert_eq(tw_gemma_dec_feed(d, SAMPLE, strlen(SAMPLE)), TW_OK);
    cr_assert_eq(tw_gemma_dec_finish(d, &r), TW_OK);
    check_sample(&r, 1);
    tw_result_free(&r);
    tw_gemma_dec_free(d);
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
    uint64_t per_byte[2][2];
    for (int k = 0; k < 2; k++) {
        size_t n = k ? 8000 : 2000;
        tw_buf b = {0};
        many_calls(&b, n);
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_calls = n;
        for (int bytewise = 0; bytewise < 2; bytewise++) {
            tw_gemma_dec *d = tw_gemma_dec_new(&o, NULL, NULL);
            tw_work_reset();
            if (bytewise)
                for (size_t i = 0; i < b.len; i++)
                    cr_assert_eq(tw_gemma_dec_feed(d, b.data + i, 1), TW_OK);
            else
                cr_assert_eq(tw_gemma_dec_feed(d, b.data, b.len), TW_OK);
            tw_result r;
            cr_assert_eq(tw_gemma_dec_finish(d, &r), TW_OK);
            uint64_t work = tw_work_count();
            cr_assert_eq(r.msg.ncalls, n);
            cr_assert_eq(r.errors.len, 0);
            per_byte[k][bytewise] = work / b.len;
            cr_assert_leq(work, 16 * (uint64_t)b.len, "%zu calls: %llu units for %zu bytes", n,
                          (unsigned long long)work, b.len);
            tw_result_free(&r);
            tw_gemma_dec_free(d);
        }
        tw_buf_free(&b);
    }
    for (int bytewise = 0; bytewise < 2; bytewise++)
        cr_assert_leq(per_byte[1][bytewise], per_byte[0][bytewise] + 2);
}

/* The output encoder's bytes decode to the same result, forced open or
 * not; what the decoder would read otherwise warns not_carried. */
Test(gemma, output_encoder_round_trip)
{
    tw_result r;
    cr_assert_eq(tw_gemma_output_decode(SAMPLE, strlen(SAMPLE), NULL, &r), TW_OK);
    tw_buf out = {0};
    tw_diag_list w = {0};
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.warnings = &w;
    const tw_encoder_ops *e = tw_encoder_find("gemma4");
    cr_assert_not_null(e);
    cr_assert_eq(e->encode_result(&r, &eo, &out), TW_OK);
    cr_assert_eq(w.len, 0);
    tw_result back;
    cr_assert_eq(tw_gemma_output_decode(out.data, out.len, NULL, &back), TW_OK);
    check_sample(&back, 0);
    tw_result_free(&back);
    tw_decode_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.forced_open = true;
    cr_assert_eq(tw_gemma_output_decode(out.data, out.len, &fo, &back), TW_OK);
    check_sample(&back, 0);
    tw_result_free(&back);
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
