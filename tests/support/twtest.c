#include "twtest.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "files.h"
#include "toolwire/core.h"

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

int tw_test_sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s", cmd);
    return WEXITSTATUS(st);
}

char *tw_test_slurp(const char *path, size_t *len)
{
    tw_error why = {.offset = -1};
    char *b = tw_read_file(path, (size_t)256 << 20, len, &why);
    cr_assert_not_null(b, "%s", why.message);
    return b;
}

void tw_test_spit(const char *path, const char *s)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    fwrite(s, 1, strlen(s), f);
    fclose(f);
}

char *tw_test_tmpdir(const char *prefix)
{
    char t[256];
    snprintf(t, sizeof t, "/tmp/%s_XXXXXX", prefix);
    cr_assert_not_null(mkdtemp(t));
    return strdup(t);
}

void tw_test_rm_tree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

const char *tw_test_window_of(const char *s, size_t n, const char *key)
{
    size_t kl = strlen(key);
    for (size_t w = 0; w + 8 <= kl; w++) {
        const char *m = tw_memmem(s, n, key + w, 8);
        if (m)
            return m;
    }
    return NULL;
}
