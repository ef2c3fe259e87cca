/* The choices the mock made, kept by the request's bytes (mock_match.h: tw_match_memo). */
#include "mock_match.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LEN_BITS 4096

typedef struct memo_ent {
    uint64_t key;
    cJSON *tree; /* the body parsed, read by any thread, or NULL */
    size_t fi, xi, nbest, compared;
    size_t mlen, ulen, blen;
    char bytes[]; /* the method, the URL and the body, one after another */
} memo_ent;

struct tw_match_memo {
    _Atomic(memo_ent *) *slots; /* open addressing; an entry, once there, stays */
    size_t mask;
    atomic_bool *taken; /* per flat exchange: its entry is made (or refused) */
    size_t ntotal;
    atomic_size_t bytes; /* request bytes and their trees' bytes held by the entries */
    size_t max_bytes;
    /* the body lengths of the entries, modulo LEN_BITS: a request of a length
     * no entry has is not hashed to be looked up */
    atomic_uchar lens[LEN_BITS / 8];
};

tw_match_memo *tw_match_memo_new(size_t ntotal, size_t max_bytes)
{
    tw_match_memo *mm = calloc(1, sizeof *mm);
    if (!mm)
        return NULL;
    size_t cap = 16;
    while (cap < ntotal * 2)
        cap <<= 1;
    mm->mask = cap - 1;
    mm->ntotal = ntotal;
    mm->max_bytes = max_bytes;
    mm->slots = malloc(cap * sizeof *mm->slots);
    mm->taken = malloc((ntotal + 1) * sizeof *mm->taken);
    if (!mm->slots || !mm->taken) {
        free(mm->slots);
        free(mm->taken);
        free(mm);
        return NULL;
    }
    for (size_t i = 0; i < cap; i++)
        atomic_init(&mm->slots[i], NULL);
    for (size_t i = 0; i <= ntotal; i++)
        atomic_init(&mm->taken[i], false);
    for (size_t i = 0; i < LEN_BITS / 8; i++)
        atomic_init(&mm->lens[i], 0);
    atomic_init(&mm->bytes, 0);
    return mm;
}

void tw_match_memo_free(tw_match_memo *mm)
{
    if (!mm)
        return;
    for (size_t i = 0; i <= mm->mask; i++) {
        memo_ent *e = atomic_load(&mm->slots[i]);
        if (e)
            cJSON_Delete(e->tree);
        free(e);
    }
    free(mm->slots);
    free(mm->taken);
    free(mm);
}

uint64_t tw_match_memo_key(const char *method, const char *url, const char *body, size_t len)
{
    uint64_t h = tw_match_hash_bytes(method, strlen(method), 1);
    h = tw_match_hash_bytes(url, strlen(url), h);
    return tw_match_hash_bytes(body, len, h);
}

/* The entry is of this method, URL and body. */
static bool ent_holds(const memo_ent *e, const char *method, size_t ml, const char *url, size_t ul,
                      const char *body, size_t len)
{
    return e->mlen == ml && e->ulen == ul && e->blen == len && memcmp(e->bytes, method, ml) == 0 &&
           memcmp(e->bytes + ml, url, ul) == 0 &&
           (!len || memcmp(e->bytes + ml + ul, body, len) == 0);
}

bool tw_match_memo_get(const tw_match_memo *mm, const void **last, const char *method,
                       const char *url, const char *body, size_t len, uint64_t *key,
                       tw_match_out *out, const cJSON **tree)
{
    size_t ml = strlen(method), ul = strlen(url);
    const memo_ent *e = last ? *last : NULL;
    if (!e || !ent_holds(e, method, ml, url, ul, body, len)) {
        *key = 0;
        size_t lb = len % LEN_BITS;
        if (!(atomic_load_explicit(&mm->lens[lb / 8], memory_order_relaxed) & (1u << (lb % 8))))
            return false; /* no entry has a body this long */
        *key = tw_match_memo_key(method, url, body, len);
        /* fewer entries than slots: an empty slot ends every probe */
        for (size_t i = (size_t)*key & mm->mask;; i = (i + 1) & mm->mask) {
            e = atomic_load_explicit(&mm->slots[i], memory_order_acquire);
            if (!e)
                return false;
            if (e->key == *key && ent_holds(e, method, ml, url, ul, body, len))
                break;
        }
        if (last)
            *last = e;
    }
    memset(out, 0, sizeof *out);
    out->found = true;
    out->fi = e->fi;
    out->xi = e->xi;
    out->nbest = e->nbest;
    out->compared = e->compared;
    *tree = e->tree;
    return true;
}

bool tw_match_memo_claim(tw_match_memo *mm, size_t g)
{
    /* one entry per exchange: the first request that chose it */
    return g < mm->ntotal && !atomic_load(&mm->taken[g]) && !atomic_exchange(&mm->taken[g], true);
}

/* The bytes a tree holds: its nodes and their strings (depth bounded by the parse). */
static size_t tree_bytes(const cJSON *v)
{
    size_t n = 0;
    for (; v; v = v->next) {
        n += sizeof *v;
        if (v->string)
            n += strlen(v->string) + 1;
        if (v->valuestring)
            n += strlen(v->valuestring) + 1;
        n += tree_bytes(v->child);
    }
    return n;
}

void tw_match_memo_put(tw_match_memo *mm, uint64_t key, const char *method, const char *url,
                       const char *body, size_t len, const tw_match_out *out, cJSON *tree)
{
    size_t ml = strlen(method), ul = strlen(url), n = ml + ul + len;
    size_t held = n + tree_bytes(tree);
    size_t before = atomic_fetch_add(&mm->bytes, held);
    memo_ent *e = NULL;
    if (!out->found || out->hint_elsewhere || held > mm->max_bytes ||
        before > mm->max_bytes - held || !(e = malloc(sizeof *e + n + 1))) {
        atomic_fetch_sub(&mm->bytes, held);
        cJSON_Delete(tree);
        return;
    }
    if (!key)
        key = tw_match_memo_key(method, url, body, len);
    *e = (memo_ent){key, tree, out->fi, out->xi, out->nbest, out->compared, ml, ul, len};
    memcpy(e->bytes, method, ml);
    memcpy(e->bytes + ml, url, ul);
    if (len)
        memcpy(e->bytes + ml + ul, body, len);
    /* the length first: a lookup that misses the length bit misses the
     * entry, as one made before the entry was there would */
    atomic_fetch_or(&mm->lens[len % LEN_BITS / 8], (unsigned char)(1u << (len % LEN_BITS % 8)));
    for (size_t i = (size_t)key & mm->mask;; i = (i + 1) & mm->mask) {
        memo_ent *none = NULL;
        if (atomic_compare_exchange_strong(&mm->slots[i], &none, e))
            return;
    }
}
