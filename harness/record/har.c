/* HAR 1.2 reader for the importer (har.h). */
#include "har.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fixture.h"

typedef struct hctx {
    const char *src;
    size_t len;
    const char *name;
    tw_error *err;
    tw_limits lim;
} hctx;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static tw_status
bad(hctx *c, const char *jpath, const char *fmt, ...)
{
    if (!c->err)
        return TW_ERR_INVALID;
    size_t line, col;
    tw_json_locate(c->src, c->len, jpath, false, &line, &col);
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tw_error_file(c->err, TW_ERR_INVALID, -1, jpath, "%s:%zu:%zu: %s: %s", c->name, line, col,
                  jpath, msg);
    return TW_ERR_INVALID;
}

static int b64val(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+' || ch == '-')
        return 62;
    if (ch == '/' || ch == '_')
        return 63;
    return -1;
}

char *tw_base64_decode(const char *s, size_t n, size_t *outlen)
{
    char *out = malloc(n / 4 * 3 + 4);
    if (!out)
        return NULL;
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    bool pad = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t')
            continue;
        if (ch == '=') {
            pad = true;
            continue;
        }
        int v = b64val(ch);
        if (v < 0 || pad) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)((acc >> bits) & 0xffu);
        }
    }
    out[o] = '\0';
    *outlen = o;
    return out;
}

static void free_msg(tw_har_message *m)
{
    for (size_t i = 0; i < m->nheaders; i++) {
        free(m->headers[i].name);
        free(m->headers[i].value);
    }
    free(m->headers);
    for (size_t i = 0; i < m->ncookies; i++) {
        free(m->cookies[i].name);
        free(m->cookies[i].value);
    }
    free(m->cookies);
    free(m->body);
    free(m->mime_type);
}

void tw_har_free(tw_har *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->nentries; i++) {
        tw_har_entry *e = &h->entries[i];
        free(e->method);
        free(e->url);
        free(e->started);
        free_msg(&e->request);
        free_msg(&e->response);
    }
    free(h->entries);
    free(h->name);
    memset(h, 0, sizeof *h);
}

static tw_status need_str(hctx *c, const cJSON *obj, const char *path, const char *key, char **out)
{
    const cJSON *v = tw_json_get(obj, key);
    if (!cJSON_IsString(v))
        return bad(c, path, "expected a string member '%s'", key);
    *out = tw_strdup(v->valuestring);
    return *out ? TW_OK : TW_ERR_NOMEM;
}

/* headers[] or cookies[] (`key`): {name, value} pairs, at most 4096. */
static tw_status read_pairs(hctx *c, const cJSON *obj, const char *path, const char *key,
                            tw_har_header **out, size_t *nout)
{
    const cJSON *h = tw_json_get(obj, key);
    bool ck = strcmp(key, "cookies") == 0;
    char hp[256];
    snprintf(hp, sizeof hp, "%s.%s", path, key);
    if (!h)
        return TW_OK;
    if (!cJSON_IsArray(h))
        return bad(c, hp, "expected an array of {name, value}");
    size_t n = (size_t)cJSON_GetArraySize(h);
    if (n > 4096)
        return bad(c, hp, "more than 4096 %s", key);
    if (!n)
        return TW_OK;
    *out = calloc(n, sizeof **out);
    if (!*out)
        return TW_ERR_NOMEM;
    size_t i = 0;
    for (const cJSON *e = h->child; e; e = e->next, i++) {
        char ep[300];
        snprintf(ep, sizeof ep, "%s[%zu]", hp, i);
        const char *nm = tw_json_get_str(e, "name");
        const char *val = tw_json_get_str(e, "value");
        if (!nm || !val)
            return bad(c, ep, "expected a %s object {name: string, value: string}",
                       ck ? "cookie" : "header");
        (*out)[i].name = tw_strdup(nm);
        (*out)[i].value = tw_strdup(val);
        *nout = i + 1;
        if (!(*out)[i].name || !(*out)[i].value)
            return TW_ERR_NOMEM;
    }
    return TW_OK;
}

/* A message's headers and cookies. */
static tw_status read_headers(hctx *c, const cJSON *obj, const char *path, tw_har_message *m)
{
    tw_status s = read_pairs(c, obj, path, "headers", &m->headers, &m->nheaders);
    return s == TW_OK ? read_pairs(c, obj, path, "cookies", &m->cookies, &m->ncookies) : s;
}

/* postData / content: {mimeType, text, encoding} */
static tw_status read_body(hctx *c, const cJSON *holder, const char *path, tw_har_message *m)
{
    if (!holder)
        return TW_OK;
    if (!cJSON_IsObject(holder))
        return bad(c, path, "expected an object");
    const char *mt = tw_json_get_str(holder, "mimeType");
    if (mt && !(m->mime_type = tw_strdup(mt)))
        return TW_ERR_NOMEM;
    const cJSON *text = tw_json_get(holder, "text");
    if (!text || cJSON_IsNull(text))
        return TW_OK;
    char tp[300];
    snprintf(tp, sizeof tp, "%s.text", path);
    if (!cJSON_IsString(text))
        return bad(c, tp, "expected a string");
    const char *enc = tw_json_get_str(holder, "encoding");
    size_t n = strlen(text->valuestring);
    if (enc && strcmp(enc, "base64") == 0) {
        m->body = tw_base64_decode(text->valuestring, n, &m->body_len);
        if (!m->body)
            return bad(c, tp, "expected base64 text (encoding is \"base64\")");
    } else if (enc && *enc) {
        char ep[300];
        snprintf(ep, sizeof ep, "%s.encoding", path);
        return bad(c, ep, "unsupported encoding \"%s\" (expected \"base64\")", enc);
    } else {
        m->body = tw_strndup(text->valuestring, n);
        m->body_len = n;
        if (!m->body)
            return TW_ERR_NOMEM;
    }
    if (m->body_len > c->lim.max_input_bytes)
        return bad(c, tp, "body larger than %zu bytes (max_input_bytes)", c->lim.max_input_bytes);
    m->has_body = true;
    return TW_OK;
}

static tw_status read_entry(hctx *c, const cJSON *e, size_t idx, tw_har_entry *out)
{
    char ep[64];
    snprintf(ep, sizeof ep, "log.entries[%zu]", idx);
    tw_json_locate(c->src, c->len, ep, false, &out->line, &out->col);
    if (!cJSON_IsObject(e))
        return bad(c, ep, "expected an entry object");
    const char *st = tw_json_get_str(e, "startedDateTime");
    if (st && !(out->started = tw_strdup(st)))
        return TW_ERR_NOMEM;
    const cJSON *rq = tw_json_get(e, "request");
    const cJSON *rs = tw_json_get(e, "response");
    char rp[128];
    snprintf(rp, sizeof rp, "%s.request", ep);
    if (!cJSON_IsObject(rq))
        return bad(c, ep, "expected a 'request' object");
    tw_status s = need_str(c, rq, rp, "method", &out->method);
    if (s == TW_OK)
        s = need_str(c, rq, rp, "url", &out->url);
    if (s == TW_OK)
        s = read_headers(c, rq, rp, &out->request);
    if (s == TW_OK) {
        char pp[160];
        snprintf(pp, sizeof pp, "%s.postData", rp);
        s = read_body(c, tw_json_get(rq, "postData"), pp, &out->request);
    }
    if (s != TW_OK)
        return s;
    snprintf(rp, sizeof rp, "%s.response", ep);
    if (!cJSON_IsObject(rs))
        return bad(c, ep, "expected a 'response' object");
    const cJSON *status = tw_json_get(rs, "status");
    if (!cJSON_IsNumber(status) || status->valuedouble < 100 || status->valuedouble > 599 ||
        status->valuedouble != (double)(int)status->valuedouble) {
        char sp[160];
        snprintf(sp, sizeof sp, "%s.status", rp);
        return bad(c, tw_json_get(rs, "status") ? sp : rp,
                   "expected an HTTP status from 100 to 599");
    }
    out->status = (int)status->valuedouble;
    s = read_headers(c, rs, rp, &out->response);
    if (s == TW_OK) {
        char cp[160];
        snprintf(cp, sizeof cp, "%s.content", rp);
        s = read_body(c, tw_json_get(rs, "content"), cp, &out->response);
    }
    return s;
}

tw_status tw_har_parse(const char *buf, size_t len, const char *name, const tw_limits *limits,
                       tw_har *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    hctx c = {buf, len, name ? name : "<har>", err, {0}};
    tw_limits_resolve(&c.lim, limits);
    if (len > c.lim.max_input_bytes) {
        tw_error_file(err, TW_ERR_LIMIT, -1, c.name, "%s: larger than %zu bytes (max_input_bytes)",
                      c.name, c.lim.max_input_bytes);
        return TW_ERR_LIMIT;
    }
    cJSON *root = NULL;
    tw_error je;
    if (tw_json_parse(buf, len, c.lim.max_depth, &root, &je) != TW_OK) {
        size_t line, col;
        tw_line_col(buf, len, je.offset >= 0 ? (size_t)je.offset : 0, &line, &col);
        tw_error_file(err, TW_ERR_PARSE, je.offset, c.name, "%s:%zu:%zu: %s", c.name, line, col,
                      je.message);
        return TW_ERR_PARSE;
    }
    tw_status st = TW_OK;
    const cJSON *log = tw_json_get(root, "log");
    const cJSON *entries = tw_json_get(log, "entries");
    if (!cJSON_IsObject(log))
        st = bad(&c, "", "expected a HAR document: an object with a 'log' object");
    else if (!cJSON_IsArray(entries))
        st = bad(&c, "log", "expected an 'entries' array");
    size_t n = st == TW_OK ? (size_t)cJSON_GetArraySize(entries) : 0;
    if (st == TW_OK && n > c.lim.max_messages)
        st = bad(&c, "log.entries", "more than %zu entries (max_messages)", c.lim.max_messages);
    if (st == TW_OK && !(out->name = tw_strdup(c.name)))
        st = TW_ERR_NOMEM;
    if (st == TW_OK && n && !(out->entries = calloc(n, sizeof *out->entries)))
        st = TW_ERR_NOMEM;
    size_t i = 0;
    for (const cJSON *e = st == TW_OK ? entries->child : NULL; e && st == TW_OK; e = e->next, i++) {
        out->nentries = i + 1;
        st = read_entry(&c, e, i, &out->entries[i]);
    }
    if (st == TW_ERR_NOMEM)
        tw_error_file(err, TW_ERR_NOMEM, -1, c.name, "%s: out of memory", c.name);
    cJSON_Delete(root);
    if (st != TW_OK)
        tw_har_free(out);
    return st;
}

tw_status tw_har_load(const char *path, const tw_limits *limits, tw_har *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    tw_limits l;
    tw_limits_resolve(&l, limits);
    size_t len = 0;
    char *buf = tw_read_file(path, l.max_input_bytes, &len, err);
    if (!buf)
        return TW_ERR_IO;
    tw_status st = tw_har_parse(buf, len, path, &l, out, err);
    free(buf);
    return st;
}
