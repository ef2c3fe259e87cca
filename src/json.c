/*
 * JSON reading: tw_json_parse and tw_json_parse_lint (the one-pass parser
 * first, json_fast.c; then the lint scan, cJSON and the error walk), the
 * depth pass, the error description and the check that cJSON reads a text.
 */
#include "alloc.h"
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

/* ===================== parse ===================== */

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

tw_status tw_json_parse(const char *buf, size_t len, size_t max_depth, cJSON **out, tw_error *err)
{
    size_t deepest;
    int fs = tw_json_fast_parse(buf, len, max_depth, out, &deepest, NULL, NULL);
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
                     : stack[depth - 1] == '{'    ? " inside an object"
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

static bool cj_digit(char c)
{
    return c >= '0' && c <= '9';
}

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
    tw_status ks = tw_json_spell_numbers(buf, len, nums, v);
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
    if (tw_json_fast_parse(buf, len, max_depth, &v, &deepest, NULL, NULL) == FAST_OK) {
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
                            tw_error *err, tw_json_lint *lint, tw_buf *marks, tw_json_arena *arena);

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
    (void)tw_buf_reserve(marks, 32 * sizeof(tw_json_mark) < marks->max ? 32 * sizeof(tw_json_mark)
                                                                       : marks->max);
    return parse_lint(buf, len, max_depth, out, err, lint, marks, arena);
}

static tw_status parse_lint(const char *buf, size_t len, size_t max_depth, cJSON **out,
                            tw_error *err, tw_json_lint *lint, tw_buf *marks, tw_json_arena *arena)
{
    size_t deepest;
    int fs = tw_json_fast_parse(buf, len, max_depth, out, &deepest, marks, arena);
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
    tw_status st = tw_json_lint_run(buf, len, lint, &ords, &nums);
    size_t cap = max_depth == 0 || max_depth > TW_DEPTH_HARD_MAX ? TW_DEPTH_HARD_MAX : max_depth;
    int ls = st == TW_OK && fs == FAST_BAIL && lint->depth <= cap
                 ? tw_json_lenient_parse(buf, len, cap, out, arena)
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
