/*
 * The import target: vcrpy cassettes and HAR 1.2 files through the importer
 * (harness/record/import.h, tw_import_mem_to_buf) into fixture JSON, in memory.
 *
 * Input: one selector byte, then the file.
 *   byte 0  bit 0 the file kind (0 vcrpy YAML, 1 HAR 1.2)
 *           bit 1 expect: also record expect.result / expect.failing_checks
 *           bit 2 small limits: max_depth 8, max_messages 4, max_input_bytes 16 KiB
 *
 * Invariants (docs/fuzzing.md): an import either succeeds with fixture JSON
 * that tw_fixture_parse loads, or refuses with a reason and appends nothing;
 * no dropped header (authorization, x-api-key, x-goog-api-key, api-key, cookie, set-cookie,
 * … as the one name table, tw_redact_name, says) is in the output; no value
 * of a dropped header of the input, of a HAR's request or response
 * cookies[], and no value of a credential field of a JSON body (password,
 * pwd, secret_key, accessKey, api_key, *_token, … as the same table says;
 * 6 bytes or more, the token of "Bearer X" too) appears in the output bytes
 * or in any string of the output JSON; the same
 * input twice gives the same bytes; peak
 * memory stays under the bound; nothing leaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cassette.h"
#include "fixture.h"
#include "har.h"
#include "import.h"
#include "invariants.h"
#include "redact.h"

/* Which header, field and parameter names are credentials: the redaction
 * layer's one table (tw_redact_name), the same every writer consults. */
static bool cred_header(const char *name)
{
    return name && tw_redact_name(NULL, name, strlen(name), TW_NAME_HEADER);
}

static bool cred_field(const char *name)
{
    return name && tw_redact_name(NULL, name, strlen(name), TW_NAME_FIELD);
}

typedef struct secrets {
    char **v;
    size_t n, cap;
} secrets;

static void secret_push(secrets *s, const char *p, size_t n)
{
    /* trim as the redactor promises: values under 6 bytes are not secrets it keeps */
    tw_trim(&p, &n);
    if (n < 6 || memchr(p, '\0', n))
        return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v)
            tw_fz_fail("import: out of memory");
    }
    s->v[s->n++] = tw_fz_copy(p, n + 1);
    s->v[s->n - 1][n] = '\0';
}

static void secret_add(secrets *s, const char *name, const char *value)
{
    if (!name || !value)
        return;
    if (!cred_header(name))
        return;
    size_t n = strlen(value);
    secret_push(s, value, n);
    const char *sp = memchr(value, ' ', n);
    if (sp) /* "Bearer TOKEN": the token alone */
        secret_push(s, sp + 1, n - (size_t)(sp + 1 - value));
}

static void secrets_free(secrets *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

/* The string values of credential fields at any depth of a JSON tree (a
 * "token" beside a "logprob" is a model token). */
static void field_secrets(secrets *s, const cJSON *v, size_t depth)
{
    if (!v || depth > 200)
        return;
    for (const cJSON *c = v->child; c; c = c->next) {
        if (c->string && cJSON_IsString(c) && c->valuestring && cred_field(c->string) &&
            !(strcasecmp(c->string, "token") == 0 &&
              cJSON_GetObjectItemCaseSensitive(v, "logprob")))
            secret_push(s, c->valuestring, strlen(c->valuestring));
        field_secrets(s, c, depth + 1);
    }
}

static void body_secrets(secrets *s, const char *b, size_t n, const cJSON *parsed,
                         const tw_limits *lim)
{
    if (parsed) {
        field_secrets(s, parsed, 0);
        return;
    }
    cJSON *v = NULL;
    if (b && n && tw_json_parse(b, n, lim->max_depth ? lim->max_depth : 64, &v, NULL) == TW_OK)
        field_secrets(s, v, 0);
    cJSON_Delete(v);
}

/* The input's credential header and field values, read by the loaders on their own. */
static void collect_secrets(const char *in, size_t len, bool har, const tw_limits *lim, secrets *s,
                            size_t *decoded)
{
    tw_error why = {.offset = -1};
    *decoded = 0;
    if (har) {
        tw_har h;
        if (tw_har_parse(in, len, "fuzz.har", lim, &h, &why) != TW_OK)
            return;
        for (size_t i = 0; i < h.nentries; i++) {
            const tw_har_entry *e = &h.entries[i];
            for (size_t k = 0; k < e->request.nheaders; k++)
                secret_add(s, e->request.headers[k].name, e->request.headers[k].value);
            for (size_t k = 0; k < e->response.nheaders; k++)
                secret_add(s, e->response.headers[k].name, e->response.headers[k].value);
            /* cookies[] values are secrets as a Cookie header's are */
            for (size_t k = 0; k < e->request.ncookies; k++)
                secret_push(s, e->request.cookies[k].value, strlen(e->request.cookies[k].value));
            for (size_t k = 0; k < e->response.ncookies; k++)
                secret_push(s, e->response.cookies[k].value, strlen(e->response.cookies[k].value));
            body_secrets(s, e->request.body, e->request.body_len, NULL, lim);
            body_secrets(s, e->response.body, e->response.body_len, NULL, lim);
        }
        tw_har_free(&h);
        return;
    }
    tw_cassette c;
    if (tw_cassette_parse(in, len, "fuzz.yaml", lim, &c, &why) != TW_OK)
        return;
    for (size_t i = 0; i < c.ninteractions; i++) {
        const tw_cassette_interaction *it = &c.interactions[i];
        for (size_t k = 0; k < it->request.nheaders; k++)
            secret_add(s, it->request.headers[k].name, it->request.headers[k].value);
        for (size_t k = 0; k < it->response.nheaders; k++)
            secret_add(s, it->response.headers[k].name, it->response.headers[k].value);
        body_secrets(s, it->request.body.data, it->request.body.len, it->request.body.json, lim);
        body_secrets(s, it->response.body.data, it->response.body.len, it->response.body.json, lim);
        /* gunzipped bodies are input the file did not spell out */
        if (it->request.body.gunzipped)
            *decoded += it->request.body.len;
        if (it->response.body.gunzipped)
            *decoded += it->response.body.len;
    }
    tw_cassette_free(&c);
}

/* No secret in any string or key of the output JSON (escapes undone). */
static void check_json_strings(const cJSON *v, const secrets *s)
{
    for (; v; v = v->next) {
        for (size_t i = 0; i < s->n; i++) {
            TW_FZ_CHECK(!v->string || !strstr(v->string, s->v[i]),
                        "import: the secret '%s' survives in the key '%.200s'", s->v[i], v->string);
            TW_FZ_CHECK(!cJSON_IsString(v) || !v->valuestring || !strstr(v->valuestring, s->v[i]),
                        "import: the secret '%s' survives in the string '%.200s'", s->v[i],
                        v->valuestring);
        }
        check_json_strings(v->child, s);
    }
}

static void check_headers(const tw_kv *kv, size_t n, const char *what, size_t x)
{
    for (size_t i = 0; i < n; i++) {
        TW_FZ_CHECK(kv[i].name && kv[i].value, "import: exchange %zu: %s header without name", x,
                    what);
        TW_FZ_CHECK(!cred_header(kv[i].name),
                    "import: exchange %zu keeps the credential %s header '%s'", x, what,
                    kv[i].name);
    }
}

static tw_status run_import(const char *in, size_t len, const tw_import_opts *o, tw_buf *out,
                            size_t *nx, tw_error *err)
{
    tw_redactor red;
    memset(&red, 0, sizeof red);
    tw_error_clear(err);
    tw_status st = tw_import_mem_to_buf(
        in, len, o->kind == TW_IMPORT_HAR ? "fuzz.har" : "fuzz.yaml", o, &red, out, nx, err);
    tw_redactor_free(&red);
    return st;
}

int tw_fz_import(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    tw_limits small;
    memset(&small, 0, sizeof small);
    if (sel & 4) {
        small.max_depth = 8;
        small.max_messages = 4;
        small.max_input_bytes = 16 * 1024;
    }
    tw_import_opts o;
    memset(&o, 0, sizeof o);
    o.kind = (sel & 1) ? TW_IMPORT_HAR : TW_IMPORT_VCR;
    o.expect = (sel & 2) != 0;
    o.limits = &small;
    tw_limits L;
    tw_limits_resolve(&L, &small);
    size_t len = size - 1;

    bool mem = tw_fz_mem_enabled();
    int64_t base0 = tw_fz_mem_live();
    char *in = tw_fz_copy(data + 1, len);

    /* what the file holds, read by the loaders directly (not measured) */
    secrets sec;
    memset(&sec, 0, sizeof sec);
    size_t decoded = 0;
    collect_secrets(in, len, o.kind == TW_IMPORT_HAR, &small, &sec, &decoded);

    /* the import, twice */
    tw_buf out1 = {0}, out2 = {0};
    tw_error why1 = {.offset = -1}, why2 = {.offset = -1};
    size_t nx1 = 0, nx2 = 0;
    int64_t base = tw_fz_mem_live();
    tw_fz_mem_mark();
    tw_status st1 = run_import(in, len, &o, &out1, &nx1, &why1);
    int64_t peak = tw_fz_mem_peak() - base;
    /* the decoders' bound over the file plus what gunzip made of it; the
     * importer holds the loaded file, the fixture tree, the output and its
     * validating parse at once (docs/fuzzing.md) */
    int64_t bound = 4 * tw_fz_mem_bound(len + decoded, &L);
    if (getenv("TOOLWIRE_FUZZ_IMPORT_PEAK"))
        fprintf(stderr, "import: len %zu decoded %zu peak %lld bound %lld (%.1f x len)\n", len,
                decoded, (long long)peak, (long long)bound, len ? (double)peak / (double)len : 0.0);
    TW_FZ_CHECK(!mem || peak <= bound, "import: peak memory %lld bytes over the bound %lld",
                (long long)peak, (long long)bound);
    tw_status st2 = run_import(in, len, &o, &out2, &nx2, &why2);
    TW_FZ_CHECK(st1 == st2, "import: the same input gives %s, then %s", tw_code_name(st1),
                tw_code_name(st2));
    TW_FZ_CHECK(out1.len == out2.len && (out1.len == 0 || !memcmp(out1.data, out2.data, out1.len)),
                "import: the same input gives two outputs (%zu and %zu bytes)", out1.len, out2.len);
    TW_FZ_CHECK(nx1 == nx2 && strcmp(why1.message, why2.message) == 0,
                "import: the same input gives two reasons: '%s' / '%s'", why1.message,
                why2.message);

    if (st1 == TW_OK) {
        TW_FZ_CHECK(out1.len > 0 && nx1 > 0, "import: succeeded with %zu bytes, %zu exchanges",
                    out1.len, nx1);
        /* no credential value, in the bytes or escaped in a JSON string */
        for (size_t i = 0; i < sec.n; i++)
            TW_FZ_CHECK(!tw_memmem(out1.data, out1.len, sec.v[i], strlen(sec.v[i])),
                        "import: the secret '%s' survives in the output", sec.v[i]);
        char *copy = tw_fz_copy(out1.data, out1.len);
        tw_fixture fx;
        tw_error fwhy = {.offset = -1};
        tw_status fs = tw_fixture_parse(copy, out1.len, "imported.json", &small, &fx, &fwhy);
        TW_FZ_CHECK(fs == TW_OK, "import: the output does not load as a fixture (%s): %s\n%.2000s",
                    tw_code_name(fs), fwhy.message, out1.data);
        TW_FZ_CHECK(fx.nexchanges == nx1, "import: %zu exchanges reported, %zu written", nx1,
                    fx.nexchanges);
        for (size_t x = 0; x < fx.nexchanges; x++) {
            check_headers(fx.exchanges[x].req.headers, fx.exchanges[x].req.nheaders, "request", x);
            check_headers(fx.exchanges[x].resp.headers, fx.exchanges[x].resp.nheaders, "response",
                          x);
        }
        check_json_strings(fx.root, &sec);
        tw_fixture_free(&fx);
        free(copy);
    } else {
        TW_FZ_CHECK(why1.message[0] != '\0', "import: refused (%s) without saying why",
                    tw_code_name(st1));
        tw_fz_check_text(why1.message, "import: why");
        TW_FZ_CHECK(out1.len == 0 && nx1 == 0, "import: refused (%s) but wrote %zu bytes",
                    tw_code_name(st1), out1.len);
    }
    tw_buf_free(&out1);
    tw_buf_free(&out2);
    secrets_free(&sec);
    free(in);
    TW_FZ_CHECK(!mem || tw_fz_mem_live() == base0, "import: %lld bytes leaked",
                (long long)(tw_fz_mem_live() - base0));
    return 0;
}
