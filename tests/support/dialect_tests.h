/*
 * What the unit tests of every model dialect (tests/lib/test_<dialect>.c)
 * do with a sample of its output, through its decoder and output encoder
 * found by name: split invariance, the events in order, reuse after a
 * reset, linear work, the encoder's bytes read back. Each helper asserts
 * (Criterion) as it goes; what a sample must decode to is the test's own
 * check function.
 */
#ifndef TW_DIALECT_TESTS_H
#define TW_DIALECT_TESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toolwire/decode.h"
#include "toolwire/encode.h"

/* What a sample's result must be (asserts). */
typedef void (*tw_dlt_check)(const tw_result *r);

/* The decoder named format (asserts it exists). */
const tw_format_ops *tw_dlt_format(const char *format);

/*
 * s[0, n) cut into two pieces at every byte (each marker split at each of
 * its bytes), then, when step_a is not 0, into three at every a from `from`
 * by step_a and b from a by step_b: every result passes check. One decoder
 * with options o (may be NULL), reset for each decode.
 */
void tw_dlt_split(const char *format, const tw_decode_opts *o, const char *s, size_t n,
                  tw_dlt_check check, size_t from, size_t step_a, size_t step_b);

/* The same check by the neutral text (tw_test_neutral) of the result: s
 * decoded with options o (may be NULL) in two pieces cut at every byte, and
 * a byte a feed, gives the batch decode's text; each piece an exact-size
 * copy. */
void tw_dlt_split_same(const char *format, const tw_decode_opts *o, const char *s, size_t n);

/* The events of a decode: one letter a run of the same kind (t thinking,
 * c content, T a call, E an error, W a warning, ? another; text events of
 * no bytes pass unseen), each call as "[id name]", and the text each
 * channel's events sent. */
typedef struct tw_dlt_events {
    char kinds[64];
    size_t n;
    char calls[256];
    tw_buf thinking, content;
} tw_dlt_events;

/* The event function that fills a tw_dlt_events (user). */
tw_status tw_dlt_on_event(void *user, const tw_event *ev);
void tw_dlt_events_free(tw_dlt_events *ev);

/* s[0, n) decoded through the push decoder with options o (may be NULL),
 * fed in pieces of `piece` bytes (0: in one piece), its events into *ev
 * (emptied first; ev NULL: none); the result (TW_OK asserted) into *r. */
void tw_dlt_decode(const char *format, const tw_decode_opts *o, const char *s, size_t n,
                   size_t piece, tw_dlt_events *ev, tw_result *r);

/*
 * Reuse: a decoder fed `half` (left unfinished) and reset with forced_open
 * reads `forced` as the reasoning `thinking` then the content `content`
 * with no error; a second finish is refused (TW_ERR_STATE, an empty
 * result); reset with the options so (may be NULL), the sample s passes
 * check.
 */
void tw_dlt_reset_reuse(const char *format, const char *half, const char *forced,
                        const char *thinking, const char *content, const tw_decode_opts *so,
                        const char *s, tw_dlt_check check);

/*
 * Linear work: gen writes an output of n calls into b; for n = small and 4
 * x small (max_calls n), decoded in one piece and a byte at a time: n calls,
 * no error, at most cap units of work (work.h) a byte, and the larger
 * output's work a byte at most `slack` units above the smaller's.
 */
void tw_dlt_linear(const char *format, void (*gen)(tw_buf *b, size_t n), size_t small, uint64_t cap,
                   uint64_t slack);

/* The work (work.h) of decoding p[0, n), an output of `calls` calls, fed
 * in pieces of `piece` bytes (max_calls and max_input_bytes just above):
 * the calls all taken, no error. */
uint64_t tw_dlt_work(const char *format, const char *p, size_t n, size_t calls, size_t piece);

/*
 * The output encoder of the same name: s decoded with options so (may be
 * NULL) into *r, written into *out with nwarn warnings (eo's warnings go to
 * *w), read back with the options ro (may be NULL) and with ro plus
 * forced_open, each passing check (the encoder writes what either reads
 * alike). The caller frees r, out and w.
 */
void tw_dlt_round_trip(const char *format, const tw_decode_opts *so, const tw_decode_opts *ro,
                       const char *s, tw_dlt_check check, size_t nwarn, tw_result *r, tw_buf *out,
                       tw_encode_opts *eo, tw_diag_list *w);

#endif
