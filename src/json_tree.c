/*
 * JSON trees: member access, comparison (numbers by value, objects with
 * sorted members), integers, repeated keys and their removal (dedupe).
 */
#include "alloc.h"
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

/* ===================== accessors ===================== */

cJSON *tw_json_get(const cJSON *obj, const char *key)
{
    if (!obj || !cJSON_IsObject(obj))
        return NULL;
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

const char *tw_json_get_str(const cJSON *obj, const char *key)
{
    cJSON *v = tw_json_get(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The shortest spelling of a double that reads back equal, as
 * tw_json_write_num prints it; NULL when it is not finite. */
static const char *short_spelling(double d, char *tmp, size_t n)
{
    if (!isfinite(d))
        return NULL;
    tw_buf b = {0};
    b.data = tmp;
    b.cap = n;
    b.max = n - 1;
    if (tw_json_write_num(&b, d) != TW_OK)
        return NULL;
    tmp[b.len] = '\0';
    return tmp;
}

bool tw_json_number_equal(const cJSON *a, const cJSON *b)
{
    const char *sa = tw_json_spelling(a), *sb = tw_json_spelling(b);
    if (!sa && !sb)
        return a->valuedouble == b->valuedouble;
    /* compare decimal values exactly; a node without a spelling stands for
     * its double's shortest round-trip spelling */
    char ta[64], tb[64];
    if (!sa)
        sa = short_spelling(a->valuedouble, ta, sizeof ta);
    if (!sb)
        sb = short_spelling(b->valuedouble, tb, sizeof tb);
    if (!sa || !sb)
        return false;
    return tw_json_same_number(sa, strlen(sa), sb, strlen(sb));
}

/* Members of an object sorted by key, equal keys in document order. */
typedef struct member_ref {
    const cJSON *m;
    size_t pos;
} member_ref;

static int member_cmp(const void *x, const void *y)
{
    const member_ref *a = x, *b = y;
    int c = strcmp(a->m->string ? a->m->string : "", b->m->string ? b->m->string : "");
    return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* The members of obj sorted (malloc'd; NULL when empty or out of memory). */
static member_ref *sorted_members(const cJSON *obj, size_t *n)
{
    size_t k = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        k++;
    *n = k;
    member_ref *v = k ? tw_malloc(k * sizeof *v) : NULL;
    if (!v)
        return NULL;
    k = 0;
    for (const cJSON *c = obj->child; c; c = c->next, k++) {
        v[k].m = c;
        v[k].pos = k;
    }
    qsort(v, k, sizeof *v, member_cmp);
    TW_WORK(k);
    return v;
}

/* The member of sorted v[0, n) with this key, or NULL. */
static const cJSON *find_member(const member_ref *v, size_t n, const char *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v[mid].m->string ? v[mid].m->string : "", key);
        if (c == 0)
            return v[mid].m;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool tw_json_equal(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return a == b;
    int ta = a->type & 0xFF, tb = b->type & 0xFF;
    if (ta != tb)
        return false;
    switch (ta) {
    case cJSON_Number: return tw_json_number_equal(a, b);
    case cJSON_String:
        return strcmp(a->valuestring ? a->valuestring : "", b->valuestring ? b->valuestring : "") ==
               0;
    case cJSON_Array: {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!tw_json_equal(x, y))
                return false;
        return !x && !y;
    }
    case cJSON_Object: {
        int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
        if (na != nb)
            return false;
        /* same keys in the same order: equal member by member (this also
         * covers objects that repeat a key) */
        const cJSON *p = a->child, *q = b->child;
        for (; p && q; p = p->next, q = q->next)
            if (!p->string || !q->string || strcmp(p->string, q->string) != 0 ||
                !tw_json_equal(p, q))
                break;
        if (!p && !q)
            return true;
        /* the same key with another value: unequal whatever the order of the
         * rest (and never compared twice, which nested would cost 2^depth) */
        if (p->string && q->string && strcmp(p->string, q->string) == 0)
            return false;
        if (tw_json_duplicate_key(a) || tw_json_duplicate_key(b))
            return false;
        /* the rest of a, each member found in b by key; the matched prefix
         * holds none of these keys (no key repeats) */
        size_t n;
        member_ref *sb = sorted_members(b, &n);
        bool eq = true;
        for (const cJSON *x = p; eq && x; x = x->next) {
            const cJSON *y =
                sb ? find_member(sb, n, x->string) : cJSON_GetObjectItemCaseSensitive(b, x->string);
            eq = y && tw_json_equal(x, y);
        }
        tw_free(sb);
        return eq;
    }
    default: return true;
    }
}

int64_t tw_json_int(const cJSON *v, int64_t lo, int64_t hi, int64_t dflt)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return dflt;
    double d = v->valuedouble;
    /* compare in double before converting: out-of-range casts are undefined */
    if (d <= (double)lo)
        return lo;
    if (d >= (double)hi)
        return hi;
    return (int64_t)d;
}

/* Is the decimal spelling s an integer (no non-zero digit after the point
 * once the exponent is applied)? s is a valid JSON number. */
static bool spelled_integer(const char *s)
{
    const char *p = s + (*s == '-');
    const char *e = strpbrk(p, "eE");
    size_t n = e ? (size_t)(e - p) : strlen(p);
    const char *dot = memchr(p, '.', n);
    size_t ni = dot ? (size_t)(dot - p) : n;
    /* the last non-zero digit, counted from the first integer digit */
    long long last = -1, k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '.')
            continue;
        if (p[i] != '0')
            last = k;
        k++;
    }
    if (last < 0)
        return true; /* zero, whatever the exponent (0e999999999999999999999) */
    long long exp = 0;
    if (e) {
        errno = 0;
        exp = strtoll(e + 1, NULL, 10);
        if (errno) /* a huge exponent of a non-zero value: never an index */
            return false;
    }
    /* digits at positions < ni + exp lie before the point */
    return last < 0 || last < (long long)ni + exp;
}

bool tw_json_exact_int(const cJSON *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return false;
    double d = v->valuedouble;
    const double exact = 9007199254740992.0; /* 2^53: below it a double is exact */
    if (d <= -exact || d >= exact || d != floor(d))
        return false;
    /* the double may have rounded a fraction away (9007199254740990.6):
     * the spelling, when the tree kept it, decides */
    const char *sp = tw_json_spelling(v);
    if (sp && !spelled_integer(sp))
        return false;
    int64_t i = (int64_t)d;
    if (i < lo || i > hi)
        return false;
    *out = i;
    return true;
}

const char *tw_json_duplicate_key(const cJSON *obj)
{
    if (!cJSON_IsObject(obj))
        return NULL;
    size_t n;
    member_ref *v = sorted_members(obj, &n);
    if (v || n == 0) {
        /* of the keys that repeat, the one whose first use comes first */
        const char *dup = NULL;
        size_t first = SIZE_MAX;
        for (size_t i = 1; i < n; i++)
            if (v[i].m->string && v[i - 1].m->string &&
                strcmp(v[i].m->string, v[i - 1].m->string) == 0 && v[i - 1].pos < first &&
                (i < 2 || !v[i - 2].m->string || strcmp(v[i - 2].m->string, v[i].m->string) != 0)) {
                first = v[i - 1].pos;
                dup = v[i].m->string;
            }
        tw_free(v);
        return dup;
    }
    /* out of memory for the index: compare the pairs */
    for (const cJSON *x = obj->child; x; x = x->next)
        for (const cJSON *y = x->next; y; y = y->next)
            if (x->string && y->string && strcmp(x->string, y->string) == 0)
                return y->string;
    return NULL;
}

const char *tw_json_repeated_member(const cJSON *obj, const char *const *keys)
{
    if (!cJSON_IsObject(obj) || (obj->type & TW_JSON_UNIQUE_BIT))
        return NULL;
    /* one walk over the members, each key compared by its length first */
    enum { NK = 16 };
    size_t nk = 0, klen[NK];
    unsigned char seen[NK] = {0};
    while (nk < NK && keys[nk]) {
        klen[nk] = strlen(keys[nk]);
        nk++;
    }
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (!c->string)
            continue;
        size_t n = strlen(c->string);
        for (size_t k = 0; k < nk; k++)
            if (klen[k] == n && memcmp(c->string, keys[k], n) == 0 && seen[k] < 2)
                seen[k]++;
    }
    for (size_t k = 0; k < nk; k++)
        if (seen[k] > 1)
            return keys[k];
    for (size_t k = nk; nk == NK && keys[k]; k++) { /* a list longer than NK */
        int cnt = 0;
        for (const cJSON *c = obj->child; c; c = c->next)
            if (c->string && strcmp(c->string, keys[k]) == 0 && ++cnt > 1)
                return keys[k];
    }
    return NULL;
}

typedef struct dedupe_key {
    const cJSON *item;
    size_t pos;
} dedupe_key;

static int dedupe_cmp(const void *pa, const void *pb)
{
    const dedupe_key *a = pa, *b = pb;
    int c = strcmp(a->item->string ? a->item->string : "", b->item->string ? b->item->string : "");
    if (c)
        return c;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Append "/key" to a JSON Pointer (RFC 6901 escapes), cut to fit. */
static void pointer_push(char *path, size_t pathlen, const char *key)
{
    size_t n = strlen(path);
    if (n + 1 >= pathlen)
        return;
    path[n++] = '/';
    for (const char *k = key; *k && n + 2 < pathlen; k++) {
        if (*k == '~' || *k == '/') {
            path[n++] = '~';
            path[n++] = *k == '~' ? '0' : '1';
        } else {
            path[n++] = *k;
        }
    }
    path[n] = '\0';
}

static tw_status dedupe_rec(cJSON *v, char *cur, size_t curlen, char *path, size_t pathlen,
                            size_t *removed)
{
    if (v->type & TW_JSON_UNIQUE_BIT)
        return TW_OK; /* the parser found no repeated key in it */
    if (cJSON_IsObject(v)) {
        size_t n = 0;
        for (const cJSON *c = v->child; c; c = c->next)
            n++;
        if (n > 1) {
            dedupe_key *ks = tw_malloc(n * sizeof *ks);
            if (!ks)
                return TW_ERR_NOMEM;
            size_t i = 0;
            for (const cJSON *c = v->child; c; c = c->next, i++) {
                ks[i].item = c;
                ks[i].pos = i;
            }
            qsort(ks, n, sizeof *ks, dedupe_cmp);
            /* mark first, remove after: a later member with the key of the
             * one before it in key order (ties in document order) */
            for (i = n - 1; i > 0; i--)
                if (strcmp(ks[i - 1].item->string ? ks[i - 1].item->string : "",
                           ks[i].item->string ? ks[i].item->string : "") == 0)
                    ks[i].pos = SIZE_MAX;
            for (i = 1; i < n; i++) {
                if (ks[i].pos != SIZE_MAX)
                    continue;
                if (*removed == 0 && pathlen) {
                    snprintf(path, pathlen, "%s", cur);
                    pointer_push(path, pathlen, ks[i].item->string ? ks[i].item->string : "");
                }
                (*removed)++;
                cJSON_Delete(cJSON_DetachItemViaPointer(v, (cJSON *)ks[i].item));
            }
            tw_free(ks);
        }
    }
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return TW_OK;
    size_t mark = strlen(cur);
    size_t idx = 0;
    for (cJSON *c = v->child; c; c = c->next, idx++) {
        if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
            continue;
        if (cJSON_IsObject(v)) {
            pointer_push(cur, curlen, c->string ? c->string : "");
        } else {
            char num[24];
            snprintf(num, sizeof num, "%zu", idx);
            pointer_push(cur, curlen, num);
        }
        tw_status st = dedupe_rec(c, cur, curlen, path, pathlen, removed);
        cur[mark] = '\0';
        if (st != TW_OK)
            return st;
    }
    return TW_OK;
}

tw_status tw_json_dedupe(cJSON *v, char *path, size_t pathlen, size_t *removed)
{
    char cur[256] = "";
    *removed = 0;
    if (pathlen)
        path[0] = '\0';
    return v ? dedupe_rec(v, cur, sizeof cur, path, pathlen, removed) : TW_OK;
}
