/* Never change a value silently: U+0000 in strings and keys, repeated keys,
 * bytes that are not RFC 8259 JSON, and the pending warnings of one call,
 * across every decoder. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/decode.h"
#include "toolwire/json.h"
#include "toolwire/neutral.h"
#include "toolwire/schema.h"
#include "twtest.h"

static size_t count_code(const tw_diag_list *l, tw_status code)
{
    size_t n = 0;
    for (size_t i = 0; i < l->len; i++)
        n += l->items[i].code == code;
    return n;
}

static const tw_diag *find_code(const tw_diag_list *l, tw_status code)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->items[i].code == code)
            return &l->items[i];
    return NULL;
}

/* Decode n bytes (may hold NUL) in one piece and in 7-byte pieces; both
 * must agree, the batch result is returned. */
static void decode_n(const char *fmt, const char *buf, size_t n, const tw_decode_opts *o,
                     tw_result *out)
{
    const tw_format_ops *f = tw_format_find(fmt);
    cr_assert_not_null(f, "%s", fmt);
    char *copy = tw_test_exact(buf, n);
    cr_assert_eq(f->decode(copy, n, o, out), TW_OK, "%s", fmt);
    tw_result r2;
    cr_assert_eq(tw_decode_chunked(f, copy, n, 7, o, &r2), TW_OK, "%s chunked", fmt);
    tw_buf a = {0}, b = {0};
    cr_assert_eq(tw_result_write(&a, out, 0), TW_OK);
    cr_assert_eq(tw_result_write(&b, &r2, 0), TW_OK);
    cr_expect_str_eq(a.data, b.data, "%s: batch and chunked differ", fmt);
    tw_buf_free(&a);
    tw_buf_free(&b);
    tw_result_free(&r2);
    free(copy);
}

static void decode(const char *fmt, const char *buf, const tw_decode_opts *o, tw_result *out)
{
    decode_n(fmt, buf, strlen(buf), o, out);
}

/* No accepted call and no content holds a prefix of the hostile value. */
static void expect_no_cut(const tw_result *r, const char *what)
{
    for (size_t i = 0; i < r->msg.ncalls; i++) {
        char *s = tw_json_print(r->msg.calls[i].arguments, NULL);
        cr_expect(strstr(s, "ls /tmp") == NULL, "%s: a cut value was accepted: %s", what, s);
        cr_expect(strcmp(r->msg.calls[i].name, "evil") != 0, "%s: cut key chose 'evil'", what);
        free(s);
    }
    cr_expect(r->msg.content.len == 0 ||
                  memmem(r->msg.content.data, r->msg.content.len, "cut", 3) == NULL,
              "%s: content was cut: %s", what, r->msg.content.data);
}

/* ---------- 1: U+0000 in strings and keys ---------- */

static const char HERMES_NUL[] =
    "<tool_call>{\"name\\u0000x\":\"evil\",\"name\":\"safe\",\"arguments\":"
    "{\"cmd\":\"ls /tmp\\u0000; rm -rf /\"}}</tool_call>";

Test(json_nul, hermes_reproduction_refused)
{
    tw_result r;
    decode("hermes", HERMES_NUL, NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 1);
    expect_no_cut(&r, "hermes");
    tw_result_free(&r);
}

Test(json_nul, every_text_format)
{
    static const char *const fmts[] = {"hermes", "think", "proxy"};
    const char *args_escaped =
        "<tool_call>{\"name\":\"f\",\"arguments\":{\"cmd\":\"ls /tmp\\u0000x\"}}"
        "</tool_call>";
    for (size_t i = 0; i < 3; i++) {
        tw_result r;
        decode(fmts[i], args_escaped, NULL, &r);
        if (strcmp(fmts[i], "think") != 0) {
            cr_expect_eq(r.msg.ncalls, 0, "%s", fmts[i]);
            cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 1, "%s", fmts[i]);
        }
        expect_no_cut(&r, fmts[i]);
        tw_result_free(&r);
    }
    /* fenced, a raw NUL byte inside the name, arguments as a JSON string
     * whose inner text escapes U+0000, and bare JSON */
    tw_result r;
    const char fenced[] = "```tool_call\n{\"name\":\"ev\0il\",\"arguments\":{}}\n```";
    decode_n("fenced", fenced, sizeof fenced - 1, NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 1);
    tw_result_free(&r);
    decode("hermes",
           "<tool_call>{\"name\":\"f\",\"arguments\":\"{\\\"cmd\\\":\\\"ls /tmp\\\\u0000 x\\\"}\"}"
           "</tool_call>",
           NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 1);
    expect_no_cut(&r, "arguments string");
    tw_result_free(&r);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.bare_json = true;
    decode("hermes", "{\"name\":\"f\",\"arguments\":{\"cmd\":\"ls /tmp\\u0000 x\"}}", &o, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 1);
    tw_result_free(&r);
}

Test(json_nul, openai_response)
{
    tw_result r;
    decode(
        "openai-response",
        "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
        "\"content\":\"cut\\u0000here\",\"tool_calls\":["
        "{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\","
        "\"arguments\":\"{\\\"cmd\\\":\\\"ls /tmp\\\\u0000; rm\\\"}\"}},"
        "{\"id\":\"b\\u0000\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}"
        "\"}},"
        "{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"h\",\"arguments\":\"{}\"}}]},"
        "\"finish_reason\":\"tool_calls\"}]}",
        NULL, &r);
    /* the clean call stays; the two others and the content are refused */
    cr_assert_eq(r.msg.ncalls, 1);
    cr_expect_str_eq(r.msg.calls[0].name, "h");
    cr_expect_eq(r.msg.content.len, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 3, "body + two calls");
    expect_no_cut(&r, "openai-response");
    tw_result_free(&r);
}

Test(json_nul, openai_stream)
{
    tw_result r;
    decode(
        "openai-stream",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"cut\\u0000x\"}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"cut\\u0000x\"}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\","
        "\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"cmd\\\":\"}}]}}]}"
        "\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
        "\"function\":{\"arguments\":\"\\\"ls /tmp\\u0000; rm\\\"}\"}}]}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\","
        "\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"x\\\":"
        "\\\"\\\\u0000\\\"}\"}}]}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
        "data: [DONE]\n\n",
        NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(r.msg.content.len, 0);
    cr_expect_eq(r.msg.thinking.len, 0);
    /* three chunks + two calls */
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 5);
    expect_no_cut(&r, "openai-stream");
    tw_result_free(&r);
}

Test(json_nul, anthropic)
{
    tw_result r;
    decode("anthropic-response",
           "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"cut\\u0000x\"},"
           "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{\"cmd\":\"ls "
           "/tmp\\u0000 x\"}},"
           "{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"g\",\"input\":{}}],"
           "\"stop_reason\":\"tool_use\"}",
           NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_expect_str_eq(r.msg.calls[0].name, "g");
    cr_expect_eq(r.msg.content.len, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 2);
    tw_result_free(&r);
    decode(
        "anthropic-stream",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{}}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"cmd\\\":\\\"ls "
        "/tmp\\u0000\"}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"; rm\\\"}\"}}\n\n"
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
        "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"g\",\"input\":{}}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"x\\\":\\\"\\\\u0000\\\"}"
        "\"}}\n\n"
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
        "event: message_delta\ndata: "
        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 3, "one event + two calls");
    expect_no_cut(&r, "anthropic-stream");
    tw_result_free(&r);
}

Test(json_nul, vllm)
{
    tw_result r;
    decode("vllm-generate",
           "{\"thinking\":\"cut\\u0000x\",\"response\":\"\",\"tool_calls\":["
           "{\"name\":\"f\",\"arguments\":{\"cmd\":\"ls /tmp\\u0000 x\"}},"
           "{\"name\":\"g\",\"arguments\":\"{\\\"cmd\\\":\\\"ls /tmp\\\\u0000 x\\\"}\"},"
           "{\"name\":\"h\",\"arguments\":{}}]}",
           NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_expect_str_eq(r.msg.calls[0].name, "h");
    cr_expect_eq(r.msg.thinking.len, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 3);
    expect_no_cut(&r, "vllm");
    tw_result_free(&r);
}

/* cJSON reads a \u escape whose four characters are not all hex as U+0000 */
Test(json_nul, invalid_u_escape_is_a_nul)
{
    tw_result r;
    decode("hermes",
           "<tool_call>{\"name\":\"f\",\"arguments\":{\"cmd\":\"ls /tmp\\u00g0; rm\"}}</tool_call>",
           NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 1);
    cr_expect_eq(count_code(&r.warnings, TW_D_JSON_NOT_RFC8259), 1);
    expect_no_cut(&r, "\\u00g0");
    tw_result_free(&r);
    decode("openai-response",
           "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"cut\\uZZZZx\"},"
           "\"finish_reason\":\"stop\"}]}",
           NULL, &r);
    cr_expect_eq(r.msg.content.len, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_JSON_NUL), 1);
    tw_result_free(&r);
}

/* ---------- 2: repeated keys ---------- */

Test(duplicate_keys, call_object_refused_everywhere)
{
    static const char *const keys[] = {"name", "arguments", "parameters", "id", "type"};
    for (size_t i = 0; i < 5; i++) {
        char buf[300];
        snprintf(buf, sizeof buf,
                 "<tool_call>{\"name\":\"f\",\"arguments\":{},\"parameters\":{},\"id\":\"a\","
                 "\"type\":\"function\",\"%s\":\"x\"}</tool_call>",
                 keys[i]);
        tw_result r;
        decode("hermes", buf, NULL, &r);
        cr_expect_eq(r.msg.ncalls, 0, "%s", keys[i]);
        const tw_diag *g = find_code(&r.errors, TW_D_CALL_DUPLICATE_KEY);
        cr_assert_not_null(g, "%s", keys[i]);
        cr_expect(strstr(g->message, keys[i]) != NULL, "%s", g->message);
        tw_result_free(&r);
    }
    tw_result r;
    decode("openai-response",
           "{\"choices\":[{\"index\":0,\"message\":{\"tool_calls\":[{\"id\":\"a\",\"type\":"
           "\"function\","
           "\"function\":{\"name\":\"evil\",\"name\":\"safe\",\"arguments\":\"{}\"}}]},"
           "\"finish_reason\":\"tool_calls\"}]}",
           NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_CALL_DUPLICATE_KEY), 1);
    tw_result_free(&r);
    decode("openai-stream",
           "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\","
           "\"function\":{\"name\":\"f\",\"arguments\":\"{}\",\"arguments\":\"{\\\"x\\\":1}\"}}]}}]"
           "}\n\n"
           "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
           "data: [DONE]\n\n",
           NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_CALL_DUPLICATE_KEY), 1);
    tw_result_free(&r);
    decode("anthropic-response",
           "{\"type\":\"message\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\","
           "\"input\":{\"a\":1},\"input\":{\"a\":2}}],\"stop_reason\":\"tool_use\"}",
           NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_CALL_DUPLICATE_KEY), 1);
    tw_result_free(&r);
    decode("anthropic-stream",
           "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
           "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"id\":\"t2\",\"name\":\"f\","
           "\"input\":{}}}\n\n"
           "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
           "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
           NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_CALL_DUPLICATE_KEY), 1);
    tw_result_free(&r);
    decode("vllm-generate",
           "{\"response\":\"\",\"tool_calls\":[{\"name\":\"f\",\"name\":\"g\",\"arguments\":{}}]}",
           NULL, &r);
    cr_expect_eq(r.msg.ncalls, 0);
    cr_expect_eq(count_code(&r.errors, TW_D_CALL_DUPLICATE_KEY), 1);
    tw_result_free(&r);
}

Test(duplicate_keys, arguments_warn_and_keep_first)
{
    tw_result r;
    decode("hermes",
           "<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":1,\"b\":{\"c\":[{\"d\":\"first\",\"d\":"
           "\"second\"}]},"
           "\"a\":2}}</tool_call>",
           NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    char *s = tw_json_print(r.msg.calls[0].arguments, NULL);
    cr_expect_str_eq(s, "{\"a\":1,\"b\":{\"c\":[{\"d\":\"first\"}]}}");
    free(s);
    const tw_diag *g = find_code(&r.warnings, TW_D_DUPLICATE_KEY);
    cr_assert_not_null(g);
    cr_expect(strstr(g->message, "'/a'") && strstr(g->message, "2 repeated") &&
                  strstr(g->message, "first value"),
              "%s", g->message);
    tw_result_free(&r);
    /* the same through a wire format's arguments text */
    decode(
        "openai-response",
        "{\"choices\":[{\"index\":0,\"message\":{\"tool_calls\":[{\"id\":\"a\",\"type\":"
        "\"function\","
        "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":{\\\"y\\\":1,\\\"y\\\":2}}\"}}]},"
        "\"finish_reason\":\"tool_calls\"}]}",
        NULL, &r);
    cr_assert_eq(r.msg.ncalls, 1);
    g = find_code(&r.warnings, TW_D_DUPLICATE_KEY);
    cr_assert_not_null(g);
    cr_expect(strstr(g->message, "'/x/y'") != NULL, "%s", g->message);
    tw_result_free(&r);
}

/* Far too many members for a pairwise search to finish in the test's time. */
Test(duplicate_keys, dedupe_is_not_quadratic, .timeout = 300)
{
    const size_t n = 1000000;
    tw_buf b = {0};
    cr_assert_eq(tw_buf_putc(&b, '{'), TW_OK);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(tw_buf_printf(&b, "%s\"k%zu\":%zu", i ? "," : "", i % (n - 1), i), TW_OK);
    cr_assert_eq(tw_buf_putc(&b, '}'), TW_OK);
    cJSON *v = NULL;
    cr_assert_eq(tw_json_parse(b.data, b.len, 8, &v, NULL), TW_OK);
    char path[64];
    size_t removed = 0;
    cr_assert_eq(tw_json_dedupe(v, path, sizeof path, &removed), TW_OK);
    cr_expect_eq(removed, 1);
    cr_expect_str_eq(path, "/k0");
    cr_expect_eq(cJSON_GetArraySize(v), (int)(n - 1));
    cr_expect_eq(tw_json_get(v, "k0")->valueint, 0, "the first value is kept");
    cJSON_Delete(v);
    tw_buf_free(&b);
}

/* ---------- 3: not RFC 8259 ---------- */

Test(rfc8259, warnings_not_refusals)
{
    tw_result r;
    const char tab[] =
        "<tool_call>{\"name\":\"f\",\"arguments\":{\"code\":\"a\tb\nc\"}}</tool_call>";
    decode("hermes", tab, NULL, &r);
    cr_expect_eq(r.msg.ncalls, 1);
    cr_expect_eq(count_code(&r.warnings, TW_D_JSON_NOT_RFC8259), 1);
    tw_result_free(&r);
    const char between[] = "<tool_call>{\"name\":\"f\",\0\"arguments\":{}}</tool_call>";
    decode_n("hermes", between, sizeof between - 1, NULL, &r);
    cr_expect_eq(r.msg.ncalls, 1);
    const tw_diag *g = find_code(&r.warnings, TW_D_JSON_NOT_RFC8259);
    cr_assert_not_null(g);
    cr_expect(strstr(g->message, "NUL byte between tokens") != NULL, "%s", g->message);
    tw_result_free(&r);
    /* clean JSON gets no such warning */
    decode("hermes", "<tool_call>{\"name\":\"f\",\n\t\"arguments\":{}}</tool_call>", NULL, &r);
    cr_expect_eq(count_code(&r.warnings, TW_D_JSON_NOT_RFC8259), 0);
    tw_result_free(&r);
    const char body[] = "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"a\x01z\"},"
                        "\"finish_reason\":\"stop\"}]}";
    decode("openai-response", body, NULL, &r);
    cr_expect_eq(count_code(&r.warnings, TW_D_JSON_NOT_RFC8259), 1);
    cr_expect_str_eq(r.msg.content.data, "a\x01z");
    tw_result_free(&r);
    const char stream[] =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\x02\"}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\x02\"}}]}\n\n"
        "data: [DONE]\n\n";
    decode("openai-stream", stream, NULL, &r);
    cr_expect_eq(count_code(&r.warnings, TW_D_JSON_NOT_RFC8259), 1, "once per stream");
    tw_result_free(&r);
    decode("vllm-generate", "{\"response\":\"x\x03\",\"tool_calls\":[]}", NULL, &r);
    cr_expect_eq(count_code(&r.warnings, TW_D_JSON_NOT_RFC8259), 1);
    tw_result_free(&r);
    decode("anthropic-response",
           "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"x\x04\"}],"
           "\"stop_reason\":\"end_turn\"}",
           NULL, &r);
    cr_expect_eq(count_code(&r.warnings, TW_D_JSON_NOT_RFC8259), 1);
    tw_result_free(&r);
}

/* ---------- json.c units ---------- */

Test(json_lint, scan_and_prune)
{
    tw_json_lint l;
    tw_json_lint_scan("{\"a\":\"\\\\u0000\"}", 15, &l);
    cr_expect(!l.nul, "an escaped backslash before u0000 is not U+0000");
    cr_expect_eq(l.nonstd_offset, -1);
    cJSON *v = NULL;
    const char doc[] = "{\"k\\u0000\":1,\"k\":2,\"arr\":[\"x\\u0000y\",3],\"s\":\"ok\"}";
    cr_assert_eq(tw_json_parse_lint(doc, sizeof doc - 1, 8, &v, NULL, &l), TW_OK);
    cr_expect(l.nul);
    cr_expect_eq(l.nul_offset, 3);
    char *s = tw_json_print(v, NULL);
    cr_expect_str_eq(s, "{\"k\":2,\"arr\":[3],\"s\":\"ok\"}");
    free(s);
    cr_expect(tw_json_tainted(v));
    cr_expect(tw_json_tainted(tw_json_get(v, "arr")));
    cr_expect(!tw_json_tainted(tw_json_get(v, "s")));
    cJSON *dup = cJSON_Duplicate(v, 1);
    cr_expect(tw_json_tainted(dup), "the mark survives a copy");
    cJSON_Delete(dup);
    cJSON_Delete(v);
}

/* The scan steps over plain string bytes eight at a time: a byte that ends
 * such a run is found at every position of a word, and in the tail. */
Test(json_lint, run_ends_at_every_position)
{
    char doc[64];
    tw_json_lint l;
    for (size_t p = 0; p < 40; p++) {
        /* a raw control byte, a raw NUL, a byte that is not UTF-8 */
        static const char bad[] = {'\x01', '\0', '\xff'};
        for (size_t b = 0; b < sizeof bad; b++) {
            memset(doc, 'a', 42);
            doc[0] = '"';
            doc[1 + p] = bad[b];
            doc[41] = '"';
            tw_json_lint_scan(doc, 42, &l);
            cr_expect_eq(l.nonstd_offset, (int64_t)(1 + p), "byte %02x at %zu: %lld",
                         (unsigned char)bad[b], p, (long long)l.nonstd_offset);
            cr_expect_eq(l.nul, bad[b] == 0, "byte %02x at %zu", (unsigned char)bad[b], p);
        }
        /* a backslash: the \u0000 escape it starts is seen */
        memset(doc, 'a', 48);
        doc[0] = '"';
        memcpy(doc + 1 + p, "\\u0000", 6);
        doc[47] = '"';
        tw_json_lint_scan(doc, 48, &l);
        cr_expect(l.nul, "escape at %zu", p);
        cr_expect_eq(l.nul_offset, (int64_t)(1 + p), "escape at %zu", p);
        /* a closing quote: what follows is read as tokens again */
        memset(doc, 'a', 64);
        doc[0] = '"';
        memcpy(doc + 1 + p, "\",\"\\u0000\"", 10);
        tw_json_lint_scan(doc, 11 + p, &l);
        cr_expect(l.nul, "string closed at %zu", p);
        cr_expect_eq(l.nul_offset, (int64_t)(4 + p), "string closed at %zu", p);
    }
}

/* ---------- 4: every pending warning of one call at once ---------- */

Test(pending_warnings, all_kinds_on_one_call)
{
    /* alias + as-string + schema (warned) + duplicate id + duplicate key +
     * not RFC 8259 on one call: more than the three slots take_call had */
    cJSON *tj = cJSON_Parse("[{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":"
                            "{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}}]");
    cr_assert_not_null(tj);
    tw_tool *tools = NULL;
    size_t ntools = 0;
    tw_error why_e = {0};
    cr_assert_eq(tw_tools_read(tj, NULL, &tools, &ntools, &why_e), TW_OK, "%s", why_e.message);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.tools = tools;
    o.ntools = ntools;
    o.schema_warn = true;
    const char *one =
        "{\"name\":\"f\",\"id\":\"x\",\"parameters\":\"{\\\"a\\\":1,\\\"a\\\":\\\"\\t\\\"}\"}";
    char buf[600];
    snprintf(buf, sizeof buf, "<tool_call>%s</tool_call><tool_call>%s</tool_call>", one, one);
    tw_result r;
    decode("hermes", buf, &o, &r);
    cr_assert_eq(r.msg.ncalls, 2);
    static const tw_status want[] = {TW_D_PARAMETERS_ALIAS, TW_D_ARGUMENTS_AS_STRING,
                                     TW_D_ARGS_SCHEMA, TW_D_DUPLICATE_KEY, TW_D_JSON_NOT_RFC8259};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect_eq(count_code(&r.warnings, want[i]), 2, "%s", tw_code_name(want[i]));
    cr_expect_eq(count_code(&r.warnings, TW_D_DUPLICATE_ID), 1);
    tw_result_free(&r);
    /* vLLM's call acceptance: the same six on one call */
    snprintf(buf, sizeof buf, "{\"response\":\"\",\"tool_calls\":[%s,%s]}", one, one);
    decode("vllm-generate", buf, &o, &r);
    cr_assert_eq(r.msg.ncalls, 2);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect_eq(count_code(&r.warnings, want[i]), 2, "vllm %s", tw_code_name(want[i]));
    cr_expect_eq(count_code(&r.warnings, TW_D_DUPLICATE_ID), 1);
    tw_result_free(&r);
    tw_tools_free(tools, ntools);
    cJSON_Delete(tj);
}

Test(rfc8259, numbers_and_utf8)
{
    static const char *const bad[] = {"{\"a\":01}",       "{\"a\":1.}",
                                      "{\"a\":-.5}",      "[1e]",
                                      "{\"a\":\"\xff\"}", "{\"a\":\"\xed\xa0\x80\"}",
                                      "\xef\xbb\xbf{}"};
    static const char *const good[] = {"{\"a\":0}", "{\"a\":-0.5E-3}", "[1e+5,10,-7]",
                                       "{\"a\":\"\xc3\xa9\xf0\x9f\x98\x80\"}"};
    tw_json_lint l;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tw_json_lint_scan(bad[i], strlen(bad[i]), &l);
        cr_expect_geq(l.nonstd_offset, 0, "%s", bad[i]);
    }
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        tw_json_lint_scan(good[i], strlen(good[i]), &l);
        cr_expect_eq(l.nonstd_offset, -1, "%s: %s", good[i], l.nonstd_what);
    }
    tw_result r;
    decode("hermes", "<tool_call>{\"name\":\"f\",\"arguments\":{\"n\":007}}</tool_call>", NULL, &r);
    cr_expect_eq(r.msg.ncalls, 1);
    const tw_diag *g = find_code(&r.warnings, TW_D_JSON_NOT_RFC8259);
    cr_assert_not_null(g);
    cr_expect(strstr(g->message, "number") != NULL, "%s", g->message);
    tw_result_free(&r);
}

/* tw_json_parse itself refuses a string cut at U+0000, so that no reader
 * built on it (request decoders, the neutral reader, fixtures, convert)
 * sees a shortened value; the offset names the string's escape or byte. */
Test(json_nul, plain_parse_refuses_with_offset)
{
    static const struct {
        const char *text;
        size_t len;
        size_t offset;
    } cases[] = {
        {"{\"content\":\"ls /tmp\\u0000; rm -rf /\"}", 36, 19},
        {"{\"a\\u0000b\":1}", 14, 3},
        {"[\"x\\u00g0y\"]", 12, 3},
        {"[\"x\0y\"]", 7, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *v = (cJSON *)1;
        tw_error e;
        cr_expect_eq(tw_json_parse(cases[i].text, cases[i].len, 0, &v, &e), TW_ERR_INVALID,
                     "case %zu", i);
        cr_expect_null(v, "case %zu", i);
        cr_expect_eq(e.code, TW_D_JSON_NUL);
        cr_expect_eq(e.offset, (int64_t)cases[i].offset, "case %zu: offset %lld", i,
                     (long long)e.offset);
    }
    /* \u escapes of other characters still parse */
    cJSON *v = NULL;
    cr_assert_eq(tw_json_parse("[\"\\u00e9\\u0041\"]", 16, 0, &v, NULL), TW_OK);
    cr_expect_str_eq(v->child->valuestring, "\xC3\xA9"
                                            "A");
    cJSON_Delete(v);
}

/* ---- tw_json_parse returns statuses; the diagnostic is in err->code ---- */

static void *no_malloc(size_t n)
{
    (void)n;
    return NULL;
}

Test(json_strict, parse_returns_statuses_with_the_diagnostic_in_err)
{
    char deep[80];
    memset(deep, '[', 40);
    memset(deep + 40, ']', 40);
    const struct {
        const char *text;
        size_t len;
        size_t max_depth;
        tw_status st;   /* the return */
        tw_status code; /* err->code */
        int64_t offset;
    } cases[] = {
        {"{\"a\": }", 7, 0, TW_ERR_PARSE, TW_ERR_PARSE, 6},
        {"[1, 2] x", 8, 0, TW_ERR_PARSE, TW_ERR_PARSE, 7},
        {"", 0, 0, TW_ERR_PARSE, TW_ERR_PARSE, 0},
        {deep, sizeof deep, 16, TW_ERR_LIMIT, TW_D_JSON_TOO_DEEP, 16}, /* the 17th '[' */
        {"[\"a\\u0000\"]", 11, 0, TW_ERR_INVALID, TW_D_JSON_NUL, 3},
        {"{\"k\": \"x\0y\"}", 12, 0, TW_ERR_INVALID, TW_D_JSON_NUL, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *b = tw_test_exact(cases[i].text, cases[i].len);
        cJSON *v = (cJSON *)1;
        tw_error e;
        memset(&e, 0x55, sizeof e);
        tw_status st = tw_json_parse(b, cases[i].len, cases[i].max_depth, &v, &e);
        cr_expect_eq(st, cases[i].st, "case %zu: %s", i, tw_code_name(st));
        cr_expect(tw_code_is_status(st), "case %zu", i);
        cr_expect_null(v, "case %zu", i);
        cr_expect_eq(e.code, cases[i].code, "case %zu: %s", i, tw_code_name(e.code));
        cr_expect_eq(e.offset, cases[i].offset, "case %zu: offset %lld", i, (long long)e.offset);
        cr_expect_str_empty(e.path, "case %zu", i);
        cr_expect_neq(e.message[0], '\0', "case %zu", i);
        cr_expect_lt(strlen(e.message), sizeof e.message, "case %zu", i);
        /* the same through the lint parse, except U+0000 (removed there) */
        if (cases[i].code != TW_D_JSON_NUL) {
            tw_json_lint lint;
            tw_error le;
            st = tw_json_parse_lint(b, cases[i].len, cases[i].max_depth, &v, &le, &lint);
            cr_expect_eq(st, cases[i].st, "case %zu (lint)", i);
            cr_expect_eq(le.code, cases[i].code, "case %zu (lint)", i);
            cr_expect_eq(le.offset, cases[i].offset, "case %zu (lint)", i);
            cr_expect_null(v);
        }
        free(b);
    }
    /* an allocation that fails: NOMEM, offset none */
    cJSON_Hooks h = {no_malloc, free};
    cJSON_InitHooks(&h);
    cJSON *v = (cJSON *)1;
    tw_error e;
    tw_status st = tw_json_parse("{\"a\": [1, 2]}", 13, 0, &v, &e);
    cJSON_InitHooks(NULL);
    cr_expect_eq(st, TW_ERR_NOMEM);
    cr_expect_null(v);
    cr_expect_eq(e.code, TW_ERR_NOMEM);
    cr_expect_eq(e.offset, -1);
    /* success leaves err alone; NULL err is allowed on every path */
    tw_error_set(&e, TW_ERR_IO, 5, NULL, "kept");
    cr_assert_eq(tw_json_parse("[1]", 3, 0, &v, &e), TW_OK);
    cJSON_Delete(v);
    cr_expect_eq(e.code, TW_ERR_IO);
    cr_expect_str_eq(e.message, "kept");
    cr_expect_eq(tw_json_parse("[", 1, 0, &v, NULL), TW_ERR_PARSE);
    cr_expect_eq(tw_json_parse(deep, sizeof deep, 4, &v, NULL), TW_ERR_LIMIT);
    cr_expect_eq(tw_json_parse("\"\\u0000\"", 8, 0, &v, NULL), TW_ERR_INVALID);
}

/* cJSON skips a byte order mark only when two bytes follow it: a mark and
 * one byte is bad JSON, never an allocation failure (a fuzzed fenced call
 * once came back NOMEM). */
Test(json_strict, byte_order_mark_short_texts_are_parse_errors)
{
    const struct {
        const char *text;
        tw_status st;
    } cases[] = {
        {"\xEF\xBB\xBF", TW_ERR_PARSE},
        {"\xEF\xBB\xBF"
         "0",
         TW_ERR_PARSE},
        {"\xEF\xBB\xBF"
         "[",
         TW_ERR_PARSE},
        {"\xEF\xBB\xBF"
         " ",
         TW_ERR_PARSE},
        {"\xEF\xBB\xBF"
         "12",
         TW_OK},
        {"\xEF\xBB\xBF"
         "[]",
         TW_OK},
        {"\xEF\xBB\xBF"
         " 1",
         TW_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = strlen(cases[i].text);
        char *b = tw_test_exact(cases[i].text, n);
        cJSON *v = NULL;
        tw_error e;
        tw_status st = tw_json_parse(b, n, 0, &v, &e);
        cr_expect_eq(st, cases[i].st, "case %zu: %s", i, tw_code_name(st));
        cJSON_Delete(v);
        tw_json_lint lint;
        st = tw_json_parse_lint(b, n, 0, &v, &e, &lint);
        cr_expect_eq(st, cases[i].st, "case %zu (lint): %s", i, tw_code_name(st));
        cJSON_Delete(v);
        free(b);
    }
    /* the reproduction: a fenced block holding a mark and one digit */
    const char in[] = "```tool_call\xEF\xBB\xBF"
                      "0```";
    tw_result r;
    cr_assert_eq(tw_format_find("fenced")->decode(in, sizeof in - 1, NULL, &r), TW_OK);
    tw_result_free(&r);
}

/* An index is never truncated or clamped into a neighbour: 1.5 is not 1. */
Test(json_strict, exact_int_refuses_fractions_and_out_of_range)
{
    const struct {
        const char *text;
        int64_t lo, hi;
        bool ok;
        int64_t want;
    } cases[] = {
        {"1", 0, 10, true, 1},
        {"1.0", 0, 10, true, 1},
        {"1e1", 0, 10, true, 10},
        {"-3", -5, 5, true, -3},
        {"1.5", 0, 10, false, 0},
        {"11", 0, 10, false, 0},
        {"-1", 0, 10, false, 0},
        {"9007199254740993", 0, INT64_MAX, false, 0},
        {"9007199254740991", 0, INT64_MAX, true, 9007199254740991LL},
        {"9007199254740992", 0, INT64_MAX, false, 0},
        {"9007199254740990.6", 0, INT64_MAX, false, 0},
        {"12.50e1", 0, 1000, true, 125},
        {"12.55e1", 0, 1000, false, 0},
        {"1250e-1", 0, 1000, true, 125},
        {"1255e-1", 0, 1000, false, 0},
        {"0.0", 0, 10, true, 0},
        {"-0", 0, 10, true, 0},
        {"1e99999999999999999999", 0, INT64_MAX, false, 0},
        {"1e400", 0, INT64_MAX, false, 0},
        {"\"1\"", 0, 10, false, 0},
        {"null", 0, 10, false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *v = NULL;
        cr_assert_eq(tw_json_parse(cases[i].text, strlen(cases[i].text), 0, &v, NULL), TW_OK, "%s",
                     cases[i].text);
        int64_t got = -77;
        bool ok = tw_json_exact_int(v, cases[i].lo, cases[i].hi, &got);
        cr_expect_eq(ok, cases[i].ok, "%s", cases[i].text);
        cr_expect_eq(got, cases[i].ok ? cases[i].want : -77, "%s: %lld", cases[i].text,
                     (long long)got);
        cJSON_Delete(v);
    }
    cr_expect_not(tw_json_exact_int(NULL, 0, 10, &(int64_t){0}));
}
