/*
 * Kimi K2 (docs/formats/kimi-k2.md): the decode fixtures of
 * tests/data/decode/kimi-k2 (batch and every chunked replay), and what they
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
#include "toolwire/json.h"
#include "toolwire/kimi.h"
#include "work.h"
#include "twtest.h"

#define SAMPLE                                                                                     \
    "<think>The user wants the weather.</think>Let me check."                                      \
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"                       \
    "<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|>"                           \
    "<|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{\"tz\": \"CET\"}"         \
    "<|tool_call_end|><|tool_calls_section_end|><|im_end|>"

Test(kimi, decode_fixtures)
{
    tw_test_decode_dir("tests/data/decode/kimi-k2", 25);
}

static void check_sample(const tw_result *r)
{
    cr_assert_str_eq(r->msg.thinking.data ? r->msg.thinking.data : "",
                     "The user wants the weather.");
    cr_assert_str_eq(r->msg.content.data ? r->msg.content.data : "", "Let me check.");
    cr_assert_eq(r->msg.ncalls, 2);
    cr_assert_str_eq(r->msg.calls[0].id, "functions.get_weather:0");
    cr_assert_str_eq(r->msg.calls[0].name, "get_weather");
    cr_assert_str_eq(r->msg.calls[1].id, "functions.get_time:1");
    cr_assert_str_eq(r->msg.calls[1].name, "get_time");
    cr_assert_eq(r->errors.len, 0);
    cr_assert_eq(r->warnings.len, 0);
    cr_assert_str_eq(r->finish_reason, "tool_calls");
}

/* The sample cut into two pieces at every byte (every special token split
 * at each of its bytes), and into three around every pair of cuts in the
 * section: one result. */
Test(kimi, split_at_every_byte)
{
    const char *s = SAMPLE;
    size_t n = strlen(s);
    tw_kimi_dec *d = tw_kimi_dec_new(NULL, NULL, NULL);
    cr_assert_not_null(d);
    for (size_t cut = 0; cut <= n; cut++) {
        cr_assert_eq(tw_kimi_dec_reset(d, NULL, NULL, NULL), TW_OK);
        cr_assert_eq(tw_kimi_dec_feed(d, s, cut), TW_OK);
        cr_assert_eq(tw_kimi_dec_feed(d, s + cut, n - cut), TW_OK);
        tw_result r;
        cr_assert_eq(tw_kimi_dec_finish(d, &r), TW_OK);
        check_sample(&r);
        tw_kimi_dec_recycle(d, &r);
    }
    for (size_t a = 40; a < n; a += 7)
        for (size_t b = a; b <= n; b += 5) {
            cr_assert_eq(tw_kimi_dec_reset(d, NULL, NULL, NULL), TW_OK);
            cr_assert_eq(tw_kimi_dec_feed(d, s, a), TW_OK);
            cr_assert_eq(tw_kimi_dec_feed(d, s + a, b - a), TW_OK);
            cr_assert_eq(tw_kimi_dec_feed(d, s + b, n - b), TW_OK);
            tw_result r;
            cr_assert_eq(tw_kimi_dec_finish(d, &r), TW_OK);
            check_sample(&r);
            tw_result_free(&r);
        }
    tw_kimi_dec_free(d);
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
    /* one letter per run of the same kind */
    if (s->n == 0 || s->kinds[s->n - 1] != c)
        if (s->n + 1 < sizeof s->kinds)
            s->kinds[s->n++] = c;
    if (ev->kind == TW_EV_TOOL_CALL && ev->call)
        snprintf(s->text + strlen(s->text), sizeof s->text - strlen(s->text), "[%s]",
                 ev->call->id ? ev->call->id : "");
    return TW_OK;
}

/* Events come in the order of the output, byte by byte as in one piece; the
 * call event carries the model's id. */
Test(kimi, events_in_order)
{
    const char *s = SAMPLE;
    size_t n = strlen(s);
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        seen sn;
        memset(&sn, 0, sizeof sn);
        tw_kimi_dec *d = tw_kimi_dec_new(NULL, on_event, &sn);
        if (bytewise)
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(tw_kimi_dec_feed(d, s + i, 1), TW_OK);
        else
            cr_assert_eq(tw_kimi_dec_feed(d, s, n), TW_OK);
        tw_result r;
        cr_assert_eq(tw_kimi_dec_finish(d, &r), TW_OK);
        sn.kinds[sn.n] = '\0';
        cr_assert_str_eq(sn.kinds, "tcT", "events %s", sn.kinds);
        cr_assert_str_eq(sn.text, "[functions.get_weather:0][functions.get_time:1]");
        tw_result_free(&r);
        tw_kimi_dec_free(d);
    }
}

/* A decoder reset after a failed or unfinished decode gives a fresh
 * decoder's result, forced_open taken from the new options. */
Test(kimi, reset_reuse)
{
    tw_kimi_dec *d = tw_kimi_dec_new(NULL, NULL, NULL);
    const char *open = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_";
    cr_assert_eq(tw_kimi_dec_feed(d, open, strlen(open)), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.forced_open = true;
    cr_assert_eq(tw_kimi_dec_reset(d, &o, NULL, NULL), TW_OK);
    const char *t = "why</think>answer";
    cr_assert_eq(tw_kimi_dec_feed(d, t, strlen(t)), TW_OK);
    tw_result r;
    cr_assert_eq(tw_kimi_dec_finish(d, &r), TW_OK);
    cr_assert_str_eq(r.msg.thinking.data, "why");
    cr_assert_str_eq(r.msg.content.data, "answer");
    cr_assert_eq(r.errors.len, 0);
    tw_kimi_dec_recycle(d, &r);
    /* a second finish is refused, the result empty */
    cr_assert_eq(tw_kimi_dec_finish(d, &r), TW_ERR_STATE);
    cr_assert_eq(r.msg.ncalls, 0);
    tw_result_free(&r);
    cr_assert_eq(tw_kimi_dec_reset(d, NULL, NULL, NULL), TW_OK);
    cr_assert_eq(tw_kimi_dec_feed(d, SAMPLE, strlen(SAMPLE)), TW_OK);
    cr_assert_eq(tw_kimi_dec_finish(d, &r), TW_OK);
    check_sample(&r);
    tw_result_free(&r);
    tw_kimi_dec_free(d);
}

static void many_calls(tw_buf *b, size_t n)
{
    tw_buf_puts(b, "Calling.<|tool_calls_section_begin|>");
    for (size_t i = 0; i < n; i++)
        tw_buf_printf(b,
                      "<|tool_call_begin|>functions.f:%zu<|tool_call_argument_begin|>{\"i\": %zu}"
                      "<|tool_call_end|>",
                      i, i);
    tw_buf_puts(b, "<|tool_calls_section_end|>");
}

/* Work grows with the input, not with calls x bytes, in one piece and fed
 * byte by byte (the open call's search resumes). */
Test(kimi, linear_work)
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
            tw_kimi_dec *d = tw_kimi_dec_new(&o, NULL, NULL);
            tw_work_reset();
            if (bytewise)
                for (size_t i = 0; i < b.len; i++)
                    cr_assert_eq(tw_kimi_dec_feed(d, b.data + i, 1), TW_OK);
            else
                cr_assert_eq(tw_kimi_dec_feed(d, b.data, b.len), TW_OK);
            tw_result r;
            cr_assert_eq(tw_kimi_dec_finish(d, &r), TW_OK);
            uint64_t work = tw_work_count();
            cr_assert_eq(r.msg.ncalls, n);
            cr_assert_eq(r.errors.len, 0);
            per_byte[k][bytewise] = work / b.len;
            cr_assert_leq(work, 16 * (uint64_t)b.len, "%zu calls: %llu units for %zu bytes", n,
                          (unsigned long long)work, b.len);
            tw_result_free(&r);
            tw_kimi_dec_free(d);
        }
        tw_buf_free(&b);
    }
    /* four times the calls: about the same work per byte */
    for (int bytewise = 0; bytewise < 2; bytewise++)
        cr_assert_leq(per_byte[1][bytewise], per_byte[0][bytewise] + 2);
}

/* The output encoder's bytes decode to the same result; an id the
 * decoder would not read back is rewritten with a warning. */
Test(kimi, output_encoder_round_trip)
{
    tw_result r;
    cr_assert_eq(tw_kimi_output_decode(SAMPLE, strlen(SAMPLE), NULL, &r), TW_OK);
    tw_buf out = {0};
    tw_diag_list w = {0};
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.warnings = &w;
    const tw_encoder_ops *e = tw_encoder_find("kimi-k2");
    cr_assert_not_null(e);
    cr_assert_eq(e->encode_result(&r, &eo, &out), TW_OK);
    cr_assert_eq(w.len, 0);
    tw_result back;
    cr_assert_eq(tw_kimi_output_decode(out.data, out.len, NULL, &back), TW_OK);
    check_sample(&back);
    tw_result_free(&back);
    /* under forced_open the same bytes read the same */
    tw_decode_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.forced_open = true;
    cr_assert_eq(tw_kimi_output_decode(out.data, out.len, &fo, &back), TW_OK);
    check_sample(&back);
    tw_result_free(&back);
    /* a foreign id */
    strcpy(r.msg.calls[0].id, "call_abc"); /* shorter than the id it replaces */
    out.len = 0;
    cr_assert_eq(e->encode_result(&r, &eo, &out), TW_OK);
    cr_assert_eq(w.len, 1);
    cr_assert_eq(w.items[0].code, TW_D_NOT_CARRIED);
    cr_assert_not_null(tw_memmem(out.data, out.len, "functions.get_weather:0<|tool_call_arg", 38));
    tw_diag_list_free(&w);
    tw_buf_free(&out);
    tw_result_free(&r);
}

/* The reader gives back the history calls with the template's ids and each
 * result's tool_call_id from its "## Return of" line. */
Test(kimi, prompt_reader_ids)
{
    static const char prompt[] =
        "<|im_system|>system<|im_middle|>You are Kimi, an AI assistant created by Moonshot "
        "AI.<|im_end|>\n<|im_user|>user<|im_middle|>Both?<|im_end|><|im_assistant|>assistant<|im_"
        "middle|><|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_"
        "call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions."
        "get_time:1<|tool_call_argument_begin|>{\"tz\": \"UTC\"}<|tool_call_end|><|tool_calls_"
        "section_end|><|im_end|><|im_system|>tool<|im_middle|>## Return of "
        "functions.get_weather:0\n18<|im_end|><|im_system|>tool<|im_middle|>## Return of "
        "functions.get_time:1\n12:00<|im_end|><|im_assistant|>assistant<|im_middle|>";
    tw_request r;
    tw_error err = {0};
    cr_assert_eq(tw_kimi_prompt_read(prompt, sizeof prompt - 1, NULL, &r, &err), TW_OK, "%s",
                 err.message);
    cr_assert_eq(r.nmessages, 4);
    cr_assert_eq(r.messages[0].role, TW_ROLE_USER);
    const tw_message *a = &r.messages[1];
    cr_assert_eq(a->ncalls, 2);
    cr_assert_str_eq(a->calls[0].id, "functions.get_weather:0");
    cr_assert_str_eq(a->calls[0].name, "get_weather");
    cr_assert_str_eq(a->calls[1].id, "functions.get_time:1");
    cr_assert_str_eq(a->calls[1].name, "get_time");
    cr_assert_str_eq(r.messages[2].tool_call_id, "functions.get_weather:0");
    cr_assert_str_eq(r.messages[3].tool_call_id, "functions.get_time:1");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(r.options, "add_generation_prompt")));
    /* written again: the same bytes, no warning (the ids are the template's) */
    tw_diag_list w = {0};
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.warnings = &w;
    tw_buf out = {0};
    cr_assert_eq(tw_kimi_prompt_encode(&r, &eo, &out), TW_OK);
    cr_assert_eq(out.len, sizeof prompt - 1);
    cr_assert_eq(memcmp(out.data, prompt, out.len), 0);
    cr_assert_eq(w.len, 0, "%s", w.len ? w.items[0].message : "");
    /* a prompt that is not Kimi's is refused with a reason */
    tw_request bad;
    cr_assert_neq(tw_kimi_prompt_read("<|im_start|>user\nhi<|im_end|>\n", 29, NULL, &bad, &err),
                  TW_OK);
    cr_assert_neq(err.message[0], '\0');
    cr_assert_eq(bad.nmessages, 0);
    tw_buf_free(&out);
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

/* Arguments whose JSON spells <|im_end|> (a \u003c escape in the request)
 * would end the turn inside the call: refused, with the reason. */
Test(kimi, prompt_refuses_a_token_in_arguments)
{
    const char *json = "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}, {\"role\": "
                       "\"assistant\", \"content\": \"\", \"tool_calls\": [{\"id\": \"a\", "
                       "\"name\": \"f\", \"arguments\": {\"s\": \"\\u003c|im_end|>\"}}]}]}";
    cJSON *j = cJSON_Parse(json);
    cr_assert_not_null(j);
    tw_request r;
    tw_error err = {0};
    cr_assert_eq(tw_request_read(j, NULL, &r, &err), TW_OK, "%s", err.message);
    tw_diag_list w = {0};
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.warnings = &w;
    tw_buf out = {0};
    cr_assert_eq(tw_kimi_prompt_encode(&r, &eo, &out), TW_ERR_INVALID);
    cr_assert_eq(out.len, 0);
    bool named = false;
    for (size_t i = 0; i < w.len; i++)
        named |= strstr(w.items[i].message, "refused") != NULL;
    cr_assert(named);
    tw_buf_free(&out);
    tw_diag_list_free(&w);
    tw_request_free(&r);
    cJSON_Delete(j);
}
