/* The mock backend's request log (mock_log.h). */
#include "mock_log.h"

#include <stdlib.h>
#include <string.h>

#include "redact.h"

void tw_mock_ring_init(tw_mock_ring *g, size_t cap)
{
    memset(g, 0, sizeof *g);
    g->cap = cap ? cap : 1;
}

bool tw_mock_ring_push(tw_mock_ring *g, tw_mock_record *rec)
{
    if (g->n == g->cap) {
        /* full: the oldest slot takes the new record */
        tw_mock_record *old = &g->r[g->head];
        tw_check_set_free(&old->checks);
        *old = *rec;
        g->head = (g->head + 1) % g->alloc;
        g->writes++;
        return true;
    }
    if (g->n == g->alloc) {
        /* not full yet, so head is 0 and the records are slots 0..n-1 */
        size_t na = g->alloc ? g->alloc * 2 : 64;
        if (na > g->cap)
            na = g->cap;
        tw_mock_record *nr = realloc(g->r, na * sizeof *nr);
        if (!nr) {
            tw_check_set_free(&rec->checks);
            return false;
        }
        g->r = nr;
        g->alloc = na;
    }
    g->r[(g->head + g->n) % g->alloc] = *rec;
    g->n++;
    g->writes++;
    return true;
}

static const tw_mock_record *at(const tw_mock_ring *g, size_t i)
{
    return &g->r[(g->head + i) % g->alloc];
}

bool tw_mock_ring_since(const tw_mock_ring *g, unsigned long since, tw_mock_record **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    /* binary search for the first record with seq > since */
    size_t lo = 0, hi = g->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (at(g, mid)->seq <= since)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t cnt = g->n - lo;
    if (!cnt)
        return true;
    tw_mock_record *r = calloc(cnt, sizeof *r);
    if (!r)
        return false;
    for (size_t k = 0; k < cnt; k++) {
        r[k] = *at(g, lo + k);
        memset(&r[k].checks, 0, sizeof r[k].checks);
        tw_check_set_merge(&r[k].checks, &at(g, lo + k)->checks);
    }
    *out = r;
    *n = cnt;
    return true;
}

void tw_mock_ring_free(tw_mock_ring *g)
{
    for (size_t i = 0; i < g->n; i++)
        tw_check_set_free(&g->r[(g->head + i) % g->alloc].checks);
    free(g->r);
    memset(g, 0, sizeof *g);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp <= 0x9F))
        return 0; /* overlong, out of range, surrogate, or a C1 control */
    return len;
}

void tw_log_escape(tw_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c == '\\') {
            tw_buf_puts(b, "\\\\");
            i++;
            continue;
        }
        size_t l = (c >= 0x20 && c != 0x7F) ? utf8_len(p + i, n - i) : 0;
        if (!l) {
            tw_buf_printf(b, "\\x%02X", c);
            i++;
            continue;
        }
        tw_buf_append(b, p + i, l);
        i += l;
    }
}

void tw_mock_log_extra(tw_buf *line, const tw_mock_record *rec, size_t body_max, size_t max_depth)
{
    if (rec->body && (rec->note || body_max)) {
        /* credential fields of the body join the secret set before any of it is written */
        tw_redactor r;
        memset(&r, 0, sizeof r);
        r.publish = true;
        tw_redact_discover_body(&r, rec->body, rec->body_len, max_depth);
        tw_redactor_free(&r);
    }
    if (rec->note) {
        tw_buf_puts(line, ": ");
        tw_log_escape(line, rec->note, strlen(rec->note));
    }
    if (!body_max || !rec->body)
        return;
    size_t n = rec->body_len;
    if (n > body_max) {
        n = body_max;
        while (n > 0 && ((unsigned char)rec->body[n] & 0xC0) == 0x80)
            n--;
    }
    tw_buf_puts(line, " body: ");
    tw_log_escape(line, rec->body, n);
    if (n < rec->body_len)
        tw_buf_printf(line, "\xE2\x80\xA6 (%zu bytes)", rec->body_len);
}
