#include "import_run.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "redact.h"
#include "run.h"

char *tw_test_import_one(tw_import_kind kind, const char *src, char *dir, bool expect,
                         size_t want_nx)
{
    cr_assert_not_null(mkdtemp(dir));
    tw_import_opts o = {kind, dir, "", NULL, expect};
    tw_redactor red = {0};
    char *written = NULL;
    tw_error why = {.offset = -1};
    size_t nx = 0;
    tw_status st = tw_import_file(src, &o, &red, &written, &nx, &why);
    tw_redactor_free(&red);
    cr_assert_eq(st, TW_OK, "%s", why.message);
    cr_assert_eq(nx, want_nx);
    return written;
}

void tw_test_import_cleanup(char *written, const char *dir)
{
    unlink(written);
    rmdir(dir);
    free(written);
}

void tw_test_run_fixture(const char *path, const char *profile, bool drop_responses, tw_report *rep)
{
    tw_error why = {.offset = -1};
    char *paths[] = {(char *)path};
    tw_fixture_set fs;
    cr_assert(tw_fixture_set_load(&fs, paths, 1, NULL, &why), "%s", why.message);
    cr_assert_eq(fs.n, 1, "%s", fs.nbad ? fs.bad_why[0] : "");
    if (drop_responses)
        for (size_t k = 0; k < fs.fx[0].nexchanges; k++)
            fs.fx[0].exchanges[k].has_response = false;
    tw_backend_spec b = {.name = profile, .profile = profile};
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    o.client.connect_timeout_ms = 5000;
    o.client.total_timeout_ms = 20000;
    cr_assert_eq(tw_run_backend(&fs, &b, &o, rep, &why), TW_OK, "%s", why.message);
    tw_fixture_set_free(&fs);
    cr_assert_eq(rep->nfx, 1);
    cr_assert(!rep->fx[0].skipped, "skipped: %s", rep->fx[0].note ? rep->fx[0].note : "");
}

void tw_test_replay_clean(const char *path, size_t want_nex, tw_report *rep)
{
    tw_test_run_fixture(path, "replay", false, rep);
    cr_assert_eq(rep->fx[0].nex, want_nex);
    cr_expect_eq(rep->n_mismatch, 0, "%zu mismatches", rep->n_mismatch);
}

tw_verdict tw_test_verdict(const tw_report *rep, size_t k, const char *id, const char **ev)
{
    const tw_rep_exchange *e = &rep->fx[0].ex[k];
    for (size_t c = 0; c < e->nchecks; c++)
        if (strcmp(e->checks[c].id, id) == 0) {
            if (ev)
                *ev = e->checks[c].evidence ? e->checks[c].evidence : "";
            return e->checks[c].verdict;
        }
    cr_assert_fail("%s has no verdict in exchange %zu", id, k);
    return TW_V_SKIP;
}

void tw_test_expect_verdicts(const tw_report *rep, size_t k, const char *const *ids, tw_verdict v)
{
    for (size_t i = 0; ids[i]; i++) {
        const char *ev = "";
        tw_verdict got = tw_test_verdict(rep, k, ids[i], &ev);
        cr_expect_eq(got, v, "exchange %zu %s: %s (%s)", k, ids[i], tw_verdict_name(got), ev);
    }
}
