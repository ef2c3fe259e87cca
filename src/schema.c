/* The JSON-Schema subset used to validate tool arguments. */
#include "toolwire/schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef struct sctx {
    tw_error *err;
    size_t max_depth;
    char path[256];
} sctx;

static bool fail(sctx *c, const char *fmt, const char *a)
{
    if (c->err) {
        char rule[160];
        snprintf(rule, sizeof rule, fmt, a ? a : "");
        tw_error_set(c->err, TW_D_ARGS_SCHEMA, -1, NULL, "%s: %s", c->path[0] ? c->path : "/",
                     rule);
        snprintf(c->err->path, sizeof c->err->path, "%.159s", c->path);
    }
    return false;
}

static bool type_is(const char *t, const cJSON *v)
{
    if (strcasecmp(t, "string") == 0)
        return cJSON_IsString(v);
    if (strcasecmp(t, "number") == 0)
        return cJSON_IsNumber(v);
    if (strcasecmp(t, "integer") == 0) {
        /* by the spelled value when there is one: 1e400 is an integer,
         * 1.0000000000000000001 is not */
        const char *sp = tw_json_spelling(v);
        if (sp)
            return tw_json_number_is_integer(sp, strlen(sp));
        return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
               v->valuedouble == floor(v->valuedouble);
    }
    if (strcasecmp(t, "boolean") == 0)
        return cJSON_IsBool(v);
    if (strcasecmp(t, "object") == 0)
        return cJSON_IsObject(v);
    if (strcasecmp(t, "array") == 0)
        return cJSON_IsArray(v);
    if (strcasecmp(t, "null") == 0)
        return cJSON_IsNull(v);
    return true; /* unknown type names constrain nothing */
}

static bool validate(sctx *c, const cJSON *s, const cJSON *v, size_t depth)
{
    if (!cJSON_IsObject(s))
        return true;
    if (depth > c->max_depth)
        return fail(c, "schema nested deeper than max_depth%s", NULL);
    const cJSON *type = tw_json_get(s, "type");
    if (cJSON_IsString(type)) {
        if (!type_is(type->valuestring, v))
            return fail(c, "expected type %s", type->valuestring);
    } else if (cJSON_IsArray(type)) {
        bool ok = false;
        for (const cJSON *t = type->child; t && !ok; t = t->next)
            ok = cJSON_IsString(t) && type_is(t->valuestring, v);
        if (!ok && type->child)
            return fail(c, "value matches none of the listed types%s", NULL);
    }
    const cJSON *en = tw_json_get(s, "enum");
    if (cJSON_IsArray(en)) {
        bool ok = false;
        for (const cJSON *e = en->child; e && !ok; e = e->next)
            ok = tw_json_equal(e, v);
        if (!ok)
            return fail(c, "value not in enum%s", NULL);
    }
    size_t plen = strlen(c->path);
    if (cJSON_IsObject(v)) {
        const cJSON *req = tw_json_get(s, "required");
        if (cJSON_IsArray(req))
            for (const cJSON *r = req->child; r; r = r->next)
                if (cJSON_IsString(r) && !tw_json_get(v, r->valuestring))
                    return fail(c, "missing required property '%s'", r->valuestring);
        const cJSON *props = tw_json_get(s, "properties");
        const cJSON *addl = tw_json_get(s, "additionalProperties");
        for (const cJSON *m = v->child; m; m = m->next) {
            const cJSON *ps = cJSON_IsObject(props) ? tw_json_get(props, m->string) : NULL;
            if (!ps) {
                if (cJSON_IsFalse(addl))
                    return fail(c, "property '%s' not allowed", m->string);
                if (cJSON_IsObject(addl))
                    ps = addl;
                else
                    continue;
            }
            snprintf(c->path + plen, sizeof c->path - plen, "/%s", m->string ? m->string : "");
            bool ok = validate(c, ps, m, depth + 1);
            c->path[plen] = '\0';
            if (!ok)
                return false;
        }
    }
    if (cJSON_IsArray(v)) {
        const cJSON *items = tw_json_get(s, "items");
        if (cJSON_IsObject(items)) {
            size_t i = 0;
            for (const cJSON *e = v->child; e; e = e->next, i++) {
                snprintf(c->path + plen, sizeof c->path - plen, "/%zu", i);
                bool ok = validate(c, items, e, depth + 1);
                c->path[plen] = '\0';
                if (!ok)
                    return false;
            }
        }
    }
    return true;
}

bool tw_schema_validate(const cJSON *schema, const cJSON *value, size_t max_depth, tw_error *err)
{
    sctx c = {err, max_depth ? max_depth : 64, ""};
    return validate(&c, schema, value, 0);
}
