#include "twtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char slots[8][1024];
static int slot;

const char *tw_test_src(const char *rel)
{
    const char *root = getenv("TOOLWIRE_SOURCE_DIR");
    char *b = slots[slot++ % 8];
    snprintf(b, 1024, "%s/%s", root ? root : ".", rel);
    return b;
}

const char *tw_test_shared(const char *rel)
{
    const char *root = getenv("TOOLWIRE_SHARED_DIR");
    if (!root)
        return NULL;
    char *b = slots[slot++ % 8];
    snprintf(b, 1024, "%s/%s", root, rel);
    struct stat sb;
    return stat(b, &sb) == 0 ? b : NULL;
}

char *tw_test_exact(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    if (p && n)
        memcpy(p, s, n);
    return p;
}
