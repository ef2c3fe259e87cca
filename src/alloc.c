/* The allocator hook (include/toolwire/alloc.h) and the library's allocation
 * functions (alloc.h). The only file of src/ that calls the C library's
 * malloc, realloc and free. */
#include "alloc.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/alloc.h"

static tw_allocator g_alloc; /* all NULL: the C library's */
static _Thread_local size_t g_failures;

/* p, counting a failed allocation of n bytes */
static void *counted(void *p, size_t n)
{
    g_failures += !p && n;
    return p;
}

size_t tw_alloc_failures(void)
{
    return g_failures;
}

void *tw_malloc(size_t n)
{
    return counted(g_alloc.malloc ? g_alloc.malloc(g_alloc.ctx, n) : malloc(n), n);
}

void *tw_calloc(size_t n, size_t size)
{
    if (!g_alloc.malloc)
        return counted(calloc(n, size), n * size);
    if (size && n > SIZE_MAX / size)
        return counted(NULL, 1);
    void *p = counted(g_alloc.malloc(g_alloc.ctx, n * size), n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *tw_realloc(void *p, size_t n)
{
    return counted(g_alloc.realloc ? g_alloc.realloc(g_alloc.ctx, p, n) : realloc(p, n), n);
}

void tw_free(void *p)
{
    if (!p)
        return;
    if (g_alloc.free)
        g_alloc.free(g_alloc.ctx, p);
    else
        free(p);
}

/* cJSON's hooks carry no context: these two read it from g_alloc. */
static void *cjson_malloc(size_t n)
{
    return tw_malloc(n);
}
static void cjson_free(void *p)
{
    tw_free(p);
}

void tw_set_allocator(const tw_allocator *a)
{
    if (a && a->malloc && a->realloc && a->free) {
        g_alloc = *a;
        cJSON_Hooks h = {cjson_malloc, cjson_free};
        cJSON_InitHooks(&h);
    } else {
        g_alloc = (tw_allocator){0};
        cJSON_InitHooks(NULL);
    }
}
