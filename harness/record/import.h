/*
 * Importers: vcrpy cassettes and HAR 1.2 files into fixtures
 * (docs/fixtures.md, "Importing"). One input file becomes one fixture with
 * one exchange per interaction. Secrets are dropped or scrubbed by the
 * redactor (redact.h) before anything is serialised; a last check refuses
 * to write output that still holds a secret value the redactor knows.
 */
#ifndef TOOLWIRE_IMPORT_H
#define TOOLWIRE_IMPORT_H

#include "fixture_write.h"
#include "redact.h"

typedef enum tw_import_kind { TW_IMPORT_VCR = 0, TW_IMPORT_HAR } tw_import_kind;

typedef struct tw_import_opts {
    tw_import_kind kind;
    const char *out_dir;     /* where fixtures are written ("." when NULL) */
    const char *name_prefix; /* prefix for fixture and file names, or NULL */
    const tw_limits *limits; /* may be NULL: defaults */
    bool expect;             /* record what the recorded responses show: expect.result
                                (the reference decoder's result) and expect.failing_checks
                                (the checks that fail on them), as `toolwire run`
                                against mock:replay judges them */
} tw_import_opts;

/*
 * Import one file into the JSON text of one fixture (appended to out).
 * `red` is the caller's redactor (extra header names already added); the
 * secret values found in this file are added to it. *nexchanges receives
 * the exchange count. On failure why holds "FILE[:LINE:COL]: what".
 */
tw_status tw_import_to_buf(const char *path, const tw_import_opts *o, tw_redactor *red, tw_buf *out,
                           size_t *nexchanges, tw_error *err);

/*
 * The same from memory: len bytes of data are the file's content; name (may
 * be NULL) stands for its path in messages, the fixture name and the
 * provenance. Nothing is read or written on disk.
 */
tw_status tw_import_mem_to_buf(const char *data, size_t len, const char *name,
                               const tw_import_opts *o, tw_redactor *red, tw_buf *out,
                               size_t *nexchanges, tw_error *err);

/*
 * Import one file and write OUT_DIR/PREFIXNAME.json atomically, NAME being
 * the input's base name without its extension. *written (may be NULL)
 * receives the malloc'd output path.
 */
tw_status tw_import_file(const char *path, const tw_import_opts *o, tw_redactor *red,
                         char **written, size_t *nexchanges, tw_error *err);

/*
 * Split an event-stream body into SSE events (WHATWG framing: LF, CRLF or
 * CR line ends, "data:" lines joined with "\n", comments ignored). An event
 * left unterminated at the end of the body is kept. Events and their
 * strings are allocated in the arena.
 */
tw_status tw_sse_split(const char *buf, size_t len, tw_fx_arena *a, tw_fx_sse **events,
                       size_t *nevents);

#endif
