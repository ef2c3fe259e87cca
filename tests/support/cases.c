/* Fixture and case runs shared by the decoder and encoder suites (see cases.h). */
#include "cases.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decode_fixtures.h"
#include "toolwire/decode.h"
#include "toolwire/encode.h"
#include "twtest.h"

static bool opt_bool(const cJSON *o, const char *k)
{
    return cJSON_IsTrue(tw_json_get(o, k));
}

static size_t opt_size(const cJSON *o, const char *k)
{
    const cJSON *v = tw_json_get(o, k);
    return cJSON_IsNumber(v) ? (size_t)v->valuedouble : 0;
}

static char *slurp(const char *path, size_t *len)
{
    tw_error why_e = {0};
    return tw_read_file(path, (size_t)64 << 20, len, &why_e);
}

static bool spill(const char *path, const char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* Returns NULL when the case passes, else a malloc'd reason. */
static char *run_case(const char *path)
{
    tw_error why_e = {0};
    char *fail = calloc(1, 1024);
    cJSON *c = tw_load_json_file(path, (size_t)16 << 20, 256, &why_e);
    if (!c) {
        snprintf(fail, 1024, "%s: %s", path, why_e.message);
        return fail;
    }
    const char *fmt = tw_json_get_str(c, "format");
    const tw_encoder_ops *e = fmt ? tw_encoder_find(fmt) : NULL;
    const cJSON *oj = tw_json_get(c, "options");
    const char *status = tw_json_get_str(c, "status");
    tw_diag_list warns = {0};
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = &warns;
    o.parallel_tool_calls = -1;
    o.model = tw_json_get_str(oj, "model");
    o.id = tw_json_get_str(oj, "id");
    o.created = (long long)opt_size(oj, "created");
    o.args_fragment = opt_size(oj, "args_fragment");
    o.text_fragment = opt_size(oj, "text_fragment");
    o.include_usage = opt_bool(oj, "include_usage");
    o.omit_done = opt_bool(oj, "omit_done");
    o.limits.max_output_bytes = opt_size(oj, "max_output_bytes");
    const cJSON *ptc = tw_json_get(oj, "parallel_tool_calls");
    if (cJSON_IsBool(ptc))
        o.parallel_tool_calls = cJSON_IsTrue(ptc) ? 1 : 0;
    tw_buf out = {0};
    tw_status st = TW_ERR_INVALID;
    if (!e) {
        snprintf(fail, 1024, "%s: unknown format", path);
        goto done;
    }
    if (e->input == TW_ENC_REQUEST) {
        tw_request r;
        if (tw_request_read(tw_json_get(c, "input"), NULL, &r, &why_e) != TW_OK) {
            snprintf(fail, 1024, "%s: bad input: %s", path, why_e.message);
            goto done;
        }
        st = e->encode_request(&r, &o, &out);
        tw_request_free(&r);
    } else {
        tw_result r;
        if (tw_result_read(tw_json_get(c, "input"), NULL, &r, &why_e) != TW_OK) {
            snprintf(fail, 1024, "%s: bad input: %s", path, why_e.message);
            goto done;
        }
        st = e->encode_result(&r, &o, &out);
        tw_result_free(&r);
    }
    const char *want_status = status ? status : "ok";
    if (strcmp(tw_code_name(st), want_status) != 0) {
        snprintf(fail, 1024, "%s: status %s, expected %s", path, tw_code_name(st), want_status);
        goto done;
    }
    if (st != TW_OK) {
        if (out.len != 0)
            snprintf(fail, 1024, "%s: failed encode left %zu bytes", path, out.len);
        goto done;
    }
    tw_buf wl = {0};
    for (size_t i = 0; i < warns.len; i++)
        tw_buf_printf(&wl, "%s: %s\n", tw_code_name(warns.items[i].code), warns.items[i].message);
    char base[1024], p_out[1100], p_w[1100];
    snprintf(base, sizeof base, "%.*s", (int)(strlen(path) - 5), path);
    snprintf(p_out, sizeof p_out, "%s.out", base);
    snprintf(p_w, sizeof p_w, "%s.warnings", base);
    if (getenv("TOOLWIRE_REGEN_ENCODE")) {
        spill(p_out, out.data ? out.data : "", out.len);
        if (wl.len)
            spill(p_w, wl.data, wl.len);
        else
            remove(p_w);
        tw_buf_free(&wl);
        goto done;
    }
    size_t elen = 0, wlen = 0;
    char *exp = slurp(p_out, &elen);
    FILE *wf = fopen(p_w, "rb");
    char *wexp = NULL;
    if (wf) {
        fclose(wf);
        wexp = slurp(p_w, &wlen);
    }
    if (!exp) {
        snprintf(fail, 1024, "%s: missing its .out file", path);
    } else if (elen != out.len || memcmp(exp, out.data, elen) != 0) {
        size_t k = 0;
        while (k < elen && k < out.len && exp[k] == out.data[k])
            k++;
        snprintf(fail, 1024, "%s: bytes differ at %zu (got %zu bytes, expected %zu): got '%.60s'",
                 path, k, out.len, elen, out.data + (k < out.len ? k : out.len));
    } else if ((wexp ? wlen : 0) != wl.len || (wl.len && memcmp(wexp, wl.data, wl.len) != 0)) {
        snprintf(fail, 1024, "%s: warnings differ; got:\n%s", path, wl.data ? wl.data : "(none)");
    }
    free(exp);
    free(wexp);
    tw_buf_free(&wl);
done:
    tw_buf_free(&out);
    tw_diag_list_free(&warns);
    cJSON_Delete(c);
    if (!fail[0]) {
        free(fail);
        return NULL;
    }
    return fail;
}

void tw_test_encode_cases(const char *sub, long min_cases)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(sub), ".json", &files);
    cr_assert_geq(n, min_cases, "%s: expected at least %ld cases, found %ld", sub, min_cases, n);
    long failed = 0;
    for (long i = 0; i < n; i++) {
        char *why = run_case(files[i]);
        if (why) {
            failed++;
            cr_log_error("%s", why);
            free(why);
        }
    }
    tw_free_list(files, n);
    cr_expect_eq(failed, 0, "%ld of %ld encode cases in %s failed", failed, n, sub);
}

long tw_test_check_fixtures(char **files, long n)
{
    long failed = 0;
    for (long i = 0; i < n; i++) {
        tw_error detail = {.offset = -1};
        if (tw_decode_fixture_check(files[i], &detail) != TW_FIX_PASS) {
            failed++;
            cr_log_error("%s", detail.message);
        }
    }
    return failed;
}

void tw_test_decode_dir(const char *sub, long min_files)
{
    char **files = NULL;
    long n = tw_list_files(tw_test_src(sub), ".json", &files);
    cr_assert_geq(n, min_files, "%s: expected at least %ld fixtures, found %ld", sub, min_files, n);
    long failed = tw_test_check_fixtures(files, n);
    tw_free_list(files, n);
    cr_expect_eq(failed, 0, "%ld of %ld fixtures in %s failed", failed, n, sub);
}

char *tw_test_load_exact(const char *path, size_t *len, cJSON **j)
{
    tw_error why_e = {0};
    *len = 0;
    char *text = tw_read_file(path, (size_t)16 << 20, len, &why_e);
    cr_assert_not_null(text, "%s: %s", path, why_e.message);
    char *copy = tw_test_exact(text, *len);
    free(text);
    *j = NULL;
    tw_error e;
    cr_assert_eq(tw_json_parse(copy, *len, 256, j, &e), TW_OK, "%s: %s", path, e.message);
    return copy;
}

void tw_test_decode(const char *fmt, const char *s, const tw_decode_opts *o, tw_result *r)
{
    size_t n = strlen(s);
    char *copy = tw_test_exact(s, n);
    cr_assert_eq(tw_format_find(fmt)->decode(copy, n, o, r), TW_OK);
    free(copy);
}

char *tw_test_neutral(const tw_result *r)
{
    tw_buf b = {0};
    cr_assert_eq(tw_result_write(&b, r, 0), TW_OK);
    return b.data;
}

void tw_test_expect_neutral(tw_result *r, const char *want, const char *what, size_t k)
{
    char *got = tw_test_neutral(r);
    cr_assert_str_eq(got, want, "%s %zu", what, k);
    free(got);
    tw_result_free(r);
}

static size_t inputs_of(char **files, long nf, size_t max, bool with_calls, tw_test_input *out)
{
    size_t n = 0;
    for (long i = 0; i < nf && (max == 0 || n < max); i++) {
        tw_error why = {.offset = -1};
        cJSON *fx = tw_load_json_file(files[i], 1 << 26, 256, &why);
        cr_assert_not_null(fx, "%s", why.message);
        const cJSON *calls = tw_json_get(tw_json_get(fx, "expect"), "tool_calls");
        if (!with_calls || cJSON_GetArraySize(calls) > 0) {
            char *in;
            size_t len;
            cr_assert(tw_decode_fixture_input(fx, files[i], &in, &len, &why), "%s", why.message);
            out[n].data = in;
            out[n].len = len;
            n++;
        }
        cJSON_Delete(fx);
    }
    return n;
}

size_t tw_test_fixture_inputs(const char *format, size_t max, bool with_calls, tw_test_input **out)
{
    char rel[128];
    snprintf(rel, sizeof rel, "tests/data/decode/%s", format);
    char **files = NULL;
    long nf = tw_list_files(tw_test_src(rel), ".json", &files);
    cr_assert_geq(nf, 0, "%s cannot be read", rel);
    tw_test_input *in = calloc(nf > 0 ? (size_t)nf : 1, sizeof *in);
    cr_assert_not_null(in);
    size_t n = inputs_of(files, nf, max, with_calls, in);
    if (n == 0 && with_calls)
        n = inputs_of(files, nf, max, false, in);
    tw_free_list(files, nf);
    *out = in;
    return n;
}

void tw_test_inputs_free(tw_test_input *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(in[i].data);
    free(in);
}
