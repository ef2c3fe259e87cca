/*
 * Lookups into a report by key (report_int.h): one open-addressing hash
 * table per report, built in one pass, so that compare, gate and the
 * comparison page cost time linear in fixtures x exchanges x checks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

typedef enum slot_kind {
    K_EMPTY = 0,
    K_CHECK,  /* (fx, ex, id): the first check, before a skipped fixture of fx */
    K_RUN,    /* (fx, ex): an exchange that ran, before a skipped fixture of fx */
    K_EXCH,   /* (fx, ex): the first exchange of a fixture not skipped */
    K_CLOSED, /* (fx): a skipped fixture of this name came */
    K_RAN     /* (fx): a fixture of this name not skipped */
} slot_kind;

struct tw_rep_slot {
    uint64_t h;
    const char *fx, *id;
    size_t ex;
    const void *val;
    unsigned char kind;
};

static uint64_t mix_str(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return (h ^ 0xff) * 0x100000001b3ULL; /* the end of the string */
}

static uint64_t key_hash(slot_kind k, const char *fx, size_t ex, const char *id)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)k;
    h = mix_str(h, fx);
    if (id)
        h = mix_str(h, id);
    /* the exchange index is mixed into every bit: keys that differ only in
     * it (a fixture's exchanges, check by check) must not share low bits,
     * or the table's probes run long */
    h ^= (uint64_t)ex * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

static bool key_eq(const tw_rep_slot *s, uint64_t h, slot_kind k, const char *fx, size_t ex,
                   const char *id)
{
    return s->h == h && s->kind == k && s->ex == ex && strcmp(s->fx, fx) == 0 &&
           ((!s->id && !id) || (s->id && id && strcmp(s->id, id) == 0));
}

static const tw_rep_slot *lookup(const tw_rep_index *ix, slot_kind k, const char *fx, size_t ex,
                                 const char *id)
{
    if (!ix->cap || !fx)
        return NULL;
    uint64_t h = key_hash(k, fx, ex, id);
    for (size_t i = (size_t)h & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
        const tw_rep_slot *s = &ix->slots[i];
        if (s->kind == K_EMPTY)
            return NULL;
        if (key_eq(s, h, k, fx, ex, id))
            return s;
    }
}

/* Insert when absent (the first one stays). The table never fills: its
 * capacity is twice the most entries a report can give. */
static void put(tw_rep_index *ix, slot_kind k, const char *fx, size_t ex, const char *id,
                const void *val)
{
    uint64_t h = key_hash(k, fx, ex, id);
    for (size_t i = (size_t)h & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
        tw_rep_slot *s = &ix->slots[i];
        if (s->kind == K_EMPTY) {
            *s = (tw_rep_slot){h, fx, id, ex, val, (unsigned char)k};
            ix->used++;
            return;
        }
        if (key_eq(s, h, k, fx, ex, id))
            return;
    }
}

/* With fixtures_only, only the fixtures' names (tw_rep_ran_fixture). */
static tw_status index_build(tw_rep_index *ix, const tw_report *r, bool fixtures_only)
{
    memset(ix, 0, sizeof *ix);
    size_t most = 0; /* entries at most: two per fixture, two per exchange, one per check */
    for (size_t i = 0; i < r->nfx; i++) {
        most += 2;
        if (fixtures_only)
            continue;
        most += 2 * r->fx[i].nex;
        for (size_t k = 0; k < r->fx[i].nex; k++)
            most += r->fx[i].ex[k].nchecks;
    }
    size_t cap = 16;
    while (cap < 2 * most) {
        if (cap > SIZE_MAX / 2 / sizeof *ix->slots)
            return TW_ERR_NOMEM;
        cap *= 2;
    }
    ix->slots = calloc(cap, sizeof *ix->slots);
    if (!ix->slots)
        return TW_ERR_NOMEM;
    ix->cap = cap;
    for (size_t i = 0; i < r->nfx; i++) {
        const tw_rep_fixture *f = &r->fx[i];
        const char *fx = f->name ? f->name : "";
        if (f->skipped) {
            put(ix, K_CLOSED, fx, 0, NULL, f);
            continue;
        }
        put(ix, K_RAN, fx, 0, NULL, f);
        if (fixtures_only)
            continue;
        bool closed = lookup(ix, K_CLOSED, fx, 0, NULL) != NULL;
        for (size_t k = 0; k < f->nex; k++) {
            const tw_rep_exchange *e = &f->ex[k];
            put(ix, K_EXCH, fx, e->index, NULL, e);
            if (closed)
                continue;
            put(ix, K_RUN, fx, e->index, NULL, e);
            for (size_t c = 0; c < e->nchecks; c++)
                put(ix, K_CHECK, fx, e->index, e->checks[c].id, &e->checks[c]);
        }
    }
    return TW_OK;
}

tw_status tw_rep_index_build(tw_rep_index *ix, const tw_report *r)
{
    return index_build(ix, r, false);
}

void tw_rep_index_free(tw_rep_index *ix)
{
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}

const tw_rep_check *tw_rep_find_check(const tw_rep_index *ix, const char *fx, size_t ex,
                                      const char *id, bool *fixture_run)
{
    const tw_rep_slot *s = lookup(ix, K_CHECK, fx, ex, id);
    *fixture_run = s || lookup(ix, K_RUN, fx, ex, NULL);
    return s ? s->val : NULL;
}

const tw_rep_exchange *tw_rep_find_exchange(const tw_rep_index *ix, const char *fx, size_t ex)
{
    const tw_rep_slot *s = lookup(ix, K_EXCH, fx, ex, NULL);
    return s ? s->val : NULL;
}

bool tw_rep_ran_fixture(const tw_rep_index *ix, const char *fx)
{
    return tw_rep_find_fixture(ix, fx) != NULL;
}

const tw_rep_fixture *tw_rep_find_fixture(const tw_rep_index *ix, const char *fx)
{
    const tw_rep_slot *s = lookup(ix, K_RAN, fx, 0, NULL);
    return s ? s->val : NULL;
}

tw_rep_index *tw_rep_index_all(const tw_report *r, size_t n)
{
    tw_rep_index *ix = calloc(n ? n : 1, sizeof *ix);
    if (!ix)
        return NULL;
    for (size_t a = 0; a < n; a++)
        if (index_build(&ix[a], &r[a], n < 2) != TW_OK) {
            tw_rep_index_all_free(ix, a);
            return NULL;
        }
    return ix;
}

void tw_rep_index_all_free(tw_rep_index *ix, size_t n)
{
    if (!ix)
        return;
    for (size_t a = 0; a < n; a++)
        tw_rep_index_free(&ix[a]);
    free(ix);
}

void tw_rep_each_key(const tw_report *r, const tw_rep_index *ix, size_t n, tw_rep_key_fn fn,
                     void *u)
{
    size_t nc;
    const tw_check_def *defs = tw_checks_catalog(&nc);
    for (size_t a = 0; a < n; a++)
        for (size_t i = 0; i < r[a].nfx; i++) {
            const tw_rep_fixture *f = &r[a].fx[i];
            if (f->skipped)
                continue;
            /* first report that ran this fixture owns the key */
            bool earlier = false;
            for (size_t b = 0; b < a && !earlier; b++)
                earlier = tw_rep_ran_fixture(&ix[b], f->name);
            if (earlier)
                continue;
            for (size_t k = 0; k < f->nex; k++)
                for (size_t d = 0; d < nc; d++)
                    fn(u, f->name, f->ex[k].index, defs[d].id);
        }
}
