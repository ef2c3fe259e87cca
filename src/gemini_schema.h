/*
 * Internal: the keys of a tool's parameter schema as the Gemini request
 * reader and encoder see them, in one list (src/gemini_schema.c). Gemini's
 * FunctionDeclaration takes `parameters`, its OpenAPI-style Schema, which
 * has a fixed set of keys and refuses others, or `parametersJsonSchema`,
 * any JSON Schema (one of the two). Rules: docs/formats/gemini.md.
 */
#ifndef TOOLWIRE_GEMINI_SCHEMA_H
#define TOOLWIRE_GEMINI_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/json.h"

/* What the value of a schema key holds. */
typedef enum tw_schema_kind {
    TW_SK_DATA = 0, /* a value (type, description, enum, default, …) */
    TW_SK_ONE,      /* one subschema (items, additionalProperties, not) */
    TW_SK_MAP,      /* an object whose members are subschemas (properties, $defs) */
    TW_SK_LIST      /* an array of subschemas (anyOf, oneOf, allOf, prefixItems) */
} tw_schema_kind;

/*
 * Whether k is a key of Gemini's Schema; *kind (may be NULL) is what its
 * value holds. A JSON Schema key that holds subschemas but is not one of
 * Gemini's (additionalProperties, oneOf, $defs, …) answers false with its
 * kind; any other key answers false with TW_SK_DATA.
 */
bool tw_gemini_schema_key(const char *k, tw_schema_kind *kind);

/*
 * Whether schema s can be written as Gemini's `parameters`: an object whose
 * keys, and those of every subschema, are all keys of Gemini's Schema, with
 * each `type` one name (a string) and each `enum` an array of strings, and
 * no deeper than max_depth levels. Otherwise it goes in
 * `parametersJsonSchema`. Linear in the size of s.
 */
bool tw_gemini_schema_fits(const cJSON *s, size_t max_depth);

#endif
