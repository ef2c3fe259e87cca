/* The allocator hook of libtoolwire (core.h includes it). */
#ifndef TOOLWIRE_ALLOC_H
#define TOOLWIRE_ALLOC_H

#include <stddef.h>

#include "toolwire/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The allocator. Every allocation the library makes goes through one
 * allocator: its own blocks, the strings it hands back ("malloc'd": free them with the same
 * allocator), and cJSON's, since the library's results hold cJSON trees the
 * caller frees with cJSON_Delete (tw_set_allocator sets cJSON's hooks with
 * cJSON_InitHooks). The default is the C library's malloc, realloc and free.
 *
 * malloc returns NULL, or a block of at least n bytes (n > 0) aligned for any
 * object; realloc has the C semantics (p may be NULL; on NULL the old block
 * is untouched); free takes NULL or a block of this allocator. ctx is passed
 * to each of them unchanged. A failed allocation is TW_ERR_NOMEM of the call
 * that made it: the call returns with nothing leaked.
 */
typedef struct tw_allocator {
    void *(*malloc)(void *ctx, size_t n);
    void *(*realloc)(void *ctx, void *p, size_t n);
    void (*free)(void *ctx, void *p);
    void *ctx;
} tw_allocator;

/* Install `a` (copied), or NULL (or one with a NULL function) for the
 * default. A process-wide setting: make it before any other call of the
 * library (and of cJSON), with no other thread inside either, and keep the
 * blocks of one allocator for that allocator to free. */
TW_API void tw_set_allocator(const tw_allocator *a);

#ifdef __cplusplus
}
#endif
#endif
