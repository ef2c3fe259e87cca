/* The mock's index of fixture exchanges: it chooses the exchange the walk
 * over every exchange chooses, on every fixture of the repository, and it
 * compares a request with a bounded number of exchanges however many there are. */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_match.h"
#include "twtest.h"

typedef struct fx_set {
    tw_fixture *fx;
    size_t n;
    bool *served;
    size_t *base;
    cJSON **norm;
    size_t total;
} fx_set;

static void load_glob(fx_set *s, const char *pattern)
{
    glob_t g;
    if (glob(tw_test_src(pattern), 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        tw_fixture f;
        tw_error why = {.offset = -1};
        if (tw_fixture_load(g.gl_pathv[i], NULL, &f, &why) != TW_OK)
            continue; /* the schema, indexes and other JSON that is no fixture */
        s->fx = realloc(s->fx, (s->n + 1) * sizeof *s->fx);
        cr_assert(s->fx);
        s->fx[s->n++] = f;
    }
    globfree(&g);
}

static void set_tables(fx_set *s, tw_match_mode mode)
{
    s->served = calloc(s->n + 1, sizeof *s->served);
    s->base = calloc(s->n + 1, sizeof *s->base);
    cr_assert(s->served && s->base);
    s->total = 0;
    for (size_t i = 0; i < s->n; i++) {
        s->base[i] = s->total;
        s->total += s->fx[i].nexchanges;
        /* every other fixture left out under "auto" too, so that unserved ones are skipped alike */
        s->served[i] = tw_mock_profile_for("auto", &s->fx[i]) != NULL && i % 7 != 3;
    }
    s->norm = calloc(s->total + 1, sizeof *s->norm);
    cr_assert(s->norm);
    for (size_t i = 0; mode == TW_MATCH_NORMALISED && i < s->n; i++)
        for (size_t k = 0; k < s->fx[i].nexchanges; k++) {
            bool nomem = false;
            s->norm[s->base[i] + k] = tw_mock_normalise(s->fx[i].exchanges[k].req.body, &nomem);
            cr_assert(!nomem);
        }
}

static void free_tables(fx_set *s)
{
    for (size_t i = 0; s->norm && i < s->total; i++)
        cJSON_Delete(s->norm[i]);
    free(s->norm);
    free(s->served);
    free(s->base);
    s->norm = NULL;
    s->served = NULL;
    s->base = NULL;
}

static void free_set(fx_set *s)
{
    free_tables(s);
    for (size_t i = 0; i < s->n; i++)
        tw_fixture_free(&s->fx[i]);
    free(s->fx);
}

/* The request path as the server sees it: without the query. */
static void req_path(const char *p, char *out, size_t n)
{
    snprintf(out, n, "%.*s", (int)strcspn(p, "?#"), p);
}

/* Requests that tw_mock_match_one answered, and the exchange chosen last. */
static size_t one_hits;
static size_t one_last;

/* tw_mock_match_one with guess g: when it answers, it chose as the index did. */
static void same_as_one(const tw_match_in *in, size_t g, const tw_match_out *b)
{
    tw_match_out c;
    memset(&c, 0xA5, sizeof c);
    if (!tw_mock_match_one(in, g, &c))
        return;
    one_hits++;
    cr_assert(b->found, "%s %s: guess %zu taken, the index found nothing", in->method, in->url, g);
    cr_assert_eq(c.fi, b->fi, "%s %s guess %zu: fixture %zu vs %zu", in->method, in->url, g, c.fi,
                 b->fi);
    cr_assert_eq(c.xi, b->xi, "%s %s guess %zu: exchange %zu vs %zu", in->method, in->url, g, c.xi,
                 b->xi);
    cr_assert_eq(c.nbest, b->nbest, "%s %s guess %zu: nbest %zu vs %zu", in->method, in->url, g,
                 c.nbest, b->nbest);
    cr_assert_eq(c.compared, b->compared);
    cr_assert(!c.hint_elsewhere);
}

/* Match with and without the index; both must choose the same, and so must
 * tw_mock_match_one whenever it answers (guessing the chosen exchange, the
 * one chosen before, the first and the last). */
static void same_choice(const fx_set *s, const tw_match_index *ix, tw_match_mode mode,
                        const char *method, const char *url, const cJSON *body, const char *hint,
                        size_t *looked_linear, size_t *looked_indexed)
{
    bool nomem = false;
    cJSON *norm = mode == TW_MATCH_NORMALISED && !hint[0] ? tw_mock_normalise(body, &nomem) : NULL;
    cr_assert(!nomem);
    tw_match_in in = {s->fx,   s->n,   s->served, (const cJSON *const *)s->norm,
                      s->base, method, url,       body,
                      norm,    hint,   mode,      NULL,
                      NULL};
    tw_match_out a, b;
    tw_mock_match(&in, &a);
    in.index = ix;
    tw_mock_match(&in, &b);
    cr_assert_eq(a.found, b.found, "%s %s hint '%s' mode %d: found %d vs %d", method, url, hint,
                 (int)mode, a.found, b.found);
    if (a.found) {
        cr_assert_eq(a.fi, b.fi, "%s %s hint '%s' mode %d: fixture %zu vs %zu", method, url, hint,
                     (int)mode, a.fi, b.fi);
        cr_assert_eq(a.xi, b.xi, "%s %s hint '%s': exchange %zu vs %zu", method, url, hint, a.xi,
                     b.xi);
        cr_assert_eq(a.nbest, b.nbest, "%s %s hint '%s' mode %d: nbest %zu vs %zu", method, url,
                     hint, (int)mode, a.nbest, b.nbest);
    }
    cr_assert_eq(a.hint_elsewhere, b.hint_elsewhere, "hint '%s'", hint);
    if (b.found)
        same_as_one(&in, s->base[b.fi] + b.xi, &b);
    same_as_one(&in, one_last, &b);
    same_as_one(&in, 0, &b);
    same_as_one(&in, s->total - 1, &b);
    same_as_one(&in, s->total, &b);
    if (b.found)
        one_last = s->base[b.fi] + b.xi;
    *looked_linear += a.compared;
    *looked_indexed += b.compared;
    cJSON_Delete(norm);
}

/* The body with its top-level members in reverse order. */
static cJSON *reversed(const cJSON *body)
{
    if (!cJSON_IsObject(body) || !body->child)
        return cJSON_Duplicate(body, 1);
    cJSON *r = cJSON_CreateObject();
    cr_assert(r);
    size_t n = 0;
    for (const cJSON *m = body->child; m; m = m->next)
        n++;
    const cJSON **v = calloc(n, sizeof *v);
    cr_assert(v);
    n = 0;
    for (const cJSON *m = body->child; m; m = m->next)
        v[n++] = m;
    while (n--)
        cJSON_AddItemToObject(r, v[n]->string ? v[n]->string : "", cJSON_Duplicate(v[n], 1));
    free(v);
    return r;
}

Test(mock_index, chooses_as_the_walk_does_on_every_fixture)
{
    fx_set s;
    memset(&s, 0, sizeof s);
    load_glob(&s, "fixtures/*/*.json");
    load_glob(&s, "fixtures/*/*/*.json");
    cr_assert_gt(s.n, 50, "fixtures loaded: %zu", s.n);
    const tw_match_mode modes[] = {TW_MATCH_NORMALISED, TW_MATCH_EXACT, TW_MATCH_PATH};
    size_t requests = 0;
    for (size_t m = 0; m < 3; m++) {
        one_hits = 0;
        set_tables(&s, modes[m]);
        tw_match_in bi = {
            s.fx,     s.n,  s.served, (const cJSON *const *)s.norm, s.base, "", "", NULL, NULL, "",
            modes[m], NULL, NULL};
        tw_match_index *ix = NULL;
        cr_assert_eq(tw_match_index_build(&bi, &ix), TW_OK);
        size_t lin = 0, idx = 0;
        for (size_t i = 0; i < s.n; i++)
            for (size_t k = 0; k < s.fx[i].nexchanges; k++) {
                const tw_fx_exchange *x = &s.fx[i].exchanges[k];
                char url[512], hint[300];
                req_path(x->req.path, url, sizeof url);
                /* the body as recorded, with "stream" turned over, reordered, none */
                cJSON *flip = cJSON_Duplicate(x->req.body, 1);
                if (cJSON_IsObject(flip)) {
                    bool st = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(flip, "stream"));
                    cJSON_DeleteItemFromObjectCaseSensitive(flip, "stream");
                    cJSON_AddBoolToObject(flip, "stream", !st);
                }
                cJSON *rev = x->req.body ? reversed(x->req.body) : NULL;
                /* and with a "user" member first, a key the mode may ignore */
                cJSON *user = cJSON_Duplicate(x->req.body, 1);
                if (cJSON_IsObject(user)) {
                    cJSON *u = cJSON_CreateString("someone");
                    cr_assert(u);
                    cJSON_AddItemToObject(user, "user", u);
                    cJSON_DetachItemViaPointer(user, u);
                    cJSON_InsertItemInArray(user, 0, u);
                }
                const cJSON *bodies[] = {x->req.body, flip, rev, user, NULL};
                for (size_t b = 0; b < 5; b++) {
                    same_choice(&s, ix, modes[m], x->req.method, url, bodies[b], "", &lin, &idx);
                    requests++;
                }
                same_choice(&s, ix, modes[m], "GET", url, x->req.body, "", &lin, &idx);
                /* named: this exchange, one past the last, this one from another path */
                snprintf(hint, sizeof hint, "%s#%zu", s.fx[i].name, k);
                same_choice(&s, ix, modes[m], x->req.method, url, NULL, hint, &lin, &idx);
                same_choice(&s, ix, modes[m], x->req.method, "/elsewhere", NULL, hint, &lin, &idx);
                snprintf(hint, sizeof hint, "%s#%zu", s.fx[i].name, s.fx[i].nexchanges);
                same_choice(&s, ix, modes[m], x->req.method, url, NULL, hint, &lin, &idx);
                snprintf(hint, sizeof hint, "%s#0%zu", s.fx[i].name, k);
                same_choice(&s, ix, modes[m], x->req.method, url, NULL, hint, &lin, &idx);
                requests += 5;
                cJSON_Delete(flip);
                cJSON_Delete(rev);
                cJSON_Delete(user);
            }
        /* the index looks at fewer exchanges than the walk; by method and path only
         * (--match path) all of a path's exchanges are candidates */
        if (modes[m] == TW_MATCH_PATH)
            cr_assert_lt(idx, lin, "indexed %zu, walk %zu", idx, lin);
        else
            cr_assert_lt(idx * 4, lin, "mode %d: indexed %zu, walk %zu", (int)modes[m], idx, lin);
        /* the fixtures' exchanges mostly have bodies of their own: guessed right, they
         * are chosen without the index (by path alone a route's exchanges share a slot) */
        if (modes[m] != TW_MATCH_PATH)
            cr_assert_gt(one_hits, s.total, "mode %d: guesses taken %zu", (int)modes[m], one_hits);
        tw_match_index_free(ix);
        free_tables(&s);
    }
    cr_assert_gt(requests, 1000);
    free_set(&s);
}

#define EXCHANGE                                                                                   \
    "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/"                                       \
    "completions\",\"body\":{\"model\":\"m\","                                                     \
    "\"messages\":[{\"role\":\"user\",\"content\":\"question "                                     \
    "%zu\"}]%s}},\"response\":{\"status\":"                                                        \
    "200,\"body\":{\"id\":\"c%zu\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","  \
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"answer\"},"       \
    "\"finish_reason\":\"stop\"}]}}}"

/* One fixture of n exchanges with distinct bodies; every fifth repeats a top-level key. */
static void many(size_t n, size_t dup_every, tw_fixture *f)
{
    tw_buf b = {0};
    tw_buf_puts(&b, "{\"fixture_version\":1,\"name\":\"many\",\"description\":\"d\",\"backend\":"
                    "\"openai\",\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":[");
    for (size_t i = 0; i < n; i++)
        tw_buf_printf(&b, EXCHANGE "%s", i,
                      dup_every && i % dup_every == 1 ? ",\"model\":\"again\"" : "", i,
                      i + 1 < n ? "," : "");
    tw_buf_puts(&b, "]}");
    tw_error why = {.offset = -1};
    tw_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.max_input_bytes = (size_t)64 << 20;
    lim.max_messages = 20000; /* the exchanges of a fixture are capped by it */
    cr_assert_eq(tw_fixture_parse(b.data, b.len, "many.json", &lim, f, &why), TW_OK, "%s",
                 why.message);
    tw_buf_free(&b);
}

Test(mock_index, looks_at_one_exchange_per_request_among_ten_thousand)
{
    fx_set s;
    memset(&s, 0, sizeof s);
    s.fx = calloc(1, sizeof *s.fx);
    s.n = 1;
    many(10000, 0, &s.fx[0]);
    set_tables(&s, TW_MATCH_NORMALISED);
    s.served[0] = true;
    tw_match_in bi = {s.fx, 1,    s.served, (const cJSON *const *)s.norm, s.base, "",  "",
                      NULL, NULL, "",       TW_MATCH_NORMALISED,          NULL,   NULL};
    tw_match_index *ix = NULL;
    cr_assert_eq(tw_match_index_build(&bi, &ix), TW_OK);
    size_t looked = 0;
    for (size_t k = 0; k < s.fx[0].nexchanges; k++) {
        const tw_fx_exchange *x = &s.fx[0].exchanges[k];
        char hint[64];
        snprintf(hint, sizeof hint, "many#%zu", k);
        for (int named = 0; named < 2; named++) {
            bool nomem = false;
            cJSON *norm = named ? NULL : tw_mock_normalise(x->req.body, &nomem);
            tw_match_in in = {s.fx,
                              1,
                              s.served,
                              (const cJSON *const *)s.norm,
                              s.base,
                              "POST",
                              "/v1/chat/completions",
                              x->req.body,
                              norm,
                              named ? hint : "",
                              TW_MATCH_NORMALISED,
                              NULL,
                              ix};
            tw_match_out o;
            tw_mock_match(&in, &o);
            cr_assert(o.found && o.xi == k, "exchange %zu: found %d at %zu", k, o.found, o.xi);
            cr_assert_eq(o.compared, 1, "exchange %zu: %zu compared", k, o.compared);
            looked += o.compared;
            cJSON_Delete(norm);
        }
    }
    cr_assert_eq(looked, 20000);
    /* the walk, for one request, looks at all of them */
    tw_match_in in = {s.fx,
                      1,
                      s.served,
                      (const cJSON *const *)s.norm,
                      s.base,
                      "POST",
                      "/v1/chat/completions",
                      s.fx[0].exchanges[9999].req.body,
                      s.norm[9999],
                      "",
                      TW_MATCH_NORMALISED,
                      NULL,
                      NULL};
    tw_match_out o;
    tw_mock_match(&in, &o);
    cr_assert(o.found && o.xi == 9999);
    cr_assert_eq(o.compared, 10000);
    tw_match_index_free(ix);
    free_set(&s);
}

Test(mock_index, bodies_that_repeat_a_key_are_compared_with_every_request)
{
    fx_set s;
    memset(&s, 0, sizeof s);
    s.fx = calloc(1, sizeof *s.fx);
    s.n = 1;
    many(200, 5, &s.fx[0]);
    set_tables(&s, TW_MATCH_NORMALISED);
    s.served[0] = true;
    tw_match_in bi = {s.fx, 1,    s.served, (const cJSON *const *)s.norm, s.base, "",  "",
                      NULL, NULL, "",       TW_MATCH_NORMALISED,          NULL,   NULL};
    tw_match_index *ix = NULL;
    cr_assert_eq(tw_match_index_build(&bi, &ix), TW_OK);
    size_t lin = 0, idx = 0;
    for (size_t k = 0; k < s.fx[0].nexchanges; k++) {
        const cJSON *b = s.fx[0].exchanges[k].req.body;
        same_choice(&s, ix, TW_MATCH_NORMALISED, "POST", "/v1/chat/completions", b, "", &lin, &idx);
    }
    /* 40 of the 200 repeat a key: those 40 are looked at for each request besides its
     * own, and a request that repeats a key is compared with all 200 */
    cr_assert_eq(idx, 40 * 200 + 160 * 41, "looked at %zu", idx);
    /* with exchanges compared always no guess is taken: another may match too */
    tw_match_in in = bi;
    in.method = "POST";
    in.url = "/v1/chat/completions";
    in.index = ix;
    for (size_t k = 0; k < s.fx[0].nexchanges; k++) {
        tw_match_out o;
        in.body = s.fx[0].exchanges[k].req.body;
        cr_assert(!tw_mock_match_one(&in, k, &o), "guess %zu taken", k);
    }
    cr_assert_eq(lin, 200 * 200);
    tw_match_index_free(ix);
    free_set(&s);
}

/* The kept choices: found by the same bytes only; a body of a length no entry
 * has is not hashed (its key 0), one of an entry's length is. */
Test(mock_index, kept_choices_by_bytes_and_length)
{
    tw_match_memo *mm = tw_match_memo_new(4, 1 << 20);
    cr_assert(mm);
    const char *b1 = "{\"model\":\"m\",\"messages\":[]}";
    const char *b2 = "{\"model\":\"n\",\"messages\":[]}"; /* b1's length */
    const char *b3 = "{\"model\":\"mm\",\"messages\":[]}";
    tw_match_out o, got;
    memset(&o, 0, sizeof o);
    o.found = true;
    o.fi = 1;
    o.xi = 2;
    o.nbest = 3;
    uint64_t key = 1;
    const cJSON *tree = NULL;
    cr_assert(!tw_match_memo_get(mm, NULL, "POST", "/v1/x", b1, strlen(b1), &key, &got, &tree));
    cr_assert_eq(key, 0, "nothing kept: not hashed");
    cr_assert(tw_match_memo_claim(mm, 2));
    cr_assert(!tw_match_memo_claim(mm, 2));
    tw_match_memo_put(mm, key, "POST", "/v1/x", b1, strlen(b1), &o, cJSON_Parse(b1));
    cr_assert(tw_match_memo_get(mm, NULL, "POST", "/v1/x", b1, strlen(b1), &key, &got, &tree));
    cr_assert_eq(key, tw_match_memo_key("POST", "/v1/x", b1, strlen(b1)));
    cr_assert(got.found && got.fi == 1 && got.xi == 2 && got.nbest == 3);
    cr_assert(tree && cJSON_IsObject(tree));
    cr_assert(!tw_match_memo_get(mm, NULL, "POST", "/v1/x", b2, strlen(b2), &key, &got, &tree));
    cr_assert_eq(key, tw_match_memo_key("POST", "/v1/x", b2, strlen(b2)), "b1's length: hashed");
    cr_assert(!tw_match_memo_get(mm, NULL, "POST", "/v1/y", b1, strlen(b1), &key, &got, &tree));
    cr_assert(!tw_match_memo_get(mm, NULL, "POST", "/v1/x", b3, strlen(b3), &key, &got, &tree));
    cr_assert_eq(key, 0, "a length no entry has: not hashed");
    /* found through the caller's last entry, without a key */
    const void *last = NULL;
    cr_assert(tw_match_memo_get(mm, &last, "POST", "/v1/x", b1, strlen(b1), &key, &got, &tree));
    cr_assert(last);
    cr_assert(tw_match_memo_get(mm, &last, "POST", "/v1/x", b1, strlen(b1), &key, &got, &tree));
    tw_match_memo_free(mm);
}
