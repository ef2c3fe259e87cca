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

/*
 * Write bytes to `path` atomically: a temporary file in the same directory,
 * flushed to disk, then renamed over `path`. Nothing is left behind on
 * failure; `why` says what failed.
 */
tw_status tw_write_file_atomic(const char *path, const char *data, size_t len, char *why,
                               size_t whylen);

/*
 * The temporary file next to `path` that an atomic write renames over it:
 * "PATH.tmp.PID.XXXXXX" (a mkstemp template; malloc'd, NULL on allocation
 * failure). The creating process's id in the name lets a later run tell a
 * temporary left by a killed writer from a concurrent run's live one.
 */
char *tw_temp_template(const char *path);

/* A temporary older than this (seconds) is stale even when a process with
 * its pid exists (the pid was reused); one of a gone pid is stale at once. */
#define TW_STALE_TEMP_AGE_S 3600L
/* Temporaries without a pid (the older "PATH.tmp.XXXXXX" form) are stale
 * after this many seconds. */
#define TW_STALE_TEMP_OLD_FORM_S 60L

/*
 * Remove this program's stale temporaries in dir (not below it): regular
 * files named "F.tmp.PID.XXXXXX", F ending in .json, .md, .html or .xml (the
 * files it writes), whose process is gone (or that are older
 * than TW_STALE_TEMP_AGE_S), and "F.tmp.XXXXXX" older than
 * TW_STALE_TEMP_OLD_FORM_S. Never this process's own, never another name.
 * Returns how many were removed; a missing dir removes nothing.
 */
size_t tw_clean_stale_temps(const char *dir);

/* tw_fixture_write + tw_write_file_atomic. */
tw_status tw_fixture_write_file(const char *path, const tw_fixture *f, char *why, size_t whylen);

#endif
