/* Data-first fixture and case runs shared by the decoder and encoder suites. */
#ifndef TW_CASES_H
#define TW_CASES_H

#include <stddef.h>

#include "toolwire/decode.h"
#include "toolwire/json.h"
#include "toolwire/neutral.h"

/* Check the decode fixtures files[0, n) with tw_decode_fixture_check,
 * logging each failure; returns how many failed. */
long tw_test_check_fixtures(char **files, long n);

/*
 * Check every decode fixture (*.json) under sub (relative to the source
 * tree) with tw_decode_fixture_check; at least min_files must be there.
 */
void tw_test_decode_dir(const char *sub, long min_files);

/*
 * Run every encode case under sub (relative to the source tree): NAME.json
 * (format, options, status, input), NAME.out (the exact bytes), NAME.warnings
 * (one "code: message" line per warning; absent means none). At least
 * min_cases must be there. TOOLWIRE_REGEN_ENCODE=1 rewrites the expectation
 * files from the current encoders instead of comparing.
 */
void tw_test_encode_cases(const char *sub, long min_cases);

/*
 * Read a fixture file (at most 16 MiB) into an exact-size heap copy of *len
 * bytes and parse it into *j (depth 256), asserting both. The caller frees
 * the copy and *j.
 */
char *tw_test_load_exact(const char *path, size_t *len, cJSON **j);

/* Decode s (copied to an exact-size buffer) with format fmt, asserting TW_OK. */
void tw_test_decode(const char *fmt, const char *s, const tw_decode_opts *o, tw_result *r);

/* The neutral JSON of a result (malloc'd), asserting it is written. */
char *tw_test_neutral(const tw_result *r);

/* Assert that r's neutral JSON is want (failure text "WHAT K"), then free r. */
void tw_test_expect_neutral(tw_result *r, const char *want, const char *what, size_t k);

#endif
