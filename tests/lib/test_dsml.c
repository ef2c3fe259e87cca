/*
 * DeepSeek V3.2 DSML (dsml): the decode fixtures of tests/data/decode/dsml,
 * then what they cannot express: the events of a push decode, reset and
 * reuse, a real sample split at every byte in two pieces, linear work on
 * many invokes and a long value fed a byte at a time, and the output
 * encoder read back by the decoder. Then the prompt (deepseek-v3.2-prompt;
 * its renderings are tests/lib/test_dialect_prompts.c's): the template's
 * refusal, the not_carried warnings, the reader's refusals with their
 * offsets, and a long prompt read back and written again in linear work.
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

/* ===================== the prompt (deepseek-v3.2-prompt) ===================== */

#define BOS "<" BAR "begin\xe2\x96\x81of\xe2\x96\x81sentence" BAR ">"
#define USER "<" BAR "User" BAR ">"
#define ASSISTANT "<" BAR "Assistant" BAR ">"
#define RESULTS(r) "\n\n<function_results>\n<result>" r "</result>\n</function_results>"
#define ONE_CALL(name, key, v)                                                                     \
    "\n\n" CALLS_OPEN "\n" INVOKE(name) "\n" PARAM(key, "true") v PARAM_CLOSE "\n" INVOKE_CLOSE    \
                                                                              "\n" CALLS_CLOSE

static void request_of(const char *json, tw_request *r)
{
    cJSON *j = cJSON_Parse(json);
    cr_assert_not_null(j, "%s", json);
    tw_error why = {0};
    cr_assert_eq(tw_request_read(j, NULL, r, &why), TW_OK, "%s", why.message);
    cJSON_Delete(j);
}

/* The message of the first warning holding `part`, or NULL. */
static const char *warned(const tw_diag_list *w, const char *part)
{
    for (size_t i = 0; i < w->len; i++)
        if (strstr(w->items[i].message, part))
            return w->items[i].message;
    return NULL;
}

Test(dsml_prompt, refuses_arguments_not_object_as_the_template)
{
    /* the template fails on args.items() (or on its missing from_json filter
     * for a string): the neutral request reader refuses such arguments, so
     * they are set here directly; the messages are Jinja's */
    static const struct {
        const char *json;
        const char *message;
    } cases[] = {
        {"[1, 2]", "'list object' has no attribute 'items'"},
        {"7", "'int object' has no attribute 'items'"},
        {"7.5", "'float object' has no attribute 'items'"},
        {"1e3", "'float object' has no attribute 'items'"},
        {"true", "'bool object' has no attribute 'items'"},
        {"null", "'None' has no attribute 'items'"},
        {"\"{}\"", "No filter named 'from_json' found."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tw_request r;
        request_of("{\"messages\": [{\"role\": \"user\", \"content\": \"Go\"}, {\"role\": "
                   "\"assistant\", \"content\": \"\", \"tool_calls\": [{\"id\": \"call_1\", "
                   "\"name\": \"calc\", \"arguments\": {}}]}]}",
                   &r);
        tw_call *c = &r.messages[1].calls[0];
        cJSON_Delete(c->arguments);
        /* parsed as the library parses (the spelling kept: 1e3 is a float) */
        tw_error je;
        cr_assert_eq(tw_json_parse(cases[i].json, strlen(cases[i].json), 0, &c->arguments, &je),
                     TW_OK, "%s", cases[i].json);
        tw_diag_list w = {0};
        tw_encode_opts o;
        memset(&o, 0, sizeof o);
        o.warnings = &w;
        tw_buf out = {0};
        cr_expect_eq(tw_dsml_prompt_encode(&r, &o, &out), TW_ERR_INVALID, "%s", cases[i].json);
        cr_expect_eq(out.len, 0, "%s: %zu bytes written", cases[i].json, out.len);
        cr_expect_not_null(warned(&w, cases[i].message), "%s: no warning naming %s", cases[i].json,
                           cases[i].message);
        tw_buf_free(&out);
        tw_diag_list_free(&w);
        tw_request_free(&r);
    }
}

Test(dsml_prompt, not_carried_warnings)
{
    static const struct {
        const char *json;
        const char *warning;
    } cases[] = {
        {"{\"messages\": [{\"role\": \"user\", \"content\": \"w\"}, {\"role\": \"assistant\", "
         "\"tool_calls\": [{\"id\": \"toolu_1\", \"name\": \"f\", \"arguments\": {}}]}, "
         "{\"role\": \"tool\", \"tool_call_id\": \"toolu_1\", \"content\": \"r\"}]}",
         "call ids not carried"},
        {"{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"assistant\", "
         "\"content\": \"b\", \"thinking\": \"why\"}, {\"role\": \"user\", \"content\": \"c\"}], "
         "\"options\": {\"add_generation_prompt\": true, \"thinking\": true}}",
         "thinking of assistant messages not carried"},
        {"{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"system\", "
         "\"content\": \"s\"}]}",
         "the place of a system message"},
        {"{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}], \"options\": {\"thinking\": "
         "true}}",
         "thinking not carried"},
        {"{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"tool\", "
         "\"tool_call_id\": \"x\", \"content\": \"42\"}]}",
         "a tool result that does not follow the calls"},
        {"{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"assistant\", "
         "\"content\": \"b\"}], \"options\": {\"add_generation_prompt\": true}}",
         "add_generation_prompt not carried"},
        {"{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"assistant\", "
         "\"tool_calls\": [{\"id\": \"call_1\", \"name\": \"f\", \"arguments\": {\"k\": "
         "\"x" PARAM_CLOSE "\\ny\"}}]}]}",
         "the prompt's reader takes as markup"},
        {"{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}",
         "model not carried"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tw_request r;
        request_of(cases[i].json, &r);
        tw_diag_list w = {0};
        tw_encode_opts o;
        memset(&o, 0, sizeof o);
        o.warnings = &w;
        tw_buf out = {0};
        cr_expect_eq(tw_dsml_prompt_encode(&r, &o, &out), TW_OK, "%s", cases[i].json);
        cr_expect_not_null(warned(&w, cases[i].warning), "case %zu: no warning '%s' (%zu others)",
                           i, cases[i].warning, w.len);
        for (size_t k = 0; k < w.len; k++)
            cr_expect_eq(w.items[k].code, TW_D_NOT_CARRIED, "%s", w.items[k].message);
        tw_buf_free(&out);
        tw_diag_list_free(&w);
        tw_request_free(&r);
    }
    /* what the template carries draws no warning */
    tw_request r;
    request_of("{\"messages\": [{\"role\": \"user\", \"content\": \"w\"}, {\"role\": "
               "\"assistant\", \"tool_calls\": [{\"id\": \"call_1\", \"name\": \"f\", "
               "\"arguments\": {\"n\": 1}}]}, {\"role\": \"tool\", \"tool_call_id\": \"call_1\", "
               "\"content\": \"r\"}], \"options\": {\"add_generation_prompt\": true, \"thinking\": "
               "true}}",
               &r);
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = &w;
    tw_buf out = {0};
    cr_assert_eq(tw_dsml_prompt_encode(&r, &o, &out), TW_OK);
    cr_expect_eq(w.len, 0, "%s", w.len ? w.items[0].message : "");
    tw_buf_free(&out);
    tw_diag_list_free(&w);
    tw_request_free(&r);
}

Test(dsml_prompt, reader_refuses_what_the_template_cannot_write)
{
    static const struct {
        const char *prompt;
        const char *at; /* the refusal's offset: where this first occurs */
        const char *why;
    } cases[] = {
        {BOS USER "a" ASSISTANT "<think>r</think>x" EOS USER "b", "<think>r", "before a user turn"},
        {BOS USER "a" ASSISTANT "</think>" ONE_CALL("f", "k", "v") EOS RESULTS("r") "\n\n<think>",
         "<think>", "disagree on thinking"},
        {BOS USER "a" ASSISTANT "</think>" ONE_CALL("f", "k", "v") EOS
         "\n\n<function_results>\n<result>r</result>x",
         "x", "not followed by </function_results>"},
        {BOS USER "a" ASSISTANT "</think>x", ASSISTANT, "not closed by"},
        {BOS USER "a" ASSISTANT "x" EOS, "x", "does not open with <think>"},
        {BOS USER "a" ASSISTANT "</think>\n\n" CALLS_OPEN "\n" INVOKE("f") "\n" PARAM(
             "k", "maybe") "v" PARAM_CLOSE "\n" INVOKE_CLOSE "\n" CALLS_CLOSE EOS,
         "maybe", "string=\"true\" or string=\"false\""},
        {BOS USER "a" ASSISTANT "</think>\n\n" CALLS_OPEN "\n" INVOKE("f") "\n" PARAM(
             "k", "false") "[\"\\u003c" BAR "end\xe2\x96\x81of\xe2\x96\x81sentence" BAR
                           ">\"]" PARAM_CLOSE "\n" INVOKE_CLOSE "\n" CALLS_CLOSE EOS,
         "[\"", "would write with"},
        {BOS USER "a" ASSISTANT "</think>\n\n" CALLS_OPEN "\n" CALLS_CLOSE EOS, CALLS_CLOSE,
         "without an invoke"},
        {BOS, NULL, "no messages"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = cases[i].prompt;
        size_t n = strlen(p);
        char *copy = malloc(n + 1); /* exact size: a read past the end is caught */
        memcpy(copy, p, n);
        tw_request r;
        tw_error err = {0};
        cr_expect_eq(tw_dsml_prompt_decode(copy, n, NULL, &r, &err), TW_ERR_INVALID,
                     "case %zu read", i);
        cr_expect_not_null(strstr(err.message, cases[i].why), "case %zu: %s", i, err.message);
        if (cases[i].at) {
            /* its first occurrence after the user turn's marker */
            const char *from = strstr(p, USER);
            const char *hit = strstr(from ? from : p, cases[i].at);
            cr_expect_eq(err.offset, (int64_t)(hit - p), "case %zu: offset %lld, want %td", i,
                         (long long)err.offset, hit - p);
        }
        cr_expect_eq(r.nmessages, 0, "case %zu: a failed read keeps messages", i);
        tw_request_free(&r);
        free(copy);
    }
}

/* A prompt of n rounds: user, a call, its result, an answer. */
static void rounds(tw_buf *b, size_t n)
{
    cr_assert_eq(tw_buf_puts(b, BOS "Be brief."), TW_OK);
    for (size_t i = 0; i < n; i++) {
        char one[512];
        int k = snprintf(one, sizeof one,
                         USER "q%zu" ASSISTANT "</think>" ONE_CALL("f", "k", "v%zu")
                             EOS RESULTS("r%zu") "\n\n</think>a%zu" EOS,
                         i, i, i, i);
        cr_assert_eq(tw_buf_append(b, one, (size_t)k), TW_OK);
    }
    cr_assert_eq(tw_buf_puts(b, USER "last" ASSISTANT "<think>"), TW_OK);
}

Test(dsml_prompt, read_back_and_linear_work)
{
    size_t prev = 0;
    for (size_t n = 1000; n <= 4000; n *= 4) {
        tw_buf b = {0};
        rounds(&b, n);
        char *copy = malloc(b.len);
        memcpy(copy, b.data, b.len);
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_messages = 4 * n + 8;
        tw_request r;
        tw_error err = {0};
        tw_work_reset();
        cr_assert_eq(tw_dsml_prompt_decode(copy, b.len, &o, &r, &err), TW_OK, "%s at %lld",
                     err.message, (long long)err.offset);
        uint64_t rw = tw_work_count();
        cr_assert_eq(r.nmessages, 1 + 4 * n + 1);
        /* system, then user, call, result, answer a round */
        cr_assert_eq(r.messages[3].role, TW_ROLE_TOOL);
        cr_assert_not_null(r.messages[3].tool_call_id);
        cr_assert_str_eq(r.messages[3].tool_call_id, r.messages[2].calls[0].id);
        cr_expect_lt(rw, 16 * (uint64_t)b.len, "%zu rounds: %llu units for %zu bytes", n,
                     (unsigned long long)rw, b.len);
        tw_encode_opts eo;
        memset(&eo, 0, sizeof eo);
        tw_diag_list w = {0};
        eo.warnings = &w;
        tw_buf out = {0};
        tw_work_reset();
        cr_assert_eq(tw_dsml_prompt_encode(&r, &eo, &out), TW_OK);
        uint64_t ew = tw_work_count();
        cr_expect_lt(ew, 16 * (uint64_t)b.len, "%zu rounds encoded: %llu units", n,
                     (unsigned long long)ew);
        cr_assert_eq(out.len, b.len);
        cr_assert(memcmp(out.data, b.data, b.len) == 0, "%zu rounds: not the same bytes", n);
        cr_expect_eq(w.len, 0, "%s", w.len ? w.items[0].message : "");
        cr_expect(prev == 0 || rw < 8 * prev, "work grew from %zu to %llu", prev,
                  (unsigned long long)rw);
        cr_log_info("%zu rounds, %zu bytes: read %.2f, encoded %.2f units a byte", n, b.len,
                    (double)rw / (double)b.len, (double)ew / (double)b.len);
        prev = (size_t)rw;
        tw_diag_list_free(&w);
        tw_buf_free(&out);
        tw_request_free(&r);
        free(copy);
        tw_buf_free(&b);
    }
}
