/*
 * Parser conformance (docs/parsers.md): a model-output parser (llama.cpp's
 * chat parser, a vLLM tool parser, …) is judged through a parser driver.
 * Every decode fixture of a dialect the parser reads is fed to it in one
 * piece and in token-sized pieces; what it shows after each piece and at the
 * end is judged with the parser checks PRS-01..PRS-08 against the dialect's
 * reference decoder. One report per parser, one row per fixture and mode.
 *
 * The driver runs through the client drivers' runner (clients.h,
 * tw_proc_run): own process group, deadline, stdout cap, stderr kept.
 */
#ifndef TOOLWIRE_PARSERS_H
#define TOOLWIRE_PARSERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "checks.h"
#include "toolwire/neutral.h"

#define TW_PARSER_PROTOCOL 1
/* --describe: at most this many dialects */
#define TW_PARSER_MAX_DIALECTS 64
/* a dialect's name: a decoder name of the table (the longest is 23 bytes) */
#define TW_PARSER_DIALECT_LEN 32
/* an informational key of a dialect (template, note) kept for the report */
#define TW_PARSER_NOTE_LEN 64
/* an expected-differences file: entries, and check ids an entry names */
#define TW_PARSER_MAX_DIFFS 1024
#define TW_PARSER_DIFF_CHECKS 8
/* --parser: at most this many parsers in one run */
#define TW_PARSERS_MAX 32
/* a piece is 1..TW_PARSER_PIECE_MAX bytes (longer only to end a UTF-8
 * character or a cut inside a special token) */
#define TW_PARSER_PIECE_MAX 8
/* a special token: a run from '<' to '>' or '[' to ']' of at most this many bytes */
#define TW_PARSER_TOKEN_MAX 64

/* What a parser driver says of itself (--describe). */
typedef struct tw_parser_info {
    char parser[64];
    char version[64];
    char dialects[TW_PARSER_MAX_DIALECTS][TW_PARSER_DIALECT_LEN];
    char notes[TW_PARSER_MAX_DIALECTS][TW_PARSER_NOTE_LEN]; /* template or note, "" when none */
    size_t ndialects;
} tw_parser_info;

/* Is name a text decoder of the table of formats (a dialect a parser may read)? */
bool tw_parser_is_dialect(const char *name);
/* The text decoders of the table, in table order (n set to their count). */
const char *const *tw_parser_dialects(size_t *n);

/* Read a --describe object; false with err saying why when it breaks the protocol. */
bool tw_parser_describe_parse(const char *text, size_t len, size_t max_depth, tw_parser_info *out,
                              tw_error *err);

/*
 * Cut text[0, len) into token-sized pieces: cuts[i] is the end offset of
 * piece i (cuts has room for len entries; the last is len). Each piece is
 * 1..TW_PARSER_PIECE_MAX bytes, longer only to reach the end of a UTF-8
 * character; where a special token (a run '<'…'>' or '['…']' of at most
 * TW_PARSER_TOKEN_MAX bytes) starts within reach, the cut falls inside it.
 * The same seed gives the same cuts. Returns the number of pieces (0 for
 * len 0). Linear in len.
 */
size_t tw_parser_cut(const char *text, size_t len, uint64_t seed, size_t *cuts);

/* Is buf[0, len) valid UTF-8 without U+0000 (text a JSON string carries as is)? */
bool tw_parser_text_ok(const char *buf, size_t len);

/*
 * A --parse output read by the protocol: one line per piece ({"piece": K,
 * "message": M}, K = 0..npieces-1 in order), then {"final": true,
 * "message": M}. msgs[0..npieces-1] are the piece messages, msgs[npieces]
 * the final one; all point into lines (owned).
 */
typedef struct tw_parser_output {
    cJSON **lines;
    size_t nlines;
    const cJSON **msgs;
    size_t nmsgs; /* npieces + 1 */
} tw_parser_output;

/* Read out[0, len) for a run of npieces pieces; false with err (the line
 * and what is wrong) on bad output, and *o empty. */
bool tw_parser_output_read(const char *out, size_t len, size_t npieces, size_t max_depth,
                           tw_parser_output *o, tw_error *err);
void tw_parser_output_free(tw_parser_output *o);

/* PRS-01..PRS-05: the final message m against the reference result. */
void tw_parser_judge_final(const cJSON *m, const tw_result *ref, size_t max_depth,
                           tw_check_set *set);
/* PRS-06: msgs[0..n) (the piece messages, then the final one) never retract. */
void tw_parser_judge_stream(const cJSON *const *msgs, size_t n, tw_check_set *set);
/* PRS-07: the streamed final message equals the one-piece final message. */
void tw_parser_judge_same(const cJSON *streamed, const cJSON *whole, tw_check_set *set);

/* One declared difference of an expected-differences file. */
typedef struct tw_parser_diff {
    char dialect[TW_PARSER_DIALECT_LEN];  /* "*": any */
    char *fixture, *rule, *what, *reason; /* owned; rule NULL: any */
    int mode;                             /* 0 both, 1 whole, 2 stream */
    tw_check_id checks[TW_PARSER_DIFF_CHECKS];
    size_t nchecks;
    size_t used; /* failing checks it matched in this run */
} tw_parser_diff;

/* An expected-differences file (docs/parsers.md, "Expected differences"). */
typedef struct tw_parser_expect {
    char parser[64];
    char *path; /* owned */
    tw_parser_diff *d;
    size_t n;
} tw_parser_expect;

/* Load path; false with err (the file, the entry and what is wrong). */
bool tw_parser_expect_load(const char *path, size_t max_depth, tw_parser_expect *out,
                           tw_error *err);
void tw_parser_expect_free(tw_parser_expect *e);
/* The first entry of e that declares check c of this fixture row a
 * difference, or NULL (e may be NULL). */
tw_parser_diff *tw_parser_expect_match(tw_parser_expect *e, const char *dialect,
                                       const char *fixture, const char *rule, bool stream,
                                       tw_check_id c);

typedef struct tw_parser_spec {
    const char *name; /* report name */
    const char *cmd;  /* the driver command (run with --describe / --parse) */
} tw_parser_spec;

typedef struct tw_parsers_opts {
    long timeout_ms;             /* one driver run, killed past it; 0: 10000 */
    size_t max_out;              /* driver stdout cap; 0: 8 MiB */
    size_t max_err;              /* driver stderr kept; 0: 64 KiB */
    uint64_t seed;               /* the pieces' generator */
    const char *fixtures;        /* the decode fixtures; NULL: tests/data/decode */
    const char *const *dialects; /* --dialect: only these (NULL with 0: all) */
    size_t ndialects;
    const char *const *expected; /* --expected files */
    size_t nexpected;
    tw_limits limits;
    bool quiet;
    FILE *out; /* summary lines, or NULL */
} tw_parsers_opts;

/*
 * The whole run of `toolwire parsers`: describe every parser, run every
 * decode fixture of its dialects through it (one piece, then pieces), write
 * <out>/<name>.{json,md,junit.xml,html} and comparison.{md,html}. Returns
 * the exit status: 0 every parser passes every check (expected differences
 * allowed), 1 a check or a driver failed, 2 a parser could not be judged.
 */
int tw_parsers_run_all(const tw_parser_spec *p, size_t n, const char *outdir,
                       const tw_parsers_opts *o);

/*
 * toolwire's own parser driver (`toolwire parser-driver`): arg "--describe"
 * or "--parse" (the request read from in), the protocol's lines written to
 * out. Returns the exit status (0; 2 on a bad request or a cap, the reason
 * on err).
 */
int tw_parser_driver(const char *arg, FILE *in, FILE *out, FILE *err, const tw_limits *L);

#endif
