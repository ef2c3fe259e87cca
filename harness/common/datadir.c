/* Where the program finds its data (datadir.h). */
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TOOLWIRE_DATADIR
#define TOOLWIRE_DATADIR "/usr/local/share/toolwire"
#endif
#ifndef TOOLWIRE_BIN_TO_DATA
#define TOOLWIRE_BIN_TO_DATA "../share/toolwire"
#endif

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

size_t tw_data_roots(char (*roots)[TW_DATA_PATH_MAX], size_t max)
{
    size_t n = 0;
    const char *env = getenv(TW_DATA_ENV);
    if (n < max && env && *env)
        snprintf(roots[n++], sizeof roots[0], "%s", env);
    if (n < max)
        snprintf(roots[n++], sizeof roots[0], "%s", ".");
    char exe[TW_DATA_PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < max && len > 0 && (size_t)len < sizeof exe - 1) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            int w = snprintf(roots[n], sizeof roots[0], "%s/%s", exe, TOOLWIRE_BIN_TO_DATA);
            if (w > 0 && (size_t)w < sizeof roots[0])
                n++;
        }
    }
    if (n < max)
        snprintf(roots[n++], sizeof roots[0], "%s", TOOLWIRE_DATADIR);
    return n;
}

/* path is dir or under it: *rest is the part after dir ("" or "/…"). */
static bool under(const char *path, const char *dir, const char **rest)
{
    size_t k = strlen(dir);
    if (strncmp(path, dir, k) != 0 || (path[k] != '\0' && path[k] != '/'))
        return false;
    *rest = path + k;
    return true;
}

bool tw_data_resolve(const char *path, char *dst, size_t n)
{
    snprintf(dst, n, "%s", path);
    const char *p = path;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    const char *rest;
    bool fix = under(p, "fixtures", &rest);
    bool dec = !fix && under(p, "tests/data/decode", &rest);
    if (*path == '/' || (!fix && !dec))
        return exists(path);
    char roots[TW_DATA_MAX_ROOTS][TW_DATA_PATH_MAX];
    size_t nr = tw_data_roots(roots, TW_DATA_MAX_ROOTS);
    char cand[8400];
    for (size_t i = 0; i < nr; i++) {
        if (strcmp(roots[i], ".") == 0 && exists(path)) { /* a checkout: the path as given */
            snprintf(dst, n, "%s", path);
            return true;
        }
        snprintf(cand, sizeof cand, "%s/%s%s", roots[i], fix ? "fixtures" : "decode", rest);
        if (!exists(cand) && dec)
            snprintf(cand, sizeof cand, "%s/tests/data/decode%s", roots[i], rest);
        if (exists(cand) && strlen(cand) < n) {
            snprintf(dst, n, "%s", cand);
            return true;
        }
    }
    return false;
}
