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
#include "decode_fixtures.h"
#include "decode_opts.h"
#include "files.h"
#include "toolwire/decode.h"
#include "toolwire/gemini.h"
#include "twtest.h"

/* ===================== helpers ===================== */

static char *result_json(const tw_result *r)
{
    tw_buf b = {0};
    cr_assert_eq(tw_result_write(&b, r, 0), TW_OK);
    return b.data;
}

/* Batch, then chunked at 1, 7 and 64 bytes: all must print the same. */
static void decode(const char *fmt, const char *buf, size_t len, const tw_decode_opts *o,
                   tw_result *out)
{
    const tw_format_ops *f = tw_format_find(fmt);
    cr_assert_not_null(f, "format %s", fmt);
    char *copy = tw_test_exact(buf, len);
    cr_assert_eq(f->decode(copy, len, o, out), TW_OK);
    char *want = result_json(out);
    static const size_t chunks[] = {1, 7, 64};
    for (size_t i = 0; i < 3; i++) {
        tw_result r;
        cr_assert_eq(tw_decode_chunked(f, copy, len, chunks[i], o, &r), TW_OK);
        char *got = result_json(&r);
        cr_assert_str_eq(got, want, "%s chunk %zu differs from batch", fmt, chunks[i]);
        free(got);
        tw_result_free(&r);
    }
    free(want);
    free(copy);
}

static void expect_call(const tw_result *r, size_t i, const char *id, const char *name,
                        const char *args_json)
{
    cr_assert_gt(r->msg.ncalls, i, "call %zu missing", i);
    const tw_call *c = &r->msg.calls[i];
    cr_assert_str_eq(c->id, id);
    cr_assert_str_eq(c->name, name);
    cJSON *want = cJSON_Parse(args_json);
    cr_assert_not_null(want);
    char *got = cJSON_PrintUnformatted(c->arguments);
    cr_assert(tw_json_equal(want, c->arguments), "call %zu arguments: %s", i, got);
    free(got);
    cJSON_Delete(want);
}

static void expect_text(const tw_buf *b, const char *want)
{
    cr_assert_eq(b->len, strlen(want), "expected \"%s\", got \"%.*s\"", want, (int)b->len,
                 b->data ? b->data : "");
    cr_assert(b->len == 0 || memcmp(b->data, want, b->len) == 0, "expected \"%s\"", want);
}

static void expect_clean(const tw_result *r)
{
    cr_assert_eq(r->errors.len, 0, "unexpected error %s: %s",
                 r->errors.len ? tw_code_name(r->errors.items[0].code) : "",
                 r->errors.len && r->errors.items[0].message ? r->errors.items[0].message : "");
    cr_assert_eq(r->warnings.len, 0, "unexpected warning %s",
                 r->warnings.len ? tw_code_name(r->warnings.items[0].code) : "");
}

static bool has_diag(const tw_diag_list *l, tw_status code)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->items[i].code == code)
            return true;
    return false;
}

static void load_cassette(const char *name, tw_cassette *c)
{
    const char *path = tw_test_shared(name);
    if (!path)
        cr_skip("../shared/real-traffic is absent");
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_cassette_load(path, NULL, c, &why), TW_OK, "%s", why.message);
}

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
    load_cassette("real-traffic/gemini__nonstream__function_call_then_result.yaml", &c);
    cr_assert_eq(c.ninteractions, 2);
    cr_assert_eq(c.interactions[0].response.body.kind, TW_CASSETTE_BODY_PARSED);

    tw_result r;
    const tw_cassette_body *b = &c.interactions[0].response.body;
    decode("gemini", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    expect_call(&r, 0, "call_1", "get_user_country", "{}");
    cr_assert_str_eq(r.finish_reason, "tool_calls"); /* Gemini says STOP after a call */
    expect_text(&r.msg.content, "");
    expect_text(&r.msg.thinking, "");
    cr_assert_null(r.msg.thinking_signature);
    expect_clean(&r);
    tw_result_free(&r);

    /* the turn after the functionResponse */
    b = &c.interactions[1].response.body;
    decode("gemini", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    expect_call(&r, 0, "call_1", "final_result",
                "{\"city\": \"Mexico City\", \"country\": \"Mexico\"}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    expect_clean(&r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

static const char SIG_PREFIX[] = "EpwICpkIAXLI2nxlU6gsWZaZHRYkX1orzuM8vSUFwaAt1JRxEC2hJzPAcAu3PWaKz7X";
static const char SIG_SUFFIX[] = "YowYXnxy7ElQ1CWkLSDHsbsptHrG9NTaRWdiAFwInb7nd1KrJVPvsNlnUfExbs8gd0IoxjaTjY1V7mjb2D/7NoL5owonoBDAXOk15QuFyU=";

Test(gemini, real_stream_function_call_thought_signature)
{
    tw_cassette c;
    load_cassette("real-traffic/gemini__stream__function_call_thought_signature.yaml", &c);
    cr_assert_eq(c.ninteractions, 2);
    cr_assert_eq(c.interactions[0].response.body.kind, TW_CASSETTE_BODY_STRING);

    tw_result r;
    const tw_cassette_body *b = &c.interactions[0].response.body;
    decode("gemini-stream", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    expect_call(&r, 0, "call_1", "get_country", "{}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    expect_text(&r.msg.content, "");
    /* the signature the next request sends back (there in its base64url spelling) */
    cr_assert_not_null(r.msg.thinking_signature);
    cr_assert_eq(strncmp(r.msg.thinking_signature, SIG_PREFIX, strlen(SIG_PREFIX)), 0);
    size_t sl = strlen(r.msg.thinking_signature);
    cr_assert_eq(sl, 1408);
    cr_assert_str_eq(r.msg.thinking_signature + sl - strlen(SIG_SUFFIX), SIG_SUFFIX);
    expect_clean(&r);
    tw_result_free(&r);

    b = &c.interactions[1].response.body;
    decode("gemini-stream", b->data, b->len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    expect_text(&r.msg.content, "The capital of Mexico is Mexico City.");
    cr_assert_str_eq(r.finish_reason, "stop");
    cr_assert_null(r.msg.thinking_signature);
    expect_clean(&r);
    tw_result_free(&r);
    tw_cassette_free(&c);
}

Test(gemini, real_stream_partial_args)
{
    const char *path = tw_test_shared("real-traffic/gemini__stream__function_call_partial_args.chunks.jsonl");
    if (!path)
        cr_skip("../shared/real-traffic is absent");
    tw_error why = {.offset = -1};
    size_t len = 0;
    char *text = tw_read_file(path, 1 << 20, &len, &why);
    cr_assert_not_null(text, "%s", why.message);
    tw_buf sse = {0}, arr = {0};
    jsonl_bodies(text, len, &sse, &arr);

    tw_result r;
    decode("gemini-stream", sse.data, sse.len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 2);
    expect_call(&r, 0, "call_1", "getWeather", "{\"location\": \"Boston\"}");
    expect_call(&r, 1, "call_2", "getWeather", "{\"location\": \"San Francisco\"}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    cr_assert_not_null(r.msg.thinking_signature);
    cr_assert_eq(strncmp(r.msg.thinking_signature, "CiMBjz1rX25KieIB4d4AwFn8", 24), 0);
    cr_assert_eq(strlen(r.msg.thinking_signature), 1032);
    expect_text(&r.msg.content, "");
    expect_clean(&r);

    /* the same events as one array body (streamGenerateContent without alt=sse) */
    tw_result a;
    decode("gemini", arr.data, arr.len, NULL, &a);
    tw_result ra = r, aa = a; /* the values, without the diagnostics' offsets */
    memset(&ra.errors, 0, sizeof ra.errors);
    memset(&aa.errors, 0, sizeof aa.errors);
    memset(&ra.warnings, 0, sizeof ra.warnings);
    memset(&aa.warnings, 0, sizeof aa.warnings);
    for (size_t i = 0; i < r.msg.ncalls; i++)
        r.msg.calls[i].offset = a.msg.calls[i].offset = -1;
    char *x = result_json(&ra), *y = result_json(&aa);
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

typedef struct collect {
    tw_buf content, thinking;
    size_t ncalls;
    char ids[16][64];
    size_t nerrors, nwarnings;
} collect;

static tw_status on_event(void *user, const tw_event *ev)
{
    collect *c = user;
    switch (ev->kind) {
    case TW_EV_CONTENT: tw_buf_append(&c->content, ev->text, ev->len); break;
    case TW_EV_THINKING: tw_buf_append(&c->thinking, ev->text, ev->len); break;
    case TW_EV_TOOL_CALL:
        if (c->ncalls < 16)
            snprintf(c->ids[c->ncalls], 64, "%s", ev->call->id);
        c->ncalls++;
        break;
    case TW_EV_ERROR: c->nerrors++; break;
    case TW_EV_WARNING: c->nwarnings++; break;
    }
    return TW_OK;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static size_t rnd(size_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (size_t)(rng_state % n);
}

static void run_dir(const char *sub)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(sub), ".json", &files);
    cr_assert_gt(n, 4, "fixtures under %s", sub);
    for (long i = 0; i < n; i++) {
        tw_error why = {.offset = -1};
        cJSON *fx = tw_load_json_file(files[i], 1 << 26, 256, &why);
        cr_assert_not_null(fx, "%s", why.message);
        tw_opts_holder h;
        tw_opts_holder_init(&h);
        cr_assert(tw_opts_from_json(&h, tw_json_get(fx, "options"), &why), "%s", why.message);
        const tw_format_ops *f = tw_format_find(tw_json_get_str(fx, "format"));
        cr_assert_not_null(f);
        char *copy; /* exact size, as tw_test_exact gives */
        size_t len;
        cr_assert(tw_decode_fixture_input(fx, files[i], &copy, &len, &why), "%s", why.message);
        tw_result batch;
        cr_assert_eq(f->decode(copy, len, &h.o, &batch), TW_OK);
        char *want = result_json(&batch);
        for (int round = 0; round < 12; round++) {
            collect c;
            memset(&c, 0, sizeof c);
            tw_stream *s = tw_stream_new(f, &h.o, on_event, &c);
            cr_assert_not_null(s);
            for (size_t off = 0; off < len;) {
                size_t k = 1 + rnd(round < 6 ? 5 : 60);
                if (k > len - off)
                    k = len - off;
                char *piece = tw_test_exact(copy + off, k);
                cr_assert_eq(tw_stream_feed(s, piece, k), TW_OK);
                free(piece);
                off += k;
            }
            tw_result r;
            cr_assert_eq(tw_stream_finish(s, &r), TW_OK);
            tw_stream_free(s);
            char *got = result_json(&r);
            cr_assert_str_eq(got, want, "%s: random split %d differs", files[i], round);
            free(got);
            cr_assert_eq(c.content.len, r.msg.content.len, "%s: content events", files[i]);
            cr_assert(c.content.len == 0 ||
                      memcmp(c.content.data, r.msg.content.data, c.content.len) == 0);
            cr_assert_eq(c.thinking.len, r.msg.thinking.len, "%s: thinking events", files[i]);
            cr_assert(c.thinking.len == 0 ||
                      memcmp(c.thinking.data, r.msg.thinking.data, c.thinking.len) == 0);
            cr_assert_eq(c.ncalls, r.msg.ncalls, "%s: call events", files[i]);
            for (size_t k = 0; k < c.ncalls && k < 16; k++)
                cr_assert_str_eq(c.ids[k], r.msg.calls[k].id);
            cr_assert_eq(c.nerrors, r.errors.len, "%s: error events", files[i]);
            cr_assert_eq(c.nwarnings, r.warnings.len, "%s: warning events", files[i]);
            tw_buf_free(&c.content);
            tw_buf_free(&c.thinking);
            tw_result_free(&r);
        }
        free(want);
        tw_result_free(&batch);
        free(copy);
        tw_opts_holder_free(&h);
        cJSON_Delete(fx);
    }
    tw_free_list(files, n);
}

Test(gemini, stream_random_splits_and_events) { run_dir("tests/data/decode/gemini-stream"); }
Test(gemini, body_random_splits_and_events) { run_dir("tests/data/decode/gemini"); }

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
    static const char in[] =
        EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.x\",\"numberValue\":1}],\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"name\":\"b\",\"id\":\"b-1\",\"args\":{\"y\":true}}}", ",\"finishReason\":\"STOP\"");
    tw_result r;
    decode("gemini-stream", in, sizeof in - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 2);
    expect_call(&r, 0, "call_1", "a", "{\"x\": 1}");
    expect_call(&r, 1, "b-1", "b", "{\"y\": true}");
    cr_assert_str_eq(r.finish_reason, "tool_calls");
    expect_clean(&r);
    tw_result_free(&r);
}

Test(gemini, streamed_repeated_key_keeps_first)
{
    static const char in[] =
        EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.k\",\"stringValue\":\"one\"},"
           "{\"jsonPath\":\"$.k\",\"stringValue\":\"two\"}]}}", ",\"finishReason\":\"STOP\"");
    tw_result r;
    decode("gemini-stream", in, sizeof in - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    expect_call(&r, 0, "call_1", "a", "{\"k\": \"one\"}");
    cr_assert(has_diag(&r.warnings, TW_D_DUPLICATE_KEY));
    cr_assert_eq(r.errors.len, 0);
    tw_result_free(&r);
}

Test(gemini, streamed_path_conflict_and_depth_refused)
{
    static const char conflict[] =
        EV("{\"functionCall\":{\"name\":\"a\",\"partialArgs\":[{\"jsonPath\":\"$.k\",\"numberValue\":1},"
           "{\"jsonPath\":\"$.k.z\",\"numberValue\":2}]}}", ",\"finishReason\":\"STOP\"");
    tw_result r;
    decode("gemini-stream", conflict, sizeof conflict - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(has_diag(&r.errors, TW_D_TOOL_CALL_JSON));
    cr_assert_str_eq(r.finish_reason, "stop");
    tw_result_free(&r);

    static const char deep[] =
        EV("{\"functionCall\":{\"name\":\"a\",\"partialArgs\":[{\"jsonPath\":\"$.a.b.c.d\",\"numberValue\":1}]}}",
           ",\"finishReason\":\"STOP\"");
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_depth = 3;
    decode("gemini-stream", deep, sizeof deep - 1, &o, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(has_diag(&r.errors, TW_D_JSON_TOO_DEEP));
    tw_result_free(&r);
    o.limits.max_depth = 5; /* args, a, b, c, d: five levels */
    decode("gemini-stream", deep, sizeof deep - 1, &o, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    expect_call(&r, 0, "call_1", "a", "{\"a\":{\"b\":{\"c\":{\"d\":1}}}}");
    tw_result_free(&r);

    static const char bad_path[] =
        EV("{\"functionCall\":{\"name\":\"a\",\"partialArgs\":[{\"jsonPath\":\"location\",\"numberValue\":1}]}}",
           ",\"finishReason\":\"STOP\"");
    decode("gemini-stream", bad_path, sizeof bad_path - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(has_diag(&r.errors, TW_D_TOOL_CALL_JSON));
    tw_result_free(&r);
}

Test(gemini, nul_in_call_refused)
{
    static const char in[] =
        "{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":"
        "{\"a\":\"x\\u0000y\"}}}]},\"finishReason\":\"STOP\"}]}";
    tw_result r;
    decode("gemini", in, sizeof in - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    cr_assert(has_diag(&r.errors, TW_D_JSON_NUL));
    tw_result_free(&r);
}

Test(gemini, further_signature_not_carried)
{
    static const char in[] =
        "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\",\"thoughtSignature\":\"s1\"},"
        "{\"text\":\"b\",\"thoughtSignature\":\"s1\"},{\"text\":\"c\",\"thoughtSignature\":\"s2\"}]},"
        "\"finishReason\":\"STOP\"}]}";
    tw_result r;
    decode("gemini", in, sizeof in - 1, NULL, &r);
    cr_assert_str_eq(r.msg.thinking_signature, "s1");
    expect_text(&r.msg.content, "abc");
    cr_assert_eq(r.warnings.len, 1); /* the repeated s1 is no loss; s2 is */
    cr_assert_eq(r.warnings.items[0].code, TW_D_NOT_CARRIED);
    tw_result_free(&r);
}

Test(gemini, too_many_calls_streamed)
{
    tw_buf in = {0};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(tw_buf_puts(&in, EV("{\"functionCall\":{\"name\":\"f\",\"willContinue\":true}}", "")
                                      EV("{\"functionCall\":{}}", "")),
                     TW_OK);
    cr_assert_eq(tw_buf_puts(&in, EV("{\"text\":\"\"}", ",\"finishReason\":\"STOP\"")), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_calls = 3;
    tw_result r;
    decode("gemini-stream", in.data, in.len, &o, &r);
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
    decode("gemini-stream", in, sizeof in - 1, &o, &r);
    cr_assert(has_diag(&r.errors, TW_D_INPUT_TOO_LARGE));
    cr_assert_eq(r.msg.content.len, 0);
    tw_result_free(&r);
}

/* ===================== linear work ===================== */

#include "work.h"

/* Units of work allowed per input byte, as in tests/test_linear.c. */
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
        cr_assert_eq(tw_buf_printf(b,
                                   EV("{\"functionCall\":{\"name\":\"f\",\"willContinue\":true}}", "")
                                   EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.i\","
                                      "\"numberValue\":%zu}],\"willContinue\":true}}", "")
                                   EV("{\"functionCall\":{}}", ""), i),
                     TW_OK);
    cr_assert_eq(tw_buf_puts(b, EV("{\"text\":\"\"}", ",\"finishReason\":\"STOP\"")), TW_OK);
}

/* One call whose arguments arrive as n pieces: n keys, or one string in n parts. */
static void gen_pieces(tw_buf *b, size_t n, bool one_string)
{
    cr_assert_eq(tw_buf_puts(b, EV("{\"functionCall\":{\"name\":\"f\",\"willContinue\":true}}", "")), TW_OK);
    for (size_t i = 0; i < n; i++) {
        if (one_string)
            cr_assert_eq(tw_buf_printf(b, EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.s\","
                                             "\"stringValue\":\"abcdefgh\",\"willContinue\":%s}],"
                                             "\"willContinue\":true}}", ""),
                                       i + 1 < n ? "true" : "false"),
                         TW_OK);
        else
            cr_assert_eq(tw_buf_printf(b, EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":"
                                             "\"$.list[%zu].k%zu\",\"numberValue\":1}],"
                                             "\"willContinue\":true}}", ""), i, i),
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
    decode("gemini-stream", b.data, b.len, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    const char *s = tw_json_get_str(r.msg.calls[0].arguments, "s");
    cr_assert_not_null(s);
    cr_assert_eq(strlen(s), 300 * 8);
    for (size_t i = 0; i < 300; i++)
        cr_assert_eq(memcmp(s + 8 * i, "abcdefgh", 8), 0);
    tw_result_free(&r);
    tw_buf_free(&b);

    gen_pieces(&b, 300, false);
    decode("gemini-stream", b.data, b.len, NULL, &r);
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
    char *want = result_json(&batch);
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
            char *got = result_json(&r);
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
    static const char no_path[] =
        EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.x\",\"numberValue\":1}],\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"numberValue\":2}],\"willContinue\":true}}", "")
        EV("{\"functionCall\":{}}", ",\"finishReason\":\"STOP\"");
    tw_result r;
    decode("gemini-stream", no_path, sizeof no_path - 1, NULL, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    const tw_diag *e = first_error(&r, TW_D_TOOL_CALL_JSON);
    cr_assert_not_null(e);
    cr_expect_eq(e->offset, event_at(no_path, 2), "at %lld, want the third event at %lld",
                 (long long)e->offset, (long long)event_at(no_path, 2));
    tw_result_free(&r);

    /* over max_args_bytes: at the event whose piece went over */
    static const char big[] =
        EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.x\",\"stringValue\":\"0123456789\"}],\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.y\",\"stringValue\":\"0123456789012345678901234567890123456789\"}],\"willContinue\":true}}", "")
        EV("{\"functionCall\":{}}", ",\"finishReason\":\"STOP\"");
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_args_bytes = 32;
    decode("gemini-stream", big, sizeof big - 1, &o, &r);
    cr_assert_eq(r.msg.ncalls, 0);
    e = first_error(&r, TW_D_ARGS_TOO_LARGE);
    cr_assert_not_null(e);
    cr_expect_eq(e->offset, event_at(big, 2));
    tw_result_free(&r);

    /* left open by the end of the input: at the call */
    static const char open_call[] =
        EV("{\"text\":\"hi\"}", "")
        EV("{\"functionCall\":{\"name\":\"a\",\"willContinue\":true}}", "")
        EV("{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.x\",\"numberValue\":1}],\"willContinue\":true}}", "");
    decode("gemini-stream", open_call, sizeof open_call - 1, NULL, &r);
    e = first_error(&r, TW_D_TOOL_CALL_UNTERMINATED);
    cr_assert_not_null(e);
    cr_expect_eq(e->offset, event_at(open_call, 1));
    tw_result_free(&r);
}
