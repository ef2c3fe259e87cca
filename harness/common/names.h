/*
 * Unknown names in messages: the known name nearest to a misspelt one (an
 * edit distance) and the message that lists every known name with it, e.g.
 * "unknown format 'hermse' (one of: openai, hermes, …; did you mean 'hermes'?)".
 */
#ifndef TOOLWIRE_NAMES_H
#define TOOLWIRE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "toolwire/core.h"

/*
 * The name of names[0, n) nearest to `given`: the fewest insertions,
 * deletions and substitutions (case ignored; of equal ones the first), or
 * NULL when even the nearest differs in more than a third of its length
 * (at least 2 edits are always allowed) or given is longer than
 * TW_NAME_NEAR_MAX bytes. When no whole name is that near, the names'
 * stems (before the first '-') are tried: "opneai" finds "openai-response".
 */
#define TW_NAME_NEAR_MAX 64
const char *tw_nearest_name(const char *given, const char *const *names, size_t n);

/*
 * err gets "unknown WHAT 'GIVEN' (one of: A, B, …; did you mean 'N'?)",
 * the suggestion only when one is near (tw_nearest_name), with `given` cut
 * to 100 bytes. Returns false (for a caller's return).
 */
bool tw_unknown_name_error(tw_error *err, const char *what, const char *given,
                           const char *const *names, size_t n);

/*
 * The names of the registry's modules (src/registry.c: decoders, encoders,
 * request readers) that accept() takes, each once, in registry order, then
 * the n_extra names of extra: at most cap of them into names (the strings
 * are static). Returns how many were stored.
 */
size_t tw_format_names(const char **names, size_t cap, bool (*accept)(const char *name),
                       const char *const *extra, size_t n_extra);

#endif
