/* The prompt encoders and readers of the model dialects against the official
 * templates: every rendering in tests/data/prompts/<dialect>/ (written by
 * tests/tools/render_dialect.py from ../shared/templates with jinja2) is the
 * output of the encoder <dialect>-prompt on the fixture's request, byte for
 * byte; a template's refusal ("error") is the encoder's TW_ERR_INVALID with
 * the template's message in a warning; and the reader <dialect>-prompt reads
 * every rendering back into a request that the encoder writes again as the
 * same bytes. The dialects are the folders: a folder whose encoder or reader
 * is missing fails. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_fixtures.h"
#include "requests.h"
#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/registry.h"
#include "toolwire/request.h"
#include "twtest.h"

/* The index of the first differing byte. */
static size_t first_diff(const char *a, size_t an, const char *b, size_t bn)
{
    size_t i = 0;
    while (i < an && i < bn && a[i] == b[i])
        i++;
    return i;
}

/* Encode r with e; the bytes (free()), *st the status, warnings into w. */
static char *encode(const tw_encoder_ops *e, const tw_request *r, tw_diag_list *w, tw_status *st,
                    size_t *len)
{
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.warnings = w;
    tw_buf out = {0};
    *st = e->encode_request(r, &o, &out);
    return tw_buf_take(&out, len);
}

/* Compare got with want; log where they differ. */
static bool same(const char *what, const char *file, const char *got, size_t gn, const char *want,
                 size_t wn)
{
    if (gn == wn && memcmp(got, want, wn) == 0)
        return true;
    size_t d = first_diff(got, gn, want, wn);
    size_t from = d > 40 ? d - 40 : 0;
    cr_log_error("%s: %s differs at byte %zu:\n got: %.120s\nwant: %.120s", file, what, d,
                 from < gn ? got + from : "", from < wn ? want + from : "");
    return false;
}

/* One fixture; false when it fails (logged). */
static bool check_fixture(const char *file, const tw_encoder_ops *e,
                          const tw_request_reader_ops *rd)
{
    cJSON *fx = tw_test_load_json(file);
    tw_request req;
    tw_error why = {0};
    cr_assert_eq(tw_request_read(tw_json_get(fx, "request"), NULL, &req, &why), TW_OK, "%s: %s",
                 file, why.message);
    tw_diag_list w = {0};
    tw_status st;
    size_t gn = 0;
    char *got = encode(e, &req, &w, &st, &gn);
    bool ok = true;
    const char *error = tw_json_get_str(fx, "error");
    if (error) {
        bool named = false;
        for (size_t i = 0; i < w.len; i++)
            named |= strstr(w.items[i].message, error) != NULL;
        ok = st == TW_ERR_INVALID && gn == 0 && named;
        if (!ok)
            cr_log_error("%s: the template refuses (%s); the encoder gave %s, %zu bytes, %s", file,
                         error, tw_code_name(st), gn, named ? "named" : "not named");
    } else {
        const char *want = tw_json_get_str(fx, "expected");
        cr_assert_not_null(want, "%s: no 'expected'", file);
        size_t wn = strlen(want);
        ok = st == TW_OK && same("the encoding", file, got, gn, want, wn);
        if (st != TW_OK)
            cr_log_error("%s: encode failed: %s", file, tw_code_name(st));
        /* read back, written again */
        tw_request back;
        tw_error re = {0};
        tw_status rs = rd->decode(want, wn, NULL, &back, &re);
        if (rs != TW_OK) {
            cr_log_error("%s: the reader refused the rendering: %s at byte %lld", file, re.message,
                         (long long)re.offset);
            ok = false;
        } else {
            tw_diag_list w2 = {0};
            size_t an = 0;
            char *again = encode(e, &back, &w2, &st, &an);
            ok =
                st == TW_OK && same("read back and encoded again", file, again, an, want, wn) && ok;
            free(again);
            tw_diag_list_free(&w2);
        }
        tw_request_free(&back);
    }
    free(got);
    tw_diag_list_free(&w);
    tw_request_free(&req);
    cJSON_Delete(fx);
    return ok;
}

Test(dialect_prompts, every_rendering)
{
    const char *root = tw_test_src("tests/data/prompts");
    DIR *dir = opendir(root);
    cr_assert_not_null(dir, "no %s", root);
    struct dirent *de;
    size_t dialects = 0;
    long failed = 0, total = 0;
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char name[300], path[4400];
        snprintf(name, sizeof name, "%s-prompt", de->d_name);
        snprintf(path, sizeof path, "%s/%s", root, de->d_name);
        const tw_encoder_ops *e = tw_encoder_find(name);
        const tw_request_reader_ops *rd = tw_request_reader_find(name);
        cr_expect_not_null(e, "%s: no encoder %s", path, name);
        cr_expect_not_null(rd, "%s: no request reader %s", path, name);
        if (!e || !rd)
            continue;
        char **files = NULL;
        long n = tw_list_files(path, ".json", &files);
        cr_expect_geq(n, 20, "%s: %ld renderings, at least 20 wanted", path, n);
        for (long i = 0; i < n; i++)
            failed += !check_fixture(files[i], e, rd);
        total += n;
        tw_free_list(files, n);
        dialects++;
    }
    closedir(dir);
    cr_expect_eq(failed, 0, "%ld of %ld renderings differ", failed, total);
    cr_expect_geq(dialects, 1, "no dialect in %s", root);
    cr_log_info("%zu dialects, %ld renderings", dialects, total);
}
