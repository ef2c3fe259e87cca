/* Every decode fixture of tests/data/decode: batch and chunk sizes 1, 2, 3,
 * 7, 64 and whole must all give the fixture's expected neutral result. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "textfix.h"
#include "twtest.h"

static void check_dir(const char *sub, long min_files)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(sub), ".json", &files);
    cr_assert_geq(n, min_files, "%s: expected at least %ld fixtures, found %ld", sub, min_files, n);
    long failed = 0;
    for (long i = 0; i < n; i++) {
        char detail[1024] = "";
        int rc = tw_decode_fixture_check(files[i], detail, sizeof detail);
        if (rc != TW_FIX_PASS) {
            failed++;
            cr_log_error("%s", detail);
        }
    }
    tw_free_list(files, n);
    cr_expect_eq(failed, 0, "%ld of %ld fixtures in %s failed", failed, n, sub);
}

Test(text_fixtures, think) { check_dir("tests/data/decode/think", 20); }
Test(text_fixtures, hermes) { check_dir("tests/data/decode/hermes", 40); }
Test(text_fixtures, fenced) { check_dir("tests/data/decode/fenced", 10); }
