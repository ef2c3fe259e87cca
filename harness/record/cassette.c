/*
 * vcrpy cassette reader: libyaml's document loader, then a walk that turns
 * the node graph into tw_cassette structs. Plain YAML scalars in parsed
 * bodies are resolved as YAML 1.1 does (null, booleans, numbers); quoted
 * and block scalars stay strings. Aliases are followed with a node and a
 * byte budget for the whole file, both proportional to its length, so a
 * small file cannot expand without bound.
 */
#include "cassette.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include <zlib.h>

#include "files.h"

#define TAG_BINARY "tag:yaml.org,2002:binary"

typedef struct ctx {
    yaml_document_t *doc;
    const char *name;
    tw_limits L;
    tw_error *err;
    size_t budget; /* nodes left for parsed-body conversion, for the whole file */
    size_t bytes;  /* scalar bytes left to copy out of the document */
} ctx;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static tw_status
fail(ctx *c, tw_status st, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n)
        tw_error_file(c->err, st, (int64_t)n->start_mark.index, c->name, "%s:%zu:%zu: %s", c->name,
                      n->start_mark.line + 1, n->start_mark.column + 1, msg);
    else
        tw_error_file(c->err, st, -1, c->name, "%s: %s", c->name, msg);
    return st;
}

static yaml_node_t *node(ctx *c, int id)
{
    return yaml_document_get_node(c->doc, id);
}

static bool is_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE;
}

static bool scalar_is(const yaml_node_t *n, const char *s)
{
    size_t k = strlen(s);
    return is_scalar(n) && n->data.scalar.length == k && memcmp(n->data.scalar.value, s, k) == 0;
}

/* A plain scalar YAML 1.1 resolves to null. */
static bool is_null(const yaml_node_t *n)
{
    if (!n)
        return true;
    if (!is_scalar(n) || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    return n->data.scalar.length == 0 || scalar_is(n, "~") || scalar_is(n, "null") ||
           scalar_is(n, "Null") || scalar_is(n, "NULL");
}

static yaml_node_t *map_get(ctx *c, const yaml_node_t *m, const char *key)
{
    if (!m || m->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
        if (scalar_is(node(c, p->key), key))
            return node(c, p->value);
    return NULL;
}

/* Charge a scalar copied out of the document to the file's byte budget:
 * without aliases every scalar is copied once, so only aliases exhaust it. */
static tw_status take(ctx *c, const yaml_node_t *n)
{
    size_t k = is_scalar(n) ? n->data.scalar.length + 1 : 1;
    if (k > c->bytes)
        return fail(c, TW_ERR_LIMIT, n, "the cassette expands to too many bytes (aliases?)");
    c->bytes -= k;
    return TW_OK;
}

static char *scalar_dup(const yaml_node_t *n)
{
    return tw_strndup((const char *)n->data.scalar.value, n->data.scalar.length);
}

/* ---- scalars to JSON ---- */

static bool json_number_syntax(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    if (i >= n)
        return false;
    if (s[i] == '0')
        i++;
    else if (s[i] >= '1' && s[i] <= '9')
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    else
        return false;
    if (i < n && s[i] == '.') {
        i++;
        size_t d = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return false;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return false;
    }
    return i == n;
}

static cJSON *scalar_json(ctx *c, const yaml_node_t *n)
{
    const char *s = (const char *)n->data.scalar.value;
    size_t len = n->data.scalar.length;
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && n->tag &&
        strcmp((const char *)n->tag, YAML_STR_TAG) == 0) {
        if (is_null(n))
            return cJSON_CreateNull();
        static const char *const T[] = {"true", "True", "TRUE", "yes", "Yes",
                                        "YES",  "on",   "On",   "ON"};
        static const char *const F[] = {"false", "False", "FALSE", "no", "No",
                                        "NO",    "off",   "Off",   "OFF"};
        for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
            if (scalar_is(n, T[i]))
                return cJSON_CreateTrue();
            if (scalar_is(n, F[i]))
                return cJSON_CreateFalse();
        }
        /* numbers: JSON syntax (a leading '+' dropped), read by the JSON parser */
        const char *p = s;
        size_t k = len;
        if (k > 1 && p[0] == '+') {
            p++;
            k--;
        }
        if (k < 64 && json_number_syntax(p, k)) {
            cJSON *v = NULL;
            if (tw_json_parse(p, k, 2, &v, NULL) == TW_OK)
                return v;
        }
    }
    (void)c;
    /* libyaml ends every scalar value with a NUL (s[len]): the string is
     * read in place, as a copy of its len bytes would be (to its first NUL) */
    return cJSON_CreateString(s);
}

static tw_status to_json(ctx *c, const yaml_node_t *n, size_t depth, cJSON **out)
{
    *out = NULL;
    if (c->budget == 0)
        return fail(c, TW_ERR_LIMIT, n, "parsed body expands to too many values (aliases?)");
    c->budget--;
    if (depth > c->L.max_depth)
        return fail(c, TW_ERR_LIMIT, n, "parsed body nested deeper than %zu", c->L.max_depth);
    if (!n)
        return (*out = cJSON_CreateNull()) ? TW_OK : TW_ERR_NOMEM;
    tw_status st = TW_OK;
    if (n->type == YAML_SCALAR_NODE) {
        if ((st = take(c, n)) != TW_OK)
            return st;
        *out = scalar_json(c, n);
        return *out ? TW_OK : TW_ERR_NOMEM;
    }
    if (n->type == YAML_SEQUENCE_NODE) {
        cJSON *a = cJSON_CreateArray();
        if (!a)
            return TW_ERR_NOMEM;
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             st == TW_OK && it < n->data.sequence.items.top; it++) {
            cJSON *v = NULL;
            st = to_json(c, node(c, *it), depth + 1, &v);
            if (st == TW_OK && !cJSON_AddItemToArray(a, v)) {
                cJSON_Delete(v);
                st = TW_ERR_NOMEM;
            }
        }
        if (st != TW_OK) {
            cJSON_Delete(a);
            return st;
        }
        *out = a;
        return TW_OK;
    }
    if (n->type == YAML_MAPPING_NODE) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return TW_ERR_NOMEM;
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
             st == TW_OK && p < n->data.mapping.pairs.top; p++) {
            yaml_node_t *k = node(c, p->key);
            if (!is_scalar(k)) {
                st = fail(c, TW_ERR_INVALID, k, "a parsed body key must be a scalar");
                break;
            }
            if ((st = take(c, k)) != TW_OK)
                break;
            char *key = scalar_dup(k);
            cJSON *v = NULL;
            st = key ? to_json(c, node(c, p->value), depth + 1, &v) : TW_ERR_NOMEM;
            if (st == TW_OK && !cJSON_AddItemToObject(o, key, v)) {
                cJSON_Delete(v);
                st = TW_ERR_NOMEM;
            }
            free(key);
        }
        if (st != TW_OK) {
            cJSON_Delete(o);
            return st;
        }
        *out = o;
        return TW_OK;
    }
    return fail(c, TW_ERR_INVALID, n, "unexpected YAML node");
}

/* ---- base64 and gzip ---- */

static int b64v(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
}

static tw_status base64_decode(const char *s, size_t n, tw_buf *out)
{
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (tw_is_space(ch))
            continue;
        if (ch == '=')
            break;
        int v = b64v(ch);
        if (v < 0)
            return TW_ERR_PARSE;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            tw_status st = tw_buf_putc(out, (char)((acc >> bits) & 0xFFu));
            if (st != TW_OK)
                return st;
        }
    }
    return TW_OK;
}

static tw_status gunzip(const tw_buf *in, tw_buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return TW_ERR_NOMEM;
    z.next_in = (Bytef *)in->data;
    z.avail_in = (uInt)in->len;
    tw_status st = TW_OK;
    unsigned char chunk[16384];
    int zr = Z_OK;
    while (st == TW_OK && zr != Z_STREAM_END) {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        zr = inflate(&z, Z_NO_FLUSH);
        if (zr != Z_OK && zr != Z_STREAM_END) {
            st = zr == Z_MEM_ERROR ? TW_ERR_NOMEM : TW_ERR_PARSE;
            break;
        }
        st = tw_buf_append(out, chunk, sizeof chunk - z.avail_out);
        if (zr == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
            st = st == TW_OK ? TW_ERR_PARSE : st; /* input ended inside the stream */
            break;
        }
    }
    inflateEnd(&z);
    return st;
}

/* ---- bodies and headers ---- */

static tw_status read_body(ctx *c, const yaml_node_t *holder, const tw_cassette_header *h,
                           size_t nh, tw_cassette_body *out)
{
    const yaml_node_t *parsed = map_get(c, holder, "parsed_body");
    const yaml_node_t *b = map_get(c, holder, "body");
    tw_buf buf = {0};
    buf.max = c->L.max_input_bytes;
    tw_status st = TW_OK;
    if (parsed && !is_null(parsed)) {
        st = to_json(c, parsed, 0, &out->json);
        if (st != TW_OK)
            return st;
        out->kind = TW_CASSETTE_BODY_PARSED;
        out->data = tw_json_print(out->json, &out->len);
        return out->data ? TW_OK : TW_ERR_NOMEM;
    }
    if (b && b->type == YAML_MAPPING_NODE)
        b = map_get(c, b, "string");
    if (!b || is_null(b))
        return TW_OK;
    if (!is_scalar(b))
        return fail(c, TW_ERR_INVALID, b, "body must be a string, {string: ...} or null");
    if ((st = take(c, b)) != TW_OK)
        return st;
    const char *s = (const char *)b->data.scalar.value;
    size_t n = b->data.scalar.length;
    if (b->tag && strcmp((const char *)b->tag, TAG_BINARY) == 0) {
        tw_buf raw = {0};
        raw.max = c->L.max_input_bytes;
        st = base64_decode(s, n, &raw);
        if (st != TW_OK) {
            tw_buf_free(&raw);
            return fail(c, st == TW_ERR_PARSE ? TW_ERR_PARSE : st, b,
                        st == TW_ERR_LIMIT ? "binary body exceeds max_input_bytes"
                                           : "binary body is not valid base64");
        }
        const char *enc = tw_cassette_header_get(h, nh, "content-encoding");
        if (enc && strcasecmp(enc, "gzip") == 0 && raw.len >= 2 &&
            (unsigned char)raw.data[0] == 0x1f && (unsigned char)raw.data[1] == 0x8b) {
            st = gunzip(&raw, &buf);
            tw_buf_free(&raw);
            if (st != TW_OK) {
                tw_buf_free(&buf);
                return fail(c, st, b,
                            st == TW_ERR_LIMIT ? "gzip body inflates past max_input_bytes"
                                               : "gzip body is corrupt");
            }
            out->gunzipped = true;
        } else {
            buf = raw;
        }
        out->kind = TW_CASSETTE_BODY_BINARY;
    } else {
        if (n > c->L.max_input_bytes)
            return fail(c, TW_ERR_LIMIT, b, "body exceeds max_input_bytes");
        st = tw_buf_append(&buf, s, n);
        out->kind = TW_CASSETTE_BODY_STRING;
    }
    if (st == TW_OK && !buf.data)
        st = tw_buf_append(&buf, "", 0);
    if (st != TW_OK) {
        tw_buf_free(&buf);
        return st;
    }
    out->data = buf.data;
    out->len = buf.len;
    return TW_OK;
}

static tw_status add_header(ctx *c, tw_cassette_header **h, size_t *n, const yaml_node_t *k,
                            const yaml_node_t *v)
{
    tw_status st = take(c, k);
    if (st == TW_OK)
        st = take(c, v);
    if (st != TW_OK)
        return st;
    tw_cassette_header *nh = realloc(*h, (*n + 1) * sizeof *nh);
    if (!nh)
        return TW_ERR_NOMEM;
    *h = nh;
    nh[*n].name = scalar_dup(k);
    nh[*n].value = scalar_dup(v);
    (*n)++;
    return nh[*n - 1].name && nh[*n - 1].value ? TW_OK : TW_ERR_NOMEM;
}

static tw_status read_headers(ctx *c, const yaml_node_t *holder, tw_cassette_header **h, size_t *n)
{
    const yaml_node_t *m = map_get(c, holder, "headers");
    if (!m || is_null(m))
        return TW_OK;
    if (m->type != YAML_MAPPING_NODE)
        return fail(c, TW_ERR_INVALID, m, "headers must be a mapping");
    tw_status st = TW_OK;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         st == TW_OK && p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
        if (!is_scalar(k))
            return fail(c, TW_ERR_INVALID, k, "a header name must be a scalar");
        if (is_scalar(v)) {
            st = add_header(c, h, n, k, v);
        } else if (v && v->type == YAML_SEQUENCE_NODE) {
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 st == TW_OK && it < v->data.sequence.items.top; it++) {
                yaml_node_t *e = node(c, *it);
                if (!is_scalar(e))
                    return fail(c, TW_ERR_INVALID, e, "a header value must be a scalar");
                st = add_header(c, h, n, k, e);
            }
        } else {
            return fail(c, TW_ERR_INVALID, v, "header values must be a list of strings");
        }
    }
    return st;
}

static tw_status opt_str(ctx *c, const yaml_node_t *holder, const char *key, char **out)
{
    const yaml_node_t *v = map_get(c, holder, key);
    if (!v || is_null(v))
        return TW_OK;
    if (!is_scalar(v))
        return fail(c, TW_ERR_INVALID, v, "'%s' must be a string", key);
    tw_status st = take(c, v);
    if (st != TW_OK)
        return st;
    return (*out = scalar_dup(v)) ? TW_OK : TW_ERR_NOMEM;
}

static bool scalar_long(const yaml_node_t *v, long *out)
{
    if (!is_scalar(v) || v->data.scalar.length == 0 || v->data.scalar.length > 9)
        return false;
    long x = 0;
    for (size_t i = 0; i < v->data.scalar.length; i++) {
        unsigned char ch = v->data.scalar.value[i];
        if (ch < '0' || ch > '9')
            return false;
        x = x * 10 + (ch - '0');
    }
    *out = x;
    return true;
}

static tw_status read_interaction(ctx *c, const yaml_node_t *it, tw_cassette_interaction *out)
{
    out->line = it->start_mark.line + 1;
    if (it->type != YAML_MAPPING_NODE)
        return fail(c, TW_ERR_INVALID, it, "an interaction must be a mapping");
    const yaml_node_t *rq = map_get(c, it, "request");
    const yaml_node_t *rs = map_get(c, it, "response");
    if (!rq || rq->type != YAML_MAPPING_NODE)
        return fail(c, TW_ERR_INVALID, rq ? rq : it, "interaction needs a 'request' mapping");
    if (!rs || rs->type != YAML_MAPPING_NODE)
        return fail(c, TW_ERR_INVALID, rs ? rs : it, "interaction needs a 'response' mapping");
    tw_status st = opt_str(c, rq, "method", &out->request.method);
    if (st == TW_OK)
        st = opt_str(c, rq, "uri", &out->request.uri);
    if (st == TW_OK)
        st = read_headers(c, rq, &out->request.headers, &out->request.nheaders);
    if (st == TW_OK)
        st = read_body(c, rq, out->request.headers, out->request.nheaders, &out->request.body);
    if (st == TW_OK)
        st = read_headers(c, rs, &out->response.headers, &out->response.nheaders);
    if (st == TW_OK)
        st = read_body(c, rs, out->response.headers, out->response.nheaders, &out->response.body);
    const yaml_node_t *status = map_get(c, rs, "status");
    if (st == TW_OK && status && !is_null(status)) {
        long code = 0;
        const yaml_node_t *cn =
            status->type == YAML_MAPPING_NODE ? map_get(c, status, "code") : status;
        if (!scalar_long(cn, &code) || code > 999)
            return fail(c, TW_ERR_INVALID, cn ? cn : status, "status code must be a number");
        out->response.status = (int)code;
        if (status->type == YAML_MAPPING_NODE)
            st = opt_str(c, status, "message", &out->response.status_message);
    }
    return st;
}

static void body_free(tw_cassette_body *b)
{
    free(b->data);
    cJSON_Delete(b->json);
    memset(b, 0, sizeof *b);
}

static void headers_free(tw_cassette_header *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(h[i].name);
        free(h[i].value);
    }
    free(h);
}

void tw_cassette_free(tw_cassette *c)
{
    for (size_t i = 0; i < c->ninteractions; i++) {
        tw_cassette_interaction *it = &c->interactions[i];
        free(it->request.method);
        free(it->request.uri);
        headers_free(it->request.headers, it->request.nheaders);
        body_free(&it->request.body);
        free(it->response.status_message);
        headers_free(it->response.headers, it->response.nheaders);
        body_free(&it->response.body);
    }
    free(c->interactions);
    free(c->name);
    memset(c, 0, sizeof *c);
}

const char *tw_cassette_header_get(const tw_cassette_header *h, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (h[i].name && strcasecmp(h[i].name, name) == 0)
            return h[i].value;
    return NULL;
}

tw_status tw_cassette_parse(const char *buf, size_t len, const char *name, const tw_limits *limits,
                            tw_cassette *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    ctx c;
    memset(&c, 0, sizeof c);
    c.name = name ? name : "<cassette>";
    c.err = err;
    tw_limits_resolve(&c.L, limits);
    /* a file without aliases has at most one node per byte, and its scalars
     * hold fewer bytes than it does: aliases may double that, no more */
    c.budget = 2 * len + 4096;
    c.bytes = 2 * len + 4096;
    tw_error_clear(err);
    if (len > c.L.max_input_bytes)
        return fail(&c, TW_ERR_LIMIT, NULL, "file exceeds max_input_bytes (%zu)",
                    c.L.max_input_bytes);
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser))
        return fail(&c, TW_ERR_NOMEM, NULL, "cannot initialise the YAML parser");
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    if (!yaml_parser_load(&parser, &doc)) {
        tw_status st = parser.error == YAML_MEMORY_ERROR ? TW_ERR_NOMEM : TW_ERR_PARSE;
        tw_error_file(err, st, (int64_t)parser.problem_mark.index, c.name, "%s:%zu:%zu: %s%s%s",
                      c.name, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                      parser.problem ? parser.problem : "YAML error", parser.context ? " " : "",
                      parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return st;
    }
    yaml_parser_delete(&parser);
    c.doc = &doc;
    tw_status st = TW_OK;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    yaml_node_t *items = map_get(&c, root, "interactions");
    if (!root || root->type != YAML_MAPPING_NODE)
        st = fail(&c, TW_ERR_INVALID, root, "a cassette is a mapping with 'interactions'");
    else if (!items || items->type != YAML_SEQUENCE_NODE)
        st = fail(&c, TW_ERR_INVALID, items ? items : root, "'interactions' must be a list");
    if (st == TW_OK) {
        long v = 0;
        if (scalar_long(map_get(&c, root, "version"), &v))
            out->version = v;
        size_t n = (size_t)(items->data.sequence.items.top - items->data.sequence.items.start);
        if (n > c.L.max_messages)
            st = fail(&c, TW_ERR_LIMIT, items, "more than %zu interactions", c.L.max_messages);
        else if (n && !(out->interactions = calloc(n, sizeof *out->interactions)))
            st = TW_ERR_NOMEM;
        for (size_t i = 0; st == TW_OK && i < n; i++) {
            out->ninteractions = i + 1;
            st = read_interaction(&c, node(&c, items->data.sequence.items.start[i]),
                                  &out->interactions[i]);
        }
    }
    if (st == TW_OK && !(out->name = tw_strdup(c.name)))
        st = TW_ERR_NOMEM;
    if (st == TW_ERR_NOMEM && err && !err->message[0])
        tw_error_file(err, TW_ERR_NOMEM, -1, c.name, "%s: out of memory", c.name);
    yaml_document_delete(&doc);
    if (st != TW_OK)
        tw_cassette_free(out);
    return st;
}

tw_status tw_cassette_load(const char *path, const tw_limits *limits, tw_cassette *out,
                           tw_error *err)
{
    memset(out, 0, sizeof *out);
    tw_limits L;
    tw_limits_resolve(&L, limits);
    char *data = NULL;
    size_t len = 0;
    tw_status st = tw_file_read(path, L.max_input_bytes, &data, &len, err);
    if (st != TW_OK) {
        if (st == TW_ERR_LIMIT)
            tw_error_file(err, TW_ERR_LIMIT, -1, path, "%s: file exceeds max_input_bytes", path);
        return st;
    }
    st = tw_cassette_parse(data, len, path, &L, out, err);
    free(data);
    return st;
}
