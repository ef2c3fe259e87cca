/*
 * JSON numbers: their spellings kept beside the tree, the RFC 8259 form,
 * and numbers compared by decimal value.
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

/* ===================== number spellings ===================== */

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
            while (c->i < c->n && tw_json_num_char((unsigned char)c->b[c->i]))
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
tw_status tw_json_spell_numbers(const char *buf, size_t len, const tw_buf *nums, cJSON *root)
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
    size_t z; /* leading zeros of ip ++ fp */
    size_t m; /* significant digits (0: the value is zero) */
    long long pexp;
    bool big; /* the exponent had more digits than are read */
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
    if (x.big || y.big)    /* exponents past 10^18: equal only as the same text */
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
