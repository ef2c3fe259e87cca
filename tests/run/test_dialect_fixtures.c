/* fixtures/<dialect> of the model dialects with recorded fixtures, one row of
 * a table each: every recorded answer gives the verdicts its fixture expects
 * (each expected failure fails); the dialect's reference server (the mock
 * profile of the same name) answers the same model text without failing
 * what the recordings fail, but for a check that judges the model text
 * itself; what each row says of its reference fixtures, of auto's choice of
 * profile and of its live suite against the scripted reference model. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "fixture.h"
#include "mock.h"
#include "report.h"
#include "run.h"
#include "twtest.h"

/* One dialect: its decoder, mock profile and fixtures/<name> share the name. */
typedef struct dialect_row {
    char name[16];
    size_t min_fixtures; /* fixtures in the folder, at the least */
    bool backend_named;  /* every fixture's backend is the dialect */
    bool auto_run;       /* the set as auto serves it: no mismatch, every fixture served */
    bool auto_ref; /* auto serves ref_* with the dialect's profile (it fits), the rest replayed */
    size_t min_generate; /* fixtures of /generate, at the least */
    size_t min_streamed; /* fixtures served whole and streamed (two exchanges), at the least */
    size_t min_rec_fail; /* FAIL verdicts of the recordings, at the least */
    bool only_dlx;       /* every expected failure is a DLX check */
    size_t min_expected; /* expected failures of the recordings, at the least */
    /* each recording's expected failures against the reference's answer to the same text */
    bool paired;
    bool ref_pass;      /* ... which passes them (else: does not fail them) */
    char both_fail[8];  /* ... but this check, which judges the model text: it fails for both */
    bool served_paired; /* ... the reference served each recording */
    bool same_nex;      /* ... with as many exchanges */
    size_t min_recorded, min_faulty, min_judged, min_dlx_fail;
    bool mismatch_judged; /* the reference's mismatches are exactly the judged failures */
    bool ref_served;      /* the reference serves every fixture (none skipped) */
    bool ref_each_served; /* the same, fixture by fixture */
    bool ref_no_fail;     /* no check fails against the reference */
    bool ref_any_pass;    /* some check passes against the reference */
    size_t
        dlx_pass_per_fx; /* DLX checks of the reference: none fails, this many passes a fixture */
} dialect_row;

static dialect_row rows[] = {
    {.name = "deepseek-v3.1",
     .min_fixtures = 8,
     .paired = true,
     .ref_pass = true,
     .served_paired = true,
     .min_recorded = 3,
     .min_judged = 3,
     .mismatch_judged = true,
     .ref_no_fail = true},
    {.name = "gemma4",
     .min_fixtures = 4,
     .backend_named = true,
     .auto_ref = true,
     .min_generate = 1,
     .min_streamed = 3,
     .min_rec_fail = 3,
     .ref_served = true,
     .ref_no_fail = true,
     .ref_any_pass = true},
    {.name = "glm",
     .min_fixtures = 10,
     .backend_named = true,
     .paired = true,
     .both_fail = "HER-01",
     .served_paired = true,
     .min_recorded = 6,
     .min_judged = 10,
     .min_dlx_fail = 10,
     .dlx_pass_per_fx = 2},
    {.name = "kimi-k2",
     .min_fixtures = 12,
     .backend_named = true,
     .auto_run = true,
     .paired = true,
     .same_nex = true,
     .min_recorded = 8,
     .min_faulty = 6,
     .min_judged = 7,
     .ref_served = true},
    {.name = "minimax-m2",
     .min_fixtures = 12,
     .backend_named = true,
     .auto_run = true,
     .paired = true,
     .same_nex = true,
     .min_recorded = 6,
     .min_faulty = 6,
     .min_judged = 6,
     .ref_served = true},
    {.name = "mistral",
     .min_fixtures = 10,
     .backend_named = true,
     .only_dlx = true,
     .min_expected = 8,
     .ref_each_served = true,
     .dlx_pass_per_fx = 3},
};

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

static bool is_ref(const dialect_row *r, const char *fixture)
{
    size_t n = strlen(r->name);
    return strncmp(fixture, r->name, n) == 0 && strncmp(fixture + n, "/ref_", 5) == 0;
}

/* The folder's fixtures as loaded: every one valid and read with the
 * dialect's decoder. */
static void load_folder(const dialect_row *r, tw_fixture_set *fs)
{
    tw_error why = {.offset = -1};
    char rel[64];
    snprintf(rel, sizeof rel, "fixtures/%s", r->name);
    char *paths[] = {(char *)tw_test_src(rel)};
    cr_assert(tw_fixture_set_load(fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs->nbad, 0, "%s", fs->nbad ? fs->bad_why[0] : "");
    cr_assert_geq(fs->n, r->min_fixtures);
    size_t generate = 0, streamed = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const tw_fixture *f = &fs->fx[i];
        if (r->backend_named)
            cr_assert_str_eq(f->backend, r->name, "%s", f->name);
        if (r->auto_ref) {
            bool ref = is_ref(r, f->name);
            const char *p = tw_mock_profile_for("auto", f);
            cr_expect(p && strcmp(p, ref ? r->name : "replay") == 0, "%s: auto picks %s", f->name,
                      p ? p : "none");
            if (ref)
                cr_expect(tw_mock_profile_fits(r->name, f), "%s", f->name);
        }
        for (size_t k = 0; k < f->nexchanges; k++)
            cr_assert_str_eq(f->exchanges[k].decode_format, r->name, "%s", f->name);
        generate += strstr(f->name, "generate") != NULL;
        streamed += f->nexchanges > 1;
    }
    if (r->min_generate)
        cr_assert_geq(generate, r->min_generate);
    if (r->min_streamed)
        cr_assert_geq(streamed, r->min_streamed); /* each served whole and streamed */
}

/* The expected failures of the recordings, each against the reference's
 * answer to the same model text when the row pairs them. */
static void judge_recordings(const dialect_row *r, const tw_report *rec, const tw_report *ref)
{
    size_t recorded = 0, faulty = 0, judged = 0, expected = 0, dlx_fail = 0, rec_fail = 0;
    for (size_t i = 0; i < rec->nfx; i++) {
        const tw_rep_fixture *a = &rec->fx[i];
        for (size_t k = 0; k < a->nex; k++)
            for (size_t c = 0; c < a->ex[k].nchecks; c++)
                rec_fail += a->ex[k].checks[c].verdict == TW_V_FAIL;
        if (a->skipped)
            continue; /* a reference fixture: no recording to replay */
        recorded++;
        const tw_rep_fixture *b = NULL;
        if (r->paired) {
            b = find_fx(ref, a->name);
            cr_assert_not_null(b, "%s", a->name);
            if (r->served_paired)
                cr_assert_not(b->skipped, "%s: the reference server did not serve it: %s", a->name,
                              b->note ? b->note : "");
            if (r->same_nex)
                cr_assert_eq(a->nex, b->nex, "%s", a->name);
        }
        bool any = false;
        for (size_t k = 0; k < a->nex; k++)
            for (size_t c = 0; c < a->ex[k].nchecks; c++) {
                const tw_rep_check *ca = &a->ex[k].checks[c];
                if (ca->expected != TW_EXPECT_FAIL)
                    continue;
                any = true;
                expected++;
                cr_expect_eq(ca->verdict, TW_V_FAIL, "%s#%zu %s: the recording gives %s", a->name,
                             k, ca->id, tw_verdict_name(ca->verdict));
                if (r->only_dlx)
                    cr_expect(strncmp(ca->id, "DLX-", 4) == 0, "%s", ca->id);
                dlx_fail += strncmp(ca->id, "DLX-", 4) == 0;
                if (!b)
                    continue;
                const tw_rep_check *cb = find_check(&b->ex[k], ca->id);
                cr_assert_not_null(cb, "%s#%zu %s: no verdict from the reference", a->name, k,
                                   ca->id);
                if (r->both_fail[0] && strcmp(ca->id, r->both_fail) == 0)
                    cr_expect_eq(cb->verdict, TW_V_FAIL, "%s#%zu %s: the reference answer gives %s",
                                 a->name, k, ca->id, tw_verdict_name(cb->verdict));
                else if (r->ref_pass)
                    cr_expect_eq(cb->verdict, TW_V_PASS, "%s#%zu %s: the reference gives %s: %s",
                                 a->name, k, ca->id, tw_verdict_name(cb->verdict),
                                 cb->evidence ? cb->evidence : "");
                else
                    cr_expect_neq(cb->verdict, TW_V_FAIL,
                                  "%s#%zu %s: the reference answer fails: %s", a->name, k, ca->id,
                                  cb->evidence ? cb->evidence : "");
                judged++;
            }
        faulty += any;
    }
    /* the rows' floors (0: the row says nothing of that count) */
    if (r->min_recorded)
        cr_expect_geq(recorded, r->min_recorded, "%zu recorded answers", recorded);
    if (r->min_faulty)
        cr_expect_geq(faulty, r->min_faulty, "%zu misbehaving servers", faulty);
    if (r->min_judged)
        cr_expect_geq(judged, r->min_judged, "%zu failing checks judged", judged);
    if (r->min_expected)
        cr_expect_geq(expected, r->min_expected, "%zu expected failures", expected);
    if (r->min_dlx_fail)
        cr_expect_geq(dlx_fail, r->min_dlx_fail, "%zu DLX failures", dlx_fail);
    if (r->min_rec_fail)
        cr_expect_geq(rec_fail, r->min_rec_fail, "%zu failures of the sloppy servers", rec_fail);
    /* against the reference only the recordings' expected failures do not
     * happen: each is one mismatch */
    if (r->mismatch_judged)
        cr_expect_eq(ref->n_mismatch, judged,
                     "%zu mismatches against the reference, %zu expected failures of %zu "
                     "recordings",
                     ref->n_mismatch, judged, recorded);
}

/* What the reference server's answers give, fixture by fixture. */
static void judge_reference(const dialect_row *r, const tw_report *ref, size_t nfixtures)
{
    if (r->ref_served)
        cr_expect_eq(ref->n_skipped, 0, "%zu fixtures the %s profile did not serve", ref->n_skipped,
                     r->name);
    if (r->ref_any_pass)
        cr_expect_gt(ref->n_pass, 0);
    size_t dlx_pass = 0, served = 0;
    for (size_t i = 0; i < ref->nfx; i++) {
        const tw_rep_fixture *f = &ref->fx[i];
        if (r->ref_each_served)
            cr_expect_not(f->skipped, "%s: not served: %s", f->name, f->note ? f->note : "");
        served += !f->skipped;
        for (size_t k = 0; k < f->nex; k++)
            for (size_t c = 0; c < f->ex[k].nchecks; c++) {
                const tw_rep_check *ch = &f->ex[k].checks[c];
                bool dlx = strncmp(ch->id, "DLX-", 4) == 0;
                if (r->ref_no_fail || (r->dlx_pass_per_fx && dlx))
                    cr_expect_neq(ch->verdict, TW_V_FAIL, "%s#%zu %s: %s", f->name, k, ch->id,
                                  ch->evidence ? ch->evidence : "");
                dlx_pass += dlx && ch->verdict == TW_V_PASS;
            }
    }
    if (r->ref_each_served)
        cr_expect_eq(served, nfixtures);
    if (r->dlx_pass_per_fx)
        cr_expect_geq(dlx_pass, r->dlx_pass_per_fx * nfixtures, "%zu DLX passes", dlx_pass);
}

ParameterizedTestParameters(dialect_fixtures, recorded_fail_reference_passes)
{
    return cr_make_param_array(dialect_row, rows, sizeof rows / sizeof rows[0]);
}

ParameterizedTest(dialect_row *r, dialect_fixtures, recorded_fail_reference_passes, .timeout = 120)
{
    tw_fixture_set fs;
    load_folder(r, &fs);
    if (r->auto_run) { /* the recordings and the reference fixtures, as auto serves them */
        tw_report all;
        run_profile(&fs, "auto", &all);
        cr_expect_eq(all.n_mismatch, 0, "%zu mismatches", all.n_mismatch);
        cr_expect_eq(all.n_skipped, 0, "%zu fixtures not served", all.n_skipped);
        tw_report_free(&all);
    }
    tw_report rec;
    run_profile(&fs, "replay", &rec);
    cr_expect_eq(rec.n_mismatch, 0, "%zu mismatches against the recordings", rec.n_mismatch);
    /* the same model text answered by the reference server */
    for (size_t i = 0; i < fs.n; i++)
        for (size_t k = 0; k < fs.fx[i].nexchanges; k++)
            fs.fx[i].exchanges[k].has_response = false;
    tw_report ref;
    run_profile(&fs, r->name, &ref);
    judge_recordings(r, &rec, &ref);
    judge_reference(r, &ref, fs.n);
    tw_report_free(&rec);
    tw_report_free(&ref);
    tw_fixture_set_free(&fs);
}

/* auto serves a fixture that names the dialect from its profile (which
 * fits it), a Hermes fixture from hermes (the dialect's profile serves no
 * Hermes text), a recording by replay. */
typedef struct auto_row {
    char name[16];
    char files[4][48]; /* under fixtures/ */
    size_t n;
} auto_row;

static auto_row auto_rows[] = {
    {"glm",
     {"glm/ref_one_call.json", "hermes/ref_number_spellings.json",
      "glm/markup_left_in_content.json"},
     3},
    {"kimi-k2",
     {"kimi-k2/ref_two_calls.json", "kimi-k2/ref_generate.json", "hermes/ref_number_spellings.json",
      "kimi-k2/unknown_tool_passed.json"},
     4},
    {"minimax-m2",
     {"minimax-m2/ref_two_calls.json", "minimax-m2/ref_generate.json",
      "hermes/ref_number_spellings.json", "minimax-m2/integer_left_string.json"},
     4},
    {"mistral", {"mistral/ref_two_calls.json", "mistral/ref_generate.json"}, 2},
};

ParameterizedTestParameters(dialect_fixtures, auto_profile)
{
    return cr_make_param_array(auto_row, auto_rows, sizeof auto_rows / sizeof auto_rows[0]);
}

ParameterizedTest(auto_row *a, dialect_fixtures, auto_profile)
{
    tw_error why = {.offset = -1};
    char *paths[4];
    for (size_t i = 0; i < a->n; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "fixtures/%s", a->files[i]);
        paths[i] = strdup(tw_test_src(rel));
    }
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, a->n, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.n, a->n, "%s", fs.nbad ? fs.bad_why[0] : "");
    dialect_row r;
    memset(&r, 0, sizeof r);
    memcpy(r.name, a->name, sizeof r.name);
    for (size_t i = 0; i < fs.n; i++) {
        const char *n = fs.fx[i].name;
        bool hermes = strcmp(n, "hermes/ref_number_spellings") == 0;
        const char *want = is_ref(&r, n) ? a->name : hermes ? "hermes" : "replay";
        const char *got = tw_mock_profile_for("auto", &fs.fx[i]);
        cr_assert_not_null(got, "%s", n);
        cr_expect_str_eq(got, want, "%s: %s", n, got);
        if (hermes)
            cr_expect_not(tw_mock_profile_fits(a->name, &fs.fx[i]), "%s", n);
        else if (is_ref(&r, n))
            cr_expect(tw_mock_profile_fits(a->name, &fs.fx[i]), "%s", n);
    }
    tw_fixture_set_free(&fs);
    for (size_t i = 0; i < a->n; i++)
        free(paths[i]);
}

/* The live suites, and the reference fixture whose backend alone names the
 * decoder, of the dialects that have them. */
typedef struct live_row {
    char name[16];
} live_row;

static live_row live_rows[] = {{"kimi-k2"}, {"minimax-m2"}};

ParameterizedTestParameters(dialect_fixtures, backend_names_the_decoder)
{
    return cr_make_param_array(live_row, live_rows, sizeof live_rows / sizeof live_rows[0]);
}

/* The model text of a backend fixture without decode.format is still read
 * with the dialect's decoder (the profile and the checks agree). */
ParameterizedTest(live_row *l, dialect_fixtures, backend_names_the_decoder)
{
    tw_error why = {.offset = -1};
    char rel[64];
    snprintf(rel, sizeof rel, "fixtures/%s/ref_one_call.json", l->name);
    tw_fixture f;
    cr_assert_eq(tw_fixture_load(tw_test_src(rel), NULL, &f, &why), TW_OK, "%s", why.message);
    for (size_t k = 0; k < f.nexchanges; k++)
        cr_expect_str_eq(f.exchanges[k].model_format, l->name);
    tw_fixture_free(&f);
}

ParameterizedTestParameters(dialect_fixtures, live_suite_against_the_script_server)
{
    return cr_make_param_array(live_row, live_rows, sizeof live_rows / sizeof live_rows[0]);
}

/* The live suite for the dialect's server, against the scripted reference
 * model: no mismatch, every fixture served, expectations judged. */
ParameterizedTest(live_row *l, dialect_fixtures, live_suite_against_the_script_server,
                  .timeout = 120)
{
    tw_error why = {.offset = -1};
    char rel[64];
    snprintf(rel, sizeof rel, "fixtures/live/%s", l->name);
    char *paths[] = {(char *)tw_test_src(rel)};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_geq(fs.n, 10);
    for (size_t i = 0; i < fs.n; i++) {
        cr_expect_str_eq(fs.fx[i].backend, l->name);
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
