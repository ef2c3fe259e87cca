/*
 * Writing fixtures: a tw_fixture (fixture.h) back to the documented JSON,
 * for the importers and `record`. A fixture built in memory points its
 * strings and JSON bodies into a tw_fx_arena, which owns them.
 */
#ifndef TOOLWIRE_FIXTURE_WRITE_H
#define TOOLWIRE_FIXTURE_WRITE_H

#include "fixture.h"

/* Owns strings, JSON trees and arrays of a fixture built in memory.
 * Zero-initialise; free everything with tw_fx_arena_free. */
typedef struct tw_fx_arena {
    void **blocks;
    size_t nblocks, capblocks;
    cJSON *trees;   /* an array holding every tree handed over */
} tw_fx_arena;

/* Copies of n bytes / a string; NULL on allocation failure. */
const char *tw_fx_arena_strn(tw_fx_arena *a, const char *s, size_t n);
const char *tw_fx_arena_str(tw_fx_arena *a, const char *s);
/* Zeroed array of n elements of size sz; NULL on failure or n == 0. */
void *tw_fx_arena_calloc(tw_fx_arena *a, size_t n, size_t sz);
/* Grow an array made by tw_fx_arena_calloc (or NULL) to n elements; new
 * elements are zeroed. Returns the (possibly moved) array or NULL. */
void *tw_fx_arena_grow(tw_fx_arena *a, void *arr, size_t old_n, size_t n, size_t sz);
/* Take ownership of a tree (freed with the arena); returns it. On allocation
 * failure the tree is freed and NULL returned. */
cJSON *tw_fx_arena_json(tw_fx_arena *a, cJSON *take);
void tw_fx_arena_free(tw_fx_arena *a);

/*
 * The fixture as a new JSON tree in the documented key order (deep copies;
 * free with cJSON_Delete). NULL on allocation failure.
 */
cJSON *tw_fixture_to_json(const tw_fixture *f);

/* Pretty JSON text of the fixture, with a final newline, appended to out. */
tw_status tw_fixture_write(tw_buf *out, const tw_fixture *f);

/* tw_fixture_write + tw_out_write_file (out.h: atomic, redacted). */
tw_status tw_fixture_write_file(const char *path, const tw_fixture *f, tw_error *err);

#endif
