/* Internal: the library's allocation functions. Every malloc, calloc,
 * realloc and free of src/ is one of these; they go through the allocator of
 * tw_set_allocator (include/toolwire/alloc.h). */
#ifndef TOOLWIRE_ALLOC_INT_H
#define TOOLWIRE_ALLOC_INT_H

#include <stddef.h>

void *tw_malloc(size_t n);
/* n * size bytes, zeroed; NULL when the product overflows. */
void *tw_calloc(size_t n, size_t size);
void *tw_realloc(void *p, size_t n);
void tw_free(void *p);
/* Allocations that failed on the calling thread so far (cJSON's too while
 * an allocator is set): a NULL from a function that does not say why
 * (cJSON_Parse) is out of memory when this count moved. */
size_t tw_alloc_failures(void);

#endif
