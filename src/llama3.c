/*
 * The Llama 3.x output dialect (docs/formats/llama3.md): JSON calls as the
 * whole message, <|python_tag|> sections (JSON calls, built-in
 * NAME.call(k=v, …), code for code_interpreter), the end tokens. A push
 * decoder on the dialect engine (dialect.h).
 */
#include "toolwire/llama3.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "dialect.h"
#include "formats.h"
#include "work.h"

static const tw_dl_mark MARKS[] = {
    TW_DL_MARK("<|python_tag|>"),
    TW_DL_MARK("<|eot_id|>"),
    TW_DL_MARK("<|eom_id|>"),
    TW_DL_MARK("<|end_of_text|>"),
};
enum { M_TAG = 0, M_NMARKS = 4 };
static const tw_dl_mark *const ENDS = MARKS + 1; /* the end tokens */
enum { M_NENDS = 3 };

typedef enum l3_state {
    S_START,   /* before the first non-white byte of the message */
    S_JSON,    /* inside a JSON value that may be a call */
    S_SEP,     /* after a call: ';' and white space, then a call or prose */
    S_CONTENT, /* prose until <|python_tag|> or an end token */
    S_TAG,     /* after <|python_tag|>: what kind of call */
    S_BUILTIN, /* NAME.call( … ) until its ')' */
    S_CODE,    /* code for code_interpreter until an end token */
    S_END      /* after an end token */
} l3_state;

struct tw_llama3_dec {
    tw_dl d;
    l3_state st;
    bool tagged;        /* the section began with <|python_tag|> */
    bool first;         /* the JSON value is the message's first */
    bool trailing_seen; /* text after an end token was reported */
    bool semi;          /* S_SEP: the one ';' between calls was read */
    uint64_t sec;       /* the section's first byte (its tag, or the JSON) */
    uint64_t resume;    /* tw_dl_find's resume point of the current search */
    /* the JSON value (or built-in argument list) being scanned */
    uint64_t js_start, js_pos;
    size_t depth;
    bool in_str, esc;
    char quote;
    /* S_BUILTIN: the name and where its arguments begin */
    uint64_t name_off, args_off;
    size_t name_len;
};
typedef struct tw_llama3_dec l3;

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The first offset at or after off that is not white space (the end when
 * all of it is). */
static uint64_t skip_ws_to(const tw_dl *d, uint64_t off, uint64_t end)
{
    while (off < end && is_ws(*tw_dl_at(d, off)))
        off++;
    return off;
}

static uint64_t skip_ws(const tw_dl *d, uint64_t off)
{
    return skip_ws_to(d, off, tw_dl_end(d));
}

/* ===================== the JSON value ===================== */

/* Scan the JSON value from js_pos: true when it ended (its last byte is at
 * js_pos - 1). Strings are skipped with their escapes; brackets of either
 * kind count. */
static bool json_scan(l3 *s)
{
    tw_dl *d = &s->d;
    uint64_t end = tw_dl_end(d);
    uint64_t p = s->js_pos;
    const char *b = tw_dl_at(d, p);
    size_t n = (size_t)(end - p), i = 0;
    size_t quote = 0; /* the next '"' at or after i when > i (n: none) */
    bool done = false;
    for (; i < n && !done; i++) {
        if (s->in_str && !s->esc) {
            /* a string's bytes up to its next '"' or '\\', by memchr: the
             * quote once per quote, the backslash only before it */
            if (quote <= i) {
                const char *q = memchr(b + i, '"', n - i);
                quote = q ? (size_t)(q - b) : n;
            }
            const char *bs = memchr(b + i, '\\', quote - i);
            i = bs ? (size_t)(bs - b) : quote;
            if (i == n)
                break;
        }
        char c = b[i];
        if (s->in_str) {
            if (s->esc)
                s->esc = false;
            else if (c == '\\')
                s->esc = true;
            else if (c == '"')
                s->in_str = false;
        } else if (c == '"') {
            s->in_str = true;
        } else if (c == '{' || c == '[') {
            s->depth++;
        } else if (c == '}' || c == ']') {
            done = --s->depth == 0;
        }
    }
    TW_WORK(i);
    s->js_pos = p + i;
    return done;
}

/* Does the text read as an attempt at a call: an object whose first key is
 * "name" or "type" and that names "parameters" or "arguments"? */
static bool looks_like_call(const char *p, size_t n)
{
    size_t i = 1;
    while (i < n && is_ws(p[i]))
        i++;
    if (!(n - i >= 6 && memcmp(p + i, "\"name\"", 6) == 0) &&
        !(n - i >= 6 && memcmp(p + i, "\"type\"", 6) == 0))
        return false;
    return tw_memmem(p, n, "\"parameters\"", 12) || tw_memmem(p, n, "\"arguments\"", 11);
}

typedef enum l3_read { R_CALL, R_NOT_CALL, R_REFUSED } l3_read;

/* A parsed object as a call: name (a string), "parameters" or "arguments"
 * (one of them), "type" absent or "function". */
static tw_status take_object(l3 *s, cJSON *v, size_t src_len, int64_t off, l3_read *how)
{
    tw_dl *d = &s->d;
    *how = R_NOT_CALL;
    if (!cJSON_IsObject(v))
        return TW_OK;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(v, "name");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(v, "type");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(v, "parameters");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(v, "arguments");
    if (type && !(cJSON_IsString(type) && strcmp(type->valuestring, "function") == 0))
        return TW_OK;
    if (!params && !args)
        return TW_OK;
    if (!name && !s->tagged && !type)
        return TW_OK; /* {"parameters": …} alone is data */
    *how = R_REFUSED;
    if (params && args)
        return tw_dl_diag(d, true, TW_D_TOOL_CALL_JSON, off,
                          "tool call has both \"parameters\" and \"arguments\"; refused");
    tw_error why;
    tw_error_clear(&why);
    if (tw_call_object_check(v, &why))
        return tw_dl_diag(d, true, why.code, off, why.message);
    if (name && !cJSON_IsString(name))
        return tw_dl_diag(d, true, TW_D_MISSING_NAME, off, "tool call name is not a string");
    *how = R_CALL;
    const char *nm = name ? name->valuestring : NULL;
    const cJSON *a = params ? params : args;
    return tw_dl_call_member(d, nm, nm ? strlen(nm) : 0, NULL, 0, v, cJSON_IsNull(a) ? NULL : a,
                             src_len, off);
}

/* The value [js_start, js_pos) ended: a call, a refused call, or (untagged
 * and not a call) the start of the content. */
static tw_status json_done(l3 *s)
{
    tw_dl *d = &s->d;
    size_t n = (size_t)(s->js_pos - s->js_start);
    const char *p = tw_dl_at(d, s->js_start);
    int64_t off = (int64_t)(s->tagged ? s->sec : s->js_start);
    cJSON *v = NULL;
    tw_error e;
    tw_json_lint lint;
    tw_status st = tw_json_parse_lint(p, n, d->L.max_depth, &v, &e, &lint);
    if (st == TW_ERR_NOMEM)
        return st;
    l3_read how = R_NOT_CALL;
    tw_status r = TW_OK;
    if (st == TW_OK) {
        r = take_object(s, v, n, off, &how);
        cJSON_Delete(v);
        if (r != TW_OK)
            return r;
    } else if (s->tagged || looks_like_call(p, n)) {
        how = R_REFUSED;
        char m[200];
        snprintf(m, sizeof m, "tool call is not valid JSON: %.150s", e.message);
        r = tw_dl_diag(d, true,
                       e.code == TW_D_JSON_TOO_DEEP ? TW_D_JSON_TOO_DEEP : TW_D_TOOL_CALL_JSON, off,
                       m);
        if (r != TW_OK)
            return r;
    }
    if (how == R_NOT_CALL && s->tagged) {
        how = R_REFUSED;
        r = tw_dl_diag(d, true, TW_D_TOOL_CALL_JSON, off,
                       "<|python_tag|> JSON is not a call object (\"name\" and \"parameters\")");
        if (r != TW_OK)
            return r;
    }
    if (how == R_NOT_CALL) { /* data or prose: content from its first byte */
        d->pos = s->js_start;
        s->st = S_CONTENT;
        s->resume = 0;
        return TW_OK;
    }
    tw_dl_gap(d, TW_DL_CONTENT);
    d->pos = s->js_pos;
    s->st = S_SEP;
    s->semi = false;
    return TW_OK;
}

static void json_begin(l3 *s, uint64_t at)
{
    s->js_start = s->js_pos = at;
    s->depth = 0;
    s->in_str = s->esc = false;
    s->d.pos = at;
    s->st = S_JSON;
}

/* ===================== built-in calls ===================== */

/* Does a built-in call's head NAME ws* '.' ws* "call" ws* '(' start at off?
 * 1 yes (its name and the offset after '('), 0 no, -1 not decided yet. */
static int builtin_head(const tw_dl *d, uint64_t off, bool final, uint64_t *name_off,
                        size_t *name_len, uint64_t *args_off)
{
    uint64_t end = tw_dl_end(d), p = off;
    /* a head longer than this is not a built-in call's: code */
    if (end - off > 256)
        end = off + 256, final = true;
    while (p < end && is_ident(*tw_dl_at(d, p)))
        p++;
    if (p == end)
        return final ? 0 : -1;
    if (p == off)
        return 0;
    *name_off = off;
    *name_len = (size_t)(p - off);
    p = skip_ws_to(d, p, end);
    if (p == end)
        return final ? 0 : -1;
    if (*tw_dl_at(d, p) != '.')
        return 0;
    p = skip_ws_to(d, p + 1, end);
    int k = tw_dl_starts(d, p, "call", 4, final);
    if (k != 1)
        return k;
    p = skip_ws_to(d, p + 4, end);
    if (p == end)
        return final ? 0 : -1;
    if (*tw_dl_at(d, p) != '(')
        return 0;
    *args_off = p + 1;
    return 1;
}

/* Scan the argument list from js_pos to its ')' (outside quotes and
 * brackets): true when found (at js_pos - 1). */
static bool args_scan(l3 *s)
{
    tw_dl *d = &s->d;
    uint64_t end = tw_dl_end(d);
    const char *b = tw_dl_at(d, s->js_pos);
    size_t n = (size_t)(end - s->js_pos), i = 0;
    bool done = false;
    for (; i < n && !done; i++) {
        char c = b[i];
        if (s->in_str) {
            if (s->esc)
                s->esc = false;
            else if (c == '\\')
                s->esc = true;
            else if (c == s->quote)
                s->in_str = false;
        } else if (c == '"' || c == '\'') {
            s->in_str = true;
            s->quote = c;
        } else if (c == '{' || c == '[' || c == '(') {
            s->depth++;
        } else if (c == '}' || c == ']') {
            if (s->depth)
                s->depth--;
        } else if (c == ')') {
            if (s->depth == 0)
                done = true;
            else
                s->depth--;
        }
    }
    TW_WORK(i);
    s->js_pos += i;
    return done;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static tw_status put_utf8(tw_buf *b, unsigned long c)
{
    char u[4];
    size_t k;
    if (c < 0x80) {
        u[0] = (char)c;
        k = 1;
    } else if (c < 0x800) {
        u[0] = (char)(0xC0 | (c >> 6));
        u[1] = (char)(0x80 | (c & 0x3F));
        k = 2;
    } else if (c < 0x10000) {
        u[0] = (char)(0xE0 | (c >> 12));
        u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        u[2] = (char)(0x80 | (c & 0x3F));
        k = 3;
    } else {
        u[0] = (char)(0xF0 | (c >> 18));
        u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((c >> 6) & 0x3F));
        u[3] = (char)(0x80 | (c & 0x3F));
        k = 4;
    }
    return tw_buf_append(b, u, k);
}

/* A quoted string at p[*i] (its quote): its value into b (Python's escapes
 * \\ \' \" \n \t \r \uXXXX; another backslash stays). 1 read, 0 malformed,
 * -2 it holds U+0000. */
static int read_quoted(const char *p, size_t n, size_t *i, tw_buf *b, tw_status *st)
{
    char q = p[*i];
    size_t k = *i + 1;
    while (k < n && p[k] != q) {
        char c = p[k];
        if (c == '\0')
            return -2;
        if (c != '\\' || k + 1 >= n) {
            *st = tw_buf_putc(b, c);
            k++;
        } else {
            char e = p[k + 1];
            k += 2;
            if (e == 'n' || e == 't' || e == 'r' || e == '\\' || e == '\'' || e == '"') {
                *st = tw_buf_putc(b, e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e);
            } else if (e == 'u' && k + 4 <= n && hexval(p[k]) >= 0 && hexval(p[k + 1]) >= 0 &&
                       hexval(p[k + 2]) >= 0 && hexval(p[k + 3]) >= 0) {
                unsigned long c16 = (unsigned long)(hexval(p[k]) << 12 | hexval(p[k + 1]) << 8 |
                                                    hexval(p[k + 2]) << 4 | hexval(p[k + 3]));
                k += 4;
                if (c16 == 0)
                    return -2;
                if (c16 >= 0xD800 && c16 <= 0xDFFF)
                    c16 = 0xFFFD; /* a lone surrogate */
                *st = put_utf8(b, c16);
            } else {
                *st = tw_buf_putc(b, '\\');
                if (*st == TW_OK)
                    *st = tw_buf_putc(b, e);
            }
        }
        if (*st != TW_OK)
            return 0;
    }
    if (k >= n)
        return 0;
    *i = k + 1;
    return 1;
}

/* One argument value at p[*i]: a quoted string, a JSON value (object,
 * array, number) or a Python or JSON literal. NULL with *why set when it
 * does not read. */
static cJSON *read_value(l3 *s, const char *p, size_t n, size_t *i, tw_status *st, tw_status *why)
{
    char c = p[*i];
    *why = TW_D_TOOL_CALL_JSON;
    if (c == '"' || c == '\'') {
        tw_buf b = {0};
        int k = read_quoted(p, n, i, &b, st);
        cJSON *v = NULL;
        if (k == 1 && *st == TW_OK && tw_buf_putc(&b, '\0') == TW_OK)
            v = cJSON_CreateString(b.data);
        else if (k == -2)
            *why = TW_D_JSON_NUL;
        if (k == 1 && *st == TW_OK && !v)
            *st = TW_ERR_NOMEM;
        tw_buf_free(&b);
        return v;
    }
    static const struct {
        const char *w;
        int t;
    } lits[] = {{"True", 1}, {"False", 0}, {"None", 2}, {"true", 1}, {"false", 0}, {"null", 2}};
    for (size_t j = 0; j < sizeof lits / sizeof lits[0]; j++) {
        size_t k = strlen(lits[j].w);
        if (n - *i >= k && memcmp(p + *i, lits[j].w, k) == 0 &&
            (n - *i == k || !is_ident(p[*i + k]))) {
            *i += k;
            cJSON *v = lits[j].t == 2 ? cJSON_CreateNull() : cJSON_CreateBool(lits[j].t);
            if (!v)
                *st = TW_ERR_NOMEM;
            return v;
        }
    }
    size_t e = *i;
    if (c == '{' || c == '[') {
        size_t depth = 0;
        bool str = false, esc = false;
        for (; e < n; e++) {
            char x = p[e];
            if (str) {
                if (esc)
                    esc = false;
                else if (x == '\\')
                    esc = true;
                else if (x == '"')
                    str = false;
            } else if (x == '"') {
                str = true;
            } else if (x == '{' || x == '[') {
                depth++;
            } else if ((x == '}' || x == ']') && --depth == 0) {
                e++;
                break;
            }
        }
    } else {
        while (e < n && (strchr("+-.eE", p[e]) || (p[e] >= '0' && p[e] <= '9')))
            e++;
    }
    if (e == *i)
        return NULL;
    cJSON *v = NULL;
    tw_error je;
    tw_status ps = tw_json_parse(p + *i, e - *i, s->d.L.max_depth, &v, &je);
    if (ps == TW_ERR_NOMEM)
        *st = ps;
    if (ps != TW_OK) {
        if (je.code == TW_D_JSON_TOO_DEEP || je.code == TW_D_JSON_NUL)
            *why = je.code;
        return NULL;
    }
    *i = e;
    return v;
}

/* The argument list p[0, n) (between the parentheses) as an object, or
 * NULL with *why (TW_OK: out of memory in *st). */
static cJSON *read_kwargs(l3 *s, const char *p, size_t n, tw_status *st, tw_status *why)
{
    cJSON *obj = cJSON_CreateObject();
    if (!obj) {
        *st = TW_ERR_NOMEM;
        return NULL;
    }
    size_t i = 0;
    while (i < n && is_ws(p[i]))
        i++;
    while (i < n) {
        size_t k0 = i;
        while (i < n && is_ident(p[i]))
            i++;
        size_t k1 = i;
        while (i < n && is_ws(p[i]))
            i++;
        if (k1 == k0 || i >= n || p[i] != '=')
            goto bad;
        i++;
        while (i < n && is_ws(p[i]))
            i++;
        if (i >= n)
            goto bad;
        cJSON *v = read_value(s, p, n, &i, st, why);
        if (!v)
            goto fail;
        char key[128];
        if (k1 - k0 >= sizeof key) {
            cJSON_Delete(v);
            goto bad;
        }
        memcpy(key, p + k0, k1 - k0);
        key[k1 - k0] = '\0';
        if (cJSON_GetObjectItemCaseSensitive(obj, key)) {
            cJSON_Delete(v);
            *why = TW_D_CALL_DUPLICATE_KEY;
            goto fail;
        }
        if (!cJSON_AddItemToObject(obj, key, v)) {
            cJSON_Delete(v);
            *st = TW_ERR_NOMEM;
            goto fail;
        }
        while (i < n && is_ws(p[i]))
            i++;
        if (i < n && p[i] != ',')
            goto bad;
        i++;
        while (i < n && is_ws(p[i]))
            i++;
    }
    return obj;
bad:
    *why = TW_D_TOOL_CALL_JSON;
fail:
    cJSON_Delete(obj);
    return NULL;
}

/* The built-in call's ')' was found: its arguments read and the call taken. */
static tw_status builtin_done(l3 *s)
{
    tw_dl *d = &s->d;
    size_t n = (size_t)(s->js_pos - 1 - s->args_off);
    const char *p = tw_dl_at(d, s->args_off);
    tw_status st = TW_OK, why = TW_OK;
    int64_t off = (int64_t)s->sec;
    cJSON *args = read_kwargs(s, p, n, &st, &why);
    if (st != TW_OK) {
        cJSON_Delete(args);
        return st;
    }
    if (!args) {
        char m[160];
        snprintf(m, sizeof m, "built-in call %.*s.call(...): %s",
                 (int)(s->name_len > 64 ? 64 : s->name_len), tw_dl_at(d, s->name_off),
                 why == TW_D_TOOL_CALL_JSON ? "the arguments do not read as key=value pairs"
                                            : tw_code_message(why));
        st = tw_dl_diag(d, true, why, off, m);
    } else {
        st = tw_dl_call_value(d, tw_dl_at(d, s->name_off), s->name_len, NULL, 0, args, n, off);
        cJSON_Delete(args);
    }
    tw_dl_gap(d, TW_DL_CONTENT);
    d->pos = s->js_pos;
    s->st = S_SEP;
    return st;
}

/* Code after <|python_tag|> ended at `end` (an end token or the input's
 * end): a call to code_interpreter with {"code": the text}. */
static tw_status code_done(l3 *s, uint64_t from, uint64_t end)
{
    tw_dl *d = &s->d;
    const char *p = tw_dl_at(d, from);
    size_t n = (size_t)(end - from);
    while (n && is_ws(p[n - 1]))
        n--;
    int64_t off = (int64_t)s->sec;
    if (memchr(p, '\0', n))
        return tw_dl_diag(d, true, TW_D_JSON_NUL, off,
                          "code after <|python_tag|> holds U+0000; the call was refused");
    char *code = tw_strndup(p, n);
    cJSON *args = code ? cJSON_CreateObject() : NULL;
    tw_status st = args && cJSON_AddStringToObject(args, "code", code) ? TW_OK : TW_ERR_NOMEM;
    if (st == TW_OK)
        st = tw_dl_call_value(d, "code_interpreter", 16, NULL, 0, args, n + 16, off);
    cJSON_Delete(args);
    tw_free(code);
    return st;
}

/* ===================== the scan ===================== */

static tw_status unterminated(l3 *s, const char *what)
{
    char m[160];
    snprintf(m, sizeof m, "%s not finished at the end of the input; no call", what);
    return tw_dl_diag(&s->d, true, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)s->sec, m);
}

/* Is the message cut (finish length) rather than ended? */
static bool cut(const l3 *s)
{
    return s->d.o.finish == TW_FINISH_LENGTH;
}

static tw_status step(l3 *s, bool final, bool *more)
{
    tw_dl *d = &s->d;
    uint64_t end = tw_dl_end(d);
    *more = false;
    switch (s->st) {
    case S_START: {
        uint64_t p = skip_ws(d, d->pos);
        d->pos = p;
        if (p == end)
            return TW_OK;
        int k = tw_dl_starts(d, p, MARKS[M_TAG].s, MARKS[M_TAG].n, final);
        if (k < 0)
            return TW_OK;
        if (k == 1) {
            s->sec = p;
            d->pos = p + MARKS[M_TAG].n;
            s->st = S_TAG;
            s->tagged = true;
        } else if (*tw_dl_at(d, p) == '{') {
            s->first = true;
            s->tagged = false;
            s->sec = p;
            json_begin(s, p);
        } else {
            s->st = S_CONTENT;
            s->resume = 0;
        }
        *more = true;
        return TW_OK;
    }
    case S_JSON:
        if (json_scan(s)) {
            *more = true;
            return json_done(s);
        }
        if (!final)
            return TW_OK;
        /* the input ended inside the value */
        if (s->tagged || looks_like_call(tw_dl_at(d, s->js_start), (size_t)(end - s->js_start))) {
            d->pos = end;
            s->st = S_END;
            s->trailing_seen = true;
            return unterminated(s, "JSON tool call");
        }
        d->pos = s->js_start;
        s->st = S_CONTENT;
        s->resume = 0;
        *more = true;
        return TW_OK;
    case S_SEP: {
        uint64_t p = skip_ws(d, d->pos);
        if (p < end && !s->semi && *tw_dl_at(d, p) == ';') {
            s->semi = true; /* one ';' only: a second one is prose */
            p = skip_ws(d, p + 1);
        }
        if (p == end) {
            d->pos = end; /* ';' and white space: wait for what follows */
            return TW_OK;
        }
        if (*tw_dl_at(d, p) == '{') {
            s->first = false;
            if (!s->tagged)
                s->sec = p;
            json_begin(s, p);
        } else {
            d->pos = p;
            s->st = S_CONTENT;
            s->resume = 0;
            s->tagged = false;
        }
        *more = true;
        return TW_OK;
    }
    case S_CONTENT: {
        uint64_t at;
        size_t which;
        tw_dl_hit h = tw_dl_find(d, d->pos, &s->resume, MARKS, M_NMARKS, final, &at, &which);
        tw_status st = tw_dl_text(d, TW_DL_CONTENT, d->pos, (size_t)(at - d->pos));
        d->pos = at;
        s->resume = 0;
        if (st != TW_OK || h != TW_DL_FOUND)
            return st;
        if (which == M_TAG) {
            s->sec = at;
            s->tagged = true;
            s->st = S_TAG;
        } else {
            s->st = S_END;
        }
        d->pos = at + MARKS[which].n;
        *more = true;
        return TW_OK;
    }
    case S_TAG: {
        uint64_t p = skip_ws(d, d->pos);
        d->pos = p;
        if (p == end) {
            if (!final)
                return TW_OK;
            s->st = S_END;
            return unterminated(s, "<|python_tag|> with no call after it");
        }
        if (*tw_dl_at(d, p) == '{') {
            s->first = false;
            json_begin(s, p);
            *more = true;
            return TW_OK;
        }
        int k = builtin_head(d, p, final, &s->name_off, &s->name_len, &s->args_off);
        if (k < 0)
            return TW_OK;
        if (k == 1) {
            s->st = S_BUILTIN;
            s->js_pos = s->args_off;
            s->depth = 0;
            s->in_str = s->esc = false;
        } else {
            s->st = S_CODE;
            s->resume = 0;
        }
        d->pos = p;
        *more = true;
        return TW_OK;
    }
    case S_BUILTIN:
        if (args_scan(s)) {
            *more = true;
            return builtin_done(s);
        }
        if (!final)
            return TW_OK;
        d->pos = end;
        s->st = S_END;
        s->trailing_seen = true;
        return unterminated(s, "built-in tool call");
    case S_CODE: {
        uint64_t at;
        size_t which;
        tw_dl_hit h = tw_dl_find(d, d->pos, &s->resume, ENDS, M_NENDS, final, &at, &which);
        if (h == TW_DL_FOUND) {
            tw_status st = code_done(s, d->pos, at);
            d->pos = at + ENDS[which].n;
            s->st = S_END;
            *more = true;
            return st;
        }
        if (!final)
            return TW_OK;
        uint64_t from = d->pos;
        d->pos = end;
        s->st = S_END;
        if (cut(s))
            return unterminated(s, "code after <|python_tag|>");
        return code_done(s, from, end);
    }
    case S_END: {
        uint64_t p = skip_ws(d, d->pos);
        d->pos = p;
        if (p == end)
            return TW_OK;
        d->pos = end;
        if (s->trailing_seen)
            return TW_OK;
        s->trailing_seen = true;
        return tw_dl_diag(d, false, TW_D_RESPONSE_SHAPE, (int64_t)p,
                          "text after the message's end token (<|eot_id|>, <|eom_id|> or "
                          "<|end_of_text|>) was dropped");
    }
    }
    return TW_OK;
}

static tw_status l3_scan(tw_dl *d, bool final)
{
    l3 *s = (l3 *)d;
    bool more = true;
    tw_status st = TW_OK;
    while (st == TW_OK && more)
        st = step(s, final, &more);
    return st;
}

static const tw_dialect LLAMA3 = {"llama3", sizeof(l3), NULL, l3_scan, NULL};

TW_DIALECT_MODULE(llama3, LLAMA3, tw_format_llama3, "llama3",
                  "Llama 3.x model output: JSON calls, <|python_tag|> built-in calls and code")
