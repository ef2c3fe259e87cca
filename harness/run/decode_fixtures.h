/* Decode fixtures (tests/data/decode/, every format): load and check. */
#ifndef TOOLWIRE_DECODE_FIXTURES_H
#define TOOLWIRE_DECODE_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/neutral.h"

enum { TW_FIX_PASS = 0, TW_FIX_MISMATCH = 1, TW_FIX_BAD = 2 };

/* The chunk sizes every decode fixture is also checked at (0 = whole). */
extern const size_t tw_fix_chunks[];
extern const size_t tw_fix_nchunks;

/*
 * Check one decode fixture: batch, then streaming at every chunk size.
 * Returns TW_FIX_*; `detail` says what differed or what is wrong with the
 * file (with line and column for JSON errors).
 */
int tw_decode_fixture_check(const char *path, tw_error *err);

/*
 * The bytes a decode fixture feeds its decoder: its `input` string or its
 * `input_hex` bytes (exactly one of them; NUL bytes allowed). On success
 * *out is malloc'd (the caller frees it) with *len bytes; on failure false,
 * *out NULL and err says why (`path` names the file in the message).
 */
bool tw_decode_fixture_input(const cJSON *fx, const char *path, char **out, size_t *len,
                             tw_error *err);

/* Compare a result with an expected neutral result (code+offset lists). */
bool tw_result_matches(const tw_result *got, const cJSON *expect, tw_error *err);

/* Collect files ending in `suffix` under dir, sorted. Caller frees each and
 * the array. Returns the count, or -1 if dir cannot be read. */
long tw_list_files(const char *dir, const char *suffix, char ***out);
void tw_free_list(char **list, long n);

#endif
