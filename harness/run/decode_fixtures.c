/* Decode fixtures: one input, options and the expected neutral result. */
#include "decode_fixtures.h"

#include <dirent.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "datadir.h"
#include "decode_opts.h"
#include "redact.h"

const size_t tw_fix_chunks[] = {1, 2, 3, 7, 64, 0};
const size_t tw_fix_nchunks = sizeof tw_fix_chunks / sizeof tw_fix_chunks[0];

static bool str_eq(const tw_buf *b, const char *s)
{
    size_t n = strlen(s);
    return b->len == n && (n == 0 || memcmp(b->data, s, n) == 0);
}

static bool diags_match(const tw_diag_list *l, const cJSON *arr, const char *what, tw_error *err)
{
    size_t n = arr ? (size_t)cJSON_GetArraySize(arr) : 0;
    size_t i = 0;
    const cJSON *e = arr ? arr->child : NULL;
    for (; i < l->len && e; i++, e = e->next) {
        const char *code = tw_json_get_str(e, "code");
        const cJSON *off = tw_json_get(e, "offset");
        if (!code || strcmp(code, tw_code_name(l->items[i].code)) != 0 ||
            (cJSON_IsNumber(off) &&
             tw_json_int(off, INT64_MIN, INT64_MAX, -2) != l->items[i].offset)) {
            tw_error_set(
                err, TW_ERR_INVALID, -1, NULL, "%s[%zu]: expected %s@%lld, got %s@%lld (%s)", what,
                i, code ? code : "?", (long long)tw_json_int(off, INT64_MIN, INT64_MAX, -2),
                tw_code_name(l->items[i].code), (long long)l->items[i].offset, l->items[i].message);
            return false;
        }
    }
    if (l->len != n) {
        if (l->len > n)
            tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                         "%s: %zu expected, got %zu; first extra: %s@%lld (%s)", what, n, l->len,
                         tw_code_name(l->items[n].code), (long long)l->items[n].offset,
                         l->items[n].message);
        else
            tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                         "%s: %zu expected, got %zu; first missing: %s", what, n, l->len,
                         tw_json_get_str(e, "code") ? tw_json_get_str(e, "code") : "?");
        return false;
    }
    return true;
}

bool tw_result_matches(const tw_result *got, const cJSON *expect, tw_error *err)
{
    const char *content = tw_json_get_str(expect, "content");
    const char *thinking = tw_json_get_str(expect, "thinking");
    if (content && !str_eq(&got->msg.content, content)) {
        char *x = tw_secret_clip(content, 200), *y = tw_secret_clip(got->msg.content.data, 200);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "content: expected \"%s\", got \"%s\"",
                     x ? x : "?", y ? y : "?");
        free(x);
        free(y);
        return false;
    }
    if (thinking && !str_eq(&got->msg.thinking, thinking)) {
        char *x = tw_secret_clip(thinking, 200), *y = tw_secret_clip(got->msg.thinking.data, 200);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "thinking: expected \"%s\", got \"%s\"",
                     x ? x : "?", y ? y : "?");
        free(x);
        free(y);
        return false;
    }
    const char *sig = tw_json_get_str(expect, "thinking_signature");
    if (sig && (!got->msg.thinking_signature || strcmp(sig, got->msg.thinking_signature) != 0)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "thinking_signature differs");
        return false;
    }
    const cJSON *calls = tw_json_get(expect, "tool_calls");
    if (calls) {
        size_t n = (size_t)cJSON_GetArraySize(calls);
        size_t i = 0;
        for (const cJSON *c = calls->child; c && i < got->msg.ncalls; c = c->next, i++) {
            const tw_call *g = &got->msg.calls[i];
            const char *id = tw_json_get_str(c, "id");
            const char *name = tw_json_get_str(c, "name");
            if (id && strcmp(id, g->id ? g->id : "") != 0) {
                tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                             "tool_calls[%zu].id: expected %s, got %s", i, id, g->id);
                return false;
            }
            if (name && strcmp(name, g->name ? g->name : "") != 0) {
                tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                             "tool_calls[%zu].name: expected %s, got %s", i, name, g->name);
                return false;
            }
            const cJSON *a = tw_json_get(c, "arguments");
            if (a && !tw_json_equal(a, g->arguments)) {
                char *s = tw_json_print(g->arguments, NULL);
                char *x = s ? tw_secret_clip(s, 300) : NULL;
                tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                             "tool_calls[%zu].arguments differ: got %s", i, x ? x : "?");
                free(x);
                free(s);
                return false;
            }
        }
        if (n != got->msg.ncalls) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "tool_calls: expected %zu, got %zu", n,
                         got->msg.ncalls);
            return false;
        }
    }
    const char *fr = tw_json_get_str(expect, "finish_reason");
    if (fr && strcmp(fr, got->finish_reason ? got->finish_reason : "") != 0) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "finish_reason: expected %s, got %s", fr,
                     got->finish_reason ? got->finish_reason : "");
        return false;
    }
    if (tw_json_get(expect, "errors") &&
        !diags_match(&got->errors, tw_json_get(expect, "errors"), "errors", err))
        return false;
    if (tw_json_get(expect, "warnings") &&
        !diags_match(&got->warnings, tw_json_get(expect, "warnings"), "warnings", err))
        return false;
    return true;
}

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The bytes a fixture feeds its decoder: `input` (a JSON string, its UTF-8
 * bytes) or `input_hex` (two hex digits a byte, for bytes JSON strings cannot
 * carry through the loader, such as NUL). Exactly one of them; *out is
 * malloc'd (NULL with false and err set when neither, both, or a bad hex). */
bool tw_decode_fixture_input(const cJSON *fx, const char *path, char **out, size_t *len,
                             tw_error *err)
{
    *out = NULL;
    *len = 0;
    const cJSON *in = tw_json_get(fx, "input");
    const cJSON *hex = tw_json_get(fx, "input_hex");
    if ((in != NULL) == (hex != NULL)) {
        tw_error_file(err, TW_ERR_INVALID, -1, path,
                      "%s: give exactly one of 'input' and 'input_hex'", path);
        return false;
    }
    if (in && !cJSON_IsString(in)) {
        tw_error_file(err, TW_ERR_INVALID, -1, path, "%s: 'input' must be a string", path);
        return false;
    }
    if (in) {
        size_t n = strlen(in->valuestring);
        *out = malloc(n ? n : 1);
        if (!*out) {
            tw_error_file(err, TW_ERR_NOMEM, -1, path, "%s: out of memory", path);
            return false;
        }
        memcpy(*out, in->valuestring, n);
        *len = n;
        return true;
    }
    const char *h = cJSON_IsString(hex) ? hex->valuestring : NULL;
    size_t hn = h ? strlen(h) : 0;
    if (!h || hn % 2) {
        tw_error_file(err, TW_ERR_INVALID, -1, path,
                      "%s: 'input_hex' must be a string of hex digit pairs", path);
        return false;
    }
    *out = malloc(hn ? hn / 2 : 1);
    if (!*out) {
        tw_error_file(err, TW_ERR_NOMEM, -1, path, "%s: out of memory", path);
        return false;
    }
    for (size_t i = 0; i < hn; i += 2) {
        int a = hex_val(h[i]), b = hex_val(h[i + 1]);
        if (a < 0 || b < 0) {
            tw_error_file(err, TW_ERR_INVALID, (int64_t)i, path,
                          "%s: 'input_hex' holds '%c%c' at character %zu, not two hex digits", path,
                          h[i], h[i + 1], i);
            free(*out);
            *out = NULL;
            return false;
        }
        (*out)[i / 2] = (char)(a * 16 + b);
    }
    *len = hn / 2;
    return true;
}

int tw_decode_fixture_check(const char *path, tw_error *err)
{
    cJSON *fx = tw_load_json_file(path, (size_t)64 << 20, 256, err);
    if (!fx)
        return TW_FIX_BAD;
    tw_error why = {.offset = -1};
    int rc = TW_FIX_PASS;
    tw_opts_holder h;
    tw_opts_holder_init(&h);
    const char *fname = tw_json_get_str(fx, "format");
    char *input = NULL;
    size_t input_len = 0;
    const cJSON *expect = tw_json_get(fx, "expect");
    const tw_format_ops *f = fname ? tw_format_find(fname) : NULL;
    if (!f) {
        tw_error_file(err, TW_ERR_INVALID, -1, path, "%s: 'format' must name a known format", path);
        rc = TW_FIX_BAD;
    } else if (!tw_decode_fixture_input(fx, path, &input, &input_len, err)) {
        rc = TW_FIX_BAD;
    } else if (!cJSON_IsObject(expect)) {
        tw_error_file(err, TW_ERR_INVALID, -1, path, "%s: 'expect' must be an object", path);
        rc = TW_FIX_BAD;
    } else if (!tw_opts_from_json(&h, tw_json_get(fx, "options"), &why)) {
        tw_error_file(err, TW_ERR_INVALID, -1, path, "%s: %s", path, why.message);
        rc = TW_FIX_BAD;
    }
    for (size_t k = 0; rc == TW_FIX_PASS && k <= tw_fix_nchunks; k++) {
        /* k == 0: batch; then each chunk size */
        size_t len = input_len;
        char *copy = malloc(len ? len : 1); /* exact size: no terminator */
        if (!copy) {
            rc = TW_FIX_BAD;
            break;
        }
        if (len)
            memcpy(copy, input, len);
        tw_result r;
        tw_status st = k == 0 ? f->decode(copy, len, &h.o, &r)
                              : tw_decode_chunked(f, copy, len, tw_fix_chunks[k - 1], &h.o, &r);
        free(copy);
        if (st != TW_OK) {
            tw_error_file(err, st, -1, path, "%s: decode failed: %s", path, tw_code_message(st));
            rc = TW_FIX_MISMATCH;
            break;
        }
        tw_error d2 = {.offset = -1};
        if (!tw_result_matches(&r, expect, &d2)) {
            if (k == 0)
                tw_error_file(err, TW_ERR_INVALID, -1, path, "%s (batch): %s", path, d2.message);
            else
                tw_error_file(err, TW_ERR_INVALID, -1, path, "%s (chunk %zu): %s", path,
                              tw_fix_chunks[k - 1], d2.message);
            rc = TW_FIX_MISMATCH;
        }
        tw_result_free(&r);
    }
    free(input);
    tw_opts_holder_free(&h);
    cJSON_Delete(fx);
    return rc;
}

/* ---- directory walking ---- */

typedef struct flist {
    char **v;
    long n, cap;
} flist;

static int walk(const char *dir, const char *suffix, flist *l, int depth)
{
    if (depth > 16)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t need = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(need);
        if (!p)
            break;
        snprintf(p, need, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            walk(p, suffix, l, depth + 1);
            free(p);
            continue;
        }
        size_t pl = strlen(p), sl = strlen(suffix);
        if (pl < sl || strcmp(p + pl - sl, suffix) != 0) {
            free(p);
            continue;
        }
        if (l->n == l->cap) {
            long nc = l->cap ? l->cap * 2 : 64;
            char **nv = realloc(l->v, (size_t)nc * sizeof *nv);
            if (!nv) {
                free(p);
                break;
            }
            l->v = nv;
            l->cap = nc;
        }
        l->v[l->n++] = p;
    }
    closedir(d);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

long tw_list_files(const char *dir, const char *suffix, char ***out)
{
    flist l = {0};
    struct stat sb;
    char found[8400];
    tw_data_resolve(dir, found, sizeof found); /* fixtures/… outside a checkout */
    dir = found;
    if (stat(dir, &sb) == 0 && S_ISREG(sb.st_mode)) {
        l.v = malloc(sizeof *l.v);
        if (!l.v)
            return -1;
        l.v[0] = tw_strdup(dir);
        l.n = 1;
        *out = l.v;
        return 1;
    }
    if (walk(dir, suffix, &l, 0) != 0) {
        free(l.v);
        return -1;
    }
    if (l.n)
        qsort(l.v, (size_t)l.n, sizeof *l.v, cmp_str);
    *out = l.v;
    return l.n;
}

void tw_free_list(char **list, long n)
{
    for (long i = 0; i < n; i++)
        free(list[i]);
    free(list);
}
