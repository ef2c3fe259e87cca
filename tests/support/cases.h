/* Data-first fixture and case runs shared by the decoder and encoder suites. */
#ifndef TW_CASES_H
#define TW_CASES_H

#include <stdbool.h>
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

/* One decode fixture's input: its `input` or `input_hex` bytes (may hold
 * NUL): data is malloc'd, exactly len bytes, no terminator. */
typedef struct tw_test_input {
    char *data;
    size_t len;
} tw_test_input;

/*
 * The inputs of the decode fixtures of `format` (tests/data/decode/FORMAT/,
 * in file-name order), read with tw_decode_fixture_input, at most `max`
 * (0: all). with_calls: only fixtures whose expect.tool_calls is not empty,
 * or every fixture when none has calls. Asserts the directory exists; the
 * caller frees with tw_test_inputs_free.
 */
size_t tw_test_fixture_inputs(const char *format, size_t max, bool with_calls, tw_test_input **out);
void tw_test_inputs_free(tw_test_input *in, size_t n);

/* Assert that r's neutral JSON is want (failure text "WHAT K"), then free r. */
void tw_test_expect_neutral(tw_result *r, const char *want, const char *what, size_t k);

#endif
