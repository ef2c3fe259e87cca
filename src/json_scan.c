/*
 * JSON scanned without a tree: the push scanner (tw_jscan_feed), the first
 * balanced value, and the lint scan (non-standard forms, U+0000, control
 * bytes, depth, number spellings).
 */
#include "toolwire/json.h"
#include "json_int.h"
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
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' ||
           c == '-' || c == '.';
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
    size_t max_depth =
        s->max_depth && s->max_depth <= TW_DEPTH_HARD_MAX ? s->max_depth : TW_DEPTH_HARD_MAX;
    size_t i = 0;
#define FINISH(r, at)                                                                              \
    do {                                                                                           \
        s->state = S_END;                                                                          \
        s->result = (unsigned char)(r);                                                            \
        *used = (at);                                                                              \
        s->consumed += (at);                                                                       \
        TW_WORK(at);                                                                               \
        return (r);                                                                                \
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
        default: break;
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
        default: FINISH(TW_JSCAN_INVALID, i);
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

/* ===================== strings and keys: NUL, control bytes, repeats ===================== */

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
tw_status tw_json_lint_run(const char *buf, size_t len, tw_json_lint *out, tw_buf *ords,
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
                while (e < len &&
                       ((buf[e] >= '0' && buf[e] <= '9') || buf[e] == '-' || buf[e] == '+' ||
                        buf[e] == '.' || buf[e] == 'e' || buf[e] == 'E'))
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
                lint_nonstd(out, i,
                            c ? "a control character between tokens" : "a NUL byte between tokens");
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
    (void)tw_json_lint_run(buf, len, out, NULL, NULL);
}
