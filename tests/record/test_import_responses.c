/* Importing OpenAI Responses traffic (`…/responses`, under any prefix): the
 * recorded cassettes and a HAR file import into fixtures that replay against
 * the mock with no mismatch, and the ORS and client checks give the verdicts
 * the recorded exchanges call for. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fixture.h"
#include "import.h"
#include "redact.h"
#include "run.h"
#include "import_run.h"
#include "twtest.h"

/* The real recording of a streamed call and its round trip (March 2025: no
 * sequence numbers yet). The second turn answers with a text stream; its
 * client sent the call back under the item's id (fc_…) instead of the
 * call_id the server issued (call_…): CLI-09 fails there, so the import
 * records that (--expect) and the replay then matches. */
Test(import_responses, real_stream_cassette)
{
    const char *src =
        tw_test_shared("real-traffic/openai_responses__stream__function_call_arguments_delta.yaml");
    if (!src)
        cr_skip_test("../shared/real-traffic is absent");
    char dir[] = "/tmp/tw_import_rsp_XXXXXX";
    char *written = tw_test_import_one(TW_IMPORT_VCR, src, dir, true, 2);
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.backend, "openai");
    cr_assert_eq(f.exchanges[1].nexpect_fail, 2);
    cr_expect_str_eq(f.exchanges[0].req.path, "/v1/responses");
    cr_assert(f.exchanges[0].resp.stream);
    cr_expect_str_eq(f.exchanges[0].resp.events[0].event, "response.created");
    tw_fixture_free(&f);
    tw_report rep;
    tw_test_replay_clean(written, 2, &rep);
    static const char *const pass0[] = {"RSP-01", "ORS-01", "ORS-02", "ORS-04", "ORS-05", "ORS-06",
                                        "ORS-07", "ORS-08", "ORS-09", "CLI-03", NULL};
    tw_test_expect_verdicts(&rep, 0, pass0, TW_V_PASS);
    static const char *const skip0[] = {"ORS-03", "OAI-R01", "OAI-S01", "CLI-01",
                                        "CLI-02", "CLI-08",  NULL};
    tw_test_expect_verdicts(&rep, 0, skip0, TW_V_SKIP);
    /* the round trip: call and output carried back in input, answered with text */
    static const char *const pass1[] = {"ORS-01", "ORS-02", "ORS-04", "ORS-08", "ORS-09",
                                        "CLI-01", "CLI-02", "CLI-04", NULL};
    tw_test_expect_verdicts(&rep, 1, pass1, TW_V_PASS);
    static const char *const skip1[] = {"ORS-03", "ORS-05", "ORS-06", "ORS-07", NULL};
    tw_test_expect_verdicts(&rep, 1, skip1, TW_V_SKIP);
    const char *ev = "";
    cr_expect_eq(tw_test_verdict(&rep, 1, "CLI-09", &ev), TW_V_FAIL);
    cr_expect(strstr(ev, "call_id fc_67e554a1") && strstr(ev, "call_kL0PCQV7"), "%s", ev);
    cr_expect_eq(tw_test_verdict(&rep, 0, "CLI-09", NULL), TW_V_SKIP);
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}

Test(import_responses, real_body_cassette)
{
    const char *src =
        tw_test_shared("real-traffic/openai_responses__nonstream__function_call.yaml");
    if (!src)
        cr_skip_test("../shared/real-traffic is absent");
    char dir[] = "/tmp/tw_import_rsp_XXXXXX";
    char *written = tw_test_import_one(TW_IMPORT_VCR, src, dir, false, 2);
    tw_report rep;
    tw_test_replay_clean(written, 2, &rep);
    static const char *const pass0[] = {"RSP-01", "ORS-01", "ORS-05", "ORS-06",
                                        "ORS-08", "ORS-09", "CLI-03", NULL};
    tw_test_expect_verdicts(&rep, 0, pass0, TW_V_PASS);
    static const char *const skip0[] = {"ORS-02", "ORS-03", "ORS-04", "ORS-07", NULL};
    tw_test_expect_verdicts(&rep, 0, skip0, TW_V_SKIP);
    static const char *const pass1[] = {"ORS-01", "ORS-08", "ORS-09", "CLI-01",
                                        "CLI-02", "CLI-04", "CLI-09", NULL};
    tw_test_expect_verdicts(&rep, 1, pass1, TW_V_PASS);
    /* parallel_tool_calls is not sent: advice only */
    cr_expect_eq(tw_test_verdict(&rep, 1, "CLI-06", NULL), TW_V_FAIL);
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}

/* A HAR of an Azure-style deployment: /openai/v1/responses?api-version=…, its
 * api-key header dropped, its stream with sequence numbers judged by ORS-03. */
Test(import_responses, har_under_a_prefix)
{
    char dir[] = "/tmp/tw_import_rsp_XXXXXX";
    char *written = tw_test_import_one(
        TW_IMPORT_HAR, tw_test_src("tests/data/import/responses_prefix.har"), dir, false, 2);
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_load(written, NULL, &f, &why), TW_OK, "%s", why.message);
    cr_expect_str_eq(f.exchanges[0].req.path, "/openai/v1/responses?api-version=preview");
    cr_expect_null(tw_kv_get(f.exchanges[0].req.headers, f.exchanges[0].req.nheaders, "api-key"));
    cr_assert(f.exchanges[0].resp.stream);
    cr_expect_eq(f.exchanges[0].resp.nevents, 7);
    tw_fixture_free(&f);
    tw_report rep;
    tw_test_replay_clean(written, 2, &rep);
    static const char *const pass0[] = {"ORS-01", "ORS-02", "ORS-03", "ORS-04", "ORS-05",
                                        "ORS-06", "ORS-07", "ORS-08", "ORS-09", NULL};
    tw_test_expect_verdicts(&rep, 0, pass0, TW_V_PASS);
    static const char *const pass1[] = {"ORS-01", "ORS-08", "ORS-09", "CLI-01",
                                        "CLI-02", "CLI-09", NULL};
    tw_test_expect_verdicts(&rep, 1, pass1, TW_V_PASS);
    tw_report_free(&rep);
    tw_test_import_cleanup(written, dir);
}
