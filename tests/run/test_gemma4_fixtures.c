/* fixtures/gemma4: every recorded answer gives the verdicts its fixture
 * expects (each failing check fails); the Gemma 4 reference server (the
 * mock profile gemma4, docs/formats/gemma4.md) answers every fixture's
 * model text, whole, streamed and on /generate, with no check failing; and
 * "auto" picks it for the reference fixtures. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "fixture.h"
#include "mock.h"
#include "report.h"
#include "run.h"
#include "twtest.h"

static void run_profile(tw_fixture_set *fs, const char *profile, tw_report *rep)
{
    tw_error why = {.offset = -1};
    tw_backend_spec b = {.name = profile, .profile = profile};
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    o.client.connect_timeout_ms = 5000;
    o.client.total_timeout_ms = 20000;
    cr_assert_eq(tw_run_backend(fs, &b, &o, rep, &why), TW_OK, "%s", why.message);
}

Test(gemma4_fixtures, reference_server, .timeout = 120)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/gemma4")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.nbad, 0, "%s", fs.nbad ? fs.bad_why[0] : "");
    cr_assert_geq(fs.n, 4);
    size_t generate = 0, streamed = 0;
    for (size_t i = 0; i < fs.n; i++) {
        cr_assert_str_eq(fs.fx[i].backend, "gemma4", "%s", fs.fx[i].name);
        bool ref = strncmp(fs.fx[i].name, "gemma4/ref_", 11) == 0;
        const char *p = tw_mock_profile_for("auto", &fs.fx[i]);
        cr_expect(p && strcmp(p, ref ? "gemma4" : "replay") == 0, "%s: auto picks %s",
                  fs.fx[i].name, p ? p : "none");
        if (ref)
            cr_expect(tw_mock_profile_fits("gemma4", &fs.fx[i]), "%s", fs.fx[i].name);
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++) {
            cr_assert_str_eq(fs.fx[i].exchanges[k].decode_format, "gemma4", "%s", fs.fx[i].name);
        }
        generate += strstr(fs.fx[i].name, "generate") != NULL;
        streamed += fs.fx[i].nexchanges > 1;
    }
    cr_assert_geq(generate, 1);
    cr_assert_geq(streamed, 3); /* each served whole and streamed */
    /* the recordings: every verdict as the fixtures expect */
    tw_report rec;
    run_profile(&fs, "replay", &rec);
    cr_expect_eq(rec.n_mismatch, 0, "%zu mismatches against the recordings", rec.n_mismatch);
    size_t faulty = 0;
    for (size_t i = 0; i < rec.nfx; i++)
        for (size_t k = 0; k < rec.fx[i].nex; k++)
            for (size_t c = 0; c < rec.fx[i].ex[k].nchecks; c++)
                faulty += rec.fx[i].ex[k].checks[c].verdict == TW_V_FAIL;
    cr_expect_geq(faulty, 3, "%zu failures of the sloppy servers", faulty);
    tw_report_free(&rec);
    /* the same model text answered by the reference server */
    for (size_t i = 0; i < fs.n; i++)
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            fs.fx[i].exchanges[k].has_response = false;
    tw_report rep;
    run_profile(&fs, "gemma4", &rep);
    cr_expect_eq(rep.n_skipped, 0, "%zu fixtures not served", rep.n_skipped);
    cr_expect_gt(rep.n_pass, 0);
    for (size_t i = 0; i < rep.nfx; i++)
        for (size_t k = 0; k < rep.fx[i].nex; k++)
            for (size_t c = 0; c < rep.fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &rep.fx[i].ex[k].checks[c];
                cr_expect_neq(ch->verdict, TW_V_FAIL, "%s#%zu %s: %s", rep.fx[i].name, k, ch->id,
                              ch->evidence ? ch->evidence : "");
            }
    tw_report_free(&rep);
    tw_fixture_set_free(&fs);
}
