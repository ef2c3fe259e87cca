/* Anthropic encoders: the data-first cases of tests/data/encode/anthropic
 * (exact bytes and warnings), stop_reason mapping and redacted thinking. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cases.h"
#include "toolwire/anthropic_encode.h"
#include "toolwire/encode.h"
#include "twtest.h"

Test(encode_anthropic, cases)
{
    tw_test_encode_cases("tests/data/encode/anthropic", 30);
}

Test(encode_anthropic, stop_reason_mapping)
{
    cr_expect_str_eq(tw_anthropic_stop_reason("tool_calls", 0), "tool_use");
    cr_expect_str_eq(tw_anthropic_stop_reason("stop", 0), "end_turn");
    cr_expect_str_eq(tw_anthropic_stop_reason("length", 0), "max_tokens");
    cr_expect_str_eq(tw_anthropic_stop_reason("content_filter", 0), "refusal");
    cr_expect_str_eq(tw_anthropic_stop_reason("pause_turn", 0), "pause_turn");
    cr_expect_str_eq(tw_anthropic_stop_reason(NULL, 0), "end_turn");
    cr_expect_str_eq(tw_anthropic_stop_reason("", 2), "tool_use");
}

static void redacted_result(tw_result *res)
{
    tw_result_init(res, NULL);
    tw_buf_puts(&res->msg.content, "ok");
    res->msg.has_redacted_thinking = true;
    res->msg.redacted_thinking =
        cJSON_Parse("[{\"type\":\"redacted_thinking\",\"data\":\"EncryptedBlob==\"},\"Other==\"]");
    res->finish_reason = strdup("stop");
}

Test(encode_anthropic, redacted_thinking_response)
{
    tw_result res;
    redacted_result(&res);
    tw_buf out = {0};
    cr_assert_eq(tw_anthropic_response_encode(&res, NULL, &out), TW_OK);
    cr_expect(strstr(out.data,
                     "\"content\":[{\"type\":\"redacted_thinking\",\"data\":\"EncryptedBlob==\"},"
                     "{\"type\":\"redacted_thinking\",\"data\":\"Other==\"},"
                     "{\"type\":\"text\",\"text\":\"ok\"}]") != NULL,
              "%s", out.data);
    tw_buf_free(&out);
    tw_result_free(&res);
}

Test(encode_anthropic, redacted_thinking_stream)
{
    tw_result res;
    redacted_result(&res);
    tw_buf out = {0};
    cr_assert_eq(tw_anthropic_stream_encode(&res, NULL, &out), TW_OK);
    cr_expect(strstr(out.data,
                     "event: content_block_start\ndata: {\"type\":\"content_block_start\","
                     "\"index\":1,\"content_block\":{\"type\":\"redacted_thinking\","
                     "\"data\":\"Other==\"}}\n\nevent: content_block_stop\n") != NULL,
              "%s", out.data);
    cr_expect(strstr(out.data, "\"index\":2,\"content_block\":{\"type\":\"text\"") != NULL);
    tw_buf_free(&out);
    tw_result_free(&res);
}

Test(encode_anthropic, redacted_flag_without_data_warns)
{
    tw_result res;
    tw_result_init(&res, NULL);
    res.msg.has_redacted_thinking = true;
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = &w;
    tw_buf out = {0};
    cr_assert_eq(tw_anthropic_response_encode(&res, &o, &out), TW_OK);
    cr_assert_eq(w.len, 1);
    cr_expect_eq(w.items[0].code, TW_D_NOT_CARRIED);
    cr_expect(strstr(w.items[0].message, "redacted_thinking") != NULL);
    tw_diag_list_free(&w);
    tw_buf_free(&out);
    tw_result_free(&res);
}

Test(encode_anthropic, redacted_thinking_in_request_history)
{
    tw_request r;
    cJSON *j = cJSON_Parse("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                           "{\"role\":\"assistant\",\"content\":\"Hello.\"}]}");
    tw_error why_e = {0};
    cr_assert_eq(tw_request_read(j, NULL, &r, &why_e), TW_OK);
    cJSON_Delete(j);
    r.messages[1].has_redacted_thinking = true;
    r.messages[1].redacted_thinking = cJSON_Parse("[\"Blob==\"]");
    tw_buf out = {0};
    cr_assert_eq(tw_anthropic_request_encode(&r, NULL, &out), TW_OK);
    cr_expect(strstr(out.data,
                     "{\"role\":\"assistant\",\"content\":[{\"type\":\"redacted_thinking\","
                     "\"data\":\"Blob==\"},{\"type\":\"text\",\"text\":\"Hello.\"}]}") != NULL,
              "%s", out.data);
    tw_buf_free(&out);
    tw_request_free(&r);
}

Test(encode_anthropic, failure_restores_output)
{
    tw_result res;
    redacted_result(&res);
    tw_buf out = {0};
    tw_buf_puts(&out, "keep");
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_output_bytes = 50;
    cr_expect_eq(tw_anthropic_stream_encode(&res, &o, &out), TW_ERR_LIMIT);
    cr_expect_eq(out.len, 4);
    cr_expect_str_eq(out.data, "keep");
    tw_buf_free(&out);
    tw_result_free(&res);
}
