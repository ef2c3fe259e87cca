/* The toolwire program: shared helpers for subcommands. */
#ifndef TOOLWIRE_CLI_H
#define TOOLWIRE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "toolwire/core.h"
#include "toolwire/decode.h"
#include "toolwire/json.h"
#include "toolwire/neutral.h"

/* Exit codes shared by every subcommand. */
enum { TW_EXIT_OK = 0, TW_EXIT_FAIL = 1, TW_EXIT_USAGE = 2 };

typedef int (*tw_cmd_fn)(int argc, char **argv);

int tw_cmd_parse(int argc, char **argv);
int tw_cmd_main(int argc, char **argv);
int tw_cmd_encode(int argc, char **argv);
int tw_cmd_convert(int argc, char **argv);
int tw_cmd_run(int argc, char **argv);
int tw_cmd_serve(int argc, char **argv);
int tw_cmd_record(int argc, char **argv);
int tw_cmd_import(int argc, char **argv);
int tw_cmd_compare(int argc, char **argv);
int tw_cmd_gate(int argc, char **argv);

/* Print "toolwire CMD: message" on stderr; returns TW_EXIT_USAGE. */
int tw_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * Read a whole file ("-" or NULL: standard input) into a malloc'd buffer of
 * exactly *len bytes (plus a NUL not counted). Refuses more than max bytes.
 * On failure returns NULL and writes a reason into why.
 */
char *tw_read_file(const char *path, size_t max, size_t *len, char *why, size_t whylen);

/* Parse a size option ("123", "16M", "200K"); false on a bad value. */
bool tw_parse_size(const char *s, size_t *out);

/* Load a JSON file with a line/column error message. */
cJSON *tw_load_json_file(const char *path, size_t max_bytes, size_t max_depth, char *why,
                         size_t whylen);

/* Line and column (1-based) of a byte offset. */
void tw_line_col(const char *buf, size_t len, size_t off, size_t *line, size_t *col);

/* Write bytes to a FILE fully; false on error. */
bool tw_write_all(FILE *f, const char *p, size_t n);

#endif
