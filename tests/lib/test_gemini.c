/*
 * The Gemini decoders ("gemini", "gemini-stream", docs/formats/gemini.md):
 * the real recordings of ../shared/real-traffic (skipped when absent), the
 * streaming properties over the decode fixtures (random splits equal batch,
 * events never retracted), a stream equal to the array of its events given
 * as one body, and the rules no fixture shows on its own.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "cli.h"
#include "decoding.h"
#include "decode_fixtures.h"
#include "decode_opts.h"
#include "files.h"
#include "toolwire/decode.h"
#include "toolwire/gemini.h"
#include "twtest.h"

/* ===================== helpers ===================== */

/* The SSE body and the JSON array body of a file of one event JSON per line. */
static void jsonl_bodies(const char *text, size_t len, tw_buf *sse, tw_buf *arr)
{
    cr_assert_eq(tw_buf_puts(arr, "["), TW_OK);
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (end > i) {
            cr_assert_eq(tw_buf_puts(sse, "data: "), TW_OK);
            cr_assert_eq(tw_buf_append(sse, text + i, end - i), TW_OK);
            cr_assert_eq(tw_buf_puts(sse, "\n\n"), TW_OK);
            if (n++)
                cr_assert_eq(tw_buf_puts(arr, ","), TW_OK);
            cr_assert_eq(tw_buf_append(arr, text + i, end - i), TW_OK);
        }
        i = nl ? end + 1 : len;
    }
    cr_assert_eq(tw_buf_puts(arr, "]"), TW_OK);
}

/* ===================== the real recordings ===================== */

Test(gemini, real_nonstream_function_call_then_result)
{
    tw_cassette c;
    tw_test_load_cassette("real-traffic/gemini__nonstream__function_call_then_result.yaml", &c);
    cr_assert_eq(c.ninteractions, 2);
    cr_assert_eq(c.interactions[0].response.body.kind, TW_CASSETTE_BODY_PARSED);

    tw_result r;
    const tw_cassette_body *b = &c.interactions[0].response.body;
    tw_test_decode_every_way("gemini", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_1", "get_user_country", "{}");
    cr_assert_str_eq(r.finish_reason, "tool_calls"); /* Gemini says STOP after a call */
    tw_test_expect_text(&r.msg.content, "");
    tw_test_expect_text(&r.msg.thinking, "");
    cr_assert_null(r.msg.thinking_signature);
    tw_test_expect_clean(&r);
    tw_result_free(&r);

    /* the turn after the functionResponse */
    b = &c.interactions[1].response.body;
    tw_test_decode_every_way("gemini", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_1", "final_result",
                        "{\"city\": \"Mexico City\", \"country\": \"Mexico\"}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_clean(&r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

static const char SIG_PREFIX[] =
    "EpwICpkIAXLI2nxlU6gsWZaZHRYkX1orzuM8vSUFwaAt1JRxEC2hJzPAcAu3PWaKz7X";
static const char SIG_SUFFIX[] = "YowYXnxy7ElQ1CWkLSDHsbsptHrG9NTaRWdiAFwInb7nd1KrJVPvsNlnUfExbs8gd"
                                 "0IoxjaTjY1V7mjb2D/7NoL5owonoBDAXOk15QuFyU=";

Test(gemini, real_stream_function_call_thought_signature)
{
    tw_cassette c;
    tw_test_load_cassette("real-traffic/gemini__stream__function_call_thought_signature.yaml", &c);
    cr_assert_eq(c.ninteractions, 2);
    cr_assert_eq(c.interactions[0].response.body.kind, TW_CASSETTE_BODY_STRING);

    tw_result r;
    const tw_cassette_body *b = &c.interactions[0].response.body;
    tw_test_decode_every_way("gemini-stream", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_1", "get_country", "{}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_text(&r.msg.content, "");
    /* the signature the next request sends back (there in its base64url spelling) */
    cr_assert_not_null(r.msg.thinking_signature);
    cr_assert_eq(strncmp(r.msg.thinking_signature, SIG_PREFIX, strlen(SIG_PREFIX)), 0);
    size_t sl = strlen(r.msg.thinking_signature);
    cr_assert_eq(sl, 1408);
    cr_assert_str_eq(r.msg.thinking_signature + sl - strlen(SIG_SUFFIX), SIG_SUFFIX);
    tw_test_expect_clean(&r);
    tw_result_free(&r);

    b = &c.interactions[1].response.body;
    tw_test_decode_every_way("gemini-stream", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    tw_test_expect_text(&r.msg.content, "The capital of Mexico is Mexico City.");
    cr_assert_str_eq(r.finish_reason, "stop");
    cr_assert_null(r.msg.thinking_signature);
    tw_test_expect_clean(&r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

Test(gemini, real_stream_partial_args)
{
    const char *path =
        tw_test_shared("real-traffic/gemini__stream__function_call_partial_args.chunks.jsonl");
    if (!path)
        cr_skip("../shared/real-traffic is absent");
    tw_error why = {.offset = -1};
    size_t len = 0;
    char *text = tw_read_file(path, 1 << 20, &len, &why);
    cr_assert_not_null(text, "%s", why.message);
    tw_buf sse = {0}, arr = {0};
    jsonl_bodies(text, len, &sse, &arr);

    tw_result r;
    tw_test_decode_every_way("gemini-stream", sse.data, sse.len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 2);
    tw_test_expect_call(&r, 0, "call_1", "getWeather", "{\"location\": \"Boston\"}");
    tw_test_expect_call(&r, 1, "call_2", "getWeather", "{\"location\": \"San Francisco\"}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    cr_assert_not_null(r.msg.thinking_signature);
    cr_assert_eq(strncmp(r.msg.thinking_signature, "CiMBjz1rX25KieIB4d4AwFn8", 24), 0);
    cr_assert_eq(strlen(r.msg.thinking_signature), 1032);
    tw_test_expect_text(&r.msg.content, "");
    tw_test_expect_clean(&r);

    /* the same events as one array body (streamGenerateContent without alt=sse) */
    tw_result a;
    tw_test_decode_every_way("gemini", arr.data, arr.len, NULL, &a);
    tw_result ra = r, aa = a; /* the values, without the diagnostics' offsets */
    memset(&ra.errors, 0, sizeof ra.errors);
    memset(&aa.errors, 0, sizeof aa.errors);
    memset(&ra.warnings, 0, sizeof ra.warnings);
    memset(&aa.warnings, 0, sizeof aa.warnings);
    for (size_t i = 0; i < r.msg.ncalls; i++)
        r.msg.calls[i].offset = a.msg.calls[i].offset = -1;
    char *x = tw_test_result_json(&ra), *y = tw_test_result_json(&aa);
    cr_assert_str_eq(x, y);
    free(x);
    free(y);
    tw_result_free(&a);
    tw_result_free(&r);
    tw_buf_free(&sse);
    tw_buf_free(&arr);
    free(text);
}

/* ===================== streaming properties over the fixtures ===================== */

/* the random splits: the same on every run */
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static void run_dir(const char *sub)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(sub), ".json", &files);
    cr_assert_gt(n, 4, "fixtures under %s", sub);
    for (long i = 0; i < n; i++) {
        tw_test_fixture t;
        tw_test_fixture_open(&t, files[i]);
        tw_result batch;
        cr_assert_eq(t.f->decode(t.in, t.len, &t.h.o, &batch), TW_OK);
        tw_test_random_splits(&t, &batch, &rng_state, 12, 5, 60, true);
        tw_result_free(&batch);
        tw_test_fixture_close(&t);
    }
    tw_free_list(files, n);
}

Test(gemini, stream_random_splits_and_events)
{
    run_dir("tests/data/decode/gemini-stream");
}
Test(gemini, body_random_splits_and_events)
{
    run_dir("tests/data/decode/gemini");
}

/* ===================== rules ===================== */

Test(gemini, finish_reason_map)
{
    cr_assert_str_eq(tw_gemini_finish_reason("STOP", false), "stop");
    cr_assert_str_eq(tw_gemini_finish_reason("STOP", true), "tool_calls");
    cr_assert_str_eq(tw_gemini_finish_reason("MAX_TOKENS", true), "length");
    cr_assert_str_eq(tw_gemini_finish_reason("SAFETY", false), "content_filter");
    cr_assert_str_eq(tw_gemini_finish_reason("RECITATION", false), "content_filter");
    cr_assert_str_eq(tw_gemini_finish_reason("MALFORMED_FUNCTION_CALL", false),
                     "MALFORMED_FUNCTION_CALL");
    cr_assert_str_eq(tw_gemini_finish_reason("OTHER", false), "OTHER");
    cr_assert_null(tw_gemini_finish_reason(NULL, true));
}

#define EV(parts, tail) "data: {\"candidates\":[{\"content\":{\"parts\":[" parts "]}" tail "}]}\n\n"

Test(gemini, whole_call_ends_open_streamed_call)
{
    /* a call opened with willContinue is ended by the next named call */
    static const char in[] = EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.x\",\"numberValue\":1}],"
           "\"willContinue\":true}}",
           "") EV("{\"functionCall\":{\"name\":\"b\",\"id\":\"b-1\",\"args\":{\"y\":true}}}",
                  ",\"finishReason\":\"STOP\"");
    tw_result r;
    tw_test_decode_every_way("gemini-stream", in, sizeof in - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 2);
    tw_test_expect_call(&r, 0, "call_1", "a", "{\"x\": 1}");
    tw_test_expect_call(&r, 1, "b-1", "b", "{\"y\": true}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    tw_test_expect_clean(&r);
    tw_result_free(&r);
}

/* A string left open (willContinue) ends at a piece for another jsonPath:
 * that piece's string is its own value, not the open one's continuation. */
Test(gemini, open_string_ends_at_another_path)
{
    static const char in[] = EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.a\",\"stringValue\":\"x\","
           "\"willContinue\":true}],\"willContinue\":true}}",
           "") EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.b\",\"stringValue\":"
                  "\"y\"}]}}",
                  ",\"finishReason\":\"STOP\"");
    tw_result r;
    tw_test_decode_every_way("gemini-stream", in, sizeof in - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_1", "a", "{\"a\": \"x\", \"b\": \"y\"}");
    tw_test_expect_clean(&r);
    tw_result_free(&r);
}

Test(gemini, streamed_repeated_key_keeps_first)
{
    static const char in[] = EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.k\",\"stringValue\":\"one\"},"
           "{\"jsonPath\":\"$.k\",\"stringValue\":\"two\"}]}}",
           ",\"finishReason\":\"STOP\"");
    tw_result r;
    tw_test_decode_every_way("gemini-stream", in, sizeof in - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_1", "a", "{\"k\": \"one\"}");
    cr_assert(tw_test_has_diag(&r.warnings, TW_D_DUPLICATE_KEY));
    cr_assert_eq(r.errors.len, 0);
    tw_result_free(&r);
}

Test(gemini, streamed_path_conflict_and_depth_refused)
{
    static const char conflict[] = EV("{\"functionCall\":{\"name\":\"a\",\"partialArgs\":[{"
                                      "\"jsonPath\":\"$.k\",\"numberValue\":1},"
                                      "{\"jsonPath\":\"$.k.z\",\"numberValue\":2}]}}",
                                      ",\"finishReason\":\"STOP\"");
    tw_result r;
    tw_test_decode_every_way("gemini-stream", conflict, sizeof conflict - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(tw_test_has_diag(&r.errors, TW_D_TOOL_CALL_JSON));
    cr_assert_str_eq(r.finish_reason, "stop");
    tw_result_free(&r);

    static const char deep[] = EV("{\"functionCall\":{\"name\":\"a\",\"partialArgs\":[{"
                                  "\"jsonPath\":\"$.a.b.c.d\",\"numberValue\":1}]}}",
                                  ",\"finishReason\":\"STOP\"");
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_depth = 3;
    tw_test_decode_every_way("gemini-stream", deep, sizeof deep - 1, &o, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(tw_test_has_diag(&r.errors, TW_D_JSON_TOO_DEEP));
    tw_result_free(&r);
    o.limits.max_depth = 5; /* args, a, b, c, d: five levels */
    tw_test_decode_every_way("gemini-stream", deep, sizeof deep - 1, &o, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    tw_test_expect_call(&r, 0, "call_1", "a", "{\"a\":{\"b\":{\"c\":{\"d\":1}}}}");
    tw_result_free(&r);

    static const char bad_path[] = EV("{\"functionCall\":{\"name\":\"a\",\"partialArgs\":[{"
                                      "\"jsonPath\":\"location\",\"numberValue\":1}]}}",
                                      ",\"finishReason\":\"STOP\"");
    tw_test_decode_every_way("gemini-stream", bad_path, sizeof bad_path - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(tw_test_has_diag(&r.errors, TW_D_TOOL_CALL_JSON));
    tw_result_free(&r);
}

Test(gemini, nul_in_call_refused)
{
    static const char in[] =
        "{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":"
        "{\"a\":\"x\\u0000y\"}}}]},\"finishReason\":\"STOP\"}]}";
    tw_result r;
    tw_test_decode_every_way("gemini", in, sizeof in - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(tw_test_has_diag(&r.errors, TW_D_JSON_NUL));
    tw_result_free(&r);
}

Test(gemini, further_signature_not_carried)
{
    static const char in[] =
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\",\"thoughtSignature\":\"s1\"},"
        "{\"text\":\"b\",\"thoughtSignature\":\"s1\"},{\"text\":\"c\",\"thoughtSignature\":\"s2\"}]"
        "},"
        "\"finishReason\":\"STOP\"}]}";
    tw_result r;
    tw_test_decode_every_way("gemini", in, sizeof in - 1, NULL, &r);
    cr_assert_str_eq(r.msg.thinking_signature, "s1");
    tw_test_expect_text(&r.msg.content, "abc");
    cr_assert_eq(r.warnings.len, 1); /* the repeated s1 is no loss; s2 is */
    cr_assert_eq(r.warnings.items[0].code, TW_D_NOT_CARRIED);
    tw_result_free(&r);
}

Test(gemini, too_many_calls_streamed)
{
    tw_buf in = {0};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(tw_buf_puts(&in,
                                 EV("{\"functionCall\":{\"name\":\"f\",\"willContinue\":true}}", "")
                                     EV("{\"functionCall\":{}}", "")),
                     TW_OK);
    cr_assert_eq(tw_buf_puts(&in, EV("{\"text\":\"\"}", ",\"finishReason\":\"STOP\"")), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_calls = 3;
    tw_result r;
    tw_test_decode_every_way("gemini-stream", in.data, in.len, &o, &r);
    cr_assert_eq(r.msg.ncalls, 3);
    cr_assert_eq(r.errors.len, 2);
    cr_assert_eq(r.errors.items[0].code, TW_D_TOO_MANY_CALLS);
    tw_result_free(&r);
    tw_buf_free(&in);
}

Test(gemini, input_cap)
{
    static const char in[] = EV("{\"text\":\"hello\"}", ",\"finishReason\":\"STOP\"");
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = 40;
    tw_result r;
    tw_test_decode_every_way("gemini-stream", in, sizeof in - 1, &o, &r);
    cr_assert(tw_test_has_diag(&r.errors, TW_D_INPUT_TOO_LARGE));
    cr_assert_eq(r.msg.content.len, 0);
    tw_result_free(&r);
}

/* ===================== linear work ===================== */

#include "work.h"

/* Units of work allowed per input byte, as in tests/lib/test_linear.c. */
#define WORK_PER_BYTE 8

/* n whole calls in one body. */
static void gen_body(tw_buf *b, size_t n)
{
    cr_assert_eq(tw_buf_puts(b, "{\"candidates\":[{\"content\":{\"parts\":["), TW_OK);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(tw_buf_printf(b, "%s{\"functionCall\":{\"name\":\"f\",\"args\":{\"i\":%zu}}}",
                                   i ? "," : "", i),
                     TW_OK);
    cr_assert_eq(tw_buf_puts(b, "]},\"finishReason\":\"STOP\"}]}"), TW_OK);
}

/* n calls, each streamed as name, one piece, end. */
static void gen_stream(tw_buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(
            tw_buf_printf(b,
                          EV("{\"functionCall\":{\"name\":\"f\",\"willContinue\":true}}", "")
                              EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.i\","
                                 "\"numberValue\":%zu}],\"willContinue\":true}}",
                                 "") EV("{\"functionCall\":{}}", ""),
                          i),
            TW_OK);
    cr_assert_eq(tw_buf_puts(b, EV("{\"text\":\"\"}", ",\"finishReason\":\"STOP\"")), TW_OK);
}

/* One call whose arguments arrive as n pieces: n keys, or one string in n parts. */
static void gen_pieces(tw_buf *b, size_t n, bool one_string)
{
    cr_assert_eq(
        tw_buf_puts(b, EV("{\"functionCall\":{\"name\":\"f\",\"willContinue\":true}}", "")), TW_OK);
    for (size_t i = 0; i < n; i++) {
        if (one_string)
            cr_assert_eq(
                tw_buf_printf(b,
                              EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.s\","
                                 "\"stringValue\":\"abcdefgh\",\"willContinue\":%s}],"
                                 "\"willContinue\":true}}",
                                 ""),
                              i + 1 < n ? "true" : "false"),
                TW_OK);
        else
            cr_assert_eq(tw_buf_printf(b,
                                       EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":"
                                          "\"$.list[%zu].k%zu\",\"numberValue\":1}],"
                                          "\"willContinue\":true}}",
                                          ""),
                                       i, i),
                         TW_OK);
    }
    cr_assert_eq(tw_buf_puts(b, EV("{\"functionCall\":{}}", ",\"finishReason\":\"STOP\"")), TW_OK);
}

static uint64_t work_of(const char *fmt, const tw_buf *b, size_t max_calls, size_t want_calls)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_input_bytes = b->len + 1;
    o.limits.max_calls = max_calls;
    o.limits.max_args_bytes = b->len + 1;
    char *in = tw_test_exact(b->data, b->len);
    tw_result r;
    tw_work_reset();
    cr_assert_eq(tw_format_find(fmt)->decode(in, b->len, &o, &r), TW_OK);
    uint64_t w = tw_work_count();
    cr_assert_eq(r.msg.ncalls, want_calls, "%s: %zu calls", fmt, r.msg.ncalls);
    cr_assert_eq(r.errors.len, 0, "%s: %s", fmt, r.errors.len ? r.errors.items[0].message : "");
    tw_result_free(&r);
    free(in);
    return w;
}

Test(gemini, linear_work)
{
    for (size_t n = 2000; n <= 8000; n *= 4) {
        tw_buf b = {0};
        gen_body(&b, n);
        uint64_t w = work_of("gemini", &b, n, n);
        cr_assert_leq(w, (uint64_t)WORK_PER_BYTE * b.len, "body, %zu calls: %llu for %zu bytes", n,
                      (unsigned long long)w, b.len);
        tw_buf_free(&b);

        gen_stream(&b, n);
        w = work_of("gemini-stream", &b, n, n);
        cr_assert_leq(w, (uint64_t)WORK_PER_BYTE * b.len, "stream, %zu calls: %llu for %zu bytes",
                      n, (unsigned long long)w, b.len);
        tw_buf_free(&b);

        for (int s = 0; s < 2; s++) {
            gen_pieces(&b, n, s);
            w = work_of("gemini-stream", &b, 64, 1);
            cr_assert_leq(w, (uint64_t)WORK_PER_BYTE * b.len, "%zu pieces: %llu for %zu bytes", n,
                          (unsigned long long)w, b.len);
            tw_buf_free(&b);
        }
    }
}

/* The assembled values are exactly the pieces (checked at one size). */
Test(gemini, many_pieces_assembled)
{
    tw_buf b = {0};
    gen_pieces(&b, 300, true);
    tw_result r;
    tw_test_decode_every_way("gemini-stream", b.data, b.len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    const char *s = tw_json_get_str(r.msg.calls[0].arguments, "s");
    cr_assert_not_null(s);
    cr_assert_eq(strlen(s), 300 * 8);
    for (size_t i = 0; i < 300; i++)
        cr_assert_eq(memcmp(s + 8 * i, "abcdefgh", 8), 0);
    tw_result_free(&r);
    tw_buf_free(&b);

    gen_pieces(&b, 300, false);
    tw_test_decode_every_way("gemini-stream", b.data, b.len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    const cJSON *list = tw_json_get(r.msg.calls[0].arguments, "list");
    cr_assert_eq(cJSON_GetArraySize(list), 300);
    cr_assert_not_null(tw_json_get(cJSON_GetArrayItem(list, 299), "k299"));
    tw_result_free(&r);
    tw_buf_free(&b);
}

/* Every split of a stream into two pieces (and three, at a stride) equals its batch. */
static void every_split(const char *fixture)
{
    tw_error why = {.offset = -1};
    cJSON *fx = tw_load_json_file(tw_test_src(fixture), 1 << 20, 64, &why);
    cr_assert_not_null(fx, "%s", why.message);
    const tw_format_ops *f = tw_format_find(tw_json_get_str(fx, "format"));
    const char *in = tw_json_get_str(fx, "input");
    size_t len = strlen(in);
    tw_result batch;
    cr_assert_eq(f->decode(in, len, NULL, &batch), TW_OK);
    char *want = tw_test_result_json(&batch);
    for (size_t i = 0; i <= len; i++) {
        for (size_t j = i; j <= len; j += (j == i ? 1 : 37)) {
            tw_stream *s = tw_stream_new(f, NULL, NULL, NULL);
            cr_assert_not_null(s);
            char *a = tw_test_exact(in, i), *b = tw_test_exact(in + i, j - i),
                 *c = tw_test_exact(in + j, len - j);
            cr_assert_eq(tw_stream_feed(s, a, i), TW_OK);
            cr_assert_eq(tw_stream_feed(s, b, j - i), TW_OK);
            cr_assert_eq(tw_stream_feed(s, c, len - j), TW_OK);
            free(a);
            free(b);
            free(c);
            tw_result r;
            cr_assert_eq(tw_stream_finish(s, &r), TW_OK);
            tw_stream_free(s);
            char *got = tw_test_result_json(&r);
            cr_assert_str_eq(got, want, "%s split at %zu, %zu", fixture, i, j);
            free(got);
            tw_result_free(&r);
        }
    }
    free(want);
    tw_result_free(&batch);
    cJSON_Delete(fx);
}

Test(gemini, every_split_partial_args, .timeout = 120)
{
    every_split("tests/data/decode/gemini-stream/partial_args.json");
}

Test(gemini, every_split_nested_and_open, .timeout = 120)
{
    every_split("tests/data/decode/gemini-stream/partial_args_nested.json");
    every_split("tests/data/decode/gemini-stream/open_call_at_end.json");
}

static const tw_diag *first_error(const tw_result *r, tw_status code)
{
    for (size_t i = 0; i < r->errors.len; i++)
        if (r->errors.items[i].code == code)
            return &r->errors.items[i];
    return NULL;
}

/* The offset of the n-th (0-based) event of a stream. */
static int64_t event_at(const char *in, int n)
{
    const char *p = in;
    for (int i = 0; i < n; i++) {
        p = strstr(p, "\n\n");
        cr_assert_not_null(p);
        p += 2;
    }
    return (int64_t)(p - in);
}

/* A streamed call refused for one of its pieces: the error is at the event
 * that held that piece, not at the event that opened the call; a call the
 * input leaves open is refused at its start. */
Test(gemini, streamed_refusal_at_the_offending_event)
{
    static const char no_path[] = EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}",
                                     "") EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$."
                                            "x\",\"numberValue\":1}],\"willContinue\":true}}",
                                            "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"numberValue\":2}],\"willContinue\":true}}", "")
            EV("{\"functionCall\":{}}", ",\"finishReason\":\"STOP\"");
    tw_result r;
    tw_test_decode_every_way("gemini-stream", no_path, sizeof no_path - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    const tw_diag *e = first_error(&r, TW_D_TOOL_CALL_JSON);
    cr_assert_not_null(e);
    cr_expect_eq(e->offset, event_at(no_path, 2), "at %lld, want the third event at %lld",
                 (long long)e->offset, (long long)event_at(no_path, 2));
    tw_result_free(&r);

    /* over max_args_bytes: at the event whose piece went over */
    static const char big[] = EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.x\",\"stringValue\":"
           "\"0123456789\"}],\"willContinue\":true}}",
           "") EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.y\",\"stringValue\":"
                  "\"0123456789012345678901234567890123456789\"}],\"willContinue\":true}}",
                  "") EV("{\"functionCall\":{}}", ",\"finishReason\":\"STOP\"");
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_args_bytes = 32;
    tw_test_decode_every_way("gemini-stream", big, sizeof big - 1, &o, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    e = first_error(&r, TW_D_ARGS_TOO_LARGE);
    cr_assert_not_null(e);
    cr_expect_eq(e->offset, event_at(big, 2));
    tw_result_free(&r);

    /* pieces each within max_args_bytes, together over it: at the event whose
     * piece took the sum over */
    static const char sum[] = EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.x\",\"stringValue\":"
           "\"01234567890123456789\"}],\"willContinue\":true}}",
           "") EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.y\",\"stringValue\":"
                  "\"01234567890123456789\"}],\"willContinue\":true}}",
                  "") EV("{\"functionCall\":{}}", ",\"finishReason\":\"STOP\"");
    tw_test_decode_every_way("gemini-stream", sum, sizeof sum - 1, &o, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    e = first_error(&r, TW_D_ARGS_TOO_LARGE);
    cr_assert_not_null(e);
    cr_expect_eq(e->offset, event_at(sum, 2), "at %lld, want the third event at %lld",
                 (long long)e->offset, (long long)event_at(sum, 2));
    tw_result_free(&r);

    /* left open by the end of the input: at the call */
    static const char open_call[] = EV("{\"text\":\"hi\"}", "")
        EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
            EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.x\",\"numberValue\":1}],"
               "\"willContinue\":true}}",
               "");
    tw_test_decode_every_way("gemini-stream", open_call, sizeof open_call - 1, NULL, &r);
    e = first_error(&r, TW_D_TOOL_CALL_UNTERMINATED);
    cr_assert_not_null(e);
    cr_expect_eq(e->offset, event_at(open_call, 1));
    tw_result_free(&r);
}
