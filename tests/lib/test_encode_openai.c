/* OpenAI encoders: the data-first cases of tests/data/encode/openai (exact
 * bytes and warnings) and the API contract (caps, restore on failure). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cases.h"
#include "toolwire/encode.h"
#include "toolwire/openai_encode.h"
#include "twtest.h"

Test(encode_openai, cases)
{
    tw_test_encode_cases("tests/data/encode/openai", 30);
}

static void simple_request(tw_request *r, bool tools)
{
    cJSON *j =
        cJSON_Parse(tools ? "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                            "\"tools\":[{\"name\":\"f\",\"parameters\":{\"type\":\"object\"}}]}"
                          : "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    tw_error why_e = {0};
    cr_assert_eq(tw_request_read(j, NULL, r, &why_e), TW_OK, "%s", why_e.message);
    cJSON_Delete(j);
}

Test(encode_openai, null_opts_defaults_parallel_false)
{
    tw_request r;
    simple_request(&r, true);
    tw_buf out = {0};
    cr_assert_eq(tw_openai_request_encode(&r, NULL, &out), TW_OK);
    cr_expect(strstr(out.data, "\"parallel_tool_calls\":false") != NULL, "%s", out.data);
    tw_buf_free(&out);
    tw_request_free(&r);
}

Test(encode_openai, zeroed_opts_override_request)
{
    /* parallel_tool_calls 0 in the options is an explicit false */
    tw_request r;
    simple_request(&r, true);
    r.parallel_tool_calls = 1;
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    tw_buf out = {0};
    cr_assert_eq(tw_openai_request_encode(&r, &o, &out), TW_OK);
    cr_expect(strstr(out.data, "\"parallel_tool_calls\":false") != NULL, "%s", out.data);
    o.parallel_tool_calls = -1;
    tw_buf_reset(&out);
    cr_assert_eq(tw_openai_request_encode(&r, &o, &out), TW_OK);
    cr_expect(strstr(out.data, "\"parallel_tool_calls\":true") != NULL, "%s", out.data);
    tw_buf_free(&out);
    tw_request_free(&r);
}

Test(encode_openai, failure_restores_output)
{
    tw_request r;
    simple_request(&r, true);
    tw_buf out = {0};
    tw_buf_puts(&out, "PREFIX");
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.limits.max_output_bytes = 20;
    cr_expect_eq(tw_openai_request_encode(&r, &o, &out), TW_ERR_LIMIT);
    cr_expect_eq(out.len, 6);
    cr_expect_str_eq(out.data, "PREFIX");
    cr_expect_eq(out.max, 0, "the caller's cap is restored");
    /* appending after existing bytes works and counts only the new ones */
    o.limits.max_output_bytes = 0;
    cr_expect_eq(tw_openai_request_encode(&r, &o, &out), TW_OK);
    cr_expect_eq(strncmp(out.data, "PREFIX{\"messages\"", 17), 0, "%s", out.data);
    tw_buf_free(&out);
    tw_request_free(&r);
}

Test(encode_openai, limits_on_counts)
{
    tw_request r;
    simple_request(&r, false);
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.limits.max_messages = 1;
    tw_buf out = {0};
    cr_expect_eq(tw_openai_request_encode(&r, &o, &out), TW_OK);
    tw_request_free(&r);
    cJSON *j = cJSON_Parse("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},"
                           "{\"role\":\"user\",\"content\":\"b\"}]}");
    tw_error why_e = {0};
    cr_assert_eq(tw_request_read(j, NULL, &r, &why_e), TW_OK);
    cJSON_Delete(j);
    tw_buf_reset(&out);
    cr_expect_eq(tw_openai_request_encode(&r, &o, &out), TW_ERR_LIMIT);
    tw_buf_free(&out);
    tw_request_free(&r);
}

Test(encode_openai, call_without_name_is_invalid)
{
    tw_result res;
    tw_result_init(&res, NULL);
    tw_call c = {0};
    c.id = strdup("x");
    c.arguments = cJSON_CreateObject();
    tw_message_add_call(&res.msg, &c);
    tw_buf out = {0};
    cr_expect_eq(tw_openai_response_encode(&res, NULL, &out), TW_ERR_INVALID);
    cr_expect_eq(tw_openai_stream_encode(&res, NULL, &out), TW_ERR_INVALID);
    cr_expect_eq(out.len, 0);
    tw_buf_free(&out);
    tw_result_free(&res);
}

/* Every fragment size: the argument fragments concatenate to the whole
 * arguments text and no fragment splits a UTF-8 character. */
Test(encode_openai, argument_fragments_reassemble)
{
    const char *js = "{\"content\":\"\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"f\","
                     "\"arguments\":{\"q\":\"h\\u00e9llo \\u2713 \\ud83d\\ude00 z\"}}]}";
    cJSON *j = cJSON_Parse(js);
    tw_result res;
    tw_error why_e = {0};
    cr_assert_eq(tw_result_read(j, NULL, &res, &why_e), TW_OK, "%s", why_e.message);
    cJSON_Delete(j);
    char *whole = tw_json_print(res.msg.calls[0].arguments, NULL);
    for (size_t frag = 1; frag <= 9; frag++) {
        tw_encode_opts o;
        memset(&o, 0, sizeof o);
        o.args_fragment = frag;
        tw_buf out = {0};
        cr_assert_eq(tw_openai_stream_encode(&res, &o, &out), TW_OK);
        tw_buf joined = {0};
        size_t pieces = 0;
        for (char *line = strtok(out.data, "\n"); line; line = strtok(NULL, "\n")) {
            if (strncmp(line, "data: {", 7) != 0)
                continue;
            cJSON *chunk = cJSON_Parse(line + 6);
            cr_assert_not_null(chunk, "chunk is JSON: %s", line);
            const cJSON *ch = cJSON_GetArrayItem(tw_json_get(chunk, "choices"), 0);
            const cJSON *tc =
                cJSON_GetArrayItem(tw_json_get(tw_json_get(ch, "delta"), "tool_calls"), 0);
            const char *a = tw_json_get_str(tw_json_get(tc, "function"), "arguments");
            if (a) {
                cr_expect(strstr(a, "\xEF\xBF\xBD") == NULL, "fragment split a character");
                tw_buf_puts(&joined, a);
                if (a[0])
                    pieces++;
            }
            cJSON_Delete(chunk);
        }
        cr_expect_str_eq(joined.data, whole, "frag %zu", frag);
        cr_expect_gt(pieces, 1, "frag %zu gave %zu pieces", frag, pieces);
        tw_buf_free(&joined);
        tw_buf_free(&out);
    }
    free(whole);
    tw_result_free(&res);
}

Test(encode_openai, finish_reason_default)
{
    tw_result res;
    tw_result_init(&res, NULL);
    cr_expect_str_eq(tw_openai_finish_reason(&res), "stop");
    res.finish_reason = strdup("length");
    cr_expect_str_eq(tw_openai_finish_reason(&res), "length");
    tw_result_free(&res);
}
