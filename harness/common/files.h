/*
 * The program's file utilities: reading a whole file under a cap, writing
 * one atomically, appending to one, mkdir -p, joining paths and making a
 * name file-safe. Every byte written goes through out.h's redaction layer.
 */
#ifndef TOOLWIRE_FILES_H
#define TOOLWIRE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "out.h"
#include "toolwire/core.h"

/*
 * Read a whole file ("-" or NULL: standard input) into a malloc'd buffer of
 * exactly *len bytes (plus a NUL not counted), put in *data. More than max
 * bytes (0: no cap) is TW_ERR_LIMIT; a file that cannot be opened or read
 * TW_ERR_IO; no memory TW_ERR_NOMEM. On failure *data is NULL and why says
 * what failed ("cannot open 'P': …", "'P' is larger than N bytes",
 * "cannot read 'P'").
 */
tw_status tw_file_read(const char *path, size_t max, char **data, size_t *len, tw_error *err);

/* tw_file_read's data, or NULL on any failure (why set). */
char *tw_read_file(const char *path, size_t max, size_t *len, tw_error *err);

/*
 * The first max bytes of a file ("-" or NULL: standard input); what lies
 * past them is not read and is no error (a caller that wants to see that
 * an input is over its cap asks for cap + 1 bytes). The buffer holds
 * exactly *len bytes and no NUL after them, so that a reader past the end
 * is caught by the sanitizers. NULL on failure (why set).
 */
char *tw_read_file_head(const char *path, size_t max, size_t *len, tw_error *err);

/* Write bytes to a stream fully and flush it; false on error. */
bool tw_write_all(FILE *f, const char *p, size_t n);

/* Atomic write of the redacted bytes: temp file in the same directory,
 * fsync, rename (tw_out_write_file). */
tw_status tw_write_atomic(const char *path, const char *data, size_t len, tw_error *err);

/* Append the redacted bytes to path, created when missing (tw_out_append_file). */
tw_status tw_append_file(const char *path, const char *data, size_t len, tw_error *err);

/* mkdir -p: true when dir exists as a directory afterwards. */
bool tw_mkdirs(const char *dir);

/* "dir/name" into dst; false (dst cut) when it does not fit in n bytes. */
bool tw_path_join(char *dst, size_t n, const char *dir, const char *name);

/* A file-name-safe copy of a backend name ([A-Za-z0-9._-], others '_'). */
void tw_safe_name(char *dst, size_t n, const char *src);

#endif
