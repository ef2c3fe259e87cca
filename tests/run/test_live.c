/* Live expectations (expect.live, LIV-01…07), call-id placeholders, fixture
 * tags and selection by tag, and the live suites under fixtures/live/. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fixture.h"
#include "live.h"
#include "run.h"
#include "decode_fixtures.h"
#include "twtest.h"

/* Run one fixture of tests/data/live against mock:replay. */
static void run_one(const char *stem, tw_report *rep)
{
    char rel[200];
    tw_error why = {.offset = -1};
    snprintf(rel, sizeof rel, "tests/data/live/%s.json", stem);
    char path[1024];
    snprintf(path, sizeof path, "%s", tw_test_src(rel));
    char *paths[] = {path};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.n, 1, "%s: %s", stem, fs.nbad ? fs.bad_why[0] : "");
    tw_backend_spec b = {.name = "m", .profile = "replay"};
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    o.client.connect_timeout_ms = 5000;
    o.client.total_timeout_ms = 20000;
    cr_assert_eq(tw_run_backend(&fs, &b, &o, rep, &why), TW_OK, "%s", why.message);
    tw_fixture_set_free(&fs);
    cr_assert_eq(rep->nfx, 1);
    cr_assert(!rep->fx[0].skipped, "%s skipped: %s", stem, rep->fx[0].note ? rep->fx[0].note : "");
}

static const tw_rep_check *verdict(const tw_report *rep, size_t k, const char *id)
{
    cr_assert_lt(k, rep->fx[0].nex);
    const tw_rep_exchange *e = &rep->fx[0].ex[k];
    for (size_t c = 0; c < e->nchecks; c++)
        if (strcmp(e->checks[c].id, id) == 0)
            return &e->checks[c];
    cr_assert_fail("%s has no verdict in exchange %zu", id, k);
    return NULL;
}

Test(live, loader_reads_expectations)
{
    tw_fixture f;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_load(tw_test_src("tests/data/live/pass.json"), NULL, &f, &why), TW_OK,
                 "%s", why.message);
    const tw_fx_live *a = &f.exchanges[0].live, *b = &f.exchanges[1].live;
    cr_assert_not_null(a->json);
    cr_assert_eq(a->ntool_called, 1);
    cr_expect_str_eq(a->tool_called[0], "get_weather");
    cr_expect_eq(a->calls_min, 1);
    cr_expect_eq(a->calls_max, 1);
    cr_expect(a->arguments_valid);
    cr_expect_eq(a->text, 0);
    cr_expect_eq(a->reasoning, 0);
    cr_expect_eq(a->agrees_with, -1);
    cr_expect_eq(b->agrees_with, 0);
    cr_expect_eq(b->calls_min, -1);
    cr_expect_eq(b->text, -1);
    cr_expect_eq(b->reasoning, -1);
    cr_expect(!b->arguments_valid);
    cr_expect(tw_fixture_has_tag(&f, "replay") && !tw_fixture_has_tag(&f, "live"));
    tw_fixture_free(&f);
    cr_assert_eq(tw_fixture_load(tw_test_src("tests/data/live/round_trip.json"), NULL, &f, &why),
                 TW_OK, "%s", why.message);
    cr_expect_eq(f.exchanges[0].nplaceholders, 0);
    cr_expect_eq(f.exchanges[1].nplaceholders, 1);
    tw_fixture_free(&f);
}

Test(live, placeholder_syntax)
{
    size_t e = 9, c = 9;
    cr_expect(tw_call_id_placeholder("$call_id[0]", &e, &c) && e == 0 && c == 0);
    cr_expect(tw_call_id_placeholder("$call_id[12][3]", &e, &c) && e == 12 && c == 3);
    static const char *const bad[] = {
        "$call_id[]",        "$call_id[x]", "$call_id[1", "$call_id[1]x", "$call_id[1][2][3]",
        "$call_id[1234567]", "call_id[1]",  "$call_id",   "$call_id[-1]", NULL};
    for (const char *const *b = bad; *b; b++)
        cr_expect(!tw_call_id_placeholder(*b, &e, &c), "%s accepted", *b);
}

Test(live, placeholder_substitution)
{
    tw_live_answer ans[2];
    memset(ans, 0, sizeof ans);
    ans[0].decoded = true;
    tw_call calls[2] = {{.id = (char *)"call_a", .name = (char *)"f"},
                        {.id = (char *)"call_b", .name = (char *)"g"}};
    ans[0].res.msg.calls = calls;
    ans[0].res.msg.ncalls = 2;
    snprintf(ans[1].why, sizeof ans[1].why, "HTTP 500: no answer to judge");
    cJSON *body = cJSON_Parse("{\"messages\":[{\"role\":\"tool\",\"tool_call_id\":\"$call_id[0]\"},"
                              "{\"role\":\"tool\",\"tool_call_id\":\"$call_id[0][1]\"},"
                              "{\"x\":[\"$call_id[0][1]\",\"$call_id[0] \",\"keep\"]}]}");
    cr_assert_not_null(body);
    size_t unres = 9;
    tw_error why = {.offset = -1};
    cJSON *out = tw_live_substitute(body, ans, 2, &unres, &why);
    cr_assert_not_null(out);
    cr_expect_eq(unres, 0, "%s", why.message);
    char *s = cJSON_PrintUnformatted(out);
    cr_expect_str_eq(s, "{\"messages\":[{\"role\":\"tool\",\"tool_call_id\":\"call_a\"},"
                        "{\"role\":\"tool\",\"tool_call_id\":\"call_b\"},"
                        "{\"x\":[\"call_b\",\"$call_id[0] \",\"keep\"]}]}");
    free(s);
    cJSON_Delete(out);
    /* the original is left as written */
    cr_expect_str_eq(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(body, "messages"), 0),
                            "tool_call_id")
            ->valuestring,
        "$call_id[0]");
    cJSON_Delete(body);
    /* unresolved: a call that was not made, an exchange without an answer, a later exchange */
    body = cJSON_Parse("[\"$call_id[0][2]\",\"$call_id[1]\",\"$call_id[5]\"]");
    out = tw_live_substitute(body, ans, 2, &unres, &why);
    cr_expect_eq(unres, 3);
    cr_expect(strstr(why.message, "$call_id[0][2]: exchange 0 produced 2 call(s)"), "%s",
              why.message);
    cJSON_Delete(out);
    cJSON_Delete(body);
}

Test(live, expectations_pass)
{
    tw_report rep;
    run_one("pass", &rep);
    static const char *const ids0[] = {"LIV-01", "LIV-02", "LIV-03", "LIV-04", "LIV-05"};
    for (size_t i = 0; i < 5; i++)
        cr_expect_eq(verdict(&rep, 0, ids0[i])->verdict, TW_V_PASS, "%s: %s", ids0[i],
                     verdict(&rep, 0, ids0[i])->evidence);
    cr_expect_eq(verdict(&rep, 1, "LIV-01")->verdict, TW_V_PASS);
    cr_expect_eq(verdict(&rep, 1, "LIV-06")->verdict, TW_V_PASS, "%s",
                 verdict(&rep, 1, "LIV-06")->evidence);
    /* not asked for: no verdict but a skip */
    cr_expect_eq(verdict(&rep, 1, "LIV-02")->verdict, TW_V_SKIP);
    cr_expect_eq(verdict(&rep, 0, "LIV-07")->verdict, TW_V_SKIP);
    cr_expect(rep.ok);
    tw_report_free(&rep);
    run_one("text_reasoning", &rep);
    cr_expect_eq(verdict(&rep, 0, "LIV-02")->verdict, TW_V_PASS);
    cr_expect_eq(verdict(&rep, 0, "LIV-04")->verdict, TW_V_PASS);
    cr_expect_eq(verdict(&rep, 0, "LIV-05")->verdict, TW_V_PASS);
    cr_expect(rep.ok);
    tw_report_free(&rep);
    run_one("anthropic", &rep);
    cr_expect_eq(verdict(&rep, 0, "LIV-01")->verdict, TW_V_PASS);
    cr_expect_eq(verdict(&rep, 0, "LIV-03")->verdict, TW_V_PASS);
    tw_report_free(&rep);
}

/* Each expectation violated by a recorded answer: a failing verdict naming
 * what was expected and what came back, and a mismatch of the run. */
Test(live, expectations_fail)
{
    static const struct {
        const char *stem;
        size_t k;
        const char *id;
        const char *want1, *want2;
    } cases[] = {
        {"fail_tool_called", 0, "LIV-01", "expected a call of get_time", "got get_weather"},
        {"fail_calls", 0, "LIV-02", "expected at least 2 call(s)", "got 1 (get_weather)"},
        {"fail_arguments", 0, "LIV-03", "get_weather's schema", "missing required property 'city'"},
        {"anthropic", 1, "LIV-03", "get_weather's schema", "/city: expected type string"},
        {"fail_text", 0, "LIV-04", "expected text", "got no text"},
        {"fail_reasoning", 0, "LIV-05", "expected reasoning", "got no reasoning"},
        {"fail_agrees_with", 1, "LIV-06", "same calls as exchange 0", "{\"city\":\"Lyon\"}"},
        {"fail_status", 0, "LIV-01", "expected an answer to judge", "HTTP 500"},
        {"fail_placeholder", 1, "LIV-07", "$call_id[0][1]", "exchange 0 produced 1 call(s)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tw_report rep;
        run_one(cases[i].stem, &rep);
        const tw_rep_check *c = verdict(&rep, cases[i].k, cases[i].id);
        cr_expect_eq(c->verdict, TW_V_FAIL, "%s %s: %s", cases[i].stem, cases[i].id, c->evidence);
        cr_expect(strstr(c->evidence, cases[i].want1) && strstr(c->evidence, cases[i].want2),
                  "%s %s: %s", cases[i].stem, cases[i].id, c->evidence);
        cr_expect(!c->match, "%s: an unexpected failure is a mismatch", cases[i].stem);
        cr_expect(!rep.ok, "%s", cases[i].stem);
        tw_report_free(&rep);
    }
    /* listed in failing_checks: expected, the run matches */
    tw_report rep;
    run_one("fail_tool_called_listed", &rep);
    cr_expect_eq(verdict(&rep, 0, "LIV-01")->verdict, TW_V_FAIL);
    cr_expect(rep.ok);
    tw_report_free(&rep);
}

/* The second request carries the id the server produced: the mock's client
 * checks see the tool result answer the assistant's call (CLI-01 fails
 * when the placeholder is sent unreplaced, as fail_placeholder shows). */
Test(live, round_trip_sends_the_server_id)
{
    tw_report rep;
    run_one("round_trip", &rep);
    cr_expect_eq(verdict(&rep, 1, "LIV-07")->verdict, TW_V_PASS, "%s",
                 verdict(&rep, 1, "LIV-07")->evidence);
    cr_expect_eq(verdict(&rep, 1, "CLI-01")->verdict, TW_V_PASS, "%s",
                 verdict(&rep, 1, "CLI-01")->evidence);
    cr_expect_eq(verdict(&rep, 1, "LIV-04")->verdict, TW_V_PASS);
    cr_expect(rep.ok);
    tw_report_free(&rep);
    run_one("fail_placeholder", &rep);
    cr_expect_eq(verdict(&rep, 1, "CLI-01")->verdict, TW_V_FAIL);
    tw_report_free(&rep);
}

/* ---- tags ---- */

static const char *endpoint_of(const char *path)
{
    char k = tw_path_kind(path);
    return k == 'o' ? "openai" : k == 'a' ? "anthropic" : k == 'g' ? "vllm-native" : NULL;
}

/* Every fixture carries exactly one of replay/reference/live, the endpoint
 * of each of its requests, stream when one streams, faults when it has them. */
Test(live, every_fixture_is_tagged)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src("fixtures"), ".json", &files);
    cr_assert_gt(n, 100);
    size_t nlive = 0;
    for (long i = 0; i < n; i++) {
        if (strstr(files[i], "schema.json"))
            continue;
        tw_fixture f;
        tw_error why = {.offset = -1};
        cr_assert_eq(tw_fixture_load(files[i], NULL, &f, &why), TW_OK, "%s", why.message);
        bool resp = false, text = false, stream = false, faults = false;
        for (size_t k = 0; k < f.nexchanges; k++) {
            const tw_fx_exchange *x = &f.exchanges[k];
            resp = resp || x->has_response;
            text = text || x->model_text || x->model_pass1;
            stream = stream || cJSON_IsTrue(tw_json_get(x->req.body, "stream")) ||
                     strstr(x->req.path, ":streamGenerateContent") != NULL; /* Gemini: by URL */
            faults = faults || x->faults;
            const char *ep = endpoint_of(x->req.path);
            if (ep)
                cr_expect(tw_fixture_has_tag(&f, ep), "%s lacks tag %s", files[i], ep);
        }
        const char *kind = resp ? "replay" : text ? "reference" : "live";
        int kinds = tw_fixture_has_tag(&f, "replay") + tw_fixture_has_tag(&f, "reference") +
                    tw_fixture_has_tag(&f, "live");
        cr_expect(kinds == 1 && tw_fixture_has_tag(&f, kind), "%s: expected the one tag %s",
                  files[i], kind);
        cr_expect_eq(tw_fixture_has_tag(&f, "stream"), stream, "%s: stream tag", files[i]);
        cr_expect_eq(tw_fixture_has_tag(&f, "faults"), faults, "%s: faults tag", files[i]);
        nlive += strcmp(kind, "live") == 0;
        tw_fixture_free(&f);
    }
    cr_expect_geq(nlive, 30);
    tw_free_list(files, n);
}

/* The live suites: requests only, every exchange with expectations, a
 * directive with a nonce of its suite in the first user message, the nonce
 * used by no other fixture; calls expected against declared tools. */
Test(live, live_suites_are_well_formed)
{
    static const char *const eps[] = {"openai", "anthropic", "vllm-native"};
    char **nonces = NULL;
    size_t nn = 0;
    for (size_t e = 0; e < 3; e++) {
        char rel[100];
        snprintf(rel, sizeof rel, "fixtures/live/%s", eps[e]);
        char **files = NULL;
        long n = tw_list_files(tw_test_src(rel), ".json", &files);
        cr_assert_geq(n, 11, "%s: %ld fixtures", rel, n);
        for (long i = 0; i < n; i++) {
            tw_fixture f;
            tw_error why = {.offset = -1};
            cr_assert_eq(tw_fixture_load(files[i], NULL, &f, &why), TW_OK, "%s", why.message);
            cr_expect(tw_fixture_has_tag(&f, "live") && tw_fixture_has_tag(&f, eps[e]), "%s",
                      files[i]);
            cr_expect_str_eq(f.backend, eps[e]);
            char first[200] = "";
            for (size_t k = 0; k < f.nexchanges; k++) {
                const tw_fx_exchange *x = &f.exchanges[k];
                cr_expect(!x->has_response && !x->model_text && !x->model_pass1, "%s#%zu", files[i],
                          k);
                cr_expect_not_null(x->live.json, "%s#%zu has no expect.live", files[i], k);
                cr_expect_str_eq(endpoint_of(x->req.path), eps[e]);
                char *body = tw_json_print(x->req.body, NULL);
                const char *d = strstr(body, "toolwire-script {\\\"nonce\\\":\\\"");
                cr_assert_not_null(d, "%s#%zu has no directive", files[i], k);
                char nonce[200];
                cr_assert_eq(
                    sscanf(d + strlen("toolwire-script {\\\"nonce\\\":\\\""), "%199[^\\\"]", nonce),
                    1);
                char prefix[64];
                snprintf(prefix, sizeof prefix, "live-%s-", eps[e]);
                cr_expect(strncmp(nonce, prefix, strlen(prefix)) == 0, "%s: nonce %s", files[i],
                          nonce);
                /* natural-language instructions before the directive */
                cr_expect_gt(d - body, 60, "%s#%zu: no instructions before the directive", files[i],
                             k);
                free(body);
                if (strcmp(first, nonce) == 0)
                    continue; /* a later turn of the same conversation */
                snprintf(first, sizeof first, "%s", nonce);
                for (size_t j = 0; j < nn; j++)
                    cr_expect_str_neq(nonces[j], nonce, "nonce %s used twice", nonce);
                nonces = realloc(nonces, (nn + 1) * sizeof *nonces);
                nonces[nn++] = strdup(nonce);
            }
            tw_fixture_free(&f);
        }
        tw_free_list(files, n);
    }
    for (size_t j = 0; j < nn; j++)
        free(nonces[j]);
    free(nonces);
}

Test(live, selection_by_tags)
{
    char *paths[] = {(char *)tw_test_src("fixtures")};
    tw_error why = {.offset = -1};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    size_t all = fs.n, nlive = 0, nlive_ant = 0, nstream_ant = 0;
    for (size_t i = 0; i < fs.n; i++) {
        bool l = tw_fixture_has_tag(&fs.fx[i], "live"),
             a = tw_fixture_has_tag(&fs.fx[i], "anthropic");
        nlive += l;
        nlive_ant += l && a;
        nstream_ant += l && a && !tw_fixture_has_tag(&fs.fx[i], "stream");
    }
    const char *tags[] = {"live", "anthropic"}, *xtags[] = {"stream"};
    cr_expect(tw_fixture_selected(&fs.fx[0], NULL));
    /* AND of the tags, none of the excluded */
    tw_fixture_selection sel = {.tags = tags, .ntags = 2, .xtags = xtags, .nxtags = 1};
    cr_expect_eq(tw_fixture_set_select(&fs, &sel), nstream_ant);
    for (size_t i = 0; i < fs.n; i++)
        cr_expect(tw_fixture_has_tag(&fs.fx[i], "live") &&
                  tw_fixture_has_tag(&fs.fx[i], "anthropic") &&
                  !tw_fixture_has_tag(&fs.fx[i], "stream"));
    tw_fixture_set_free(&fs);
    cr_expect(nlive_ant > nstream_ant && nstream_ant > 0 && nlive < all);
    /* a run that selects nothing says so and exits 2 */
    tw_backend_spec b = {.name = "m", .profile = "replay"};
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    const char *none[] = {"no-such-tag"};
    o.sel.tags = none;
    o.sel.ntags = 1;
    cr_expect_eq(tw_run_all(&b, 1, paths, 1, "/tmp/toolwire-test-live-none", &o, NULL), 2);
    /* --exclude-tag live on the replay profile: every selected fixture fits or is skipped, none
     * live (nor the client scenarios, whose 429s want retries this run does not make) */
    const char *live[] = {"live", "clients"};
    o.sel.xtags = live;
    o.sel.nxtags = 2;
    const char *ant[] = {"anthropic", "replay"};
    o.sel.tags = ant;
    o.sel.ntags = 2;
    char dir[] = "/tmp/toolwire-test-live-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    cr_expect_eq(tw_run_all(&b, 1, paths, 1, dir, &o, NULL), 0);
    char rp[200];
    snprintf(rp, sizeof rp, "%s/m.json", dir);
    tw_report rep;
    cr_assert_eq(tw_report_load(rp, &rep, &why), TW_OK, "%s", why.message);
    size_t nfx1 = rep.nfx;
    cr_expect_gt(nfx1, 5);
    for (size_t i = 0; i < rep.nfx; i++) {
        cr_expect_str_eq(rep.fx[i].backend, "anthropic", "%s", rep.fx[i].name);
        cr_expect(!rep.fx[i].skipped, "%s", rep.fx[i].name);
    }
    tw_report_free(&rep);
    /* per-backend selection: the backend's own tags */
    tw_backend_spec b2 = {.name = "m",
                          .profile = "replay",
                          .suite = {.tags = ant, .ntags = 2, .xtags = live, .nxtags = 2}};
    memset(&o, 0, sizeof o);
    cr_expect_eq(tw_run_all(&b2, 1, paths, 1, dir, &o, NULL), 0);
    tw_report rep2;
    cr_assert_eq(tw_report_load(rp, &rep2, &why), TW_OK, "%s", why.message);
    cr_expect_eq(rep2.nfx, nfx1);
    tw_report_free(&rep2);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

Test(live, tag_options)
{
    const char *list[TW_FIXTURE_MAX_TAGS];
    size_t n = 0;
    tw_error why = {.offset = -1};
    cr_expect(tw_tag_option_add(list, &n, "--tag", "live", &why));
    cr_expect(!tw_tag_option_add(list, &n, "--tag", "Live", &why));
    cr_expect(strstr(why.message, "--tag wants a tag"), "%s", why.message);
    cr_expect(!tw_tag_option_add(list, &n, "--tag", "", &why));
    while (n < TW_FIXTURE_MAX_TAGS)
        cr_assert(tw_tag_option_add(list, &n, "--tag", "x", &why));
    cr_expect(!tw_tag_option_add(list, &n, "--exclude-tag", "y", &why));
    cr_expect(strstr(why.message, "at most 32 values of --exclude-tag"), "%s", why.message);
}

/* The live suites against the embedded script reference server: zero
 * mismatches; a warn check that fails on a live exchange (the reference
 * server's thinking blocks carry no signature: ANT-S03) is reported with no
 * expectation, while the expectations themselves pass. */
Test(live, suites_against_the_script_server)
{
    static const char *const eps[] = {"openai", "anthropic", "vllm-native"};
    for (size_t e = 0; e < 3; e++) {
        char rel[100], path[1024];
        tw_error why = {.offset = -1};
        snprintf(rel, sizeof rel, "fixtures/live/%s", eps[e]);
        snprintf(path, sizeof path, "%s", tw_test_src(rel));
        char *paths[] = {path};
        tw_fixture_set fs;
        cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
        tw_backend_spec b = {.name = "ref", .profile = "script"};
        tw_run_opts o;
        memset(&o, 0, sizeof o);
        tw_report rep;
        cr_assert_eq(tw_run_backend(&fs, &b, &o, &rep, &why), TW_OK, "%s", why.message);
        cr_expect(rep.ok, "%s: %zu mismatches", eps[e], rep.n_mismatch);
        cr_expect_eq(rep.n_skipped, 0);
        size_t liv_pass = 0, ant_s03 = 0;
        for (size_t f = 0; f < rep.nfx; f++)
            for (size_t k = 0; k < rep.fx[f].nex; k++)
                for (size_t c = 0; c < rep.fx[f].ex[k].nchecks; c++) {
                    const tw_rep_check *ck = &rep.fx[f].ex[k].checks[c];
                    liv_pass += strncmp(ck->id, "LIV-", 4) == 0 && ck->verdict == TW_V_PASS;
                    /* the reference server signs its thinking blocks */
                    if (strcmp(ck->id, "ANT-S03") == 0 && ck->verdict == TW_V_PASS)
                        ant_s03++;
                }
        cr_expect_gt(liv_pass, 2 * fs.n, "%s: %zu LIV passes", eps[e], liv_pass);
        if (strcmp(eps[e], "anthropic") == 0)
            cr_expect_gt(ant_s03, 0);
        tw_report_free(&rep);
        tw_fixture_set_free(&fs);
    }
}
