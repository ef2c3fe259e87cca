/* The mock backend's request log (mock_log.h). */
#include "mock_log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "redact.h"

/* One verdict of a packed record (16 bytes); its id is the catalog's string of
 * `check`, its evidence lies in the record's strings. */
typedef struct packed_check {
    int64_t offset;
    uint32_t evidence; /* offset in the strings */
    uint16_t check;
    uint8_t verdict;
} packed_check;
_Static_assert(TW_CHK_COUNT <= UINT16_MAX, "a check id fits a packed verdict");

struct tw_mock_packed {
    unsigned long seq;
    long exchange;
    size_t ambiguous;
    size_t size; /* bytes of this record */
    size_t room; /* bytes at its place (>= size) */
    int status;
    bool fault;
    bool pooled; /* in a block of the ring, not its own allocation */
    uint32_t nchecks;
    uint32_t fixture;      /* offset of the fixture name in the strings (the path is first) */
    uint32_t hint;         /* offset of the exchange the request named (after the fixture) */
    packed_check checks[]; /* then the strings, each NUL-terminated */
};

static char *strings_of(tw_mock_packed *p)
{
    return (char *)(p->checks + p->nchecks);
}

#define POOL_BLOCK ((size_t)2 << 20)

/* A block of POOL_BLOCK bytes on a POOL_BLOCK boundary (so that it can be one
 * huge page), or NULL. */
static char *block_new(void)
{
    size_t span = 2 * POOL_BLOCK;
    char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *b = (char *)(((uintptr_t)m + POOL_BLOCK - 1) & ~(uintptr_t)(POOL_BLOCK - 1));
    if (b > m)
        munmap(m, (size_t)(b - m));
    if (m + span > b + POOL_BLOCK)
        munmap(b + POOL_BLOCK, (size_t)(m + span - (b + POOL_BLOCK)));
#ifdef MADV_HUGEPAGE
    madvise(b, POOL_BLOCK, MADV_HUGEPAGE); /* advice only: small pages if refused */
#endif
    return b;
}

/* `need` bytes (a multiple of 16) at the end of the newest block, or NULL. */
static void *pool_take(tw_mock_ring *g, size_t need)
{
    if (need > POOL_BLOCK)
        return NULL;
    if (g->left < need) {
        if (g->nblocks == g->cblocks) {
            size_t nc = g->cblocks ? g->cblocks * 2 : 8;
            char **nb = realloc(g->blocks, nc * sizeof *nb);
            if (!nb)
                return NULL;
            g->blocks = nb;
            g->cblocks = nc;
        }
        char *b = block_new();
        if (!b)
            return NULL;
        g->blocks[g->nblocks++] = b;
        g->left = POOL_BLOCK;
    }
    char *p = g->blocks[g->nblocks - 1] + (POOL_BLOCK - g->left);
    g->left -= need;
    return p;
}

/* The record packed at one place: over `old` (a record leaving a full ring)
 * when it fits there, else in `old` resized, or in a new place (the ring's
 * blocks while it fills); NULL on failure, `old` then left as it was. */
static tw_mock_packed *pack(tw_mock_ring *g, const tw_mock_record *rec, tw_mock_packed *old)
{
    size_t lp = strnlen(rec->path, sizeof rec->path - 1) + 1;
    size_t lf = strnlen(rec->fixture, sizeof rec->fixture - 1) + 1;
    size_t lh = strnlen(rec->hint, sizeof rec->hint - 1) + 1;
    size_t n = rec->checks.len, le = 0;
    for (size_t i = 0; i < n; i++)
        le += strlen(rec->checks.items[i].evidence ? rec->checks.items[i].evidence : "") + 1;
    if (n > UINT32_MAX || lp + lf + lh + le > UINT32_MAX)
        return NULL;
    size_t size = sizeof(tw_mock_packed) + n * sizeof(packed_check) + lp + lf + lh + le;
    size_t room = size;
    bool pooled = false;
    tw_mock_packed *p = NULL;
    if (old && old->room >= size) {
        p = old;
        room = old->room;
        pooled = old->pooled;
    } else if (old && !old->pooled) {
        p = realloc(old, size);
    } else {
        /* a pooled record too small for the new one keeps its place in the
         * block (given back when the ring is freed) */
        room = (size + 15) & ~(size_t)15;
        p = old ? NULL : pool_take(g, room);
        pooled = p != NULL;
        if (!p) {
            room = size;
            p = malloc(size);
        }
    }
    if (!p)
        return NULL;
    p->room = room;
    p->pooled = pooled;
    p->seq = rec->seq;
    p->exchange = rec->exchange;
    p->ambiguous = rec->ambiguous;
    p->size = size;
    p->status = rec->status;
    p->fault = rec->fault;
    p->nchecks = (uint32_t)n;
    char *s = strings_of(p);
    memcpy(s, rec->path, lp - 1);
    s[lp - 1] = '\0';
    memcpy(s + lp, rec->fixture, lf - 1);
    s[lp + lf - 1] = '\0';
    p->fixture = (uint32_t)lp;
    memcpy(s + lp + lf, rec->hint, lh - 1);
    s[lp + lf + lh - 1] = '\0';
    p->hint = (uint32_t)(lp + lf);
    size_t at = lp + lf + lh;
    for (size_t i = 0; i < n; i++) {
        const tw_check_result *c = &rec->checks.items[i];
        const char *ev = c->evidence ? c->evidence : "";
        size_t l = strlen(ev) + 1;
        memcpy(s + at, ev, l);
        p->checks[i] =
            (packed_check){c->offset, (uint32_t)at, (uint16_t)c->check, (uint8_t)c->verdict};
        at += l;
    }
    return p;
}

/* The record back from its packed form (checks in a new set). */
static bool unpack(tw_mock_packed *p, tw_mock_record *r)
{
    memset(r, 0, sizeof *r);
    r->seq = p->seq;
    r->exchange = p->exchange;
    r->ambiguous = p->ambiguous;
    r->status = p->status;
    r->fault = p->fault;
    const char *s = strings_of(p);
    snprintf(r->path, sizeof r->path, "%s", s);
    snprintf(r->fixture, sizeof r->fixture, "%s", s + p->fixture);
    snprintf(r->hint, sizeof r->hint, "%s", s + p->hint);
    if (!p->nchecks)
        return true;
    r->checks.items = calloc(p->nchecks, sizeof *r->checks.items);
    if (!r->checks.items)
        return false;
    r->checks.cap = p->nchecks;
    for (size_t i = 0; i < p->nchecks; i++) {
        char *ev = tw_strdup(s + p->checks[i].evidence);
        if (!ev)
            return false;
        r->checks.items[r->checks.len++] =
            (tw_check_result){tw_check_name((tw_check_id)p->checks[i].check),
                              (tw_check_id)p->checks[i].check,
                              (tw_verdict)p->checks[i].verdict,
                              p->checks[i].offset,
                              ev,
                              false};
    }
    return true;
}

void tw_mock_ring_init(tw_mock_ring *g, size_t cap)
{
    memset(g, 0, sizeof *g);
    g->cap = cap ? cap : 1;
}

bool tw_mock_ring_push(tw_mock_ring *g, tw_mock_record *rec)
{
    if (g->n == g->cap) {
        /* full: the oldest slot takes the new record, at the oldest record's
         * place (records of one route have about one size) */
        tw_mock_packed **old = &g->r[g->head];
        size_t was = (*old)->size;
        tw_mock_packed *p = pack(g, rec, *old);
        tw_check_set_free(&rec->checks);
        if (!p)
            return false; /* the oldest record is kept */
        g->bytes -= was;
        *old = p;
        g->bytes += p->size;
        g->head = (g->head + 1) % g->alloc;
        g->writes++;
        return true;
    }
    if (g->n == g->alloc) {
        /* not full yet, so head is 0 and the records are slots 0..n-1 */
        size_t na = g->alloc ? g->alloc * 2 : 64;
        if (na > g->cap)
            na = g->cap;
        tw_mock_packed **nr = realloc(g->r, na * sizeof *nr);
        if (!nr) {
            tw_check_set_free(&rec->checks);
            return false;
        }
        g->r = nr;
        g->alloc = na;
    }
    tw_mock_packed *p = pack(g, rec, NULL);
    tw_check_set_free(&rec->checks);
    if (!p)
        return false;
    g->r[(g->head + g->n) % g->alloc] = p;
    g->bytes += p->size;
    g->n++;
    g->writes++;
    return true;
}

static tw_mock_packed *at(const tw_mock_ring *g, size_t i)
{
    return g->r[(g->head + i) % g->alloc];
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
        if (!unpack(at(g, lo + k), &r[k])) {
            for (size_t j = 0; j <= k; j++)
                tw_check_set_free(&r[j].checks);
            free(r);
            return false;
        }
    }
    *out = r;
    *n = cnt;
    return true;
}

void tw_mock_ring_free(tw_mock_ring *g)
{
    for (size_t i = 0; i < g->n; i++)
        if (!g->r[(g->head + i) % g->alloc]->pooled)
            free(g->r[(g->head + i) % g->alloc]);
    free(g->r);
    for (size_t i = 0; i < g->nblocks; i++)
        munmap(g->blocks[i], POOL_BLOCK);
    free(g->blocks);
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
    /* scrubbed whole first, cut after (tw_excerpt_end) */
    tw_buf clean = {0};
    if (tw_secret_scrub(rec->body, rec->body_len, &clean, NULL) != TW_OK) {
        tw_buf_free(&clean);
        tw_buf_printf(line, " body: %s (%zu bytes)", TW_REDACTED, rec->body_len);
        return;
    }
    size_t n = clean.len;
    if (n > body_max)
        n = tw_excerpt_end(clean.data, clean.len, body_max);
    tw_buf_puts(line, " body: ");
    tw_log_escape(line, clean.data ? clean.data : "", n);
    if (n < clean.len)
        tw_buf_printf(line, "\xE2\x80\xA6 (%zu bytes)", rec->body_len);
    tw_buf_free(&clean);
}
