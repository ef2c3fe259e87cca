/* Where a value of a JSON text is, by its JSON path (json_locate.c). */
#ifndef TOOLWIRE_HARNESS_JSON_LOCATE_H
#define TOOLWIRE_HARNESS_JSON_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/core.h"

/* Line and column (1-based) of a byte offset. */
void tw_line_col(const char *buf, size_t len, size_t off, size_t *line, size_t *col);

/* The offset of the value at a JSON path in the valid JSON text s[0, len)
 * (with at_key, of the last member's key); where the path cannot be
 * followed, of the deepest value reached. */
size_t tw_json_locate_off(const char *s, size_t len, const char *jpath, bool at_key);

/*
 * Line and column (1-based) of the value at a JSON path ("exchanges[0].request",
 * "" for the root) in the valid JSON text buf[0, len); with at_key, of the last
 * member's key. Where the path cannot be followed, the deepest value reached.
 */
tw_status tw_json_locate(const char *buf, size_t len, const char *jpath, bool at_key, size_t *line,
                         size_t *col);

#endif
