#include "twtest.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

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

static const char *bin_path(void)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(bin, "TOOLWIRE_BIN is set by ctest");
    return bin;
}

int tw_test_run_bin(const char *args, const char *in, char *out, size_t outlen, bool with_err)
{
    const char *bin = bin_path();
    char in_path[] = "/tmp/tw_bin_in_XXXXXX";
    int fd = mkstemp(in_path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "wb");
    cr_assert_not_null(f);
    fputs(in ? in : "", f);
    fclose(f);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s < %s %s", bin, args, in_path,
             with_err ? "2>&1" : "2>/dev/null");
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    remove(in_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The file's first len - 1 bytes into buf (zeroed first); none when it is absent. */
static void read_into(const char *path, char *buf, size_t len)
{
    memset(buf, 0, len);
    FILE *f = fopen(path, "rb");
    if (f) {
        size_t n = fread(buf, 1, len - 1, f);
        (void)n;
        fclose(f);
    }
}

int tw_test_run_bin_in(const char *dir, const char *args, const char *in, char *out, size_t outlen,
                       char *err, size_t errlen)
{
    const char *bin = bin_path();
    char inp[512], outp[512], errp[512], cmd[8192];
    snprintf(inp, sizeof inp, "%s/in", dir);
    snprintf(outp, sizeof outp, "%s/out", dir);
    snprintf(errp, sizeof errp, "%s/err", dir);
    FILE *f = fopen(inp, "wb");
    cr_assert_not_null(f, "%s", inp);
    fputs(in ? in : "", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && '%s' %s < %s > %s 2> %s", dir, bin, args, inp, outp, errp);
    int st = system(cmd);
    read_into(outp, out, outlen);
    read_into(errp, err, errlen);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int tw_test_serve_start(const char *out_path, const char *err_path, char *url, size_t urln,
                        char *const *args)
{
    const char *bin = bin_path();
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fo, 1);
        dup2(fe, 2);
        char *argv[16] = {(char *)bin, (char *)"serve"};
        for (size_t i = 0; args[i] && i < 13; i++)
            argv[i + 2] = args[i];
        execv(bin, argv);
        _exit(127);
    }
    url[0] = '\0';
    for (int i = 0; i < 600 && !url[0]; i++) {
        usleep(50000);
        FILE *f = fopen(out_path, "r");
        char line[600];
        if (f && fgets(line, sizeof line, f) && strchr(line, '\n')) {
            char *p = strstr(line, " on http://");
            if (p) {
                p += 4;
                p[strcspn(p, " \n")] = '\0';
                snprintf(url, urln, "%s", p);
            }
        }
        if (f)
            fclose(f);
    }
    cr_assert(url[0], "serve printed no URL (%s)", out_path);
    return pid;
}
