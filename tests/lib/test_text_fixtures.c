/* Every decode fixture of tests/data/decode: batch and chunk sizes 1, 2, 3,
 * 7, 64 and whole must all give the fixture's expected neutral result. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "cases.h"
#include "decode_fixtures.h"
#include "twtest.h"

Test(text_fixtures, think)
{
    tw_test_decode_dir("tests/data/decode/think", 20);
}
Test(text_fixtures, hermes)
{
    tw_test_decode_dir("tests/data/decode/hermes", 40);
}
Test(text_fixtures, fenced)
{
    tw_test_decode_dir("tests/data/decode/fenced", 10);
}
