/*
 * Internal: the hashes of the lookup tables that keep per-call work
 * constant (call ids, stream call slots). Seeded from an address, so a
 * hostile input cannot pick keys that all land in one probe chain.
 */
#ifndef TOOLWIRE_HASH_H
#define TOOLWIRE_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t tw_hash_mix(uint64_t x)
{
    static const char seed_anchor = 0;
    x ^= (uint64_t)(uintptr_t)&seed_anchor;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 31;
    return x;
}

static inline uint64_t tw_hash_mem(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211u;
    }
    return tw_hash_mix(h);
}

static inline uint64_t tw_hash_str(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211u;
    }
    return tw_hash_mix(h);
}

#endif
