/*
 * The sse target: WHATWG event-stream framing (include/toolwire/sse.h).
 * Header as for the decoder targets (invariants.h); byte 0 bit 0 chooses
 * flush_at_end.
 */
#include <stdlib.h>
#include <string.h>

#include "invariants.h"
#include "toolwire/sse.h"

typedef struct sse_acc {
    const tw_limits *L;
    size_t len;
    uint64_t h;
    const char *in;
    size_t nevents, ndiags, nnul, ncaps;
    uint64_t last_off;
} sse_acc;

static void mix(sse_acc *a, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        a->h ^= c[i];
        a->h *= 1099511628211ull;
    }
    a->h ^= 0xff;
    a->h *= 1099511628211ull;
}

static tw_status on_ev(void *user, const tw_sse_event *ev)
{
    sse_acc *a = user;
    TW_FZ_CHECK(ev->type && ev->data && ev->id, "sse: event with a NULL field");
    TW_FZ_CHECK(ev->data_len <= a->L->max_event_bytes,
                "sse: event data of %zu bytes past max_event_bytes %zu", ev->data_len,
                a->L->max_event_bytes);
    TW_FZ_CHECK(ev->type_len <= a->L->max_line_bytes && ev->id_len <= a->L->max_line_bytes,
                "sse: event type/id longer than max_line_bytes");
    TW_FZ_CHECK(ev->offset <= a->len, "sse: event offset %llu past the input length %zu",
                (unsigned long long)ev->offset, a->len);
    TW_FZ_CHECK(a->nevents == 0 || ev->offset >= a->last_off,
                "sse: event offsets go backwards (%llu after %llu)", (unsigned long long)ev->offset,
                (unsigned long long)a->last_off);
    a->last_off = ev->offset;
    mix(a, ev->type, ev->type_len);
    mix(a, ev->data, ev->data_len);
    mix(a, ev->id, ev->id_len);
    mix(a, &ev->offset, sizeof ev->offset);
    mix(a, &ev->terminated, sizeof ev->terminated);
    a->nevents++;
    return TW_OK;
}

static tw_status on_diag(void *user, tw_status code, uint64_t offset)
{
    sse_acc *a = user;
    TW_FZ_CHECK(code == TW_D_SSE_LINE_TOO_LONG || code == TW_D_SSE_EVENT_TOO_LARGE ||
                    code == TW_D_SSE_NUL,
                "sse: unexpected diagnostic %s", tw_code_name(code));
    TW_FZ_CHECK(offset <= a->len, "sse: diagnostic offset %llu past the input length %zu",
                (unsigned long long)offset, a->len);
    if (code == TW_D_SSE_NUL) {
        TW_FZ_CHECK(offset < a->len && a->in[offset] == '\0',
                    "sse: sse_nul at offset %llu, which is not a NUL byte",
                    (unsigned long long)offset);
        a->nnul++;
    } else {
        a->ncaps++;
    }
    mix(a, &code, sizeof code);
    mix(a, &offset, sizeof offset);
    a->ndiags++;
    return TW_OK;
}

/* plan: 0 one feed, 1 the header's chunk plan, 2 one byte at a time. The
 * pieces are fed from one exact-size copy of the body (`in`); under ASan
 * every byte of it outside the piece being fed is poisoned, so a read past
 * a piece is caught as for a heap block of its own, with no allocation per
 * piece. */
static void run(const tw_fz_setup *s, char *in, bool flush, int plan, sse_acc *a, int64_t bound)
{
    memset(a, 0, sizeof *a);
    /* the unpoisoned input: the NUL of a held line lies in an earlier piece */
    a->in = (const char *)s->body;
    a->L = &s->L;
    a->len = s->len;
    a->h = 1469598103934665603ull;
    bool mem = tw_fz_mem_enabled();
    int64_t base = tw_fz_mem_live();
    tw_sse p;
    memset(&p, 0, sizeof p);
    TW_FZ_CHECK(tw_sse_init(&p, &s->L, flush, on_ev, on_diag, a) == TW_OK, "sse: init failed");
    unsigned state = plan == 1 ? s->seed : 0;
    tw_status st = TW_OK;
    tw_fz_poison(in, s->len);
    for (size_t off = 0; st == TW_OK && off < s->len;) {
        size_t n = plan == 0 ? s->len : tw_fz_next_chunk(&state, s->plan_max, s->len - off);
        tw_fz_mem_mark();
        tw_fz_unpoison(in + off, n);
        st = tw_sse_feed(&p, in + off, n);
        tw_fz_poison(in + off, n);
        /* what the parser holds: the peak over what it held before this run */
        int64_t held = tw_fz_mem_peak() - base;
        TW_FZ_CHECK(!mem || held <= bound,
                    "sse: the parser held %lld bytes, over the bound %lld (limits: line %zu, "
                    "event %zu)",
                    (long long)held, (long long)bound, s->L.max_line_bytes, s->L.max_event_bytes);
        off += n;
    }
    tw_fz_unpoison(in, s->len);
    TW_FZ_CHECK(st == TW_OK, "sse: feed returned %s", tw_code_name(st));
    TW_FZ_CHECK(p.fed == s->len, "sse: fed %llu bytes of %zu", (unsigned long long)p.fed, s->len);
    st = tw_sse_finish(&p);
    TW_FZ_CHECK(st == TW_OK, "sse: finish returned %s", tw_code_name(st));
    tw_sse_release(&p);
    TW_FZ_CHECK(!mem || tw_fz_mem_live() == base, "sse: %lld bytes leaked",
                (long long)(tw_fz_mem_live() - base));
}

/* Independently of the parser: the lines (LF, CRLF or CR; an unterminated
 * last one only when flushed at the end; a leading byte order mark dropped) that are neither
 * empty nor comments and hold a NUL outside a `data` value. Each must be
 * reported once, as no value may be lost without a word. */
static size_t lines_with_lost_nul(const char *p, size_t n, bool flush)
{
    size_t count = 0, i = 0;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    /* line ends and NULs by memchr, each search resumed only once passed */
    size_t lf = 0, cr = 0, nul = 0;
    bool lf_known = false, cr_known = false, nul_known = false;
    while (i < n) {
        if (!nul_known || nul < i) {
            const char *q = memchr(p + i, '\0', n - i);
            nul = q ? (size_t)(q - p) : n;
            nul_known = true;
        }
        if (nul == n)
            break; /* no NUL left: no line to count */
        if (!lf_known || lf < i) {
            const char *q = memchr(p + i, '\n', n - i);
            lf = q ? (size_t)(q - p) : n;
            lf_known = true;
        }
        if (!cr_known || cr < i) {
            const char *q = memchr(p + i, '\r', n - i);
            cr = q ? (size_t)(q - p) : n;
            cr_known = true;
        }
        size_t j = lf < cr ? lf : cr;
        if (j == n && !flush)
            break; /* discarded whole, as WHATWG says */
        const char *l = p + i;
        size_t ln = j - i;
        if (ln > 0 && l[0] != ':' && nul < j) {
            const char *colon = memchr(l, ':', ln);
            bool data = colon && colon - l == 4 && memcmp(l, "data", 4) == 0;
            if (!data)
                count++;
        }
        i = j + (j < n && p[j] == '\r' && j + 1 < n && p[j + 1] == '\n' ? 2 : 1);
    }
    return count;
}

int tw_fz_sse(const uint8_t *data, size_t size)
{
    tw_fz_setup s;
    tw_fz_read_header(data, size, &s);
    bool flush = s.o.forced_open;
    /* a held line, the event's data, type and id, each at most twice its
     * cap (buffers double), and never more than the input could fill */
    int64_t caps = 2 * (3 * (int64_t)s.L.max_line_bytes + (int64_t)s.L.max_event_bytes);
    int64_t fill = 8 * (int64_t)s.len;
    int64_t bound = (caps < fill ? caps : fill) + 64 * 1024;
    sse_acc a0, a1, a2;
    char *in = tw_fz_copy(s.body, s.len);
    run(&s, in, flush, 0, &a0, bound);
    /* the count is exact when no cap dropped a line or an event */
    if (a0.ncaps == 0) {
        size_t want = lines_with_lost_nul((const char *)s.body, s.len, flush);
        TW_FZ_CHECK(a0.nnul == want,
                    "sse: %zu lines hold a NUL outside a data value, %zu "
                    "sse_nul reported",
                    want, a0.nnul);
    }
    run(&s, in, flush, 1, &a1, bound);
    TW_FZ_CHECK(a0.h == a1.h && a0.nevents == a1.nevents && a0.ndiags == a1.ndiags,
                "sse: chunked (seed %u, max chunk %u) gives %zu events / %zu diagnostics, one "
                "feed %zu / %zu (or different contents)",
                s.seed, s.plan_max, a1.nevents, a1.ndiags, a0.nevents, a0.ndiags);
    if (s.len <= 4096) {
        run(&s, in, flush, 2, &a2, bound);
        TW_FZ_CHECK(a0.h == a2.h && a0.nevents == a2.nevents,
                    "sse: byte-at-a-time gives %zu events, one feed %zu (or different contents)",
                    a2.nevents, a0.nevents);
    }
    free(in);
    return 0;
}
