/*
 * Internal: the schema shim's walk, read only (shims.c).
 */
#ifndef TOOLWIRE_SHIMS_INT_H
#define TOOLWIRE_SHIMS_INT_H

#include "toolwire/json.h"

/* How many `required: []` tw_shim_schema_normalize would remove from
 * schema (the same walk, reading only): 0 means it would change nothing. */
size_t tw_shim_schema_removals(const cJSON *schema, size_t max_depth);

#endif
