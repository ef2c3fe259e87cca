/*
 * Every fuzz regression input (fuzz/regressions/<target>/) and every corpus
 * input (corpus/<target>/) through the same invariant checks the libFuzzer
 * targets assert (fuzz/invariants.c). A violated invariant aborts the test
 * process; the message names the input. In sanitizer builds the memory
 * bounds and the per-input leak check are on as well. TOOLWIRE_REPLAY_CORPUS=0
 * leaves the corpus to the fuzz targets (scripts/test.sh does so in the
 * sanitizer build, where scripts/fuzz-ci.sh runs every corpus input).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "invariants.h"
#include "toolwire/registry.h"
#include "twtest.h"

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            unsigned char *nb = realloc(buf, cap);
            cr_assert_not_null(nb);
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    /* exact size, so a read one past the end is caught */
    unsigned char *exact = malloc(len ? len : 1);
    cr_assert_not_null(exact);
    memcpy(exact, buf, len);
    free(buf);
    *n = len;
    return exact;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every regular file in dir; returns how many. */
static size_t replay_dir(tw_fz_fn fn, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            cr_assert_not_null(names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    size_t ran = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            size_t len;
            unsigned char *data = read_all(path, &len);
            cr_assert_not_null(data, "cannot read %s", path);
            tw_fz_set_input_name(path);
            fn(data, len);
            tw_fz_set_input_name(NULL);
            free(data);
            ran++;
        }
        free(names[i]);
    }
    free(names);
    return ran;
}

struct target_param {
    char name[32];
};

/* every target of the table of formats (src/format_table.h), built or not */
ParameterizedTestParameters(fuzz, replay)
{
    static struct target_param params[64];
    size_t n = 0;
    for (const char *const *t = tw_fz_table_target_names(); *t && n < 64; n++, t++)
        snprintf(params[n].name, sizeof params[n].name, "%s", *t);
    return cr_make_param_array(struct target_param, params, n);
}

ParameterizedTest(struct target_param *p, fuzz, replay)
{
    tw_fz_fn fn = tw_fz_target(p->name);
    if (!fn)
        cr_skip_test("target %s is not built yet", p->name);
    char rel[128];
    /* a known regression gets every stream kind, whatever its seed picks */
    snprintf(rel, sizeof rel, "fuzz/regressions/%s", p->name);
    tw_fz_set_every_stream(true);
    size_t regressions = replay_dir(fn, tw_test_src(rel));
    tw_fz_set_every_stream(false);
    /* TOOLWIRE_REPLAY_CORPUS=0: the corpus is replayed elsewhere in the same
     * run (scripts/test.sh: fuzz-ci's targets run it under ASan+UBSan beside
     * the sanitizer build's tests); the regressions always are. */
    const char *rc = getenv("TOOLWIRE_REPLAY_CORPUS");
    size_t corpus = 0;
    if (!rc || strcmp(rc, "0") != 0) {
        snprintf(rel, sizeof rel, "corpus/%s", p->name);
        corpus = replay_dir(fn, tw_test_src(rel));
    }
    cr_log_info("%s: %zu regression and %zu corpus inputs replayed", p->name, regressions, corpus);
    cr_assert(corpus > 0 || (rc && strcmp(rc, "0") == 0), "target %s has no corpus", p->name);
}

/* Every target the fuzz build has is one of the table's, and so replayed
 * above; every one of the table's has a corpus, a dictionary and options. */
Test(fuzz, every_target_is_replayed)
{
    size_t n = 0;
    for (const char *const *t = tw_fz_table_target_names(); *t; t++)
        n++;
    cr_assert_lt(n, 64, "more targets than the replay's parameters hold");
    for (const char *const *b = tw_fz_target_names(); *b; b++) {
        bool found = false;
        for (const char *const *t = tw_fz_table_target_names(); *t; t++)
            found = found || strcmp(*t, *b) == 0;
        cr_expect(found, "target %s is not replayed by this test", *b);
    }
}

/* Which streams an input gets follows its seed byte: a batch target streams
 * once with the plan; a stream target adds one byte at a time (odd seed,
 * bodies of at most 4 KiB) or one feed (even seed), so across the 256 seeds
 * both occur; the regression replay runs all three. */
Test(fuzz, stream_plans_follow_the_seed)
{
    unsigned plans[3];
    bool wholes[3];
    size_t bytewise = 0, whole = 0;
    for (unsigned seed = 0; seed < 256; seed++) {
        unsigned char in[TW_FZ_HDR + 16] = {0};
        in[7] = (unsigned char)seed;
        tw_fz_setup s;
        tw_fz_read_header(in, sizeof in, &s);
        cr_assert_eq(tw_fz_stream_plans(&s, false, plans, wholes), 1);
        cr_expect(plans[0] == seed && !wholes[0]);
        cr_assert_eq(tw_fz_stream_plans(&s, true, plans, wholes), 2, "seed %u", seed);
        cr_expect(plans[0] == seed && !wholes[0]);
        if (seed & 1) {
            cr_expect(plans[1] == 0 && !wholes[1], "odd seed %u: one byte at a time", seed);
            bytewise++;
        } else {
            cr_expect(wholes[1], "even seed %u: one feed", seed);
            whole++;
        }
        tw_fz_set_every_stream(true);
        size_t n = tw_fz_stream_plans(&s, true, plans, wholes);
        tw_fz_set_every_stream(false);
        cr_expect_eq(n, seed ? 3u : 2u, "seed %u", seed);
        cr_expect(wholes[n - 1], "seed %u: the last stream is one feed", seed);
    }
    cr_expect_eq(bytewise, 128);
    cr_expect_eq(whole, 128);
    /* a body over 4 KiB is never fed one byte at a time beside the plan */
    size_t big = TW_FZ_HDR + 4097;
    unsigned char *in = calloc(1, big);
    cr_assert_not_null(in);
    in[7] = 3;
    tw_fz_setup s;
    tw_fz_read_header(in, big, &s);
    cr_assert_eq(tw_fz_stream_plans(&s, true, plans, wholes), 2);
    cr_expect(wholes[1]);
    free(in);
}

/* Each request regression input is named after the reader it was found in
 * ("<reader>-<what>") and its seed byte still picks that reader: a reader
 * added to the table moves none of them (fuzz/inv_request.c). */
Test(fuzz, request_regressions_keep_their_reader)
{
    const char *dir = tw_test_src("fuzz/regressions/request");
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "no %s", dir);
    size_t n = 0, nm = 0;
    const tw_module *mods = tw_modules(&nm);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        const char *named = NULL;
        for (size_t i = 0; i < nm; i++) {
            if (mods[i].kind != TW_MODULE_REQUEST_READER)
                continue;
            const char *r = mods[i].reader->name;
            size_t k = strlen(r);
            if (strncmp(e->d_name, r, k) == 0 && e->d_name[k] == '-' &&
                (!named || k > strlen(named)))
                named = r;
        }
        cr_expect_not_null(named, "%s: the name starts with no request reader's name", e->d_name);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        unsigned char *b = read_all(path, &len);
        cr_assert_not_null(b);
        cr_assert_gt(len, 7, "%s: no header", e->d_name);
        const tw_request_reader_ops *rd = tw_fz_request_reader(b[7]);
        cr_assert_not_null(rd);
        if (named)
            cr_expect_str_eq(rd->name, named, "%s: its seed byte %u picks %s", e->d_name, b[7],
                             rd->name);
        free(b);
        n++;
    }
    closedir(d);
    cr_assert_gt(n, 0);
}
