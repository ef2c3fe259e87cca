/* Helpers shared by the request-reader suites (tests/lib/): a JSON file with
 * its number spellings kept, a request read from an exact-size copy, a
 * request encoded, and a warning looked up. Each fails the calling test as
 * a cr_assert would. */
#ifndef TW_TEST_REQUESTS_H
#define TW_TEST_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/registry.h"
#include "toolwire/request.h"

/* The JSON file at path (at most 16 MiB, depth 256) as tw_json_parse reads
 * it, its number spellings kept. cJSON_Delete it. */
cJSON *tw_test_load_json(const char *path);
/* Read s[0, n) with the request reader f from an exact-size copy (no
 * terminator to lean on), with limits l (NULL: the defaults). After a
 * failure the request holds no warnings; its warnings are also appended to
 * w (when not NULL). The reader's status. */
tw_status tw_test_read_request(tw_request_decode_fn f, const char *s, size_t n, const tw_limits *l,
                               tw_request *r, tw_diag_list *w, tw_error *e);
/* Encode r with the request encoder name (parallel_tool_calls unset), its
 * warnings into w (NULL: none kept); the bytes (free() them), *len their
 * length when len is not NULL. A failure fails the test. */
char *tw_test_encode_request(const char *name, const tw_request *r, tw_diag_list *w, size_t *len);
/* A warning with this code whose message holds needle is in w. */
bool tw_test_has_warning(const tw_diag_list *w, tw_status code, const char *needle);

#endif
