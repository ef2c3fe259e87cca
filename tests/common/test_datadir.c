/* Where the program finds its data outside a checkout (harness/common/datadir.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"
#include "decode_fixtures.h"

static char base[64];

static void touch(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    FILE *f = fopen(p, "w");
    cr_assert(f, "%s", p);
    fputs("{}", f);
    fclose(f);
}

static void dir(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    cr_assert_eq(mkdir(p, 0777), 0, "%s", p);
}

/* base/data (a data root, installed layout), base/here (the current directory) */
static void setup(void)
{
    snprintf(base, sizeof base, "/tmp/tw-datadir-XXXXXX");
    cr_assert(mkdtemp(base));
    dir("data");
    dir("data/fixtures");
    dir("data/fixtures/openai");
    touch("data/fixtures/openai/a.json");
    dir("data/decode");
    dir("data/decode/hermes");
    touch("data/decode/hermes/d.json");
    dir("here");
    char p[512];
    snprintf(p, sizeof p, "%s/here", base);
    cr_assert_eq(chdir(p), 0);
    unsetenv(TW_DATA_ENV);
}

static void teardown(void)
{
    char cmd[600];
    cr_assert_eq(chdir("/"), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(datadir, .init = setup, .fini = teardown);

Test(datadir, env_root_serves_fixtures_and_decode_outside_a_checkout)
{
    char root[512], got[8400], want[600];
    snprintf(root, sizeof root, "%s/data", base);
    setenv(TW_DATA_ENV, root, 1);
    cr_assert(tw_data_resolve("fixtures", got, sizeof got));
    snprintf(want, sizeof want, "%s/fixtures", root);
    cr_assert_str_eq(got, want);
    cr_assert(tw_data_resolve("./fixtures/openai/a.json", got, sizeof got));
    snprintf(want, sizeof want, "%s/fixtures/openai/a.json", root);
    cr_assert_str_eq(got, want);
    /* the checkout's decode path maps onto the installed decode/ */
    cr_assert(tw_data_resolve("tests/data/decode/hermes", got, sizeof got));
    snprintf(want, sizeof want, "%s/decode/hermes", root);
    cr_assert_str_eq(got, want);
    /* the listing the commands use goes through it */
    char **files = NULL;
    long n = tw_list_files("fixtures", ".json", &files);
    cr_assert_eq(n, 1);
    cr_assert(strstr(files[0], "/data/fixtures/openai/a.json"), "%s", files[0]);
    tw_free_list(files, n);
}

Test(datadir, env_root_comes_before_the_current_directory)
{
    char root[512], got[8400], want[600];
    snprintf(root, sizeof root, "%s/data", base);
    dir("here/fixtures");
    dir("here/fixtures/mine");
    cr_assert(tw_data_resolve("fixtures/mine", got, sizeof got));
    cr_assert_str_eq(got, "fixtures/mine", "a checkout: the path as given");
    setenv(TW_DATA_ENV, root, 1);
    cr_assert(tw_data_resolve("fixtures", got, sizeof got));
    snprintf(want, sizeof want, "%s/fixtures", root);
    cr_assert_str_eq(got, want, "TOOLWIRE_DATA overrides ./fixtures");
    /* what TOOLWIRE_DATA does not hold is still found in the current directory */
    cr_assert(tw_data_resolve("fixtures/mine", got, sizeof got));
    cr_assert_str_eq(got, "fixtures/mine");
}

Test(datadir, other_paths_are_used_as_given)
{
    char root[512], got[8400];
    snprintf(root, sizeof root, "%s/data", base);
    setenv(TW_DATA_ENV, root, 1);
    cr_assert_not(tw_data_resolve("/nowhere/fixtures", got, sizeof got));
    cr_assert_str_eq(got, "/nowhere/fixtures");
    cr_assert_not(tw_data_resolve("openai", got, sizeof got));
    cr_assert_str_eq(got, "openai");
    cr_assert_not(tw_data_resolve("fixturesx/openai", got, sizeof got));
    cr_assert_not(tw_data_resolve("fixtures/none", got, sizeof got));
    cr_assert_str_eq(got, "fixtures/none", "not found: the path the user gave");
}

Test(datadir, roots_in_order)
{
    char roots[TW_DATA_MAX_ROOTS][TW_DATA_PATH_MAX];
    setenv(TW_DATA_ENV, "/x", 1);
    size_t n = tw_data_roots(roots, TW_DATA_MAX_ROOTS);
    cr_assert_eq(n, 4);
    cr_assert_str_eq(roots[0], "/x");
    cr_assert_str_eq(roots[1], ".");
    cr_assert(strstr(roots[2], "share/toolwire"), "%s", roots[2]);
    cr_assert(strstr(roots[3], "/share/toolwire"), "%s", roots[3]);
    unsetenv(TW_DATA_ENV);
    cr_assert_eq(tw_data_roots(roots, TW_DATA_MAX_ROOTS), 3);
    cr_assert_str_eq(roots[0], ".");
}
