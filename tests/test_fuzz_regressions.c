/*
 * Every fuzz regression input (fuzz/regressions/<target>/) and every corpus
 * input (corpus/<target>/) through the same invariant checks the libFuzzer
 * targets assert (fuzz/invariants.c). A violated invariant aborts the test
 * process; the message names the input. In sanitizer builds the memory
 * bounds and the per-input leak check are on as well.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "invariants.h"
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

ParameterizedTestParameters(fuzz, replay)
{
    static struct target_param params[] = {
        {"think"},          {"hermes"},           {"hermes_stream"},
        {"fenced"},         {"openai_response"},  {"openai_stream"},
        {"anthropic_response"}, {"anthropic_stream"}, {"vllm"},
        {"proxy"},          {"schema"},           {"sse"},
        {"fixture"},        {"import"},           {"json_diff"},
    };
    return cr_make_param_array(struct target_param, params, sizeof params / sizeof params[0]);
}

ParameterizedTest(struct target_param *p, fuzz, replay)
{
    tw_fz_fn fn = tw_fz_target(p->name);
    if (!fn)
        cr_skip_test("target %s is not built yet", p->name);
    char rel[128];
    snprintf(rel, sizeof rel, "fuzz/regressions/%s", p->name);
    size_t regressions = replay_dir(fn, tw_test_src(rel));
    snprintf(rel, sizeof rel, "corpus/%s", p->name);
    size_t corpus = replay_dir(fn, tw_test_src(rel));
    cr_log_info("%s: %zu regression and %zu corpus inputs replayed", p->name, regressions,
                corpus);
    cr_assert_gt(regressions + corpus, 0, "no input found for target %s", p->name);
}

/* Every target the fuzz build knows is listed above. */
Test(fuzz, every_target_is_replayed)
{
    static const char *listed[] = {"think", "hermes", "hermes_stream", "fenced",
                                   "openai_response", "openai_stream", "anthropic_response",
                                   "anthropic_stream", "vllm", "proxy", "schema", "sse",
                                   "fixture", "import", "json_diff"};
    for (const char *const *n = tw_fz_target_names(); *n; n++) {
        bool found = false;
        for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++)
            found = found || strcmp(listed[i], *n) == 0;
        cr_expect(found, "target %s is not replayed by this test", *n);
    }
}
