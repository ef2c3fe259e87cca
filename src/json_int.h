/*
 * Internal to the JSON code (json.c, json_number.c, json_scan.c,
 * json_write.c, json_tree.c, json_fast.c): the marks the parser leaves on
 * nodes, word-at-a-time byte tests, and what one file calls in another.
 */
#ifndef TOOLWIRE_JSON_INT_H
#define TOOLWIRE_JSON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "json_marks.h"
#include "toolwire/json.h"

/* The one-pass parser (json_fast.c): its outcomes, and the mark
 * it leaves on a container in which no object (it included) repeats a key,
 * so that tw_json_dedupe has nothing to remove there. Removing members keeps
 * the mark true; code that adds a member to such an object must clear it. */
/* FAST_NOT_JSON: the lenient reading (tw_json_lenient_parse) met what cJSON refuses */
enum { FAST_OK = 0, FAST_BAIL, FAST_NOMEM, FAST_NOT_JSON };
#define TW_JSON_UNIQUE_BIT (1 << 14) /* above cJSON's flags and the taint bit */
#define TW_JSON_TAINT_BIT (1 << 13)  /* above cJSON's type byte and its two flags */

static inline bool tw_json_num_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Does the 8-byte word at p hold the byte c? (the zero-byte test of
 * lint_word_special on p XOR c) */
static inline bool word_has(const char *p, unsigned char c)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, p, sizeof w);
    w ^= ones * c;
    return ((w - ones) & ~w & high) != 0;
}

/* The high bit of every byte of the 8-byte word at p that ends a run of
 * plain string bytes, as lint_word_special tests them. Only the lowest set
 * bit is exact (a borrow can set bits above a true one), which is the one
 * first_special reads. */
static inline uint64_t special_bits(const char *p)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, p, sizeof w);
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return ((w & high) | ((w - ones * 0x20) & ~w & high) | ((q - ones) & ~q & high) |
            ((b - ones) & ~b & high));
}

/* Bytes before the first special byte of a word whose special_bits are m
 * (m != 0). Without a known byte order: 0, and the byte loop steps on. */
static inline size_t first_special(uint64_t m)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (size_t)__builtin_ctzll(m) >> 3;
#else
    (void)m;
    return 0;
#endif
}

/* ---- number spellings (json_number.c) ---- */
tw_status tw_json_spell_numbers(const char *buf, size_t len, const tw_buf *nums, cJSON *root);

/* ---- the lint scan (json_scan.c) ---- */
tw_status tw_json_lint_run(const char *buf, size_t len, tw_json_lint *out, tw_buf *ords,
                           tw_buf *nums);

/* ---- the one-pass parser (json_fast.c) ---- */
int tw_json_fast_parse(const char *buf, size_t len, size_t max_depth, cJSON **out, size_t *deepest,
                       tw_buf *marks, tw_json_arena *arena);
int tw_json_lenient_parse(const char *buf, size_t len, size_t max_depth, cJSON **out,
                          tw_json_arena *arena);

#endif
