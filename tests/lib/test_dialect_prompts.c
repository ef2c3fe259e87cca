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

/* A dialect's folder of tests/data/prompts and its format, FOLDER-prompt. */
typedef struct dialect_dir {
    char name[300], path[4400];
} dialect_dir;

/* The dialects' folders, at most max, into out; how many there are. */
static size_t dialect_dirs(dialect_dir *out, size_t max)
{
    const char *root = tw_test_src("tests/data/prompts");
    DIR *dir = opendir(root);
    cr_assert_not_null(dir, "no %s", root);
    struct dirent *de;
    size_t n = 0;
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        cr_assert_lt(n, max, "more than %zu dialects in %s", max, root);
        snprintf(out[n].name, sizeof out[n].name, "%s-prompt", de->d_name);
        snprintf(out[n].path, sizeof out[n].path, "%s/%s", root, de->d_name);
        n++;
    }
    closedir(dir);
    cr_expect_geq(n, 1, "no dialect in %s", root);
    return n;
}

Test(dialect_prompts, every_rendering)
{
    static dialect_dir ds[64];
    size_t nd = dialect_dirs(ds, 64);
    long failed = 0, total = 0;
    for (size_t d = 0; d < nd; d++) {
        const char *name = ds[d].name, *path = ds[d].path;
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
    }
    cr_expect_eq(failed, 0, "%ld of %ld renderings differ", failed, total);
    cr_log_info("%zu dialects, %ld renderings", nd, total);
}

/* How many bytes c the texts of r's messages (content and thinking) hold. */
static size_t count_in_text(const tw_request *r, char c)
{
    size_t k = 0;
    for (size_t i = 0; i < r->nmessages; i++) {
        const tw_buf *t[2] = {&r->messages[i].content, &r->messages[i].thinking};
        for (size_t j = 0; j < 2; j++)
            for (size_t x = 0; x < t[j]->len; x++)
                k += t[j]->data[x] == c;
    }
    return k;
}

/* want[0, wn) with byte c put in at i, read by rd: refused (with a message,
 * and at a byte of the prompt when the refusal is the byte's: json_nul,
 * json_not_rfc8259), or read with the byte kept in a message's text, or in a
 * value the encoder of the same name writes again, or with a warning more
 * than the prompt without it gives (base_warnings). False when the byte
 * vanished (logged). */
static bool keeps_byte(const char *file, const tw_request_reader_ops *rd, const char *want,
                       size_t wn, size_t i, char c, size_t base_warnings)
{
    char *m = malloc(wn + 1); /* exactly the prompt's size: a read past it is caught */
    cr_assert_not_null(m);
    memcpy(m, want, i);
    m[i] = c;
    memcpy(m + i + 1, want + i, wn - i);
    tw_request q;
    tw_error err = {0};
    tw_status st = rd->decode(m, wn + 1, NULL, &q, &err);
    bool ok;
    if (st != TW_OK) {
        bool own = err.code == TW_D_JSON_NUL || err.code == TW_D_JSON_NOT_RFC8259;
        ok = err.message[0] && (!own || (err.offset >= 0 && (size_t)err.offset <= wn));
    } else if (count_in_text(&q, c) == 1) {
        ok = true;
    } else {
        /* else a warning the prompt without it does not give says so, or
         * the value holding it keeps it: the request is written again with
         * the byte */
        ok = q.warnings.len + q.warnings.dropped > base_warnings;
        const tw_encoder_ops *e = tw_encoder_find(rd->name);
        tw_diag_list w = {0};
        size_t an = 0;
        char *again = e && !ok ? encode(e, &q, &w, &st, &an) : NULL;
        ok = ok || (st == TW_OK && again && memchr(again, c, an));
        free(again);
        tw_diag_list_free(&w);
    }
    if (!ok)
        cr_log_error("%s: byte 0x%02x put in at %zu: %s (%s at %lld: %s)", file,
                     (unsigned)(unsigned char)c, i,
                     st == TW_OK ? "read, not in any text" : "refused", tw_code_name(err.code),
                     (long long)err.offset, err.message);
    tw_request_free(&q);
    free(m);
    return ok;
}

/* The renderings of folder dir read by the reader `name`: a NUL put in at
 * every byte (when `every`), and a vertical tab after the first '{' (of a
 * JSON object, else of Gemma's brace syntax); *failed and *tried counted. */
static void vanish_folder(const char *dir, const char *name, bool every, long *failed, long *tried,
                          long *json)
{
    const tw_request_reader_ops *rd = tw_request_reader_find(name);
    cr_assert_not_null(rd, "no reader %s", name);
    char **files = NULL;
    long n = tw_list_files(dir, ".json", &files);
    cr_expect_gt(n, 0, "no rendering in %s", dir);
    for (long f = 0; f < n; f++) {
        cJSON *fx = tw_test_load_json(files[f]);
        const char *want = tw_json_get_str(fx, "expected");
        size_t wn = want ? strlen(want) : 0;
        tw_request q;
        tw_error err = {0};
        size_t base = 0;
        if (want && rd->decode(want, wn, NULL, &q, &err) == TW_OK) { /* (every_rendering's) */
            base = q.warnings.len + q.warnings.dropped;
            tw_request_free(&q);
        }
        for (size_t i = 0; want && every && i <= wn; i++, (*tried)++)
            *failed += !keeps_byte(files[f], rd, want, wn, i, '\0', base);
        const char *obj = want ? strstr(want, "{\"") : NULL;
        if (!obj && want)
            obj = strchr(want, '{');
        if (obj) {
            *failed += !keeps_byte(files[f], rd, want, wn, (size_t)(obj - want) + 1, '\v', base);
            (*json)++;
        }
        cJSON_Delete(fx);
    }
    tw_free_list(files, n);
}

/* No reader drops a byte of its prompt: a NUL put in anywhere in a rendering
 * of a model dialect's template (between the JSON tokens of a tool or of
 * arguments, in a name, a key or a value, or a text) is refused or kept in a
 * message's text, never dropped or cut at; and a vertical tab put in after
 * the first '{' (white space to cJSON and to Gemma's brace syntax, not to
 * RFC 8259) is refused, kept or warned of, there and in the ChatML renderings (whose
 * NULs test_qwen_prompt_read follows: the qwen3-coder decoder may drop a
 * call's stray text, with its warning). */
Test(dialect_prompts, no_byte_of_the_prompt_vanishes)
{
    static dialect_dir ds[64];
    size_t nd = dialect_dirs(ds, 64);
    long failed = 0, tried = 0, json = 0;
    for (size_t d = 0; d < nd; d++)
        if (tw_request_reader_find(ds[d].name)) /* (every_rendering fails on one missing) */
            vanish_folder(ds[d].path, ds[d].name, true, &failed, &tried, &json);
    static const char *const chatml[][2] = {{"tests/data/qwen3", "hermes-prompt"},
                                            {"tests/data/qwen3-coder", "qwen3-coder-prompt"},
                                            {"tests/data/qwen3.5", "qwen3.5-prompt"}};
    for (size_t k = 0; k < sizeof chatml / sizeof chatml[0]; k++)
        vanish_folder(tw_test_src(chatml[k][0]), chatml[k][1], false, &failed, &tried, &json);
    cr_expect_eq(failed, 0, "%ld of %ld prompts lost the byte put in", failed, tried + json);
    cr_expect_gt(json, 0, "no rendering holds a JSON object");
}

/* A MiniMax-M2 or GLM value that is JSON but not as tojson writes it (a
 * space after it, a control byte in it) is the string it is, so that the
 * prompt is written again as it was; a NUL in a value is refused at its
 * byte (json_nul), never cut at. */
Test(dialect_prompts, markup_values_kept_as_written)
{
    static const struct {
        const char *fmt, *head, *tail;
    } ds[] = {
        {"minimax-m2-prompt",
         "]~!b[]~b]system\nYou are a helpful assistant.[e~[\n]~b]user\nGo[e~[\n]~b]ai\n\n"
         "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"n\">",
         "</parameter>\n</invoke>\n</minimax:tool_call>[e~[\n"},
        {"glm-4.6-prompt",
         "[gMASK]<sop><|user|>\nGo<|assistant|>\n<think></think>\n<tool_call>f\n<arg_key>n</"
         "arg_key>\n<arg_value>",
         "</arg_value>\n</tool_call>"},
        {"glm-4.7-prompt",
         "[gMASK]<sop><|user|>Go<|assistant|></think><tool_call>f<arg_key>n</arg_key><arg_value>",
         "</arg_value></tool_call>"},
    };
    static const struct {
        const char *v;
        size_t n;
        int type; /* cJSON type read, 0: refused */
    } vs[] = {{"1", 1, cJSON_Number},
              {"1 ", 2, cJSON_String},
              {"[1,2]", 5, cJSON_String},
              {"[1, 2]", 6, cJSON_Array},
              {"\x01"
               "1",
               2, cJSON_String},
              {"1\0", 2, 0}};
    for (size_t d = 0; d < sizeof ds / sizeof ds[0]; d++) {
        const tw_request_reader_ops *rd = tw_request_reader_find(ds[d].fmt);
        const tw_encoder_ops *e = tw_encoder_find(ds[d].fmt);
        cr_assert(rd && e, "%s", ds[d].fmt);
        for (size_t k = 0; k < sizeof vs / sizeof vs[0]; k++) {
            size_t hn = strlen(ds[d].head), tn = strlen(ds[d].tail), pn = hn + vs[k].n + tn;
            char *p = malloc(pn);
            cr_assert_not_null(p);
            memcpy(p, ds[d].head, hn);
            memcpy(p + hn, vs[k].v, vs[k].n);
            memcpy(p + hn + vs[k].n, ds[d].tail, tn);
            tw_request q;
            tw_error err = {0};
            tw_status st = rd->decode(p, pn, NULL, &q, &err);
            if (!vs[k].type) {
                cr_expect_eq(st, TW_ERR_INVALID, "%s: value %zu: %s", ds[d].fmt, k,
                             tw_code_name(st));
                cr_expect_eq(err.code, TW_D_JSON_NUL, "%s: %s", ds[d].fmt, tw_code_name(err.code));
                cr_expect_eq(err.offset, (int64_t)(hn + 1), "%s: the NUL at %zu, said %lld",
                             ds[d].fmt, hn + 1, (long long)err.offset);
            } else {
                cr_assert_eq(st, TW_OK, "%s: value %zu: %s", ds[d].fmt, k, err.message);
                const tw_message *m = &q.messages[q.nmessages - 1];
                cr_assert_eq(m->ncalls, 1, "%s", ds[d].fmt);
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(m->calls[0].arguments, "n");
                cr_expect(v && (v->type & 0xff) == vs[k].type, "%s: value %zu read as type %d",
                          ds[d].fmt, k, v ? v->type & 0xff : -1);
                if (v && cJSON_IsString(v))
                    cr_expect(strlen(v->valuestring) == vs[k].n &&
                                  memcmp(v->valuestring, vs[k].v, vs[k].n) == 0,
                              "%s: value %zu changed", ds[d].fmt, k);
                tw_request_free(&q);
            }
            free(p);
        }
    }
}
