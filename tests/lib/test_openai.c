/*
 * OpenAI decoders: the fixtures of tests/data/decode/openai-*, the stream
 * result equal to the response result of the same completion, the same
 * result for every split of a stream, events as they arrive, and limits.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "decode_fixtures.h"
#include "toolwire/decode.h"
#include "toolwire/openai.h"
#include "twtest.h"
#include "../../src/wire_common.h" /* tw_wire_locate: internal to the library */

Test(openai_fixtures, response)
{
    tw_test_decode_dir("tests/data/decode/openai-response", 25);
}
Test(openai_fixtures, stream)
{
    tw_test_decode_dir("tests/data/decode/openai-stream", 25);
}

/* ---- helpers ---- */

/* The message, finish_reason and diagnostic codes (offsets differ between
 * a body and a stream). */
static void assert_same_message(const tw_result *a, const tw_result *b)
{
    cr_assert_eq(a->msg.content.len, b->msg.content.len);
    cr_assert(memcmp(a->msg.content.data, b->msg.content.data, a->msg.content.len) == 0,
              "content %s vs %s", a->msg.content.data, b->msg.content.data);
    cr_assert_str_eq(a->msg.thinking.data, b->msg.thinking.data);
    cr_assert_str_eq(a->finish_reason ? a->finish_reason : "",
                     b->finish_reason ? b->finish_reason : "");
    cr_assert_eq(a->msg.ncalls, b->msg.ncalls);
    for (size_t i = 0; i < a->msg.ncalls; i++) {
        cr_assert_str_eq(a->msg.calls[i].id, b->msg.calls[i].id);
        cr_assert_str_eq(a->msg.calls[i].name, b->msg.calls[i].name);
        cr_assert(tw_json_equal(a->msg.calls[i].arguments, b->msg.calls[i].arguments));
    }
    cr_assert_eq(a->errors.len, b->errors.len);
    for (size_t i = 0; i < a->errors.len; i++)
        cr_assert_eq(a->errors.items[i].code, b->errors.items[i].code);
    cr_assert_eq(a->warnings.len, b->warnings.len);
    for (size_t i = 0; i < a->warnings.len; i++)
        cr_assert_eq(a->warnings.items[i].code, b->warnings.items[i].code);
    cr_assert_str_eq(a->reasoning_field ? a->reasoning_field : "",
                     b->reasoning_field ? b->reasoning_field : "");
}

#define CH(delta, fin)                                                                             \
    "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":" delta       \
    ",\"finish_reason\":" fin "}]}\n\n"

typedef struct pair {
    const char *response;
    const char *stream;
} pair;

static const pair PAIRS[] = {
    {/* reasoning, content, two calls with fragments, a duplicate id */
     "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Let me check.\","
     "\"reasoning_content\":\"Two tools.\",\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\","
     "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": \\\"Paris\\\"}\"}},"
     "{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"{}\"}"
     "}]},"
     "\"finish_reason\":\"tool_calls\"}]}",
     CH("{\"role\":\"assistant\",\"reasoning_content\":\"Two \"}", "null") CH(
         "{\"reasoning_content\":\"tools.\"}",
         "null") CH("{\"content\":\"Let me \"}",
                    "null") CH("{\"content\":\"check.\"}",
                               "null") CH("{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":"
                                          "{\"name\":\"get_weather\",\"arguments\":\"\"}}]}",
                                          "null")
         CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\": \"}}]}",
            "null")
             CH("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Paris\\\"}\"}}]}",
                "null") CH("{\"tool_calls\":[{\"index\":1,\"id\":\"c\",\"function\":{\"name\":"
                           "\"get_time\",\"arguments\":\"{}\"}}]}",
                           "null") CH("{}", "\"tool_calls\"") "data: [DONE]\n\n"},
    {/* legacy function_call */
     "{\"choices\":[{\"index\":0,\"message\":{\"content\":null,\"function_call\":{\"name\":\"f\","
     "\"arguments\":\"{\\\"a\\\":1}\"}},\"finish_reason\":\"function_call\"}]}",
     CH("{\"function_call\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}", "null")
         CH("{\"function_call\":{\"arguments\":\":1}\"}}", "\"function_call\"") "data: [DONE]\n\n"},
    {/* refusal */
     "{\"choices\":[{\"index\":0,\"message\":{\"content\":null,\"refusal\":\"No way.\"},"
     "\"finish_reason\":\"stop\"}]}",
     CH("{\"refusal\":\"No \"}", "null")
         CH("{\"refusal\":\"way.\"}", "\"stop\"") "data: [DONE]\n\n"},
    {/* object arguments, a call refused for bad JSON, reasoning field */
     "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"x\",\"reasoning\":\"r\",\"tool_calls\":"
     "["
     "{\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":{\"k\":[1,2]}}},"
     "{\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{nope\"}}]},\"finish_reason\":"
     "\"tool_calls\"}]}",
     CH("{\"reasoning\":\"r\",\"content\":\"x\"}", "null")
         CH("{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":"
            "{\"k\":[1,2]}}},"
            "{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{no\"}}]}",
            "null") CH("{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"pe\"}}]}",
                       "\"tool_calls\"") "data: [DONE]\n\n"},
};

Test(openai, stream_equals_response)
{
    for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++) {
        tw_result a, b;
        tw_test_decode("openai-response", PAIRS[i].response, NULL, &a);
        tw_test_decode("openai-stream", PAIRS[i].stream, NULL, &b);
        assert_same_message(&a, &b);
        if (i == 0) {
            cr_assert_eq(a.msg.ncalls, 2);
            cr_assert_str_eq(a.msg.calls[1].id, "c__2");
        }
        if (i == 3)
            cr_assert_eq(a.errors.items[0].code, TW_D_TOOL_CALL_JSON);
        tw_result_free(&a);
        tw_result_free(&b);
    }
}

Test(openai, every_chunking_equals_batch)
{
    const char *s = ": hi\r\n\r\n" CH(
        "{\"role\":\"assistant\",\"reasoning\":\"R\\u00e9\"}",
        "null") "data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\\u00e9 \"}}]}\r\n\r\n"
                "data: "
                "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"x\","
                "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\"}}]}}]}\r\r"
                "data: "
                "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                "{\"arguments\":\"[1]}\"}}]}}]}\n\n"
                "data: {broken\n\n" CH(
                    "{}",
                    "\"tool_calls\"") "data: {\"choices\":[],\"usage\":{\"total_tokens\":3}}\n\n";
    size_t n = strlen(s);
    const tw_format_ops *f = tw_format_find("openai-stream");
    tw_result r;
    tw_test_decode("openai-stream", s, NULL, &r);
    char *want = tw_test_neutral(&r);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_assert_eq(r.errors.len, 2); /* chunk_json, stream_truncated */
    tw_result_free(&r);
    char *copy = tw_test_exact(s, n);
    for (size_t chunk = 1; chunk <= n; chunk++) {
        cr_assert_eq(tw_decode_chunked(f, copy, n, chunk, NULL, &r), TW_OK);
        tw_test_expect_neutral(&r, want, "chunk", chunk);
    }
    for (size_t cut = 0; cut <= n; cut++) {
        tw_openai_stream *d = tw_openai_stream_new(NULL, NULL, NULL);
        cr_assert_not_null(d);
        char *a = tw_test_exact(s, cut), *b = tw_test_exact(s + cut, n - cut);
        tw_openai_stream_feed(d, a, cut);
        tw_openai_stream_feed(d, b, n - cut);
        cr_assert_eq(tw_openai_stream_finish(d, &r), TW_OK);
        free(a);
        free(b);
        tw_test_expect_neutral(&r, want, "cut", cut);
        tw_openai_stream_free(d);
    }
    free(copy);
    free(want);
}

typedef struct evlog {
    tw_buf content, thinking;
    size_t calls, errors, warnings;
    char ids[8][32];
} evlog;

static tw_status on_event(void *u, const tw_event *ev)
{
    evlog *l = u;
    switch (ev->kind) {
    case TW_EV_CONTENT: tw_buf_append(&l->content, ev->text, ev->len); break;
    case TW_EV_THINKING: tw_buf_append(&l->thinking, ev->text, ev->len); break;
    case TW_EV_TOOL_CALL:
        if (l->calls < 8)
            snprintf(l->ids[l->calls], 32, "%s", ev->call->id);
        l->calls++;
        break;
    case TW_EV_ERROR: l->errors++; break;
    case TW_EV_WARNING: l->warnings++; break;
    }
    return TW_OK;
}

Test(openai, events_as_they_arrive)
{
    const char *head =
        CH("{\"reasoning_content\":\"Plan\"}", "null") CH("{\"content\":\"Hi\"}", "null")
            CH("{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\","
               "\"arguments\":\"{}\"}}]}",
               "null");
    const char *fin = CH("{}", "\"tool_calls\"");
    const char *tail = "data: [DONE]\n\n";
    evlog l = {0};
    tw_openai_stream *d = tw_openai_stream_new(NULL, on_event, &l);
    cr_assert_not_null(d);
    for (const char *p = head; *p; p++) /* byte by byte */
        tw_openai_stream_feed(d, p, 1);
    cr_assert_str_eq(l.thinking.data, "Plan");
    cr_assert_str_eq(l.content.data, "Hi");
    cr_assert_eq(l.calls, 0, "a call is emitted only once complete");
    tw_openai_stream_feed(d, fin, strlen(fin));
    cr_assert_eq(l.calls, 1, "the finish_reason chunk completes the call");
    cr_assert_str_eq(l.ids[0], "a");
    tw_openai_stream_feed(d, tail, strlen(tail));
    tw_result r;
    cr_assert_eq(tw_openai_stream_finish(d, &r), TW_OK);
    cr_assert_eq(l.calls, r.msg.ncalls);
    cr_assert_eq(l.errors, 0);
    tw_result_free(&r);
    tw_buf_free(&l.content);
    tw_buf_free(&l.thinking);

    /* a stream that ends without finish_reason: calls emitted at finish, errors as events */
    evlog m = {0};
    cr_assert_eq(tw_openai_stream_reset(d, NULL, on_event, &m), TW_OK);
    tw_openai_stream_feed(d, head, strlen(head));
    cr_assert_eq(m.calls, 0);
    cr_assert_eq(tw_openai_stream_finish(d, &r), TW_OK);
    cr_assert_eq(m.calls, 1);
    cr_assert_eq(m.errors, 1);
    cr_assert_eq(r.errors.items[0].code, TW_D_STREAM_TRUNCATED);
    tw_result_free(&r);
    tw_buf_free(&m.content);
    tw_buf_free(&m.thinking);
    tw_openai_stream_free(d);
}

Test(openai, sse_caps_through_the_decoder)
{
    tw_decode_opts o = {0};
    o.limits.max_line_bytes = 64;
    const char *s =
        CH("{\"content\":\"this line is longer than sixty-four bytes for sure\"}",
           "null") "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n"
                   "data: [DONE]\n\n";
    tw_result r;
    tw_test_decode("openai-stream", s, &o, &r);
    cr_assert_str_eq(r.msg.content.data, "ok");
    cr_assert_eq(r.errors.len, 1);
    cr_assert_eq(r.errors.items[0].code, TW_D_SSE_LINE_TOO_LONG);
    cr_assert_eq(r.errors.items[0].offset, 0);
    tw_result_free(&r);
}

Test(openai, huge_arguments_stay_bounded)
{
    tw_decode_opts o = {0};
    o.limits.max_args_bytes = 1000;
    tw_openai_stream *d = tw_openai_stream_new(&o, NULL, NULL);
    cr_assert_not_null(d);
    const char *first =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
        "\"id\":\"big\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"k\\\":\\\"\"}}]}}]}\n\n";
    tw_openai_stream_feed(d, first, strlen(first));
    char frag[600];
    int k = snprintf(frag, sizeof frag,
                     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":"
                     "[{\"index\":0,\"function\":{\"arguments\":\"%0400d\"}}]}}]}\n\n",
                     0);
    for (int i = 0; i < 5000; i++) /* 2 MB of argument text */
        tw_openai_stream_feed(d, frag, (size_t)k);
    tw_result r;
    cr_assert_eq(tw_openai_stream_finish(d, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(r.errors.len, 2);
    cr_assert_eq(r.errors.items[0].code, TW_D_ARGS_TOO_LARGE);
    cr_assert_eq(r.errors.items[0].offset, 0);
    cr_assert_eq(r.errors.items[1].code, TW_D_STREAM_TRUNCATED);
    tw_result_free(&r);
    tw_openai_stream_free(d);
}

/* A stream holds at most 2 * max_calls + 16 calls open: one more is refused
 * at the delta that opens it, the ones before are not. */
Test(openai, open_calls_capped_at_twice_max_calls_plus_16)
{
    tw_decode_opts o = {0};
    o.limits.max_calls = 1; /* a cap of 18 open calls */
    for (int n = 18; n <= 19; n++) {
        tw_buf in = {0};
        for (int i = 0; i < n; i++)
            cr_assert_eq(tw_buf_printf(&in,
                                       "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":"
                                       "[{\"index\":%d,\"id\":\"c%d\",\"function\":{\"name\":\"f\","
                                       "\"arguments\":\"{}\"}}]}}]}\n\n",
                                       i, i),
                         TW_OK);
        cr_assert_eq(tw_buf_puts(&in, "data: [DONE]\n\n"), TW_OK);
        tw_result r;
        tw_test_decode("openai-stream", in.data, &o, &r);
        size_t capped = 0;
        for (size_t e = 0; e < r.errors.len; e++)
            capped += r.errors.items[e].code == TW_D_TOO_MANY_CALLS &&
                      strstr(r.errors.items[e].message, "more open tool calls");
        cr_expect_eq(capped, n == 19 ? 1u : 0u, "%d calls: %zu refused by the open-call cap", n,
                     capped);
        cr_expect_eq(r.msg.ncalls, 1, "max_calls 1");
        tw_result_free(&r);
        tw_buf_free(&in);
    }
}

/* A request that declares its tools as an empty list has no tool to call:
 * a call is refused unknown_tool, as under a list that lacks its name; with
 * no tools declared at all, any name is taken. */
Test(openai, empty_declared_tools_refuse_every_call)
{
    static const char body[] =
        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
        "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
        "\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}";
    for (int declared = 0; declared < 2; declared++) {
        tw_decode_opts o = {0};
        o.tools_declared = declared;
        tw_result r;
        tw_test_decode("openai-response", body, &o, &r);
        cr_expect_eq(r.msg.ncalls, declared ? 0u : 1u, "declared %d", declared);
        cr_expect_eq(tw_diag_has(&r.errors, TW_D_UNKNOWN_TOOL), declared, "declared %d", declared);
        tw_result_free(&r);
    }
}

Test(openai, locate)
{
    const char *j = " {\"a\": [1, {\"b\\\"\": 2, \"b\": [ \"x\" , {\"c\": null}]}], \"d\": {}}";
    tw_wire_step p1[] = {{"a", 0}, {NULL, 1}, {"b", 0}, {NULL, 1}, {"c", 0}};
    cr_assert_eq(tw_wire_locate(j, strlen(j), p1, 5), (int64_t)(strstr(j, "null") - j));
    tw_wire_step p2[] = {{"d", 0}};
    cr_assert_eq(tw_wire_locate(j, strlen(j), p2, 1), (int64_t)(strstr(j, "{}") - j));
    tw_wire_step p3[] = {{"a", 0}, {NULL, 2}};
    cr_assert_eq(tw_wire_locate(j, strlen(j), p3, 2), -1);
}

/* Ids are compared as they are written: two ids that differ only in invalid
 * UTF-8 bytes print the same, so the second is made unique on the first
 * decode, and decode -> encode -> decode keeps the value. */
Test(openai, ids_differing_in_invalid_utf8_are_duplicates)
{
    const char *body = "{\"choices\":[{\"index\":0,\"message\":{\"tool_calls\":["
                       "{\"id\":\"a\xff"
                       "b\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}},"
                       "{\"id\":\"a\xfe"
                       "b\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
                       "\"finish_reason\":\"tool_calls\"}]}";
    tw_result a;
    tw_test_decode("openai-response", body, NULL, &a);
    cr_assert_eq(a.msg.ncalls, 2);
    cr_assert_str_eq(a.msg.calls[0].id, "a\xEF\xBF\xBD"
                                        "b");
    cr_assert_str_eq(a.msg.calls[1].id, "a\xEF\xBF\xBD"
                                        "b__2");
    bool flagged = false;
    for (size_t i = 0; i < a.warnings.len; i++)
        flagged |= a.warnings.items[i].code == TW_D_JSON_NOT_RFC8259;
    cr_assert(flagged, "the invalid bytes are reported");
    tw_result_free(&a);
}
