/* Helpers shared by the decoder suites (tests/lib/): a result as JSON, a
 * decode that must give the same result batch and in pieces, expectations on
 * a result, a recorded cassette, the events of a stream and the random
 * splits of an input. Each fails the calling test as a cr_assert would. */
#ifndef TW_TEST_DECODING_H
#define TW_TEST_DECODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cassette.h"
#include "decode_opts.h"
#include "toolwire/decode.h"

/* The result as tw_result_write writes it (flags 0); free() it. */
char *tw_test_result_json(const tw_result *r);
/* Decode buf with the format fmt in one piece into *out, then in pieces of
 * 1, 7 and 64 bytes: every way must write the same result. */
void tw_test_decode_every_way(const char *fmt, const char *buf, size_t len, const tw_decode_opts *o,
                              tw_result *out);
/* Call i has this id, name and arguments (JSON, compared as values). */
void tw_test_expect_call(const tw_result *r, size_t i, const char *id, const char *name,
                         const char *args_json);
/* The buffer holds exactly want. */
void tw_test_expect_text(const tw_buf *b, const char *want);
/* No error and no warning. */
void tw_test_expect_clean(const tw_result *r);
/* A diagnostic with this code is in the list. */
bool tw_test_has_diag(const tw_diag_list *l, tw_status code);
/* Load ../shared/<name>; the test is skipped when ../shared/real-traffic is absent. */
void tw_test_load_cassette(const char *name, tw_cassette *c);

/* A decode fixture (tests/data/decode/…) read for a test: its JSON, its
 * options, its decoder and its input bytes as an exact-size copy. */
typedef struct tw_test_fixture {
    const char *path; /* as given to tw_test_fixture_open */
    cJSON *json;
    tw_opts_holder h;
    const tw_format_ops *f;
    char *in;
    size_t len;
} tw_test_fixture;
/* Read the fixture at path; one that cannot be read, names no known format
 * or has no input fails the test. */
void tw_test_fixture_open(tw_test_fixture *t, const char *path);
void tw_test_fixture_close(tw_test_fixture *t);

/* What a stream's events carried: text, thinking, the first ids of its
 * calls (every call counted), its errors and warnings. */
#define TW_TEST_EVENT_IDS 64
typedef struct tw_test_events {
    tw_buf content, thinking;
    size_t ncalls;
    char ids[TW_TEST_EVENT_IDS][64];
    size_t nerrors, nwarnings;
} tw_test_events;
/* A tw_event_fn that adds each event to the tw_test_events at user. */
tw_status tw_test_collect_event(void *user, const tw_event *ev);
/* Free the buffers of e and zero it. */
void tw_test_events_free(tw_test_events *e);

/* rounds random splits of t's input fed to a stream of its decoder (the
 * first half of the rounds in pieces of 1 to small bytes, the rest 1 to
 * large): each must give batch's result, and events that carried it with
 * nothing retracted or missing (content, thinking, the calls' ids in order,
 * errors, and warnings when with_warnings). rng: the suite's own sequence. */
void tw_test_random_splits(const tw_test_fixture *t, const tw_result *batch, uint64_t *rng,
                           int rounds, size_t small, size_t large, bool with_warnings);

/* A xorshift64 sequence from a fixed seed, so a suite splits its inputs the
 * same way on every run: the next number below n (n > 0). */
size_t tw_test_rnd(uint64_t *state, size_t n);

#endif
