/* fixtures/minimax-m2 and fixtures/live/minimax-m2: every recorded answer gives
 * the verdicts its fixture expects; the minimax-m2 reference server answers the
 * same model text without failing what the recordings fail (the model's own
 * faults aside); auto picks the minimax-m2 profile for a fixture that names the
 * decoder; the live suite passes against the scripted reference model. */
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

static const tw_rep_fixture *find_fx(const tw_report *r, const char *name)
{
    for (size_t i = 0; i < r->nfx; i++)
        if (strcmp(r->fx[i].name, name) == 0)
            return &r->fx[i];
    return NULL;
}

static const tw_rep_check *find_check(const tw_rep_exchange *e, const char *id)
{
    for (size_t c = 0; c < e->nchecks; c++)
        if (strcmp(e->checks[c].id, id) == 0)
            return &e->checks[c];
    return NULL;
}

Test(minimax_fixtures, recorded_fail_reference_passes, .timeout = 120)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/minimax-m2")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.nbad, 0, "%s", fs.nbad ? fs.bad_why[0] : "");
    cr_assert_geq(fs.n, 12);
    for (size_t i = 0; i < fs.n; i++) {
        cr_assert_str_eq(fs.fx[i].backend, "minimax-m2", "%s", fs.fx[i].name);
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            cr_assert_str_eq(fs.fx[i].exchanges[k].decode_format, "minimax-m2", "%s",
                             fs.fx[i].name);
    }

    /* the recordings and the reference fixtures, as auto serves them */
    tw_report all;
    run_profile(&fs, "auto", &all);
    cr_expect_eq(all.n_mismatch, 0, "%zu mismatches", all.n_mismatch);
    cr_expect_eq(all.n_skipped, 0, "%zu fixtures not served", all.n_skipped);
    tw_report rec;
    run_profile(&fs, "replay", &rec);
    cr_expect_eq(rec.n_mismatch, 0, "%zu mismatches against the recordings", rec.n_mismatch);

    /* the same model text answered by the reference server */
    for (size_t i = 0; i < fs.n; i++)
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            fs.fx[i].exchanges[k].has_response = false;
    tw_report ref;
    run_profile(&fs, "minimax-m2", &ref);
    cr_expect_eq(ref.n_skipped, 0, "%zu fixtures the minimax-m2 profile did not serve",
                 ref.n_skipped);

    size_t recorded = 0, faulty = 0, judged = 0;
    for (size_t i = 0; i < rec.nfx; i++) {
        const tw_rep_fixture *a = &rec.fx[i];
        if (a->skipped)
            continue; /* a reference fixture: no recording to replay */
        recorded++;
        const tw_rep_fixture *b = find_fx(&ref, a->name);
        cr_assert_not_null(b, "%s", a->name);
        cr_assert_eq(a->nex, b->nex, "%s", a->name);
        bool any = false;
        for (size_t k = 0; k < a->nex; k++) {
            const tw_rep_exchange *ea = &a->ex[k];
            for (size_t c = 0; c < ea->nchecks; c++) {
                const tw_rep_check *ca = &ea->checks[c];
                if (ca->expected != TW_EXPECT_FAIL)
                    continue;
                any = true;
                cr_expect_eq(ca->verdict, TW_V_FAIL, "%s#%zu %s: the recording gives %s", a->name,
                             k, ca->id, tw_verdict_name(ca->verdict));
                const tw_rep_check *cb = find_check(&b->ex[k], ca->id);
                cr_assert_not_null(cb, "%s#%zu %s: no verdict from the reference", a->name, k,
                                   ca->id);
                cr_expect_neq(cb->verdict, TW_V_FAIL, "%s#%zu %s: the reference answer fails: %s",
                              a->name, k, ca->id, cb->evidence ? cb->evidence : "");
                judged++;
            }
        }
        faulty += any;
    }
    cr_expect_geq(recorded, 6, "%zu recorded answers", recorded);
    cr_expect_geq(faulty, 6, "%zu misbehaving servers", faulty);
    cr_expect_geq(judged, 6);
    tw_report_free(&all);
    tw_report_free(&rec);
    tw_report_free(&ref);
    tw_fixture_set_free(&fs);
}

/* auto serves a fixture naming minimax-m2 with the minimax-m2 profile, and the
 * profile serves no Hermes text. */
Test(minimax_fixtures, auto_profile)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/minimax-m2/ref_two_calls.json"),
                     (char *)tw_test_src("fixtures/minimax-m2/ref_generate.json"),
                     (char *)tw_test_src("fixtures/hermes/ref_number_spellings.json"),
                     (char *)tw_test_src("fixtures/minimax-m2/integer_left_string.json")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 4, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.n, 4, "%s", fs.nbad ? fs.bad_why[0] : "");
    for (size_t i = 0; i < 4; i++) {
        const char *n = fs.fx[i].name;
        const char *want = strncmp(n, "minimax-m2/ref_", 15) == 0          ? "minimax-m2"
                           : strcmp(n, "hermes/ref_number_spellings") == 0 ? "hermes"
                                                                           : "replay";
        const char *got = tw_mock_profile_for("auto", &fs.fx[i]);
        cr_assert_not_null(got, "%s", n);
        cr_expect_str_eq(got, want, "%s: %s", n, got);
        if (strcmp(want, "hermes") == 0)
            cr_expect_not(tw_mock_profile_fits("minimax-m2", &fs.fx[i]), "%s", n);
    }
    tw_fixture_set_free(&fs);
}

/* The model text of a backend minimax-m2 fixture without decode.format is still
 * read as MiniMax-M2 (the profile and the checks agree). */
Test(minimax_fixtures, backend_names_the_decoder)
{
    tw_error why = {.offset = -1};
    tw_fixture f;
    cr_assert_eq(
        tw_fixture_load(tw_test_src("fixtures/minimax-m2/ref_one_call.json"), NULL, &f, &why),
        TW_OK, "%s", why.message);
    for (size_t k = 0; k < f.nexchanges; k++)
        cr_expect_str_eq(f.exchanges[k].model_format, "minimax-m2");
    tw_fixture_free(&f);
}

/* The live suite for a MiniMax-M2 server, against the scripted reference model:
 * no mismatch, every fixture served, expectations judged. */
Test(minimax_fixtures, live_suite_against_the_script_server, .timeout = 120)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/live/minimax-m2")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_geq(fs.n, 10);
    for (size_t i = 0; i < fs.n; i++) {
        cr_expect_str_eq(fs.fx[i].backend, "minimax-m2");
        cr_expect(tw_fixture_has_tag(&fs.fx[i], "live"), "%s", fs.fx[i].name);
    }
    tw_report rep;
    run_profile(&fs, "script", &rep);
    cr_expect(rep.ok, "%zu mismatches", rep.n_mismatch);
    cr_expect_eq(rep.n_skipped, 0);
    size_t liv = 0;
    for (size_t f = 0; f < rep.nfx; f++)
        for (size_t k = 0; k < rep.fx[f].nex; k++)
            for (size_t c = 0; c < rep.fx[f].ex[k].nchecks; c++)
                liv += strncmp(rep.fx[f].ex[k].checks[c].id, "LIV-", 4) == 0 &&
                       rep.fx[f].ex[k].checks[c].verdict == TW_V_PASS;
    cr_expect_geq(liv, 20, "%zu LIV passes", liv);
    tw_report_free(&rep);
    tw_fixture_set_free(&fs);
}
