/* Matching requests to fixture exchanges (mock_match.h). */
#include "mock_match.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const default_ignore[] = {
    "stream", "stream_options", "model", "temperature", "top_p", "max_tokens", "seed", "user", "n",
    /* generation options the SDKs send or the caller sets, none of which changes what is asked */
    "max_completion_tokens", "frequency_penalty", "presence_penalty", "top_k", NULL};

/* ---- the normalised comparison ---- */

/* A key of default_ignore, told by its length and a compare or two (the
 * list above and this switch name the same keys). */
static bool default_ignored(const char *k)
{
    switch (strlen(k)) {
    case 1: return k[0] == 'n';
    case 4: return memcmp(k, "user", 4) == 0 || memcmp(k, "seed", 4) == 0;
    case 5:
        return memcmp(k, "model", 5) == 0 || memcmp(k, "top_p", 5) == 0 ||
               memcmp(k, "top_k", 5) == 0;
    case 6: return memcmp(k, "stream", 6) == 0;
    case 10: return memcmp(k, "max_tokens", 10) == 0;
    case 11: return memcmp(k, "temperature", 11) == 0;
    case 14: return memcmp(k, "stream_options", 14) == 0;
    case 16: return memcmp(k, "presence_penalty", 16) == 0;
    case 17: return memcmp(k, "frequency_penalty", 17) == 0;
    case 21: return memcmp(k, "max_completion_tokens", 21) == 0;
    default: return false;
    }
}

static bool ignored(const char *key, const char *const *ign)
{
    if (key && ign == default_ignore)
        return default_ignored(key);
    for (size_t i = 0; key && ign && ign[i]; i++)
        if (key[0] == ign[i][0] && strcmp(key, ign[i]) == 0)
            return true;
    return false;
}

bool tw_mock_body_matches(const cJSON *want, const cJSON *got, tw_match_mode mode,
                          const char *const *ign)
{
    if (mode == TW_MATCH_PATH)
        return true;
    if (!want || !got)
        return !want && !got;
    if (mode == TW_MATCH_EXACT)
        return tw_json_equal(want, got);
    if (!ign)
        ign = default_ignore;
    if (!cJSON_IsObject(want) || !cJSON_IsObject(got))
        return tw_json_equal(want, got);
    /* top-level keys outside the ignore list must agree both ways */
    for (const cJSON *w = want->child; w; w = w->next) {
        if (ignored(w->string, ign))
            continue;
        const cJSON *g = tw_json_get(got, w->string);
        if (!g || !tw_json_equal(w, g))
            return false;
    }
    for (const cJSON *g = got->child; g; g = g->next)
        if (!ignored(g->string, ign) && !tw_json_get(want, g->string))
            return false;
    return true;
}

/* The bytes before "/models/" of a Gemini path under an API version
 * ("/v1beta", "/v1alpha", "/v1"): the same method under any version is one
 * route (the SDKs default to different versions), 0 for any other path. */
static size_t gemini_version_len(const char *path, size_t n)
{
    static const char *const vers[] = {"/v1beta/models/", "/v1alpha/models/", "/v1/models/"};
    static const char gc[] = ":generateContent", sgc[] = ":streamGenerateContent";
    if (!(n >= sizeof gc - 1 && memcmp(path + n - (sizeof gc - 1), gc, sizeof gc - 1) == 0) &&
        !(n >= sizeof sgc - 1 && memcmp(path + n - (sizeof sgc - 1), sgc, sizeof sgc - 1) == 0))
        return 0;
    for (size_t i = 0; i < sizeof vers / sizeof vers[0]; i++) {
        size_t k = strlen(vers[i]);
        if (n > k && memcmp(path, vers[i], k) == 0)
            return k - strlen("/models/");
    }
    return 0;
}

bool tw_mock_path_matches(const char *fx_path, const char *url)
{
    size_t n = strcspn(fx_path, "?#");
    size_t un = strlen(url);
    size_t a = gemini_version_len(fx_path, n), b = gemini_version_len(url, un);
    if (!a != !b) /* a version on one side only */
        a = b = 0;
    return n - a == un - b && memcmp(fx_path + a, url + b, n - a) == 0;
}

bool tw_mock_exchange_succeeds(const tw_fx_exchange *x)
{
    return !x->faults && (!x->has_response || (x->resp.status >= 200 && x->resp.status < 300));
}

/* 2: a clean answer (2xx, no faults, no check expected to fail); 1: a 2xx
 * without faults that a check is expected to fail on; 0: anything else. */
static int exchange_rank(const tw_fx_exchange *x)
{
    if (!tw_mock_exchange_succeeds(x))
        return 0;
    return x->nexpect_fail == 0 ? 2 : 1;
}

/* ---- choosing the exchange ---- */

static const cJSON *norm_of(const tw_match_in *in, size_t fi, size_t k)
{
    const cJSON *n = in->norm ? in->norm[in->ex_base[fi] + k] : NULL;
    return n ? n : in->fx[fi].exchanges[k].req.body;
}

/* "; served: POST /v1/chat/completions, …": the distinct methods and paths
 * (without the query) of the served exchanges, at most 8, in load order. */
static void served_paths(const tw_match_in *in, tw_buf *msg)
{
    const tw_fx_exchange *seen[8];
    size_t nseen = 0;
    bool more = false;
    for (size_t i = 0; i < in->nfx; i++) {
        if (!in->served[i])
            continue;
        for (size_t k = 0; k < in->fx[i].nexchanges; k++) {
            const tw_fx_exchange *x = &in->fx[i].exchanges[k];
            size_t pl = strcspn(x->req.path, "?#");
            bool dup = false;
            for (size_t j = 0; j < nseen && !dup; j++)
                dup = strcmp(seen[j]->req.method, x->req.method) == 0 &&
                      strcspn(seen[j]->req.path, "?#") == pl &&
                      strncmp(seen[j]->req.path, x->req.path, pl) == 0;
            if (dup)
                continue;
            if (nseen == 8) {
                more = true;
                break;
            }
            seen[nseen++] = x;
        }
        if (more)
            break;
    }
    for (size_t j = 0; j < nseen; j++)
        tw_buf_printf(
            msg, "%s %s %.*s", j ? "," : "; served:", seen[j]->req.method,
            (int)(strcspn(seen[j]->req.path, "?#") < 200 ? strcspn(seen[j]->req.path, "?#") : 200),
            seen[j]->req.path);
    if (more)
        tw_buf_puts(msg, ", …");
}

/* The state of one choice: the best score and rank so far. */
typedef struct match_run {
    const tw_match_in *in;
    tw_match_out *out;
    const cJSON *got; /* the body as the mode compares it */
    bool req_stream;
    int best, best_rank;
    /* the first exchange whose body matched, not scored yet: a lone match
     * is chosen whatever its score, so the exact comparison that scores it
     * is made only once a second exchange matches (SIZE_MAX: none) */
    size_t lone_i, lone_k;
} match_run;

/* Take exchange k of fixture i, of this score, into the choice. */
static void take(match_run *r, size_t i, size_t k, int score)
{
    /* equal matches: the first clean answer (2xx, no faults, no check expected
     * to fail), else the first success, else the first in file order */
    int rank = exchange_rank(&r->in->fx[i].exchanges[k]);
    if (score == r->best)
        r->out->nbest++;
    if (score > r->best || (score == r->best && rank > r->best_rank)) {
        if (score > r->best)
            r->out->nbest = 1;
        r->best = score;
        r->best_rank = rank;
        r->out->found = true;
        r->out->fi = i;
        r->out->xi = k;
    }
}

/* The score of an exchange whose body matched: 2 the same body exactly, 1 the
 * same stream flag, 0 neither. */
static int body_score(const match_run *r, size_t i, size_t k)
{
    const cJSON *want = r->in->fx[i].exchanges[k].req.body;
    return tw_json_equal(want, r->in->body)                             ? 2
           : cJSON_IsTrue(tw_json_get(want, "stream")) == r->req_stream ? 1
                                                                        : 0;
}

/* The lone match, if any, scored and taken. */
static void take_lone(match_run *r)
{
    if (r->lone_i == SIZE_MAX)
        return;
    size_t i = r->lone_i, k = r->lone_k;
    r->lone_i = SIZE_MAX;
    take(r, i, k, body_score(r, i, k));
}

/* Weigh exchange k of fixture i against the request (the hint compared by the caller). */
static void consider(match_run *r, size_t i, size_t k, bool named)
{
    const tw_match_in *in = r->in;
    const tw_fx_exchange *x = &in->fx[i].exchanges[k];
    r->out->compared++;
    if (named) {
        if (strcmp(x->req.method, in->method) != 0 || !tw_mock_path_matches(x->req.path, in->url)) {
            r->out->hint_elsewhere = true;
            return;
        }
        take(r, i, k, 3);
        return;
    }
    if (strcmp(x->req.method, in->method) != 0 || !tw_mock_path_matches(x->req.path, in->url))
        return;
    const cJSON *want = in->mode == TW_MATCH_NORMALISED ? norm_of(in, i, k) : x->req.body;
    if (!tw_mock_body_matches(want, r->got, in->mode, in->ignore_keys))
        return;
    if (!r->out->found && r->lone_i == SIZE_MAX) {
        r->lone_i = i;
        r->lone_k = k;
        return;
    }
    take_lone(r);
    take(r, i, k, body_score(r, i, k));
}

/* The choice made: a lone match is taken without its score. */
static void match_done(match_run *r)
{
    if (r->lone_i != SIZE_MAX && !r->out->found) {
        take(r, r->lone_i, r->lone_k, 0);
        r->lone_i = SIZE_MAX;
    }
}

/* ---- the index ---- */

typedef struct ix_slot {
    uint64_t key;
    size_t head, tail; /* a chain through next[], in load order; SIZE_MAX: empty */
} ix_slot;

struct tw_match_index {
    size_t ntotal;
    size_t *fi_of;  /* per flat exchange: its fixture */
    size_t *next;   /* per flat exchange: the next one of its slot */
    ix_slot *slots; /* exchanges by method, path and body */
    size_t mask;
    size_t *always; /* exchanges compared with every request (a body that
                       repeats a top-level key cannot be hashed as compared) */
    size_t nalways;
    bool *alone;   /* per flat exchange: the only one of its slot, and none
                      compared always (tw_mock_match_one) */
    size_t *fnext; /* per fixture: the next fixture of its name's slot */
    ix_slot *names;
    size_t nmask;
};

static uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* Eight bytes a step (a table's hash: equal bytes give equal hashes; the
 * choice is made by comparing, never by the hash alone). */
static uint64_t hash_bytes(const char *p, size_t n, uint64_t h)
{
    h ^= 0xcbf29ce484222325ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, p + i, n - i);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    return mix64(h ^ n);
}

uint64_t tw_match_hash_bytes(const char *p, size_t n, uint64_t h)
{
    return hash_bytes(p, n, h);
}

static uint64_t members_hash(const cJSON *c, const char *const *ign);

/*
 * A hash of a JSON value that tw_json_equal values share: object members are
 * added up (their order does not count), array elements chained in order,
 * numbers only by their type (tw_json_number_equal decides number equality).
 * A node's type and a member's key and value are combined by a multiply, not
 * a full mix: the strings' hashes are mixed already, and only equal values
 * must hash equal (a collision costs a comparison).
 */
static uint64_t hash_value(const cJSON *v)
{
    if (!v)
        return 0x9e3779b97f4a7c15ULL;
    int t = v->type & 0xFF;
    uint64_t h = ((uint64_t)t + 1) * 0xc2b2ae3d27d4eb4fULL;
    switch (t) {
    case cJSON_String: {
        const char *s = v->valuestring ? v->valuestring : "";
        return hash_bytes(s, strlen(s), h);
    }
    case cJSON_Array:
        for (const cJSON *c = v->child; c; c = c->next) {
            h = (h ^ hash_value(c)) * 0x9e3779b97f4a7c15ULL;
            h ^= h >> 29;
        }
        return h;
    case cJSON_Object: return mix64(h ^ members_hash(v->child, NULL));
    default: return h;
    }
}

/* The members from c on added up, those of a key ign lists left out (ign NULL: none). */
static uint64_t members_hash(const cJSON *c, const char *const *ign)
{
    uint64_t sum = 0;
    for (; c; c = c->next) {
        if (ign && ignored(c->string, ign))
            continue;
        const char *k = c->string ? c->string : "";
        sum += (hash_bytes(k, strlen(k), 7) ^ hash_value(c)) * 0x9e3779b97f4a7c15ULL;
    }
    return sum;
}

/* Whether an object repeats a key: pairs compared for a few members (no
 * allocation), tw_json_duplicate_key beyond. */
static bool repeats_key(const cJSON *o)
{
    size_t n = 0;
    for (const cJSON *c = o->child; c && n <= 16; c = c->next)
        n++;
    if (n > 16)
        return tw_json_duplicate_key(o) != NULL;
    for (const cJSON *x = o->child; x; x = x->next)
        for (const cJSON *y = x->next; y; y = y->next)
            if (x->string && y->string && x->string[0] == y->string[0] &&
                strcmp(x->string, y->string) == 0)
                return true;
    return false;
}

/* The hash of a body as the mode compares it; false when it cannot be had
 * (a top-level key repeated: the comparison then depends on member order). */
static bool body_hash(const cJSON *b, tw_match_mode mode, const char *const *ign, uint64_t *h)
{
    *h = 0;
    if (mode == TW_MATCH_PATH)
        return true;
    if (mode == TW_MATCH_NORMALISED && cJSON_IsObject(b)) {
        if (repeats_key(b))
            return false;
        *h = mix64(members_hash(b->child, ign ? ign : default_ignore) ^ 0x51ed270b27ULL);
        return true;
    }
    *h = hash_value(b);
    return true;
}

static uint64_t route_key(const char *method, const char *path, size_t plen, uint64_t body)
{
    size_t v = gemini_version_len(path, plen); /* one route under any API version */
    path += v;
    plen -= v;
    return mix64(hash_bytes(method, strlen(method), 1) ^ (hash_bytes(path, plen, 2) * 3) ^ body);
}

static size_t pow2_at_least(size_t n)
{
    size_t c = 16;
    while (c < n * 2)
        c <<= 1;
    return c;
}

/* The slot of key in a table of mask + 1 slots (open addressing): its own or an empty one. */
static ix_slot *slot_of(ix_slot *t, size_t mask, uint64_t key)
{
    for (size_t i = (size_t)key & mask;; i = (i + 1) & mask)
        if (t[i].head == SIZE_MAX || t[i].key == key)
            return &t[i];
}

static void chain_add(ix_slot *s, uint64_t key, size_t *next, size_t g)
{
    next[g] = SIZE_MAX;
    if (s->head == SIZE_MAX) {
        s->key = key;
        s->head = s->tail = g;
    } else {
        next[s->tail] = g;
        s->tail = g;
    }
}

void tw_match_index_free(tw_match_index *ix)
{
    if (!ix)
        return;
    free(ix->fi_of);
    free(ix->next);
    free(ix->slots);
    free(ix->always);
    free(ix->alone);
    free(ix->fnext);
    free(ix->names);
    free(ix);
}

tw_status tw_match_index_build(const tw_match_in *in, tw_match_index **out)
{
    *out = NULL;
    tw_match_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return TW_ERR_NOMEM;
    size_t total = 0;
    for (size_t i = 0; i < in->nfx; i++)
        total += in->fx[i].nexchanges;
    ix->ntotal = total;
    size_t cap = pow2_at_least(total), ncap = pow2_at_least(in->nfx);
    ix->mask = cap - 1;
    ix->nmask = ncap - 1;
    ix->fi_of = calloc(total + 1, sizeof *ix->fi_of);
    ix->next = calloc(total + 1, sizeof *ix->next);
    ix->always = calloc(total + 1, sizeof *ix->always);
    ix->alone = calloc(total + 1, sizeof *ix->alone);
    ix->slots = malloc(cap * sizeof *ix->slots);
    ix->fnext = calloc(in->nfx + 1, sizeof *ix->fnext);
    ix->names = malloc(ncap * sizeof *ix->names);
    if (!ix->fi_of || !ix->next || !ix->always || !ix->alone || !ix->slots || !ix->fnext ||
        !ix->names) {
        tw_match_index_free(ix);
        return TW_ERR_NOMEM;
    }
    for (size_t i = 0; i < cap; i++)
        ix->slots[i] = (ix_slot){0, SIZE_MAX, SIZE_MAX};
    for (size_t i = 0; i < ncap; i++)
        ix->names[i] = (ix_slot){0, SIZE_MAX, SIZE_MAX};
    for (size_t i = 0; i < in->nfx; i++) {
        const tw_fixture *f = &in->fx[i];
        const char *name = f->name ? f->name : "";
        uint64_t nk = hash_bytes(name, strlen(name), 3);
        chain_add(slot_of(ix->names, ix->nmask, nk), nk, ix->fnext, i);
        for (size_t k = 0; k < f->nexchanges; k++)
            ix->fi_of[in->ex_base[i] + k] = i;
        if (!in->served[i])
            continue;
        for (size_t k = 0; k < f->nexchanges; k++) {
            size_t g = in->ex_base[i] + k;
            const tw_fx_exchange *x = &f->exchanges[k];
            const cJSON *want = in->mode == TW_MATCH_NORMALISED ? norm_of(in, i, k) : x->req.body;
            uint64_t bh;
            if (!body_hash(want, in->mode, in->ignore_keys, &bh)) {
                ix->always[ix->nalways++] = g;
                continue;
            }
            uint64_t key = route_key(x->req.method, x->req.path, strcspn(x->req.path, "?#"), bh);
            chain_add(slot_of(ix->slots, ix->mask, key), key, ix->next, g);
        }
    }
    for (size_t s = 0; ix->nalways == 0 && s <= ix->mask; s++)
        if (ix->slots[s].head != SIZE_MAX && ix->slots[s].head == ix->slots[s].tail)
            ix->alone[ix->slots[s].head] = true;
    *out = ix;
    return TW_OK;
}

/* The hint as FIXTURE#INDEX with INDEX written as %zu writes it. */
static bool split_hint(const char *hint, size_t *namelen, size_t *k)
{
    const char *h = strrchr(hint, '#');
    if (!h || !h[1] || (h[1] == '0' && h[2]))
        return false;
    size_t v = 0;
    for (const char *p = h + 1; *p; p++) {
        if (*p < '0' || *p > '9' || v > (SIZE_MAX - 9) / 10)
            return false;
        v = v * 10 + (size_t)(*p - '0');
    }
    *namelen = (size_t)(h - hint);
    *k = v;
    return true;
}

static void match_indexed(match_run *r, const char *hint)
{
    const tw_match_in *in = r->in;
    const tw_match_index *ix = in->index;
    if (hint[0]) {
        size_t nl, k;
        if (!split_hint(hint, &nl, &k))
            return;
        uint64_t nk = hash_bytes(hint, nl, 3);
        const ix_slot *s = slot_of(ix->names, ix->nmask, nk);
        for (size_t i = s->head; i != SIZE_MAX && r->best < 3; i = ix->fnext[i]) {
            const tw_fixture *f = &in->fx[i];
            const char *name = f->name ? f->name : "";
            if (!in->served[i] || k >= f->nexchanges || strlen(name) != nl ||
                memcmp(name, hint, nl) != 0)
                continue;
            consider(r, i, k, true);
        }
        return;
    }
    uint64_t bh;
    if (!body_hash(r->got, in->mode, in->ignore_keys, &bh)) {
        /* compared as every exchange is: a body that repeats a top-level key */
        for (size_t g = 0; g < ix->ntotal; g++)
            if (in->served[ix->fi_of[g]])
                consider(r, ix->fi_of[g], g - in->ex_base[ix->fi_of[g]], false);
        return;
    }
    const ix_slot *s =
        slot_of(ix->slots, ix->mask, route_key(in->method, in->url, strlen(in->url), bh));
    /* the slot's chain and the exchanges compared always, merged in load order */
    size_t a = s->head, b = 0;
    while (a != SIZE_MAX || b < ix->nalways) {
        size_t g;
        if (b >= ix->nalways || (a != SIZE_MAX && a < ix->always[b])) {
            g = a;
            a = ix->next[a];
        } else {
            g = ix->always[b++];
        }
        size_t i = ix->fi_of[g];
        consider(r, i, g - in->ex_base[i], false);
    }
}

bool tw_mock_match_one(const tw_match_in *in, size_t g, tw_match_out *out)
{
    const tw_match_index *ix = in->index;
    if (!ix || g >= ix->ntotal || !ix->alone[g] || (in->hint && in->hint[0]))
        return false;
    size_t i = ix->fi_of[g], k = g - in->ex_base[i];
    const tw_fx_exchange *x = &in->fx[i].exchanges[k];
    const cJSON *got = in->mode == TW_MATCH_NORMALISED && in->body_norm ? in->body_norm : in->body;
    /* the body hashes as compared (no top-level key repeated), so a body
     * that matches g's has g's hash: the index offers g's slot, g alone */
    if (in->mode == TW_MATCH_NORMALISED && cJSON_IsObject(got) && repeats_key(got))
        return false;
    if (strcmp(x->req.method, in->method) != 0 || !tw_mock_path_matches(x->req.path, in->url))
        return false;
    const cJSON *want = in->mode == TW_MATCH_NORMALISED ? norm_of(in, i, k) : x->req.body;
    if (!tw_mock_body_matches(want, got, in->mode, in->ignore_keys))
        return false;
    /* as tw_mock_match takes a lone match: unscored, one compared */
    memset(out, 0, sizeof *out);
    out->found = true;
    out->fi = i;
    out->xi = k;
    out->nbest = 1;
    out->compared = 1;
    return true;
}

void tw_mock_match(const tw_match_in *in, tw_match_out *out)
{
    memset(out, 0, sizeof *out);
    const char *hint = in->hint ? in->hint : "";
    match_run r = {in, out, NULL, false, -1, -1, SIZE_MAX, 0};
    r.req_stream = cJSON_IsTrue(tw_json_get(in->body, "stream"));
    r.got = in->mode == TW_MATCH_NORMALISED && in->body_norm ? in->body_norm : in->body;
    /* a hint as long as the header buffer may have been cut: compared the long way */
    if (in->index && strlen(hint) < 255) {
        match_indexed(&r, hint);
        match_done(&r);
        return;
    }
    for (size_t i = 0; i < in->nfx && r.best < 3; i++) {
        if (!in->served[i])
            continue;
        const tw_fixture *f = &in->fx[i];
        for (size_t k = 0; k < f->nexchanges; k++) {
            if (hint[0]) {
                char want[256];
                snprintf(want, sizeof want, "%s#%zu", f->name, k);
                if (strcmp(hint, want) != 0)
                    continue;
            }
            consider(&r, i, k, hint[0] != 0);
        }
    }
    match_done(&r);
}

/* ---- the nearest exchange ---- */

typedef struct diff_ctx {
    size_t count;           /* differences found */
    bool no_body;           /* the request has no JSON body */
    size_t stop;            /* stop looking once count reaches this */
    const char *const *ign; /* top-level keys left out */
    tw_buf path;            /* "$.a[0].b" of the value being compared */
    tw_buf *msg, *diffs;    /* record the first differences here, or NULL */
    tw_status st;
} diff_ctx;

static size_t utf8_cut(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    size_t k = max;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    return k;
}

/* A value's excerpt: its compact JSON, at most TW_MOCK_EXCERPT_BYTES of it. */
static void excerpt(tw_buf *out, const cJSON *v, bool present)
{
    if (!present) {
        tw_buf_puts(out, "(absent)");
        return;
    }
    tw_buf e = {0};
    e.max = TW_MOCK_EXCERPT_BYTES * 4;
    bool cut;
    if (cJSON_IsString(v)) {
        size_t n = strlen(v->valuestring);
        size_t k = utf8_cut(v->valuestring, n, TW_MOCK_EXCERPT_BYTES);
        tw_json_write_str(&e, v->valuestring, k, 0);
        cut = k < n;
    } else {
        cut = tw_json_write(&e, v, 0) != TW_OK;
        if (e.len > TW_MOCK_EXCERPT_BYTES) {
            e.len = utf8_cut(e.data, e.len, TW_MOCK_EXCERPT_BYTES);
            cut = true;
        }
    }
    tw_buf_append(out, e.data ? e.data : "", e.len);
    if (cut)
        tw_buf_puts(out, "\xE2\x80\xA6");
    tw_buf_free(&e);
}

static void record(diff_ctx *d, const cJSON *want, const cJSON *got)
{
    d->count++;
    if (!d->msg || d->count > TW_MOCK_NEAREST_DIFFS)
        return;
    tw_buf w = {0}, g = {0};
    excerpt(&w, want, want != NULL);
    if (!got && d->no_body)
        tw_buf_puts(&g, "(no JSON body)");
    else
        excerpt(&g, got, got != NULL);
    tw_buf_printf(d->msg, "%s%s: expected %s, got %s", d->count > 1 ? "; " : "",
                  d->path.data ? d->path.data : "$", w.data ? w.data : "", g.data ? g.data : "");
    tw_buf_puts(d->diffs, d->count > 1 ? ",{\"path\":" : "{\"path\":");
    tw_json_write_str(d->diffs, d->path.data ? d->path.data : "$", d->path.len, 0);
    tw_buf_puts(d->diffs, ",\"expected\":");
    tw_json_write_str(d->diffs, w.data ? w.data : "", w.len, 0);
    tw_buf_puts(d->diffs, ",\"got\":");
    tw_json_write_str(d->diffs, g.data ? g.data : "", g.len, 0);
    tw_buf_putc(d->diffs, '}');
    tw_buf_free(&w);
    tw_buf_free(&g);
}

static bool plain_key(const char *k)
{
    if (!k[0] || (k[0] >= '0' && k[0] <= '9'))
        return false;
    for (const char *p = k; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '$'))
            return false;
    return true;
}

static void path_key(tw_buf *p, const char *k)
{
    if (plain_key(k)) {
        tw_buf_printf(p, ".%s", k);
    } else {
        tw_buf_putc(p, '[');
        tw_json_write_str(p, k, strlen(k), 0);
        tw_buf_putc(p, ']');
    }
}

static void path_back(tw_buf *p, size_t len)
{
    p->len = len;
    if (p->data)
        p->data[len] = '\0';
}

static int cmp_member(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(x->string ? x->string : "", y->string ? y->string : "");
}

static void diff(diff_ctx *d, const cJSON *want, const cJSON *got, bool top);

static void diff_objects(diff_ctx *d, const cJSON *want, const cJSON *got, bool top)
{
    /* got's members sorted by key: each of want's found in log time */
    size_t n = (size_t)cJSON_GetArraySize(got);
    const cJSON **idx = n ? malloc(n * sizeof *idx) : NULL;
    bool *seen = n ? calloc(n, sizeof *seen) : NULL;
    if (n && (!idx || !seen)) {
        free(idx);
        free(seen);
        d->st = TW_ERR_NOMEM;
        return;
    }
    size_t i = 0;
    for (const cJSON *g = got->child; g; g = g->next)
        idx[i++] = g;
    if (n)
        qsort(idx, n, sizeof *idx, cmp_member);
    size_t base = d->path.len;
    for (const cJSON *w = want->child; w && d->count < d->stop && d->st == TW_OK; w = w->next) {
        if (!w->string || (top && ignored(w->string, d->ign)))
            continue;
        const cJSON **hit = n ? bsearch(&w, idx, n, sizeof *idx, cmp_member) : NULL;
        path_key(&d->path, w->string);
        if (hit) {
            seen[hit - idx] = true;
            diff(d, w, *hit, false);
        } else {
            record(d, w, NULL);
        }
        path_back(&d->path, base);
    }
    for (size_t k = 0; k < n && d->count < d->stop && d->st == TW_OK; k++) {
        if (seen[k] || !idx[k]->string || (top && ignored(idx[k]->string, d->ign)))
            continue;
        /* a repeated key of got was looked up once: its twins are not extra */
        if ((k > 0 && seen[k - 1] && cmp_member(&idx[k], &idx[k - 1]) == 0))
            continue;
        path_key(&d->path, idx[k]->string);
        record(d, NULL, idx[k]);
        path_back(&d->path, base);
    }
    free(idx);
    free(seen);
}

static void diff(diff_ctx *d, const cJSON *want, const cJSON *got, bool top)
{
    if (d->count >= d->stop || d->st != TW_OK)
        return;
    if (cJSON_IsObject(want) && cJSON_IsObject(got)) {
        diff_objects(d, want, got, top);
        return;
    }
    if (cJSON_IsArray(want) && cJSON_IsArray(got)) {
        size_t base = d->path.len, i = 0;
        const cJSON *w = want->child, *g = got->child;
        for (; (w || g) && d->count < d->stop; i++) {
            tw_buf_printf(&d->path, "[%zu]", i);
            if (w && g)
                diff(d, w, g, false);
            else
                record(d, w, g);
            path_back(&d->path, base);
            w = w ? w->next : NULL;
            g = g ? g->next : NULL;
        }
        return;
    }
    if (!tw_json_equal(want, got))
        record(d, want, got);
}

/* The differences between an exchange's body and the request's, up to stop. */
static size_t count_diffs(const tw_match_in *in, const cJSON *want, const cJSON *got, size_t stop,
                          tw_buf *msg, tw_buf *diffs, tw_status *st)
{
    diff_ctx d;
    memset(&d, 0, sizeof d);
    d.stop = stop;
    d.ign = in->mode == TW_MATCH_NORMALISED ? (in->ignore_keys ? in->ignore_keys : default_ignore)
                                            : NULL;
    d.msg = msg;
    d.diffs = diffs;
    tw_buf_puts(&d.path, "$");
    if (!want || !got) {
        d.no_body = !got;
        if (want || got)
            record(&d, want, got);
    } else {
        diff(&d, want, got, true);
    }
    tw_buf_free(&d.path);
    *st = d.st;
    return d.count;
}

tw_status tw_mock_nearest(const tw_match_in *in, tw_buf *msg, tw_buf *nearest, tw_buf *diffs)
{
    const cJSON *got = in->mode == TW_MATCH_NORMALISED && in->body_norm ? in->body_norm : in->body;
    size_t best = SIZE_MAX, bfi = 0, bxi = 0;
    bool any = false;
    tw_status st = TW_OK;
    for (size_t i = 0; i < in->nfx && best && st == TW_OK; i++) {
        if (!in->served[i])
            continue;
        const tw_fixture *f = &in->fx[i];
        for (size_t k = 0; k < f->nexchanges && best && st == TW_OK; k++) {
            const tw_fx_exchange *x = &f->exchanges[k];
            if (strcmp(x->req.method, in->method) != 0 ||
                !tw_mock_path_matches(x->req.path, in->url))
                continue;
            const cJSON *want = in->mode == TW_MATCH_NORMALISED ? norm_of(in, i, k) : x->req.body;
            /* counting stops at the best so far: a worse exchange costs no more than it */
            size_t n = count_diffs(in, want, got, best, NULL, NULL, &st);
            if (!any || n < best) {
                any = true;
                best = n;
                bfi = i;
                bxi = k;
            }
        }
    }
    tw_buf_reset(msg);
    tw_buf_reset(nearest);
    tw_buf_reset(diffs);
    if (st != TW_OK)
        return st;
    tw_buf_puts(msg, "no fixture exchange matches this request");
    if (!any) {
        size_t pl = strcspn(in->url, "?#");
        tw_buf_printf(msg, "; no served exchange has method %s and path %.*s%s", in->method,
                      (int)(pl < 200 ? pl : 200), in->url, pl > 200 ? "…" : "");
        served_paths(in, msg);
        return TW_OK;
    }
    const tw_fx_exchange *x = &in->fx[bfi].exchanges[bxi];
    tw_buf_printf(nearest, "%s#%zu", in->fx[bfi].name, bxi);
    const cJSON *want = in->mode == TW_MATCH_NORMALISED ? norm_of(in, bfi, bxi) : x->req.body;
    tw_buf detail = {0};
    tw_buf_putc(diffs, '[');
    size_t n = count_diffs(in, want, got, SIZE_MAX, &detail, diffs, &st);
    tw_buf_putc(diffs, ']');
    tw_buf_printf(msg, "; nearest: %s, %zu difference%s", nearest->data, n, n == 1 ? "" : "s");
    if (detail.len && n > TW_MOCK_NEAREST_DIFFS)
        tw_buf_printf(msg, ", the first %d: %s", TW_MOCK_NEAREST_DIFFS, detail.data);
    else if (detail.len)
        tw_buf_printf(msg, ": %s", detail.data);
    tw_buf_free(&detail);
    return st;
}

void tw_mock_not_found_body(tw_buf *b, tw_api_kind kind, const char *msg, const char *nearest,
                            const char *diffs)
{
    tw_buf_reset(b);
    if (kind == TW_API_ANTHROPIC)
        tw_buf_puts(b, "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":");
    else if (kind == TW_API_GEMINI)
        tw_buf_puts(b, "{\"error\":{\"code\":404,\"status\":\"NOT_FOUND\",\"message\":");
    else
        tw_buf_puts(b, "{\"error\":{\"message\":");
    tw_json_write_str(b, msg, strlen(msg), 0);
    if (kind != TW_API_ANTHROPIC && kind != TW_API_GEMINI)
        tw_buf_puts(b, ",\"type\":\"not_found_error\",\"param\":null,\"code\":\"no_match\"");
    if (nearest && nearest[0]) {
        tw_buf_puts(b, ",\"nearest\":");
        tw_json_write_str(b, nearest, strlen(nearest), 0);
        tw_buf_puts(b, ",\"differences\":");
        tw_buf_puts(b, diffs && diffs[0] ? diffs : "[]");
    }
    tw_buf_puts(b, "}}");
}

size_t tw_mock_shared_bodies(const tw_fixture *fx, size_t nfx, const tw_mock_opts *o, bool *partial)
{
    const char *profile = o && o->profile ? o->profile : "replay";
    tw_match_mode mode = o ? o->match : TW_MATCH_NORMALISED;
    const char *const *ign = o ? o->ignore_keys : NULL;
    *partial = false;
    size_t total = 0;
    for (size_t i = 0; i < nfx; i++)
        total += fx[i].nexchanges;
    /* one representative per distinct request; groups[g] counts its exchanges */
    const tw_fx_exchange **rep = calloc(total + 1, sizeof *rep);
    size_t *count = calloc(total + 1, sizeof *count);
    size_t nrep = 0, shared = 0;
    unsigned long budget = 1UL << 22; /* body comparisons at most */
    for (size_t i = 0; rep && count && i < nfx && !*partial; i++) {
        if (!tw_mock_profile_fits(profile, &fx[i]))
            continue;
        for (size_t k = 0; k < fx[i].nexchanges && !*partial; k++) {
            const tw_fx_exchange *x = &fx[i].exchanges[k];
            size_t g = 0;
            for (; g < nrep; g++) {
                if (!budget--) {
                    *partial = true;
                    break;
                }
                size_t n = strcspn(rep[g]->req.path, "?#");
                if (strcmp(rep[g]->req.method, x->req.method) == 0 &&
                    strncmp(rep[g]->req.path, x->req.path, n) == 0 &&
                    strcspn(x->req.path, "?#") == n &&
                    tw_mock_body_matches(rep[g]->req.body, x->req.body, mode, ign))
                    break;
            }
            if (*partial)
                break;
            if (g == nrep)
                rep[nrep++] = x;
            if (++count[g] == 2)
                shared++;
        }
    }
    free(rep);
    free(count);
    return shared;
}
