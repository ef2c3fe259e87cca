/*
 * The check set (checks.h): the verdicts of one exchange, at most one per
 * check. The lowest file of the checks: every family writes through it.
 */
#include "checks_int.h"

/* The verdict with its evidence (owned unless `borrowed`) into the set. */
static void set_store(tw_check_set *s, const tw_check_def *d, tw_verdict v, int64_t offset,
                      char *ev, bool borrowed)
{
    for (size_t i = 0; i < s->len; i++) {
        if (s->items[i].check == d->chk) {
            if (!s->items[i].borrowed)
                free(s->items[i].evidence);
            s->items[i].verdict = v;
            s->items[i].offset = offset;
            s->items[i].evidence = ev;
            s->items[i].borrowed = borrowed;
            return;
        }
    }
    if (s->len == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        tw_check_result *ni = realloc(s->items, nc * sizeof *ni);
        if (!ni) {
            if (!borrowed)
                free(ev);
            return;
        }
        s->items = ni;
        s->cap = nc;
    }
    s->items[s->len++] = (tw_check_result){d->id, d->chk, v, offset, ev, borrowed};
}

/* Evidence longer than this is scrubbed and cut (tw_check_set_put). */
#define EVIDENCE_CAP 511

void tw_check_set_put_static(tw_check_set *s, tw_check_id id, tw_verdict v, int64_t offset,
                             const char *text)
{
    const tw_check_def *d = tw_check_def_of(id);
    if (!d)
        return;
    if (!text)
        text = "";
    /* a literal the secret set leaves as it is needs no copy of its own */
    if (strnlen(text, EVIDENCE_CAP + 1) <= EVIDENCE_CAP && tw_secret_static_clean(text)) {
        set_store(s, d, v, offset, (char *)text, true);
        return;
    }
    tw_check_set_put(s, id, v, offset, "%s", text);
}

void tw_check_set_put(tw_check_set *s, tw_check_id id, tw_verdict v, int64_t offset,
                      const char *fmt, ...)
{
    const tw_check_def *d = tw_check_def_of(id);
    if (!d)
        return;
    /* a format without conversions is its own text: a literal */
    if (fmt && !strchr(fmt, '%') && strnlen(fmt, EVIDENCE_CAP + 1) <= EVIDENCE_CAP &&
        tw_secret_static_clean(fmt)) {
        set_store(s, d, v, offset, (char *)fmt, true);
        return;
    }
    /* formatted whole, scrubbed, then cut to the evidence cap */
    char small[512] = "";
    char *ev = small;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        int need = vsnprintf(small, sizeof small, fmt, ap);
        va_end(ap);
        if (need >= (int)sizeof small && (ev = malloc((size_t)need + 1)) != NULL) {
            va_start(ap, fmt);
            vsnprintf(ev, (size_t)need + 1, fmt, ap);
            va_end(ap);
        } else if (need >= (int)sizeof small) {
            ev = small;
        }
    }
    tw_buf clean = {0};
    tw_status sst = tw_secret_scrub(ev, strlen(ev), &clean, NULL);
    if (ev != small)
        free(ev);
    if (sst != TW_OK) {
        tw_buf_free(&clean);
        return;
    }
    if (clean.len > sizeof small - 1)
        clean.len = tw_excerpt_end(clean.data, clean.len, sizeof small - 1);
    /* the scrubbed buffer becomes the evidence (the scrubber leaves room for the NUL) */
    if (clean.data)
        clean.data[clean.len] = '\0';
    char *copy = tw_buf_take(&clean, NULL);
    if (!copy)
        return;
    set_store(s, d, v, offset, copy, false);
}

const tw_check_result *tw_check_set_get(const tw_check_set *s, tw_check_id id)
{
    for (size_t i = 0; i < s->len; i++)
        if (s->items[i].check == id)
            return &s->items[i];
    return NULL;
}

void tw_check_set_merge(tw_check_set *dst, const tw_check_set *src)
{
    for (size_t i = 0; i < src->len; i++)
        tw_check_set_put(dst, src->items[i].check, src->items[i].verdict, src->items[i].offset,
                         "%s", src->items[i].evidence);
}

void tw_check_set_fill(tw_check_set *s, bool client, const char *why)
{
    size_t n;
    const tw_check_def *catalog = tw_checks_catalog(&n);
    /* which checks have a verdict, read once */
    bool has[TW_CHK_COUNT];
    memset(has, 0, sizeof has);
    for (size_t i = 0; i < s->len; i++)
        if ((size_t)s->items[i].check < n)
            has[s->items[i].check] = true;
    for (size_t i = 0; i < n; i++) {
        if (catalog[i].client != client || catalog[i].family == TW_CHF_CLIENT_LIB ||
            catalog[i].family == TW_CHF_PARSER || has[i])
            continue;
        if (why && why[0])
            tw_check_set_put(s, catalog[i].chk, TW_V_SKIP, -1, "%s", why);
        else
            tw_check_set_put_static(s, catalog[i].chk, TW_V_SKIP, -1, "");
    }
}

static int cmp_result(const void *a, const void *b)
{
    tw_check_id ia = ((const tw_check_result *)a)->check;
    tw_check_id ib = ((const tw_check_result *)b)->check;
    return (ia > ib) - (ia < ib);
}

void tw_check_set_sort(tw_check_set *s)
{
    if (s->len > 1)
        qsort(s->items, s->len, sizeof *s->items, cmp_result);
}

void tw_check_set_free(tw_check_set *s)
{
    for (size_t i = 0; i < s->len; i++)
        if (!s->items[i].borrowed)
            free(s->items[i].evidence);
    free(s->items);
    memset(s, 0, sizeof *s);
}

void tw_chk_skip_ids(tw_check_set *out, const tw_check_id *ids, size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++)
        if (!tw_check_set_get(out, ids[i]))
            tw_check_set_put_static(out, ids[i], TW_V_SKIP, -1, why);
}

void tw_check_set_skip_family(tw_check_set *out, tw_check_family family, const char *why)
{
    size_t n;
    const tw_check_def *catalog = tw_checks_catalog(&n);
    for (size_t i = 0; i < n; i++)
        if (catalog[i].family == family && !tw_check_set_get(out, catalog[i].chk))
            tw_check_set_put(out, catalog[i].chk, TW_V_SKIP, -1, "%s", why);
}
