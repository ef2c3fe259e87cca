/* hermes-prompt against every Qwen3 rendering in tests/data/qwen3,
 * qwen3-coder-prompt and qwen3.5-prompt against every rendering in
 * tests/data/qwen3-coder and tests/data/qwen3.5 (byte for byte, and the
 * template's refusals), hermes-system against tests/data/vllm/hermes-system,
 * and the Python-style JSON writer. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cases.h"
#include "decode_fixtures.h"
#include "toolwire/hermes_encode.h"
#include "toolwire/qwen_encode.h"
#include "toolwire/transcode.h"
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

/* Encode the fixture's "request" with `enc` and options `o` (NULL: the
 * defaults) into *st; returns a malloc'd output. */
static char *encode_with(const char *enc, const cJSON *fx, const char *path,
                         const tw_encode_opts *o, tw_status *st, size_t *len)
{
    tw_request r;
    tw_error why_e = {0};
    cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &r, &why_e), TW_OK, "%s: %s",
                 path, why_e.message);
    const tw_encoder_ops *e = tw_encoder_find(enc);
    cr_assert_not_null(e);
    tw_buf out = {0};
    *st = e->encode_request(&r, o, &out);
    tw_request_free(&r);
    return tw_buf_take(&out, len);
}

static char *encode(const char *enc, const cJSON *fx, const char *path, size_t *len)
{
    tw_status st;
    char *got = encode_with(enc, fx, path, NULL, &st, len);
    cr_assert_eq(st, TW_OK, "%s: encode failed: %s", path, tw_code_name(st));
    return got;
}

/* A fixture holding "error" (the template raises): the encoder refuses it
 * with TW_ERR_INVALID, writes nothing and names the template's message in a
 * warning. Returns whether it did. */
static bool refused_as_template(const char *enc, const cJSON *fx, const char *path,
                                const char *error)
{
    tw_diag_list w = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = &w;
    tw_status st;
    size_t len = 0;
    char *got = encode_with(enc, fx, path, &o, &st, &len);
    bool named = false;
    for (size_t i = 0; i < w.len; i++)
        named |= strstr(w.items[i].message, error) != NULL;
    bool ok = st == TW_ERR_INVALID && len == 0 && named;
    if (!ok)
        cr_log_error("%s: status %s, %zu bytes, message %s", path, tw_code_name(st), len,
                     named ? "named" : "not named");
    free(got);
    tw_diag_list_free(&w);
    return ok;
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
        const char *error = tw_json_get_str(fx, "error");
        if (error) {
            failed += !refused_as_template(enc, fx, files[i], error);
            cJSON_Delete(fx);
            continue;
        }
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
    cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &r, &why_e), TW_OK, "%s",
                 why_e.message);
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

Test(qwen_xml_prompt, qwen3_coder_byte_exact)
{
    long n = 0;
    long failed = check_dir("tests/data/qwen3-coder", "qwen3-coder-prompt", true, &n, NULL, 0);
    cr_expect_geq(n, 20, "expected the 20 Qwen3-Coder fixtures, found %ld", n);
    cr_expect_eq(failed, 0, "%ld of %ld Qwen3-Coder renderings differ", failed, n);
}

Test(qwen_xml_prompt, qwen35_byte_exact)
{
    long n = 0;
    long failed = check_dir("tests/data/qwen3.5", "qwen3.5-prompt", true, &n, NULL, 0);
    cr_expect_geq(n, 20, "expected the 20 Qwen3.5 fixtures, found %ld", n);
    cr_expect_eq(failed, 0, "%ld of %ld Qwen3.5 renderings differ", failed, n);
}

/* Encode one fixture with warnings; the output must be the rendering. */
static tw_diag_list *encode_warned(const char *enc, const char *file)
{
    cJSON *fx = load(tw_test_src(file), true);
    tw_diag_list *w = calloc(1, sizeof *w);
    cr_assert_not_null(w);
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = w;
    tw_status st;
    char *got = encode_with(enc, fx, file, &o, &st, NULL);
    cr_assert_eq(st, TW_OK, "%s: %s", file, tw_code_name(st));
    cr_assert_str_eq(got, tw_json_get_str(fx, "expected"));
    free(got);
    cJSON_Delete(fx);
    return w;
}

static size_t count_warnings(const tw_diag_list *w, tw_status code, const char *part)
{
    size_t k = 0;
    for (size_t i = 0; i < w->len; i++)
        k += w->items[i].code == code && strstr(w->items[i].message, part) != NULL;
    return k;
}

static void free_warned(tw_diag_list *w)
{
    tw_diag_list_free(w);
    free(w);
}

/* str() of 1e400 is inf in a parameter value, Infinity inside tojson and
 * in the tool's schema: every one is named as changed. */
Test(qwen_xml_prompt, number_beyond_double_warns)
{
    tw_diag_list *w =
        encode_warned("qwen3-coder-prompt", "tests/data/qwen3-coder/13_number_beyond_double.json");
    cr_expect_eq(count_warnings(w, TW_D_NUMBER_INEXACT, "number"), 5,
                 "three arguments, one array item, the tool's maximum");
    cr_expect_eq(
        count_warnings(w, TW_D_NUMBER_INEXACT, "number 1e400 becomes the Python float inf"), 2,
        "the argument and the tool's maximum");
    cr_expect_eq(
        count_warnings(w, TW_D_NUMBER_INEXACT,
                       "tool record parameters: number 1e400 becomes the Python float inf"),
        1);
    cr_expect_eq(
        count_warnings(w, TW_D_NUMBER_INEXACT, "number 1e400 becomes the Python float Infinity"),
        1);
    free_warned(w);
}

/* What each template drops is said: Qwen3-Coder drops all reasoning and has
 * no thinking switch; Qwen3.5 drops reasoning before the last query only. */
Test(qwen_xml_prompt, losses_named)
{
    const char *file = "tests/data/qwen3-coder/10_reasoning_before_and_after_last_query.json";
    tw_diag_list *w = encode_warned("qwen3-coder-prompt", file);
    cr_expect_eq(count_warnings(w, TW_D_NOT_CARRIED, "qwen3-coder-prompt: thinking of assistant"),
                 1);
    cr_expect_eq(count_warnings(w, TW_D_NOT_CARRIED, "tool_call_id not carried"), 1);
    free_warned(w);
    w = encode_warned("qwen3-coder-prompt", "tests/data/qwen3-coder/14_enable_thinking_false.json");
    cr_expect_eq(count_warnings(w, TW_D_NOT_CARRIED, "options.enable_thinking not carried"), 1);
    free_warned(w);
    w = encode_warned("qwen3.5-prompt", "tests/data/qwen3.5/14_enable_thinking_false.json");
    cr_expect_eq(count_warnings(w, TW_D_NOT_CARRIED, "options."), 0);
    free_warned(w);
    w = encode_warned("qwen3.5-prompt", "tests/data/qwen3.5/17_user_tool_response_not_query.json");
    cr_expect_eq(count_warnings(w, TW_D_NOT_CARRIED, "thinking of assistant"), 0,
                 "the reasoning after the last query is rendered");
    free_warned(w);
    w = encode_warned("qwen3.5-prompt", "tests/data/qwen3.5/09_multi_turn_loop.json");
    cr_expect_eq(count_warnings(w, TW_D_NOT_CARRIED, "qwen3.5-prompt: thinking of assistant"), 1);
    free_warned(w);
}

Test(qwen_xml_prompt, no_messages_is_invalid)
{
    tw_request r;
    memset(&r, 0, sizeof r);
    tw_buf out = {0};
    cr_expect_eq(tw_qwen3_coder_prompt_encode(&r, NULL, &out), TW_ERR_INVALID);
    cr_expect_eq(tw_qwen35_prompt_encode(&r, NULL, &out), TW_ERR_INVALID);
    cr_expect_eq(tw_qwen35_prompt_encode(NULL, NULL, &out), TW_ERR_INVALID);
    cr_expect_eq(out.len, 0);
    tw_buf_free(&out);
}

/* Past max_output_bytes or max_depth: TW_ERR_LIMIT, the buffer as it was. */
Test(qwen_xml_prompt, caps)
{
    static const char *const enc[] = {"qwen3-coder-prompt", "qwen3.5-prompt"};
    static const char *const file[] = {"tests/data/qwen3-coder/12_argument_values.json",
                                       "tests/data/qwen3.5/12_argument_values.json"};
    for (size_t k = 0; k < 2; k++) {
        cJSON *fx = load(tw_test_src(file[k]), true);
        size_t full = strlen(tw_json_get_str(fx, "expected"));
        tw_encode_opts o;
        memset(&o, 0, sizeof o);
        tw_status st;
        size_t len = 0;
        o.limits.max_output_bytes = full - 1;
        char *got = encode_with(enc[k], fx, file[k], &o, &st, &len);
        cr_expect_eq(st, TW_ERR_LIMIT, "%s: one byte short", enc[k]);
        cr_expect_eq(len, 0, "output untouched on failure");
        free(got);
        o.limits.max_output_bytes = full;
        got = encode_with(enc[k], fx, file[k], &o, &st, &len);
        cr_expect_eq(st, TW_OK, "%s: exactly the cap", enc[k]);
        cr_expect_eq(len, full);
        free(got);
        o.limits.max_output_bytes = 0;
        o.limits.max_depth = 1; /* "weights" holds an array in an array */
        got = encode_with(enc[k], fx, file[k], &o, &st, &len);
        cr_expect_eq(st, TW_ERR_LIMIT, "%s: nesting past max_depth", enc[k]);
        cr_expect_eq(len, 0);
        free(got);
        cJSON_Delete(fx);
    }
}

/* convert --from openai-request --to each XML prompt: the OpenAI body of a
 * fixture's request converts to the template's rendering, less the
 * generation prompt (an OpenAI body carries no add_generation_prompt). */
Test(qwen_xml_prompt, convert_from_openai_request)
{
    static const char *const enc[] = {"qwen3-coder-prompt", "qwen3.5-prompt"};
    static const char *const file[] = {
        "tests/data/qwen3-coder/08_parallel_calls_grouped_results.json",
        "tests/data/qwen3.5/08_parallel_calls_grouped_results.json"};
    static const char *const gen[] = {"<|im_start|>assistant\n",
                                      "<|im_start|>assistant\n<think>\n"};
    for (size_t k = 0; k < 2; k++) {
        cJSON *fx = load(tw_test_src(file[k]), true);
        tw_status st;
        size_t n = 0;
        char *body = encode_with("openai-request", fx, file[k], NULL, &st, &n);
        cr_assert_eq(st, TW_OK);
        tw_buf out = {0};
        tw_error why;
        tw_error_clear(&why);
        cr_assert_eq(tw_transcode("openai-request", enc[k], body, n, NULL, &out, &why), TW_OK,
                     "%s: %s", enc[k], why.message);
        const char *want = tw_json_get_str(fx, "expected");
        size_t wn = strlen(want), gn = strlen(gen[k]);
        cr_assert(wn > gn && strcmp(want + wn - gn, gen[k]) == 0, "%s: generation prompt", enc[k]);
        cr_expect_eq(out.len, wn - gn, "%s: %zu bytes, want %zu", enc[k], out.len, wn - gn);
        cr_expect(memcmp(out.data, want, wn - gn < out.len ? wn - gn : out.len) == 0,
                  "%s: differs at byte %zu", enc[k], first_diff(out.data, out.len, want, wn - gn));
        tw_buf_free(&out);
        free(body);
        cJSON_Delete(fx);
    }
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
    cr_expect_str_eq(b.data,
                     "If you call a tool, it MUST be `get_weather`; otherwise reply normally.");
    tw_buf_reset(&b);
    tw_hermes_policy_write(&b, TW_CHOICE_NONE, NULL);
    cr_expect_str_eq(b.data, "Do not call any tools; reply normally.");
    tw_buf_reset(&b);
    tw_hermes_policy_write(&b, TW_CHOICE_AUTO, NULL);
    cr_expect_eq(b.len, 0);
    tw_buf_free(&b);
}
