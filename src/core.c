/* Core: code table, limits, diagnostics, capped buffers, string helpers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "alloc.h"
#include "toolwire/core.h"
#include "utf8.h"
#include "work.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===================== code table ===================== */

/* Indexed by number: a gap or a repeat in the table's numbers would leave a
 * NULL or fail to build (the designated initialiser is overridden, which
 * -Woverride-init reports, and the size check below catches a gap). */
static const char *const code_names[] = {
#define TW_X_NAME(e, v, n, m) [v] = n,
    TW_CODE_LIST(TW_X_NAME)
#undef TW_X_NAME
};

/* the length of each name, so a lookup compares lengths before bytes */
static const unsigned char code_name_lens[] = {
#define TW_X_NLEN(e, v, n, m) [v] = sizeof n - 1,
    TW_CODE_LIST(TW_X_NLEN)
#undef TW_X_NLEN
};

static const char *const code_messages[] = {
#define TW_X_MSG(e, v, n, m) [v] = m,
    TW_CODE_LIST(TW_X_MSG)
#undef TW_X_MSG
};

_Static_assert(sizeof code_names / sizeof code_names[0] == TW_CODE_COUNT,
               "code numbers must be consecutive from 0");

bool tw_code_is_status(tw_status code)
{
    return (unsigned)code <= (unsigned)TW_STATUS_LAST;
}

bool tw_code_is_diag(tw_status code)
{
    return (unsigned)code > (unsigned)TW_STATUS_LAST && (unsigned)code < (unsigned)TW_CODE_COUNT;
}

const char *tw_code_name(tw_status code)
{
    if ((unsigned)code >= (unsigned)TW_CODE_COUNT)
        return "unknown";
    return code_names[code];
}

const char *tw_code_message(tw_status code)
{
    if ((unsigned)code >= (unsigned)TW_CODE_COUNT)
        return "unknown code";
    return code_messages[code];
}

bool tw_code_from_name(const char *name, size_t len, tw_status *out)
{
    for (int i = 0; i < (int)TW_CODE_COUNT; i++) {
        if (code_name_lens[i] == len && memcmp(code_names[i], name, len) == 0) {
            *out = (tw_status)i;
            return true;
        }
    }
    return false;
}

/* ===================== limits ===================== */

void tw_limits_default(tw_limits *l)
{
    l->max_input_bytes = (size_t)16 << 20;
    l->max_args_bytes = 204800;
    l->max_calls = 64;
    l->max_depth = 64;
    l->max_output_bytes = (size_t)64 << 20;
    l->max_line_bytes = (size_t)1 << 20;
    l->max_event_bytes = (size_t)8 << 20;
    l->max_diags = 256;
    l->max_messages = 4096;
    l->max_tools = 1024;
    l->max_jobs = 64;
}

void tw_limits_resolve(tw_limits *out, const tw_limits *in)
{
    tw_limits d;
    tw_limits_default(&d);
    if (!in) {
        *out = d;
        return;
    }
    *out = *in;
#define TW_FILL(f)                                                                                 \
    if (out->f == 0)                                                                               \
        out->f = d.f;
    TW_FILL(max_input_bytes)
    TW_FILL(max_args_bytes)
    TW_FILL(max_calls)
    TW_FILL(max_depth)
    TW_FILL(max_output_bytes)
    TW_FILL(max_line_bytes)
    TW_FILL(max_event_bytes)
    TW_FILL(max_diags)
    TW_FILL(max_messages)
    TW_FILL(max_tools)
    TW_FILL(max_jobs)
#undef TW_FILL
    if (out->max_depth > TW_DEPTH_HARD_MAX)
        out->max_depth = TW_DEPTH_HARD_MAX;
}

/* ===================== message text ===================== */

/*
 * Append s[0, n) to dst[0, *w) as every stored message holds it: a valid
 * UTF-8 sequence is copied; a byte below 0x20, DEL, each byte of a C1
 * control (U+0080..U+009F) and each byte of an invalid sequence become the
 * four characters \xNN (uppercase hex). At most
 * cap - 1 bytes in all, NUL-terminated: the text stops before the first
 * character or escape that does not fit, so a cut never splits one. `cut`:
 * s was itself cut by a buffer, so an incomplete sequence at its end is
 * dropped, not escaped. dst NULL: only count (*w grows as if written).
 * Returns false when the text stopped early. One pass, no allocation.
 */
static bool msg_put(char *dst, size_t cap, size_t *w, const char *s, size_t n, bool cut)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    bool whole = true;
    while (i < n) {
        size_t k = tw_utf8_len(u + i, n - i);
        /* C1 controls (U+0080..U+009F, C2 80..C2 9F) too: some terminals read
         * U+009B as CSI */
        bool esc = k == 0 || u[i] < 0x20 || u[i] == 0x7F || (u[i] == 0xC2 && u[i + 1] < 0xA0);
        if (k == 0 && cut && tw_utf8_cut_prefix(u + i, n - i))
            break; /* the end of a character the cut split: not an error of the text */
        size_t out = esc ? 4 : k;
        if (out > cap - 1 - *w) {
            whole = false;
            break;
        }
        if (dst && esc) {
            char e[4] = {'\\', 'x', hex[u[i] >> 4], hex[u[i] & 15]};
            memcpy(dst + *w, e, 4);
        } else if (dst) {
            memcpy(dst + *w, s + i, k);
        }
        *w += out;
        i += esc ? 1 : k;
    }
    if (dst)
        dst[*w] = '\0';
    return whole;
}

/* ===================== the error struct ===================== */

void tw_error_clear(tw_error *err)
{
    if (!err)
        return;
    err->code = TW_OK;
    err->offset = -1;
    err->path[0] = '\0';
    err->message[0] = '\0';
}

/* Append s to dst[0, *n) within cap bytes (the terminator included), cut to fit. */
static void error_cat(char *dst, size_t cap, size_t *n, const char *s)
{
    size_t k = strlen(s);
    if (k > cap - 1 - *n)
        k = cap - 1 - *n;
    memcpy(dst + *n, s, k);
    *n += k;
    dst[*n] = '\0';
}

void tw_error_set(tw_error *err, tw_status code, int64_t offset, const char *path, const char *fmt,
                  ...)
{
    if (!err)
        return;
    char reason[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    int rn = vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (rn < 0)
        reason[0] = '\0';
    size_t rlen = strlen(reason);
    err->code = code;
    err->offset = offset < 0 ? -1 : offset;
    size_t n = 0;
    err->path[0] = '\0';
    if (path)
        error_cat(err->path, sizeof err->path, &n, path);
    n = 0;
    err->message[0] = '\0';
    if (path) {
        const char *shown = path[0] ? path : "(root)";
        if (!msg_put(err->message, sizeof err->message, &n, shown, strlen(shown), false) ||
            !msg_put(err->message, sizeof err->message, &n, ": ", 2, false))
            return;
    }
    /* cut by `reason`: its last bytes may be part of a character */
    msg_put(err->message, sizeof err->message, &n, reason, rlen,
            rlen == sizeof reason - 1 && (size_t)rn > rlen);
}

/* ===================== diagnostics ===================== */

/* Append a diagnostic whose message is s[0, n) as msg_put writes it, at most
 * cap - 1 bytes (`cut` as there). */
static tw_status diag_push(tw_diag_list *l, tw_status code, int64_t offset, const char *s, size_t n,
                           size_t cap, bool cut)
{
    if (l->max && l->len >= l->max) {
        l->dropped++;
        return TW_OK;
    }
    if (l->len == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 8;
        tw_diag *nl = tw_realloc(l->items, ncap * sizeof *nl);
        if (!nl)
            return TW_ERR_NOMEM;
        l->items = nl;
        l->cap = ncap;
    }
    size_t w = 0;
    msg_put(NULL, cap, &w, s, n, cut);
    char *m = tw_malloc(w + 1);
    if (!m)
        return TW_ERR_NOMEM;
    w = 0;
    msg_put(m, cap, &w, s, n, cut);
    l->items[l->len].code = code;
    l->items[l->len].offset = offset;
    l->items[l->len].message = m;
    l->len++;
    return TW_OK;
}

tw_status tw_diag_add(tw_diag_list *l, tw_status code, int64_t offset, const char *msg)
{
    if (!msg)
        msg = tw_code_message(code);
    return diag_push(l, code, offset, msg, strlen(msg), SIZE_MAX, false);
}

tw_status tw_diag_addf(tw_diag_list *l, tw_status code, int64_t offset, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        tmp[0] = '\0';
    size_t len = strlen(tmp);
    /* cut by tmp: its last bytes may be part of a character */
    return diag_push(l, code, offset, tmp, len, sizeof tmp,
                     len == sizeof tmp - 1 && (size_t)n > len);
}

tw_status tw_diag_extend(tw_diag_list *dst, const tw_diag_list *src)
{
    for (size_t i = 0; i < src->len; i++) {
        tw_status st =
            tw_diag_add(dst, src->items[i].code, src->items[i].offset, src->items[i].message);
        if (st != TW_OK)
            return st;
    }
    dst->dropped += src->dropped;
    return TW_OK;
}

bool tw_diag_has(const tw_diag_list *l, tw_status code)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->items[i].code == code)
            return true;
    return false;
}

void tw_diag_list_free(tw_diag_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        tw_free(l->items[i].message);
    tw_free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
    l->dropped = 0;
}

/* ===================== buffers ===================== */

tw_status tw_buf_reserve(tw_buf *b, size_t extra)
{
    size_t max = b->max ? b->max : SIZE_MAX - 1;
    if (extra > max || b->len > max - extra)
        return TW_ERR_LIMIT;
    size_t need = b->len + extra + 1; /* room for the NUL */
    if (need <= b->cap)
        return TW_OK;
    size_t ncap = b->cap ? b->cap : 64;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) {
            ncap = need;
            break;
        }
        ncap *= 2;
    }
    char *n = tw_realloc(b->data, ncap);
    if (!n)
        return TW_ERR_NOMEM;
    b->data = n;
    b->cap = ncap;
    return TW_OK;
}

/* Do n more bytes and the NUL fit in the allocation, within max? (what
 * tw_buf_reserve accepts without growing) */
static inline bool buf_fits(const tw_buf *b, size_t n)
{
    return b->len < b->cap && n < b->cap - b->len &&
           (!b->max || (b->len <= b->max && n <= b->max - b->len));
}

tw_status tw_buf_append(tw_buf *b, const void *p, size_t n)
{
    if (!buf_fits(b, n)) {
        tw_status st = tw_buf_reserve(b, n);
        if (st != TW_OK)
            return st;
    }
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return TW_OK;
}

tw_status tw_buf_putc(tw_buf *b, char c)
{
    if (buf_fits(b, 1)) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return TW_OK;
    }
    return tw_buf_append(b, &c, 1);
}

tw_status tw_buf_puts(tw_buf *b, const char *s)
{
    return tw_buf_append(b, s, strlen(s));
}

tw_status tw_buf_printf(tw_buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return TW_ERR_INVALID;
    if ((size_t)n < sizeof tmp)
        return tw_buf_append(b, tmp, (size_t)n);
    tw_status st = tw_buf_reserve(b, (size_t)n);
    if (st != TW_OK)
        return st;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return TW_OK;
}

void tw_buf_consume(tw_buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
    } else {
        memmove(b->data, b->data + n, b->len - n);
        b->len -= n;
    }
    if (b->data)
        b->data[b->len] = '\0';
}

void tw_buf_reset(tw_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

char *tw_buf_take(tw_buf *b, size_t *len)
{
    char *d = b->data;
    if (!d) {
        d = tw_malloc(1);
        if (d)
            d[0] = '\0';
    }
    if (len)
        *len = b->data ? b->len : 0;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

void tw_buf_free(tw_buf *b)
{
    tw_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* ===================== strings ===================== */

bool tw_is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

void tw_trim(const char **p, size_t *n)
{
    const char *s = *p;
    size_t len = *n;
    while (len && tw_is_space((unsigned char)s[0])) {
        s++;
        len--;
    }
    while (len && tw_is_space((unsigned char)s[len - 1]))
        len--;
    *p = s;
    *n = len;
}

char *tw_strndup(const char *s, size_t n)
{
    char *d = tw_malloc(n + 1);
    if (!d)
        return NULL;
    if (n)
        memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *tw_strdup(const char *s)
{
    return tw_strndup(s, strlen(s));
}

const char *tw_memmem(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
    if (nlen == 0)
        return hay;
    if (hlen < nlen)
        return NULL;
    const char *f = memmem(hay, hlen, needle, nlen);
    TW_WORK(f ? (size_t)(f - hay) + nlen : hlen);
    return f;
}

size_t tw_partial_suffix(const char *buf, size_t len, const char *tag, size_t tlen)
{
    size_t k = tlen - 1 < len ? tlen - 1 : len;
    /* the longest candidate starts at the first tag[0] of the tail */
    const char *first = k ? memchr(buf + len - k, tag[0], k) : NULL;
    if (!first)
        return 0;
    for (k = (size_t)(buf + len - first); k > 0; k--) {
        if (memcmp(buf + len - k, tag, k) == 0)
            return k;
    }
    return 0;
}
