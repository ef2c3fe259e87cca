/* The scripted reference model (script.h): arguments generated from a tool's
 * schema (tw_script_schema_args), the values a scripted call sends when the
 * script gives none. */
#include "script.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/schema.h"

typedef struct gen {
    const tw_limits *L;
    size_t budget; /* bytes the arguments may still take (max_args_bytes) */
    char path[200];
    tw_error *err;
} gen;

static tw_status gen_fail(gen *g, tw_status st, const char *rule)
{
    tw_error_set(g->err, st, -1, NULL, "%s: %s", g->path[0] ? g->path : "/", rule);
    return st;
}

static bool spend(gen *g, size_t n)
{
    if (n > g->budget)
        return false;
    g->budget -= n;
    return true;
}

static const char *pick_type(const cJSON *s)
{
    const cJSON *t = tw_json_get(s, "type");
    if (cJSON_IsString(t))
        return t->valuestring;
    if (cJSON_IsArray(t)) {
        const char *first = NULL;
        for (const cJSON *e = t->child; e; e = e->next)
            if (cJSON_IsString(e)) {
                if (strcmp(e->valuestring, "null") != 0)
                    return e->valuestring;
                if (!first)
                    first = e->valuestring;
            }
        if (first)
            return first;
    }
    if (tw_json_get(s, "properties") || tw_json_get(s, "required"))
        return "object";
    if (tw_json_get(s, "items"))
        return "array";
    return "string";
}

static bool num_of(const cJSON *s, const char *k, double *v)
{
    const cJSON *x = tw_json_get(s, k);
    if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
        return false;
    *v = x->valuedouble;
    return true;
}

/* A number within the schema's bounds: 0 moved into [lo, hi], on multipleOf. */
static tw_status gen_number(gen *g, const cJSON *s, bool integer, cJSON **out)
{
    double lo = -INFINITY, hi = INFINITY, e;
    bool lo_ex = false, hi_ex = false;
    if (num_of(s, "minimum", &e))
        lo = e;
    if (num_of(s, "maximum", &e))
        hi = e;
    /* draft 6+: exclusive bounds are numbers; draft 4: booleans on minimum/maximum */
    if (num_of(s, "exclusiveMinimum", &e) && e >= lo) {
        lo = e;
        lo_ex = true;
    } else if (cJSON_IsTrue(tw_json_get(s, "exclusiveMinimum"))) {
        lo_ex = isfinite(lo);
    }
    if (num_of(s, "exclusiveMaximum", &e) && e <= hi) {
        hi = e;
        hi_ex = true;
    } else if (cJSON_IsTrue(tw_json_get(s, "exclusiveMaximum"))) {
        hi_ex = isfinite(hi);
    }
    double step = 0;
    if (num_of(s, "multipleOf", &e) && e > 0)
        step = e;
    else if (integer)
        step = 1;
    double v = 0;
    if (v < lo || (lo_ex && v <= lo))
        v = lo;
    if (v > hi || (hi_ex && v >= hi))
        v = hi;
    if (step > 0) {
        double k = ceil(v / step);
        v = k * step;
        if ((lo_ex && v <= lo) || v < lo)
            v += step;
        if ((hi_ex && v >= hi) || v > hi) {
            v = floor(hi / step) * step;
            if (hi_ex && v >= hi)
                v -= step;
        }
    } else if ((lo_ex && v <= lo) || (hi_ex && v >= hi)) {
        /* a number strictly inside the open bound(s) */
        v = isfinite(lo) && isfinite(hi) ? lo + (hi - lo) / 2 : isfinite(lo) ? lo + 1 : hi - 1;
    }
    if (!isfinite(v) || fabs(v) > 9007199254740992.0 || v < lo || v > hi || (lo_ex && v <= lo) ||
        (hi_ex && v >= hi))
        return gen_fail(g, TW_ERR_INVALID,
                        integer ? "no integer satisfies the bounds"
                                : "no number satisfies the bounds");
    if (v == 0)
        v = 0; /* no negative zero */
    if (!spend(g, 24))
        return gen_fail(g, TW_ERR_LIMIT, "the arguments grow past max_args_bytes");
    *out = cJSON_CreateNumber(v);
    return *out ? TW_OK : TW_ERR_NOMEM;
}

static tw_status gen_string(gen *g, const cJSON *s, cJSON **out)
{
    static const struct {
        const char *format, *value;
    } formats[] = {{"date-time", "2024-01-01T00:00:00Z"},
                   {"date", "2024-01-01"},
                   {"time", "00:00:00Z"},
                   {"email", "user@example.com"},
                   {"uri", "https://example.com/"},
                   {"url", "https://example.com/"},
                   {"uuid", "00000000-0000-4000-8000-000000000000"},
                   {"ipv4", "192.0.2.1"},
                   {"hostname", "example.com"}};
    const char *base = "example";
    const char *f = tw_json_get_str(s, "format");
    for (size_t i = 0; f && i < sizeof formats / sizeof *formats; i++)
        if (strcmp(f, formats[i].format) == 0)
            base = formats[i].value;
    size_t len = strlen(base);
    int64_t mn = tw_json_int(tw_json_get(s, "minLength"), 0, INT64_MAX, 0);
    int64_t mx = tw_json_int(tw_json_get(s, "maxLength"), 0, INT64_MAX, INT64_MAX);
    if (mn > mx)
        return gen_fail(g, TW_ERR_INVALID, "minLength is above maxLength");
    if ((uint64_t)mn > g->budget || !spend(g, (size_t)mn > len ? (size_t)mn + 2 : len + 2))
        return gen_fail(g, TW_ERR_LIMIT, "minLength asks for more than max_args_bytes");
    size_t want = len;
    if ((uint64_t)want > (uint64_t)mx)
        want = (size_t)mx;
    if ((uint64_t)want < (uint64_t)mn)
        want = (size_t)mn;
    char *v = malloc(want + 1);
    if (!v)
        return TW_ERR_NOMEM;
    for (size_t i = 0; i < want; i++)
        v[i] = i < len ? base[i] : 'x';
    v[want] = 0;
    *out = cJSON_CreateString(v);
    free(v);
    return *out ? TW_OK : TW_ERR_NOMEM;
}

static tw_status gen_value(gen *g, const cJSON *s, size_t depth, cJSON **out);

/* Descend into a sub-schema under path + suffix. */
static tw_status gen_sub(gen *g, const cJSON *s, size_t depth, const char *suffix, cJSON **out)
{
    size_t keep = strlen(g->path);
    snprintf(g->path + keep, sizeof g->path - keep, "%s", suffix);
    tw_status st = gen_value(g, s, depth + 1, out);
    if (st == TW_OK)
        g->path[keep] = 0;
    return st;
}

/* A required name or a property, for lookups by name in O(log n). */
typedef struct named {
    const char *name;
    const cJSON *node;
    size_t pos;
} named;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int by_pos(const void *a, const void *b)
{
    const named *x = a, *y = b;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The schema of property `name`: the first "properties" member so named. */
static const cJSON *prop_schema(const named *props, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(props[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strcmp(props[lo].name, name) == 0 ? props[lo].node : NULL;
}

/* The required properties, each once, in the order "required" lists them;
 * names are sorted once, so a long list costs O(n log n), never n². */
static tw_status gen_object(gen *g, const cJSON *s, size_t depth, cJSON **out)
{
    if (!spend(g, 2))
        return gen_fail(g, TW_ERR_LIMIT, "the arguments grow past max_args_bytes");
    const cJSON *props = tw_json_get(s, "properties");
    const cJSON *req = tw_json_get(s, "required");
    const cJSON *addl = tw_json_get(s, "additionalProperties");
    size_t nr = 0, np = 0;
    for (const cJSON *r = cJSON_IsArray(req) ? req->child : NULL; r; r = r->next)
        nr += cJSON_IsString(r);
    for (const cJSON *p = cJSON_IsObject(props) ? props->child : NULL; p; p = p->next)
        np++;
    named *rq = calloc(nr + 1, sizeof *rq);
    named *pr = calloc(np + 1, sizeof *pr);
    cJSON *o = cJSON_CreateObject();
    tw_status st = rq && pr && o ? TW_OK : TW_ERR_NOMEM;
    size_t k = 0;
    for (const cJSON *r = st == TW_OK && cJSON_IsArray(req) ? req->child : NULL; r; r = r->next)
        if (cJSON_IsString(r)) {
            rq[k] = (named){r->valuestring, NULL, k};
            k++;
        }
    k = 0;
    for (const cJSON *p = st == TW_OK && cJSON_IsObject(props) ? props->child : NULL; p;
         p = p->next) {
        pr[k] = (named){p->string, p, k};
        k++;
    }
    if (st == TW_OK) {
        qsort(rq, nr, sizeof *rq, by_name);
        qsort(pr, np, sizeof *pr, by_name);
        size_t kept = 0;
        for (size_t i = 0; i < nr; i++)
            if (i == 0 || strcmp(rq[i].name, rq[i - 1].name) != 0) {
                rq[kept] = rq[i];
                rq[kept].node = prop_schema(pr, np, rq[i].name);
                if (!rq[kept].node && cJSON_IsObject(addl))
                    rq[kept].node = addl; /* a required name the properties do not list */
                kept++;
            }
        nr = kept;
        qsort(rq, nr, sizeof *rq, by_pos);
    }
    for (size_t i = 0; st == TW_OK && i < nr; i++) {
        char suffix[80];
        snprintf(suffix, sizeof suffix, "/%.70s", rq[i].name);
        cJSON *v = NULL;
        st = !spend(g, strlen(rq[i].name) + 4)
                 ? gen_fail(g, TW_ERR_LIMIT, "the arguments grow past max_args_bytes")
                 : gen_sub(g, rq[i].node, depth, suffix, &v);
        if (st == TW_OK && !cJSON_AddItemToObject(o, rq[i].name, v)) {
            cJSON_Delete(v);
            st = TW_ERR_NOMEM;
        }
    }
    free(rq);
    free(pr);
    if (st != TW_OK) {
        cJSON_Delete(o);
        return st;
    }
    *out = o;
    return TW_OK;
}

static tw_status gen_array(gen *g, const cJSON *s, size_t depth, cJSON **out)
{
    int64_t mn = tw_json_int(tw_json_get(s, "minItems"), 0, INT64_MAX, 0);
    int64_t mx = tw_json_int(tw_json_get(s, "maxItems"), 0, INT64_MAX, INT64_MAX);
    if (mn > mx)
        return gen_fail(g, TW_ERR_INVALID, "minItems is above maxItems");
    int64_t n = mn > 1 ? mn : 1;
    if (n > mx)
        n = mx;
    if ((uint64_t)n > g->budget / 2 || !spend(g, 2))
        return gen_fail(g, TW_ERR_LIMIT, "minItems asks for more than max_args_bytes");
    const cJSON *items = tw_json_get(s, "items");
    cJSON *a = cJSON_CreateArray();
    if (!a)
        return TW_ERR_NOMEM;
    const cJSON *tuple = cJSON_IsArray(items) ? items->child : NULL; /* one schema per position */
    for (int64_t i = 0; i < n; i++) {
        const cJSON *is = cJSON_IsArray(items) ? tuple : items;
        if (tuple)
            tuple = tuple->next;
        char suffix[32];
        snprintf(suffix, sizeof suffix, "/%lld", (long long)i);
        cJSON *v = NULL;
        tw_status st = !spend(g, 1)
                           ? gen_fail(g, TW_ERR_LIMIT, "the arguments grow past max_args_bytes")
                           : gen_sub(g, is, depth, suffix, &v);
        if (st == TW_OK && !cJSON_AddItemToArray(a, v)) {
            cJSON_Delete(v);
            st = TW_ERR_NOMEM;
        }
        if (st != TW_OK) {
            cJSON_Delete(a);
            return st;
        }
    }
    *out = a;
    return TW_OK;
}

static tw_status gen_value(gen *g, const cJSON *s, size_t depth, cJSON **out)
{
    *out = NULL;
    if (depth > g->L->max_depth)
        return gen_fail(g, TW_ERR_LIMIT, "the schema nests deeper than max_depth");
    if (!cJSON_IsObject(s))
        s = NULL; /* no constraint: a string */
    const cJSON *c = tw_json_get(s, "const");
    const cJSON *en = tw_json_get(s, "enum");
    if (!c && cJSON_IsArray(en) && en->child)
        c = en->child;
    if (c) {
        if (!spend(g, tw_json_size(c, g->budget + 1)))
            return gen_fail(g, TW_ERR_LIMIT, "the arguments grow past max_args_bytes");
        *out = cJSON_Duplicate(c, 1);
        return *out ? TW_OK : TW_ERR_NOMEM;
    }
    static const char *const firsts[] = {"anyOf", "oneOf", "allOf"};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *alt = tw_json_get(s, firsts[i]);
        if (cJSON_IsArray(alt) && alt->child && !tw_json_get(s, "type"))
            return gen_value(g, alt->child, depth + 1, out);
    }
    const char *t = s ? pick_type(s) : "string";
    if (strcmp(t, "object") == 0)
        return gen_object(g, s, depth, out);
    if (strcmp(t, "array") == 0)
        return gen_array(g, s, depth, out);
    if (strcmp(t, "integer") == 0 || strcmp(t, "number") == 0)
        return gen_number(g, s, t[0] == 'i', out);
    if (!spend(g, 5))
        return gen_fail(g, TW_ERR_LIMIT, "the arguments grow past max_args_bytes");
    if (strcmp(t, "boolean") == 0)
        *out = cJSON_CreateTrue();
    else if (strcmp(t, "null") == 0)
        *out = cJSON_CreateNull();
    else
        return gen_string(g, s, out);
    return *out ? TW_OK : TW_ERR_NOMEM;
}

tw_status tw_script_schema_args(const cJSON *schema, const tw_limits *lim, cJSON **out,
                                tw_error *err)
{
    tw_limits L;
    tw_limits_resolve(&L, lim);
    *out = NULL;
    gen g;
    memset(&g, 0, sizeof g);
    g.L = &L;
    g.budget = L.max_args_bytes;
    g.err = err;
    cJSON *v = NULL;
    tw_status st;
    if (!cJSON_IsObject(schema)) {
        v = cJSON_CreateObject();
        st = v ? TW_OK : TW_ERR_NOMEM;
    } else {
        st = gen_value(&g, schema, 0, &v);
    }
    if (st != TW_OK)
        return st;
    if (!cJSON_IsObject(v)) {
        cJSON_Delete(v);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "/: the schema does not describe an object");
        return TW_ERR_INVALID;
    }
    tw_error ve;
    if (!tw_schema_validate(schema, v, L.max_depth, &ve)) {
        cJSON_Delete(v);
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "no generated value satisfies the schema: %s",
                     ve.message);
        return TW_ERR_INVALID;
    }
    *out = v;
    return TW_OK;
}
