/* hermes-prompt against every Qwen3 rendering in tests/data/qwen3 (byte for
 * byte), hermes-system against tests/data/vllm/hermes-system, and the
 * Python-style JSON writer. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cases.h"
#include "decode_fixtures.h"
#include "toolwire/hermes_encode.h"
#include "twtest.h"

/* Forget every number's spelling: what a plain cJSON tree holds. */
static void drop_spellings(cJSON *v)
{
    for (; v; v = v->next) {
        if (cJSON_IsNumber(v) && v->valuestring) {
            cJSON_free(v->valuestring);
            v->valuestring = NULL;
        }
        drop_spellings(v->child);
    }
}

/* Load a fixture file; spellings kept (as tw_json_parse does) or dropped.
 * Returns the parsed tree. */
static cJSON *load(const char *path, bool spellings)
{
    size_t len;
    cJSON *j;
    char *copy = tw_test_load_exact(path, &len, &j);
    if (spellings)
        cr_assert_eq(tw_json_keep_spellings(copy, len, j, 256), TW_OK, "%s: spellings", path);
    else
        drop_spellings(j);
    free(copy);
    return j;
}

/* Encode the fixture's "request" with `enc`; returns a malloc'd output. */
static char *encode(const char *enc, const cJSON *fx, const char *path, size_t *len)
{
    tw_request r;
    tw_error why_e = {0};
    cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &r, &why_e), TW_OK,
                 "%s: %s", path, why_e.message);
    const tw_encoder_ops *e = tw_encoder_find(enc);
    cr_assert_not_null(e);
    tw_buf out = {0};
    tw_status st = e->encode_request(&r, NULL, &out);
    tw_request_free(&r);
    cr_assert_eq(st, TW_OK, "%s: encode failed: %s", path, tw_code_name(st));
    return tw_buf_take(&out, len);
}

/* Index of the first differing byte, for a readable failure. */
static size_t first_diff(const char *a, size_t an, const char *b, size_t bn)
{
    size_t i = 0;
    while (i < an && i < bn && a[i] == b[i])
        i++;
    return i;
}

static long check_dir(const char *dir, const char *enc, bool spellings, long *nfiles,
                      char *failed_names, size_t fnlen)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(dir), ".json", &files);
    cr_assert_geq(n, 1, "no fixtures in %s", dir);
    long failed = 0;
    for (long i = 0; i < n; i++) {
        cJSON *fx = load(files[i], spellings);
        const char *want = tw_json_get_str(fx, "expected");
        cr_assert_not_null(want, "%s: no 'expected'", files[i]);
        size_t len = 0;
        char *got = encode(enc, fx, files[i], &len);
        size_t wn = strlen(want);
        if (len != wn || memcmp(got, want, wn) != 0) {
            size_t d = first_diff(got, len, want, wn);
            size_t from = d > 40 ? d - 40 : 0;
            if (!failed_names)
                cr_log_error("%s: differs at byte %zu:\n got: %.80s\nwant: %.80s", files[i], d,
                             got + from, want + from);
            else {
                const char *base = strrchr(files[i], '/');
                size_t used = strlen(failed_names);
                snprintf(failed_names + used, fnlen - used, "%s ", base ? base + 1 : files[i]);
            }
            failed++;
        }
        free(got);
        cJSON_Delete(fx);
    }
    tw_free_list(files, n);
    *nfiles = n;
    return failed;
}

Test(hermes_prompt, qwen3_byte_exact)
{
    long n = 0;
    long failed = check_dir("tests/data/qwen3", "hermes-prompt", true, &n, NULL, 0);
    cr_expect_geq(n, 24, "expected the 24 Qwen3 fixtures, found %ld", n);
    cr_expect_eq(failed, 0, "%ld of %ld Qwen3 renderings differ", failed, n);
}

/* Without kept spellings, cJSON's doubles cannot tell 2.0 from 2: exactly
 * the number fixtures differ, every other one still matches. */
Test(hermes_prompt, without_spellings_only_number_forms_differs)
{
    long n = 0;
    char names[2048] = "";
    long failed = check_dir("tests/data/qwen3", "hermes-prompt", false, &n, names, sizeof names);
    cr_expect_eq(failed, 3, "differing: %s", names);
    cr_expect(strstr(names, "number_forms") != NULL, "differing: %s", names);
    cr_expect(strstr(names, "number_spellings") != NULL, "differing: %s", names);
    cr_expect(strstr(names, "number_beyond_double") != NULL, "differing: %s", names);
}

/* The renderings that change a value say so, naming the number. */
Test(hermes_prompt, number_beyond_double_warns)
{
    cJSON *fx = load(tw_test_src("tests/data/qwen3/26_number_beyond_double.json"), true);
    tw_request r;
    tw_error why_e = {0};
    cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &r, &why_e), TW_OK, "%s", why_e.message);
    tw_diag_list w = {0};
    tw_encode_opts o = {0};
    o.warnings = &w;
    tw_buf out = {0};
    cr_assert_eq(tw_hermes_prompt_encode(&r, &o, &out), TW_OK);
    cr_assert_str_eq(out.data, tw_json_get_str(fx, "expected"));
    static const char *const named[] = {"number 1e400 ", "number -1e400 ", "number 1e-400 ",
                                        "number 0.10000000000000000001 "};
    size_t inexact = 0;
    for (size_t i = 0; i < w.len; i++)
        inexact += w.items[i].code == TW_D_NUMBER_INEXACT;
    cr_assert_eq(inexact, 5, "four arguments and the tool's maximum");
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        bool found = false;
        for (size_t i = 0; i < w.len; i++)
            found |= w.items[i].code == TW_D_NUMBER_INEXACT && strstr(w.items[i].message, named[k]);
        cr_assert(found, "%s", named[k]);
    }
    tw_buf_free(&out);
    tw_diag_list_free(&w);
    tw_request_free(&r);
    cJSON_Delete(fx);
}

Test(hermes_system, fixtures)
{
    long n = 0;
    long failed = check_dir("tests/data/vllm/hermes-system", "hermes-system", true, &n, NULL, 0);
    cr_expect_geq(n, 5);
    cr_expect_eq(failed, 0, "%ld of %ld hermes-system outputs differ", failed, n);
}

static char *py(const char *json)
{
    cJSON *j = NULL;
    tw_error e;
    size_t n = strlen(json);
    char *copy = tw_test_exact(json, n);
    cr_assert_eq(tw_json_parse(copy, n, 64, &j, &e), TW_OK);
    cr_assert_eq(tw_json_keep_spellings(copy, n, j, 64), TW_OK);
    free(copy);
    tw_buf b = {0};
    cr_assert_eq(tw_json_write_py(&b, j, 64), TW_OK);
    cJSON_Delete(j);
    return tw_buf_take(&b, NULL);
}

Test(hermes_prompt, python_number_repr)
{
    struct {
        const char *in, *want;
    } cases[] = {
        {"[2.0, 2, -0, -0.0, 1e5, 1E5, 1e16, 1e15, 1e-4, 1e-5, 0.1, 1.5e300]",
         "[2.0, 2, 0, -0.0, 100000.0, 100000.0, 1e+16, 1000000000000000.0, 0.0001, 1e-05, 0.1, "
         "1.5e+300]"},
        {"[12345678901234567890, -9223372036854775809, 123.000, 2.50, 1e22, 5e-324]",
         "[12345678901234567890, -9223372036854775809, 123.0, 2.5, 1e+22, 5e-324]"},
        {"{\"a\":{},\"b\":[],\"c\":\"\\u0001\\u007f/é\",\"d\":[true,false,null]}",
         "{\"a\": {}, \"b\": [], \"c\": \"\\u0001\x7f/é\", \"d\": [true, false, null]}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = py(cases[i].in);
        cr_expect_str_eq(got, cases[i].want);
        free(got);
    }
}

Test(hermes_prompt, no_messages_is_invalid)
{
    tw_request r;
    memset(&r, 0, sizeof r);
    tw_buf out = {0};
    cr_expect_eq(tw_hermes_prompt_encode(&r, NULL, &out), TW_ERR_INVALID);
    cr_expect_eq(out.len, 0);
    tw_buf_free(&out);
}

Test(hermes_prompt, output_cap)
{
    cJSON *fx = load(tw_test_src("tests/data/qwen3/05_several_tools_nested_unicode.json"), true);
    tw_request r;
    cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &r, NULL), TW_OK);
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.limits.max_output_bytes = 100;
    tw_buf out = {0};
    cr_expect_eq(tw_hermes_prompt_encode(&r, &o, &out), TW_ERR_LIMIT);
    cr_expect_eq(out.len, 0, "output untouched on failure");
    tw_buf_free(&out);
    tw_request_free(&r);
    cJSON_Delete(fx);
}

Test(hermes_system, policy_sentences)
{
    tw_buf b = {0};
    tw_hermes_policy_write(&b, TW_CHOICE_NAMED, "get_weather");
    cr_expect_str_eq(b.data, "If you call a tool, it MUST be `get_weather`; otherwise reply normally.");
    tw_buf_reset(&b);
    tw_hermes_policy_write(&b, TW_CHOICE_NONE, NULL);
    cr_expect_str_eq(b.data, "Do not call any tools; reply normally.");
    tw_buf_reset(&b);
    tw_hermes_policy_write(&b, TW_CHOICE_AUTO, NULL);
    cr_expect_eq(b.len, 0);
    tw_buf_free(&b);
}
