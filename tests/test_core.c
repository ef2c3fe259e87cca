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
    tw_json_error e;
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
    tw_json_error e;
    cr_assert_eq(tw_json_parse(deep, 300, 64, &v, &e), TW_D_JSON_TOO_DEEP);
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
    tw_json_error e;
    const char s[] = "{\"a\": [1, 2.5, -0.25, 1e-7, true, null], \"\xc3\xa9\": \"x\\n\\u0001\"}";
    cr_assert_eq(tw_json_parse(s, sizeof s - 1, 64, &v, &e), TW_OK);
    tw_buf b = {0};
    cr_assert_eq(tw_json_write(&b, v, TW_JSON_SPACED), TW_OK);
    /* numbers keep the spelling they were parsed with */
    cr_assert_str_eq(b.data, "{\"a\": [1, 2.5, -0.25, 1e-7, true, null], \"\xc3\xa9\": \"x\\n\\u0001\"}");
    tw_buf_reset(&b);
    cr_assert_eq(tw_json_write(&b, v, TW_JSON_ASCII), TW_OK);
    cr_assert_str_eq(b.data, "{\"a\":[1,2.5,-0.25,1e-7,true,null],\"\\u00e9\":\"x\\n\\u0001\"}");
    tw_buf_free(&b);
    cJSON_Delete(v);
}

Test(json, writer_replaces_invalid_utf8)
{
    tw_buf b = {0};
    cr_assert_eq(tw_json_write_str(&b, "a\xff" "b\xc3", 4, 0), TW_OK);
    cr_assert_str_eq(b.data, "\"a\xef\xbf\xbd" "b\xef\xbf\xbd\"");
    tw_buf_free(&b);
}

Test(schema, subset_rules)
{
    const char *schema = "{\"type\":\"object\",\"required\":[\"city\"],\"additionalProperties\":false,"
                         "\"properties\":{\"city\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"},"
                         "\"u\":{\"enum\":[\"c\",\"f\"]},\"l\":{\"type\":\"array\",\"items\":{\"type\":\"number\"}}}}";
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
        char why[200] = "";
        cr_assert_eq(tw_schema_validate(s, v, 64, why, sizeof why), cases[i].ok, "%s: %s",
                     cases[i].v, why);
        cJSON_Delete(v);
    }
    cJSON_Delete(s);
}

Test(json, size_matches_writer)
{
    const char *docs[] = {"{}", "[]", "{\"a\":[1,2.5,-3e-9,true,false,null],\"b\":{\"c\":\"x\\\"y\\\\z\\n\\u0001\\u00e9\"}}",
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
