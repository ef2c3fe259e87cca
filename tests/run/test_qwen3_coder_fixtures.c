/* fixtures/qwen3-coder: every recorded answer gives the verdicts its fixture
 * expects (each failing check fails), and the qwen3-coder reference server
 * answering the same model text does not fail any check the recording fails
 * (all but a few pass; a check with nothing to judge, such as OAI-R03 when
 * the reference refuses the only call, skips), except the checks that judge
 * the model text itself (HER-01, HER-03), which fail for both. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

Test(qwen3_coder_fixtures, recorded_fail_reference_passes, .timeout = 120)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/qwen3-coder")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.nbad, 0, "%s", fs.nbad ? fs.bad_why[0] : "");
    cr_assert_geq(fs.n, 15);
    for (size_t i = 0; i < fs.n; i++) {
        cr_assert_str_eq(fs.fx[i].backend, "qwen3-coder", "%s", fs.fx[i].name);
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            cr_assert_str_eq(fs.fx[i].exchanges[k].decode_format, "qwen3-coder", "%s",
                             fs.fx[i].name);
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
    run_profile(&fs, "qwen3-coder", &ref);

    size_t recorded = 0, faulty = 0, judged = 0, passed = 0, qwx_fail = 0;
    for (size_t i = 0; i < rec.nfx; i++) {
        const tw_rep_fixture *a = &rec.fx[i];
        if (a->skipped)
            continue; /* a reference fixture: no recording to replay */
        recorded++;
        const tw_rep_fixture *b = find_fx(&ref, a->name);
        cr_assert_not_null(b, "%s", a->name);
        cr_assert_not(b->skipped, "%s: the reference server did not serve it: %s", a->name,
                      b->note ? b->note : "");
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
                if (strncmp(ca->id, "QWX-", 4) == 0)
                    qwx_fail++;
                const tw_rep_check *cb = find_check(&b->ex[k], ca->id);
                cr_assert_not_null(cb, "%s#%zu %s: no verdict from the reference", a->name, k,
                                   ca->id);
                bool model_text = strcmp(ca->id, "HER-01") == 0 || strcmp(ca->id, "HER-03") == 0;
                if (model_text) /* the model's fault stays in the model text */
                    cr_expect_eq(cb->verdict, TW_V_FAIL, "%s#%zu %s: the reference answer gives %s",
                                 a->name, k, ca->id, tw_verdict_name(cb->verdict));
                else /* a skip: the reference answer has nothing the check judges (no call) */
                    cr_expect_neq(cb->verdict, TW_V_FAIL,
                                  "%s#%zu %s: the reference answer fails: %s", a->name, k, ca->id,
                                  cb->evidence ? cb->evidence : "");
                judged++;
                passed += cb->verdict == TW_V_PASS;
            }
        }
        if (any)
            faulty++;
    }
    cr_expect_geq(recorded, 15, "%zu recorded answers", recorded);
    cr_expect_geq(faulty, 12, "%zu misbehaving servers", faulty);
    cr_expect_geq(qwx_fail, 12, "%zu QWX failures", qwx_fail);
    cr_expect_geq(judged, 20);
    cr_expect_geq(passed, judged - 3, "%zu of %zu pass against the reference answer", passed,
                  judged);

    /* the reference fixtures pass every QWX check they are judged by */
    size_t qwx_pass = 0;
    for (size_t i = 0; i < ref.nfx; i++)
        for (size_t k = 0; k < ref.fx[i].nex; k++)
            for (size_t c = 0; c < ref.fx[i].ex[k].nchecks; c++) {
                const tw_rep_check *ch = &ref.fx[i].ex[k].checks[c];
                if (strncmp(ch->id, "QWX-", 4) == 0) {
                    cr_expect_neq(ch->verdict, TW_V_FAIL, "%s#%zu %s: %s", ref.fx[i].name, k,
                                  ch->id, ch->evidence ? ch->evidence : "");
                    qwx_pass += ch->verdict == TW_V_PASS;
                }
            }
    cr_expect_geq(qwx_pass, 2 * fs.n, "%zu QWX passes", qwx_pass);
    tw_report_free(&rec);
    tw_report_free(&ref);
    tw_fixture_set_free(&fs);
}

/* Without decode options the request's tools type the values, for the
 * expected result as for QWX-01: the recordings give the same verdicts. */
Test(qwen3_coder_fixtures, request_tools_without_options, .timeout = 120)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/qwen3-coder")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    size_t dropped = 0;
    for (size_t i = 0; i < fs.n; i++)
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++) {
            tw_fx_exchange *x = &fs.fx[i].exchanges[k];
            /* the hand-made options only declare the request's tools (and a finish) */
            if (x->decode_options && !tw_json_get(x->decode_options, "finish")) {
                x->decode_options = NULL;
                dropped++;
            }
        }
    cr_assert_geq(dropped, 20);
    tw_report rec;
    run_profile(&fs, "replay", &rec);
    cr_expect_eq(rec.n_mismatch, 0, "%zu mismatches with the request's tools", rec.n_mismatch);
    tw_report_free(&rec);
    tw_fixture_set_free(&fs);
}

/* auto serves the fixtures that name qwen3-coder with the qwen3-coder
 * profile; a hermes fixture keeps the hermes profile. */
Test(qwen3_coder_fixtures, auto_profile)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)tw_test_src("fixtures/qwen3-coder/ref_two_calls.json"),
                     (char *)tw_test_src("fixtures/hermes/ref_number_spellings.json"),
                     (char *)tw_test_src("fixtures/qwen3-coder/single_call.json")};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 3, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.n, 3, "%s", fs.nbad ? fs.bad_why[0] : "");
    const char *got[3];
    for (size_t i = 0; i < 3; i++)
        got[i] = tw_mock_profile_for("auto", &fs.fx[i]);
    for (size_t i = 0; i < 3; i++) {
        const char *n = fs.fx[i].name;
        const char *want = strcmp(n, "qwen3-coder/ref_two_calls") == 0     ? "qwen3-coder"
                           : strcmp(n, "hermes/ref_number_spellings") == 0 ? "hermes"
                                                                           : "replay";
        cr_assert_not_null(got[i], "%s", n);
        cr_expect_str_eq(got[i], want, "%s", n);
    }
    /* the named profile: only Qwen3-Coder text (or text without a format) */
    for (size_t i = 0; i < 3; i++)
        if (strcmp(fs.fx[i].name, "hermes/ref_number_spellings") == 0)
            cr_expect_not(tw_mock_profile_fits("qwen3-coder", &fs.fx[i]));
        else if (strcmp(fs.fx[i].name, "qwen3-coder/ref_two_calls") == 0)
            cr_expect(tw_mock_profile_fits("qwen3-coder", &fs.fx[i]));
    tw_fixture_set_free(&fs);
}

/* A fixture of backend qwen3-coder whose exchanges give no decode.format:
 * its model text is still read as Qwen3-Coder XML by the checks (as the
 * profile serves it), so a server that left the XML in content fails
 * QWX-01/02 rather than being judged by the hermes decoder (no call seen,
 * every check passing). */
Test(qwen3_coder_fixtures, backend_without_decode_format, .timeout = 60)
{
    size_t len;
    cJSON *fx;
    free(tw_test_load_exact(tw_test_src("fixtures/qwen3-coder/xml_leaked_into_content.json"), &len,
                            &fx));
    cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(fx, "exchanges"))
    {
        cJSON_DeleteItemFromObject(x, "decode");
        cJSON_DeleteItemFromObject(x, "expect");
    }
    char path[] = "/tmp/tw_qwen_nodecode_XXXXXX.json";
    int fd = mkstemps(path, 5);
    cr_assert_geq(fd, 0);
    char *text = cJSON_Print(fx);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    free(text);
    cJSON_Delete(fx);
    tw_error why = {.offset = -1};
    char *paths[] = {path};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.n, 1, "%s", fs.nbad ? fs.bad_why[0] : "");
    cr_assert_null(fs.fx[0].exchanges[0].decode_format);
    cr_assert_str_eq(fs.fx[0].exchanges[0].model_format, "qwen3-coder");
    tw_report rep;
    run_profile(&fs, "replay", &rep);
    const tw_rep_fixture *r = find_fx(&rep, fs.fx[0].name);
    cr_assert_not_null(r);
    const tw_rep_check *q1 = find_check(&r->ex[0], "QWX-01");
    const tw_rep_check *q2 = find_check(&r->ex[0], "QWX-02");
    cr_assert(q1 && q2);
    cr_expect_eq(q1->verdict, TW_V_FAIL, "QWX-01: %s", q1->evidence ? q1->evidence : "");
    cr_expect_eq(q2->verdict, TW_V_FAIL, "QWX-02: %s", q2->evidence ? q2->evidence : "");
    tw_report_free(&rep);
    tw_fixture_set_free(&fs);
    unlink(path);
}
