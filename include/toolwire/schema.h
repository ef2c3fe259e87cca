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
 * always true). Recursion is capped at max_depth (0: 64). On false, err
 * (may be NULL) says why: err->code TW_D_ARGS_SCHEMA, err->offset -1,
 * err->path the JSON-pointer-like path of the value at fault ("" for the
 * root), err->message "path: rule" ("/" for the root).
 */
TW_API bool tw_schema_validate(const cJSON *schema, const cJSON *value, size_t max_depth,
                               tw_error *err);

#ifdef __cplusplus
}
#endif
#endif
