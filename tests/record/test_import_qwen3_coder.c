/* Importing a Qwen3-Coder server's traffic: a chat completion (body or
 * stream) or a /generate answer whose text holds <tool_call><function=…>
 * becomes a qwen3-coder exchange (model_text, decode qwen3-coder with the
 * request's tools); the fixture replays with no mismatch, the server that
 * left the XML unparsed fails QWX-01 and QWX-02, and the qwen3-coder
 * reference server answering the same model text passes them. A recording
 * without the XML stays an openai fixture. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "fixture.h"
#include "import.h"
#include "redact.h"
#include "report.h"
#include "run.h"
#include "import_run.h"
#include "twtest.h"

static bool lists_failing(const tw_fx_exchange *x, const char *id)
{
    for (size_t i = 0; i < x->nexpect_fail; i++)
        if (strcmp(x->expect_fail[i].check, id) == 0)
            return true;
    return false;
}

/* The typed arguments of the expected result's first call: order_id the
 * string "007", limit (when want_limit) the integer 5. */
static void expect_typed(const tw_fx_exchange *x, bool want_limit)
{
    const cJSON *calls = tw_json_get(x->expect_result, "tool_calls");
    cr_assert_eq(cJSON_GetArraySize(calls), 1);
    const cJSON *args = tw_json_get(cJSON_GetArrayItem(calls, 0), "arguments");
    const cJSON *id = tw_json_get(args, "order_id");
    cr_assert(cJSON_IsString(id));
    cr_expect_str_eq(id->valuestring, "007");
    const cJSON *lim = tw_json_get(args, "limit");
    if (want_limit) {
        cr_assert(cJSON_IsNumber(lim));
        cr_expect_eq(lim->valueint, 5);
    } else {
        cr_expect_null(lim);
    }
}

/* vLLM without a tool parser: the XML call is left in content, once as a
 * body and once streamed with reasoning_content. */
Test(import_qwen3_coder, vcr_chat_content_with_xml, .timeout = 60)
{
    char dir[] = "/tmp/tw_import_qwen_XXXXXX";
    char *written = tw_test_import_one(
        TW_IMPORT_VCR, tw_test_src("tests/data/import/qwen3_coder_chat.yaml"), dir, true, 2);
    size_t len;
    tw_error why = {.offset = -1};
    char *text = tw_read_file(written, 1 << 20, &len, &why);
    cr_assert_not_null(text, "%s", why.message);
    cr_expect_null(strstr(text, "sk-qwen-placeholder"), "the key stays out of the fixture");
    free(text);

    tw_fixture f;
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.backend, "qwen3-coder");
    cr_assert_eq(f.nexchanges, 2);
    for (size_t k = 0; k < 2; k++) {
        const tw_fx_exchange *x = &f.exchanges[k];
        cr_expect_str_eq(x->decode_format, "qwen3-coder");
        cr_assert_not_null(x->model_text);
        cr_expect_not_null(strstr(x->model_text, "<tool_call>\n<function=lookup_order>"));
        cr_expect_not_null(tw_json_get(x->decode_options, "tools"),
                           "the request's tools type the values");
        expect_typed(x, true);
        cr_expect(lists_failing(x, "QWX-01"), "exchange %zu", k);
        cr_expect(lists_failing(x, "QWX-02"), "exchange %zu", k);
        cr_expect(lists_failing(x, "OAI-R07"), "exchange %zu", k);
    }
    cr_expect_not(f.exchanges[0].resp.stream);
    cr_expect(f.exchanges[1].resp.stream);
    cr_expect_eq(
        strncmp(f.exchanges[1].model_text, "<think>\nThe user wants order 007.\n</think>\n\n", 44),
        0, "the reasoning goes back into a think block: %s", f.exchanges[1].model_text);
    cr_expect_str_eq(tw_json_get_str(f.exchanges[1].expect_result, "thinking"),
                     "The user wants order 007.");
    tw_fixture_free(&f);

    tw_report rep;
    tw_test_run_fixture(written, "replay", false, &rep);
    cr_expect_eq(rep.n_mismatch, 0, "%zu mismatches", rep.n_mismatch);
    for (size_t k = 0; k < 2; k++) {
        cr_expect_eq(tw_test_verdict(&rep, k, "QWX-01", NULL), TW_V_FAIL);
        cr_expect_eq(tw_test_verdict(&rep, k, "QWX-02", NULL), TW_V_FAIL);
    }
    tw_report_free(&rep);
    /* the same model text from the reference server */
    tw_test_run_fixture(written, "qwen3-coder", true, &rep);
    for (size_t k = 0; k < 2; k++) {
        cr_expect_eq(tw_test_verdict(&rep, k, "QWX-01", NULL), TW_V_PASS, "exchange %zu", k);
        cr_expect_eq(tw_test_verdict(&rep, k, "QWX-02", NULL), TW_V_PASS, "exchange %zu", k);
        cr_expect_eq(tw_test_verdict(&rep, k, "OAI-R07", NULL), TW_V_PASS, "exchange %zu", k);
        cr_expect_eq(tw_test_verdict(&rep, k, "OAI-R05", NULL), TW_V_PASS, "exchange %zu", k);
    }
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}

/* A HAR of a Qwen3-Coder server: /generate text (text[0]) and a chat
 * completion, both holding the XML call. */
Test(import_qwen3_coder, har_generate_and_chat, .timeout = 60)
{
    char dir[] = "/tmp/tw_import_qwen_XXXXXX";
    char *written = tw_test_import_one(
        TW_IMPORT_HAR, tw_test_src("tests/data/import/qwen3_coder_generate.har"), dir, true, 2);
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.backend, "qwen3-coder");
    cr_expect_str_eq(f.exchanges[0].req.path, "/generate");
    cr_expect_str_eq(f.exchanges[0].decode_format, "qwen3-coder");
    expect_typed(&f.exchanges[0], false);
    cr_expect(lists_failing(&f.exchanges[0], "QWX-01"), "no call in the /generate answer");
    cr_expect_str_eq(f.exchanges[1].decode_format, "qwen3-coder");
    expect_typed(&f.exchanges[1], true);
    tw_fixture_free(&f);
    tw_report rep;
    tw_test_run_fixture(written, "replay", false, &rep);
    cr_expect_eq(rep.n_mismatch, 0, "%zu mismatches", rep.n_mismatch);
    cr_expect_eq(tw_test_verdict(&rep, 0, "QWX-01", NULL), TW_V_FAIL);
    cr_expect_eq(tw_test_verdict(&rep, 1, "QWX-01", NULL), TW_V_FAIL);
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}

/* Traffic whose content holds no XML call is not a Qwen3-Coder recording. */
Test(import_qwen3_coder, plain_chat_stays_openai)
{
    char dir[] = "/tmp/tw_import_qwen_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    tw_import_opts o = {TW_IMPORT_HAR, dir, "", NULL, true};
    tw_redactor red = {0};
    char *written = NULL;
    tw_error why = {.offset = -1};
    size_t nx = 0;
    cr_assert_eq(
        tw_import_file(tw_test_src("tests/data/import/chat.har"), &o, &red, &written, &nx, &why),
        TW_OK, "%s", why.message);
    tw_redactor_free(&red);
    tw_fixture f;
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.backend, "openai");
    for (size_t k = 0; k < f.nexchanges; k++) {
        cr_expect_null(f.exchanges[k].model_text);
        cr_expect(!f.exchanges[k].decode_format ||
                  strcmp(f.exchanges[k].decode_format, "qwen3-coder") != 0);
    }
    tw_fixture_free(&f);
    tw_test_import_cleanup(written, dir);
}
