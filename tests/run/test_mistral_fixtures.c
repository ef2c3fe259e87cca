/* fixtures/mistral: every recorded answer gives the verdicts its fixture
 * expects (each expected failure fails), and the mistral reference server
 * answering the same model text fails no DLX check; the reference fixtures
 * pass every DLX check they are judged by. */
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

Test(mistral_fixtures, recorded_fail_reference_passes, .timeout = 120)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/mistral")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.nbad, 0, "%s", fs.nbad ? fs.bad_why[0] : "");
    cr_assert_geq(fs.n, 10);
    for (size_t i = 0; i < fs.n; i++) {
        cr_assert_str_eq(fs.fx[i].backend, "mistral", "%s", fs.fx[i].name);
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            cr_assert_str_eq(fs.fx[i].exchanges[k].decode_format, "mistral", "%s", fs.fx[i].name);
    }

    /* the recordings: every verdict as the fixtures expect */
    tw_report rec;
    run_profile(&fs, "replay", &rec);
    cr_expect_eq(rec.n_mismatch, 0, "%zu mismatches against the recordings", rec.n_mismatch);
    size_t expected_fail = 0;
    for (size_t i = 0; i < rec.nfx; i++)
        for (size_t k = 0; k < rec.fx[i].nex; k++)
            for (size_t c = 0; c < rec.fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &rec.fx[i].ex[k].checks[c];
                if (ch->expected != TW_EXPECT_FAIL)
                    continue;
                expected_fail++;
                cr_expect_eq(ch->verdict, TW_V_FAIL, "%s#%zu %s: the recording gives %s",
                             rec.fx[i].name, k, ch->id, tw_verdict_name(ch->verdict));
                cr_expect(strncmp(ch->id, "DLX-", 4) == 0, "%s", ch->id);
            }
    cr_expect_geq(expected_fail, 8, "%zu expected failures", expected_fail);

    /* the same model text answered by the reference server: no DLX failure */
    for (size_t i = 0; i < fs.n; i++)
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            fs.fx[i].exchanges[k].has_response = false;
    tw_report ref;
    run_profile(&fs, "mistral", &ref);
    size_t dlx_pass = 0, served = 0;
    for (size_t i = 0; i < ref.nfx; i++) {
        cr_expect_not(ref.fx[i].skipped, "%s: not served: %s", ref.fx[i].name,
                      ref.fx[i].note ? ref.fx[i].note : "");
        served += !ref.fx[i].skipped;
        for (size_t k = 0; k < ref.fx[i].nex; k++)
            for (size_t c = 0; c < ref.fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &ref.fx[i].ex[k].checks[c];
                if (strncmp(ch->id, "DLX-", 4) != 0)
                    continue;
                cr_expect_neq(ch->verdict, TW_V_FAIL, "%s#%zu %s: %s", ref.fx[i].name, k, ch->id,
                              ch->evidence ? ch->evidence : "");
                dlx_pass += ch->verdict == TW_V_PASS;
            }
    }
    cr_expect_eq(served, fs.n);
    cr_expect_geq(dlx_pass, 3 * fs.n, "%zu DLX passes", dlx_pass);
    tw_report_free(&rec);
    tw_report_free(&ref);
    tw_fixture_set_free(&fs);
}

/* auto serves a fixture of backend mistral with the mistral profile */
Test(mistral_fixtures, auto_picks_the_mistral_profile)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/mistral/ref_two_calls.json"),
                     (char *)tw_test_src("fixtures/mistral/ref_generate.json")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 2, NULL, &why), "%s", why.message);
    for (size_t i = 0; i < fs.n; i++)
        cr_assert_str_eq(tw_mock_profile_for("auto", &fs.fx[i]), "mistral", "%s", fs.fx[i].name);
    tw_fixture_set_free(&fs);
}
