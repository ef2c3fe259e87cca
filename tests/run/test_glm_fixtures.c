/* fixtures/glm: every recorded answer gives the verdicts its fixture expects
 * (each failing check fails), the glm reference server answering the same
 * model text fails none of the checks the recordings fail (DLX-01…05 judge
 * it against the glm decoder) but HER-01, which reads the model text itself
 * as Hermes (GLM shares the <tool_call> tag) and fails for both, and auto
 * serves the glm fixtures with the glm profile. */
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

Test(glm_fixtures, recorded_fail_reference_passes, .timeout = 120)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/glm")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.nbad, 0, "%s", fs.nbad ? fs.bad_why[0] : "");
    cr_assert_geq(fs.n, 10);
    for (size_t i = 0; i < fs.n; i++) {
        cr_assert_str_eq(fs.fx[i].backend, "glm", "%s", fs.fx[i].name);
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            cr_assert_str_eq(fs.fx[i].exchanges[k].decode_format, "glm", "%s", fs.fx[i].name);
    }

    /* the recordings: every verdict as the fixtures expect */
    tw_report rec;
    run_profile(&fs, "replay", &rec);
    cr_expect_eq(rec.n_mismatch, 0, "%zu mismatches against the recordings", rec.n_mismatch);

    /* the same model text answered by the reference server */
    for (size_t i = 0; i < fs.n; i++)
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            fs.fx[i].exchanges[k].has_response = false;
    tw_report ref;
    run_profile(&fs, "glm", &ref);

    size_t recorded = 0, judged = 0, dlx_fail = 0;
    for (size_t i = 0; i < rec.nfx; i++) {
        const tw_rep_fixture *a = &rec.fx[i];
        if (a->skipped)
            continue; /* a reference fixture: no recording to replay */
        recorded++;
        const tw_rep_fixture *b = find_fx(&ref, a->name);
        cr_assert_not_null(b, "%s", a->name);
        cr_assert_not(b->skipped, "%s: the reference server did not serve it: %s", a->name,
                      b->note ? b->note : "");
        for (size_t k = 0; k < a->nex; k++) {
            const tw_rep_exchange *ea = &a->ex[k];
            for (size_t c = 0; c < ea->nchecks; c++) {
                const tw_rep_check *ca = &ea->checks[c];
                if (ca->expected != TW_EXPECT_FAIL)
                    continue;
                cr_expect_eq(ca->verdict, TW_V_FAIL, "%s#%zu %s: the recording gives %s", a->name,
                             k, ca->id, tw_verdict_name(ca->verdict));
                dlx_fail += strncmp(ca->id, "DLX-", 4) == 0;
                const tw_rep_check *cb = find_check(&b->ex[k], ca->id);
                cr_assert_not_null(cb, "%s#%zu %s: no verdict from the reference", a->name, k,
                                   ca->id);
                if (strcmp(ca->id, "HER-01") == 0) /* judges the model text: fails for both */
                    cr_expect_eq(cb->verdict, TW_V_FAIL, "%s#%zu %s: the reference answer gives %s",
                                 a->name, k, ca->id, tw_verdict_name(cb->verdict));
                else
                    cr_expect_neq(cb->verdict, TW_V_FAIL,
                                  "%s#%zu %s: the reference answer fails: %s", a->name, k, ca->id,
                                  cb->evidence ? cb->evidence : "");
                judged++;
            }
        }
    }
    cr_expect_geq(recorded, 6, "%zu recorded answers", recorded);
    cr_expect_geq(dlx_fail, 10, "%zu DLX failures", dlx_fail);
    cr_expect_geq(judged, 10);

    /* every DLX check of the reference answers passes or skips */
    size_t dlx_pass = 0;
    for (size_t i = 0; i < ref.nfx; i++)
        for (size_t k = 0; k < ref.fx[i].nex; k++)
            for (size_t c = 0; c < ref.fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &ref.fx[i].ex[k].checks[c];
                if (strncmp(ch->id, "DLX-", 4) == 0) {
                    cr_expect_neq(ch->verdict, TW_V_FAIL, "%s#%zu %s: %s", ref.fx[i].name, k,
                                  ch->id, ch->evidence ? ch->evidence : "");
                    dlx_pass += ch->verdict == TW_V_PASS;
                }
            }
    cr_expect_geq(dlx_pass, 2 * fs.n, "%zu DLX passes", dlx_pass);
    tw_report_free(&rec);
    tw_report_free(&ref);
    tw_fixture_set_free(&fs);
}

/* auto serves the fixtures that name glm with the glm profile; a hermes
 * fixture keeps the hermes profile; a recording replays. */
Test(glm_fixtures, auto_profile)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/glm/ref_one_call.json"),
                     (char *)tw_test_src("fixtures/hermes/ref_number_spellings.json"),
                     (char *)tw_test_src("fixtures/glm/markup_left_in_content.json")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 3, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.n, 3, "%s", fs.nbad ? fs.bad_why[0] : "");
    for (size_t i = 0; i < 3; i++) {
        const char *n = fs.fx[i].name;
        const char *got = tw_mock_profile_for("auto", &fs.fx[i]);
        const char *want = strcmp(n, "glm/ref_one_call") == 0              ? "glm"
                           : strcmp(n, "hermes/ref_number_spellings") == 0 ? "hermes"
                                                                           : "replay";
        cr_assert_not_null(got, "%s", n);
        cr_expect_str_eq(got, want, "%s", n);
    }
    for (size_t i = 0; i < 3; i++)
        if (strcmp(fs.fx[i].name, "hermes/ref_number_spellings") == 0)
            cr_expect_not(tw_mock_profile_fits("glm", &fs.fx[i]));
        else if (strcmp(fs.fx[i].name, "glm/ref_one_call") == 0)
            cr_expect(tw_mock_profile_fits("glm", &fs.fx[i]));
    tw_fixture_set_free(&fs);
}
