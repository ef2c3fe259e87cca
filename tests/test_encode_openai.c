/* OpenAI encoders: the data-first cases of tests/data/encode/openai (exact
 * bytes and warnings) and the API contract (caps, restore on failure). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "textfix.h"
#include "toolwire/encode.h"
#include "toolwire/openai_encode.h"
#include "twtest.h"

/* ---- data-first encode cases: NAME.json (format, options, status, input),
 * NAME.out (the exact bytes), NAME.warnings (one "code: message" line per
 * warning; absent means none). TOOLWIRE_REGEN_ENCODE=1 rewrites the
 * expectation files from the current encoders instead of comparing. ---- */

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
    char why[256];
    return tw_read_file(path, (size_t)64 << 20, len, why, sizeof why);
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
    char why[512] = "";
    char *fail = calloc(1, 1024);
    cJSON *c = tw_load_json_file(path, (size_t)16 << 20, 256, why, sizeof why);
    if (!c) {
        snprintf(fail, 1024, "%s: %s", path, why);
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
        if (tw_request_read(tw_json_get(c, "input"), NULL, &r, why, sizeof why) != TW_OK) {
            snprintf(fail, 1024, "%s: bad input: %s", path, why);
            goto done;
        }
        st = e->encode_request(&r, &o, &out);
        tw_request_free(&r);
    } else {
        tw_result r;
        if (tw_result_read(tw_json_get(c, "input"), NULL, &r, why, sizeof why) != TW_OK) {
            snprintf(fail, 1024, "%s: bad input: %s", path, why);
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

static void run_cases(const char *sub, long min_cases)
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

Test(encode_openai, cases) { run_cases("tests/data/encode/openai", 30); }

static void simple_request(tw_request *r, bool tools)
{
    cJSON *j = cJSON_Parse(tools ? "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                                   "\"tools\":[{\"name\":\"f\",\"parameters\":{\"type\":\"object\"}}]}"
                                 : "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    char why[200];
    cr_assert_eq(tw_request_read(j, NULL, r, why, sizeof why), TW_OK, "%s", why);
    cJSON_Delete(j);
}

Test(encode_openai, null_opts_defaults_parallel_false)
{
    tw_request r;
    simple_request(&r, true);
    tw_buf out = {0};
    cr_assert_eq(tw_openai_encode_request(&r, NULL, &out), TW_OK);
    cr_expect(strstr(out.data, "\"parallel_tool_calls\":false") != NULL, "%s", out.data);
    tw_buf_free(&out);
    tw_request_free(&r);
}

Test(encode_openai, zeroed_opts_override_request)
{
    /* parallel_tool_calls 0 in the options is an explicit false */
    tw_request r;
    simple_request(&r, true);
    r.parallel_tool_calls = 1;
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    tw_buf out = {0};
    cr_assert_eq(tw_openai_encode_request(&r, &o, &out), TW_OK);
    cr_expect(strstr(out.data, "\"parallel_tool_calls\":false") != NULL, "%s", out.data);
    o.parallel_tool_calls = -1;
    tw_buf_reset(&out);
    cr_assert_eq(tw_openai_encode_request(&r, &o, &out), TW_OK);
    cr_expect(strstr(out.data, "\"parallel_tool_calls\":true") != NULL, "%s", out.data);
    tw_buf_free(&out);
    tw_request_free(&r);
}

Test(encode_openai, failure_restores_output)
{
    tw_request r;
    simple_request(&r, true);
    tw_buf out = {0};
    tw_buf_puts(&out, "PREFIX");
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.limits.max_output_bytes = 20;
    cr_expect_eq(tw_openai_encode_request(&r, &o, &out), TW_ERR_LIMIT);
    cr_expect_eq(out.len, 6);
    cr_expect_str_eq(out.data, "PREFIX");
    cr_expect_eq(out.max, 0, "the caller's cap is restored");
    /* appending after existing bytes works and counts only the new ones */
    o.limits.max_output_bytes = 0;
    cr_expect_eq(tw_openai_encode_request(&r, &o, &out), TW_OK);
    cr_expect_eq(strncmp(out.data, "PREFIX{\"messages\"", 17), 0, "%s", out.data);
    tw_buf_free(&out);
    tw_request_free(&r);
}

Test(encode_openai, limits_on_counts)
{
    tw_request r;
    simple_request(&r, false);
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.limits.max_messages = 1;
    tw_buf out = {0};
    cr_expect_eq(tw_openai_encode_request(&r, &o, &out), TW_OK);
    tw_request_free(&r);
    cJSON *j = cJSON_Parse("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},"
                           "{\"role\":\"user\",\"content\":\"b\"}]}");
    char why[200];
    cr_assert_eq(tw_request_read(j, NULL, &r, why, sizeof why), TW_OK);
    cJSON_Delete(j);
    tw_buf_reset(&out);
    cr_expect_eq(tw_openai_encode_request(&r, &o, &out), TW_ERR_LIMIT);
    tw_buf_free(&out);
    tw_request_free(&r);
}

Test(encode_openai, call_without_name_is_invalid)
{
    tw_result res;
    tw_result_init(&res, NULL);
    tw_call c = {0};
    c.id = strdup("x");
    c.arguments = cJSON_CreateObject();
    tw_message_add_call(&res.msg, &c);
    tw_buf out = {0};
    cr_expect_eq(tw_openai_encode_response(&res, NULL, &out), TW_ERR_INVALID);
    cr_expect_eq(tw_openai_encode_stream(&res, NULL, &out), TW_ERR_INVALID);
    cr_expect_eq(out.len, 0);
    tw_buf_free(&out);
    tw_result_free(&res);
}

/* Every fragment size: the argument fragments concatenate to the whole
 * arguments text and no fragment splits a UTF-8 character. */
Test(encode_openai, argument_fragments_reassemble)
{
    const char *js = "{\"content\":\"\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"f\","
                     "\"arguments\":{\"q\":\"h\\u00e9llo \\u2713 \\ud83d\\ude00 z\"}}]}";
    cJSON *j = cJSON_Parse(js);
    tw_result res;
    char why[200];
    cr_assert_eq(tw_result_read(j, NULL, &res, why, sizeof why), TW_OK, "%s", why);
    cJSON_Delete(j);
    char *whole = tw_json_print(res.msg.calls[0].arguments, NULL);
    for (size_t frag = 1; frag <= 9; frag++) {
        tw_encode_opts o;
        memset(&o, 0, sizeof o);
        o.args_fragment = frag;
        tw_buf out = {0};
        cr_assert_eq(tw_openai_encode_stream(&res, &o, &out), TW_OK);
        tw_buf joined = {0};
        size_t pieces = 0;
        for (char *line = strtok(out.data, "\n"); line; line = strtok(NULL, "\n")) {
            if (strncmp(line, "data: {", 7) != 0)
                continue;
            cJSON *chunk = cJSON_Parse(line + 6);
            cr_assert_not_null(chunk, "chunk is JSON: %s", line);
            const cJSON *ch = cJSON_GetArrayItem(tw_json_get(chunk, "choices"), 0);
            const cJSON *tc = cJSON_GetArrayItem(tw_json_get(tw_json_get(ch, "delta"), "tool_calls"), 0);
            const char *a = tw_json_get_str(tw_json_get(tc, "function"), "arguments");
            if (a) {
                cr_expect(strstr(a, "\xEF\xBF\xBD") == NULL, "fragment split a character");
                tw_buf_puts(&joined, a);
                if (a[0])
                    pieces++;
            }
            cJSON_Delete(chunk);
        }
        cr_expect_str_eq(joined.data, whole, "frag %zu", frag);
        cr_expect_gt(pieces, 1, "frag %zu gave %zu pieces", frag, pieces);
        tw_buf_free(&joined);
        tw_buf_free(&out);
    }
    free(whole);
    tw_result_free(&res);
}

Test(encode_openai, finish_reason_default)
{
    tw_result res;
    tw_result_init(&res, NULL);
    cr_expect_str_eq(tw_openai_finish_reason(&res), "stop");
    res.finish_reason = strdup("length");
    cr_expect_str_eq(tw_openai_finish_reason(&res), "length");
    tw_result_free(&res);
}
