/*
 * The keys of Gemini's Schema (the `parameters` of a FunctionDeclaration)
 * and the JSON Schema keys that hold subschemas, in one list for the
 * gemini-request reader and encoder. Rules: docs/formats/gemini.md.
 */
#include "gemini_schema.h"

#include <string.h>

static const struct {
    const char *key;
    tw_schema_kind kind;
    bool gemini; /* a key of Gemini's Schema */
} schema_keys[] = {
    /* Gemini's Schema (generativelanguage v1beta) */
    {"type", TW_SK_DATA, true},
    {"format", TW_SK_DATA, true},
    {"title", TW_SK_DATA, true},
    {"description", TW_SK_DATA, true},
    {"nullable", TW_SK_DATA, true},
    {"enum", TW_SK_DATA, true},
    {"default", TW_SK_DATA, true},
    {"example", TW_SK_DATA, true},
    {"required", TW_SK_DATA, true},
    {"propertyOrdering", TW_SK_DATA, true},
    {"minItems", TW_SK_DATA, true},
    {"maxItems", TW_SK_DATA, true},
    {"minProperties", TW_SK_DATA, true},
    {"maxProperties", TW_SK_DATA, true},
    {"minLength", TW_SK_DATA, true},
    {"maxLength", TW_SK_DATA, true},
    {"pattern", TW_SK_DATA, true},
    {"minimum", TW_SK_DATA, true},
    {"maximum", TW_SK_DATA, true},
    {"items", TW_SK_ONE, true},
    {"properties", TW_SK_MAP, true},
    {"anyOf", TW_SK_LIST, true},
    /* JSON Schema keys holding subschemas that Gemini's Schema does not have */
    {"additionalProperties", TW_SK_ONE, false},
    {"not", TW_SK_ONE, false},
    {"oneOf", TW_SK_LIST, false},
    {"allOf", TW_SK_LIST, false},
    {"prefixItems", TW_SK_LIST, false},
    {"$defs", TW_SK_MAP, false},
    {"definitions", TW_SK_MAP, false},
};

bool tw_gemini_schema_key(const char *k, tw_schema_kind *kind)
{
    for (size_t i = 0; i < sizeof schema_keys / sizeof schema_keys[0]; i++)
        if (strcmp(k, schema_keys[i].key) == 0) {
            if (kind)
                *kind = schema_keys[i].kind;
            return schema_keys[i].gemini;
        }
    if (kind)
        *kind = TW_SK_DATA;
    return false;
}

static bool all_strings(const cJSON *a)
{
    if (!cJSON_IsArray(a))
        return false;
    for (const cJSON *x = a->child; x; x = x->next)
        if (!cJSON_IsString(x))
            return false;
    return true;
}

bool tw_gemini_schema_fits(const cJSON *s, size_t max_depth)
{
    if (!cJSON_IsObject(s) || max_depth == 0)
        return false;
    for (const cJSON *m = s->child; m; m = m->next) {
        tw_schema_kind kind;
        if (!m->string || !tw_gemini_schema_key(m->string, &kind))
            return false;
        if (strcmp(m->string, "type") == 0 && !cJSON_IsString(m))
            return false;
        if (strcmp(m->string, "enum") == 0 && !all_strings(m))
            return false;
        if (kind == TW_SK_ONE && !tw_gemini_schema_fits(m, max_depth - 1))
            return false;
        if (kind == TW_SK_MAP && !cJSON_IsObject(m))
            return false;
        if (kind == TW_SK_LIST && !cJSON_IsArray(m))
            return false;
        if (kind == TW_SK_MAP || kind == TW_SK_LIST)
            for (const cJSON *x = m->child; x; x = x->next)
                if (!tw_gemini_schema_fits(x, max_depth - 1))
                    return false;
    }
    return true;
}
