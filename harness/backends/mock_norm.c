/*
 * The normalised form of a request body (mock_match.h: tw_mock_normalise):
 * what SDKs add taken away, the rest shared with the body.
 */
#include "mock_match.h"

#include <stdlib.h>
#include <string.h>

/* ---- the normalised copy, sharing what it does not change ---- */

/* m's value shared with the body (a scalar copied), without its key. */
static cJSON *share_of(const cJSON *m)
{
    if (cJSON_IsObject(m))
        return cJSON_CreateObjectReference(m->child);
    if (cJSON_IsArray(m))
        return cJSON_CreateArrayReference(m->child);
    return cJSON_Duplicate(m, 0);
}

/* Append v to container c under m's key (the body's: not copied, not freed
 * with the copy); false, v freed, when v is NULL. */
static bool put_member(cJSON *c, cJSON *v, const cJSON *m)
{
    if (!v)
        return false;
    if (v->string && !(v->type & cJSON_StringIsConst))
        cJSON_free(v->string);
    v->string = m->string;
    if (m->string)
        v->type |= cJSON_StringIsConst;
    else
        v->type &= ~cJSON_StringIsConst;
    if (!c->child) {
        c->child = v;
        v->prev = v;
    } else {
        v->prev = c->child->prev;
        c->child->prev->next = v;
        c->child->prev = v;
    }
    return true;
}

/* What becomes of member m of container s: dropped, replaced by *r (new),
 * or kept as it is (*r NULL). False when out of memory. */
typedef bool (*cow_rule)(const cJSON *s, const cJSON *m, bool *drop, cJSON **r);

/*
 * Container s with `rule` applied to each member: *out is NULL when nothing
 * changes, else a new container whose unchanged members share the body's
 * values. One pass: the new container is started at the first change. False
 * when out of memory (*out NULL).
 */
static bool cow_rebuild(const cJSON *s, cow_rule rule, cJSON **out)
{
    *out = NULL;
    if (!cJSON_IsObject(s) && !cJSON_IsArray(s))
        return true;
    cJSON *c = NULL;
    for (const cJSON *m = s->child; m; m = m->next) {
        bool drop = false;
        cJSON *r = NULL;
        if (!rule(s, m, &drop, &r))
            goto fail;
        if ((drop || r) && !c) {
            c = cJSON_IsArray(s) ? cJSON_CreateArray() : cJSON_CreateObject();
            for (const cJSON *p = s->child; c && p != m; p = p->next)
                if (!put_member(c, share_of(p), p)) {
                    cJSON_Delete(c);
                    c = NULL;
                }
            if (!c) {
                cJSON_Delete(r);
                goto fail;
            }
        }
        if (c && !drop && !put_member(c, r ? r : share_of(m), m))
            goto fail;
        if (drop)
            cJSON_Delete(r);
    }
    *out = c;
    return true;
fail:
    cJSON_Delete(c);
    return false;
}

static bool schema_rule(const cJSON *s, const cJSON *m, bool *drop, cJSON **r);

/*
 * A JSON Schema (or an array of them) without its decorations: "$schema" wherever a
 * keyword may stand, "additionalProperties": false beside "properties". The
 * member names of "properties" and its kin are property names, not keywords,
 * and the values of "enum", "const", "default" and "examples" are data: both
 * are kept as they are.
 */
static bool strip_cow(const cJSON *s, cJSON **out)
{
    return cow_rebuild(s, schema_rule, out);
}

/* Each member of a "properties"-like object is a schema. */
static bool each_schema_rule(const cJSON *s, const cJSON *m, bool *drop, cJSON **r)
{
    (void)s;
    (void)drop;
    return strip_cow(m, r);
}

/* What a member's key is in a schema: its first byte picks the one or two
 * names it can be, so a key costs one or two compares, not eleven. */
typedef enum schema_key { SK_OTHER, SK_SCHEMA, SK_ADDITIONAL, SK_DATA, SK_SCHEMAS } schema_key;

static schema_key schema_key_of(const char *k)
{
    if (!k)
        return SK_OTHER;
    switch (k[0]) {
    case '$':
        return strcmp(k, "$schema") == 0 ? SK_SCHEMA
               : strcmp(k, "$defs") == 0 ? SK_SCHEMAS
                                         : SK_OTHER;
    case 'a': return strcmp(k, "additionalProperties") == 0 ? SK_ADDITIONAL : SK_OTHER;
    case 'c': return strcmp(k, "const") == 0 ? SK_DATA : SK_OTHER;
    case 'e': return strcmp(k, "enum") == 0 || strcmp(k, "examples") == 0 ? SK_DATA : SK_OTHER;
    case 'd':
        return strcmp(k, "default") == 0                                             ? SK_DATA
               : strcmp(k, "definitions") == 0 || strcmp(k, "dependentSchemas") == 0 ? SK_SCHEMAS
                                                                                     : SK_OTHER;
    case 'p':
        return strcmp(k, "properties") == 0 || strcmp(k, "patternProperties") == 0 ? SK_SCHEMAS
                                                                                   : SK_OTHER;
    default: return SK_OTHER;
    }
}

static bool schema_rule(const cJSON *s, const cJSON *m, bool *drop, cJSON **r)
{
    if (cJSON_IsArray(s))
        return strip_cow(m, r);
    schema_key k = schema_key_of(m->string);
    if (k == SK_SCHEMA ||
        (k == SK_ADDITIONAL && cJSON_IsFalse(m) && cJSON_IsObject(tw_json_get(s, "properties")))) {
        *drop = true;
        return true;
    }
    if (k == SK_DATA)
        return true;
    if (k == SK_SCHEMAS && cJSON_IsObject(m))
        return cow_rebuild(m, each_schema_rule, r);
    return strip_cow(m, r);
}

/* A chat tool's "function": "strict": false dropped, its parameters stripped. */
static bool key_is(const cJSON *m, const char *k)
{
    return m->string && m->string[0] == k[0] && strcmp(m->string, k) == 0;
}

/* (A member is looked up in its container only when its own key is the one
 * looked for: the first member of that key is the one that counts.) */
static bool function_rule(const cJSON *s, const cJSON *m, bool *drop, cJSON **r)
{
    if (key_is(m, "strict") && cJSON_IsFalse(m) && m == tw_json_get(s, "strict")) {
        *drop = true;
        return true;
    }
    return key_is(m, "parameters") && m == tw_json_get(s, "parameters") ? strip_cow(m, r) : true;
}

/* A tool: its function as above, its input_schema stripped; a Responses
 * function tool (flat, no "function") as a function is. */
static bool tool_rule(const cJSON *s, const cJSON *m, bool *drop, cJSON **r)
{
    const cJSON *fn = tw_json_get(s, "function");
    if (fn && m == fn)
        return cow_rebuild(m, function_rule, r);
    if (key_is(m, "input_schema") && m == tw_json_get(s, "input_schema"))
        return strip_cow(m, r);
    if (!fn)
        return function_rule(s, m, drop, r);
    return true;
}

static bool tools_rule(const cJSON *s, const cJSON *m, bool *drop, cJSON **r)
{
    (void)s;
    (void)drop;
    return cJSON_IsObject(m) ? cow_rebuild(m, tool_rule, r) : true;
}

/* Gemini's generationConfig: its sampling options (the counterparts of the
 * top-level generation options left out of OpenAI bodies) dropped. */
static bool generation_rule(const cJSON *s, const cJSON *m, bool *drop, cJSON **r)
{
    static const char *const sampling[] = {"temperature",
                                           "topP",
                                           "topK",
                                           "candidateCount",
                                           "maxOutputTokens",
                                           "seed",
                                           "presencePenalty",
                                           "frequencyPenalty",
                                           NULL};
    (void)s;
    (void)r;
    for (size_t i = 0; m->string && sampling[i]; i++)
        if (key_is(m, sampling[i]))
            *drop = true;
    return true;
}

cJSON *tw_mock_normalise(const cJSON *body, bool *nomem)
{
    *nomem = false;
    if (!body)
        return NULL;
    if (!cJSON_IsObject(body)) {
        cJSON *d = cJSON_Duplicate(body, 1);
        *nomem = d == NULL;
        return d;
    }
    /* only "tools" and "input" are changed below the top level: "tools" is
     * rebuilt where it changes (its other values, like every other member,
     * shared with the body: not copied, not freed with the copy), "input"
     * copied */
    const cJSON *tools_in = tw_json_get(body, "tools");
    /* the copy's first "tools" is tools_in rebuilt, an array of as many
     * tools; its first "tool_choice" and "parallel_tool_calls" are the
     * body's, left out of the copy when they go */
    bool has_tools = cJSON_IsArray(tools_in) && tools_in->child;
    const cJSON *tc = tw_json_get(body, "tool_choice");
    const char *tcs = cJSON_IsString(tc) ? tc->valuestring : NULL;
    if (cJSON_IsObject(tc) && cJSON_GetArraySize(tc) == 1)
        tcs = tw_json_get_str(tc, "type");
    const cJSON *drop_tc = has_tools && tcs && strcmp(tcs, "auto") == 0 ? tc : NULL;
    const cJSON *ptc = tw_json_get(body, "parallel_tool_calls");
    const cJSON *drop_ptc = cJSON_IsTrue(ptc) ? ptc : NULL;
    const cJSON *gen = tw_json_get(body, "generationConfig");
    cJSON *c = cJSON_CreateObject();
    for (const cJSON *m = body->child; c && m; m = m->next) {
        if (m == drop_tc || m == drop_ptc)
            continue;
        cJSON *v = NULL;
        bool ok = true;
        if (m == tools_in && cJSON_IsArray(m))
            ok = cow_rebuild(m, tools_rule, &v);
        else if (key_is(m, "tools") || key_is(m, "input"))
            v = cJSON_Duplicate(m, 1);
        else if (m == gen && cJSON_IsObject(m)) {
            /* left out when nothing else is in it (the @google/genai SDK
             * sends "generationConfig": {} with every request) */
            ok = cow_rebuild(m, generation_rule, &v);
            if (ok && (v ? !v->child : !m->child)) {
                cJSON_Delete(v);
                continue;
            }
        }
        if (!ok || !put_member(c, v ? v : share_of(m), m)) {
            cJSON_Delete(c);
            c = NULL;
        }
    }
    if (!c) {
        *nomem = true;
        return NULL;
    }
    /* Responses: a message's content written as one input_text part is its
     * text written as a string (the AI SDK sends the part) */
    cJSON *input = tw_json_get(c, "input");
    for (cJSON *it = cJSON_IsArray(input) ? input->child : NULL; it; it = it->next) {
        cJSON *content = tw_json_get(it, "content");
        cJSON *part = cJSON_IsArray(content) ? content->child : NULL;
        const char *pty = tw_json_get_str(part, "type");
        const cJSON *text = tw_json_get(part, "text");
        if (!part || part->next || !pty || strcmp(pty, "input_text") != 0 ||
            !cJSON_IsString(text) || cJSON_GetArraySize(part) != 2)
            continue;
        cJSON *str = cJSON_CreateString(text->valuestring);
        if (!str || !cJSON_ReplaceItemInObjectCaseSensitive(it, "content", str)) {
            cJSON_Delete(str);
            cJSON_Delete(c);
            *nomem = true;
            return NULL;
        }
    }
    return c;
}
