/*
 * JSON writing: strings, numbers and trees written as toolwire writes them,
 * UTF-8 checks on written text, and the written size of a tree.
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

/* ===================== writer ===================== */

static const char hexd[] = "0123456789abcdef";

static tw_status put_u16(tw_buf *out, unsigned v)
{
    char e[6] = {'\\',        'u', hexd[(v >> 12) & 15], hexd[(v >> 8) & 15], hexd[(v >> 4) & 15],
                 hexd[v & 15]};
    return tw_buf_append(out, e, 6);
}

/* Bytes of s[i, n) below 0x80 from i on, eight at a time: where the first
 * byte that may begin a longer sequence (or the end) is, give or take the
 * last seven, which the byte loop reads. */
static size_t ascii_run(const char *s, size_t i, size_t n)
{
    const uint64_t high = 0x8080808080808080ull;
    for (uint64_t w; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, sizeof w);
        if (w & high)
            break;
    }
    return i;
}

char *tw_utf8_as_written(const char *s, size_t n, bool *changed)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t bad = 0;
    for (size_t i = ascii_run(s, 0, n); i < n; i = ascii_run(s, i, n)) {
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
    for (size_t i = ascii_run(s, 0, n); i < n; i = ascii_run(s, i, n)) {
        size_t k = tw_utf8_len(u + i, n - i);
        if (!k && !bad++)
            *first = i;
        i += k ? k : 1;
    }
    return bad;
}

static char *put_u16_at(char *o, unsigned v)
{
    o[0] = '\\';
    o[1] = 'u';
    o[2] = hexd[(v >> 12) & 15];
    o[3] = hexd[(v >> 8) & 15];
    o[4] = hexd[(v >> 4) & 15];
    o[5] = hexd[v & 15];
    return o + 6;
}

/* Source bytes tw_json_write_str writes straight into the buffer's room at
 * a time, and the room that takes: six bytes a source byte at most (\u00XX;
 * U+FFFD or a character as \u escapes), plus what the last step may take
 * past the block (eight plain bytes, or a sequence that starts in it). */
#define STR_BLOCK 512
#define STR_ROOM(blk) (6 * (blk) + 64)

/*
 * s[*ip, end) of s[0, n) written as the string's inside at o, which has room
 * for STR_ROOM(end - *ip): what the loop of tw_json_write_str below appends
 * for those bytes, the same bytes, in one reservation instead of an append
 * per run and escape. *ip is left past the last sequence written (at end, or
 * a few bytes past when a sequence or a word of plain bytes crosses it);
 * returns the end of what was written.
 */
static char *write_str_block(char *o, const char *s, size_t *ip, size_t end, size_t n, int flags)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = *ip;
    while (i < end) {
        if (i + 8 <= n) {
            uint64_t m = special_bits(s + i);
            size_t k = m ? first_special(m) : 8;
            if (k) {
                memcpy(o, s + i, 8); /* the bytes past k are written over */
                o += k;
                i += k;
                continue;
            }
        }
        unsigned char c = u[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            *o++ = (char)c;
            i++;
            continue;
        }
        if (c < 0x80) {
            char e = 0;
            switch (c) {
            case '"': e = '"'; break;
            case '\\': e = '\\'; break;
            case '\n': e = 'n'; break;
            case '\r': e = 'r'; break;
            case '\t': e = 't'; break;
            case '\b': e = 'b'; break;
            case '\f': e = 'f'; break;
            default: break;
            }
            if (e) {
                o[0] = '\\';
                o[1] = e;
                o += 2;
            } else {
                o = put_u16_at(o, c);
            }
            i++;
            continue;
        }
        size_t k = tw_utf8_len(u + i, n - i);
        if (k == 0) {
            if (flags & TW_JSON_ASCII) {
                o = put_u16_at(o, 0xFFFD);
            } else {
                memcpy(o, "\xEF\xBF\xBD", 3);
                o += 3;
            }
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
                o = put_u16_at(o, 0xD800 + (cp >> 10));
                o = put_u16_at(o, 0xDC00 + (cp & 0x3FF));
            } else {
                o = put_u16_at(o, cp);
            }
        } else {
            memcpy(o, s + i, k);
            o += k;
        }
        i += k;
    }
    *ip = i;
    return o;
}

tw_status tw_json_write_str(tw_buf *out, const char *s, size_t n, int flags)
{
    tw_status st = tw_buf_putc(out, '"');
    size_t i = 0, run = 0;
    const unsigned char *u = (const unsigned char *)s;
    /* a block at a time into room reserved for its worst case; where the
     * buffer's cap refuses that room (or memory runs out), the loop below
     * appends each run and escape as it comes, up to the cap exactly */
    while (st == TW_OK && i < n) {
        size_t blk = n - i < STR_BLOCK ? n - i : STR_BLOCK;
        if (tw_buf_reserve(out, STR_ROOM(blk)) != TW_OK)
            break;
        char *o = write_str_block(out->data + out->len, s, &i, i + blk, n, flags);
        out->len = (size_t)(o - out->data);
        out->data[out->len] = '\0';
    }
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
        return acc + (v->valuestring
                          ? str_size((const unsigned char *)v->valuestring, strlen(v->valuestring))
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
