/* The mock backend's per-thread block for a request body's tree (mock_int.h). */
#include "mock_int.h"

/*
 * The body's cJSON tree and its normalised copy are laid in a block of the
 * handling thread, one bump of a pointer per node or string, instead of an
 * allocation per value: cJSON's hooks allocate from the block while the
 * thread has it switched on (the parse and the normalised copy only), and
 * free nothing that lies in it. The block is reused from its start by the
 * thread's next request; a tree larger than the block goes on in the heap. */

#define BODY_ARENA_BYTES ((size_t)64 << 10)

typedef struct body_arena {
    char *block;
    size_t used;
    bool on;
    bool spilled; /* an allocation went to the heap while on */
} body_arena;

static _Thread_local body_arena t_arena;
static pthread_key_t arena_key;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;

static void *arena_malloc(size_t n)
{
    body_arena *a = &t_arena;
    if (a->on && a->block) {
        size_t need = (n + 15) & ~(size_t)15;
        if (need >= n && need <= BODY_ARENA_BYTES - a->used) {
            void *p = a->block + a->used;
            a->used += need;
            return p;
        }
        a->spilled = true;
    }
    return malloc(n);
}

static void arena_free(void *p)
{
    const char *b = t_arena.block;
    if (b && (const char *)p >= b && (const char *)p < b + BODY_ARENA_BYTES)
        return; /* given back with the block */
    free(p);
}

static void arena_thread_end(void *block)
{
    free(block);
}

static void arena_install(void)
{
    if (pthread_key_create(&arena_key, arena_thread_end) != 0)
        return;
    cJSON_Hooks h = {arena_malloc, arena_free};
    cJSON_InitHooks(&h);
}

/* Switch the thread's block on, from its start (the previous request's tree
 * is gone by now). Without a block, the heap. */
void tw_mock_arena_begin(void)
{
    pthread_once(&arena_once, arena_install);
    body_arena *a = &t_arena;
    if (!a->block) {
        a->block = malloc(BODY_ARENA_BYTES);
        if (a->block && pthread_setspecific(arena_key, a->block) != 0) {
            free(a->block);
            a->block = NULL;
        }
    }
    a->used = 0;
    a->spilled = false;
    a->on = true;
}

void tw_mock_arena_resume(void)
{
    if (t_arena.block)
        t_arena.on = true;
}

void tw_mock_arena_end(void)
{
    t_arena.on = false;
}

/* A tree made while the block was on, done with: nothing to free when all of
 * it lies in the block (it goes when the block is next reused), else
 * cJSON_Delete, which frees the nodes outside the block. */
void tw_mock_arena_drop(cJSON *t)
{
    const body_arena *a = &t_arena;
    if (!t)
        return;
    if (a->spilled || !a->block || (const char *)t < a->block ||
        (const char *)t >= a->block + BODY_ARENA_BYTES)
        cJSON_Delete(t);
}
