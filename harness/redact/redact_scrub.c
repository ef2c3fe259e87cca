/*
 * Redaction inside values (redact.h): the value scrubber (escaped and
 * encoded forms of a secret). The lowest file of redaction: redact.c and
 * redact_stream.c use it, it uses neither.
 */
#include "redact_int.h"

/* ---- the value scrubber ---- */

int tw_red_hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/*
 * A view of the text with one level of escapes undone (\", \\, \/, \b, \f,
 * \n, \r, \t, \uXXXX as UTF-8, %XX), each byte knowing where the original
 * bytes it stands for start. The spans partition the original text in
 * order, so a span ends where the next different one starts. The raw text
 * is the view without a map.
 */
typedef struct view {
    const unsigned char *d;
    size_t n;
    size_t raw_n; /* the original text's length */
    unsigned char *own;
    uint32_t *from;
} view;

static size_t vfrom(const view *v, size_t i)
{
    return v->from ? v->from[i] : i;
}

/* End (exclusive) of the original bytes of view byte i. */
static size_t vto(const view *v, size_t i)
{
    if (!v->from)
        return i + 1;
    for (size_t k = i + 1; k < v->n; k++)
        if (v->from[k] != v->from[i])
            return v->from[k];
    return v->raw_n;
}

static void view_free(view *v)
{
    free(v->own);
    free(v->from);
    memset(v, 0, sizeof *v);
}

/* An HTML/XML character reference at p[0] == '&' (&amp; &lt; &gt; &quot;
 * &apos; &#NN; &#xHH;): its length, 0 when none; *cp the code point. */
static size_t entity(const unsigned char *p, size_t n, unsigned *cp)
{
    static const struct {
        const char *name;
        unsigned char c;
    } named[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
        size_t l = strlen(named[k].name);
        if (n >= l && strncasecmp((const char *)p, named[k].name, l) == 0) {
            *cp = named[k].c;
            return l;
        }
    }
    if (n < 4 || p[1] != '#')
        return 0;
    bool hex = p[2] == 'x' || p[2] == 'X';
    size_t i = hex ? 3 : 2;
    unsigned v = 0;
    size_t digits = 0;
    for (; i < n && digits < 8; i++, digits++) {
        int h = tw_red_hexval(p[i]);
        if (h < 0 || (!hex && h > 9))
            break;
        v = v * (hex ? 16u : 10u) + (unsigned)h;
    }
    if (!digits || i >= n || p[i] != ';' || v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return i + 1;
}

/* cp as UTF-8 into b (4 bytes): the length. */
static size_t utf8_put(unsigned cp, unsigned char *b)
{
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | (cp >> 6));
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | (cp >> 12));
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    b[0] = (unsigned char)(0xF0 | (cp >> 18));
    b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* d: s with one level of escapes undone; d->d stays NULL when s has none. */
static tw_status view_decode(const view *s, view *d)
{
    static const char esc_in[] = "\"\\/bfnrt";
    static const char esc_out[] = "\"\\/\b\f\n\r\t";
    memset(d, 0, sizeof *d);
    if (!s->n || s->raw_n > UINT32_MAX ||
        (!memchr(s->d, '\\', s->n) && !memchr(s->d, '%', s->n) && !memchr(s->d, '&', s->n)))
        return TW_OK;
    d->raw_n = s->raw_n;
    d->own = malloc(s->n);
    d->from = malloc(s->n * sizeof *d->from);
    if (!d->own || !d->from) {
        view_free(d);
        return TW_ERR_NOMEM;
    }
    bool changed = false;
    size_t o = 0;
    for (size_t i = 0; i < s->n;) {
        unsigned char c = s->d[i], b[4];
        size_t len = 1, nb = 1;
        const char *e;
        unsigned cp = 0;
        b[0] = c;
        if (c == '\\' && i + 1 < s->n && s->d[i + 1] && (e = strchr(esc_in, s->d[i + 1]))) {
            b[0] = (unsigned char)esc_out[e - esc_in];
            len = 2;
        } else if (c == '\\' && i + 5 < s->n && s->d[i + 1] == 'u' &&
                   tw_red_hexval(s->d[i + 2]) >= 0 && tw_red_hexval(s->d[i + 3]) >= 0 &&
                   tw_red_hexval(s->d[i + 4]) >= 0 && tw_red_hexval(s->d[i + 5]) >= 0) {
            cp = (unsigned)(tw_red_hexval(s->d[i + 2]) << 12 | tw_red_hexval(s->d[i + 3]) << 8 |
                            tw_red_hexval(s->d[i + 4]) << 4 | tw_red_hexval(s->d[i + 5]));
            len = 6;
            nb = utf8_put(cp, b);
        } else if (c == '%' && i + 2 < s->n && tw_red_hexval(s->d[i + 1]) >= 0 &&
                   tw_red_hexval(s->d[i + 2]) >= 0) {
            b[0] = (unsigned char)(tw_red_hexval(s->d[i + 1]) * 16 + tw_red_hexval(s->d[i + 2]));
            len = 3;
        } else if (c == '&' && (len = entity(s->d + i, s->n - i, &cp)) > 0) {
            nb = utf8_put(cp, b);
        } else {
            len = 1;
        }
        changed = changed || len > 1;
        for (size_t k = 0; k < nb; k++) {
            d->own[o] = b[k];
            d->from[o] = (uint32_t)vfrom(s, i);
            o++;
        }
        i += len;
    }
    if (!changed) {
        view_free(d);
        return TW_OK;
    }
    d->d = d->own;
    d->n = o;
    return TW_OK;
}

typedef tw_red_span span;

/* Shortest beginning of a value that is scrubbed wherever it stands: what a
 * cut (an excerpt, a short quote) may have kept of a secret. */
#define CUT_PREFIX_MIN 8

tw_status tw_red_room(void *arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return TW_OK;
    size_t nc = *cap ? *cap * 2 : 16;
    if (nc > SIZE_MAX / size)
        return TW_ERR_NOMEM;
    /* arr is the address of a pointer to the elements: read and written
     * through memcpy, not through a void ** of another type */
    void *old, *na;
    memcpy(&old, arr, sizeof old);
    if (!(na = realloc(old, nc * size)))
        return TW_ERR_NOMEM;
    memcpy(arr, &na, sizeof na);
    *cap = nc;
    return TW_OK;
}

/* Room for one more span in *sp. */
static tw_status span_grow(span **sp, size_t nsp, size_t *cap)
{
    return tw_red_room(sp, nsp, cap, sizeof **sp);
}

static int span_cmp(const void *x, const void *y)
{
    const span *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a ? 1 : p->b < q->b ? -1 : p->b > q->b;
}

size_t tw_red_merge_spans(span *sp, size_t nsp)
{
    if (nsp)
        qsort(sp, nsp, sizeof *sp, span_cmp);
    size_t m = 0;
    for (size_t i = 0; i < nsp; i++) {
        if (m && sp[i].a <= sp[m - 1].b) {
            if (sp[i].b > sp[m - 1].b)
                sp[m - 1].b = sp[i].b;
        } else {
            sp[m++] = sp[i];
        }
    }
    return m;
}

/* The views of s: v[0] the raw text, then up to TW_SCRUB_DECODE_LEVELS
 * levels of escapes undone, each view decoded from the one before (linear
 * per level); the views stop at the first level that changes nothing (d
 * NULL from there). */
enum { NV = 1 + TW_SCRUB_DECODE_LEVELS };

static tw_status views_make(const char *s, size_t n, view v[NV])
{
    memset(v, 0, NV * sizeof *v);
    v[0].d = (const unsigned char *)s;
    v[0].n = v[0].raw_n = n;
    tw_status st = TW_OK;
    for (size_t k = 1; k < NV && st == TW_OK && v[k - 1].d; k++)
        st = view_decode(&v[k - 1], &v[k]);
    return st;
}

static void views_free(view v[NV])
{
    for (size_t k = 1; k < NV; k++)
        view_free(&v[k]);
}

/* Every match of a value in any view, and every cut prefix of one. */
static tw_status find_spans(const view v[NV], char *const *values, size_t nvalues, span **sp,
                            size_t *nsp, size_t *capsp)
{
    tw_status st = TW_OK;
    for (size_t k = 0; k < NV && st == TW_OK; k++) {
        if (!v[k].d)
            continue;
        for (size_t j = 0; j < nvalues && st == TW_OK; j++) {
            size_t vl = strlen(values[j]);
            const char *h = (const char *)v[k].d;
            size_t pos = 0;
            const char *m;
            while (vl && pos + vl <= v[k].n &&
                   (m = tw_memmem(h + pos, v[k].n - pos, values[j], vl))) {
                size_t at = (size_t)(m - h);
                if ((st = span_grow(sp, *nsp, capsp)) != TW_OK)
                    break;
                (*sp)[*nsp].a = vfrom(&v[k], at);
                (*sp)[*nsp].b = vto(&v[k], at + vl - 1);
                (*nsp)++;
                pos = at + vl;
            }
        }
    }
    /* a secret's start kept by a cut (an excerpt, a %.40s quote): CUT_PREFIX_MIN
     * bytes of its beginning or more, wherever they stand, extended as far as
     * they match */
    for (size_t j = 0; j < nvalues && st == TW_OK; j++) {
        size_t vl = strlen(values[j]);
        if (vl <= CUT_PREFIX_MIN)
            continue;
        for (size_t k = 0; k < NV && st == TW_OK; k++) {
            if (!v[k].d)
                continue;
            const char *h = (const char *)v[k].d;
            size_t pos = 0;
            const char *m;
            while (pos + CUT_PREFIX_MIN <= v[k].n &&
                   (m = tw_memmem(h + pos, v[k].n - pos, values[j], CUT_PREFIX_MIN))) {
                size_t at = (size_t)(m - h), q = CUT_PREFIX_MIN;
                while (q < vl && at + q < v[k].n && h[at + q] == values[j][q])
                    q++;
                if ((st = span_grow(sp, *nsp, capsp)) != TW_OK)
                    break;
                (*sp)[*nsp].a = vfrom(&v[k], at);
                (*sp)[*nsp].b = vto(&v[k], at + q - 1);
                (*nsp)++;
                pos = at + q;
            }
        }
    }
    return st;
}

tw_status tw_red_value_spans(char *const *values, size_t nvalues, const char *s, size_t n,
                             span **sp, size_t *nsp, size_t *cap)
{
    if (!nvalues || !n)
        return TW_OK;
    view v[NV];
    tw_status st = views_make(s, n, v);
    if (st == TW_OK)
        st = find_spans(v, values, nvalues, sp, nsp, cap);
    views_free(v);
    return st;
}

tw_status tw_scrub_values(char *const *values, size_t nvalues, const char *s, size_t n, tw_buf *out,
                          size_t *count, size_t *hold)
{
    if (hold)
        *hold = 0;
    if (!nvalues || !n)
        return n ? tw_buf_append(out, s, n) : tw_buf_reserve(out, 1);
    view v[NV];
    span *sp = NULL;
    size_t nsp = 0, capsp = 0;
    tw_status st = views_make(s, n, v);
    if (st == TW_OK)
        st = find_spans(v, values, nvalues, &sp, &nsp, &capsp);
    size_t cut = n;
    if (st == TW_OK && hold) {
        /* bytes at the end that may start a value the next bytes complete */
        for (size_t k = 0; k < NV; k++) {
            if (!v[k].d)
                continue;
            for (size_t j = 0; j < nvalues; j++) {
                size_t vl = strlen(values[j]);
                if (!vl)
                    continue;
                for (size_t m = vl - 1 < v[k].n ? vl - 1 : v[k].n; m > 0; m--)
                    if (memcmp(v[k].d + v[k].n - m, values[j], m) == 0) {
                        size_t at = vfrom(&v[k], v[k].n - m);
                        cut = at < cut ? at : cut;
                        break;
                    }
            }
        }
        /* an entity cut short: "&", "&am", "&#x4" */
        for (size_t back = 1; back <= 9 && back <= n; back++) {
            if (s[n - back] == ';')
                break;
            if (s[n - back] == '&') {
                cut = n - back < cut ? n - back : cut;
                break;
            }
        }
        /* an escape cut short: "\", "\u00", "%", "%4" */
        for (size_t back = 1; back <= 5 && back <= n; back++) {
            char c = s[n - back];
            if ((c == '\\' && (back == 1 || s[n - back + 1] == 'u')) || (c == '%' && back <= 2)) {
                cut = n - back < cut ? n - back : cut;
                break;
            }
        }
    }
    if (st == TW_OK) {
        size_t m = tw_red_merge_spans(sp, nsp);
        nsp = m;
        /* never cut a match in two: hold all of it */
        for (size_t i = 0; i < nsp; i++)
            if (sp[i].a < cut && cut < sp[i].b)
                cut = sp[i].a;
        size_t at = 0;
        st = tw_buf_reserve(out, 1);
        for (size_t i = 0; i < nsp && st == TW_OK && sp[i].b <= cut; i++) {
            if (sp[i].a > at)
                st = tw_buf_append(out, s + at, sp[i].a - at);
            if (st == TW_OK)
                st = tw_buf_puts(out, TW_REDACTED);
            if (count)
                (*count)++;
            at = sp[i].b;
        }
        if (st == TW_OK && cut > at)
            st = tw_buf_append(out, s + at, cut - at);
        if (hold)
            *hold = n - cut;
    }
    free(sp);
    views_free(v);
    return st;
}
