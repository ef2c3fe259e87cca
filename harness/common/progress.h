/*
 * Progress of a long command on standard error (through the redaction layer
 * like every byte the program writes). When stderr is not a terminal (CI
 * logs): one line per fixture with its counts,
 *
 *   toolwire run: [12/48] staging openai/nonstream_single_call: 2 exchanges, 0 mismatches, 0.4 s
 *
 * and, inside a fixture of many exchanges, a line every TW_PROGRESS_EVERY
 * exchanges. On a terminal: one line rewritten in place, cleared at the end.
 * Thread-safe: the workers of a parallel run report to one tw_progress.
 */
#ifndef TOOLWIRE_PROGRESS_H
#define TOOLWIRE_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

/* Inside one fixture, a line every this many exchanges (not on a terminal). */
#define TW_PROGRESS_EVERY 50

typedef struct tw_progress tw_progress;

/*
 * Start the progress of `cmd` ("run", "main", "clients") over `total`
 * fixtures of `who` (a backend or client name). NULL when !enabled (every
 * other call takes NULL and does nothing) or out of memory.
 */
tw_progress *tw_progress_begin(const char *cmd, const char *who, size_t total, bool enabled);
/* One fixture done: its exchanges, mismatches and wall time; note (may be
 * NULL) replaces the counts, e.g. "skipped: does not fit the hermes profile". */
void tw_progress_fixture(tw_progress *p, const char *fixture, size_t exchanges, size_t mismatches,
                         double seconds, const char *note);
/* The same for a run over several names (clients: each line names its client). */
void tw_progress_item(tw_progress *p, const char *who, const char *fixture, size_t exchanges,
                      size_t mismatches, double seconds, const char *note);
/* Exchange `done` of `total` of a fixture sent: a line every TW_PROGRESS_EVERY. */
void tw_progress_exchange(tw_progress *p, const char *fixture, size_t done, size_t total);
/* The end: clears a terminal's line; frees p. */
void tw_progress_end(tw_progress *p);

/* Seconds on the monotonic clock, for the wall times given above. */
double tw_progress_now(void);

#endif
