/*
 * The OpenAI Responses decoders ("openai-responses", "openai-responses-stream",
 * docs/formats/openai-responses.md): the real recordings of
 * ../shared/real-traffic (skipped when absent), the streaming properties over
 * the decode fixtures (random splits equal batch, events equal the result), a
 * stream equal to the decode of its final response object, and the rules no
 * fixture shows on its own.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "cli.h"
#include "decoding.h"
#include "decode_fixtures.h"
#include "decode_opts.h"
#include "files.h"
#include "toolwire/decode.h"
#include "toolwire/responses.h"
#include "toolwire/shims.h"
#include "twtest.h"

/* ===================== helpers ===================== */

/* The values of a result without the diagnostics and call offsets. */
static char *values_json(const tw_result *r)
{
    tw_result v = *r;
    memset(&v.errors, 0, sizeof v.errors);
    memset(&v.warnings, 0, sizeof v.warnings);
    int64_t offs[64];
    for (size_t i = 0; i < r->msg.ncalls && i < 64; i++) {
        offs[i] = r->msg.calls[i].offset;
        r->msg.calls[i].offset = -1;
    }
    char *s = tw_test_result_json(&v);
    for (size_t i = 0; i < r->msg.ncalls && i < 64; i++)
        r->msg.calls[i].offset = offs[i];
    return s;
}

/*
 * The response object of the stream's last terminal event (completed,
 * incomplete, failed), as its own body, or NULL when there is none.
 */
static char *final_response(const char *sse, size_t len)
{
    char *found = NULL;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(sse + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - sse) : len;
        if (end - i > 6 && memcmp(sse + i, "data: ", 6) == 0) {
            cJSON *j = cJSON_ParseWithLength(sse + i + 6, end - i - 6);
            const char *type = tw_json_get_str(j, "type");
            if (type && (strcmp(type, "response.completed") == 0 ||
                         strcmp(type, "response.incomplete") == 0 ||
                         strcmp(type, "response.failed") == 0)) {
                free(found);
                found = cJSON_PrintUnformatted(tw_json_get(j, "response"));
            }
            cJSON_Delete(j);
        }
        i = nl ? end + 1 : len;
    }
    return found;
}

/* The stream's values equal those of the body decode of its final response. */
static void expect_equals_final(const char *sse, size_t len, const tw_result *r)
{
    char *body = final_response(sse, len);
    cr_assert_not_null(body, "the stream has a final response");
    tw_result b;
    tw_test_decode_every_way("openai-responses", body, strlen(body), NULL, &b);
    char *x = values_json(r), *y = values_json(&b);
    cr_assert_str_eq(x, y, "stream and final response differ");
    free(x);
    free(y);
    tw_result_free(&b);
    free(body);
}

/* ===================== the real recordings ===================== */

Test(responses, real_nonstream_function_call)
{
    tw_cassette c;
    tw_test_load_cassette("real-traffic/openai_responses__nonstream__function_call.yaml", &c);
    cr_assert_eq(c.ninteractions, 2);
    cr_assert_eq(c.interactions[0].response.body.kind, TW_CASSETTE_BODY_PARSED);

    tw_result r;
    const tw_cassette_body *b = &c.interactions[0].response.body;
    tw_test_decode_every_way("openai-responses", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_YfwRsW8sUxDKipwyhWTzOXCA", "get_capital",
                        "{\"country\": \"PotatoLand\"}");
    cr_assert_eq(r.msg.calls[0].raw_args_len, strlen("{\"country\":\"PotatoLand\"}"));
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_text(&r.msg.content, "");
    tw_test_expect_text(&r.msg.thinking, "");
    cr_assert_null(r.msg.thinking_signature);
    tw_test_expect_clean(&r);
    tw_result_free(&r);

    /* the turn after the function_call_output */
    b = &c.interactions[1].response.body;
    tw_test_decode_every_way("openai-responses", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    tw_test_expect_text(&r.msg.content, "The capital of PotatoLand is Potato City.");
    cr_assert_str_eq(r.finish_reason, "stop");
    tw_test_expect_clean(&r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

Test(responses, real_stream_function_call_arguments_delta)
{
    tw_cassette c;
    tw_test_load_cassette(
        "real-traffic/openai_responses__stream__function_call_arguments_delta.yaml", &c);
    cr_assert_eq(c.ninteractions, 2);
    cr_assert_eq(c.interactions[0].response.body.kind, TW_CASSETTE_BODY_STRING);

    tw_result r;
    const tw_cassette_body *b = &c.interactions[0].response.body;
    tw_test_decode_every_way("openai-responses-stream", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    /* five deltas: {" country ":" France "} */
    tw_test_expect_call(&r, 0, "call_kL0PCQV7M2WMoVX8V8OtYSAL", "get_capital",
                        "{\"country\": \"France\"}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_text(&r.msg.content, "");
    tw_test_expect_clean(&r);
    expect_equals_final(b->data, b->len, &r);
    tw_result_free(&r);

    b = &c.interactions[1].response.body;
    tw_test_decode_every_way("openai-responses-stream", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    tw_test_expect_text(&r.msg.content, "The capital of France is Paris.");
    tw_test_expect_text(&r.msg.thinking, "");
    cr_assert_str_eq(r.finish_reason, "stop");
    tw_test_expect_clean(&r);
    expect_equals_final(b->data, b->len, &r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

static const char WRAPPED_ARGS[] =
    "{\"tool_uses\":[{\"recipient_name\":\"functions.weather\",\"parameters\":{\"location\":"
    "\"San Francisco\"}},{\"recipient_name\":\"functions.cityAttractions\",\"parameters\":"
    "{\"city\":\"Rome\"}}]}";

Test(responses, real_stream_parallel_wrapper)
{
    const char *path = tw_test_shared(
        "real-traffic/openai_responses__stream__parallel_wrapper_pseudo_tool.chunks.jsonl");
    if (!path)
        cr_skip("../shared/real-traffic is absent");
    tw_error why = {.offset = -1};
    size_t len = 0;
    char *text = tw_read_file(path, 1 << 20, &len, &why);
    cr_assert_not_null(text, "%s", why.message);
    /* one data: event per line, as the stream carried them */
    tw_buf sse = {0};
    size_t nev = 0;
    int64_t offs[8];
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (end > i) {
            cr_assert_lt(nev, 8);
            offs[nev++] = (int64_t)sse.len;
            cr_assert_eq(tw_buf_puts(&sse, "data: "), TW_OK);
            cr_assert_eq(tw_buf_append(&sse, text + i, end - i), TW_OK);
            cr_assert_eq(tw_buf_puts(&sse, "\n\n"), TW_OK);
        }
        i = nl ? end + 1 : len;
    }
    cr_assert_eq(nev, 6);

    tw_result r;
    tw_test_decode_every_way("openai-responses-stream", sse.data, sse.len, NULL, &r);
    /* on the wire: one call to the pseudo-tool, named as the model named it */
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_parallel", "parallel", WRAPPED_ARGS);
    tw_test_expect_text(&r.msg.content, "");
    tw_test_expect_text(&r.msg.thinking, "");
    cr_assert_eq(r.warnings.len, 1);
    cr_assert_eq(r.warnings.items[0].code, TW_D_PARALLEL_WRAPPER);
    cr_assert_eq(r.warnings.items[0].offset, offs[1]); /* the call's output_item.added */
    /* the recording's response.created and response.completed lines each lack their
     * closing brace: neither reads, so the stream has no terminal event */
    cr_assert_eq(r.errors.len, 3);
    cr_assert_eq(r.errors.items[0].code, TW_D_CHUNK_JSON);
    cr_assert_eq(r.errors.items[0].offset, offs[0]);
    cr_assert_eq(r.errors.items[1].code, TW_D_CHUNK_JSON);
    cr_assert_eq(r.errors.items[1].offset, offs[5]);
    cr_assert_eq(r.errors.items[2].code, TW_D_STREAM_TRUNCATED);
    cr_assert_eq(r.errors.items[2].offset, (int64_t)sse.len);
    cr_assert_str_eq(r.finish_reason ? r.finish_reason : "", "");

    /* the shim unwraps it into the two calls it stands for, and says so */
    tw_diag_list w = {0};
    cr_assert_eq(tw_shim_unwrap_parallel(&r.msg, NULL, &w), TW_OK);
    cr_assert_eq(r.msg.ncalls, 2);
    tw_test_expect_call(&r, 0, "call_parallel_1", "weather", "{\"location\": \"San Francisco\"}");
    tw_test_expect_call(&r, 1, "call_parallel_2", "cityAttractions", "{\"city\": \"Rome\"}");
    cr_assert_eq(w.len, 1);
    cr_assert_eq(w.items[0].code, TW_D_PARALLEL_WRAPPER);
    tw_diag_list_free(&w);
    tw_result_free(&r);
    tw_buf_free(&sse);
    free(text);
}

/* ===================== streaming properties over the fixtures ===================== */

/* the random splits: the same on every run */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static void run_dir(const char *sub, bool stream)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(sub), ".json", &files);
    cr_assert_geq(n, 15, "fixtures under %s", sub);
    size_t compared = 0;
    for (long i = 0; i < n; i++) {
        tw_test_fixture t;
        tw_test_fixture_open(&t, files[i]);
        tw_result batch;
        cr_assert_eq(t.f->decode(t.in, t.len, &t.h.o, &batch), TW_OK);
        tw_test_random_splits(&t, &batch, &rng_state, 8, 5, 90, true);
        /* a conforming stream (no diagnostic) whose final response lists its output
         * decodes to what that response decodes to */
        char *body = stream ? final_response(t.in, t.len) : NULL;
        cJSON *fin = body ? cJSON_Parse(body) : NULL;
        if (fin && cJSON_GetArraySize(tw_json_get(fin, "output")) > 0 && batch.errors.len == 0 &&
            batch.warnings.len == 0) {
            expect_equals_final(t.in, t.len, &batch);
            compared++;
        }
        cJSON_Delete(fin);
        free(body);
        tw_result_free(&batch);
        tw_test_fixture_close(&t);
    }
    if (stream)
        cr_assert_geq(compared, 3, "streams compared with their final response");
    tw_free_list(files, n);
}

Test(responses, stream_random_splits_and_events)
{
    run_dir("tests/data/decode/openai-responses-stream", true);
}
Test(responses, body_random_splits_and_events)
{
    run_dir("tests/data/decode/openai-responses", false);
}

/* ===================== rules ===================== */

Test(responses, finish_reason_map)
{
    cr_assert_str_eq(tw_responses_finish_reason("completed", NULL, false), "stop");
    cr_assert_str_eq(tw_responses_finish_reason("completed", NULL, true), "tool_calls");
    cr_assert_str_eq(tw_responses_finish_reason("incomplete", "max_output_tokens", true), "length");
    cr_assert_str_eq(tw_responses_finish_reason("incomplete", "content_filter", false),
                     "content_filter");
    cr_assert_str_eq(tw_responses_finish_reason("incomplete", "other", false), "other");
    cr_assert_null(tw_responses_finish_reason("incomplete", NULL, false));
    cr_assert_null(tw_responses_finish_reason("failed", NULL, true));
    cr_assert_str_eq(tw_responses_finish_reason("cancelled", NULL, false), "cancelled");
    cr_assert_null(tw_responses_finish_reason(NULL, NULL, true));
}

/* A NUL in the arguments (a fixture cannot feed one): the call is refused. */
Test(responses, arguments_with_nul_refused)
{
    static const char body[] =
        "{\"status\":\"completed\",\"output\":[{\"type\":\"function_call\",\"call_id\":\"c1\","
        "\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\\\"x\\\\u0000y\\\"}\"}]}";
    tw_result r;
    tw_test_decode_every_way("openai-responses", body, sizeof body - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(r.errors.len, 1);
    cr_assert_eq(r.errors.items[0].code, TW_D_JSON_NUL);
    tw_result_free(&r);
}

/* A stream over the item cap: the items past 2 * max_calls + 16 are dropped, said once each. */
Test(responses, item_cap)
{
    tw_buf s = {0};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(
            tw_buf_printf(&s,
                          "data: {\"type\":\"response.output_item.added\",\"output_index\":%d,"
                          "\"item\":{\"type\":\"message\",\"id\":\"m%d\",\"content\":[]}}\n\n"
                          "data: {\"type\":\"response.output_text.delta\",\"output_index\":%d,"
                          "\"delta\":\"%d\"}\n\n",
                          i, i, i, i),
            TW_OK);
    cr_assert_eq(tw_buf_puts(&s, "data: {\"type\":\"response.completed\",\"response\":"
                                 "{\"status\":\"completed\",\"output\":[]}}\n\n"),
                 TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_calls = 1; /* cap: 2 * 1 + 16 = 18 items, so raise the count instead */
    tw_result r;
    tw_test_decode_every_way("openai-responses-stream", s.data, s.len, &o, &r);
    tw_test_expect_text(&r.msg.content, "01234");
    tw_test_expect_clean(&r);
    tw_result_free(&r);
    tw_buf_free(&s);

    for (int i = 0; i < 20; i++)
        cr_assert_eq(
            tw_buf_printf(&s,
                          "data: {\"type\":\"response.output_item.added\",\"output_index\":%d,"
                          "\"item\":{\"type\":\"message\",\"id\":\"m%d\",\"content\":[]}}\n\n",
                          i, i),
            TW_OK);
    cr_assert_eq(tw_buf_puts(&s, "data: {\"type\":\"response.completed\",\"response\":"
                                 "{\"status\":\"completed\",\"output\":[]}}\n\n"),
                 TW_OK);
    tw_test_decode_every_way("openai-responses-stream", s.data, s.len, &o, &r);
    cr_assert_eq(r.errors.len, 2, "items 19 and 20 are past the cap of 18");
    cr_assert_eq(r.errors.items[0].code, TW_D_TOO_MANY_CALLS);
    cr_assert_eq(r.errors.items[1].code, TW_D_TOO_MANY_CALLS);
    tw_result_free(&r);
    tw_buf_free(&s);
}

/* A callback that stops the decode: the status comes back, *out is empty. */
static tw_status stop_at_call(void *user, const tw_event *ev)
{
    (void)user;
    return ev->kind == TW_EV_TOOL_CALL ? TW_ERR_STATE : TW_OK;
}

Test(responses, callback_stops_stream)
{
    static const char in[] =
        "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":"
        "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\",\"arguments\":\"\"}}\n\n"
        "data: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":0,"
        "\"delta\":\"{}\"}\n\n"
        "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":"
        "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\",\"arguments\":\"{}\"}}\n\n"
        "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"x\"}\n\n";
    const tw_format_ops *f = tw_format_find("openai-responses-stream");
    tw_stream *s = tw_stream_new(f, NULL, stop_at_call, NULL);
    cr_assert_not_null(s);
    cr_assert_eq(tw_stream_feed(s, in, sizeof in - 1), TW_ERR_STATE);
    tw_result r;
    cr_assert_eq(tw_stream_finish(s, &r), TW_ERR_STATE);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert_eq(r.errors.len, 0);
    tw_result_free(&r);
    tw_stream_free(s);
}
