/*
 * Where the program finds its data: the conformance fixtures and the decode
 * fixtures, outside a source checkout too.
 *
 * A relative path under `fixtures` (the default of run and main, and any
 * `fixtures/…` argument) or `tests/data/decode` (the default of main) is
 * looked up in these data roots, in order; the first that holds it wins:
 *
 *   1. $TOOLWIRE_DATA, when set and not empty;
 *   2. the current directory (a source checkout): the path as given;
 *   3. ../share/toolwire beside the program's own directory (an installed
 *      tree, wherever its prefix was moved);
 *   4. the data directory compiled in at configure time
 *      (<prefix>/share/toolwire).
 *
 * A data root holds `fixtures/` and the decode fixtures in `decode/` (the
 * installed layout) or `tests/data/decode/` (a checkout). Every other path,
 * and every absolute path, is used as given.
 */
#ifndef TOOLWIRE_DATADIR_H
#define TOOLWIRE_DATADIR_H

#include <stdbool.h>
#include <stddef.h>

#define TW_DATA_ENV "TOOLWIRE_DATA"

/* Room for one path (a data root, a resolved file, the program's own
 * path), and how many data roots there can be (the four above). */
#define TW_DATA_PATH_MAX 4096
#define TW_DATA_MAX_ROOTS 4

/* The data roots in search order (see above); `roots` gets up to `max`
 * entries. Returns how many were written. */
size_t tw_data_roots(char (*roots)[TW_DATA_PATH_MAX], size_t max);

/* Resolve one path as described above into dst. Returns true when dst
 * names something that exists; false leaves dst = path (the caller reports
 * the path the user gave). */
bool tw_data_resolve(const char *path, char *dst, size_t n);

#endif
