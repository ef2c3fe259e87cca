/* Base URLs: the one join of a path to a base, checks, credentials (url.h). */
#include "url.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

_Static_assert(TW_URL_BASE_MAX == 8192, "the message of tw_url_base_ok names the cap");

/* ---- the parts of a URL ---- */

/*
 * Where the parts lie: the authority is [auth, path) (none without "://":
 * auth == path == 0), the userinfo [auth, at) when at != NONE, the path
 * [path, query), the query (its '?' at query) [query, frag), the fragment
 * (its '#' at frag) [frag, len).
 */
#define NONE SIZE_MAX

typedef struct url_parts {
    size_t auth, at, path, query, frag, len;
} url_parts;

static void split(const char *u, url_parts *p)
{
    p->len = strlen(u);
    const char *s = strstr(u, "://");
    p->auth = s ? (size_t)(s - u) + 3 : 0;
    p->path = s ? p->auth + strcspn(u + p->auth, "/?#") : 0;
    p->at = NONE;
    /* the last '@': a userinfo that holds one unescaped is hidden whole */
    for (size_t i = p->auth; i < p->path; i++)
        if (u[i] == '@')
            p->at = i;
    p->frag = p->path + strcspn(u + p->path, "#");
    const char *q = memchr(u + p->path, '?', p->frag - p->path);
    p->query = q ? (size_t)(q - u) : p->frag;
}

/* ---- joining ---- */

char *tw_url_join(const char *base, const char *path)
{
    url_parts b;
    split(base, &b);
    size_t bl = b.query;
    while (bl > b.path && base[bl - 1] == '/')
        bl--;
    if (!path || !*path)
        path = "/";
    /* a base ending in /v1 already names the API version */
    if (bl - b.path >= 3 && memcmp(base + bl - 3, "/v1", 3) == 0 && strncmp(path, "/v1/", 4) == 0)
        path += 3;
    size_t pl = strcspn(path, "?#"), pq = pl, pqe = pl;
    if (path[pl] == '?') {
        pq = pl + 1;
        pqe = pq + strcspn(path + pq, "#");
    }
    size_t bq = b.query < b.frag ? b.query + 1 : b.frag, bqe = b.frag;
    /* base path, '/', path, '?', path query, '&', base query, NUL */
    char *u = malloc(bl + 1 + pl + 1 + (pqe - pq) + 1 + (bqe - bq) + 1);
    if (!u)
        return NULL;
    memcpy(u, base, bl);
    size_t o = bl;
    if (path[0] != '/')
        u[o++] = '/';
    memcpy(u + o, path, pl);
    o += pl;
    if (pqe > pq || bqe > bq)
        u[o++] = '?';
    memcpy(u + o, path + pq, pqe - pq);
    o += pqe - pq;
    if (pqe > pq && bqe > bq)
        u[o++] = '&';
    memcpy(u + o, base + bq, bqe - bq);
    o += bqe - bq;
    u[o] = '\0';
    return u;
}

/* ---- checks ---- */

bool tw_url_base_ok(const char *url, const char *what, tw_error *err)
{
    if (!url || (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%s wants an http:// or https:// base URL",
                     what);
        return false;
    }
    url_parts p;
    split(url, &p);
    const char *why = NULL;
    size_t host = p.at == NONE ? p.auth : p.at + 1;
    if (p.len > TW_URL_BASE_MAX)
        why = "is longer than 8192 bytes (TW_URL_BASE_MAX)";
    else if (p.path == host)
        why = "has no host";
    else if (p.frag < p.len)
        why = "has a fragment ('#…', which is never sent to a server; give the URL without it)";
    for (size_t i = 0; !why && i < p.len; i++)
        if ((unsigned char)url[i] <= 0x20 || url[i] == 0x7f)
            why = "holds a space or a control byte (percent-encode it)";
    if (!why)
        return true;
    char *shown = tw_url_shown(url);
    tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%s: the URL %.300s %s", what, shown ? shown : "",
                 why);
    free(shown);
    return false;
}

/* ---- credentials ---- */

bool tw_url_param_secret(const char *name, size_t n)
{
    char *c = tw_strndup(name, n);
    if (!c)
        return true; /* out of memory: hide rather than show */
    bool secret = tw_redact_field_secret(NULL, c);
    free(c);
    if (secret)
        return true;
    /* lower case, '-' as '_', camelCase as snake_case (as the field names) */
    char k[128];
    size_t o = 0;
    for (size_t i = 0; i < n && o + 2 < sizeof k; i++) {
        char ch = name[i];
        if (ch >= 'A' && ch <= 'Z') {
            if (o > 0 && k[o - 1] != '_' &&
                ((name[i - 1] >= 'a' && name[i - 1] <= 'z') ||
                 (name[i - 1] >= '0' && name[i - 1] <= '9')))
                k[o++] = '_';
            k[o++] = (char)(ch - 'A' + 'a');
        } else {
            k[o++] = ch == '-' ? '_' : ch;
        }
    }
    k[o] = '\0';
    static const char *const exact[] = {"key", "sig", "signature", "code", NULL};
    for (const char *const *e = exact; *e; e++)
        if (strcmp(k, *e) == 0)
            return true;
    static const char *const suffixes[] = {"_key", "_signature", NULL};
    for (const char *const *s = suffixes; *s; s++) {
        size_t sl = strlen(*s);
        if (o > sl && strcmp(k + o - sl, *s) == 0)
            return true;
    }
    return false;
}

/* Each parameter of the query u[from, to) ('&' or ';' between them): fn
 * with its value's place [vstart, vend), whether it has a value ("name="
 * has an empty one) and whether its percent-decoded name is a credential's.
 * Stops at the first status that is not TW_OK. */
typedef tw_status (*param_fn)(const char *u, size_t vstart, size_t vend, bool has_value,
                              bool secret, void *user);

static tw_status each_param(const char *u, size_t from, size_t to, param_fn fn, void *user)
{
    for (size_t i = from; i < to;) {
        size_t e = i;
        while (e < to && u[e] != '&' && u[e] != ';')
            e++;
        const char *eq = memchr(u + i, '=', e - i);
        size_t ne = eq ? (size_t)(eq - u) : e;
        size_t dn = 0;
        char *name = tw_pct_decode(u + i, ne - i, &dn);
        if (!name)
            return TW_ERR_NOMEM;
        bool secret = tw_url_param_secret(name, dn);
        free(name);
        tw_status st = fn(u, eq ? ne + 1 : e, e, eq != NULL, secret, user);
        if (st != TW_OK)
            return st;
        i = e < to ? e + 1 : e;
    }
    return TW_OK;
}

/* Add s[0, n) and, when it differs, its percent-decoded form. */
static tw_status learn_both(const char *s, size_t n)
{
    char *raw = tw_strndup(s, n);
    size_t dn = 0;
    char *dec = raw ? tw_pct_decode(s, n, &dn) : NULL;
    tw_status st = dec ? tw_secret_add(raw) : TW_ERR_NOMEM;
    if (st == TW_OK && strcmp(raw, dec) != 0)
        st = tw_secret_add(dec);
    free(raw);
    free(dec);
    return st;
}

static tw_status learn_param(const char *u, size_t vs, size_t ve, bool has_value, bool secret,
                             void *user)
{
    (void)user;
    return has_value && secret && ve > vs ? learn_both(u + vs, ve - vs) : TW_OK;
}

/* Base64 of s[0, n) (what a Basic Authorization header carries). */
static char *base64(const char *s, size_t n)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc((n + 2) / 3 * 4 + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)s[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)(unsigned char)s[i + 1] << 8;
        if (i + 2 < n)
            v |= (uint32_t)(unsigned char)s[i + 2];
        o[k++] = al[(v >> 18) & 63];
        o[k++] = al[(v >> 12) & 63];
        o[k++] = i + 1 < n ? al[(v >> 6) & 63] : '=';
        o[k++] = i + 2 < n ? al[v & 63] : '=';
    }
    o[k] = '\0';
    return o;
}

tw_status tw_url_learn_secrets(const char *url)
{
    if (!url)
        return TW_OK;
    url_parts p;
    split(url, &p);
    tw_status st = TW_OK;
    if (p.at != NONE) {
        const char *ui = url + p.auth;
        size_t un = p.at - p.auth;
        const char *colon = memchr(ui, ':', un);
        st = learn_both(ui, un);
        if (st == TW_OK)
            st = learn_both(ui, colon ? (size_t)(colon - ui) : un);
        if (st == TW_OK && colon)
            st = learn_both(colon + 1, un - (size_t)(colon + 1 - ui));
        /* libcurl sends "user:" for a userinfo without a password */
        size_t dn = 0;
        char *dec = NULL;
        if (st == TW_OK) {
            char *ui_c = colon ? NULL : malloc(un + 2);
            if (ui_c) {
                memcpy(ui_c, ui, un);
                memcpy(ui_c + un, ":", 2);
            }
            dec = colon  ? tw_pct_decode(ui, un, &dn)
                  : ui_c ? tw_pct_decode(ui_c, un + 1, &dn)
                         : NULL;
            free(ui_c);
        }
        char *b64 = dec ? base64(dec, dn) : NULL;
        if (st == TW_OK)
            st = b64 ? tw_secret_add(b64) : TW_ERR_NOMEM;
        free(dec);
        free(b64);
    }
    if (st == TW_OK && p.query < p.frag)
        st = each_param(url, p.query + 1, p.frag, learn_param, NULL);
    return st;
}

typedef struct shown_ctx {
    tw_buf *b;
    size_t done; /* url bytes written so far */
} shown_ctx;

static tw_status show_param(const char *u, size_t vs, size_t ve, bool has_value, bool secret,
                            void *user)
{
    shown_ctx *c = user;
    if (!has_value || !secret || ve == vs)
        return TW_OK;
    tw_status st = tw_buf_append(c->b, u + c->done, vs - c->done);
    if (st == TW_OK)
        st = tw_buf_puts(c->b, TW_REDACTED);
    c->done = ve;
    return st;
}

char *tw_url_shown(const char *url)
{
    if (!url)
        return NULL;
    url_parts p;
    split(url, &p);
    tw_buf b = {0};
    shown_ctx c = {&b, 0};
    tw_status st = TW_OK;
    if (p.at != NONE) {
        st = tw_buf_append(&b, url, p.auth);
        if (st == TW_OK)
            st = tw_buf_puts(&b, TW_REDACTED);
        c.done = p.at;
    }
    if (st == TW_OK && p.query < p.frag)
        st = each_param(url, p.query + 1, p.frag, show_param, &c);
    if (st == TW_OK)
        st = tw_buf_append(&b, url + c.done, p.frag - c.done);
    if (st != TW_OK) {
        tw_buf_free(&b);
        return NULL;
    }
    return tw_buf_take(&b, NULL);
}
