/*
 * One pass over the bytes; bytes and trees not copied more than the result
 * needs:
 *
 * - text fed to a text decoder with nothing held is read in place: the
 *   decoder's hold buffer stays unallocated (only the result holds a copy);
 * - a tool call's arguments object is moved out of the parsed payload into
 *   the call, not deep-copied (counted with cJSON's allocation hooks);
 * - the JSON scan that runs before the parse measures the nesting, so the
 *   parse needs no separate depth pass, and still refuses a deep payload;
 * - a long string with many escapes is read once: the scanners find the
 *   string's next quote once, not again after every escape (an input so
 *   large that one search per escape could not finish in the test timeout);
 * - the bound tw_json_size_within uses gives the answer tw_json_size does;
 * - a wire body's calls are located from where the parse saw their objects
 *   begin, at the offsets the walk over the text gives;
 * - the one-pass parse builds the tree cJSON builds (strings with escapes
 *   of every kind included, at every length around its scratch buffer),
 *   and the objects it marks as repeating no key are the ones
 *   tw_json_dedupe leaves alone;
 * - the depth pass, which steps over words with no quote or bracket,
 *   measures what a byte-at-a-time reading measures, and the container
 *   check of the implicit-end search answers as the tree of
 *   tw_json_parse_lint does;
 * - a text not in RFC 8259 form whose only departures cJSON takes as they
 *   are is read by the one-pass parser after the lint scan (into the
 *   arena), with cJSON's tree and the scan's findings, and what it does not
 *   take is read by cJSON as before;
 * - tw_json_write_str, which steps over plain bytes a word at a time,
 *   writes what a byte-at-a-time writing gives, and what it writes a block
 *   at a time into reserved room is what it appends run by run where the
 *   buffer's cap refuses that room;
 * - the arguments of a call whose values are markup (Gemma 4, DSML, GLM,
 *   MiniMax-M2, Qwen3-Coder) are built as a tree beside their JSON text,
 *   not parsed from it again: the tree is the one the text's parse gives
 *   (marks, number spellings and repeated keys' removal included), on
 *   inputs written for it and on every input of those decoders' fuzz
 *   corpora.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include "toolwire/decode.h"
#include "toolwire/json.h"
#include "toolwire/neutral.h"
#include "toolwire/text.h"
#include "../../src/json_marks.h" /* the arena of a tree read and dropped whole */
#include "../../src/text_int.h"   /* the state, for its buffer sizes */
#include "twtest.h"

static void fill_prose(tw_buf *b, size_t n)
{
    static const char line[] = "Plain answer text with no markup at all, line after line.\n";
    while (b->len + sizeof line - 1 <= n)
        cr_assert_eq(tw_buf_append(b, line, sizeof line - 1), TW_OK);
}

Test(one_pass, plain_text_is_not_held)
{
    static const tw_text_kind kinds[] = {TW_TEXT_THINK, TW_TEXT_HERMES, TW_TEXT_FENCED};
    tw_buf in = {0};
    fill_prose(&in, 1u << 20);
    for (size_t k = 0; k < 3; k++) {
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits.max_input_bytes = 4u << 20;
        tw_text_dec *d = tw_text_dec_new(kinds[k], &o, NULL, NULL);
        cr_assert_not_null(d);
        /* four feeds of 256 KiB: each is passed on without a stay in t_hold */
        for (size_t off = 0; off < in.len; off += 256u << 10) {
            size_t n = in.len - off < (256u << 10) ? in.len - off : 256u << 10;
            cr_assert_eq(tw_text_dec_feed(d, in.data + off, n), TW_OK);
            cr_assert_lt(d->think.hold.cap, 4096, "kind %zu: %zu bytes of hold buffer", k,
                         d->think.hold.cap);
        }
        tw_result r;
        cr_assert_eq(tw_text_dec_finish(d, &r), TW_OK);
        /* the content is the text without its trailing newline */
        cr_assert_eq(r.msg.content.len, in.len - 1);
        cr_assert_eq(memcmp(r.msg.content.data, in.data, in.len - 1), 0);
        tw_result_free(&r);
        tw_text_dec_free(d);
    }
    tw_buf_free(&in);
}

Test(one_pass, partial_tag_is_held_across_feeds)
{
    /* what stays undecided at the end of a feed is kept: a split opener */
    static const char *const parts[] = {
        "before <thi", "nk>inside</th", "ink> after <tool_",
        "call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>"};
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.allow_unknown_tool = true;
    tw_text_dec *d = tw_text_dec_new(TW_TEXT_HERMES, &o, NULL, NULL);
    cr_assert_not_null(d);
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(tw_text_dec_feed(d, parts[i], strlen(parts[i])), TW_OK);
    tw_result r;
    cr_assert_eq(tw_text_dec_finish(d, &r), TW_OK);
    cr_assert_str_eq(r.msg.thinking.data, "inside");
    cr_assert_eq(r.msg.ncalls, 1);
    cr_assert_str_eq(r.msg.calls[0].name, "f");
    tw_result_free(&r);
    tw_text_dec_free(d);
}

static size_t nallocs;

static void *counting_malloc(size_t n)
{
    nallocs++;
    return malloc(n);
}

Test(one_pass, call_arguments_are_moved_not_copied)
{
    enum { MEMBERS = 2000 };
    tw_buf in = {0};
    cr_assert_eq(tw_buf_append(&in, "<tool_call>{\"name\": \"f\", \"arguments\": {", 39), TW_OK);
    for (int i = 0; i < MEMBERS; i++) {
        char m[48];
        int n = snprintf(m, sizeof m, "%s\"k%d\": \"v%d\"", i ? ", " : "", i, i);
        cr_assert_eq(tw_buf_append(&in, m, (size_t)n), TW_OK);
    }
    cr_assert_eq(tw_buf_append(&in, "}}</tool_call>", 14), TW_OK);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.allow_unknown_tool = true;
    cJSON_Hooks h = {counting_malloc, free};
    cJSON_InitHooks(&h);
    nallocs = 0;
    tw_result r;
    cr_assert_eq(tw_hermes_output_decode(in.data, in.len, &o, &r), TW_OK);
    size_t used = nallocs;
    cJSON_InitHooks(NULL);
    cr_assert_eq(r.msg.ncalls, 1);
    cr_assert_eq(cJSON_GetArraySize(r.msg.calls[0].arguments), MEMBERS);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r.msg.calls[0].arguments, "k1999")),
                     "v1999");
    /* the parse allocates a node, a key and a value per member; a deep copy
     * of the arguments would add as many again */
    cr_assert_lt(used, (size_t)MEMBERS * 4, "%zu cJSON allocations for %d members", used, MEMBERS);
    tw_result_free(&r);
    tw_buf_free(&in);
}

Test(one_pass, lint_scan_measures_depth)
{
    tw_json_lint lint;
    tw_json_lint_scan("[{\"a\": [1, {\"b\": \"]]]}}\"}]}, []]", 32, &lint);
    cr_assert_eq(lint.depth, 4);
    tw_json_lint_scan("\"[[[\"", 5, &lint);
    cr_assert_eq(lint.depth, 0);
    /* the parse trusts that measure: one level past the cap is refused */
    char deep[80];
    memset(deep, '[', 33);
    memset(deep + 33, ']', 33);
    cJSON *v = NULL;
    tw_error e;
    cr_assert_eq(tw_json_parse_lint(deep, 66, 32, &v, &e, &lint), TW_ERR_LIMIT);
    cr_assert_eq(e.code, TW_D_JSON_TOO_DEEP);
    cr_assert_null(v);
    cr_assert_eq(tw_json_parse_lint(deep + 1, 64, 32, &v, &e, &lint), TW_OK);
    cr_assert_eq(lint.depth, 32);
    cJSON_Delete(v);
}

Test(one_pass, size_within_agrees_with_size)
{
    /* strings that grow when written (controls, invalid UTF-8, escapes),
     * numbers with and without spellings, every cap around the size */
    static const char *const docs[] = {
        "{}",
        "[]",
        "null",
        "{\"a\": \"\\u0001\\u0002\\n\\\"\"}",
        "{\"k\\u0000x\": 1}",
        "[1.50, -0.0, 1e400, 12345678901234567890123]",
        "{\"s\": \"caf\\u00e9 \\ud83d\\ude00\"}",
        "{\"a\": {\"b\": [true, false, null, \"x\"]}, \"c\": \"\\/\"}"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        cJSON *v = cJSON_Parse(docs[i]);
        cr_assert_not_null(v, "%s", docs[i]);
        size_t exact = tw_json_size(v, 1u << 20);
        for (size_t cap = 0; cap < exact + 80; cap++)
            cr_assert_eq(tw_json_size_within(v, cap), exact <= cap, "%s cap %zu (size %zu)",
                         docs[i], cap, exact);
        cJSON_Delete(v);
    }
    /* raw bytes a parse keeps in strings: a control byte writes as 6, an
     * invalid UTF-8 byte as 3 */
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "x", "\x01\x02\xff\xfe plain");
    size_t exact = tw_json_size(o, 1u << 20);
    cr_assert_eq(exact, strlen("{\"x\":\"\\u0001\\u0002\xef\xbf\xbd\xef\xbf\xbd plain\"}"));
    for (size_t cap = 0; cap < exact + 80; cap++)
        cr_assert_eq(tw_json_size_within(o, cap), exact <= cap, "cap %zu", cap);
    cJSON_Delete(o);
}

/* 16 MiB of escapes: 8 million of them. One search to the string's end per
 * escape would read 8M x 8 MiB on average, far past the test's timeout. */
static void escaped_text(tw_buf *b)
{
    for (size_t i = 0; i < (8u << 20); i++)
        cr_assert_eq(tw_buf_append(b, "\\n", 2), TW_OK);
}

Test(one_pass, long_escaped_string_is_read_once, .timeout = 300)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.allow_unknown_tool = true;
    o.limits.max_input_bytes = 64u << 20;
    o.limits.max_args_bytes = 64u << 20;
    /* a text payload: the block scanner and the lint before the parse */
    tw_buf in = {0};
    const char *head = "<tool_call>{\"name\": \"w\", \"arguments\": {\"text\": \"";
    cr_assert_eq(tw_buf_append(&in, head, strlen(head)), TW_OK);
    escaped_text(&in);
    cr_assert_eq(tw_buf_append(&in, "\"}}</tool_call>", 15), TW_OK);
    tw_result r;
    cr_assert_eq(tw_hermes_output_decode(in.data, in.len, &o, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 1);
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(r.msg.calls[0].arguments, "text"));
    cr_assert_not_null(text);
    cr_assert_eq(strlen(text), (size_t)8 << 20);
    cr_assert_eq(text[0], '\n');
    tw_result_free(&r);
    /* an OpenAI body: the arguments string escaped once more inside the
     * envelope, read by the depth scan before the parse */
    tw_buf_reset(&in);
    head = "{\"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"tool_calls\": "
           "[{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"w\", "
           "\"arguments\": \"{\\\"text\\\": \\\"";
    cr_assert_eq(tw_buf_append(&in, head, strlen(head)), TW_OK);
    for (size_t i = 0; i < (6u << 20); i++) /* 18 MiB, 6M escapes of the envelope */
        cr_assert_eq(tw_buf_append(&in, "\\\\n", 3), TW_OK);
    const char *tail = "\\\"}\"}}]}, \"finish_reason\": \"tool_calls\"}]}";
    cr_assert_eq(tw_buf_append(&in, tail, strlen(tail)), TW_OK);
    const tw_format_ops *f = tw_format_find("openai-response");
    cr_assert_eq(f->decode(in.data, in.len, &o, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, 1, "%s", r.errors.len ? r.errors.items[0].message : "");
    text = cJSON_GetStringValue(cJSON_GetObjectItem(r.msg.calls[0].arguments, "text"));
    cr_assert_not_null(text);
    cr_assert_eq(strlen(text), (size_t)6 << 20);
    cr_assert_eq(text[0], '\n');
    tw_result_free(&r);
    tw_buf_free(&in);
}

/* The one-pass parse builds cJSON's own tree: the same types, keys,
 * strings, doubles (to the bit) and valueint, in order, with cJSON's list
 * links; each number keeps its spelling. */
static void same_as_cjson(const cJSON *a, const cJSON *b)
{
    cr_assert_eq(a->type & 0xFF, b->type & 0xFF);
    cr_assert_eq(a->string == NULL, b->string == NULL);
    if (a->string)
        cr_assert_str_eq(a->string, b->string);
    if (cJSON_IsString(a))
        cr_assert_str_eq(a->valuestring, b->valuestring);
    if (cJSON_IsNumber(a)) {
        cr_assert_eq(memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)), 0, "%.17g vs %.17g",
                     a->valuedouble, b->valuedouble);
        cr_assert_eq(a->valueint, b->valueint);
        cr_assert_not_null(tw_json_spelling(a));
    }
    const cJSON *x = a->child, *y = b->child, *last = NULL;
    for (; x && y; x = x->next, y = y->next) {
        same_as_cjson(x, y);
        last = x;
    }
    cr_assert(!x && !y, "member counts differ");
    if (a->child)
        cr_assert_eq(a->child->prev, last);
}

Test(one_pass, parse_builds_cjsons_tree)
{
    static const char *const texts[] = {
        "{\"a\": [1, -0, 0.5, 1e400, -1.5E-3, 9007199254740993, 2147483648, -2147483649],"
        " \"b\\u00e9\\n\": \"x\\ty\\\"z\\\\\\/\\b\\f\\r\", \"c\": {\"d\": [true, false, null, "
        "{}]}}",
        "[\"\\ud83d\\ude00 \\u20ac \\u0041\", \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", []]",
        " \r\n\t\"only a string\" ",
        "123456789012345678",
        "{\"k\": \"0123456789abcdef0123456789abcdef\\\\0123456789abcdef\"}",
    };
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        cJSON *v = NULL, *c = cJSON_Parse(texts[k]);
        tw_json_lint lint;
        cr_assert_not_null(c);
        cr_assert_eq(tw_json_parse_lint(texts[k], strlen(texts[k]), 0, &v, NULL, &lint), TW_OK);
        cr_assert_eq(lint.nonstd_offset, -1);
        cr_assert(!lint.nul);
        same_as_cjson(v, c);
        cJSON_Delete(v);
        cr_assert_eq(tw_json_parse(texts[k], strlen(texts[k]), 0, &v, NULL), TW_OK);
        same_as_cjson(v, c);
        cJSON_Delete(v);
        cJSON_Delete(c);
    }
    /* the spelling is the text's, never a formatted double */
    cJSON *v = NULL;
    cr_assert_eq(tw_json_parse("[1.50, 1e400]", 13, 0, &v, NULL), TW_OK);
    cr_assert_str_eq(tw_json_spelling(cJSON_GetArrayItem(v, 0)), "1.50");
    cr_assert_str_eq(tw_json_spelling(cJSON_GetArrayItem(v, 1)), "1e400");
    cJSON_Delete(v);
}

/* A JSON string of about `len` source bytes: runs of plain bytes of every
 * length from 0 to 19 between escapes of each kind (one-letter, \u of one,
 * two and three UTF-8 bytes, surrogate pairs) and raw UTF-8. */
static void mixed_string(tw_buf *b, size_t len, unsigned seed)
{
    static const char *const pieces[] = {
        "\\n",     "\\\"",    "\\\\",           "\\/",      "\\t",          "\\u0041",
        "\\u00e9", "\\u20ac", "\\ud83d\\ude00", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
    size_t start = b->len;
    cr_assert_eq(tw_buf_append(b, "\"", 1), TW_OK);
    while (b->len - start < len) {
        seed = seed * 1103515245u + 12345u;
        size_t run = (seed >> 8) % 20;
        for (size_t k = 0; k < run; k++) {
            char c = (char)('a' + (int)(((seed >> 3) + k) % 26));
            cr_assert_eq(tw_buf_append(b, &c, 1), TW_OK);
        }
        const char *e = pieces[(seed >> 16) % (sizeof pieces / sizeof pieces[0])];
        cr_assert_eq(tw_buf_append(b, e, strlen(e)), TW_OK);
    }
    cr_assert_eq(tw_buf_append(b, "\"", 1), TW_OK);
}

/* Strings with escapes decode as cJSON decodes them, at every length
 * around the parser's scratch buffer (4 KiB on the stack, then the heap)
 * and with several such strings, keys among them, in one document. */
Test(one_pass, escaped_strings_decode_as_cjson)
{
    static const size_t lens[] = {0, 1, 7, 8, 9, 63, 4090, 4096, 4100, 8200, 40000};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        tw_buf in = {0};
        cr_assert_eq(tw_buf_append(&in, "{", 1), TW_OK);
        mixed_string(&in, lens[k] / 2, (unsigned)k);
        cr_assert_eq(tw_buf_append(&in, ": [", 3), TW_OK);
        mixed_string(&in, lens[k], (unsigned)k + 100);
        cr_assert_eq(tw_buf_append(&in, ", ", 2), TW_OK);
        mixed_string(&in, lens[k] / 3, (unsigned)k + 200);
        cr_assert_eq(tw_buf_append(&in, ", \"plain after\"]}", 17), TW_OK);
        cJSON *c = cJSON_ParseWithLength(in.data, in.len), *v = NULL;
        cr_assert_not_null(c, "length %zu", lens[k]);
        tw_json_lint lint;
        cr_assert_eq(tw_json_parse_lint(in.data, in.len, 0, &v, NULL, &lint), TW_OK);
        cr_assert_eq(lint.nonstd_offset, -1);
        same_as_cjson(v, c);
        cJSON_Delete(v);
        /* and read as a prefix, as the text decoders read a payload */
        size_t used = 0;
        cr_assert(tw_json_parse_prefix(in.data, in.len, 0, &v, &used));
        cr_assert_eq(used, in.len);
        same_as_cjson(v, c);
        cJSON_Delete(v);
        cJSON_Delete(c);
        tw_buf_free(&in);
    }
}

/* The offsets of the i-th occurrence of each `needle` in a body, in order. */
static void expect_call_offsets(const char *format, const char *body, const char *needle,
                                size_t ncalls)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.allow_unknown_tool = true;
    tw_result r;
    const tw_format_ops *f = tw_format_find(format);
    cr_assert_not_null(f);
    cr_assert_eq(f->decode(body, strlen(body), &o, &r), TW_OK);
    cr_assert_eq(r.msg.ncalls, ncalls, "%s: %zu calls", format, r.msg.ncalls);
    const char *at = body;
    for (size_t i = 0; i < ncalls; i++) {
        at = strstr(at, needle);
        cr_assert_not_null(at);
        cr_assert_eq(r.msg.calls[i].offset, (int64_t)(at - body), "%s call %zu: %lld, not %td",
                     format, i, (long long)r.msg.calls[i].offset, at - body);
        at++;
    }
    tw_result_free(&r);
}

/* A wire body's calls are located where they begin, whether the one-pass
 * parse read the body (and recorded where its containers begin) or the
 * body is not RFC 8259 (a raw control byte in the content) and the offsets
 * come from walking the text. */
Test(one_pass, wire_call_offsets_with_and_without_marks)
{
    for (int raw = 0; raw < 2; raw++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "{\"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", "
                 "\"content\": \"a%sb\", \"tool_calls\": ["
                 "{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"f\", "
                 "\"arguments\": \"{\\\"s\\\": \\\"x\\\\\\\"y [{\\\"}\"}}, "
                 "{\"id\": \"c2\", \"type\": \"function\", \"function\": {\"name\": \"g\", "
                 "\"arguments\": \"{}\"}},\n  "
                 "{\"id\": \"c3\", \"type\": \"function\", \"function\": {\"name\": \"h\", "
                 "\"arguments\": \"{\\\"n\\\": [1, {\\\"m\\\": 2}]}\"}}]}, "
                 "\"finish_reason\": \"tool_calls\"}]}",
                 raw ? "\x01" : "");
        expect_call_offsets("openai-response", body, "{\"id\"", 3);
        snprintf(
            body, sizeof body,
            "{\"type\": \"message\", \"role\": \"assistant\", \"content\": ["
            "{\"type\": \"text\", \"text\": \"a%sb\"}, "
            "{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"f\", \"input\": {\"s\": "
            "\"[{\"}}, "
            "{\"type\": \"tool_use\", \"id\": \"t2\", \"name\": \"g\", \"input\": {\"n\": [1]}}],"
            " \"stop_reason\": \"tool_use\"}",
            raw ? "\x01" : "");
        expect_call_offsets("anthropic-response", body, "{\"type\": \"tool_use\"", 2);
        snprintf(body, sizeof body,
                 "{\"response\": \"a%sb\", \"tool_calls\": ["
                 "{\"name\": \"f\", \"arguments\": {\"s\": \"[{\"}}, "
                 "{\"name\": \"g\", \"arguments\": {\"n\": [1, {\"m\": 2}]}}]}",
                 raw ? "\x01" : "");
        expect_call_offsets("vllm-generate", body, "{\"name\"", 2);
    }
}

/* vllm-generate names a top-level member by where its value lies. */
Test(one_pass, vllm_member_offsets)
{
    static const char body[] = "{\"thinking\": 7, \"response\": \"r\", \"tool_calls\": {}, "
                               "\"pre_tool_text\": \"p\"}";
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    tw_result r;
    const tw_format_ops *f = tw_format_find("vllm-generate");
    cr_assert_not_null(f);
    cr_assert_eq(f->decode(body, strlen(body), &o, &r), TW_OK);
    cr_assert_eq(r.errors.len, 3);
    /* sorted by offset: thinking's 7, tool_calls' {}, pre_tool_text's "p" */
    cr_assert_eq(r.errors.items[0].offset, (int64_t)(strstr(body, "7") - body));
    cr_assert_eq(r.errors.items[1].offset, (int64_t)(strstr(body, "{}") - body));
    cr_assert_eq(r.errors.items[2].offset, (int64_t)(strstr(body, "\"p\"") - body));
    tw_result_free(&r);
}

Test(one_pass, repeated_keys_found_at_any_depth_and_size)
{
    /* small and large objects (past the pairwise check), nested in clean ones */
    tw_buf in = {0};
    static const char head[] = "{\"x\": [{\"ok\": 1}, {";
    cr_assert_eq(tw_buf_append(&in, head, strlen(head)), TW_OK);
    for (int i = 0; i < 40; i++) {
        char m[32];
        int n = snprintf(m, sizeof m, "%s\"k%d\": %d", i ? ", " : "", i % 39, i);
        cr_assert_eq(tw_buf_append(&in, m, (size_t)n), TW_OK);
    }
    cr_assert_eq(tw_buf_append(&in, "}], \"y\": {\"a\": 1, \"b\": 2, \"a\": 3}}",
                               strlen("}], \"y\": {\"a\": 1, \"b\": 2, \"a\": 3}}")),
                 TW_OK);
    cJSON *v = NULL;
    cr_assert_eq(tw_json_parse(in.data, in.len, 0, &v, NULL), TW_OK);
    cJSON *copy = cJSON_Duplicate(v, 1);
    cr_assert_not_null(copy);
    char path[64];
    size_t removed = 0;
    cr_assert_eq(tw_json_dedupe(v, path, sizeof path, &removed), TW_OK);
    cr_assert_eq(removed, 2);
    cr_assert_str_eq(path, "/x/1/k0");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "x"), 1)), 39);
    cr_assert_eq(tw_json_dedupe(copy, path, sizeof path, &removed), TW_OK);
    cr_assert_eq(removed, 2);
    cJSON_Delete(copy);
    cJSON_Delete(v);
    /* a clean tree: nothing removed */
    static const char clean[] = "{\"a\": {\"b\": [1, {\"c\": 2, \"d\": 3}]}}";
    cr_assert_eq(tw_json_parse(clean, strlen(clean), 0, &v, NULL), TW_OK);
    cr_assert_eq(tw_json_dedupe(v, path, sizeof path, &removed), TW_OK);
    cr_assert_eq(removed, 0);
    cr_assert_str_eq(path, "");
    cJSON_Delete(v);
    tw_buf_free(&in);
}

/* The nesting of text by the byte-at-a-time reading: brackets outside
 * strings, a backslash skipping the byte after it inside one. */
static size_t depth_by_bytes(const char *s, size_t n)
{
    size_t depth = 0, deepest = 0;
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            deepest = ++depth > deepest ? depth : deepest;
        } else if ((c == '}' || c == ']') && depth) {
            depth--;
        }
    }
    return deepest;
}

/*
 * The depth pass steps over eight bytes at a time where a word holds no
 * quote or bracket: at every alignment of the brackets, and with the bytes
 * that differ from a bracket by one bit (';', '{' ^ 0x80, 'K', ']' ^ 0x20
 * is '}'), it measures what the byte-at-a-time reading measures.
 */
Test(one_pass, depth_pass_at_every_alignment)
{
    static const char *const parts[] = {
        "[",
        "{",
        "]",
        "}",
        "\"a[b\\\"{\"",
        "\xDB",
        "\xFB",
        ";",
        "K",
        "\x7B",
        "[[[",
        "]]",
        "\"\\\\\"",
        "plain text ",
        "x",
        "\x80\x81",
        "0123456789",
        "\"a string of sixteen+ bytes [ then {\"",
        "\"quoted, no bracket\"",
    };
    unsigned seed = 7;
    char buf[160];
    for (int round = 0; round < 4000; round++) {
        size_t n = 0;
        for (;;) {
            seed = seed * 1103515245u + 12345u;
            const char *p = parts[(seed >> 16) % (sizeof parts / sizeof parts[0])];
            size_t k = strlen(p);
            if ((seed >> 8) % 13 == 0 || n + k > sizeof buf)
                break;
            memcpy(buf + n, p, k);
            n += k;
        }
        size_t want = depth_by_bytes(buf, n);
        cr_assert_eq(tw_json_depth(buf, n, 1000), want, "round %d: %.*s", round, (int)n, buf);
        if (want > 2)
            cr_assert_eq(tw_json_depth(buf, n, 2), 3, "round %d", round);
    }
}

/* tw_json_reads_container answers as tw_json_parse_lint's tree does: an
 * object or array read, a scalar, a text that does not read (trailing
 * bytes, non-RFC forms cJSON takes or refuses), U+0000 in a string (read,
 * as the lint reading prunes it) and nesting past the cap. */
Test(one_pass, reads_container_answers_as_the_lint_parse)
{
    static const char *const texts[] = {
        "{\"a\": 1}",
        "[1, 2]",
        " \t{}\n",
        "\"s\"",
        "12",
        "true",
        "null",
        "",
        "   ",
        "{\"a\": 1} x",
        "[1, 2",
        "{\"a\": 1.e5}",
        "[01]",
        "{\"a\" : \"b\\u0000c\"}",
        "[\"\\u00zz\"]",
        "{\"a\": [[[[1]]]]}",
        "[[[[[[[[1]]]]]]]]",
        "\xEF\xBB\xBF{\"a\": 2}",
        "{\"a\": \x01 1}",
        "[1,]",
        "{\"a\": NaN}",
        "[1e999]",
        "{\"a\": \"\xC3\x28\"}",
        "{\"k\": {\"k\": {\"k\": {}}}}",
        "[-]",
        "{'a': 1}",
        "[\"a\"]]",
    };
    static const size_t depths[] = {0, 3, 4, 64};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        for (size_t k = 0; k < sizeof depths / sizeof depths[0]; k++) {
            size_t n = strlen(texts[i]);
            char *t = tw_test_exact(texts[i], n);
            cJSON *v = NULL;
            tw_error e;
            tw_json_lint lint;
            tw_status want = tw_json_parse_lint(t, n, depths[k], &v, &e, &lint);
            bool want_c = want == TW_OK && (cJSON_IsObject(v) || cJSON_IsArray(v));
            cJSON_Delete(v);
            bool c = !want_c;
            tw_status got = tw_json_reads_container(t, n, depths[k], &c);
            cr_assert_eq(got == TW_OK, want == TW_OK, "%s (depth %zu): %d, %d", texts[i], depths[k],
                         got, want);
            if (want != TW_OK)
                cr_assert_eq(got == TW_ERR_LIMIT, e.code == TW_D_JSON_TOO_DEEP, "%s (depth %zu)",
                             texts[i], depths[k]);
            cr_assert_eq(c, want_c, "%s (depth %zu)", texts[i], depths[k]);
            free(t);
        }
    }
}

/*
 * What cJSON takes past RFC 8259 as it is (raw control bytes and invalid
 * UTF-8 in strings, any byte up to 0x20 between tokens, U+0000 there
 * included) is read by the one-pass parser after the lint scan: the tree
 * cJSON builds, in the arena when one is given, with the scan's findings.
 * What it does not take (a byte order mark, a number not in RFC form, U+0000
 * in a string, bytes after the value) is read by cJSON as before, and what
 * cJSON refuses is refused.
 */
Test(one_pass, non_rfc_texts_cjson_takes_read_in_one_pass)
{
    static const struct {
        const char *text;
        size_t len;
        bool one_pass;
    } cases[] = {
#define C(s, op) {s, sizeof s - 1, op}
        C("{\"a\": \"x\x01y\ttab\x1f\"}", true),
        C("[\"\xff\xfe\", \"\xc3\x28\", \"ok \xe2\x82\xac\", \"\xed\xa0\x80\"]", true),
        C("{\"k\x02\": [1, -2.5e3,\f\"v\"]\x0b}", true),
        C("\x01 {\"a\"\x00: \x1f[true, false, null]} \f", true),
        C("[\"plain text of more than eight bytes \x7f\x80\x81 and more\", {\"b\": \"\x05\"}]",
          true),
        C("{\"a\": \"\\u00e9\x03\\n\", \"a\": \"\xc0\"}", true),
        C("\xEF\xBB\xBF{\"a\": \"\x01\"}", false),
        C("{\"a\": \"\x01\", \"b\": 1.e5}", false),
        C("{\"a\": \"\x01\"} \x01", false),
        C("{\"a\": \"\x01\x00\"}", false),
        C("{\"a\": \"\x01\", \"b\": \"\\u0000\"}", false),
        C("{\"a\": \"\x01\",}", false),
        C("[\"\x01\"", false),
        C("{\"a\" \x01 1}", false),
        C("[1 \x02 2]", false),
        C("{\"a\": tru, \"b\": \"\xff\"}", false),
        C("[\"a\\q\x01\"]", false),
        C("[\"\x01\", x]", false),
        C("\x01\x02 ", false),
        C("", false),
        C("{\"a\": [1, 2}", false),
        C("{\"a\": 1,, \"\x01\": 2}", false),
#undef C
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t n = cases[k].len;
        char *t = tw_test_exact(cases[k].text, n);
        tw_json_lint want;
        tw_json_lint_scan(t, n, &want);
        for (int in_arena = 0; in_arena < 2; in_arena++) {
            tw_json_arena arena = {0};
            cJSON *v = NULL, *ref = NULL;
            tw_json_lint lint;
            tw_error e, re;
            tw_status st = tw_json_parse_lint_in(t, n, 0, &v, &e, &lint, in_arena ? &arena : NULL);
            cr_assert_eq(lint.nonstd_offset, want.nonstd_offset, "case %zu", k);
            cr_assert_eq(lint.nonstd_what, want.nonstd_what, "case %zu", k);
            cr_assert_eq(lint.nul, want.nul, "case %zu", k);
            cr_assert_eq(lint.depth, want.depth, "case %zu", k);
            if (in_arena)
                cr_assert_eq(arena.live, cases[k].one_pass, "case %zu", k);
            /* the reading before: the lint scan, then cJSON */
            tw_status rst = tw_json_parse_lint(t, n, 0, &ref, &re, &lint);
            cr_assert_eq(st, rst, "case %zu", k);
            if (cases[k].one_pass) {
                cJSON *c = cJSON_ParseWithLength(t, n);
                cr_assert_eq(st, TW_OK, "case %zu", k);
                cr_assert_not_null(c, "case %zu", k);
                same_as_cjson(v, c);
                cJSON_Delete(c);
            }
            if (st == TW_OK) {
                same_as_cjson(v, ref);
                char *a = tw_json_print(v, NULL), *b = tw_json_print(ref, NULL);
                cr_assert_str_eq(a, b, "case %zu", k);
                free(a);
                free(b);
            } else {
                cr_assert_eq(e.code, re.code, "case %zu", k);
                cr_assert_eq(e.offset, re.offset, "case %zu", k);
                cr_assert_str_eq(e.message, re.message, "case %zu", k);
                /* cJSON refuses it, or bytes follow its value */
                const char *end = NULL;
                cJSON *c = cJSON_ParseWithLengthOpts(t, n, &end, 0);
                if (c) {
                    while (end < t + n && tw_is_space((unsigned char)*end))
                        end++;
                    cr_assert_lt(end, t + n, "case %zu", k);
                    cJSON_Delete(c);
                }
            }
            cJSON_Delete(ref);
            if (in_arena) {
                tw_json_arena_drop(&arena, v);
                tw_json_arena_free(&arena);
            } else {
                cJSON_Delete(v);
            }
        }
        free(t);
    }
}

/* tw_json_write_str steps over plain bytes eight at a time: a string at
 * every alignment of its quotes, backslashes, control bytes, DEL, UTF-8 and
 * invalid bytes is written as its pieces are, each piece shorter than a
 * word and so written a byte at a time (no piece begins with a byte that
 * could end the one before it as UTF-8). */
Test(one_pass, write_str_by_words_as_by_bytes)
{
    static const char *const parts[] = {
        "a",    "plain", "\"",       "\\",       "\n",           "\x01",
        "\x1f", "\x7f",  " ",        "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
        "\xff", "\xc3",  "\xff\x80", "~}|{",     "0123456",      "\t\b\f\r",
    };
    static const int flags[] = {0, TW_JSON_ASCII};
    unsigned seed = 11;
    char buf[200];
    for (int round = 0; round < 3000; round++) {
        size_t n = 0;
        tw_buf want[2] = {{0}, {0}};
        for (int f = 0; f < 2; f++)
            cr_assert_eq(tw_buf_putc(&want[f], '"'), TW_OK);
        for (;;) {
            seed = seed * 1103515245u + 12345u;
            const char *p = parts[(seed >> 16) % (sizeof parts / sizeof parts[0])];
            size_t k = strlen(p);
            if ((seed >> 8) % 29 == 0 || n + k > sizeof buf)
                break;
            memcpy(buf + n, p, k);
            n += k;
            for (int f = 0; f < 2; f++) {
                tw_buf one = {0};
                cr_assert_eq(tw_json_write_str(&one, p, k, flags[f]), TW_OK);
                cr_assert_eq(tw_buf_append(&want[f], one.data + 1, one.len - 2), TW_OK);
                tw_buf_free(&one);
            }
        }
        for (int f = 0; f < 2; f++) {
            cr_assert_eq(tw_buf_putc(&want[f], '"'), TW_OK);
            tw_buf got = {0};
            char *t = tw_test_exact(buf, n);
            cr_assert_eq(tw_json_write_str(&got, t, n, flags[f]), TW_OK);
            cr_assert_eq(got.len, want[f].len, "round %d flags %d", round, flags[f]);
            cr_assert_eq(memcmp(got.data, want[f].data, got.len), 0, "round %d flags %d", round,
                         flags[f]);
            free(t);
            tw_buf_free(&got);
            tw_buf_free(&want[f]);
        }
    }
}

/* The block path of tw_json_write_str (a buffer with room for a block's
 * worst case) writes what the run-by-run path writes (a buffer whose cap is
 * the output's own length, which refuses that room), for strings of several
 * blocks with sequences, escapes and words across the blocks' ends; past a
 * cap both stop with TW_ERR_LIMIT and a prefix of the output. */
Test(one_pass, write_str_blocks_as_runs)
{
    static const char *const parts[] = {"abcdefgh",
                                        "\"",
                                        "\\",
                                        "\n",
                                        "\t\b\f\r",
                                        "\x01",
                                        "\x1f",
                                        "\x7f",
                                        "\xff",
                                        "\xc3",
                                        "\xc3\xa9",
                                        "\xe2\x82\xac",
                                        "\xf0\x9f\x98\x80",
                                        "\xed\xa0\x80" /* a surrogate: invalid */,
                                        "0123456789abcdef"};
    static const int flags[] = {0, TW_JSON_ASCII};
    unsigned seed = 7;
    tw_buf src = {0};
    for (int round = 0; round < 400; round++) {
        src.len = 0;
        size_t want = (size_t)(round * 13) % 3000;
        while (src.len < want) {
            seed = seed * 1103515245u + 12345u;
            const char *p = parts[(seed >> 16) % (sizeof parts / sizeof parts[0])];
            cr_assert_eq(tw_buf_append(&src, p, strlen(p)), TW_OK);
        }
        char *t = tw_test_exact(src.data, src.len);
        for (int f = 0; f < 2; f++) {
            tw_buf blocks = {0};
            cr_assert_eq(tw_json_write_str(&blocks, t, src.len, flags[f]), TW_OK);
            tw_buf runs = {0};
            runs.max = blocks.len;
            cr_assert_eq(tw_json_write_str(&runs, t, src.len, flags[f]), TW_OK);
            cr_assert_eq(runs.len, blocks.len, "round %d flags %d", round, flags[f]);
            cr_assert_eq(memcmp(runs.data, blocks.data, runs.len), 0, "round %d flags %d", round,
                         flags[f]);
            cr_assert_eq(blocks.data[blocks.len], '\0');
            /* a cap short of the output: refused, a prefix kept */
            tw_buf cut = {0};
            cut.max = blocks.len - 1;
            cr_assert_eq(tw_json_write_str(&cut, t, src.len, flags[f]), TW_ERR_LIMIT);
            cr_assert_lt(cut.len, blocks.len);
            cr_assert(cut.len == 0 || memcmp(cut.data, blocks.data, cut.len) == 0);
            tw_buf_free(&cut);
            tw_buf_free(&runs);
            tw_buf_free(&blocks);
        }
        free(t);
    }
    tw_buf_free(&src);
}

/* Two trees alike to the last bit the library reads: full types (the
 * parser's marks included), keys, strings, numbers and their spellings,
 * and the list links. */
static void same_tree(const cJSON *a, const cJSON *b, const char *where)
{
    cr_assert_eq(a->type, b->type, "%s: type %d vs %d", where, a->type, b->type);
    cr_assert_eq(a->string == NULL, b->string == NULL, "%s", where);
    if (a->string)
        cr_assert_str_eq(a->string, b->string, "%s", where);
    cr_assert_eq(a->valuestring == NULL, b->valuestring == NULL, "%s", where);
    if (a->valuestring)
        cr_assert_str_eq(a->valuestring, b->valuestring, "%s", where);
    cr_assert_eq(memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)), 0, "%s", where);
    cr_assert_eq(a->valueint, b->valueint, "%s", where);
    const cJSON *x = a->child, *y = b->child, *last = NULL;
    for (; x && y; x = x->next, y = y->next) {
        same_tree(x, y, where);
        last = x;
    }
    cr_assert(!x && !y, "%s: member counts differ", where);
    if (a->child)
        cr_assert_eq(a->child->prev, last, "%s", where);
}

/* Each accepted call of r: its arguments are what its text parses to once
 * the repeated keys are removed. Returns the calls checked. */
static size_t args_as_parsed(const tw_result *r, size_t max_depth, const char *where)
{
    for (size_t i = 0; i < r->msg.ncalls; i++) {
        const tw_call *c = &r->msg.calls[i];
        cr_assert_not_null(c->raw_args, "%s: call %zu has no text", where, i);
        cJSON *v = NULL;
        tw_json_lint lint;
        cr_assert_eq(tw_json_parse_lint(c->raw_args, c->raw_args_len, max_depth, &v, NULL, &lint),
                     TW_OK, "%s: call %zu", where, i);
        char path[64];
        size_t removed = 0;
        cr_assert_eq(tw_json_dedupe(v, path, sizeof path, &removed), TW_OK);
        same_tree(c->arguments, v, where);
        cJSON_Delete(v);
    }
    return r->msg.ncalls;
}

static const char typed_tools[] =
    "[{\"name\": \"f\", \"parameters\": {\"type\": \"object\", \"properties\": {"
    "\"s\": {\"type\": \"string\"}, \"i\": {\"type\": \"integer\"}, \"x\": {\"type\": \"number\"},"
    "\"b\": {\"type\": \"boolean\"}, \"n\": {\"type\": [\"null\", \"integer\"]},"
    "\"o\": {\"type\": \"object\"}, \"a\": {\"type\": \"array\"},"
    "\"u\": {\"anyOf\": [{\"type\": \"object\"}, {\"type\": \"array\"}, {\"type\": "
    "\"number\"}]}}}},"
    " {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\", \"properties\":"
    " {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\"}}}},"
    " {\"name\": \"search\", \"parameters\": {\"type\": \"object\", \"properties\":"
    " {\"query\": {\"type\": \"string\"}, \"n\": {\"type\": [\"integer\", \"null\"]},"
    " \"tags\": {\"type\": \"array\"}}}}]";

/* Decode text with fmt, with the tools and without; the calls checked. */
static size_t check_typed(const char *fmt, const char *text, size_t len, const tw_tool *tools,
                          size_t ntools, const char *where)
{
    const tw_format_ops *f = tw_format_find(fmt);
    cr_assert_not_null(f, "%s", fmt);
    size_t n = 0;
    for (int with = 0; with < 2; with++) {
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.allow_unknown_tool = true;
        o.schema_warn = true;
        o.limits.max_depth = 8;
        if (with) {
            o.tools = tools;
            o.ntools = ntools;
        }
        tw_result r;
        char *t = tw_test_exact(text, len);
        cr_assert_eq(f->decode(t, len, &o, &r), TW_OK, "%s", where);
        n += args_as_parsed(&r, 8, where);
        tw_result_free(&r);
        free(t);
    }
    return n;
}

Test(one_pass, typed_args_tree_is_the_texts_parse)
{
    cJSON *jt = NULL;
    cr_assert_eq(tw_json_parse(typed_tools, strlen(typed_tools), 0, &jt, NULL), TW_OK);
    tw_tool *tools = NULL;
    size_t ntools = 0;
    tw_error e = {0};
    cr_assert_eq(tw_tools_read(jt, NULL, &tools, &ntools, &e), TW_OK, "%s", e.message);
    cJSON_Delete(jt);
    /* every kind of value, and what the tree leaves to the text's reading:
     * a number longer than the one pass reads, nesting past max_depth (8),
     * U+0000 in a key, a repeated key at the top and inside a value, more
     * than eight parameters (the parser's table of keys) */
    static const char *const gemma[] = {
        "<|tool_call>call:f{s:<|\"|>a \"q\" \\ \n\t\x01\x7f \xc3\xa9 \xff end<|\"|>,i:42,x:-1.50e3,"
        "b:True,n:None,o:{k:<|\"|>v<|\"|>,k:2,l:[1,2.5,true,null,{}]},a:[],u:7}<tool_call|>",
        "<|tool_call>call:f{i:123456789012345678901234567890123456789012345678901234567890123456,"
        "x:9007199254740993}<tool_call|>",
        "<|tool_call>call:f{o:{a:{b:{c:{d:{e:{f:{g:1}}}}}}}}<tool_call|>",
        "<|tool_call>call:f{o:{a:{b:{c:{d:{e:{f:1}}}}}}}<tool_call|>",
        "<|tool_call>call:f{<|\"|>k\x00y<|\"|>:1}<tool_call|>",
        "<|tool_call>call:f{s:<|\"|>one<|\"|>,s:<|\"|>two<|\"|>,\xc3\xa9:1,\xff:2}<tool_call|>",
        "<|tool_call>call:f{p1:1,p2:2,p3:3,p4:4,p5:5,p6:6,p7:7,p8:8,p9:9,p1:10}<tool_call|>",
        "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>"
        "<|tool_call>call:search{query:<|\"|>q<|\"|>,n:null,tags:[<|\"|>a<|\"|>,b]}<tool_call|>",
    };
    size_t checked = 0;
    for (size_t i = 0; i < sizeof gemma / sizeof gemma[0]; i++) {
        size_t len = strlen(gemma[i]);
        if (i == 4)
            len = strlen(gemma[i]) + 1 + strlen(gemma[i] + strlen(gemma[i]) + 1);
        checked += check_typed("gemma4", gemma[i], len, tools, ntools, "gemma4 input");
    }
    static const char glm[] =
        "<tool_call>f\n<arg_key>o</arg_key>\n<arg_value>{\"a\": [1, 2e5, \"x\"], \"a\": 0}"
        "</arg_value>\n<arg_key>a</arg_key>\n<arg_value>[01]</arg_value>\n<arg_key>u</arg_key>\n"
        "<arg_value>{\"k\": \"\\u0041\\n\"}</arg_value>\n<arg_key>i</arg_key>\n<arg_value> 12 "
        "</arg_value>\n<arg_key>x</arg_key>\n<arg_value>1.</arg_value>\n</tool_call>";
    checked += check_typed("glm", glm, strlen(glm), tools, ntools, "glm input");
    cr_assert_geq(checked, 14, "%zu calls checked", checked);
    /* the fuzz corpora of the decoders whose values are markup */
    static const char *const dirs[][2] = {{"gemma4", "gemma4"},
                                          {"dsml", "dsml"},
                                          {"glm", "glm"},
                                          {"minimax-m2", "minimax_m2"},
                                          {"qwen3-coder", "qwen3_coder"}};
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char rel[64];
        snprintf(rel, sizeof rel, "corpus/%s", dirs[d][1]);
        const char *dir = tw_test_src(rel);
        DIR *dp = opendir(dir);
        cr_assert_not_null(dp, "%s", dir);
        size_t files = 0, calls = 0;
        for (struct dirent *de; (de = readdir(dp));) {
            if (de->d_name[0] == '.')
                continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            size_t len = 0;
            char *text = tw_test_slurp(path, &len);
            if (!text)
                continue;
            files++;
            calls += check_typed(dirs[d][0], text, len, tools, ntools, path);
            free(text);
        }
        closedir(dp);
        cr_assert_gt(files, 0, "%s: no inputs", dir);
        cr_assert_gt(calls, 0, "%s: no call accepted", dir);
    }
    tw_tools_free(tools, ntools);
}
