/*
 * Sharding a run across machines (docs/ci-gate.md): `--shard K/N` keeps the
 * fixtures whose path relative to its fixture root (the directory given on
 * the command line, or the file's own name when a file is given) hashes to
 * shard K of N. A fixture's shard depends on that path and N alone: adding a
 * fixture elsewhere moves no other one, and every fixture is in exactly one
 * of the N shards. `toolwire merge` (merge.h) puts the shards' reports back
 * together.
 */
#ifndef TOOLWIRE_SHARD_H
#define TOOLWIRE_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/core.h"

/* The largest N of --shard K/N. */
#define TW_SHARD_MAX 1000

typedef struct tw_shard {
    unsigned k, n; /* shard k of n, 1 <= k <= n; n 0: no sharding */
} tw_shard;

/* Parse "K/N" (1 <= K <= N <= TW_SHARD_MAX); false with why otherwise. */
bool tw_shard_parse(const char *arg, tw_shard *out, tw_error *err);

/* The shard (1..n) of a fixture by its path relative to its fixture root. */
unsigned tw_shard_of(const char *rel, unsigned n);

/* The path of file relative to the fixture root it was found under: the
 * longest of roots (as given, resolved as tw_fixture_set_load resolves
 * them) that holds it, or its own name when a root is the file itself;
 * file itself when no root holds it. Points into file. */
const char *tw_shard_rel(const char *file, char *const *roots, size_t nroots);

/* tw_fixture_shard (run.h), which keeps one shard of a fixture set, is
 * defined in shard.c. */

#endif
