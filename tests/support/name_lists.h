/* Lists of names (formats, fuzz targets, profiles) read from the tree, the
 * docs and the program's output, and how two of them differ: what the
 * table of formats is checked against (tests/lib/test_format_table.c). Every
 * reader fails the test when it cannot read. */
#ifndef TW_NAME_LISTS_H
#define TW_NAME_LISTS_H

#include <stdbool.h>
#include <stddef.h>

enum { TW_NAMES_MAX = 128, TW_NAMES_LEN = 64 };

typedef struct names {
    size_t n;
    char at[TW_NAMES_MAX][TW_NAMES_LEN];
} names;

void tw_names_add_n(names *l, const char *s, size_t len);
void tw_names_add(names *l, const char *s);
bool tw_names_has(const names *l, const char *s);
/* How list differs from table: each name missing from it and each it has
 * that the table has not, and with ordered, the first place their orders
 * differ; the count, the names in why. */
size_t tw_names_drift(const names *table, const names *list, bool ordered, char *why, size_t cap);

/* One name a line of a command's output (the command must succeed). */
names tw_names_command_lines(const char *cmd);
/* A command's whole output (the command must succeed); free() it. */
char *tw_names_command_output(const char *cmd);
/* The entries of dir that are folders (dirs) or files ending in suffix,
 * the suffix cut off; none for a dir that cannot be opened. */
names tw_names_dir_entries(const char *dir, bool dirs, const char *suffix);
/* The `names` after anchor on the first line of text that holds it. */
names tw_names_backticked(const char *text, const char *anchor);
/* The `names` of the first column of the first table after heading (with
 * first_only, the first of each row). */
names tw_names_first_column(const char *text, const char *heading, bool first_only);

#endif
