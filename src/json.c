/* Bounded JSON: parse with caps, scan value extents, write without locale. */
#include "alloc.h"
#include "toolwire/json.h"
#include "json_marks.h"
#include "utf8.h"
#include "work.h"

#include <limits.h>
#include <locale.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===================== parse ===================== */

/* The one-pass parser (at the end of this file): its outcomes, and the mark
 * it leaves on a container in which no object (it included) repeats a key,
 * so that tw_json_dedupe has nothing to remove there. Removing members keeps
 * the mark true; code that adds a member to such an object must clear it. */
/* FAST_NOT_JSON: the lenient reading (lenient_parse) met what cJSON refuses */
enum { FAST_OK = 0, FAST_BAIL, FAST_NOMEM, FAST_NOT_JSON };
#define TW_JSON_UNIQUE_BIT (1 << 14) /* above cJSON's flags and the taint bit */
static int fast_parse(const char *buf, size_t len, size_t max_depth, cJSON **out,
                      size_t *deepest, tw_buf *marks, tw_json_arena *arena);
static inline bool word_has(const char *p, unsigned char c);
static inline uint64_t special_bits(const char *p);
static inline size_t first_special(uint64_t m);

/* Does the 8-byte word at p hold a '"', '[', ']', '{' or '}'? Exact: with
 * bit 0x20 cleared, '{' and '}' become '[' and ']' and no other byte does. */
static inline bool word_has_quote_or_bracket(const char *p)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, p, sizeof w);
    uint64_t q = w ^ (ones * '"'), f = w & (ones * 0xDF);
    uint64_t o = f ^ (ones * '['), c = f ^ (ones * ']');
    return (((q - ones) & ~q) | ((o - ones) & ~o) | ((c - ones) & ~c)) & high;
}

/* tw_json_depth; *at (when given) gets the offset of the bracket that went
 * past max_depth */
static size_t depth_scan(const char *buf, size_t len, size_t max_depth, size_t *at)
{
    size_t depth = 0, deepest = 0;
    size_t i = 0;
    const char *qnext = NULL; /* the next '"', kept across escapes */
    while (i < len) {
        /* eight bytes at a time while a word holds no quote or bracket */
        while (i + 8 <= len && !word_has_quote_or_bracket(buf + i))
            i += 8;
        if (i == len)
            break;
        unsigned char c = (unsigned char)buf[i];
        if (c == '"') {
            /* skip the string: find the closing quote not escaped */
            i++;
            for (;;) {
                const char *q = qnext;
                if (!q || q < buf + i)
                    q = qnext = memchr(buf + i, '"', len - i);
                if (!q)
                    return deepest;
                const char *b = memchr(buf + i, '\\', (size_t)(q - (buf + i)));
                if (b) {
                    i = (size_t)(b - buf) + 2;
                    if (i > len)
                        return deepest;
                    continue;
                }
                i = (size_t)(q - buf) + 1;
                break;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
            if (depth > deepest) {
                deepest = depth;
                if (deepest > max_depth) {
                    if (at)
                        *at = i;
                    return max_depth + 1;
                }
            }
        } else if ((c == '}' || c == ']') && depth) {
            depth--;
        }
        i++;
    }
    return deepest;
}

size_t tw_json_depth(const char *buf, size_t len, size_t max_depth)
{
    return depth_scan(buf, len, max_depth, NULL);
}

/* ===================== number spellings ===================== */

static bool num_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

typedef struct spell_cursor {
    const char *b;
    size_t n;
    size_t i;
    const size_t *pos; /* when a scan recorded them: start and end of each number token */
    size_t npos, k;
    const char *q; /* the next '"' found, kept across escapes */
} spell_cursor;

/* The next number token of the text outside strings (cJSON builds its tree
 * in document order, so the k-th number node is the k-th token). */
static bool next_number(spell_cursor *c, size_t *start, size_t *end)
{
    if (c->pos) {
        if (c->k >= c->npos)
            return false;
        *start = c->pos[2 * c->k];
        *end = c->pos[2 * c->k + 1];
        c->k++;
        return true;
    }
    while (c->i < c->n) {
        unsigned char ch = (unsigned char)c->b[c->i];
        if (ch == '"') {
            c->i++;
            for (;;) {
                const char *q = c->q;
                if (!q || q < c->b + c->i)
                    q = c->q = memchr(c->b + c->i, '"', c->n - c->i);
                if (!q) {
                    c->i = c->n;
                    return false;
                }
                const char *bs = memchr(c->b + c->i, '\\', (size_t)(q - (c->b + c->i)));
                if (bs) {
                    c->i = (size_t)(bs - c->b) + 2;
                    if (c->i > c->n) {
                        c->i = c->n;
                        return false;
                    }
                    continue;
                }
                c->i = (size_t)(q - c->b) + 1;
                break;
            }
            continue;
        }
        if (ch == '-' || (ch >= '0' && ch <= '9')) {
            *start = c->i;
            while (c->i < c->n && num_char((unsigned char)c->b[c->i]))
                c->i++;
            *end = c->i;
            return true;
        }
        c->i++;
    }
    return false;
}

/* The spelling tw_json_write_num gives d (a value too large for a double
 * as 1e999 or -1e999, which read back as the same infinity). */
static tw_status canon_spelling(double d, tw_buf *out)
{
    if (!isfinite(d))
        return tw_buf_puts(out, d < 0 ? "-1e999" : "1e999");
    return tw_json_write_num(out, d);
}

static tw_status spell_rec(spell_cursor *c, cJSON *v)
{
    for (; v; v = v->next) {
        int t = v->type & 0xFF;
        if (t == cJSON_Number) {
            size_t a, e;
            if (!next_number(c, &a, &e))
                return TW_OK; /* text and tree disagree: keep the doubles */
            if (!v->valuestring) {
                const char *src = c->b + a;
                size_t n = e - a;
                tw_buf canon = {0};
                if (!tw_json_number_valid(src, n)) {
                    /* not RFC 8259 (010, 1., 1.e5): the value keeps the
                     * spelling every writer gives it, so the tree prints,
                     * compares and re-encodes as one number (the parse's
                     * caller reports json_not_rfc8259) */
                    if (canon_spelling(v->valuedouble, &canon) != TW_OK)
                        return TW_ERR_NOMEM;
                    src = canon.data;
                    n = canon.len;
                }
                char *s = cJSON_malloc(n + 1);
                if (s) {
                    memcpy(s, src, n);
                    s[n] = '\0';
                }
                tw_buf_free(&canon);
                if (!s)
                    return TW_ERR_NOMEM;
                v->valuestring = s;
            }
        } else if ((t == cJSON_Array || t == cJSON_Object) && v->child) {
            tw_status st = spell_rec(c, v->child);
            if (st != TW_OK)
                return st;
        }
    }
    return TW_OK;
}

/* Keep each number node's source spelling in its valuestring (one linear
 * pass over the text, or over the token positions the scan recorded in nums;
 * the tree's depth was bounded before parsing). */
static tw_status spell_numbers(const char *buf, size_t len, const tw_buf *nums, cJSON *root)
{
    spell_cursor c = {buf, len, 0, NULL, 0, 0, NULL};
    if (nums) {
        c.pos = nums->len ? (const size_t *)(const void *)nums->data : NULL;
        c.npos = nums->len / (2 * sizeof(size_t));
        if (!c.pos)
            return TW_OK; /* no number in the text */
    }
    int t = root->type & 0xFF;
    if (t == cJSON_Number || t == cJSON_Array || t == cJSON_Object) {
        cJSON *next = root->next;
        root->next = NULL; /* a root has no siblings; be safe */
        tw_status st = spell_rec(&c, root);
        root->next = next;
        return st;
    }
    return TW_OK;
}

bool tw_json_number_valid(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    if (i >= n)
        return false;
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    } else {
        return false;
    }
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

const char *tw_json_spelling(const cJSON *v)
{
    if (!cJSON_IsNumber(v) || !v->valuestring)
        return NULL;
    const char *s = v->valuestring;
    return tw_json_number_valid(s, strlen(s)) ? s : NULL;
}

bool tw_json_spelled_integer(const char *s)
{
    for (; *s; s++)
        if (*s == '.' || *s == 'e' || *s == 'E')
            return false;
    return true;
}

/* A valid number spelling as sign, significant digits and the decimal
 * exponent of the first of them: value = 0.d1d2… × 10^pexp. */
typedef struct dec {
    bool neg;
    const char *ip, *fp; /* integer and fraction digits */
    size_t in, fn;
    size_t z;            /* leading zeros of ip ++ fp */
    size_t m;            /* significant digits (0: the value is zero) */
    long long pexp;
    bool big;            /* the exponent had more digits than are read */
} dec;

#define DEC_EXP_CAP 1000000000000000000LL /* exponents read exactly below this */

static char dec_digit(const dec *d, size_t k)
{
    return k < d->in ? d->ip[k] : d->fp[k - d->in];
}

static void dec_read(const char *s, size_t n, dec *d)
{
    size_t i = 0;
    memset(d, 0, sizeof *d);
    if (i < n && s[i] == '-') {
        d->neg = true;
        i++;
    }
    d->ip = s + i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    d->in = (size_t)(s + i - d->ip);
    d->fp = s + i;
    if (i < n && s[i] == '.') {
        d->fp = s + ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        d->fn = (size_t)(s + i - d->fp);
    }
    long long ex = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            if (ex < DEC_EXP_CAP / 10)
                ex = ex * 10 + (s[i] - '0');
            else
                d->big = true;
        }
        if (eneg)
            ex = -ex;
    }
    size_t len = d->in + d->fn, z = 0, t = 0;
    while (z < len && dec_digit(d, z) == '0')
        z++;
    while (t < len - z && dec_digit(d, len - 1 - t) == '0')
        t++;
    d->z = z;
    d->m = len - z - t;
    /* first significant digit at position z of ip ++ fp: its decimal
     * exponent is in - z - 1 (+ ex); as 0.d… that is one more */
    d->pexp = ex + (long long)d->in - (long long)z;
}

bool tw_json_same_number(const char *a, size_t an, const char *b, size_t bn)
{
    dec x, y;
    dec_read(a, an, &x);
    dec_read(b, bn, &y);
    if (x.m == 0 || y.m == 0)
        return x.m == y.m; /* zero equals zero whatever its sign */
    if (x.big || y.big) /* exponents past 10^18: equal only as the same text */
        return an == bn && memcmp(a, b, an) == 0;
    if (x.neg != y.neg || x.m != y.m || x.pexp != y.pexp)
        return false;
    for (size_t k = 0; k < x.m; k++)
        if (dec_digit(&x, x.z + k) != dec_digit(&y, y.z + k))
            return false;
    return true;
}

bool tw_json_number_is_integer(const char *s, size_t n)
{
    dec d;
    dec_read(s, n, &d);
    return d.m == 0 || d.pexp >= (long long)d.m;
}

static tw_status parse_plain(const char *buf, size_t len, size_t max_depth, size_t deepest,
                             const tw_buf *nums, cJSON **out, tw_error *err);

/*
 * Can buf hold a string with U+0000 (a raw 0x00, or a \u escape: \u0000,
 * or one without four hex digits, which cJSON reads as U+0000)? A cheap
 * filter before the exact scan.
 */
static bool may_hold_nul(const char *buf, size_t len)
{
    return memchr(buf, 0, len) || tw_memmem(buf, len, "\\u", 2);
}

tw_status tw_json_parse(const char *buf, size_t len, size_t max_depth, cJSON **out,
                        tw_error *err)
{
    size_t deepest;
    int fs = fast_parse(buf, len, max_depth, out, &deepest, NULL, NULL);
    if (fs == FAST_OK)
        return TW_OK;
    /* else the reading below: on an allocation failure it also tells a text
     * that reads from one that does not */
    if (len && may_hold_nul(buf, len)) {
        tw_json_lint lint;
        tw_json_lint_scan(buf, len, &lint);
        if (lint.nul) {
            /* cJSON's strings end at the first U+0000: refuse rather than cut */
            tw_error_set(err, TW_D_JSON_NUL, lint.nul_offset, NULL,
                         "a string holds U+0000 at byte %lld; it would be cut there",
                         (long long)lint.nul_offset);
            return TW_ERR_INVALID;
        }
    }
    return parse_plain(buf, len, max_depth, SIZE_MAX, NULL, out, err);
}

/* The byte at p as the message shows it: 'c' when printable ASCII, else 0xNN. */
static void found_byte(char *dst, size_t n, unsigned char c)
{
    if (c > 0x20 && c < 0x7f && c != '\'')
        snprintf(dst, n, "'%c'", c);
    else
        snprintf(dst, n, "byte 0x%02X", c);
}

/*
 * Say what a parser expected where the text stops being JSON: a small
 * grammar walk over buf (containers on a stack of at most max_depth, which
 * the depth check before has bounded). Sets *off and writes the reason
 * ("expected ',' or '}' after an object member, found 'x'", "unexpected end
 * of JSON inside a string"); false when the walk finds no fault (the caller
 * keeps the plain message).
 */
static bool describe_error(const char *buf, size_t len, size_t max_depth, size_t *off, char *why,
                           size_t n)
{
    enum { VALUE, OBJ_KEY_OR_END, OBJ_KEY, COLON, OBJ_NEXT, ARR_VALUE_OR_END, ARR_NEXT };
    char stack[TW_DEPTH_HARD_MAX + 1];
    size_t depth = 0, i = 0;
    int state = VALUE;
    char f[16];
    for (;;) {
        while (i < len && tw_is_space((unsigned char)buf[i]))
            i++;
        if (i >= len) {
            *off = len;
            if (depth == 0 && state != VALUE)
                return false;
            snprintf(why, n, "unexpected end of JSON%s",
                     state == VALUE && depth == 0 ? ""
                     : stack[depth - 1] == '{' ? " inside an object"
                                               : " inside an array");
            return true;
        }
        unsigned char c = (unsigned char)buf[i];
        *off = i;
        found_byte(f, sizeof f, c);
        bool value = state == VALUE || state == ARR_VALUE_OR_END;
        bool key = state == OBJ_KEY_OR_END || state == OBJ_KEY;
        if (state == ARR_VALUE_OR_END && c == ']') {
            depth--;
            i++;
            state = depth ? (stack[depth - 1] == '{' ? OBJ_NEXT : ARR_NEXT) : -1;
        } else if (state == OBJ_KEY_OR_END && c == '}') {
            depth--;
            i++;
            state = depth ? (stack[depth - 1] == '{' ? OBJ_NEXT : ARR_NEXT) : -1;
        } else if ((value || key) && c == '"') {
            size_t p = i + 1;
            for (; p < len && buf[p] != '"'; p++) {
                if (buf[p] != '\\')
                    continue;
                if (p + 1 >= len)
                    break;
                if (!strchr("\"\\/bfnrtu", buf[p + 1])) {
                    *off = p;
                    found_byte(f, sizeof f, (unsigned char)buf[p + 1]);
                    snprintf(why, n, "invalid escape in a string: \\ followed by %s", f);
                    return true;
                }
                p++;
            }
            if (p >= len) {
                *off = len;
                snprintf(why, n, "unexpected end of JSON inside a string");
                return true;
            }
            i = p + 1;
            if (key)
                state = COLON;
            else
                state = depth ? (stack[depth - 1] == '{' ? OBJ_NEXT : ARR_NEXT) : -1;
        } else if (key) {
            snprintf(why, n, "expected a string key%s, found %s",
                     state == OBJ_KEY_OR_END ? " or '}'" : " after ','", f);
            return true;
        } else if (state == COLON) {
            if (c != ':') {
                snprintf(why, n, "expected ':' after an object key, found %s", f);
                return true;
            }
            i++;
            state = VALUE;
        } else if (state == OBJ_NEXT || state == ARR_NEXT) {
            char close = state == OBJ_NEXT ? '}' : ']';
            if (c == ',') {
                i++;
                state = state == OBJ_NEXT ? OBJ_KEY : VALUE;
            } else if (c == (unsigned char)close) {
                depth--;
                i++;
                state = depth ? (stack[depth - 1] == '{' ? OBJ_NEXT : ARR_NEXT) : -1;
            } else {
                snprintf(why, n, "expected ',' or '%c' after an %s, found %s", close,
                         state == OBJ_NEXT ? "object member" : "array element", f);
                return true;
            }
        } else if (state == -1) {
            return false; /* trailing bytes: the caller says so */
        } else if (c == '{' || c == '[') {
            if (depth >= max_depth || depth >= TW_DEPTH_HARD_MAX)
                return false;
            stack[depth++] = (char)c;
            i++;
            state = c == '{' ? OBJ_KEY_OR_END : ARR_VALUE_OR_END;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t p = i;
            while (p < len && strchr("+-.eE0123456789", buf[p]))
                p++;
            i = p;
            state = depth ? (stack[depth - 1] == '{' ? OBJ_NEXT : ARR_NEXT) : -1;
        } else {
            static const char *const lits[] = {"true", "false", "null"};
            size_t k = 0;
            for (; k < 3; k++) {
                size_t ll = strlen(lits[k]);
                if (len - i >= ll && memcmp(buf + i, lits[k], ll) == 0)
                    break;
            }
            if (k == 3) {
                snprintf(why, n, "expected a JSON value, found %s", f);
                return true;
            }
            i += strlen(lits[k]);
            state = depth ? (stack[depth - 1] == '{' ? OBJ_NEXT : ARR_NEXT) : -1;
        }
        if (state == -1 && depth == 0) {
            /* one whole value: what follows is the caller's business */
            while (i < len && tw_is_space((unsigned char)buf[i]))
                i++;
            if (i >= len)
                return false;
            *off = i;
            return false;
        }
    }
}

/* ---- does cJSON read this text? ----
 *
 * cJSON returns NULL both when the text is not JSON and when an allocation
 * fails. To tell the two apart, cjson_reads walks the text as cJSON 1.7's
 * parser does, allocating nothing: bytes up to 0x20 are whitespace, a
 * leading UTF-8 byte order mark is skipped when two bytes follow it, a
 * number is the longest prefix strtod takes of the run of [0-9+-.eE]
 * characters, a \u escape must
 * have four characters before the closing quote and pair its surrogates
 * (hex digits are not checked: cJSON reads bad ones as U+0000), other
 * escapes are the eight of RFC 8259. It is never looser than cJSON: when it
 * says the first value reads and cJSON failed, an allocation failed. */

static bool cj_space(const char *buf, size_t len, size_t *i)
{
    while (*i < len && (unsigned char)buf[*i] <= 32)
        (*i)++;
    return *i < len;
}

static bool cj_digit(char c) { return c >= '0' && c <= '9'; }

/* Length strtod would take from t[0, n), 0 when none (decimal forms only:
 * hex, inf and nan cannot occur among the characters cJSON collects). */
static size_t cj_strtod_len(const char *t, size_t n)
{
    size_t i = 0;
    if (i < n && (t[i] == '+' || t[i] == '-'))
        i++;
    size_t d0 = i;
    while (i < n && cj_digit(t[i]))
        i++;
    size_t intd = i - d0, fracd = 0;
    if (i < n && t[i] == '.') {
        size_t j = i + 1;
        while (j < n && cj_digit(t[j]))
            j++;
        fracd = j - i - 1;
        if (intd || fracd)
            i = j;
    }
    if (!intd && !fracd)
        return 0;
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (t[j] == '+' || t[j] == '-'))
            j++;
        size_t k = j;
        while (k < n && cj_digit(t[k]))
            k++;
        if (k > j)
            i = k;
    }
    return i;
}

static unsigned cj_hex4(const char *p)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return 0;
        v = v * 16 + d;
    }
    return v;
}

/* A string at buf[*i] == '"'; moves *i past its closing quote. */
static bool cj_string(const char *buf, size_t len, size_t *i)
{
    if (*i >= len || buf[*i] != '"')
        return false;
    size_t end = *i + 1;
    while (end < len && buf[end] != '"') {
        if (buf[end] == '\\') {
            if (end + 1 >= len)
                return false;
            end++;
        }
        end++;
    }
    if (end >= len)
        return false;
    for (size_t p = *i + 1; p < end; p++) {
        if (buf[p] != '\\')
            continue;
        char e = buf[p + 1];
        if (e == 'u') {
            if (end - p < 6)
                return false;
            unsigned c1 = cj_hex4(buf + p + 2);
            if (c1 >= 0xDC00 && c1 <= 0xDFFF)
                return false;
            if (c1 >= 0xD800 && c1 <= 0xDBFF) {
                size_t q = p + 6;
                if (end - q < 6 || buf[q] != '\\' || buf[q + 1] != 'u')
                    return false;
                unsigned c2 = cj_hex4(buf + q + 2);
                if (c2 < 0xDC00 || c2 > 0xDFFF)
                    return false;
                p = q + 5;
            } else {
                p += 5;
            }
        } else if (strchr("bfnrt\"\\/", e) && e != '\0') {
            p++;
        } else {
            return false;
        }
    }
    *i = end + 1;
    return true;
}

static bool cjson_reads(const char *buf, size_t len)
{
    char stack[TW_DEPTH_HARD_MAX + 1];
    size_t depth = 0, i = 0;
    /* cJSON 1.7 skips the mark only when a byte follows it and one more
     * (can_access_at_index(buffer, 4)): a mark and one byte do not read */
    if (len >= 5 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    for (;;) {
        /* a value at buf[i] (after whitespace) */
        if (!cj_space(buf, len, &i))
            return false;
        char c = buf[i];
        if (c == '[' || c == '{') {
            if (depth >= TW_DEPTH_HARD_MAX)
                return false;
            stack[depth++] = c;
            i++;
            if (!cj_space(buf, len, &i))
                return false;
            if (buf[i] == (c == '[' ? ']' : '}')) {
                i++;
                depth--;
            } else if (c == '{') {
                if (!cj_string(buf, len, &i) || !cj_space(buf, len, &i) || buf[i] != ':')
                    return false;
                i++;
                continue;
            } else {
                continue;
            }
        } else if (c == '"') {
            if (!cj_string(buf, len, &i))
                return false;
        } else if (c == '-' || cj_digit(c)) {
            size_t n = 0;
            while (i + n < len && buf[i + n] != '\0' && strchr("0123456789+-eE.", buf[i + n]))
                n++;
            size_t k = cj_strtod_len(buf + i, n);
            if (k == 0)
                return false;
            i += k;
        } else {
            static const char *const lits[] = {"null", "false", "true"};
            size_t k = 0;
            for (; k < 3; k++) {
                size_t ll = strlen(lits[k]);
                if (len - i >= ll && memcmp(buf + i, lits[k], ll) == 0) {
                    i += ll;
                    break;
                }
            }
            if (k == 3)
                return false;
        }
        /* a value ended: close containers until one takes a next member */
        for (;;) {
            if (depth == 0)
                return true;
            if (!cj_space(buf, len, &i))
                return false;
            char open = stack[depth - 1];
            if (buf[i] == ',') {
                i++;
                if (open == '{') {
                    if (!cj_space(buf, len, &i) || !cj_string(buf, len, &i) ||
                        !cj_space(buf, len, &i) || buf[i] != ':')
                        return false;
                    i++;
                }
                break;
            }
            if (buf[i] != (open == '[' ? ']' : '}'))
                return false;
            i++;
            depth--;
        }
    }
}

/* Where cJSON stopped in a text it refused (its end pointer), 0 when none. */
static size_t cjson_end(const char *buf, size_t len, const char *end)
{
    return end && end >= buf && end <= buf + len ? (size_t)(end - buf) : 0;
}

/* The error of a text cJSON refused: off is where cJSON stopped; described,
 * at and why are describe_error's answer. */
static void not_json_error(tw_error *err, size_t len, size_t off, bool described, size_t at,
                           const char *why)
{
    /* cJSON may point past trailing whitespace; report the first
     * offending byte or the end */
    if (described) {
        /* at the end of the input the offset stays the parser's (where
         * the unfinished value started to go wrong) */
        if (at >= len)
            tw_error_set(err, TW_ERR_PARSE, (int64_t)off, NULL, "%s", why);
        else
            tw_error_set(err, TW_ERR_PARSE, (int64_t)at, NULL, "invalid JSON at byte %zu: %s", at,
                         why);
    } else if (len == 0 || off >= len)
        tw_error_set(err, TW_ERR_PARSE, (int64_t)off, NULL, "unexpected end of JSON");
    else
        tw_error_set(err, TW_ERR_PARSE, (int64_t)off, NULL, "invalid JSON at byte %zu", off);
}

/* deepest: the text's nesting when a scan already measured it, else SIZE_MAX;
 * nums: the number tokens that scan recorded, or NULL to find them again. */
static tw_status parse_plain(const char *buf, size_t len, size_t max_depth, size_t deepest,
                             const tw_buf *nums, cJSON **out, tw_error *err)
{
    *out = NULL;
    if (max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX)
        max_depth = TW_DEPTH_HARD_MAX;
    if (deepest == SIZE_MAX)
        deepest = tw_json_depth(buf, len, max_depth);
    if (deepest > max_depth) {
        /* the error path scans once more for the bracket that went too deep */
        size_t at = 0;
        if (err)
            depth_scan(buf, len, max_depth, &at);
        tw_error_set(err, TW_D_JSON_TOO_DEEP, (int64_t)at, NULL,
                     "JSON nested deeper than %zu at byte %zu", max_depth, at);
        return TW_ERR_LIMIT;
    }
    const char *end = NULL;
    cJSON *v = len ? cJSON_ParseWithLengthOpts(buf, len, &end, 0) : NULL;
    if (!v && len && cjson_reads(buf, len)) {
        /* the text reads: what failed was an allocation, not the JSON */
        tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory parsing JSON");
        return TW_ERR_NOMEM;
    }
    if (!v) {
        if (err) {
            char why[80];
            size_t at = 0;
            bool described = describe_error(buf, len, max_depth, &at, why, sizeof why);
            not_json_error(err, len, cjson_end(buf, len, end), described, at, why);
        }
        return TW_ERR_PARSE;
    }
    size_t off = (size_t)(end - buf);
    while (off < len && tw_is_space((unsigned char)buf[off]))
        off++;
    if (off < len) {
        cJSON_Delete(v);
        tw_error_set(err, TW_ERR_PARSE, (int64_t)off, NULL,
                     "unexpected bytes after the JSON value at byte %zu", off);
        return TW_ERR_PARSE;
    }
    tw_status ks = spell_numbers(buf, len, nums, v);
    if (ks != TW_OK) {
        cJSON_Delete(v);
        tw_error_set(err, ks, -1, NULL, "out of memory keeping number spellings");
        return ks;
    }
    *out = v;
    return TW_OK;
}

/*
 * Does the text read as an object or an array, as tw_json_parse_lint reads
 * it (strings that hold U+0000 included)? The same reading, the one-pass
 * parser and then cJSON, without the lint scan, the number spellings and the
 * error message: TW_OK with *container set, TW_ERR_PARSE when the text does
 * not read, TW_ERR_LIMIT when it is nested deeper than max_depth, or
 * TW_ERR_NOMEM.
 */
tw_status tw_json_reads_container(const char *buf, size_t len, size_t max_depth, bool *container)
{
    *container = false;
    size_t deepest;
    cJSON *v = NULL;
    if (fast_parse(buf, len, max_depth, &v, &deepest, NULL, NULL) == FAST_OK) {
        *container = cJSON_IsObject(v) || cJSON_IsArray(v);
        cJSON_Delete(v);
        return TW_OK;
    }
    /* parse_plain's reading (the lint scan's depth is tw_json_depth's) */
    if (max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX)
        max_depth = TW_DEPTH_HARD_MAX;
    if (tw_json_depth(buf, len, max_depth) > max_depth)
        return TW_ERR_LIMIT;
    const char *end = NULL;
    v = len ? cJSON_ParseWithLengthOpts(buf, len, &end, 0) : NULL;
    if (!v)
        return len && cjson_reads(buf, len) ? TW_ERR_NOMEM : TW_ERR_PARSE;
    size_t off = (size_t)(end - buf);
    while (off < len && tw_is_space((unsigned char)buf[off]))
        off++;
    *container = off == len && (cJSON_IsObject(v) || cJSON_IsArray(v));
    cJSON_Delete(v);
    return off == len ? TW_OK : TW_ERR_PARSE;
}

/* ===================== scanner ===================== */

enum {
    S_START = 0, /* before the top-level value */
    S_VALUE,     /* a value is expected (after ':' or ',' in an array) */
    S_OBJ_FIRST, /* after '{' */
    S_OBJ_KEY,   /* after ',' in an object */
    S_COLON,     /* after a key */
    S_AFTER,     /* after a value inside a container */
    S_ARR_FIRST, /* after '[' */
    S_STRING,
    S_ESC,
    S_UHEX,
    S_SCALAR,
    S_END
};

static bool top_is_obj(const tw_jscan *s)
{
    size_t d = s->depth - 1;
    return (s->stack[d / 8] >> (d % 8)) & 1u;
}

static bool scalar_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '+' || c == '-' || c == '.';
}

/* tw_is_space, inlined for the scanner's loop */
static inline bool jscan_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

tw_jscan_result tw_jscan_feed(tw_jscan *s, const char *p, size_t n, size_t *used)
{
    if (s->state == S_END) {
        *used = 0;
        return (tw_jscan_result)s->result;
    }
    size_t max_depth = s->max_depth && s->max_depth <= TW_DEPTH_HARD_MAX ? s->max_depth
                                                                          : TW_DEPTH_HARD_MAX;
    size_t i = 0;
#define FINISH(r, at)                                                          \
    do {                                                                       \
        s->state = S_END;                                                      \
        s->result = (unsigned char)(r);                                        \
        *used = (at);                                                          \
        s->consumed += (at);                                                   \
        TW_WORK(at);                                                           \
        return (r);                                                            \
    } while (0)

    while (i < n) {
        unsigned char c = (unsigned char)p[i];
        switch (s->state) {
        case S_STRING: {
            /* to the next '"' or backslash: eight bytes at a time while a
             * word holds neither, then byte by byte (each byte read once,
             * however many escapes the string holds) */
            while (i + 8 <= n && !word_has(p + i, '"') && !word_has(p + i, '\\'))
                i += 8;
            while (i < n && p[i] != '"' && p[i] != '\\')
                i++;
            if (i >= n)
                continue;
            if (p[i] == '\\') {
                i++;
                s->state = S_ESC;
                continue;
            }
            i++;
            if (s->in_key) {
                s->in_key = 0;
                s->state = S_COLON;
            } else {
                s->state = S_AFTER;
            }
            continue;
        }
        case S_ESC:
            if (c == 'u') {
                s->uhex = 4;
                s->state = S_UHEX;
            } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' ||
                       c == 'r' || c == 't') {
                s->state = S_STRING;
            } else {
                FINISH(TW_JSCAN_INVALID, i);
            }
            i++;
            continue;
        case S_UHEX:
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
                FINISH(TW_JSCAN_INVALID, i);
            if (--s->uhex == 0)
                s->state = S_STRING;
            i++;
            continue;
        case S_SCALAR:
            if (scalar_char(c)) {
                i++;
                continue;
            }
            s->state = S_AFTER;
            continue; /* re-dispatch this byte */
        default:
            break;
        }

        if (jscan_space(c)) {
            i++;
            continue;
        }
        switch (s->state) {
        case S_START:
        case S_VALUE:
        case S_ARR_FIRST:
            if (c == '{' || c == '[') {
                if (s->depth >= max_depth)
                    FINISH(TW_JSCAN_TOO_DEEP, i);
                size_t d = s->depth++;
                if (c == '{')
                    s->stack[d / 8] = (unsigned char)(s->stack[d / 8] | (1u << (d % 8)));
                else
                    s->stack[d / 8] = (unsigned char)(s->stack[d / 8] & ~(1u << (d % 8)));
                if (s->depth > s->max_seen)
                    s->max_seen = s->depth;
                s->state = c == '{' ? S_OBJ_FIRST : S_ARR_FIRST;
                i++;
                continue;
            }
            if (s->state == S_START)
                FINISH(TW_JSCAN_INVALID, i);
            if (s->state == S_ARR_FIRST && c == ']')
                goto close;
            if (c == '"') {
                s->state = S_STRING;
                s->in_key = 0;
                i++;
                continue;
            }
            if (scalar_char(c) && c != '+' && c != '.') {
                s->state = S_SCALAR;
                i++;
                continue;
            }
            FINISH(TW_JSCAN_INVALID, i);
        case S_OBJ_FIRST:
        case S_OBJ_KEY:
            if (c == '"') {
                s->state = S_STRING;
                s->in_key = 1;
                i++;
                continue;
            }
            if (s->state == S_OBJ_FIRST && c == '}')
                goto close;
            FINISH(TW_JSCAN_INVALID, i);
        case S_COLON:
            if (c != ':')
                FINISH(TW_JSCAN_INVALID, i);
            s->state = S_VALUE;
            i++;
            continue;
        case S_AFTER:
            if (c == ',') {
                s->state = top_is_obj(s) ? S_OBJ_KEY : S_VALUE;
                i++;
                continue;
            }
            if (c == '}' || c == ']')
                goto close;
            FINISH(TW_JSCAN_INVALID, i);
        default:
            FINISH(TW_JSCAN_INVALID, i);
        }
    close:
        if ((c == '}') != top_is_obj(s))
            FINISH(TW_JSCAN_INVALID, i);
        s->depth--;
        i++;
        if (s->depth == 0)
            FINISH(TW_JSCAN_DONE, i);
        s->state = S_AFTER;
    }
#undef FINISH
    s->consumed += n;
    TW_WORK(n);
    *used = n;
    return TW_JSCAN_MORE;
}

bool tw_json_first_balanced(const char *buf, size_t len, size_t max_depth, size_t *start,
                            size_t *end)
{
    const char *o = memchr(buf, '{', len);
    const char *a = memchr(buf, '[', len);
    const char *f = o && a ? (o < a ? o : a) : (o ? o : a);
    if (!f)
        return false;
    size_t st = (size_t)(f - buf);
    tw_jscan sc;
    memset(&sc, 0, sizeof sc);
    sc.max_depth = max_depth;
    size_t used = 0;
    tw_jscan_result r = tw_jscan_feed(&sc, buf + st, len - st, &used);
    if (r == TW_JSCAN_DONE) {
        *start = st;
        *end = st + used;
        return true;
    }
    if (r == TW_JSCAN_TOO_DEEP) {
        /* report the extent anyway; the caller's depth check refuses it */
        *start = st;
        *end = len;
        return true;
    }
    return false;
}

/* ===================== writer ===================== */

static const char hexd[] = "0123456789abcdef";

static tw_status put_u16(tw_buf *out, unsigned v)
{
    char e[6] = {'\\', 'u', hexd[(v >> 12) & 15], hexd[(v >> 8) & 15], hexd[(v >> 4) & 15],
                 hexd[v & 15]};
    return tw_buf_append(out, e, 6);
}

char *tw_utf8_as_written(const char *s, size_t n, bool *changed)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t bad = 0;
    for (size_t i = 0; i < n;) {
        size_t k = tw_utf8_len(u + i, n - i);
        bad += k == 0;
        i += k ? k : 1;
    }
    *changed = bad != 0;
    char *o = tw_malloc(n + 2 * bad + 1);
    if (!o)
        return NULL;
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        size_t k = tw_utf8_len(u + i, n - i);
        if (k) {
            memcpy(o + w, s + i, k);
            w += k;
            i += k;
        } else {
            memcpy(o + w, "\xEF\xBF\xBD", 3);
            w += 3;
            i++;
        }
    }
    o[w] = 0;
    return o;
}

size_t tw_utf8_invalid(const char *s, size_t n, size_t *first)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t bad = 0;
    *first = n;
    for (size_t i = 0; i < n;) {
        size_t k = tw_utf8_len(u + i, n - i);
        if (!k && !bad++)
            *first = i;
        i += k ? k : 1;
    }
    return bad;
}

tw_status tw_json_write_str(tw_buf *out, const char *s, size_t n, int flags)
{
    tw_status st = tw_buf_putc(out, '"');
    size_t i = 0, run = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (st == TW_OK && i < n) {
        /* plain bytes eight at a time, to the first byte of a word that
         * needs more than a copy ('"', '\\', a control byte, a byte >= 0x80) */
        if (i + 8 <= n) {
            uint64_t m = special_bits(s + i);
            size_t k = m ? first_special(m) : 8;
            if (k) {
                i += k;
                run += k;
                continue;
            }
        }
        unsigned char c = u[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            run++;
            continue;
        }
        if (run) {
            st = tw_buf_append(out, s + i - run, run);
            run = 0;
            if (st != TW_OK)
                break;
        }
        if (c < 0x80) {
            const char *e = NULL;
            switch (c) {
            case '"': e = "\\\""; break;
            case '\\': e = "\\\\"; break;
            case '\n': e = "\\n"; break;
            case '\r': e = "\\r"; break;
            case '\t': e = "\\t"; break;
            case '\b': e = "\\b"; break;
            case '\f': e = "\\f"; break;
            default: break;
            }
            st = e ? tw_buf_append(out, e, 2) : put_u16(out, c);
            i++;
            continue;
        }
        size_t k = tw_utf8_len(u + i, n - i);
        if (k == 0) {
            st = (flags & TW_JSON_ASCII) ? put_u16(out, 0xFFFD)
                                         : tw_buf_append(out, "\xEF\xBF\xBD", 3);
            i++;
            continue;
        }
        if (flags & TW_JSON_ASCII) {
            unsigned cp;
            if (k == 2)
                cp = ((unsigned)(c & 0x1F) << 6) | (u[i + 1] & 0x3Fu);
            else if (k == 3)
                cp = ((unsigned)(c & 0x0F) << 12) | ((u[i + 1] & 0x3Fu) << 6) | (u[i + 2] & 0x3Fu);
            else
                cp = ((unsigned)(c & 0x07) << 18) | ((u[i + 1] & 0x3Fu) << 12) |
                     ((u[i + 2] & 0x3Fu) << 6) | (u[i + 3] & 0x3Fu);
            if (cp >= 0x10000) {
                cp -= 0x10000;
                st = put_u16(out, 0xD800 + (cp >> 10));
                if (st == TW_OK)
                    st = put_u16(out, 0xDC00 + (cp & 0x3FF));
            } else {
                st = put_u16(out, cp);
            }
        } else {
            st = tw_buf_append(out, s + i, k);
        }
        i += k;
    }
    if (st == TW_OK && run)
        st = tw_buf_append(out, s + n - run, run);
    if (st == TW_OK)
        st = tw_buf_putc(out, '"');
    return st;
}

tw_status tw_json_write_num(tw_buf *out, double d)
{
    char tmp[64];
    if (!isfinite(d))
        return tw_buf_puts(out, "null");
    if (d == floor(d) && fabs(d) < 9007199254740992.0) {
        snprintf(tmp, sizeof tmp, "%.0f", d);
        if (strcmp(tmp, "-0") == 0)
            strcpy(tmp, "0");
        return tw_buf_puts(out, tmp);
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (prec == 17 || strtod(tmp, NULL) == d)
            break;
    }
    /* whatever the locale's decimal point is, JSON's is '.' */
    for (char *p = tmp; *p; p++)
        if (!(*p >= '0' && *p <= '9') && *p != '-' && *p != '+' && *p != 'e' && *p != 'E')
            *p = '.';
    return tw_buf_puts(out, tmp);
}

tw_status tw_json_write_number(tw_buf *out, const cJSON *v)
{
    const char *s = tw_json_spelling(v);
    if (s)
        return tw_buf_puts(out, s);
    return tw_json_write_num(out, v ? v->valuedouble : 0);
}

static tw_status write_value(tw_buf *out, const cJSON *v, int flags, int level);

static tw_status newline_indent(tw_buf *out, int flags, int level)
{
    if (!(flags & TW_JSON_PRETTY))
        return TW_OK;
    tw_status st = tw_buf_putc(out, '\n');
    for (int i = 0; st == TW_OK && i < level; i++)
        st = tw_buf_append(out, "  ", 2);
    return st;
}

static tw_status write_value(tw_buf *out, const cJSON *v, int flags, int level)
{
    tw_status st = TW_OK;
    const char *comma = (flags & (TW_JSON_SPACED)) && !(flags & TW_JSON_PRETTY) ? ", " : ",";
    const char *colon = (flags & (TW_JSON_SPACED | TW_JSON_PRETTY)) ? ": " : ":";
    switch (v->type & 0xFF) {
    case cJSON_NULL: return tw_buf_puts(out, "null");
    case cJSON_True: return tw_buf_puts(out, "true");
    case cJSON_False: return tw_buf_puts(out, "false");
    case cJSON_Number: return tw_json_write_number(out, v);
    case cJSON_String:
        return tw_json_write_str(out, v->valuestring ? v->valuestring : "",
                                 v->valuestring ? strlen(v->valuestring) : 0, flags);
    case cJSON_Raw: return tw_buf_puts(out, v->valuestring ? v->valuestring : "null");
    case cJSON_Array:
    case cJSON_Object: {
        bool obj = (v->type & 0xFF) == cJSON_Object;
        st = tw_buf_putc(out, obj ? '{' : '[');
        const cJSON *c = v->child;
        for (bool first = true; st == TW_OK && c; c = c->next, first = false) {
            if (!first)
                st = tw_buf_puts(out, comma);
            if (st == TW_OK)
                st = newline_indent(out, flags, level + 1);
            if (st == TW_OK && obj) {
                const char *k = c->string ? c->string : "";
                st = tw_json_write_str(out, k, strlen(k), flags);
                if (st == TW_OK)
                    st = tw_buf_puts(out, colon);
            }
            if (st == TW_OK)
                st = write_value(out, c, flags, level + 1);
        }
        if (st == TW_OK && v->child)
            st = newline_indent(out, flags, level);
        if (st == TW_OK)
            st = tw_buf_putc(out, obj ? '}' : ']');
        return st;
    }
    default: return tw_buf_puts(out, "null");
    }
}

tw_status tw_json_write(tw_buf *out, const cJSON *v, int flags)
{
    if (!v)
        return tw_buf_puts(out, "null");
    return write_value(out, v, flags, 0);
}

char *tw_json_print(const cJSON *v, size_t *len)
{
    tw_buf b = {0};
    if (tw_json_write(&b, v, TW_JSON_COMPACT) != TW_OK) {
        tw_buf_free(&b);
        return NULL;
    }
    return tw_buf_take(&b, len);
}

/* Bytes tw_json_write_str would produce in compact mode. */
static size_t str_size(const unsigned char *u, size_t n)
{
    size_t total = 2;
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            total++;
            i++;
        } else if (c < 0x80) {
            bool short_esc = c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' ||
                             c == '\b' || c == '\f';
            total += short_esc ? 2 : 6;
            i++;
        } else {
            size_t k = tw_utf8_len(u + i, n - i);
            total += k ? k : 3;
            i += k ? k : 1;
        }
    }
    return total;
}

static size_t size_rec(const cJSON *v, size_t cap, size_t acc)
{
    if (acc > cap)
        return acc;
    switch (v->type & 0xFF) {
    case cJSON_NULL: return acc + 4;
    case cJSON_True: return acc + 4;
    case cJSON_False: return acc + 5;
    case cJSON_Number: {
        const char *sp = tw_json_spelling(v);
        if (sp)
            return acc + strlen(sp);
        tw_buf b = {0};
        char tmp[64];
        b.data = tmp;
        b.cap = sizeof tmp;
        b.max = sizeof tmp - 1;
        tw_json_write_num(&b, v->valuedouble);
        return acc + b.len;
    }
    case cJSON_String:
        return acc + (v->valuestring ? str_size((const unsigned char *)v->valuestring,
                                                strlen(v->valuestring))
                                     : 2);
    case cJSON_Array:
    case cJSON_Object: {
        bool obj = (v->type & 0xFF) == cJSON_Object;
        acc += 2;
        for (const cJSON *c = v->child; c && acc <= cap; c = c->next) {
            if (c != v->child)
                acc++;
            if (obj)
                acc += 1 + str_size((const unsigned char *)(c->string ? c->string : ""),
                                    c->string ? strlen(c->string) : 0);
            acc = size_rec(c, cap, acc);
        }
        return acc;
    }
    default: return acc + 4;
    }
}

size_t tw_json_size(const cJSON *v, size_t cap)
{
    size_t n = v ? size_rec(v, cap, 0) : 4;
    return n > cap ? cap + 1 : n;
}

/*
 * An upper bound of the compact size, from string lengths alone: a string
 * byte is written as at most 6 bytes (\u00XX; an invalid UTF-8 byte as the
 * 3 of U+FFFD), a number as its spelling or at most 32 bytes.
 */
static size_t bound_rec(const cJSON *v, size_t cap, size_t acc)
{
    if (acc > cap)
        return acc;
    switch (v->type & 0xFF) {
    case cJSON_Number: return acc + 32 + (v->valuestring ? strlen(v->valuestring) : 0);
    case cJSON_String: return acc + 2 + 6 * (v->valuestring ? strlen(v->valuestring) : 0);
    case cJSON_Array:
    case cJSON_Object:
        acc += 2;
        for (const cJSON *c = v->child; c && acc <= cap; c = c->next)
            acc = bound_rec(c, cap, acc + 4 + (c->string ? 6 * strlen(c->string) : 0));
        return acc;
    default: return acc + 5;
    }
}

bool tw_json_size_within(const cJSON *v, size_t cap)
{
    if (v && bound_rec(v, cap, 0) <= cap)
        return true; /* the bound fits, so the size does */
    return tw_json_size(v, cap) <= cap;
}

/* ===================== accessors ===================== */

cJSON *tw_json_get(const cJSON *obj, const char *key)
{
    if (!obj || !cJSON_IsObject(obj))
        return NULL;
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

const char *tw_json_get_str(const cJSON *obj, const char *key)
{
    cJSON *v = tw_json_get(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The shortest spelling of a double that reads back equal, as
 * tw_json_write_num prints it; NULL when it is not finite. */
static const char *short_spelling(double d, char *tmp, size_t n)
{
    if (!isfinite(d))
        return NULL;
    tw_buf b = {0};
    b.data = tmp;
    b.cap = n;
    b.max = n - 1;
    if (tw_json_write_num(&b, d) != TW_OK)
        return NULL;
    tmp[b.len] = '\0';
    return tmp;
}

bool tw_json_number_equal(const cJSON *a, const cJSON *b)
{
    const char *sa = tw_json_spelling(a), *sb = tw_json_spelling(b);
    if (!sa && !sb)
        return a->valuedouble == b->valuedouble;
    /* compare decimal values exactly; a node without a spelling stands for
     * its double's shortest round-trip spelling */
    char ta[64], tb[64];
    if (!sa)
        sa = short_spelling(a->valuedouble, ta, sizeof ta);
    if (!sb)
        sb = short_spelling(b->valuedouble, tb, sizeof tb);
    if (!sa || !sb)
        return false;
    return tw_json_same_number(sa, strlen(sa), sb, strlen(sb));
}

/* Members of an object sorted by key, equal keys in document order. */
typedef struct member_ref {
    const cJSON *m;
    size_t pos;
} member_ref;

static int member_cmp(const void *x, const void *y)
{
    const member_ref *a = x, *b = y;
    int c = strcmp(a->m->string ? a->m->string : "", b->m->string ? b->m->string : "");
    return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* The members of obj sorted (malloc'd; NULL when empty or out of memory). */
static member_ref *sorted_members(const cJSON *obj, size_t *n)
{
    size_t k = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        k++;
    *n = k;
    member_ref *v = k ? tw_malloc(k * sizeof *v) : NULL;
    if (!v)
        return NULL;
    k = 0;
    for (const cJSON *c = obj->child; c; c = c->next, k++) {
        v[k].m = c;
        v[k].pos = k;
    }
    qsort(v, k, sizeof *v, member_cmp);
    TW_WORK(k);
    return v;
}

/* The member of sorted v[0, n) with this key, or NULL. */
static const cJSON *find_member(const member_ref *v, size_t n, const char *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v[mid].m->string ? v[mid].m->string : "", key);
        if (c == 0)
            return v[mid].m;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool tw_json_equal(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return a == b;
    int ta = a->type & 0xFF, tb = b->type & 0xFF;
    if (ta != tb)
        return false;
    switch (ta) {
    case cJSON_Number: return tw_json_number_equal(a, b);
    case cJSON_String:
        return strcmp(a->valuestring ? a->valuestring : "", b->valuestring ? b->valuestring : "") == 0;
    case cJSON_Array: {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!tw_json_equal(x, y))
                return false;
        return !x && !y;
    }
    case cJSON_Object: {
        int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
        if (na != nb)
            return false;
        /* same keys in the same order: equal member by member (this also
         * covers objects that repeat a key) */
        const cJSON *p = a->child, *q = b->child;
        for (; p && q; p = p->next, q = q->next)
            if (!p->string || !q->string || strcmp(p->string, q->string) != 0 ||
                !tw_json_equal(p, q))
                break;
        if (!p && !q)
            return true;
        /* the same key with another value: unequal whatever the order of the
         * rest (and never compared twice, which nested would cost 2^depth) */
        if (p->string && q->string && strcmp(p->string, q->string) == 0)
            return false;
        if (tw_json_duplicate_key(a) || tw_json_duplicate_key(b))
            return false;
        /* the rest of a, each member found in b by key; the matched prefix
         * holds none of these keys (no key repeats) */
        size_t n;
        member_ref *sb = sorted_members(b, &n);
        bool eq = true;
        for (const cJSON *x = p; eq && x; x = x->next) {
            const cJSON *y = sb ? find_member(sb, n, x->string)
                                : cJSON_GetObjectItemCaseSensitive(b, x->string);
            eq = y && tw_json_equal(x, y);
        }
        tw_free(sb);
        return eq;
    }
    default: return true;
    }
}

int64_t tw_json_int(const cJSON *v, int64_t lo, int64_t hi, int64_t dflt)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return dflt;
    double d = v->valuedouble;
    /* compare in double before converting: out-of-range casts are undefined */
    if (d <= (double)lo)
        return lo;
    if (d >= (double)hi)
        return hi;
    return (int64_t)d;
}

/* Is the decimal spelling s an integer (no non-zero digit after the point
 * once the exponent is applied)? s is a valid JSON number. */
static bool spelled_integer(const char *s)
{
    const char *p = s + (*s == '-');
    const char *e = strpbrk(p, "eE");
    size_t n = e ? (size_t)(e - p) : strlen(p);
    const char *dot = memchr(p, '.', n);
    size_t ni = dot ? (size_t)(dot - p) : n;
    /* the last non-zero digit, counted from the first integer digit */
    long long last = -1, k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '.')
            continue;
        if (p[i] != '0')
            last = k;
        k++;
    }
    if (last < 0)
        return true; /* zero, whatever the exponent (0e999999999999999999999) */
    long long exp = 0;
    if (e) {
        errno = 0;
        exp = strtoll(e + 1, NULL, 10);
        if (errno) /* a huge exponent of a non-zero value: never an index */
            return false;
    }
    /* digits at positions < ni + exp lie before the point */
    return last < 0 || last < (long long)ni + exp;
}

bool tw_json_exact_int(const cJSON *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return false;
    double d = v->valuedouble;
    const double exact = 9007199254740992.0; /* 2^53: below it a double is exact */
    if (d <= -exact || d >= exact || d != floor(d))
        return false;
    /* the double may have rounded a fraction away (9007199254740990.6):
     * the spelling, when the tree kept it, decides */
    const char *sp = tw_json_spelling(v);
    if (sp && !spelled_integer(sp))
        return false;
    int64_t i = (int64_t)d;
    if (i < lo || i > hi)
        return false;
    *out = i;
    return true;
}

const char *tw_json_duplicate_key(const cJSON *obj)
{
    if (!cJSON_IsObject(obj))
        return NULL;
    size_t n;
    member_ref *v = sorted_members(obj, &n);
    if (v || n == 0) {
        /* of the keys that repeat, the one whose first use comes first */
        const char *dup = NULL;
        size_t first = SIZE_MAX;
        for (size_t i = 1; i < n; i++)
            if (v[i].m->string && v[i - 1].m->string &&
                strcmp(v[i].m->string, v[i - 1].m->string) == 0 && v[i - 1].pos < first &&
                (i < 2 || !v[i - 2].m->string || strcmp(v[i - 2].m->string, v[i].m->string) != 0)) {
                first = v[i - 1].pos;
                dup = v[i].m->string;
            }
        tw_free(v);
        return dup;
    }
    /* out of memory for the index: compare the pairs */
    for (const cJSON *x = obj->child; x; x = x->next)
        for (const cJSON *y = x->next; y; y = y->next)
            if (x->string && y->string && strcmp(x->string, y->string) == 0)
                return y->string;
    return NULL;
}

/* ===================== strings and keys: NUL, control bytes, repeats ===================== */

#define TW_JSON_TAINT_BIT (1 << 13) /* above cJSON's type byte and its two flags */

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and nothing else */
static bool rfc_number(const char *p, size_t n)
{
    size_t i = 0;
#define DIGIT(k) ((k) < n && p[k] >= '0' && p[k] <= '9')
    if (i < n && p[i] == '-')
        i++;
    if (i < n && p[i] == '0')
        i++;
    else if (DIGIT(i))
        while (DIGIT(i))
            i++;
    else
        return false;
    if (i < n && p[i] == '.') {
        i++;
        if (!DIGIT(i))
            return false;
        while (DIGIT(i))
            i++;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        if (!DIGIT(i))
            return false;
        while (DIGIT(i))
            i++;
    }
#undef DIGIT
    return i == n;
}

static void lint_nonstd(tw_json_lint *out, size_t at, const char *what)
{
    if (out->nonstd_offset < 0) {
        out->nonstd_offset = (int64_t)at;
        out->nonstd_what = what;
    }
}

/* Does the 8-byte word at p hold a byte that ends a run of plain string
 * bytes ('"', '\\', below 0x20, or 0x80 and above)? Exact: the zero-byte
 * test ((x - 0x01..) & ~x & 0x80..) is nonzero exactly when some byte of x
 * is zero, and (x - 0x20..) & ~x & 0x80.. when some byte is below 0x20. */
static bool lint_word_special(const char *p)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, p, sizeof w);
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return ((w & high) | ((w - ones * 0x20) & ~w & high) | ((q - ones) & ~q & high) |
            ((b - ones) & ~b & high)) != 0;
}

/*
 * The scan; with `ords`, the ordinal (in document order, from 0) of every
 * string token, key or value, that holds U+0000 is appended as a size_t;
 * with `nums`, the start and end of every number token outside strings
 * (the spellings the parse keeps), two size_t each.
 */
static tw_status lint_run(const char *buf, size_t len, tw_json_lint *out, tw_buf *ords,
                          tw_buf *nums)
{
    out->nul = false;
    out->nul_offset = -1;
    out->nonstd_offset = -1;
    out->nonstd_what = NULL;
    out->depth = 0;
    size_t depth = 0;
    bool in_str = false, str_nul = false;
    size_t nstr = 0;
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        /* cJSON skips it; RFC 8259 texts have none (Python's json refuses it) */
        lint_nonstd(out, 0, "a UTF-8 byte order mark");
        i = 3;
    }
    for (; i < len; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (!in_str) {
            if (c == '"') {
                in_str = true;
                str_nul = false;
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                size_t e = i;
                while (e < len && ((buf[e] >= '0' && buf[e] <= '9') || buf[e] == '-' ||
                                   buf[e] == '+' || buf[e] == '.' || buf[e] == 'e' ||
                                   buf[e] == 'E'))
                    e++;
                if (!rfc_number(buf + i, e - i))
                    lint_nonstd(out, i, "a number not in RFC 8259 form");
                if (nums) {
                    size_t se[2] = {i, e};
                    tw_status st = tw_buf_append(nums, se, sizeof se);
                    if (st != TW_OK)
                        return st;
                }
                i = e - 1;
            } else if (c == '{' || c == '[') {
                if (++depth > out->depth)
                    out->depth = depth;
            } else if ((c == '}' || c == ']') && depth) {
                depth--;
            } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                lint_nonstd(out, i, c ? "a control character between tokens"
                                      : "a NUL byte between tokens");
            }
            continue;
        }
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            /* the run of plain bytes: eight at a time while a word holds
             * none of '"', '\\', a control byte or a byte >= 0x80, then one
             * by one; i ends on the run's last byte */
            i++;
            while (i + 8 <= len && !lint_word_special(buf + i))
                i += 8;
            while (i < len && (unsigned char)buf[i] >= 0x20 && (unsigned char)buf[i] < 0x80 &&
                   buf[i] != '"' && buf[i] != '\\')
                i++;
            i--;
            continue;
        }
        if (c >= 0x80) {
            size_t k = tw_utf8_len((const unsigned char *)buf + i, len - i);
            if (k == 0)
                lint_nonstd(out, i, "invalid UTF-8 inside a string");
            else
                i += k - 1;
            continue;
        }
        bool nul = false;
        if (c == '"') {
            in_str = false;
            nstr++;
        } else if (c == '\\') {
            if (i + 5 < len && buf[i + 1] == 'u') {
                /* cJSON reads a \u escape without four hex digits as U+0000 */
                bool hex = true;
                for (size_t k = 2; k < 6; k++)
                    hex = hex && ((buf[i + k] >= '0' && buf[i + k] <= '9') ||
                                  ((buf[i + k] | 0x20) >= 'a' && (buf[i + k] | 0x20) <= 'f'));
                if (!hex)
                    lint_nonstd(out, i, "a \\u escape without four hex digits");
                nul = !hex || memcmp(buf + i + 2, "0000", 4) == 0;
            }
            i++; /* the escaped byte */
        } else {
            lint_nonstd(out, i, "a raw control character inside a string");
            nul = c == 0;
        }
        if (nul) {
            if (!out->nul)
                out->nul_offset = (int64_t)(c == 0 ? i : i - 1);
            out->nul = true;
            if (ords && !str_nul) {
                tw_status st = tw_buf_append(ords, &nstr, sizeof nstr);
                if (st != TW_OK)
                    return st;
            }
            str_nul = true;
        }
    }
    return TW_OK;
}

void tw_json_lint_scan(const char *buf, size_t len, tw_json_lint *out)
{
    (void)lint_run(buf, len, out, NULL, NULL);
}

bool tw_json_tainted(const cJSON *v)
{
    return v && (v->type & TW_JSON_TAINT_BIT);
}

/* Walk state: string tokens seen so far and the sorted ordinals that hold U+0000. */
typedef struct nul_walk {
    size_t seen;
    const size_t *ords;
    size_t nords;
    size_t next;
} nul_walk;

/* Is the next string token one that holds U+0000? */
static bool nul_next(nul_walk *w)
{
    size_t at = w->seen++;
    if (w->next < w->nords && w->ords[w->next] == at) {
        w->next++;
        return true;
    }
    return false;
}

/*
 * Visit a container's members in document order (cJSON keeps it), counting
 * keys and string values as the scan counted their tokens; remove those
 * that hold U+0000 and mark the containers above. Returns whether anything
 * inside a was removed.
 */
static bool nul_prune(cJSON *a, nul_walk *w)
{
    bool tainted = false;
    bool obj = cJSON_IsObject(a);
    for (cJSON *x = a->child; x && w->next < w->nords;) {
        cJSON *nx = x->next;
        bool cut = obj && nul_next(w);
        if (cJSON_IsString(x))
            cut = nul_next(w) || cut;
        else if ((cJSON_IsObject(x) || cJSON_IsArray(x)) && nul_prune(x, w) && !cut)
            tainted = true;
        if (cut) {
            cJSON_Delete(cJSON_DetachItemViaPointer(a, x));
            tainted = true;
        }
        x = nx;
    }
    if (tainted)
        a->type |= TW_JSON_TAINT_BIT;
    return tainted;
}

static tw_status parse_lint(const char *buf, size_t len, size_t max_depth, cJSON **out,
                            tw_error *err, tw_json_lint *lint, tw_buf *marks,
                            tw_json_arena *arena);
static int lenient_parse(const char *buf, size_t len, size_t max_depth, cJSON **out,
                         tw_json_arena *arena);

tw_status tw_json_parse_lint(const char *buf, size_t len, size_t max_depth, cJSON **out,
                             tw_error *err, tw_json_lint *lint)
{
    return parse_lint(buf, len, max_depth, out, err, lint, NULL, NULL);
}

tw_status tw_json_parse_lint_in(const char *buf, size_t len, size_t max_depth, cJSON **out,
                                tw_error *err, tw_json_lint *lint, tw_json_arena *arena)
{
    return parse_lint(buf, len, max_depth, out, err, lint, NULL, arena);
}

tw_status tw_json_parse_lint_marked(const char *buf, size_t len, size_t max_depth, cJSON **out,
                                    tw_error *err, tw_json_lint *lint, tw_buf *marks,
                                    tw_json_arena *arena)
{
    marks->len = 0;
    /* one mark per container, and a container takes at least two bytes */
    marks->max = (len / 2 + 1) * sizeof(tw_json_mark);
    /* room for a body's few containers at once (a failure shows at the first mark) */
    (void)tw_buf_reserve(marks, 32 * sizeof(tw_json_mark) < marks->max
                                    ? 32 * sizeof(tw_json_mark) : marks->max);
    return parse_lint(buf, len, max_depth, out, err, lint, marks, arena);
}

static tw_status parse_lint(const char *buf, size_t len, size_t max_depth, cJSON **out,
                            tw_error *err, tw_json_lint *lint, tw_buf *marks,
                            tw_json_arena *arena)
{
    size_t deepest;
    int fs = fast_parse(buf, len, max_depth, out, &deepest, marks, arena);
    if (marks && fs != FAST_OK)
        marks->len = 0; /* the reading below records none */
    if (fs == FAST_OK) {
        /* RFC 8259 text without U+0000: nothing for the scan to find */
        lint->nul = false;
        lint->nul_offset = -1;
        lint->nonstd_offset = -1;
        lint->nonstd_what = NULL;
        lint->depth = deepest;
        return TW_OK;
    }
    tw_buf ords = {0};
    tw_buf nums = {0};
    tw_status st = lint_run(buf, len, lint, &ords, &nums);
    size_t cap = max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX ? TW_DEPTH_HARD_MAX : max_depth;
    int ls = st == TW_OK && fs == FAST_BAIL && lint->depth <= cap
                 ? lenient_parse(buf, len, cap, out, arena)
                 : FAST_BAIL;
    if (ls == FAST_OK && !lint->nul) {
        /* what the scan found is what cJSON takes as it is: the one pass
         * read it (the scan's findings stand) */
        tw_buf_free(&nums);
        tw_buf_free(&ords);
        return TW_OK;
    }
    if (ls == FAST_OK) {
        /* strings to prune: cJSON's tree, as below */
        if (arena)
            tw_json_arena_reset(arena);
        else
            cJSON_Delete(*out);
        *out = NULL;
    }
    if (ls == FAST_NOT_JSON) {
        /* cJSON refuses it (parse_plain would find no allocation failed):
         * its error, with cJSON's offset only when the message needs it
         * (the grammar walk ends at the end of the text, or finds no fault) */
        bool refused = true;
        if (err) {
            char why[80];
            size_t at = 0, off = 0;
            bool described = describe_error(buf, len, cap, &at, why, sizeof why);
            if (!described || at >= len) {
                const char *end = NULL;
                size_t failed = tw_alloc_failures();
                cJSON *v = len ? cJSON_ParseWithLengthOpts(buf, len, &end, 0) : NULL;
                refused = !v;
                cJSON_Delete(v);
                off = cjson_end(buf, len, end);
                if (refused && tw_alloc_failures() != failed) { /* not a refusal */
                    tw_buf_free(&nums);
                    tw_buf_free(&ords);
                    tw_error_set(err, TW_ERR_NOMEM, -1, NULL, "out of memory parsing JSON");
                    return TW_ERR_NOMEM;
                }
            }
            if (refused)
                not_json_error(err, len, off, described, at, why);
        }
        if (refused) {
            tw_buf_free(&nums);
            tw_buf_free(&ords);
            return TW_ERR_PARSE;
        }
        /* cJSON read it after all: the reading below */
    }
    if (st == TW_OK)
        st = parse_plain(buf, len, max_depth, lint->depth, &nums, out, err);
    else {
        *out = NULL;
        tw_error_set(err, st, -1, NULL, "out of memory scanning JSON");
    }
    tw_buf_free(&nums);
    if (st != TW_OK || !lint->nul) {
        tw_buf_free(&ords);
        return st;
    }
    nul_walk w = {0, (const size_t *)(const void *)ords.data, ords.len / sizeof(size_t), 0};
    cJSON *a = *out;
    if (cJSON_IsString(a) && nul_next(&w))
        a->type |= TW_JSON_TAINT_BIT;
    else if (cJSON_IsObject(a) || cJSON_IsArray(a))
        nul_prune(a, &w);
    tw_buf_free(&ords);
    return TW_OK;
}

const char *tw_json_repeated_member(const cJSON *obj, const char *const *keys)
{
    if (!cJSON_IsObject(obj) || (obj->type & TW_JSON_UNIQUE_BIT))
        return NULL;
    /* one walk over the members, each key compared by its length first */
    enum { NK = 16 };
    size_t nk = 0, klen[NK];
    unsigned char seen[NK] = {0};
    while (nk < NK && keys[nk]) {
        klen[nk] = strlen(keys[nk]);
        nk++;
    }
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (!c->string)
            continue;
        size_t n = strlen(c->string);
        for (size_t k = 0; k < nk; k++)
            if (klen[k] == n && memcmp(c->string, keys[k], n) == 0 && seen[k] < 2)
                seen[k]++;
    }
    for (size_t k = 0; k < nk; k++)
        if (seen[k] > 1)
            return keys[k];
    for (size_t k = nk; nk == NK && keys[k]; k++) { /* a list longer than NK */
        int cnt = 0;
        for (const cJSON *c = obj->child; c; c = c->next)
            if (c->string && strcmp(c->string, keys[k]) == 0 && ++cnt > 1)
                return keys[k];
    }
    return NULL;
}

typedef struct dedupe_key {
    const cJSON *item;
    size_t pos;
} dedupe_key;

static int dedupe_cmp(const void *pa, const void *pb)
{
    const dedupe_key *a = pa, *b = pb;
    int c = strcmp(a->item->string ? a->item->string : "", b->item->string ? b->item->string : "");
    if (c)
        return c;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Append "/key" to a JSON Pointer (RFC 6901 escapes), cut to fit. */
static void pointer_push(char *path, size_t pathlen, const char *key)
{
    size_t n = strlen(path);
    if (n + 1 >= pathlen)
        return;
    path[n++] = '/';
    for (const char *k = key; *k && n + 2 < pathlen; k++) {
        if (*k == '~' || *k == '/') {
            path[n++] = '~';
            path[n++] = *k == '~' ? '0' : '1';
        } else {
            path[n++] = *k;
        }
    }
    path[n] = '\0';
}

static tw_status dedupe_rec(cJSON *v, char *cur, size_t curlen, char *path, size_t pathlen,
                            size_t *removed)
{
    if (v->type & TW_JSON_UNIQUE_BIT)
        return TW_OK; /* the parser found no repeated key in it */
    if (cJSON_IsObject(v)) {
        size_t n = 0;
        for (const cJSON *c = v->child; c; c = c->next)
            n++;
        if (n > 1) {
            dedupe_key *ks = tw_malloc(n * sizeof *ks);
            if (!ks)
                return TW_ERR_NOMEM;
            size_t i = 0;
            for (const cJSON *c = v->child; c; c = c->next, i++) {
                ks[i].item = c;
                ks[i].pos = i;
            }
            qsort(ks, n, sizeof *ks, dedupe_cmp);
            /* mark first, remove after: a later member with the key of the
             * one before it in key order (ties in document order) */
            for (i = n - 1; i > 0; i--)
                if (strcmp(ks[i - 1].item->string ? ks[i - 1].item->string : "",
                           ks[i].item->string ? ks[i].item->string : "") == 0)
                    ks[i].pos = SIZE_MAX;
            for (i = 1; i < n; i++) {
                if (ks[i].pos != SIZE_MAX)
                    continue;
                if (*removed == 0 && pathlen) {
                    snprintf(path, pathlen, "%s", cur);
                    pointer_push(path, pathlen, ks[i].item->string ? ks[i].item->string : "");
                }
                (*removed)++;
                cJSON_Delete(cJSON_DetachItemViaPointer(v, (cJSON *)ks[i].item));
            }
            tw_free(ks);
        }
    }
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return TW_OK;
    size_t mark = strlen(cur);
    size_t idx = 0;
    for (cJSON *c = v->child; c; c = c->next, idx++) {
        if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
            continue;
        if (cJSON_IsObject(v)) {
            pointer_push(cur, curlen, c->string ? c->string : "");
        } else {
            char num[24];
            snprintf(num, sizeof num, "%zu", idx);
            pointer_push(cur, curlen, num);
        }
        tw_status st = dedupe_rec(c, cur, curlen, path, pathlen, removed);
        cur[mark] = '\0';
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}

tw_status tw_json_dedupe(cJSON *v, char *path, size_t pathlen, size_t *removed)
{
    char cur[256] = "";
    *removed = 0;
    if (pathlen)
        path[0] = '\0';
    return v ? dedupe_rec(v, cur, sizeof cur, path, pathlen, removed) : TW_OK;
}

/* ===================== the one-pass parser =====================
 *
 * tw_json_parse and tw_json_parse_lint first read the text in one pass that
 * builds the tree cJSON would build, keeps each number's spelling, measures
 * the depth and marks each container whose objects repeat no key. It takes
 * only what is RFC 8259 JSON and reads the same under cJSON: whitespace of
 * the four RFC bytes, strings without control bytes, with valid UTF-8 and
 * escapes that decode to neither U+0000 nor a lone surrogate, numbers in RFC
 * form of at most 63 bytes not followed by another number character, and
 * nesting within the cap. On anything else it gives up, and the reading
 * before it (the lint scan, cJSON, the error walk) runs as it always has:
 * the same tree, the same findings, the same errors at the same offsets.
 * After the lint scan, tw_json_parse_lint gives it a second pass in its
 * lenient form (lenient_parse) before cJSON. */


typedef struct fast_parser {
    const char *b;
    size_t n, i;
    size_t max_depth, depth, deepest;
    int fail;
    char *tmp; /* scratch for decoding a string with escapes: local, or malloc'd
                  past it (freed by fast_done) */
    size_t tmp_cap;
    tw_buf *marks; /* where each container begins (json_marks.h), or NULL */
    tw_json_arena *arena; /* where the nodes and strings go (json_marks.h); NULL:
                             cJSON's allocator */
    bool lenient; /* also take what cJSON takes past RFC 8259 between tokens and
                     inside strings (lenient_parse) */
    char local[4096];
} fast_parser;

static void fast_init(fast_parser *p, const char *buf, size_t len, size_t max_depth)
{
    p->b = buf;
    p->n = len;
    p->i = 0;
    p->max_depth = max_depth;
    p->depth = p->deepest = 0;
    p->fail = FAST_OK;
    p->tmp = p->local;
    p->tmp_cap = sizeof p->local;
    p->marks = NULL;
    p->arena = NULL;
    p->lenient = false;
}

/* ---- the arena (json_marks.h) ---- */

struct tw_json_arena_blk {
    tw_json_arena_blk *next; /* the block filled before this one */
    size_t cap, used;
    max_align_t data[]; /* cap bytes */
};

#define TW_ARENA_ALIGN sizeof(max_align_t)

static void *arena_alloc(tw_json_arena *a, size_t n)
{
    n = (n + TW_ARENA_ALIGN - 1) & ~(TW_ARENA_ALIGN - 1);
    tw_json_arena_blk *b = a->blk;
    if (!b || b->cap - b->used < n) {
        /* the first block as a->first asks, each next one at least twice
         * the last: the blocks a text takes are few, and their sum is at
         * most four times what it used */
        size_t cap = b ? 2 * b->cap : a->first > 4096 ? a->first : 4096;
        if (cap < n)
            cap = n;
        tw_json_arena_blk *nb = tw_malloc(sizeof *nb + cap);
        if (!nb)
            return NULL;
        nb->next = b;
        nb->cap = cap;
        nb->used = 0;
        a->blk = b = nb;
    }
    void *r = (char *)b->data + b->used;
    b->used += n;
    return r;
}

void tw_json_arena_reset(tw_json_arena *a)
{
    tw_json_arena_blk *b = a->blk;
    a->live = false;
    if (!b)
        return;
    /* keep the last (largest) block for the next tree */
    tw_json_arena_blk *old = b->next;
    while (old) {
        tw_json_arena_blk *nx = old->next;
        tw_free(old);
        old = nx;
    }
    b->next = NULL;
    b->used = 0;
}

void tw_json_arena_free(tw_json_arena *a)
{
    tw_json_arena_reset(a);
    tw_free(a->blk);
    a->blk = NULL;
}

void tw_json_arena_drop(tw_json_arena *a, cJSON *root)
{
    if (a->live)
        tw_json_arena_reset(a);
    else
        cJSON_Delete(root);
}

/* n bytes for a string of the tree */
static char *fast_mem(fast_parser *p, size_t n)
{
    return p->arena ? arena_alloc(p->arena, n) : cJSON_malloc(n);
}

static void fast_drop_str(fast_parser *p, char *s)
{
    if (!p->arena)
        cJSON_free(s);
}

/* Drop a tree being built after a failure (an arena's is dropped whole by its owner). */
static void fast_drop(fast_parser *p, cJSON *v)
{
    if (!p->arena)
        cJSON_Delete(v);
}

/* A node of `type`, zeroed, as cJSON_New_Item makes it. */
static cJSON *fast_node(fast_parser *p, int type)
{
    cJSON *v = p->arena ? arena_alloc(p->arena, sizeof *v) : cJSON_malloc(sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->type = type;
    }
    return v;
}

/* A number node holding d, as cJSON_CreateNumber fills it. */
static cJSON *fast_number_node(fast_parser *p, double d)
{
    cJSON *v = fast_node(p, cJSON_Number);
    if (v) {
        v->valuedouble = d;
        v->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
    }
    return v;
}

/* Where the text is not JSON: cJSON refuses it too in the lenient reading,
 * which takes what cJSON takes there; the strict one only gives up. */
static int fast_fault(const fast_parser *p)
{
    return p->lenient ? FAST_NOT_JSON : FAST_BAIL;
}

static void fast_done(fast_parser *p)
{
    if (p->tmp != p->local)
        tw_free(p->tmp);
}

static bool fast_space(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static void fast_skip(fast_parser *p)
{
    if (p->lenient) {
        /* cJSON steps over every byte up to 0x20 between tokens */
        while (p->i < p->n && (unsigned char)p->b[p->i] <= 0x20)
            p->i++;
        return;
    }
    while (p->i < p->n && fast_space((unsigned char)p->b[p->i]))
        p->i++;
}

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Four hex digits at s (n bytes left) into *u; false when not four. */
static bool fast_hex4(const char *s, size_t n, unsigned *u)
{
    if (n < 4)
        return false;
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int d = hex_val(s[k]);
        if (d < 0)
            return false;
        v = v * 16 + (unsigned)d;
    }
    *u = v;
    return true;
}

static char *put_utf8(char *o, unsigned u)
{
    if (u < 0x80) {
        *o++ = (char)u;
    } else if (u < 0x800) {
        *o++ = (char)(0xC0 | (u >> 6));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else if (u < 0x10000) {
        *o++ = (char)(0xE0 | (u >> 12));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (u >> 18));
        *o++ = (char)(0x80 | ((u >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    }
    return o;
}

/* Does the 8-byte word at p hold the byte c? (the zero-byte test of
 * lint_word_special on p XOR c) */
static inline bool word_has(const char *p, unsigned char c)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, p, sizeof w);
    w ^= ones * c;
    return ((w - ones) & ~w & high) != 0;
}

/* The high bit of every byte of the 8-byte word at p that ends a run of
 * plain string bytes, as lint_word_special tests them. Only the lowest set
 * bit is exact (a borrow can set bits above a true one), which is the one
 * first_special reads. */
static inline uint64_t special_bits(const char *p)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, p, sizeof w);
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return ((w & high) | ((w - ones * 0x20) & ~w & high) | ((q - ones) & ~q & high) |
            ((b - ones) & ~b & high));
}

/* Bytes before the first special byte of a word whose special_bits are m
 * (m != 0). Without a known byte order: 0, and the byte loop steps on. */
static inline size_t first_special(uint64_t m)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (size_t)__builtin_ctzll(m) >> 3;
#else
    (void)m;
    return 0;
#endif
}

/* Room for `more` bytes past the used part of the parser's scratch buffer
 * (grown by doubling; bounded by the string being decoded, so by the
 * input). False when it cannot grow. */
static bool scratch_grow(fast_parser *p, size_t used, size_t more)
{
    size_t cap = p->tmp_cap;
    while (cap - used < more)
        cap *= 2;
    char *t = p->tmp == p->local ? tw_malloc(cap) : tw_realloc(p->tmp, cap);
    if (!t)
        return false;
    if (p->tmp == p->local)
        memcpy(t, p->local, used);
    p->tmp = t;
    p->tmp_cap = cap;
    return true;
}

static inline bool scratch_room(fast_parser *p, size_t used, size_t more)
{
    return p->tmp_cap - used >= more || scratch_grow(p, used, more);
}

/* The string at b[i] == '"', checked and decoded in one pass: runs of plain
 * bytes are stepped over eight at a time (to the first special byte of a
 * word), a string without escapes is copied in one piece from the text, and
 * one with escapes is decoded into the parser's scratch buffer (a run
 * appended in one copy at each escape) and copied from there. The result is
 * in cJSON's allocator. NULL with p->fail set when it gives up. */
static char *fast_string(fast_parser *p)
{
    /* the byte each one-letter escape stands for; 0: not one */
    static const char one_letter[256] = {['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b',
                                         ['f'] = '\f', ['n'] = '\n', ['r'] = '\r', ['t'] = '\t'};
    const char *b = p->b;
    size_t n = p->n, s = p->i + 1, i = s;
    size_t run = s;  /* start of the plain bytes not yet in the scratch buffer */
    size_t olen = 0; /* decoded bytes in the scratch buffer */
    bool esc = false;
    for (;;) {
        while (i + 8 <= n) {
            uint64_t m = special_bits(b + i);
            if (!m) {
                i += 8;
                continue;
            }
            i += first_special(m);
            break;
        }
        if (i >= n)
            goto fault;
        unsigned char c = (unsigned char)b[i];
        if (c == '"')
            break;
        if (c >= 0x20 && c < 0x80 && c != '\\') {
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t k = tw_utf8_len((const unsigned char *)b + i, n - i);
            if (!k) {
                if (!p->lenient)
                    goto bail;
                k = 1; /* cJSON copies invalid UTF-8 as it is */
            }
            i += k;
            continue;
        }
        if (c != '\\') {
            /* a control byte: cJSON copies it (U+0000 is left to the reading
             * that prunes it) */
            if (!p->lenient || c == 0)
                goto bail;
            i++;
            continue;
        }
        /* the plain run before it, then the escapes that follow one
         * another, into the scratch buffer */
        size_t plain = i - run;
        if (!scratch_room(p, olen, plain + 8)) {
            p->fail = FAST_NOMEM;
            return NULL;
        }
        char *o = p->tmp + olen;
        if (plain <= 8 && run + 8 <= n)
            memcpy(o, b + run, 8); /* one word; the bytes past the run are overwritten */
        else
            memcpy(o, b + run, plain);
        o += plain;
        esc = true;
        do {
            if (i + 1 >= n)
                goto fault;
            unsigned char e = (unsigned char)b[i + 1];
            if (one_letter[e]) {
                *o++ = one_letter[e];
                i += 2;
            } else if (e == 'u') {
                unsigned u, l;
                if (!fast_hex4(b + i + 2, n - i - 2, &u) || u == 0 ||
                    (u >= 0xDC00 && u <= 0xDFFF))
                    goto bail;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (i + 12 > n || b[i + 6] != '\\' || b[i + 7] != 'u' ||
                        !fast_hex4(b + i + 8, n - i - 8, &l) || l < 0xDC00 || l > 0xDFFF)
                        goto bail;
                    u = 0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00);
                    i += 12;
                } else {
                    i += 6;
                }
                o = put_utf8(o, u);
            } else {
                goto fault;
            }
            olen = (size_t)(o - p->tmp);
            /* room for the next escape's four bytes */
            if (i < n && b[i] == '\\' && !scratch_room(p, olen, 4)) {
                p->fail = FAST_NOMEM;
                return NULL;
            }
            o = p->tmp + olen;
        } while (i < n && b[i] == '\\');
        run = i;
    }
    const char *from = b + s;
    size_t len = i - s;
    if (esc) {
        size_t plain = i - run;
        if (!scratch_room(p, olen, plain)) {
            p->fail = FAST_NOMEM;
            return NULL;
        }
        memcpy(p->tmp + olen, b + run, plain);
        from = p->tmp;
        len = olen + plain;
    }
    char *dst = fast_mem(p, len + 1);
    if (!dst) {
        p->fail = FAST_NOMEM;
        return NULL;
    }
    memcpy(dst, from, len);
    dst[len] = '\0';
    p->i = i + 1;
    return dst;
bail:
    p->fail = FAST_BAIL;
    return NULL;
fault:
    p->fail = fast_fault(p);
    return NULL;
}

static bool fast_digit(const char *b, size_t n, size_t i)
{
    return i < n && b[i] >= '0' && b[i] <= '9';
}

/* A number in RFC form; its value as cJSON reads it (strtod on the token,
 * with the locale's decimal point as cJSON does, or the integer itself when
 * it has at most 15 digits, which a double holds exactly) and its spelling. */
static cJSON *fast_number(fast_parser *p)
{
    const char *b = p->b;
    size_t n = p->n, s = p->i, i = s;
    bool neg = false, integral = true;
    uint64_t m = 0;
    size_t nd = 0;
    if (b[i] == '-') {
        neg = true;
        i++;
    }
    if (i < n && b[i] == '0') {
        i++;
        nd = 1;
    } else if (fast_digit(b, n, i)) {
        for (; fast_digit(b, n, i); i++, nd++)
            m = m * 10 + (uint64_t)(b[i] - '0');
    } else {
        goto bail;
    }
    if (i < n && b[i] == '.') {
        i++;
        if (!fast_digit(b, n, i))
            goto bail;
        while (fast_digit(b, n, i))
            i++;
        integral = false;
    }
    if (i < n && (b[i] == 'e' || b[i] == 'E')) {
        i++;
        if (i < n && (b[i] == '+' || b[i] == '-'))
            i++;
        if (!fast_digit(b, n, i))
            goto bail;
        while (fast_digit(b, n, i))
            i++;
        integral = false;
    }
    size_t len = i - s;
    if ((i < n && num_char((unsigned char)b[i])) || len > 63)
        goto bail; /* 01, 1.2.3, or longer than cJSON reads a number */
    double d;
    if (integral && nd <= 15) {
        d = neg ? -(double)m : (double)m;
    } else {
        char tmp[64], *end = NULL;
        char dp = *localeconv()->decimal_point;
        memcpy(tmp, b + s, len);
        tmp[len] = '\0';
        for (size_t k = 0; k < len; k++)
            if (tmp[k] == '.')
                tmp[k] = dp;
        d = strtod(tmp, &end);
        if (end != tmp + len)
            goto bail;
    }
    cJSON *v = fast_number_node(p, d);
    char *sp = v ? fast_mem(p, len + 1) : NULL;
    if (!sp) {
        fast_drop(p, v);
        p->fail = FAST_NOMEM;
        return NULL;
    }
    memcpy(sp, b + s, len);
    sp[len] = '\0';
    v->valuestring = sp;
    p->i = i;
    return v;
bail:
    p->fail = FAST_BAIL;
    return NULL;
}

static uint64_t key_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ^ (h >> 29);
}

/*
 * Does an object's member list (n > 1 members) repeat a key? Pairwise up to
 * 8 members, an open-addressing table past that. 1 also when the probes pass
 * 8 per member (keys made to collide: the caller then leaves the object to
 * tw_json_dedupe's sort), -1 when the table cannot be allocated.
 */
static int repeats_key(const cJSON *head, size_t n)
{
    if (n <= 8) {
        for (const cJSON *a = head; a; a = a->next)
            for (const cJSON *c = a->next; c; c = c->next)
                if (strcmp(a->string, c->string) == 0)
                    return 1;
        return 0;
    }
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    const cJSON **t = tw_calloc(cap, sizeof *t);
    if (!t)
        return -1;
    size_t probes = 0;
    int r = 0;
    for (const cJSON *a = head; a && !r; a = a->next) {
        size_t h = (size_t)key_hash(a->string) & (cap - 1);
        while (t[h] && !r) {
            if (strcmp(t[h]->string, a->string) == 0 || ++probes > 8 * n)
                r = 1;
            h = (h + 1) & (cap - 1);
        }
        t[h] = a;
    }
    tw_free(t);
    return r;
}

static cJSON *fast_value(fast_parser *p);

static cJSON *fast_container(fast_parser *p, bool obj)
{
    if (++p->depth > p->max_depth) {
        p->fail = FAST_BAIL;
        return NULL;
    }
    if (p->depth > p->deepest)
        p->deepest = p->depth;
    cJSON *v = fast_node(p, obj ? cJSON_Object : cJSON_Array);
    if (!v) {
        p->fail = FAST_NOMEM;
        return NULL;
    }
    if (p->marks) {
        tw_json_mark m = {v, p->i};
        if (tw_buf_append(p->marks, &m, sizeof m) != TW_OK) {
            fast_drop(p, v);
            p->fail = FAST_NOMEM;
            return NULL;
        }
    }
    char close = obj ? '}' : ']';
    cJSON *tail = NULL;
    size_t count = 0;
    bool unique = true;
    p->i++;
    fast_skip(p);
    if (p->i < p->n && p->b[p->i] == close) {
        p->i++;
    } else {
        for (;;) {
            char *key = NULL;
            if (obj) {
                if (p->i >= p->n || p->b[p->i] != '"')
                    goto fault;
                if (!(key = fast_string(p)))
                    goto fail;
                fast_skip(p);
                if (p->i >= p->n || p->b[p->i] != ':') {
                    fast_drop_str(p, key);
                    goto fault;
                }
                p->i++;
                fast_skip(p);
            }
            cJSON *c = p->i < p->n ? fast_value(p) : NULL;
            if (!c) {
                fast_drop_str(p, key);
                if (!p->fail) /* the text ends where a value should be */
                    p->fail = fast_fault(p);
                goto fail;
            }
            c->string = key;
            if (tail) {
                tail->next = c;
                c->prev = tail;
            } else {
                v->child = c;
            }
            tail = c;
            count++;
            if ((c->type & (cJSON_Object | cJSON_Array)) && !(c->type & TW_JSON_UNIQUE_BIT))
                unique = false;
            fast_skip(p);
            if (p->i >= p->n)
                goto fault;
            char ch = p->b[p->i++];
            if (ch == close)
                break;
            if (ch != ',')
                goto fault;
            fast_skip(p);
        }
        v->child->prev = tail; /* cJSON's lists: the head's prev is the last */
    }
    p->depth--;
    if (obj && unique && count > 1) {
        int r = repeats_key(v->child, count);
        if (r < 0) {
            p->fail = FAST_NOMEM;
            goto fail;
        }
        unique = r == 0;
    }
    if (unique)
        v->type |= TW_JSON_UNIQUE_BIT;
    return v;
fault:
    p->fail = fast_fault(p);
fail:
    fast_drop(p, v);
    return NULL;
}

static cJSON *fast_value(fast_parser *p)
{
    const char *b = p->b + p->i;
    size_t left = p->n - p->i;
    cJSON *v;
    switch (*b) {
    case '{':
        return fast_container(p, true);
    case '[':
        return fast_container(p, false);
    case '"': {
        char *s = fast_string(p);
        if (!s)
            return NULL;
        v = fast_node(p, cJSON_String);
        if (!v) {
            fast_drop_str(p, s);
            p->fail = FAST_NOMEM;
            return NULL;
        }
        v->valuestring = s;
        return v;
    }
    case 't':
        if (left < 4 || memcmp(b, "true", 4) != 0)
            goto fault;
        p->i += 4;
        v = fast_node(p, cJSON_True);
        break;
    case 'f':
        if (left < 5 || memcmp(b, "false", 5) != 0)
            goto fault;
        p->i += 5;
        v = fast_node(p, cJSON_False);
        break;
    case 'n':
        if (left < 4 || memcmp(b, "null", 4) != 0)
            goto fault;
        p->i += 4;
        v = fast_node(p, cJSON_NULL);
        break;
    default:
        if (*b == '-' || (*b >= '0' && *b <= '9'))
            return fast_number(p);
        goto fault;
    }
    if (!v)
        p->fail = FAST_NOMEM;
    return v;
fault:
    p->fail = fast_fault(p);
    return NULL;
}

/* An arena emptied for the next tree; a tree takes about twice its text
 * (nodes of 64 bytes, strings copied), capped so that a large text grows
 * the arena by doubling. */
static void fast_arena_begin(tw_json_arena *arena, size_t len)
{
    if (!arena)
        return;
    tw_json_arena_reset(arena);
    arena->first = len < (1u << 20) ? 2 * len : (2u << 20);
}

/* The end of a reading, v its value (NULL: it failed): only white space may
 * follow it -- fast_skip's four bytes, or for the lenient reading every byte
 * tw_is_space takes, as parse_plain tests them -- else the tree is dropped
 * and the reading gives up. */
static int fast_end(fast_parser *p, cJSON *v, cJSON **out)
{
    fast_done(p);
    if (!v)
        return p->fail ? p->fail : FAST_BAIL;
    if (p->lenient)
        while (p->i < p->n && tw_is_space((unsigned char)p->b[p->i]))
            p->i++;
    else
        fast_skip(p);
    if (p->i < p->n) {
        fast_drop(p, v);
        return FAST_BAIL;
    }
    *out = v;
    if (p->arena)
        p->arena->live = true;
    return FAST_OK;
}

/* One pass over buf: FAST_OK with *out and *deepest; FAST_BAIL when the
 * text needs the reading described above, FAST_NOMEM when an allocation
 * failed (the callers then read it that way too, which tells a text that
 * reads from one that does not). */
static int fast_parse(const char *buf, size_t len, size_t max_depth, cJSON **out,
                      size_t *deepest, tw_buf *marks, tw_json_arena *arena)
{
    *out = NULL;
    fast_arena_begin(arena, len);
    if (max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX)
        max_depth = TW_DEPTH_HARD_MAX;
    fast_parser p;
    fast_init(&p, buf, len, max_depth);
    p.marks = marks;
    p.arena = arena;
    fast_skip(&p);
    if (p.i >= len)
        return FAST_BAIL;
    int r = fast_end(&p, fast_value(&p), out);
    *deepest = p.deepest;
    return r;
}

/*
 * The one-pass reading of a text the strict one gave up on, nested within
 * max_depth (1 to TW_DEPTH_HARD_MAX) as the lint scan measures it: what
 * cJSON takes past RFC 8259 between tokens (any byte up to 0x20) and inside
 * strings (control bytes other than 0x00, invalid UTF-8, copied as they
 * are) is taken as cJSON takes it, so the tree is the one parse_plain builds
 * (the same nodes, strings and number spellings; the text's only numbers
 * are in RFC form). FAST_NOT_JSON where cJSON's grammar refuses the text
 * too (no value, an unterminated string, a backslash ending the text or
 * before a byte no escape starts with, a byte no value starts with, a
 * missing key, ':', ',' or closing bracket). Anything else (a byte order
 * mark, a number not in RFC form, a \u escape that is not a character
 * other than U+0000, U+0000 in a string, bytes after the value other than
 * tw_is_space) gives up (FAST_BAIL) and parse_plain reads the text. No
 * marks; the tree in the arena as fast_parse places it.
 */
static int lenient_parse(const char *buf, size_t len, size_t max_depth, cJSON **out,
                         tw_json_arena *arena)
{
    *out = NULL;
    fast_arena_begin(arena, len);
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        return FAST_BAIL; /* cJSON skips the mark when two bytes follow it */
    fast_parser p;
    fast_init(&p, buf, len, max_depth);
    p.arena = arena;
    p.lenient = true;
    fast_skip(&p);
    if (p.i >= len)
        return FAST_NOT_JSON; /* no value */
    return fast_end(&p, fast_value(&p), out);
}

bool tw_json_parse_prefix(const char *buf, size_t len, size_t max_depth, cJSON **out,
                          size_t *used)
{
    *out = NULL;
    *used = 0;
    if (!len || (buf[0] != '{' && buf[0] != '['))
        return false;
    if (max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX)
        max_depth = TW_DEPTH_HARD_MAX;
    fast_parser p;
    fast_init(&p, buf, len, max_depth);
    cJSON *v = fast_value(&p);
    fast_done(&p);
    if (!v)
        return false; /* not within len, not RFC 8259, too deep, or out of memory */
    *out = v;
    *used = p.i;
    return true;
}
