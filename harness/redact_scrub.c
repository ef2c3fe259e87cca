/*
 * Redaction inside values (redact.h): the value scrubber (escaped and
 * encoded forms of a secret) and tool-call arguments split across stream
 * events.
 */
#include "redact_int.h"

/* ---- the value scrubber ---- */

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
        } else if (c == '\\' && i + 5 < s->n && s->d[i + 1] == 'u' && tw_red_hexval(s->d[i + 2]) >= 0 &&
                   tw_red_hexval(s->d[i + 3]) >= 0 && tw_red_hexval(s->d[i + 4]) >= 0 &&
                   tw_red_hexval(s->d[i + 5]) >= 0) {
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

typedef struct span {
    size_t a, b;
} span;

/* Shortest beginning of a value that is scrubbed wherever it stands: what a
 * cut (an excerpt, a short quote) may have kept of a secret. */
#define CUT_PREFIX_MIN 8

/* Room for one more span in *sp (geometric growth). */
static tw_status span_grow(span **sp, size_t nsp, size_t *cap)
{
    if (nsp < *cap)
        return TW_OK;
    size_t nc = *cap ? *cap * 2 : 16;
    span *ns = realloc(*sp, nc * sizeof *ns);
    if (!ns)
        return TW_ERR_NOMEM;
    *sp = ns;
    *cap = nc;
    return TW_OK;
}

static int span_cmp(const void *x, const void *y)
{
    const span *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a ? 1 : p->b < q->b ? -1 : p->b > q->b;
}

/* Sort the spans and merge the overlapping ones in place; the count left. */
static size_t merge_spans(span *sp, size_t nsp)
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

tw_status tw_scrub_values(char *const *values, size_t nvalues, const char *s, size_t n,
                          tw_buf *out, size_t *count, size_t *hold)
{
    if (hold)
        *hold = 0;
    if (!nvalues || !n)
        return n ? tw_buf_append(out, s, n) : tw_buf_reserve(out, 1);
    /* the text as is and up to TW_SCRUB_DECODE_LEVELS levels of escapes
     * undone, each view decoded from the one before (linear per level); the
     * views stop at the first level that changes nothing */
    enum { NV = 1 + TW_SCRUB_DECODE_LEVELS };
    view v[NV];
    memset(v, 0, sizeof v);
    v[0].d = (const unsigned char *)s;
    v[0].n = v[0].raw_n = n;
    span *sp = NULL;
    size_t nsp = 0, capsp = 0;
    tw_status st = TW_OK;
    for (size_t k = 1; k < NV && st == TW_OK && v[k - 1].d; k++)
        st = view_decode(&v[k - 1], &v[k]);
    for (size_t k = 0; k < NV && st == TW_OK; k++) {
        if (!v[k].d)
            continue;
        for (size_t j = 0; j < nvalues && st == TW_OK; j++) {
            size_t vl = strlen(values[j]);
            const char *h = (const char *)v[k].d;
            size_t pos = 0;
            const char *m;
            while (vl && pos + vl <= v[k].n && (m = tw_memmem(h + pos, v[k].n - pos, values[j], vl))) {
                size_t at = (size_t)(m - h);
                if ((st = span_grow(&sp, nsp, &capsp)) != TW_OK)
                    break;
                sp[nsp].a = vfrom(&v[k], at);
                sp[nsp].b = vto(&v[k], at + vl - 1);
                nsp++;
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
                if ((st = span_grow(&sp, nsp, &capsp)) != TW_OK)
                    break;
                sp[nsp].a = vfrom(&v[k], at);
                sp[nsp].b = vto(&v[k], at + q - 1);
                nsp++;
                pos = at + q;
            }
        }
    }
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
        size_t m = merge_spans(sp, nsp);
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
    for (size_t k = 1; k < NV; k++)
        view_free(&v[k]);
    return st;
}

/* ---- tool-call arguments split across stream events ---- */

/* Distinct calls followed in one stream. */
#define STREAM_MAX_CALLS 4096u

typedef struct frag {
    cJSON *node; /* the string holding the fragment */
    size_t ev;   /* its event */
    size_t off;  /* where it starts in the call's arguments */
} frag;

typedef struct call_acc {
    double choice, index; /* choice (-1: Anthropic) and call index */
    frag *f;
    size_t nf, capf;
    tw_buf args; /* the fragments, decoded, end to end */
} call_acc;

typedef struct stream_calls {
    cJSON **ev;
    size_t nev;
    call_acc *c;
    size_t nc, capc;
} stream_calls;

static void stream_calls_free(stream_calls *sc)
{
    for (size_t i = 0; i < sc->nev; i++)
        cJSON_Delete(sc->ev[i]);
    for (size_t i = 0; i < sc->nc; i++) {
        free(sc->c[i].f);
        tw_buf_free(&sc->c[i].args);
    }
    free(sc->ev);
    free(sc->c);
    memset(sc, 0, sizeof *sc);
}

static tw_status add_frag(stream_calls *sc, double choice, double index, size_t ev, cJSON *node)
{
    call_acc *c = NULL;
    for (size_t i = sc->nc; i-- > 0 && !c;)
        if (sc->c[i].choice == choice && sc->c[i].index == index)
            c = &sc->c[i];
    if (!c) {
        if (sc->nc >= STREAM_MAX_CALLS)
            return TW_ERR_LIMIT;
        if (sc->nc == sc->capc) {
            size_t nc = sc->capc ? sc->capc * 2 : 8;
            call_acc *n = realloc(sc->c, nc * sizeof *n);
            if (!n)
                return TW_ERR_NOMEM;
            sc->c = n;
            sc->capc = nc;
        }
        c = &sc->c[sc->nc++];
        memset(c, 0, sizeof *c);
        c->choice = choice;
        c->index = index;
    }
    if (c->nf == c->capf) {
        size_t nc = c->capf ? c->capf * 2 : 8;
        frag *n = realloc(c->f, nc * sizeof *n);
        if (!n)
            return TW_ERR_NOMEM;
        c->f = n;
        c->capf = nc;
    }
    c->f[c->nf++] = (frag){node, ev, c->args.len};
    return tw_buf_puts(&c->args, node->valuestring);
}

static double num_or(const cJSON *v, double dflt)
{
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* Every event's data parsed, and the argument fragments of each call:
 * OpenAI choices[].delta.tool_calls[].function.arguments, Anthropic
 * content_block_delta input_json_delta partial_json. */
static tw_status stream_calls_load(stream_calls *sc, const char *const *data, const size_t *len,
                                   size_t n, size_t max_depth)
{
    memset(sc, 0, sizeof *sc);
    sc->ev = calloc(n ? n : 1, sizeof *sc->ev);
    if (!sc->ev)
        return TW_ERR_NOMEM;
    sc->nev = n;
    tw_status st = TW_OK;
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        const char *d = data[i];
        size_t dl = len[i];
        tw_trim(&d, &dl);
        if (!dl || *d != '{' || tw_json_parse(d, dl, max_depth, &sc->ev[i], NULL) != TW_OK) {
            cJSON_Delete(sc->ev[i]);
            sc->ev[i] = NULL;
            continue;
        }
        cJSON *e = sc->ev[i];
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(e, "type");
        if (cJSON_IsString(ty) && strcmp(ty->valuestring, "content_block_delta") == 0) {
            cJSON *delta = cJSON_GetObjectItemCaseSensitive(e, "delta");
            cJSON *pj = cJSON_GetObjectItemCaseSensitive(delta, "partial_json");
            if (cJSON_IsString(pj) && pj->valuestring)
                st = add_frag(sc, -1, num_or(cJSON_GetObjectItemCaseSensitive(e, "index"), 0), i, pj);
            continue;
        }
        const cJSON *choices = cJSON_GetObjectItemCaseSensitive(e, "choices");
        double cpos = 0;
        for (const cJSON *ch = cJSON_IsArray(choices) ? choices->child : NULL; ch && st == TW_OK;
             ch = ch->next, cpos++) {
            const cJSON *delta = cJSON_GetObjectItemCaseSensitive(ch, "delta");
            const cJSON *tcs = cJSON_GetObjectItemCaseSensitive(delta, "tool_calls");
            double ci = num_or(cJSON_GetObjectItemCaseSensitive(ch, "index"), cpos), tpos = 0;
            for (const cJSON *tc = cJSON_IsArray(tcs) ? tcs->child : NULL; tc && st == TW_OK;
                 tc = tc->next, tpos++) {
                cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
                cJSON *a = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
                if (cJSON_IsString(a) && a->valuestring)
                    st = add_frag(sc, ci, num_or(cJSON_GetObjectItemCaseSensitive(tc, "index"), tpos),
                                  i, a);
            }
        }
    }
    return st;
}

tw_status tw_redact_discover_stream(tw_redactor *r, const char *const *data, const size_t *len,
                                    size_t n, size_t max_depth)
{
    if (!max_depth)
        max_depth = 64;
    stream_calls sc;
    tw_status st = stream_calls_load(&sc, data, len, n, max_depth);
    for (size_t i = 0; i < sc.nc && st == TW_OK; i++) {
        const tw_buf *a = &sc.c[i].args;
        if (sc.c[i].nf < 2 || !a->len)
            continue; /* one fragment: discovery of the event itself finds it */
        cJSON *v = NULL;
        if (tw_json_parse(a->data, a->len, max_depth, &v, NULL) == TW_OK && v)
            st = tw_red_discover_json(r, v, 0, max_depth);
        cJSON_Delete(v);
        if (st == TW_OK)
            st = tw_redact_discover_text(r, a->data, a->len);
    }
    stream_calls_free(&sc);
    return st;
}

/* Spans of the remembered values in a call's arguments, as written and
 * JSON-escaped, merged and in order. */
static tw_status value_spans(const tw_redactor *r, const tw_buf *a, span **out, size_t *nout)
{
    span *sp = NULL;
    size_t nsp = 0, cap = 0;
    tw_status st = TW_OK;
    for (size_t j = 0; j < r->nvalues && st == TW_OK; j++) {
        char *esc = NULL;
        cJSON *js = cJSON_CreateString(r->values[j]);
        char *pr = js ? cJSON_PrintUnformatted(js) : NULL;
        cJSON_Delete(js);
        if (!pr) {
            st = TW_ERR_NOMEM;
            break;
        }
        pr[strlen(pr) - 1] = '\0';
        esc = pr + 1;
        const char *forms[2] = {r->values[j], strcmp(esc, r->values[j]) ? esc : NULL};
        for (int f = 0; f < 2 && st == TW_OK; f++) {
            if (!forms[f])
                continue;
            size_t vl = strlen(forms[f]), pos = 0;
            const char *m;
            while (vl && pos + vl <= a->len && (m = tw_memmem(a->data + pos, a->len - pos, forms[f], vl))) {
                if (nsp == cap) {
                    size_t nc = cap ? cap * 2 : 8;
                    span *ns = realloc(sp, nc * sizeof *ns);
                    if (!ns) {
                        st = TW_ERR_NOMEM;
                        break;
                    }
                    sp = ns;
                    cap = nc;
                }
                size_t at = (size_t)(m - a->data);
                sp[nsp++] = (span){at, at + vl};
                pos = at + vl;
            }
        }
        cJSON_free(pr);
    }
    if (st != TW_OK) {
        free(sp);
        return st;
    }
    size_t m = merge_spans(sp, nsp);
    *out = sp;
    *nout = m;
    return TW_OK;
}

tw_status tw_redact_stream(tw_redactor *r, const char *const *data, const size_t *len, size_t n,
                           size_t max_depth, char **out)
{
    if (!max_depth)
        max_depth = 64;
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    stream_calls sc;
    tw_status st = stream_calls_load(&sc, data, len, n, max_depth);
    bool *changed = st == TW_OK ? calloc(n ? n : 1, sizeof *changed) : NULL;
    if (st == TW_OK && !changed)
        st = TW_ERR_NOMEM;
    for (size_t i = 0; i < sc.nc && st == TW_OK; i++) {
        call_acc *c = &sc.c[i];
        span *sp = NULL;
        size_t nsp = 0;
        if ((st = value_spans(r, &c->args, &sp, &nsp)) != TW_OK || !nsp) {
            free(sp);
            continue;
        }
        /* each fragment keeps its bytes outside every span; the marker goes
         * where a span starts, the rest of the span is dropped */
        size_t k = 0;
        for (size_t f = 0; f < c->nf && st == TW_OK; f++) {
            size_t a = c->f[f].off, b = f + 1 < c->nf ? c->f[f + 1].off : c->args.len;
            while (k < nsp && sp[k].b <= a)
                k++;
            if (k == nsp || sp[k].a >= b)
                continue;
            tw_buf nb = {0};
            if ((st = tw_buf_reserve(&nb, 1)) == TW_OK)
                nb.data[0] = '\0';
            size_t at = a;
            for (size_t q = k; q < nsp && sp[q].a < b && st == TW_OK; q++) {
                if (sp[q].a > at)
                    st = tw_buf_append(&nb, c->args.data + at, sp[q].a - at);
                if (st == TW_OK && sp[q].a >= a)
                    st = tw_buf_puts(&nb, TW_REDACTED);
                at = sp[q].b < b ? sp[q].b : b;
            }
            if (st == TW_OK && at < b)
                st = tw_buf_append(&nb, c->args.data + at, b - at);
            if (st != TW_OK) {
                tw_buf_free(&nb);
                break;
            }
            char *ns = tw_buf_take(&nb, NULL);
            if (!ns) {
                st = TW_ERR_NOMEM;
                break;
            }
            tw_red_swap_string(c->f[f].node, ns);
            changed[c->f[f].ev] = true;
            r->scrubbed++;
        }
        free(sp);
    }
    for (size_t i = 0; i < n && st == TW_OK; i++) {
        if (!changed[i])
            continue;
        out[i] = tw_json_print(sc.ev[i], NULL);
        if (!out[i])
            st = TW_ERR_NOMEM;
    }
    if (st != TW_OK)
        for (size_t i = 0; i < n; i++) {
            free(out[i]);
            out[i] = NULL;
        }
    free(changed);
    stream_calls_free(&sc);
    return st;
}
