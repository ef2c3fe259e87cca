/* Importing the traffic of a server that left a model dialect unparsed: a
 * chat completion (body or stream, a special token cut between chunks)
 * whose content holds gpt-oss's Harmony call message, or DeepSeek V3.1's
 * call section, becomes an exchange of that dialect (model_text with the
 * reasoning the server sent, written as the dialect writes it; decode by
 * the dialect's decoder with the request's tools); the replay fails
 * DLX-01/02 where the server left the call in content, and the dialect's
 * reference server answering the same model text passes them. An answer
 * without markup stays a plain exchange. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "fixture.h"
#include "import.h"
#include "import_run.h"
#include "report.h"
#include "twtest.h"

static bool lists_failing(const tw_fx_exchange *x, const char *id)
{
    for (size_t i = 0; i < x->nexpect_fail; i++)
        if (strcmp(x->expect_fail[i].check, id) == 0)
            return true;
    return false;
}

Test(import_dialects, harmony_left_in_content, .timeout = 60)
{
    char dir[] = "/tmp/tw_import_dialect_XXXXXX";
    char *written = tw_test_import_one(
        TW_IMPORT_VCR, tw_test_src("tests/data/import/harmony_chat.yaml"), dir, true, 2);
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.backend, "harmony");
    for (size_t k = 0; k < 2; k++) {
        const tw_fx_exchange *x = &f.exchanges[k];
        cr_expect_str_eq(x->decode_format, "harmony", "exchange %zu", k);
        cr_assert_not_null(x->model_text);
        /* the reasoning the server sent, as gpt-oss writes it, then the text */
        cr_expect_not_null(strstr(x->model_text, "<|channel|>analysis<|message|>Need the weather."),
                           "%s", x->model_text);
        cr_expect_not_null(strstr(x->model_text, "to=functions.get_weather"));
        cr_expect_not_null(tw_json_get(x->decode_options, "tools"));
        const cJSON *calls = tw_json_get(x->expect_result, "tool_calls");
        cr_expect_eq(cJSON_GetArraySize(calls), 1, "exchange %zu: the call the text holds", k);
        cr_expect(lists_failing(x, "DLX-01"), "exchange %zu", k);
        cr_expect(lists_failing(x, "DLX-02"), "exchange %zu", k);
        cr_expect(lists_failing(x, "DLX-05"), "exchange %zu", k);
    }
    cr_expect(f.exchanges[1].resp.stream);
    tw_fixture_free(&f);

    tw_report rep;
    tw_test_run_fixture(written, "replay", false, &rep);
    cr_expect_eq(rep.n_mismatch, 0, "%zu mismatches", rep.n_mismatch);
    for (size_t k = 0; k < 2; k++) {
        cr_expect_eq(tw_test_verdict(&rep, k, "DLX-01", NULL), TW_V_FAIL);
        cr_expect_eq(tw_test_verdict(&rep, k, "DLX-02", NULL), TW_V_FAIL);
        cr_expect_eq(tw_test_verdict(&rep, k, "DLX-03", NULL), TW_V_PASS);
    }
    tw_report_free(&rep);
    /* the same model text from gpt-oss's reference server */
    tw_test_run_fixture(written, "harmony", true, &rep);
    static const char *const pass[] = {"DLX-01", "DLX-02", "DLX-03", "DLX-05", "OAI-R07", NULL};
    for (size_t k = 0; k < 2; k++)
        tw_test_expect_verdicts(&rep, k, pass, TW_V_PASS);
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}

Test(import_dialects, deepseek_section_and_plain_answer, .timeout = 60)
{
    char dir[] = "/tmp/tw_import_dialect_XXXXXX";
    char *written = tw_test_import_one(
        TW_IMPORT_VCR, tw_test_src("tests/data/import/deepseek_chat.yaml"), dir, true, 2);
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.backend, "deepseek-v3.1");
    cr_expect_str_eq(f.exchanges[0].decode_format, "deepseek-v3.1");
    cr_expect(lists_failing(&f.exchanges[0], "DLX-01"));
    /* an answer with no markup is not model text of a dialect */
    cr_expect_null(f.exchanges[1].model_text);
    cr_expect(f.exchanges[1].decode_format == NULL ||
              strcmp(f.exchanges[1].decode_format, "deepseek-v3.1") != 0);
    tw_fixture_free(&f);
    tw_report rep;
    tw_test_run_fixture(written, "replay", false, &rep);
    cr_expect_eq(rep.n_mismatch, 0, "%zu mismatches", rep.n_mismatch);
    cr_expect_eq(tw_test_verdict(&rep, 0, "DLX-01", NULL), TW_V_FAIL);
    cr_expect_eq(tw_test_verdict(&rep, 1, "DLX-01", NULL), TW_V_SKIP);
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}
