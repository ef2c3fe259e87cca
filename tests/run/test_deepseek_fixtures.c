/* fixtures/deepseek-v3.1: every recorded answer of a sloppy server gives the
 * verdicts its fixture expects (each check it names fails), and the
 * deepseek-v3.1 reference server answering the same model text fails none of
 * them (the fixture's expected failure is then its one mismatch); the reference
 * fixtures pass against that server with no failing check. */
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

Test(deepseek_fixtures, recorded_fail_reference_passes, .timeout = 120)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/deepseek-v3.1")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.nbad, 0, "%s", fs.nbad ? fs.bad_why[0] : "");
    cr_assert_geq(fs.n, 8);
    for (size_t i = 0; i < fs.n; i++)
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            cr_assert_str_eq(fs.fx[i].exchanges[k].decode_format, "deepseek-v3.1", "%s",
                             fs.fx[i].name);

    tw_report rec;
    run_profile(&fs, "replay", &rec);
    cr_expect_eq(rec.n_mismatch, 0, "%zu mismatches against the recordings", rec.n_mismatch);

    /* the reference server: every fixture's model text, recordings dropped */
    for (size_t i = 0; i < fs.n; i++)
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            fs.fx[i].exchanges[k].has_response = false;
    tw_report ref;
    run_profile(&fs, "deepseek-v3.1", &ref);

    size_t recorded = 0, judged = 0;
    for (size_t i = 0; i < rec.nfx; i++) {
        const tw_rep_fixture *a = &rec.fx[i];
        if (a->skipped)
            continue; /* a reference fixture */
        recorded++;
        const tw_rep_fixture *b = find_fx(&ref, a->name);
        cr_assert_not_null(b, "%s", a->name);
        cr_assert_not(b->skipped, "%s: the reference did not serve it: %s", a->name,
                      b->note ? b->note : "");
        for (size_t k = 0; k < a->nex; k++)
            for (size_t c = 0; c < a->ex[k].nchecks; c++) {
                const tw_rep_check *ca = &a->ex[k].checks[c];
                if (ca->expected != TW_EXPECT_FAIL)
                    continue;
                cr_expect_eq(ca->verdict, TW_V_FAIL, "%s#%zu %s: the recording gives %s", a->name,
                             k, ca->id, tw_verdict_name(ca->verdict));
                const tw_rep_check *cb = find_check(&b->ex[k], ca->id);
                cr_assert_not_null(cb, "%s#%zu %s: no verdict from the reference", a->name, k,
                                   ca->id);
                cr_expect_eq(cb->verdict, TW_V_PASS, "%s#%zu %s: the reference gives %s: %s",
                             a->name, k, ca->id, tw_verdict_name(cb->verdict),
                             cb->evidence ? cb->evidence : "");
                judged++;
            }
    }
    cr_expect_geq(recorded, 3, "%zu recorded answers", recorded);
    /* against the reference only the recordings' expected failures do not happen:
     * each is one mismatch */
    cr_expect_eq(ref.n_mismatch, judged,
                 "%zu mismatches against the reference, %zu expected failures of %zu recordings",
                 ref.n_mismatch, judged, recorded);
    cr_expect_geq(judged, 3, "%zu failing checks judged", judged);
    /* nothing fails against the reference server */
    for (size_t i = 0; i < ref.nfx; i++)
        for (size_t k = 0; k < ref.fx[i].nex; k++)
            for (size_t c = 0; c < ref.fx[i].ex[k].nchecks; c++)
                cr_expect_neq(
                    ref.fx[i].ex[k].checks[c].verdict, TW_V_FAIL, "%s#%zu %s: %s", ref.fx[i].name,
                    k, ref.fx[i].ex[k].checks[c].id,
                    ref.fx[i].ex[k].checks[c].evidence ? ref.fx[i].ex[k].checks[c].evidence : "");
    tw_report_free(&rec);
    tw_report_free(&ref);
    tw_fixture_set_free(&fs);
}
