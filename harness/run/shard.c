/* Sharding a run's fixtures (shard.h). */
#include "shard.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "datadir.h"
#include "run.h"

bool tw_shard_parse(const char *arg, tw_shard *out, tw_error *err)
{
    const char *slash = strchr(arg, '/');
    long k = 0, n = 0;
    char kbuf[32];
    size_t kl = slash ? (size_t)(slash - arg) : 0;
    if (!slash || kl == 0 || kl >= sizeof kbuf) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--shard wants K/N (e.g. 2/3), got '%s'", arg);
        return false;
    }
    memcpy(kbuf, arg, kl);
    kbuf[kl] = 0;
    if (!tw_cli_parse_long(slash + 1, 1, TW_SHARD_MAX, &n)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--shard K/N: N must be a whole number from 1 to %d, got '%s'", TW_SHARD_MAX,
                     arg);
        return false;
    }
    if (!tw_cli_parse_long(kbuf, 1, n, &k)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--shard K/N: K must be a whole number from 1 to N (%ld), got '%s'", n, arg);
        return false;
    }
    out->k = (unsigned)k;
    out->n = (unsigned)n;
    return true;
}

unsigned tw_shard_of(const char *rel, unsigned n)
{
    /* FNV-1a, 64 bits: the same on every machine and every run */
    unsigned long long h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)rel; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    return n ? (unsigned)(h % n) + 1 : 1;
}

const char *tw_shard_rel(const char *file, char *const *roots, size_t nroots)
{
    const char *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < nroots; i++) {
        char found[TW_DATA_PATH_MAX];
        const char *root = tw_data_resolve(roots[i], found, sizeof found) ? found : roots[i];
        struct stat sb;
        if (stat(root, &sb) == 0 && S_ISREG(sb.st_mode)) {
            if (strcmp(root, file) == 0) {
                const char *name = strrchr(file, '/');
                return name ? name + 1 : file;
            }
            continue;
        }
        size_t rl = strlen(root);
        while (rl > 1 && root[rl - 1] == '/')
            rl--;
        if (rl > best_len && strncmp(file, root, rl) == 0 && file[rl] == '/') {
            best = file + rl;
            best_len = rl;
        }
    }
    if (!best)
        return file;
    while (*best == '/')
        best++;
    return best;
}

size_t tw_fixture_shard(tw_fixture_set *s, const struct tw_shard *sh, char *const *roots,
                        size_t nroots)
{
    if (!sh || sh->n == 0)
        return s->n;
    size_t kept = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (tw_shard_of(tw_shard_rel(s->fx[i].path, roots, nroots), sh->n) == sh->k)
            s->fx[kept++] = s->fx[i];
        else
            tw_fixture_free(&s->fx[i]);
    }
    s->n = kept;
    size_t bad = 0;
    for (size_t i = 0; i < s->nbad; i++) {
        if (tw_shard_of(tw_shard_rel(s->bad_files[i], roots, nroots), sh->n) == sh->k) {
            s->bad_files[bad] = s->bad_files[i];
            s->bad_why[bad++] = s->bad_why[i];
        } else {
            free(s->bad_files[i]);
            free(s->bad_why[i]);
        }
    }
    s->nbad = bad;
    return kept;
}
