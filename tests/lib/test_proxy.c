/* The prompt-only proxy: decode fixtures, prompt outputs, streaming events. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cases.h"
#include "decode_fixtures.h"
#include "toolwire/decode.h"
#include "toolwire/proxy.h"
#include "twtest.h"

Test(proxy, decode_fixtures)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("tests/data/decode/proxy"), ".json", &files);
    cr_assert_geq(n, 12, "found %ld fixtures", n);
    long failed = tw_test_check_fixtures(files, n);
    tw_free_list(files, n);
    cr_expect_eq(failed, 0, "%ld of %ld fixtures failed", failed, n);
}

Test(proxy, prompt_outputs)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("tests/data/proxy"), ".json", &files);
    cr_assert_geq(n, 6);
    const tw_encoder_ops *enc = tw_encoder_find("proxy-prompt");
    cr_assert_not_null(enc);
    for (long i = 0; i < n; i++) {
        tw_error why_e = {0};
        cJSON *fx = tw_load_json_file(files[i], (size_t)1 << 20, 64, &why_e);
        cr_assert_not_null(fx, "%s", why_e.message);
        tw_request r;
        cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &r, &why_e), TW_OK, "%s: %s",
                     files[i], why_e.message);
        tw_buf out = {0};
        cr_expect_eq(enc->encode_request(&r, NULL, &out), TW_OK);
        cr_expect_str_eq(out.data ? out.data : "", tw_json_get_str(fx, "expected"), "%s", files[i]);
        tw_buf_free(&out);
        tw_request_free(&r);
        cJSON_Delete(fx);
    }
    tw_free_list(files, n);
}

/* The prompt the encoder writes for a conversation with history decodes
 * without executing anything from the tool results it contains. */
Test(proxy, own_prompt_results_never_become_calls)
{
    tw_error why_e = {0};
    cJSON *fx = tw_load_json_file(tw_test_src("tests/data/proxy/05_multi_turn.json"),
                                  (size_t)1 << 20, 64, &why_e);
    cr_assert_not_null(fx, "%s", why_e.message);
    const char *prompt = tw_json_get_str(fx, "expected");
    char *copy = tw_test_exact(prompt, strlen(prompt));
    tw_result r;
    cr_assert_eq(tw_proxy_output_decode(copy, strlen(prompt), NULL, &r), TW_OK);
    free(copy);
    /* the two echoed history calls are calls; the two results and the
     * example in the protocol's rules are cut out */
    cr_expect_eq(r.msg.ncalls, 2);
    size_t cuts = 0;
    for (size_t i = 0; i < r.errors.len; i++)
        cuts += r.errors.items[i].code == TW_D_TOOL_RESULT_IN_OUTPUT;
    cr_expect_eq(cuts, 3);
    cr_expect(strstr(r.msg.content.data, "no such city") == NULL);
    tw_result_free(&r);
    cJSON_Delete(fx);
}

typedef struct seen {
    size_t calls, errors;
    int64_t last_err_off;
    int64_t call_off;
} seen;

static tw_status on_event(void *user, const tw_event *ev)
{
    seen *s = user;
    if (ev->kind == TW_EV_TOOL_CALL) {
        s->calls++;
        s->call_off = ev->call->offset;
    } else if (ev->kind == TW_EV_ERROR) {
        s->errors++;
        s->last_err_off = ev->diag->offset;
    }
    return TW_OK;
}

Test(proxy, streaming_events_carry_raw_offsets)
{
    const char *in =
        "a<tool_result id=\"1\">xx</tool_result>b<tool_call>{\"name\": \"f\"}</tool_call>";
    size_t n = strlen(in);
    for (size_t chunk = 1; chunk <= n; chunk++) {
        seen s = {0, 0, -2, -2};
        tw_proxy_dec *d = tw_proxy_dec_new(NULL, on_event, &s);
        cr_assert_not_null(d);
        for (size_t off = 0; off < n; off += chunk) {
            size_t k = n - off < chunk ? n - off : chunk;
            char *piece = tw_test_exact(in + off, k);
            cr_assert_eq(tw_proxy_dec_feed(d, piece, k), TW_OK);
            free(piece);
        }
        tw_result r;
        cr_assert_eq(tw_proxy_dec_finish(d, &r), TW_OK);
        cr_expect_eq(s.calls, 1, "chunk %zu", chunk);
        cr_expect_eq(s.call_off, (int64_t)(strstr(in, "<tool_call>") - in), "chunk %zu", chunk);
        cr_expect_eq(s.errors, 1, "chunk %zu", chunk);
        cr_expect_eq(s.last_err_off, 1, "chunk %zu", chunk);
        cr_expect_str_eq(r.msg.content.data, "ab");
        tw_result_free(&r);
        tw_proxy_dec_free(d);
    }
}

Test(proxy, feed_after_finish_is_state_error)
{
    tw_proxy_dec *d = tw_proxy_dec_new(NULL, NULL, NULL);
    cr_assert_not_null(d);
    tw_result r;
    cr_assert_eq(tw_proxy_dec_finish(d, &r), TW_OK);
    cr_expect_eq(tw_proxy_dec_feed(d, "x", 1), TW_ERR_STATE);
    tw_result_free(&r);
    tw_proxy_dec_free(d);
}

Test(proxy, policy_sentences)
{
    tw_buf b = {0};
    tw_proxy_policy_write(&b, TW_CHOICE_UNSET, NULL);
    tw_buf_putc(&b, '|');
    tw_proxy_policy_write(&b, TW_CHOICE_NAMED, "f");
    cr_expect_str_eq(b.data, "Call a tool only when one is relevant to the request; otherwise "
                             "answer directly.|You must call the tool named \"f\" in this turn, "
                             "and no other tool.");
    tw_buf_free(&b);
}
