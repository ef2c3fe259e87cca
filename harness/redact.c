/* Secret redaction for recorded traffic (redact.h). */
#include "redact.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const dropped_exact[] = {
    "authorization", "proxy-authorization", "api-key", "x-api-key", "cookie", "set-cookie",
    "openai-organization", "openai-project", "anthropic-organization-id", NULL};

static const char *const dropped_parts[] = {"organization", "project", "api-key", "api_key",
                                            "apikey",       "secret",  "cookie",  "session-token",
                                            "auth",         NULL};

/* JSON members whose value is a credential whatever it looks like. */
static const char *const secret_keys[] = {"api_key",      "apikey",        "api-key",
                                          "x-api-key",    "password",      "secret",
                                          "client_secret", "authorization", "access_token",
                                          "refresh_token", NULL};

/* Query parameters whose value is a credential. */
static const char *const secret_params[] = {"key",   "api_key", "api-key", "apikey",
                                            "access_token", "token", "secret", NULL};

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

static tw_status push(char ***arr, size_t *n, const char *s, size_t len)
{
    char **na = realloc(*arr, (*n + 1) * sizeof *na);
    if (!na)
        return TW_ERR_NOMEM;
    *arr = na;
    na[*n] = tw_strndup(s, len);
    if (!na[*n])
        return TW_ERR_NOMEM;
    (*n)++;
    return TW_OK;
}

tw_status tw_redactor_add_name(tw_redactor *r, const char *name)
{
    return push(&r->names, &r->nnames, name, strlen(name));
}

static bool have_value(const tw_redactor *r, const char *s, size_t n)
{
    for (size_t i = 0; i < r->nvalues; i++)
        if (strlen(r->values[i]) == n && memcmp(r->values[i], s, n) == 0)
            return true;
    return false;
}

tw_status tw_redactor_add_value(tw_redactor *r, const char *value)
{
    const char *p = value;
    size_t n = strlen(p);
    tw_trim(&p, &n);
    if (n >= 6 && !have_value(r, p, n)) {
        tw_status st = push(&r->values, &r->nvalues, p, n);
        if (st != TW_OK)
            return st;
    }
    /* "Bearer TOKEN": the token alone may appear elsewhere (a URL, a body). */
    const char *sp = memchr(p, ' ', n);
    if (sp) {
        const char *t = sp + 1;
        size_t tn = n - (size_t)(t - p);
        tw_trim(&t, &tn);
        if (tn >= 6 && !have_value(r, t, tn))
            return push(&r->values, &r->nvalues, t, tn);
    }
    return TW_OK;
}

void tw_redactor_free(tw_redactor *r)
{
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    for (size_t i = 0; i < r->nvalues; i++)
        free(r->values[i]);
    free(r->names);
    free(r->values);
    memset(r, 0, sizeof *r);
}

bool tw_redact_header_dropped(const tw_redactor *r, const char *name)
{
    for (const char *const *p = dropped_exact; *p; p++)
        if (strcasecmp(*p, name) == 0)
            return true;
    for (const char *const *p = dropped_parts; *p; p++)
        if (contains_ci(name, *p))
            return true;
    for (size_t i = 0; r && i < r->nnames; i++)
        if (strcasecmp(r->names[i], name) == 0)
            return true;
    return false;
}

/* ---- scrubbing text ---- */

static bool is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_token_char(unsigned char c)
{
    return is_alnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '+' || c == '/' ||
           c == '=';
}

/* Length of a credential-looking run starting at s[i], 0 when none. */
static size_t key_like(const char *s, size_t n, size_t i)
{
    /* sk-…, sk-proj-…, sk-ant-…, rk-… style keys: a prefix, then a long run */
    static const char *const prefixes[] = {"sk-", "rk-", "sess-", "gsk_", "xai-", NULL};
    if (i > 0 && (is_alnum((unsigned char)s[i - 1]) || s[i - 1] == '-' || s[i - 1] == '_'))
        return 0;
    for (const char *const *p = prefixes; *p; p++) {
        size_t pl = strlen(*p);
        if (n - i < pl || memcmp(s + i, *p, pl) != 0)
            continue;
        size_t j = i + pl;
        while (j < n && (is_alnum((unsigned char)s[j]) || s[j] == '-' || s[j] == '_'))
            j++;
        if (j - i - pl >= 16)
            return j - i;
    }
    return 0;
}

/* "Bearer " / "Basic " at s[i]: the length of the scheme word plus space. */
static size_t auth_scheme(const char *s, size_t n, size_t i)
{
    static const char *const schemes[] = {"bearer ", "basic ", NULL};
    if (i > 0 && is_alnum((unsigned char)s[i - 1]))
        return 0;
    for (const char *const *p = schemes; *p; p++) {
        size_t pl = strlen(*p);
        if (n - i > pl && strncasecmp(s + i, *p, pl) == 0)
            return pl;
    }
    return 0;
}

/* "?key=" / "&api_key=" at s[i]: the length up to and including '='. */
static size_t query_param(const char *s, size_t n, size_t i)
{
    if (s[i] != '?' && s[i] != '&')
        return 0;
    for (const char *const *p = secret_params; *p; p++) {
        size_t pl = strlen(*p);
        if (n - i > pl + 1 && strncasecmp(s + i + 1, *p, pl) == 0 && s[i + 1 + pl] == '=')
            return pl + 2;
    }
    return 0;
}

tw_status tw_redact_text(tw_redactor *r, const char *s, size_t n, tw_buf *out)
{
    tw_status st = TW_OK;
    size_t i = 0, plain = 0; /* s[plain, i) not yet copied */
#define FLUSH()                                                                \
    do {                                                                       \
        if (i > plain && (st = tw_buf_append(out, s + plain, i - plain)) != TW_OK) \
            return st;                                                         \
    } while (0)
    while (i < n) {
        size_t k = 0;
        for (size_t v = 0; v < r->nvalues && !k; v++) {
            size_t vl = strlen(r->values[v]);
            if (vl && n - i >= vl && memcmp(s + i, r->values[v], vl) == 0)
                k = vl;
        }
        if (!k)
            k = key_like(s, n, i);
        if (k) {
            FLUSH();
            if ((st = tw_buf_puts(out, TW_REDACTED)) != TW_OK)
                return st;
            r->scrubbed++;
            i += k;
            plain = i;
            continue;
        }
        size_t pre = auth_scheme(s, n, i);
        if (!pre)
            pre = query_param(s, n, i);
        if (pre) {
            size_t j = i + pre;
            bool query = s[i] == '?' || s[i] == '&';
            while (j < n && (is_token_char((unsigned char)s[j]) || (query && s[j] == '%')))
                j++;
            if (j - i - pre >= (query ? 1u : 6u)) {
                i += pre;
                FLUSH();
                if ((st = tw_buf_puts(out, TW_REDACTED)) != TW_OK)
                    return st;
                r->scrubbed++;
                i = j;
                plain = i;
                continue;
            }
        }
        i++;
    }
    FLUSH();
#undef FLUSH
    return TW_OK;
}

char *tw_redact_str(tw_redactor *r, const char *s)
{
    tw_buf b = {0};
    if (tw_redact_text(r, s, strlen(s), &b) != TW_OK) {
        tw_buf_free(&b);
        return NULL;
    }
    return tw_buf_take(&b, NULL);
}

static bool secret_key(const char *k)
{
    for (const char *const *p = secret_keys; *p; p++)
        if (strcasecmp(*p, k) == 0)
            return true;
    return false;
}

static tw_status scrub_json(tw_redactor *r, cJSON *v, size_t depth, size_t max_depth)
{
    if (depth > max_depth)
        return TW_OK; /* the loaders refuse deeper trees before this point */
    if (cJSON_IsString(v) && v->valuestring) {
        char *s = tw_redact_str(r, v->valuestring);
        if (!s)
            return TW_ERR_NOMEM;
        if (strcmp(s, v->valuestring) != 0) {
            /* cJSON owns valuestring: swap the allocation (cJSON_free is free here) */
            cJSON_free(v->valuestring);
            v->valuestring = s;
        } else {
            free(s);
        }
        return TW_OK;
    }
    for (cJSON *c = v->child; c; c = c->next) {
        if (c->string && secret_key(c->string) && cJSON_IsString(c) && c->valuestring[0] &&
            strcmp(c->valuestring, TW_REDACTED) != 0) {
            char *s = tw_strdup(TW_REDACTED);
            if (!s)
                return TW_ERR_NOMEM;
            cJSON_free(c->valuestring);
            c->valuestring = s;
            r->scrubbed++;
            continue;
        }
        if (c->string && !(c->type & cJSON_StringIsConst)) {
            char *k = tw_redact_str(r, c->string);
            if (!k)
                return TW_ERR_NOMEM;
            if (strcmp(k, c->string) != 0) {
                cJSON_free(c->string);
                c->string = k;
            } else {
                free(k);
            }
        }
        tw_status st = scrub_json(r, c, depth + 1, max_depth);
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}

tw_status tw_redact_json(tw_redactor *r, cJSON *v, size_t max_depth)
{
    return v ? scrub_json(r, v, 0, max_depth ? max_depth : 64) : TW_OK;
}
