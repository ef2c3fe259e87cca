/*
 * Anthropic decoders: the fixtures of tests/data/decode/anthropic-*, the
 * stream result equal to the response result of the same message, the
 * same result for every split of a stream, and events as they arrive.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "decode_fixtures.h"
#include "toolwire/anthropic.h"
#include "toolwire/decode.h"
#include "twtest.h"

Test(anthropic_fixtures, response)
{
    tw_test_decode_dir("tests/data/decode/anthropic-response", 15);
}
Test(anthropic_fixtures, stream)
{
    tw_test_decode_dir("tests/data/decode/anthropic-stream", 15);
}

#define EV(type, json) "event: " type "\ndata: " json "\n\n"

static const char RESPONSE[] =
    "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
    "{\"type\":\"thinking\",\"thinking\":\"First I plan.\",\"signature\":\"SIG1\"},"
    "{\"type\":\"redacted_thinking\",\"data\":\"ABC\"},"
    "{\"type\":\"text\",\"text\":\"Checking \\u00e9.\"},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"get_weather\",\"input\":{\"city\":"
    "\"Paris\"}},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"get_time\",\"input\":{}}],"
    "\"stop_reason\":\"tool_use\"}";

/* one event a line, as the stream is sent */
// clang-format off
static const char STREAM[] =
    EV("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"content\":[]}}")
    EV("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}")
    EV("ping", "{\"type\":\"ping\"}")
    EV("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"First \"}}")
    EV("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"I plan.\"}}")
    EV("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"SIG1\"}}")
    EV("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
    EV("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"ABC\"}}")
    EV("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}")
    EV("content_block_start", "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")
    EV("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"text_delta\",\"text\":\"Checking \\u00e9.\"}}")
    EV("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":2}")
    EV("content_block_start", "{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"get_weather\",\"input\":{}}}")
    EV("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\"\"}}")
    EV("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\": \\\"Paris\\\"}\"}}")
    EV("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":3}")
    EV("content_block_start", "{\"type\":\"content_block_start\",\"index\":4,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"get_time\",\"input\":{}}}")
    EV("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":4}")
    EV("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}")
    EV("message_stop", "{\"type\":\"message_stop\"}");
// clang-format on

Test(anthropic, stream_equals_response)
{
    tw_result a, b;
    tw_test_decode("anthropic-response", RESPONSE, NULL, &a);
    tw_test_decode("anthropic-stream", STREAM, NULL, &b);
    char *na = tw_test_neutral(&a);
    long off =
        (long)(strstr(RESPONSE, "{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"get_time\"") -
               RESPONSE);
    char want[1024];
    snprintf(want, sizeof want,
             "{\"content\":\"Checking \xC3\xA9.\",\"thinking\":\"First I plan.\","
             "\"thinking_signature\":\"SIG1\",\"tool_calls\":[{\"id\":\"toolu_a\","
             "\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}},{\"id\":"
             "\"toolu_a__2\",\"name\":\"get_time\",\"arguments\":{}}],\"finish_reason\":"
             "\"tool_calls\",\"errors\":[],\"warnings\":[{\"code\":\"duplicate_id\","
             "\"offset\":%ld,\"message\":\"duplicate id 'toolu_a' rewritten as "
             "'toolu_a__2'\"}]}",
             off);
    cr_assert_str_eq(na, want);
    /* the same message; only the warning's offset differs (body vs stream) */
    cr_assert_eq(b.warnings.len, 1);
    b.warnings.items[0].offset = a.warnings.items[0].offset;
    char *nb = tw_test_neutral(&b);
    cr_assert_str_eq(na, nb);
    cr_assert(a.msg.has_redacted_thinking && b.msg.has_redacted_thinking);
    cr_assert(tw_json_equal(a.msg.redacted_thinking, b.msg.redacted_thinking));
    cr_assert_str_eq(tw_json_get_str(cJSON_GetArrayItem(b.msg.redacted_thinking, 0), "data"),
                     "ABC");
    free(na);
    free(nb);
    tw_result_free(&a);
    tw_result_free(&b);
}

Test(anthropic, every_chunking_equals_batch)
{
    size_t n = sizeof STREAM - 1;
    const tw_format_ops *f = tw_format_find("anthropic-stream");
    tw_result r;
    tw_test_decode("anthropic-stream", STREAM, NULL, &r);
    char *want = tw_test_neutral(&r);
    tw_result_free(&r);
    char *copy = tw_test_exact(STREAM, n);
    for (size_t chunk = 1; chunk <= n; chunk += (chunk < 64 ? 1 : 37)) {
        cr_assert_eq(tw_decode_chunked(f, copy, n, chunk, NULL, &r), TW_OK);
        tw_test_expect_neutral(&r, want, "chunk", chunk);
    }
    for (size_t cut = 0; cut <= n; cut++) {
        tw_anthropic_stream *d = tw_anthropic_stream_new(NULL, NULL, NULL);
        cr_assert_not_null(d);
        tw_anthropic_stream_feed(d, copy, cut);
        tw_anthropic_stream_feed(d, copy + cut, n - cut);
        cr_assert_eq(tw_anthropic_stream_finish(d, &r), TW_OK);
        tw_test_expect_neutral(&r, want, "cut", cut);
        tw_anthropic_stream_free(d);
    }
    free(copy);
    free(want);
}

typedef struct evlog {
    tw_buf content, thinking;
    size_t calls;
} evlog;

static tw_status on_event(void *u, const tw_event *ev)
{
    evlog *l = u;
    if (ev->kind == TW_EV_CONTENT)
        tw_buf_append(&l->content, ev->text, ev->len);
    else if (ev->kind == TW_EV_THINKING)
        tw_buf_append(&l->thinking, ev->text, ev->len);
    else if (ev->kind == TW_EV_TOOL_CALL)
        l->calls++;
    return TW_OK;
}

Test(anthropic, events_as_they_arrive)
{
    const char *stop3 = strstr(
        STREAM, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":3}");
    cr_assert(stop3);
    size_t upto = (size_t)(stop3 - STREAM);
    evlog l = {0};
    tw_anthropic_stream *d = tw_anthropic_stream_new(NULL, on_event, &l);
    cr_assert_not_null(d);
    for (size_t i = 0; i < upto; i++)
        tw_anthropic_stream_feed(d, STREAM + i, 1);
    cr_assert_str_eq(l.thinking.data, "First I plan.");
    cr_assert_str_eq(l.content.data, "Checking \xC3\xA9.");
    cr_assert_eq(l.calls, 0, "the tool_use block is still open");
    const char *after = strstr(stop3, "\n\n") + 2;
    tw_anthropic_stream_feed(d, STREAM + upto, (size_t)(after - (STREAM + upto)));
    cr_assert_eq(l.calls, 1, "content_block_stop completes the call");
    tw_anthropic_stream_feed(d, after, strlen(after));
    tw_result r;
    cr_assert_eq(tw_anthropic_stream_finish(d, &r), TW_OK);
    cr_assert_eq(l.calls, 2);
    cr_assert_eq(r.msg.ncalls, 2);
    tw_result_free(&r);
    tw_buf_free(&l.content);
    tw_buf_free(&l.thinking);
    tw_anthropic_stream_free(d);
}

Test(anthropic, finish_reason_map)
{
    cr_assert_str_eq(tw_anthropic_finish_reason("tool_use"), "tool_calls");
    cr_assert_str_eq(tw_anthropic_finish_reason("end_turn"), "stop");
    cr_assert_str_eq(tw_anthropic_finish_reason("stop_sequence"), "stop");
    cr_assert_str_eq(tw_anthropic_finish_reason("max_tokens"), "length");
    cr_assert_str_eq(tw_anthropic_finish_reason("refusal"), "content_filter");
    cr_assert_str_eq(tw_anthropic_finish_reason("pause_turn"), "pause_turn");
    cr_assert_null(tw_anthropic_finish_reason(NULL));
}
