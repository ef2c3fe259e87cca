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
#include "dialect_tests.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/kimi.h"
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
    tw_dlt_split("kimi-k2", NULL, SAMPLE, strlen(SAMPLE), check_sample, 40, 7, 5);
}

/* Events come in the order of the output, byte by byte as in one piece; the
 * call event carries the model's id. */
Test(kimi, events_in_order)
{
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        tw_dlt_events ev;
        tw_result r;
        tw_dlt_decode("kimi-k2", NULL, SAMPLE, strlen(SAMPLE), bytewise, &ev, &r);
        cr_assert_str_eq(ev.kinds, "tcT", "events %s", ev.kinds);
        cr_assert_str_eq(ev.calls,
                         "[functions.get_weather:0 get_weather][functions.get_time:1 get_time]");
        tw_result_free(&r);
        tw_dlt_events_free(&ev);
    }
}

/* A decoder reset after a failed or unfinished decode gives a fresh
 * decoder's result, forced_open taken from the new options. */
Test(kimi, reset_reuse)
{
    tw_dlt_reset_reuse("kimi-k2",
                       "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_",
                       "why</think>answer", "why", "answer", NULL, SAMPLE, check_sample);
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
    tw_dlt_linear("kimi-k2", many_calls, 2000, 16, 2);
}

/* The output encoder's bytes decode to the same result, forced open or
 * not; an id the decoder would not read back is rewritten with a warning. */
Test(kimi, output_encoder_round_trip)
{
    tw_result r;
    tw_buf out;
    tw_encode_opts eo;
    tw_diag_list w;
    tw_dlt_round_trip("kimi-k2", NULL, NULL, SAMPLE, check_sample, 0, &r, &out, &eo, &w);
    /* a foreign id */
    strcpy(r.msg.calls[0].id, "call_abc"); /* shorter than the id it replaces */
    out.len = 0;
    cr_assert_eq(tw_encoder_find("kimi-k2")->encode_result(&r, &eo, &out), TW_OK);
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
