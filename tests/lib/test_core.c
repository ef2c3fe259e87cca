/* Core: code table, capped buffers, diagnostics, JSON helpers. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/json.h"
#include "toolwire/neutral.h"
#include "toolwire/schema.h"
#include "twtest.h"

Test(core, code_names_round_trip)
{
    for (int i = 0; i < (int)TW_CODE_COUNT; i++) {
        const char *n = tw_code_name((tw_status)i);
        tw_status back;
        cr_assert(tw_code_from_name(n, strlen(n), &back), "%s", n);
        cr_assert_eq(back, (tw_status)i);
    }
    cr_assert_str_eq(tw_code_name(TW_D_TOOL_CALL_JSON), "tool_call_json");
    cr_assert_str_eq(tw_code_name(TW_CODE_COUNT), "unknown");
}

/* Every code's number and name, as released. Codes are appended only: a new
 * code is added at the end of TW_CODE_LIST and of this table; a code
 * inserted mid-list, renumbered or renamed fails here. */
Test(core, code_numbers_are_pinned)
{
    static const struct {
        tw_status code;
        int number;
        const char *name;
    } pinned[] = {
        {TW_OK, 0, "ok"},
        {TW_ERR_NOMEM, 1, "nomem"},
        {TW_ERR_LIMIT, 2, "limit"},
        {TW_ERR_INVALID, 3, "invalid"},
        {TW_ERR_PARSE, 4, "parse"},
        {TW_ERR_STATE, 5, "state"},
        {TW_ERR_IO, 6, "io"},
        {TW_ERR_UNSUPPORTED, 7, "unsupported"},
        {TW_D_THINK_UNTERMINATED, 8, "think_unterminated"},
        {TW_D_THINK_IMPLICIT_END, 9, "think_implicit_end"},
        {TW_D_TOOL_CALL_JSON, 10, "tool_call_json"},
        {TW_D_TOOL_CALL_UNTERMINATED, 11, "tool_call_unterminated"},
        {TW_D_ARGUMENTS_AS_STRING, 12, "arguments_as_string"},
        {TW_D_ARGUMENTS_AS_OBJECT, 13, "arguments_as_object"},
        {TW_D_PARAMETERS_ALIAS, 14, "parameters_alias"},
        {TW_D_ARGUMENTS_NOT_OBJECT, 15, "arguments_not_object"},
        {TW_D_MISSING_NAME, 16, "missing_name"},
        {TW_D_UNKNOWN_TOOL, 17, "unknown_tool"},
        {TW_D_DUPLICATE_ID, 18, "duplicate_id"},
        {TW_D_ARGS_TOO_LARGE, 19, "args_too_large"},
        {TW_D_TOO_MANY_CALLS, 20, "too_many_calls"},
        {TW_D_JSON_TOO_DEEP, 21, "json_too_deep"},
        {TW_D_INPUT_TOO_LARGE, 22, "input_too_large"},
        {TW_D_ARGS_SCHEMA, 23, "args_schema"},
        {TW_D_BARE_JSON, 24, "bare_json"},
        {TW_D_DIAGS_TRUNCATED, 25, "diagnostics_truncated"},
        {TW_D_STREAM_ERROR, 26, "stream_error"},
        {TW_D_STREAM_TRUNCATED, 27, "stream_truncated"},
        {TW_D_SSE_LINE_TOO_LONG, 28, "sse_line_too_long"},
        {TW_D_SSE_EVENT_TOO_LARGE, 29, "sse_event_too_large"},
        {TW_D_CHUNK_JSON, 30, "chunk_json"},
        {TW_D_RESPONSE_JSON, 31, "response_json"},
        {TW_D_RESPONSE_SHAPE, 32, "response_shape"},
        {TW_D_ERROR_RESPONSE, 33, "error_response"},
        {TW_D_REASONING_FIELD, 34, "reasoning_field"},
        {TW_D_REFUSAL, 35, "refusal"},
        {TW_D_LEGACY_FUNCTION_CALL, 36, "legacy_function_call"},
        {TW_D_DUPLICATE_KEY, 37, "duplicate_key"},
        {TW_D_NOT_CARRIED, 38, "not_carried"},
        {TW_D_OUTPUT_TRUNCATED, 39, "output_truncated"},
        {TW_D_TOOL_RESULT_IN_OUTPUT, 40, "tool_result_in_output"},
        {TW_D_NUMBER_INEXACT, 41, "number_inexact"},
        {TW_D_JSON_NUL, 42, "json_nul"},
        {TW_D_CALL_DUPLICATE_KEY, 43, "call_duplicate_key"},
        {TW_D_JSON_NOT_RFC8259, 44, "json_not_rfc8259"},
        {TW_D_XML_PARAM_UNCLOSED, 45, "xml_param_unclosed"},
        {TW_D_XML_FUNCTION_UNCLOSED, 46, "xml_function_unclosed"},
        {TW_D_XML_STRAY_TEXT, 47, "xml_stray_text"},
        {TW_D_XML_PARAM_OUTSIDE, 48, "xml_param_outside"},
        {TW_D_XML_BAD_NAME, 49, "xml_bad_name"},
        {TW_D_XML_UNTYPED, 50, "xml_untyped"},
        {TW_D_XML_VALUE_TYPE, 51, "xml_value_type"},
        {TW_D_RESPONSE_FAILED, 52, "response_failed"},
        {TW_D_ITEM_NOT_CARRIED, 53, "item_not_carried"},
        {TW_D_SEQUENCE_NUMBER, 54, "sequence_number"},
        {TW_D_STREAM_ITEM_ORDER, 55, "stream_item_order"},
        {TW_D_DONE_MISMATCH, 56, "done_mismatch"},
        {TW_D_EVENT_TYPE_MISMATCH, 57, "event_type_mismatch"},
        {TW_D_PARALLEL_WRAPPER, 58, "parallel_wrapper"},
        {TW_D_ITEM_REFERENCE, 59, "item_reference"},
        {TW_D_BUILTIN_TOOL, 60, "builtin_tool"},
        {TW_D_UNKNOWN_PART, 61, "unknown_part"},
        {TW_D_SSE_NUL, 62, "sse_nul"},
    };
    size_t n = sizeof pinned / sizeof pinned[0];
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq((int)pinned[i].code, pinned[i].number, "%s moved", pinned[i].name);
        cr_assert_eq(pinned[i].number, (int)i, "%s: numbers are consecutive", pinned[i].name);
        cr_assert_str_eq(tw_code_name((tw_status)pinned[i].number), pinned[i].name);
    }
    /* only appended: the table above is a prefix of the codes, and
     * TW_CODE_LIST itself lists them in number order, so a code inserted
     * mid-list fails even when it takes the next free number */
    cr_assert_geq((size_t)TW_CODE_COUNT, n);
    static const int listed[] = {
#define TW_X_NUMBER(e, v, nm, m) v,
        TW_CODE_LIST(TW_X_NUMBER)
#undef TW_X_NUMBER
    };
    cr_assert_eq(sizeof listed / sizeof listed[0], (size_t)TW_CODE_COUNT);
    for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++)
        cr_assert_eq(listed[i], (int)i, "TW_CODE_LIST entry %zu has number %d", i, listed[i]);
    cr_assert_eq(TW_STATUS_LAST, TW_ERR_UNSUPPORTED);
    for (int i = 0; i < (int)TW_CODE_COUNT; i++) {
        cr_assert_eq(tw_code_is_status((tw_status)i), i <= (int)TW_STATUS_LAST, "%d", i);
        cr_assert_eq(tw_code_is_diag((tw_status)i), i > (int)TW_STATUS_LAST, "%d", i);
    }
    cr_assert_not(tw_code_is_diag(TW_CODE_COUNT));
    cr_assert_not(tw_code_is_status(TW_CODE_COUNT));
}

Test(core, error_clear_and_set)
{
    tw_error e;
    memset(&e, 'x', sizeof e);
    tw_error_clear(&e);
    cr_assert_eq(e.code, TW_OK);
    cr_assert_eq(e.offset, -1);
    cr_assert_str_empty(e.path);
    cr_assert_str_empty(e.message);
    tw_error_set(&e, TW_ERR_INVALID, 12, "messages[2].role", "unknown role '%s'", "robot");
    cr_assert_eq(e.code, TW_ERR_INVALID);
    cr_assert_eq(e.offset, 12);
    cr_assert_str_eq(e.path, "messages[2].role");
    cr_assert_str_eq(e.message, "messages[2].role: unknown role 'robot'");
    tw_error_set(&e, TW_ERR_LIMIT, -7, "", "too many");
    cr_assert_eq(e.offset, -1, "any negative offset is none");
    cr_assert_str_empty(e.path);
    cr_assert_str_eq(e.message, "(root): too many");
    tw_error_set(&e, TW_D_JSON_NUL, 3, NULL, "no path");
    cr_assert_eq(e.code, TW_D_JSON_NUL);
    cr_assert_str_empty(e.path);
    cr_assert_str_eq(e.message, "no path");
    /* long strings are cut, still terminated */
    char lng[600];
    memset(lng, 'p', sizeof lng - 1);
    lng[sizeof lng - 1] = '\0';
    tw_error_set(&e, TW_ERR_PARSE, 0, lng, "%s", lng);
    cr_assert_eq(strlen(e.path), sizeof e.path - 1);
    cr_assert_eq(strlen(e.message), sizeof e.message - 1);
    /* NULL is allowed */
    tw_error_clear(NULL);
    tw_error_set(NULL, TW_ERR_PARSE, 0, "", "ignored");
}

Test(core, buffer_cap_is_hard)
{
    tw_buf b = {0};
    b.max = 8;
    cr_assert_eq(tw_buf_append(&b, "12345678", 8), TW_OK);
    cr_assert_eq(tw_buf_append(&b, "9", 1), TW_ERR_LIMIT);
    cr_assert_eq(b.len, 8);
    cr_assert_str_eq(b.data, "12345678");
    tw_buf_consume(&b, 3);
    cr_assert_str_eq(b.data, "45678");
    tw_buf_free(&b);
}

Test(core, diag_list_caps_and_counts)
{
    tw_diag_list l = {0};
    l.max = 2;
    for (int i = 0; i < 5; i++)
        cr_assert_eq(tw_diag_add(&l, TW_D_MISSING_NAME, i, NULL), TW_OK);
    cr_assert_eq(l.len, 2);
    cr_assert_eq(l.dropped, 3);
    cr_assert_str_eq(l.items[0].message, tw_code_message(TW_D_MISSING_NAME));
    tw_diag_list_free(&l);
}

/* One diagnostic added with tw_diag_add; its stored message. */
static char *stored(const char *msg)
{
    static char out[4096];
    tw_diag_list l = {0};
    cr_assert_eq(tw_diag_add(&l, TW_D_XML_BAD_NAME, 0, msg), TW_OK);
    cr_assert_eq(l.len, 1);
    cr_assert_lt(strlen(l.items[0].message), sizeof out);
    strcpy(out, l.items[0].message);
    tw_diag_list_free(&l);
    return out;
}

/* Every stored message is safe text: control bytes, DEL and each byte of an
 * invalid UTF-8 sequence become \xNN (uppercase hex); valid UTF-8 and text
 * already clean (a backslash included) are kept byte for byte. */
Test(core, diag_messages_escape_control_bytes_and_invalid_utf8)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"a\tb\nc\r", "a\\x09b\\x0Ac\\x0D"},
        {"\x1b[31mred\x1b[0m", "\\x1B[31mred\\x1B[0m"},
        {"del\x7f!", "del\\x7F!"},
        {"\x01\x1f", "\\x01\\x1F"},
        /* a lone continuation byte, and a lead byte with none */
        {"\x80x", "\\x80x"},
        {"\xc3x", "\\xC3x"},
        {"\xff\xfe", "\\xFF\\xFE"},
        /* overlong forms */
        {"\xc0\xaf", "\\xC0\\xAF"},
        {"\xe0\x80\xaf", "\\xE0\\x80\\xAF"},
        {"\xf0\x80\x80\xaf", "\\xF0\\x80\\x80\\xAF"},
        /* a surrogate, and past U+10FFFF */
        {"\xed\xa0\x80", "\\xED\\xA0\\x80"},
        {"\xf4\x90\x80\x80", "\\xF4\\x90\\x80\\x80"},
        /* C1 controls (U+0080, U+009B: CSI to some terminals, U+009F); U+00A0 kept */
        {"\xc2\x80|\xc2\x9b"
         "31m|\xc2\x9f|\xc2\xa0",
         "\\xC2\\x80|\\xC2\\x9B31m|\\xC2\\x9F|\xc2\xa0"},
        /* a sequence the text ends inside (not cut by a buffer) */
        {"ab\xe2\x82", "ab\\xE2\\x82"},
        {"ab\xf0\x9f\x98", "ab\\xF0\\x9F\\x98"},
        /* kept: valid two- to four-byte characters, the largest code point,
         * and a backslash that only looks like an escape */
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
        {"\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"},
        {"tool_call_json: a\\x41 \"q\" ~", "tool_call_json: a\\x41 \"q\" ~"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_expect_str_eq(stored(cases[i].in), cases[i].want, "case %zu", i);
        /* tw_diag_addf and tw_error_set store the same text */
        tw_diag_list l = {0};
        cr_assert_eq(tw_diag_addf(&l, TW_D_XML_BAD_NAME, 0, "%s", cases[i].in), TW_OK);
        cr_expect_str_eq(l.items[0].message, cases[i].want, "addf case %zu", i);
        /* and a copy keeps it as it is */
        tw_diag_list c = {0};
        cr_assert_eq(tw_diag_extend(&c, &l), TW_OK);
        cr_expect_str_eq(c.items[0].message, cases[i].want, "extend case %zu", i);
        tw_diag_list_free(&c);
        tw_diag_list_free(&l);
        tw_error e;
        tw_error_set(&e, TW_ERR_PARSE, 0, NULL, "%s", cases[i].in);
        cr_expect_str_eq(e.message, cases[i].want, "error case %zu", i);
    }
    /* a path is escaped in the message as the reason is (err->path is as given) */
    tw_error e;
    tw_error_set(&e, TW_ERR_INVALID, 3, "tools[0].\x1b]0;x\x07", "bad \xff");
    cr_expect_str_eq(e.message, "tools[0].\\x1B]0;x\\x07: bad \\xFF");
    /* tw_diag_add keeps a long message whole: no cap, no cut */
    char many[601];
    memset(many, 0x1b, 600);
    many[600] = '\0';
    cr_expect_eq(strlen(stored(many)), 4 * 600);
}

/* A message cut at the end of its buffer (tw_diag_addf's 512 bytes,
 * tw_error's message array) never ends inside a character or an \xNN. */
Test(core, message_cuts_split_no_character_and_no_escape)
{
    char pre[1100];
    memset(pre, 'a', sizeof pre);
    tw_diag_list l = {0};
    /* 509 + 2 bytes fit exactly in 511; one more 'a' and the cut falls
     * inside the character, which is dropped, not escaped */
    cr_assert_eq(tw_diag_addf(&l, TW_D_XML_BAD_NAME, 0, "%.*s\xc3\xa9", 509, pre), TW_OK);
    cr_assert_eq(tw_diag_addf(&l, TW_D_XML_BAD_NAME, 0, "%.*s\xc3\xa9", 510, pre), TW_OK);
    cr_assert_eq(tw_diag_addf(&l, TW_D_XML_BAD_NAME, 0, "%.*s\xf0\x9f\x98\x80z", 509, pre), TW_OK);
    /* an escape needs four bytes: 507 + 4 fit, 508 + 4 do not (nor does
     * anything after it) */
    cr_assert_eq(tw_diag_addf(&l, TW_D_XML_BAD_NAME, 0, "%.*s\x1b", 507, pre), TW_OK);
    cr_assert_eq(tw_diag_addf(&l, TW_D_XML_BAD_NAME, 0,
                              "%.*s\x1b"
                              "b",
                              508, pre),
                 TW_OK);
    cr_assert_eq(tw_diag_addf(&l, TW_D_XML_BAD_NAME, 0,
                              "%.*s\x1b"
                              "b",
                              510, pre),
                 TW_OK);
    cr_assert_eq(l.len, 6);
    cr_expect_eq(strlen(l.items[0].message), 511);
    cr_expect_str_eq(l.items[0].message + 509, "\xc3\xa9");
    cr_expect_eq(strlen(l.items[1].message), 510);
    cr_expect_eq(strspn(l.items[1].message, "a"), 510);
    cr_expect_eq(strlen(l.items[2].message), 509);
    cr_expect_eq(strspn(l.items[2].message, "a"), 509);
    cr_expect_eq(strlen(l.items[3].message), 511);
    cr_expect_str_eq(l.items[3].message + 507, "\\x1B");
    cr_expect_eq(strlen(l.items[4].message), 508);
    cr_expect_eq(strspn(l.items[4].message, "a"), 508);
    cr_expect_eq(strlen(l.items[5].message), 510);
    cr_expect_eq(strspn(l.items[5].message, "a"), 510);
    tw_diag_list_free(&l);
    /* a short message that ends inside a character was not cut: escaped */
    cr_assert_eq(tw_diag_addf(&l, TW_D_XML_BAD_NAME, 0, "%.*s\xc3", 10, pre), TW_OK);
    cr_expect_str_eq(l.items[0].message + 10, "\\xC3");
    tw_diag_list_free(&l);

    /* tw_error: 1023 bytes of text at most */
    tw_error e;
    tw_error_set(&e, TW_ERR_PARSE, 0, NULL, "%.*s\xe2\x82\xac", 1020, pre);
    cr_expect_eq(strlen(e.message), 1023);
    cr_expect_str_eq(e.message + 1020, "\xe2\x82\xac");
    tw_error_set(&e, TW_ERR_PARSE, 0, NULL, "%.*s\xe2\x82\xac", 1021, pre);
    cr_expect_eq(strlen(e.message), 1021, "cut inside the character");
    cr_expect_eq(strspn(e.message, "a"), 1021);
    tw_error_set(&e, TW_ERR_PARSE, 0, NULL, "%.*s\x7f", 1020, pre);
    cr_expect_eq(strlen(e.message), 1020, "cut inside the escape");
    tw_error_set(&e, TW_ERR_PARSE, 0, NULL, "%.*s\x7f", 1019, pre);
    cr_expect_str_eq(e.message + 1019, "\\x7F");
    /* the path and the reason are cut the same way */
    pre[1019] = '\0';
    tw_error_set(&e, TW_ERR_PARSE, 0, pre,
                 "\x1b"
                 "b");
    cr_expect_eq(strlen(e.message), 1021, "%zu", strlen(e.message));
    cr_expect_str_eq(e.message + 1019, ": ");
}

Test(core, limits_defaults_and_clamp)
{
    tw_limits in = {0}, out;
    in.max_depth = 5000;
    in.max_calls = 3;
    tw_limits_resolve(&out, &in);
    cr_assert_eq(out.max_depth, TW_DEPTH_HARD_MAX);
    cr_assert_eq(out.max_calls, 3);
    cr_assert_eq(out.max_args_bytes, 204800);
    cr_assert_eq(out.max_input_bytes, (size_t)16 << 20);
}

Test(json, parse_refuses_trailing_bytes_and_reports_offset)
{
    const char s[] = "{\"a\": 1} x";
    char *b = tw_test_exact(s, sizeof s - 1);
    cJSON *v = NULL;
    tw_error e;
    cr_assert_eq(tw_json_parse(b, sizeof s - 1, 64, &v, &e), TW_ERR_PARSE);
    cr_assert_null(v);
    cr_assert_eq(e.offset, 9);
    cr_assert_eq(tw_json_parse(b, 8, 64, &v, &e), TW_OK);
    cr_assert(cJSON_IsObject(v));
    cJSON_Delete(v);
    free(b);
}

Test(json, depth_is_checked_before_parsing)
{
    char deep[300];
    memset(deep, '[', 150);
    memset(deep + 150, ']', 150);
    cJSON *v = NULL;
    tw_error e;
    cr_assert_eq(tw_json_parse(deep, 300, 64, &v, &e), TW_ERR_LIMIT);
    cr_assert_eq(e.code, TW_D_JSON_TOO_DEEP);
    cr_assert_eq(tw_json_parse(deep, 300, 200, &v, &e), TW_OK);
    cJSON_Delete(v);
    /* brackets inside strings do not count */
    const char s[] = "{\"a\": \"[[[[[[[[[[\\\"[[[[\"}";
    cr_assert_eq(tw_json_depth(s, sizeof s - 1, 4), 1);
}

Test(json, scanner_finds_value_end_across_pieces)
{
    const char s[] = "  {\"k\": \"a}\\\"]\", \"n\": [1, {\"x\": null}]} tail";
    size_t total = 0;
    for (size_t step = 1; step <= sizeof s; step++) {
        tw_jscan sc;
        memset(&sc, 0, sizeof sc);
        sc.max_depth = 8;
        size_t off = 0, used = 0;
        tw_jscan_result r = TW_JSCAN_MORE;
        while (off < sizeof s - 1 && r == TW_JSCAN_MORE) {
            size_t n = sizeof s - 1 - off < step ? sizeof s - 1 - off : step;
            r = tw_jscan_feed(&sc, s + off, n, &used);
            off += used;
        }
        cr_assert_eq(r, TW_JSCAN_DONE, "step %zu", step);
        if (total == 0)
            total = off;
        cr_assert_eq(off, total, "step %zu", step);
    }
    cr_assert_eq(s[total], ' ');
    cr_assert_eq(s[total - 1], '}');
}

Test(json, scanner_rejects_bad_structure)
{
    const char *bad[] = {"{\"a\" 1}", "{\"a\": 1,}x", "[1 2]", "{1: 2}", "\"str\"", "{\"a\": 1]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tw_jscan sc;
        memset(&sc, 0, sizeof sc);
        sc.max_depth = 8;
        size_t used;
        cr_assert_eq(tw_jscan_feed(&sc, bad[i], strlen(bad[i]), &used), TW_JSCAN_INVALID, "%s",
                     bad[i]);
    }
}

Test(json, writer_python_style_and_numbers)
{
    cJSON *v = NULL;
    tw_error e;
    const char s[] = "{\"a\": [1, 2.5, -0.25, 1e-7, true, null], \"\xc3\xa9\": \"x\\n\\u0001\"}";
    cr_assert_eq(tw_json_parse(s, sizeof s - 1, 64, &v, &e), TW_OK);
    tw_buf b = {0};
    cr_assert_eq(tw_json_write(&b, v, TW_JSON_SPACED), TW_OK);
    /* numbers keep the spelling they were parsed with */
    cr_assert_str_eq(b.data,
                     "{\"a\": [1, 2.5, -0.25, 1e-7, true, null], \"\xc3\xa9\": \"x\\n\\u0001\"}");
    tw_buf_reset(&b);
    cr_assert_eq(tw_json_write(&b, v, TW_JSON_ASCII), TW_OK);
    cr_assert_str_eq(b.data, "{\"a\":[1,2.5,-0.25,1e-7,true,null],\"\\u00e9\":\"x\\n\\u0001\"}");
    tw_buf_free(&b);
    cJSON_Delete(v);
}

Test(json, writer_replaces_invalid_utf8)
{
    tw_buf b = {0};
    cr_assert_eq(tw_json_write_str(&b,
                                   "a\xff"
                                   "b\xc3",
                                   4, 0),
                 TW_OK);
    cr_assert_str_eq(b.data, "\"a\xef\xbf\xbd"
                             "b\xef\xbf\xbd\"");
    tw_buf_free(&b);
}

Test(schema, subset_rules)
{
    const char *schema =
        "{\"type\":\"object\",\"required\":[\"city\"],\"additionalProperties\":false,"
        "\"properties\":{\"city\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"},"
        "\"u\":{\"enum\":[\"c\",\"f\"]},\"l\":{\"type\":\"array\",\"items\":{\"type\":\"number\"}}}"
        "}";
    cJSON *s = cJSON_Parse(schema);
    struct {
        const char *v;
        bool ok;
    } cases[] = {
        {"{\"city\":\"P\"}", true},
        {"{}", false},
        {"{\"city\":1}", false},
        {"{\"city\":\"P\",\"n\":2}", true},
        {"{\"city\":\"P\",\"n\":2.5}", false},
        {"{\"city\":\"P\",\"u\":\"k\"}", false},
        {"{\"city\":\"P\",\"l\":[1,2.5]}", true},
        {"{\"city\":\"P\",\"l\":[1,\"x\"]}", false},
        {"{\"city\":\"P\",\"zzz\":1}", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *v = cJSON_Parse(cases[i].v);
        tw_error why_e = {0};
        cr_assert_eq(tw_schema_validate(s, v, 64, &why_e), cases[i].ok, "%s: %s", cases[i].v,
                     why_e.message);
        cJSON_Delete(v);
    }
    cJSON_Delete(s);
}

/* Type names in any case: the OBJECT, INTEGER of Gemini's and OpenAPI's
 * schemas constrain as object, integer do (they once constrained nothing). */
Test(schema, type_names_in_any_case)
{
    cJSON *s = cJSON_Parse("{\"type\":\"OBJECT\",\"properties\":{\"days\":{\"type\":"
                           "\"INTEGER\"},\"t\":{\"type\":[\"String\",\"NULL\"]}}}");
    static const struct {
        const char *v;
        bool ok;
    } cases[] = {
        {"{\"days\":3}", true}, {"{\"days\":\"three\"}", false}, {"[]", false},
        {"{\"t\":null}", true}, {"{\"t\":\"x\"}", true},         {"{\"t\":1}", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *v = cJSON_Parse(cases[i].v);
        tw_error why_e = {0};
        cr_expect_eq(tw_schema_validate(s, v, 64, &why_e), cases[i].ok, "%s: %s", cases[i].v,
                     why_e.message);
        cJSON_Delete(v);
    }
    cJSON_Delete(s);
}

Test(json, size_matches_writer)
{
    const char *docs[] = {
        "{}", "[]",
        "{\"a\":[1,2.5,-3e-9,true,false,null],\"b\":{\"c\":\"x\\\"y\\\\z\\n\\u0001\\u00e9\"}}",
        "[\"\\ud83d\\ude00\", 12345678901, 0.1]", "\"\""};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        cJSON *v = cJSON_Parse(docs[i]);
        cr_assert_not_null(v);
        tw_buf b = {0};
        cr_assert_eq(tw_json_write(&b, v, TW_JSON_COMPACT), TW_OK);
        cr_assert_eq(tw_json_size(v, 1 << 20), b.len, "%s", docs[i]);
        cr_assert_eq(tw_json_size(v, 3), b.len > 3 ? 4 : b.len);
        tw_buf_free(&b);
        cJSON_Delete(v);
    }
}
