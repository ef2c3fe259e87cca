/*
 * The JSON-Schema subset toolwire validates tool arguments against
 * (docs/text-formats.md, tool-call rule 11): type (one or a list), enum, required, properties,
 * items, additionalProperties: false; nested objects and arrays recursively.
 * Other keywords are ignored.
 */
#ifndef TOOLWIRE_SCHEMA_H
#define TOOLWIRE_SCHEMA_H

#include "toolwire/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Returns true when `value` satisfies `schema` (NULL or non-object schema:
 * always true). On failure `why` (optional) holds a JSON-pointer-like path
 * and the rule that failed. Recursion is capped at max_depth.
 */
bool tw_schema_validate(const cJSON *schema, const cJSON *value, size_t max_depth, char *why,
                        size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
