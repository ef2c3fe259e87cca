/* Secret redaction for recorded traffic (redact.h). */
#include "redact.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const dropped_exact[] = {
    "authorization", "proxy-authorization", "api-key", "x-api-key", "cookie", "set-cookie",
    "openai-organization", "openai-project", "anthropic-organization-id", NULL};

static const char *const dropped_parts[] = {"organization", "project", "token",  "secret",
                                            "password",     "session", "auth",   "key",
                                            "cookie",       NULL};

/* JSON fields and query parameters whose value is a credential (names as
 * normalised by norm_name), exactly or as a suffix. */
static const char *const secret_fields[] = {
    "token",       "secret",        "password",    "passwd",     "api_key",
    "apikey",      "x_api_key",     "authorization", "auth",     "cookie",
    "credential",  "credentials",   "private_key", "client_secret", NULL};
static const char *const secret_suffixes[] = {"_token",       "_secret",     "_password",
                                              "_passwd",      "_api_key",    "_apikey",
                                              "_private_key", "_secret_key", "_access_key",
                                              NULL};

/* Set-Cookie attributes: not secret values. */
static const char *const cookie_attrs[] = {"path",     "expires",  "max-age", "domain",
                                           "samesite", "priority", NULL};

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

tw_status tw_redactor_add_field(tw_redactor *r, const char *name)
{
    return push(&r->fields, &r->nfields, name, strlen(name));
}

static bool have(char *const *vals, size_t nv, const char *s, size_t n)
{
    for (size_t i = 0; i < nv; i++)
        if (strlen(vals[i]) == n && memcmp(vals[i], s, n) == 0)
            return true;
    return false;
}

/* The value, trimmed, and for "Bearer X" / "Basic X" also X: each kept when
 * it has 6 bytes or more and no NUL. */
static tw_status add_value_to(char ***vals, size_t *nv, const char *p, size_t n)
{
    tw_trim(&p, &n);
    if (n >= 6 && !memchr(p, '\0', n) && !have(*vals, *nv, p, n)) {
        tw_status st = push(vals, nv, p, n);
        if (st != TW_OK)
            return st;
    }
    const char *sp = memchr(p, ' ', n);
    if (sp) {
        const char *t = sp + 1;
        size_t tn = n - (size_t)(t - p);
        tw_trim(&t, &tn);
        if (tn >= 6 && !memchr(t, '\0', tn) && !have(*vals, *nv, t, tn))
            return push(vals, nv, t, tn);
    }
    return TW_OK;
}

static tw_status add_valuen(tw_redactor *r, const char *p, size_t n)
{
    tw_status st = add_value_to(&r->values, &r->nvalues, p, n);
    if (st == TW_OK && r->publish) {
        char *c = tw_strndup(p, n);
        st = c ? tw_secret_add(c) : TW_ERR_NOMEM;
        free(c);
    }
    return st;
}

tw_status tw_redactor_add_value(tw_redactor *r, const char *value)
{
    return add_valuen(r, value, strlen(value));
}

void tw_redactor_free(tw_redactor *r)
{
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    for (size_t i = 0; i < r->nfields; i++)
        free(r->fields[i]);
    for (size_t i = 0; i < r->nvalues; i++)
        free(r->values[i]);
    free(r->names);
    free(r->fields);
    free(r->values);
    memset(r, 0, sizeof *r);
}

bool tw_redact_header_dropped(const tw_redactor *r, const char *name)
{
    for (size_t i = 0; r && i < r->nnames; i++)
        if (strcasecmp(r->names[i], name) == 0)
            return true;
    for (const char *const *p = dropped_exact; *p; p++)
        if (strcasecmp(*p, name) == 0)
            return true;
    /* x-ratelimit-remaining-tokens and the like are counters, not secrets */
    if (contains_ci(name, "ratelimit") || contains_ci(name, "rate-limit"))
        return false;
    for (const char *const *p = dropped_parts; *p; p++)
        if (contains_ci(name, *p))
            return true;
    return false;
}

/* Lower case, '-' ' ' '.' as '_', "accessToken" as "access_token". */
static void norm_name(const char *s, size_t n, char *out, size_t outn)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 2 < outn; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z') {
            if (i > 0 && o > 0 && out[o - 1] != '_' &&
                ((s[i - 1] >= 'a' && s[i - 1] <= 'z') || (s[i - 1] >= '0' && s[i - 1] <= '9')))
                out[o++] = '_';
            out[o++] = (char)(c - 'A' + 'a');
        } else if (c == '-' || c == ' ' || c == '.') {
            out[o++] = '_';
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
}

static bool field_secret_n(const tw_redactor *r, const char *name, size_t n)
{
    for (size_t i = 0; r && i < r->nfields; i++)
        if (strlen(r->fields[i]) == n && strncasecmp(r->fields[i], name, n) == 0)
            return true;
    char k[128];
    norm_name(name, n, k, sizeof k);
    size_t kl = strlen(k);
    for (const char *const *p = secret_fields; *p; p++)
        if (strcmp(k, *p) == 0)
            return true;
    for (const char *const *p = secret_suffixes; *p; p++) {
        size_t pl = strlen(*p);
        if (kl > pl && strcmp(k + kl - pl, *p) == 0)
            return true;
    }
    return false;
}

bool tw_redact_field_secret(const tw_redactor *r, const char *name)
{
    return name && field_secret_n(r, name, strlen(name));
}

/* A query parameter named like a credential ("key" too). */
static bool param_secret(const tw_redactor *r, const char *name, size_t n)
{
    return (n == 3 && strncasecmp(name, "key", 3) == 0) || field_secret_n(r, name, n);
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

/* "?key=" / "&api_key=" at s[i] (a credential parameter name, at most 64
 * bytes): the length up to and including '='. */
static size_t query_param(const tw_redactor *r, const char *s, size_t n, size_t i)
{
    if (s[i] != '?' && s[i] != '&')
        return 0;
    size_t j = i + 1;
    while (j < n && j - i <= 65 && (is_alnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '-'))
        j++;
    if (j >= n || s[j] != '=' || j == i + 1 || j - i > 65)
        return 0;
    return param_secret(r, s + i + 1, j - i - 1) ? j - i + 1 : 0;
}

/* End of a query parameter's value starting at s[j]. */
static size_t param_end(const char *s, size_t n, size_t j)
{
    while (j < n && (is_token_char((unsigned char)s[j]) || s[j] == '%'))
        j++;
    return j;
}

tw_status tw_redact_text(tw_redactor *r, const char *s0, size_t n0, tw_buf *out)
{
    /* first every remembered value, in any encoding */
    tw_buf vb = {0};
    size_t cnt = 0;
    tw_status st = tw_scrub_values(r->values, r->nvalues, s0, n0, &vb, &cnt, NULL);
    if (st != TW_OK) {
        tw_buf_free(&vb);
        return st;
    }
    r->scrubbed += cnt;
    const char *s = vb.data ? vb.data : "";
    size_t n = vb.len;
    size_t i = 0, plain = 0; /* s[plain, i) not yet copied */
#define FLUSH()                                                                    \
    do {                                                                           \
        if (i > plain && (st = tw_buf_append(out, s + plain, i - plain)) != TW_OK) \
            goto done;                                                             \
    } while (0)
    while (i < n) {
        size_t k = key_like(s, n, i);
        if (k) {
            FLUSH();
            if ((st = tw_buf_puts(out, TW_REDACTED)) != TW_OK)
                goto done;
            r->scrubbed++;
            i += k;
            plain = i;
            continue;
        }
        size_t pre = auth_scheme(s, n, i);
        bool query = false;
        if (!pre) {
            pre = query_param(r, s, n, i);
            query = pre != 0;
        }
        if (pre) {
            size_t j = query ? param_end(s, n, i + pre) : i + pre;
            if (!query)
                while (j < n && is_token_char((unsigned char)s[j]))
                    j++;
            if (j - i - pre >= (query ? 1u : 6u)) {
                i += pre;
                FLUSH();
                if ((st = tw_buf_puts(out, TW_REDACTED)) != TW_OK)
                    goto done;
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
done:
    tw_buf_free(&vb);
    return st;
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

/* ---- discovery ---- */

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A query parameter's value, as written and percent-decoded. */
static tw_status add_param_value(tw_redactor *r, const char *v, size_t n)
{
    tw_status st = add_valuen(r, v, n);
    if (st != TW_OK || !memchr(v, '%', n))
        return st;
    char *d = malloc(n + 1);
    if (!d)
        return TW_ERR_NOMEM;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int h, l;
        if (v[i] == '%' && i + 2 < n && (h = hexval((unsigned char)v[i + 1])) >= 0 &&
            (l = hexval((unsigned char)v[i + 2])) >= 0) {
            d[o++] = (char)(h * 16 + l);
            i += 2;
        } else {
            d[o++] = v[i];
        }
    }
    st = add_valuen(r, d, o);
    free(d);
    return st;
}

tw_status tw_redact_discover_text(tw_redactor *r, const char *s, size_t n)
{
    tw_status st = TW_OK;
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        size_t k = key_like(s, n, i);
        if (k) {
            st = add_valuen(r, s + i, k);
            i += k - 1;
            continue;
        }
        size_t pre = auth_scheme(s, n, i);
        if (pre) {
            /* a token, not prose ("the bearer instrument"): 12 bytes or
             * more, not only letters */
            size_t j = i + pre;
            bool letters = true;
            while (j < n && is_token_char((unsigned char)s[j])) {
                unsigned char c = (unsigned char)s[j] | 0x20;
                letters = letters && c >= 'a' && c <= 'z';
                j++;
            }
            if (j - i - pre >= 12 && !letters)
                st = add_valuen(r, s + i + pre, j - i - pre);
            continue;
        }
        pre = query_param(r, s, n, i);
        if (pre) {
            size_t j = param_end(s, n, i + pre);
            if (j > i + pre)
                st = add_param_value(r, s + i + pre, j - i - pre);
        }
    }
    return st;
}

tw_status tw_redact_discover_header(tw_redactor *r, const char *name, const char *value)
{
    if (!name || !value)
        return TW_OK;
    tw_status st = TW_OK;
    if (tw_redact_header_dropped(r, name)) {
        if ((st = tw_redactor_add_value(r, value)) != TW_OK)
            return st;
        /* cookie pairs: "a=1; session=xyz" and Set-Cookie's first pair */
        for (const char *p = value; *p && st == TW_OK;) {
            size_t len = strcspn(p, ";");
            const char *eq = memchr(p, '=', len);
            if (eq) {
                const char *nm = p;
                size_t nl = (size_t)(eq - p);
                tw_trim(&nm, &nl);
                bool attr = false;
                for (const char *const *a = cookie_attrs; *a && !attr; a++)
                    attr = strlen(*a) == nl && strncasecmp(*a, nm, nl) == 0;
                if (!attr)
                    st = add_valuen(r, eq + 1, len - (size_t)(eq + 1 - p));
            }
            p += len;
            if (*p == ';')
                p++;
        }
    }
    if (st == TW_OK)
        st = tw_redact_discover_text(r, value, strlen(value));
    return st;
}

static bool looks_container(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return *s == '{' || *s == '[';
}

/* A "token" member beside a "logprob": a model token, not a credential. */
static bool logprob_token(const cJSON *parent, const cJSON *c)
{
    return strcasecmp(c->string, "token") == 0 && parent &&
           cJSON_GetObjectItemCaseSensitive(parent, "logprob") != NULL;
}

static bool secret_member(const tw_redactor *r, const cJSON *parent, const cJSON *c)
{
    return c->string && tw_redact_field_secret(r, c->string) && !logprob_token(parent, c);
}

static tw_status discover_json(tw_redactor *r, const cJSON *v, size_t depth, size_t max_depth)
{
    if (!v || depth > max_depth)
        return TW_OK;
    if (cJSON_IsString(v) && v->valuestring) {
        const char *s = v->valuestring;
        tw_status st = tw_redact_discover_text(r, s, strlen(s));
        if (st == TW_OK && looks_container(s) && depth < max_depth) {
            cJSON *inner = NULL;
            if (tw_json_parse(s, strlen(s), max_depth - depth, &inner, NULL) == TW_OK && inner)
                st = discover_json(r, inner, depth + 1, max_depth);
            cJSON_Delete(inner);
        }
        return st;
    }
    for (const cJSON *c = v->child; c; c = c->next) {
        tw_status st = TW_OK;
        if (secret_member(r, v, c) && cJSON_IsString(c) && c->valuestring)
            st = tw_redactor_add_value(r, c->valuestring);
        else if (secret_member(r, v, c) && cJSON_IsNumber(c)) {
            char num[64];
            snprintf(num, sizeof num, "%.17g", c->valuedouble);
            st = tw_redactor_add_value(r, num);
        }
        if (st == TW_OK)
            st = discover_json(r, c, depth + 1, max_depth);
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}

tw_status tw_redact_discover_json(tw_redactor *r, const cJSON *v, size_t max_depth)
{
    return discover_json(r, v, 0, max_depth ? max_depth : 64);
}

tw_status tw_redact_discover_body(tw_redactor *r, const char *s, size_t n, size_t max_depth)
{
    if (!s || !n)
        return TW_OK;
    if (!max_depth)
        max_depth = 64;
    cJSON *v = NULL;
    tw_status st = TW_OK;
    if (tw_json_parse(s, n, max_depth, &v, NULL) == TW_OK && v) {
        st = discover_json(r, v, 0, max_depth);
        cJSON_Delete(v);
        if (st != TW_OK)
            return st;
    } else {
        /* an event stream: each "data:" line that is JSON, and the
         * arguments of each call assembled from its fragments */
        size_t nl_count = 1;
        for (size_t i = 0; i < n; i++)
            nl_count += s[i] == '\n';
        const char **lines = malloc(nl_count * sizeof *lines);
        size_t *lens = malloc(nl_count * sizeof *lens), nlines = 0;
        if (!lines || !lens) {
            free(lines);
            free(lens);
            return TW_ERR_NOMEM;
        }
        for (size_t i = 0; i < n && st == TW_OK;) {
            const char *nl = memchr(s + i, '\n', n - i);
            size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
            const char *l = s + i;
            size_t ll = len;
            if (ll >= 5 && memcmp(l, "data:", 5) == 0) {
                l += 5;
                ll -= 5;
            }
            tw_trim(&l, &ll);
            if (ll && *l == '{') {
                lines[nlines] = l;
                lens[nlines++] = ll;
            }
            if (ll && (*l == '{' || *l == '[')) {
                cJSON *e = NULL;
                if (tw_json_parse(l, ll, max_depth, &e, NULL) == TW_OK && e)
                    st = discover_json(r, e, 0, max_depth);
                cJSON_Delete(e);
            }
            i += len + 1;
        }
        if (st == TW_OK)
            st = tw_redact_discover_stream(r, lines, lens, nlines, max_depth);
        free(lines);
        free(lens);
    }
    return st == TW_OK ? tw_redact_discover_text(r, s, n) : st;
}

/* ---- scrubbing JSON ---- */

static tw_status swap_string(cJSON *v, char *s)
{
    if (strcmp(s, v->valuestring) != 0) {
        /* cJSON owns valuestring: swap the allocation (cJSON_free is free here) */
        cJSON_free(v->valuestring);
        v->valuestring = s;
    } else {
        free(s);
    }
    return TW_OK;
}

static tw_status scrub_json(tw_redactor *r, cJSON *v, size_t depth, size_t max_depth)
{
    if (depth > max_depth)
        return TW_OK; /* the loaders refuse deeper trees before this point */
    if (cJSON_IsString(v) && v->valuestring) {
        if (looks_container(v->valuestring) && depth < max_depth) {
            /* a JSON document inside a string (a tool call's arguments) */
            cJSON *inner = NULL;
            const char *s = v->valuestring;
            if (tw_json_parse(s, strlen(s), max_depth - depth, &inner, NULL) == TW_OK && inner) {
                size_t before = r->scrubbed;
                tw_status st = scrub_json(r, inner, depth + 1, max_depth);
                char *txt = st == TW_OK && r->scrubbed != before ? tw_json_print(inner, NULL) : NULL;
                cJSON_Delete(inner);
                if (st != TW_OK)
                    return st;
                if (r->scrubbed != before) {
                    if (!txt)
                        return TW_ERR_NOMEM;
                    char *c = tw_strdup(txt);
                    cJSON_free(txt);
                    return c ? swap_string(v, c) : TW_ERR_NOMEM;
                }
                return TW_OK;
            }
            cJSON_Delete(inner);
        }
        char *s = tw_redact_str(r, v->valuestring);
        return s ? swap_string(v, s) : TW_ERR_NOMEM;
    }
    for (cJSON *c = v->child; c; c = c->next) {
        if (secret_member(r, v, c) &&
            ((cJSON_IsString(c) && c->valuestring && c->valuestring[0] &&
              strcmp(c->valuestring, TW_REDACTED) != 0) ||
             cJSON_IsNumber(c))) {
            char *s = tw_strdup(TW_REDACTED);
            if (!s)
                return TW_ERR_NOMEM;
            tw_status st = TW_OK;
            if (cJSON_IsString(c)) {
                st = tw_redactor_add_value(r, c->valuestring);
                cJSON_free(c->valuestring);
            } else {
                c->type = cJSON_String | (c->type & cJSON_StringIsConst);
                c->valueint = 0;
                c->valuedouble = 0;
            }
            c->valuestring = s;
            r->scrubbed++;
            if (st != TW_OK)
                return st;
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

/* ---- the value scrubber ---- */

/*
 * A view of the text with one level of escapes undone (\", \\, \/, \b, \f,
 * \n, \r, \t, \uXXXX as UTF-8, %XX), each byte knowing where the original
 * bytes it stands for start. The spans partition the original text in
 * order, so a span ends where the next different one starts. The raw text
 * is the view without a map.
 */
typedef struct view {
    const unsigned char *d;
    size_t n;
    size_t raw_n; /* the original text's length */
    unsigned char *own;
    uint32_t *from;
} view;

static size_t vfrom(const view *v, size_t i)
{
    return v->from ? v->from[i] : i;
}

/* End (exclusive) of the original bytes of view byte i. */
static size_t vto(const view *v, size_t i)
{
    if (!v->from)
        return i + 1;
    for (size_t k = i + 1; k < v->n; k++)
        if (v->from[k] != v->from[i])
            return v->from[k];
    return v->raw_n;
}

static void view_free(view *v)
{
    free(v->own);
    free(v->from);
    memset(v, 0, sizeof *v);
}

/* An HTML/XML character reference at p[0] == '&' (&amp; &lt; &gt; &quot;
 * &apos; &#NN; &#xHH;): its length, 0 when none; *cp the code point. */
static size_t entity(const unsigned char *p, size_t n, unsigned *cp)
{
    static const struct {
        const char *name;
        unsigned char c;
    } named[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        size_t l = strlen(named[k].name);
        if (n >= l && strncasecmp((const char *)p, named[k].name, l) == 0) {
            *cp = named[k].c;
            return l;
        }
    }
    if (n < 4 || p[1] != '#')
        return 0;
    bool hex = p[2] == 'x' || p[2] == 'X';
    size_t i = hex ? 3 : 2;
    unsigned v = 0;
    size_t digits = 0;
    for (; i < n && digits < 8; i++, digits++) {
        int h = hexval(p[i]);
        if (h < 0 || (!hex && h > 9))
            break;
        v = v * (hex ? 16u : 10u) + (unsigned)h;
    }
    if (!digits || i >= n || p[i] != ';' || v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return i + 1;
}

/* cp as UTF-8 into b (4 bytes): the length. */
static size_t utf8_put(unsigned cp, unsigned char *b)
{
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | (cp >> 6));
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | (cp >> 12));
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    b[0] = (unsigned char)(0xF0 | (cp >> 18));
    b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* d: s with one level of escapes undone; d->d stays NULL when s has none. */
static tw_status view_decode(const view *s, view *d)
{
    static const char esc_in[] = "\"\\/bfnrt";
    static const char esc_out[] = "\"\\/\b\f\n\r\t";
    memset(d, 0, sizeof *d);
    if (!s->n || s->raw_n > UINT32_MAX ||
        (!memchr(s->d, '\\', s->n) && !memchr(s->d, '%', s->n) && !memchr(s->d, '&', s->n)))
        return TW_OK;
    d->raw_n = s->raw_n;
    d->own = malloc(s->n);
    d->from = malloc(s->n * sizeof *d->from);
    if (!d->own || !d->from) {
        view_free(d);
        return TW_ERR_NOMEM;
    }
    bool changed = false;
    size_t o = 0;
    for (size_t i = 0; i < s->n;) {
        unsigned char c = s->d[i], b[4];
        size_t len = 1, nb = 1;
        const char *e;
        unsigned cp = 0;
        b[0] = c;
        if (c == '\\' && i + 1 < s->n && s->d[i + 1] && (e = strchr(esc_in, s->d[i + 1]))) {
            b[0] = (unsigned char)esc_out[e - esc_in];
            len = 2;
        } else if (c == '\\' && i + 5 < s->n && s->d[i + 1] == 'u' && hexval(s->d[i + 2]) >= 0 &&
                   hexval(s->d[i + 3]) >= 0 && hexval(s->d[i + 4]) >= 0 &&
                   hexval(s->d[i + 5]) >= 0) {
            cp = (unsigned)(hexval(s->d[i + 2]) << 12 | hexval(s->d[i + 3]) << 8 |
                            hexval(s->d[i + 4]) << 4 | hexval(s->d[i + 5]));
            len = 6;
            nb = utf8_put(cp, b);
        } else if (c == '%' && i + 2 < s->n && hexval(s->d[i + 1]) >= 0 &&
                   hexval(s->d[i + 2]) >= 0) {
            b[0] = (unsigned char)(hexval(s->d[i + 1]) * 16 + hexval(s->d[i + 2]));
            len = 3;
        } else if (c == '&' && (len = entity(s->d + i, s->n - i, &cp)) > 0) {
            nb = utf8_put(cp, b);
        } else {
            len = 1;
        }
        changed = changed || len > 1;
        for (size_t k = 0; k < nb; k++) {
            d->own[o] = b[k];
            d->from[o] = (uint32_t)vfrom(s, i);
            o++;
        }
        i += len;
    }
    if (!changed) {
        view_free(d);
        return TW_OK;
    }
    d->d = d->own;
    d->n = o;
    return TW_OK;
}

typedef struct span {
    size_t a, b;
} span;

/* Shortest beginning of a value that is scrubbed wherever it stands: what a
 * cut (an excerpt, a short quote) may have kept of a secret. */
#define CUT_PREFIX_MIN 8

/* Room for one more span in *sp (geometric growth). */
static tw_status span_grow(span **sp, size_t nsp, size_t *cap)
{
    if (nsp < *cap)
        return TW_OK;
    size_t nc = *cap ? *cap * 2 : 16;
    span *ns = realloc(*sp, nc * sizeof *ns);
    if (!ns)
        return TW_ERR_NOMEM;
    *sp = ns;
    *cap = nc;
    return TW_OK;
}

static int span_cmp(const void *x, const void *y)
{
    const span *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a ? 1 : p->b < q->b ? -1 : p->b > q->b;
}

/* Sort the spans and merge the overlapping ones in place; the count left. */
static size_t merge_spans(span *sp, size_t nsp)
{
    if (nsp)
        qsort(sp, nsp, sizeof *sp, span_cmp);
    size_t m = 0;
    for (size_t i = 0; i < nsp; i++) {
        if (m && sp[i].a <= sp[m - 1].b) {
            if (sp[i].b > sp[m - 1].b)
                sp[m - 1].b = sp[i].b;
        } else {
            sp[m++] = sp[i];
        }
    }
    return m;
}

tw_status tw_scrub_values(char *const *values, size_t nvalues, const char *s, size_t n,
                          tw_buf *out, size_t *count, size_t *hold)
{
    if (hold)
        *hold = 0;
    if (!nvalues || !n)
        return n ? tw_buf_append(out, s, n) : tw_buf_reserve(out, 1);
    view v[3];
    memset(v, 0, sizeof v);
    v[0].d = (const unsigned char *)s;
    v[0].n = v[0].raw_n = n;
    span *sp = NULL;
    size_t nsp = 0, capsp = 0;
    tw_status st = view_decode(&v[0], &v[1]);
    if (st == TW_OK && v[1].d)
        st = view_decode(&v[1], &v[2]);
    for (size_t k = 0; k < 3 && st == TW_OK; k++) {
        if (!v[k].d)
            continue;
        for (size_t j = 0; j < nvalues && st == TW_OK; j++) {
            size_t vl = strlen(values[j]);
            const char *h = (const char *)v[k].d;
            size_t pos = 0;
            const char *m;
            while (vl && pos + vl <= v[k].n && (m = tw_memmem(h + pos, v[k].n - pos, values[j], vl))) {
                size_t at = (size_t)(m - h);
                if ((st = span_grow(&sp, nsp, &capsp)) != TW_OK)
                    break;
                sp[nsp].a = vfrom(&v[k], at);
                sp[nsp].b = vto(&v[k], at + vl - 1);
                nsp++;
                pos = at + vl;
            }
        }
    }
    /* a secret's start kept by a cut (an excerpt, a %.40s quote): CUT_PREFIX_MIN
     * bytes of its beginning or more, wherever they stand, extended as far as
     * they match */
    for (size_t j = 0; j < nvalues && st == TW_OK; j++) {
        size_t vl = strlen(values[j]);
        if (vl <= CUT_PREFIX_MIN)
            continue;
        for (size_t k = 0; k < 3 && st == TW_OK; k++) {
            if (!v[k].d)
                continue;
            const char *h = (const char *)v[k].d;
            size_t pos = 0;
            const char *m;
            while (pos + CUT_PREFIX_MIN <= v[k].n &&
                   (m = tw_memmem(h + pos, v[k].n - pos, values[j], CUT_PREFIX_MIN))) {
                size_t at = (size_t)(m - h), q = CUT_PREFIX_MIN;
                while (q < vl && at + q < v[k].n && h[at + q] == values[j][q])
                    q++;
                if ((st = span_grow(&sp, nsp, &capsp)) != TW_OK)
                    break;
                sp[nsp].a = vfrom(&v[k], at);
                sp[nsp].b = vto(&v[k], at + q - 1);
                nsp++;
                pos = at + q;
            }
        }
    }
    size_t cut = n;
    if (st == TW_OK && hold) {
        /* bytes at the end that may start a value the next bytes complete */
        for (size_t k = 0; k < 3; k++) {
            if (!v[k].d)
                continue;
            for (size_t j = 0; j < nvalues; j++) {
                size_t vl = strlen(values[j]);
                if (!vl)
                    continue;
                for (size_t m = vl - 1 < v[k].n ? vl - 1 : v[k].n; m > 0; m--)
                    if (memcmp(v[k].d + v[k].n - m, values[j], m) == 0) {
                        size_t at = vfrom(&v[k], v[k].n - m);
                        cut = at < cut ? at : cut;
                        break;
                    }
            }
        }
        /* an entity cut short: "&", "&am", "&#x4" */
        for (size_t back = 1; back <= 9 && back <= n; back++) {
            if (s[n - back] == ';')
                break;
            if (s[n - back] == '&') {
                cut = n - back < cut ? n - back : cut;
                break;
            }
        }
        /* an escape cut short: "\", "\u00", "%", "%4" */
        for (size_t back = 1; back <= 5 && back <= n; back++) {
            char c = s[n - back];
            if ((c == '\\' && (back == 1 || s[n - back + 1] == 'u')) || (c == '%' && back <= 2)) {
                cut = n - back < cut ? n - back : cut;
                break;
            }
        }
    }
    if (st == TW_OK) {
        size_t m = merge_spans(sp, nsp);
        nsp = m;
        /* never cut a match in two: hold all of it */
        for (size_t i = 0; i < nsp; i++)
            if (sp[i].a < cut && cut < sp[i].b)
                cut = sp[i].a;
        size_t at = 0;
        st = tw_buf_reserve(out, 1);
        for (size_t i = 0; i < nsp && st == TW_OK && sp[i].b <= cut; i++) {
            if (sp[i].a > at)
                st = tw_buf_append(out, s + at, sp[i].a - at);
            if (st == TW_OK)
                st = tw_buf_puts(out, TW_REDACTED);
            if (count)
                (*count)++;
            at = sp[i].b;
        }
        if (st == TW_OK && cut > at)
            st = tw_buf_append(out, s + at, cut - at);
        if (hold)
            *hold = n - cut;
    }
    free(sp);
    view_free(&v[1]);
    view_free(&v[2]);
    return st;
}

/* ---- tool-call arguments split across stream events ---- */

/* Distinct calls followed in one stream. */
#define STREAM_MAX_CALLS 4096u

typedef struct frag {
    cJSON *node; /* the string holding the fragment */
    size_t ev;   /* its event */
    size_t off;  /* where it starts in the call's arguments */
} frag;

typedef struct call_acc {
    double choice, index; /* choice (-1: Anthropic) and call index */
    frag *f;
    size_t nf, capf;
    tw_buf args; /* the fragments, decoded, end to end */
} call_acc;

typedef struct stream_calls {
    cJSON **ev;
    size_t nev;
    call_acc *c;
    size_t nc, capc;
} stream_calls;

static void stream_calls_free(stream_calls *sc)
{
    for (size_t i = 0; i < sc->nev; i++)
        cJSON_Delete(sc->ev[i]);
    for (size_t i = 0; i < sc->nc; i++) {
        free(sc->c[i].f);
        tw_buf_free(&sc->c[i].args);
    }
    free(sc->ev);
    free(sc->c);
    memset(sc, 0, sizeof *sc);
}

static tw_status add_frag(stream_calls *sc, double choice, double index, size_t ev, cJSON *node)
{
    call_acc *c = NULL;
    for (size_t i = sc->nc; i-- > 0 && !c;)
        if (sc->c[i].choice == choice && sc->c[i].index == index)
            c = &sc->c[i];
    if (!c) {
        if (sc->nc >= STREAM_MAX_CALLS)
            return TW_ERR_LIMIT;
        if (sc->nc == sc->capc) {
            size_t nc = sc->capc ? sc->capc * 2 : 8;
            call_acc *n = realloc(sc->c, nc * sizeof *n);
            if (!n)
                return TW_ERR_NOMEM;
            sc->c = n;
            sc->capc = nc;
        }
        c = &sc->c[sc->nc++];
        memset(c, 0, sizeof *c);
        c->choice = choice;
        c->index = index;
    }
    if (c->nf == c->capf) {
        size_t nc = c->capf ? c->capf * 2 : 8;
        frag *n = realloc(c->f, nc * sizeof *n);
        if (!n)
            return TW_ERR_NOMEM;
        c->f = n;
        c->capf = nc;
    }
    c->f[c->nf++] = (frag){node, ev, c->args.len};
    return tw_buf_puts(&c->args, node->valuestring);
}

static double num_or(const cJSON *v, double dflt)
{
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* Every event's data parsed, and the argument fragments of each call:
 * OpenAI choices[].delta.tool_calls[].function.arguments, Anthropic
 * content_block_delta input_json_delta partial_json. */
static tw_status stream_calls_load(stream_calls *sc, const char *const *data, const size_t *len,
                                   size_t n, size_t max_depth)
{
    memset(sc, 0, sizeof *sc);
    sc->ev = calloc(n ? n : 1, sizeof *sc->ev);
    if (!sc->ev)
        return TW_ERR_NOMEM;
    sc->nev = n;
    tw_status st = TW_OK;
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        const char *d = data[i];
        size_t dl = len[i];
        tw_trim(&d, &dl);
        if (!dl || *d != '{' || tw_json_parse(d, dl, max_depth, &sc->ev[i], NULL) != TW_OK) {
            cJSON_Delete(sc->ev[i]);
            sc->ev[i] = NULL;
            continue;
        }
        cJSON *e = sc->ev[i];
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(e, "type");
        if (cJSON_IsString(ty) && strcmp(ty->valuestring, "content_block_delta") == 0) {
            cJSON *delta = cJSON_GetObjectItemCaseSensitive(e, "delta");
            cJSON *pj = cJSON_GetObjectItemCaseSensitive(delta, "partial_json");
            if (cJSON_IsString(pj) && pj->valuestring)
                st = add_frag(sc, -1, num_or(cJSON_GetObjectItemCaseSensitive(e, "index"), 0), i, pj);
            continue;
        }
        const cJSON *choices = cJSON_GetObjectItemCaseSensitive(e, "choices");
        double cpos = 0;
        for (const cJSON *ch = cJSON_IsArray(choices) ? choices->child : NULL; ch && st == TW_OK;
             ch = ch->next, cpos++) {
            const cJSON *delta = cJSON_GetObjectItemCaseSensitive(ch, "delta");
            const cJSON *tcs = cJSON_GetObjectItemCaseSensitive(delta, "tool_calls");
            double ci = num_or(cJSON_GetObjectItemCaseSensitive(ch, "index"), cpos), tpos = 0;
            for (const cJSON *tc = cJSON_IsArray(tcs) ? tcs->child : NULL; tc && st == TW_OK;
                 tc = tc->next, tpos++) {
                cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
                cJSON *a = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
                if (cJSON_IsString(a) && a->valuestring)
                    st = add_frag(sc, ci, num_or(cJSON_GetObjectItemCaseSensitive(tc, "index"), tpos),
                                  i, a);
            }
        }
    }
    return st;
}

tw_status tw_redact_discover_stream(tw_redactor *r, const char *const *data, const size_t *len,
                                    size_t n, size_t max_depth)
{
    if (!max_depth)
        max_depth = 64;
    stream_calls sc;
    tw_status st = stream_calls_load(&sc, data, len, n, max_depth);
    for (size_t i = 0; i < sc.nc && st == TW_OK; i++) {
        const tw_buf *a = &sc.c[i].args;
        if (sc.c[i].nf < 2 || !a->len)
            continue; /* one fragment: discovery of the event itself finds it */
        cJSON *v = NULL;
        if (tw_json_parse(a->data, a->len, max_depth, &v, NULL) == TW_OK && v)
            st = discover_json(r, v, 0, max_depth);
        cJSON_Delete(v);
        if (st == TW_OK)
            st = tw_redact_discover_text(r, a->data, a->len);
    }
    stream_calls_free(&sc);
    return st;
}

/* Spans of the remembered values in a call's arguments, as written and
 * JSON-escaped, merged and in order. */
static tw_status value_spans(const tw_redactor *r, const tw_buf *a, span **out, size_t *nout)
{
    span *sp = NULL;
    size_t nsp = 0, cap = 0;
    tw_status st = TW_OK;
    for (size_t j = 0; j < r->nvalues && st == TW_OK; j++) {
        char *esc = NULL;
        cJSON *js = cJSON_CreateString(r->values[j]);
        char *pr = js ? cJSON_PrintUnformatted(js) : NULL;
        cJSON_Delete(js);
        if (!pr) {
            st = TW_ERR_NOMEM;
            break;
        }
        pr[strlen(pr) - 1] = '\0';
        esc = pr + 1;
        const char *forms[2] = {r->values[j], strcmp(esc, r->values[j]) ? esc : NULL};
        for (int f = 0; f < 2 && st == TW_OK; f++) {
            if (!forms[f])
                continue;
            size_t vl = strlen(forms[f]), pos = 0;
            const char *m;
            while (vl && pos + vl <= a->len && (m = tw_memmem(a->data + pos, a->len - pos, forms[f], vl))) {
                if (nsp == cap) {
                    size_t nc = cap ? cap * 2 : 8;
                    span *ns = realloc(sp, nc * sizeof *ns);
                    if (!ns) {
                        st = TW_ERR_NOMEM;
                        break;
                    }
                    sp = ns;
                    cap = nc;
                }
                size_t at = (size_t)(m - a->data);
                sp[nsp++] = (span){at, at + vl};
                pos = at + vl;
            }
        }
        cJSON_free(pr);
    }
    if (st != TW_OK) {
        free(sp);
        return st;
    }
    size_t m = merge_spans(sp, nsp);
    *out = sp;
    *nout = m;
    return TW_OK;
}

tw_status tw_redact_stream(tw_redactor *r, const char *const *data, const size_t *len, size_t n,
                           size_t max_depth, char **out)
{
    if (!max_depth)
        max_depth = 64;
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    stream_calls sc;
    tw_status st = stream_calls_load(&sc, data, len, n, max_depth);
    bool *changed = st == TW_OK ? calloc(n ? n : 1, sizeof *changed) : NULL;
    if (st == TW_OK && !changed)
        st = TW_ERR_NOMEM;
    for (size_t i = 0; i < sc.nc && st == TW_OK; i++) {
        call_acc *c = &sc.c[i];
        span *sp = NULL;
        size_t nsp = 0;
        if ((st = value_spans(r, &c->args, &sp, &nsp)) != TW_OK || !nsp) {
            free(sp);
            continue;
        }
        /* each fragment keeps its bytes outside every span; the marker goes
         * where a span starts, the rest of the span is dropped */
        size_t k = 0;
        for (size_t f = 0; f < c->nf && st == TW_OK; f++) {
            size_t a = c->f[f].off, b = f + 1 < c->nf ? c->f[f + 1].off : c->args.len;
            while (k < nsp && sp[k].b <= a)
                k++;
            if (k == nsp || sp[k].a >= b)
                continue;
            tw_buf nb = {0};
            if ((st = tw_buf_reserve(&nb, 1)) == TW_OK)
                nb.data[0] = '\0';
            size_t at = a;
            for (size_t q = k; q < nsp && sp[q].a < b && st == TW_OK; q++) {
                if (sp[q].a > at)
                    st = tw_buf_append(&nb, c->args.data + at, sp[q].a - at);
                if (st == TW_OK && sp[q].a >= a)
                    st = tw_buf_puts(&nb, TW_REDACTED);
                at = sp[q].b < b ? sp[q].b : b;
            }
            if (st == TW_OK && at < b)
                st = tw_buf_append(&nb, c->args.data + at, b - at);
            if (st != TW_OK) {
                tw_buf_free(&nb);
                break;
            }
            char *ns = tw_buf_take(&nb, NULL);
            if (!ns) {
                st = TW_ERR_NOMEM;
                break;
            }
            swap_string(c->f[f].node, ns);
            changed[c->f[f].ev] = true;
            r->scrubbed++;
        }
        free(sp);
    }
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        if (!changed[i])
            continue;
        out[i] = tw_json_print(sc.ev[i], NULL);
        if (!out[i])
            st = TW_ERR_NOMEM;
    }
    if (st != TW_OK)
        for (size_t i = 0; i < n; i++) {
            free(out[i]);
            out[i] = NULL;
        }
    free(changed);
    stream_calls_free(&sc);
    return st;
}

/* ---- the process-wide set ---- */

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static char **g_values;
static size_t g_nvalues;

tw_status tw_secret_add(const char *value)
{
    if (!value)
        return TW_OK;
    pthread_mutex_lock(&g_mu);
    tw_status st = add_value_to(&g_values, &g_nvalues, value, strlen(value));
    pthread_mutex_unlock(&g_mu);
    return st;
}

size_t tw_secret_count(void)
{
    pthread_mutex_lock(&g_mu);
    size_t n = g_nvalues;
    pthread_mutex_unlock(&g_mu);
    return n;
}

tw_status tw_secret_scrub(const char *s, size_t n, tw_buf *out, size_t *hold)
{
    pthread_mutex_lock(&g_mu);
    tw_status st = tw_scrub_values(g_values, g_nvalues, s, n, out, NULL, hold);
    pthread_mutex_unlock(&g_mu);
    return st;
}

size_t tw_redacted_cut(const char *s, size_t n)
{
    static const size_t ml = sizeof TW_REDACTED - 1;
    for (size_t k = ml - 1; k > 0; k--)
        if (n >= k && memcmp(s + n - k, TW_REDACTED, k) == 0)
            return n - k;
    return n;
}

char *tw_secret_clip(const char *s, size_t max)
{
    tw_buf b = {0};
    if (!s)
        s = "";
    if (tw_secret_scrub(s, strlen(s), &b, NULL) != TW_OK) {
        tw_buf_free(&b);
        return NULL;
    }
    if (b.data)
        b.data[b.len] = '\0'; /* the scrubber may only reserve room for it */
    if (b.len > max) {
        /* not inside a marker nor a UTF-8 sequence */
        size_t k = tw_redacted_cut(b.data, max);
        while (k > 0 && ((unsigned char)b.data[k] & 0xC0) == 0x80)
            k--;
        b.len = k;
        if (tw_buf_puts(&b, "...") != TW_OK) {
            tw_buf_free(&b);
            return NULL;
        }
    }
    return tw_buf_take(&b, NULL);
}

void tw_secret_reset(void)
{
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_nvalues; i++)
        free(g_values[i]);
    free(g_values);
    g_values = NULL;
    g_nvalues = 0;
    pthread_mutex_unlock(&g_mu);
}
