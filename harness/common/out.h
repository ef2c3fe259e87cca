/*
 * Everything the program writes leaves through here, redacted: every file
 * (written atomically: a temporary file beside it, flushed, renamed) and
 * standard output and standard error (replaced at start-up by streams that
 * redact). Redaction replaces every value of the process-wide secret set
 * (redact.h: tw_secret_add) with TW_REDACTED, as is, JSON-escaped or
 * percent-encoded.
 */
#ifndef TOOLWIRE_OUT_H
#define TOOLWIRE_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/core.h"

/*
 * The program's errors are the library's tw_error. tw_error_file fills err
 * (NULL allowed) like tw_error_set with no JSON path, then puts `where` (the
 * file the failure is about, or the JSON path inside it; NULL: "") in
 * err->path, cut to fit. The message is the reason alone, as printed: it
 * already names the file (and line, column) where a reader needs them.
 */
void tw_error_file(tw_error *err, tw_status code, int64_t offset, const char *where,
                   const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

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

/*
 * Write the redacted bytes to `path` atomically: a temporary file in the
 * same directory, flushed to disk, then renamed over `path` (mode 0644).
 * Nothing is left behind on failure; `why` says what failed.
 */
tw_status tw_out_write_file(const char *path, const char *data, size_t len, tw_error *err);

/*
 * A file written atomically in pieces, for documents too large to hold
 * whole: open makes the temporary file beside `path`, every write is
 * redacted as it goes (bytes that may start a secret the next write
 * completes are held back, as on the standard streams), commit writes what
 * is held, flushes and renames over `path`, abort removes the temporary.
 * The first failure sticks: later writes do nothing and commit reports it.
 */
typedef struct tw_out_file {
    char *path, *tmp; /* owned */
    int fd;
    int err;      /* the first errno, or 0 */
    tw_status st; /* the first failure, or TW_OK */
    tw_buf held;  /* written to us, not yet redacted */
    tw_buf clean; /* scratch for the redacted bytes */
} tw_out_file;

tw_status tw_out_file_open(tw_out_file *f, const char *path, tw_error *err);
tw_status tw_out_file_write(tw_out_file *f, const char *p, size_t n);
tw_status tw_out_file_commit(tw_out_file *f, tw_error *err);
void tw_out_file_abort(tw_out_file *f);

/* Append the redacted bytes to `path` (created when missing). */
tw_status tw_out_append_file(const char *path, const char *data, size_t len, tw_error *err);

/*
 * Replace stdout and stderr by redacting streams over file descriptors 1
 * and 2. Bytes that may be the start of a secret the next write completes
 * are held back (at most the longest secret's encoded length) until that
 * write or the exit, when everything held is flushed redacted. Call once,
 * first thing in main. Returns false (the streams unchanged) when the
 * streams cannot be made.
 */
bool tw_out_stdio_install(void);

/* Flush both streams and everything they hold back (also run at exit). */
void tw_out_stdio_flush(void);

#endif
