/*
 * `toolwire run --jobs`: a suite of 48 exchanges (24 fixtures of 2 exchanges)
 * against a separately started `toolwire serve` that answers every request
 * after 500 ms (--fault '{"delay_ms": 500}'), run with --jobs 1 and with
 * --jobs 8. Prints both wall times, the ratio and whether the two reports are
 * the same once their times are left out, as Markdown. Exit status 1 when
 * --jobs 8 is not at least 6 times faster or the reports differ.
 *
 * usage: bench_jobs [DIR holding the toolwire program (default: this program's directory)]
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../tests/support/replay_suite.h"

#define FIXTURES 24
#define PER_FIXTURE 2
#define DELAY_MS 500
#define JOBS 8
#define WANT_RATIO 6.0

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_jobs: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void write_fixtures(const char *dir)
{
    for (int fi = 0; fi < FIXTURES; fi++) {
        char path[600];
        snprintf(path, sizeof path, "%s/slow-%02d.json", dir, fi);
        FILE *f = fopen(path, "w");
        if (!f)
            die("cannot write %s: %s", path, strerror(errno));
        char name[32];
        snprintf(name, sizeof name, "bench/slow-%02d", fi);
        if (replay_suite_write(f, name, NULL, (long)fi * PER_FIXTURE, PER_FIXTURE) != 0)
            die("cannot write %s", path);
    }
}

/* Start `toolwire serve` with the delay; its URL into url, its pid returned. */
static pid_t start_serve(const char *tw, const char *fxdir, char *url, size_t n)
{
    int fd[2];
    if (pipe(fd) != 0)
        die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        char fault[64];
        snprintf(fault, sizeof fault, "{\"delay_ms\": %d}", DELAY_MS);
        execl(tw, tw, "serve", "--port", "0", "--profile", "replay", "--fault", fault, "--quiet",
              fxdir, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    char line[1024];
    url[0] = '\0';
    while (in && fgets(line, sizeof line, in)) {
        const char *h = strstr(line, "http://");
        if (h) {
            snprintf(url, n, "%s", h);
            url[strcspn(url, "\r\n")] = '\0';
            break;
        }
    }
    if (!url[0])
        die("toolwire serve did not say its URL");
    return pid; /* the pipe stays open: serve writes nothing more with --quiet */
}

/* One run; its wall time, exit status into *code. */
static double run(const char *tw, const char *url, int jobs, const char *out, const char *fxdir,
                  int *code)
{
    char backend[300], j[16];
    snprintf(backend, sizeof backend, "slow=%s", url);
    snprintf(j, sizeof j, "%d", jobs);
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        execl(tw, tw, "run", "--backend", backend, "--jobs", j, "--quiet", "--out", out, fxdir,
              (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        die("cannot run %s", tw);
    *code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return now() - t0;
}

int main(int argc, char **argv)
{
    char bindir[1024];
    if (argc > 1)
        snprintf(bindir, sizeof bindir, "%s", argv[1]);
    else {
        snprintf(bindir, sizeof bindir, "%s", argv[0]);
        char *sl = strrchr(bindir, '/');
        if (sl)
            *sl = '\0';
        else
            snprintf(bindir, sizeof bindir, ".");
    }
    char tw[1100];
    snprintf(tw, sizeof tw, "%s/toolwire", bindir);
    if (access(tw, X_OK) != 0)
        die("no toolwire program at %s", tw);
    char dir[] = "/tmp/bench_jobs_XXXXXX";
    if (!mkdtemp(dir))
        die("cannot make a temporary directory");
    char fxdir[256], out1[256], out8[256], url[512], cmd[1200];
    snprintf(fxdir, sizeof fxdir, "%s/fixtures", dir);
    snprintf(out1, sizeof out1, "%s/jobs1", dir);
    snprintf(out8, sizeof out8, "%s/jobs%d", dir, JOBS);
    mkdir(fxdir, 0755);
    write_fixtures(fxdir);
    pid_t serve = start_serve(tw, fxdir, url, sizeof url);
    int c1 = 0, c8 = 0;
    double w1 = run(tw, url, 1, out1, fxdir, &c1);
    double w8 = run(tw, url, JOBS, out8, fxdir, &c8);
    kill(serve, SIGTERM);
    waitpid(serve, NULL, 0);
    /* the same report once the times (and nothing else) are left out */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && sed -E '/\"(elapsed_ms|generated)\":/d' jobs1/slow.json > a && "
             "sed -E '/\"(elapsed_ms|generated)\":/d' jobs%d/slow.json > b && cmp -s a b",
             dir, JOBS);
    bool same = system(cmd) == 0;
    double ratio = w8 > 0 ? w1 / w8 : 0;
    int n = FIXTURES * PER_FIXTURE;
    printf(
        "# `toolwire run --jobs`\n\n"
        "%d exchanges (%d fixtures of %d exchanges, each fixture's exchanges in order) against a "
        "separately started `toolwire serve --profile replay --fault '{\"delay_ms\": %d}'` "
        "(every answer after %d ms), `toolwire run --backend slow=URL --quiet`:\n\n"
        "| --jobs | wall time | exit status |\n|---|---|---|\n"
        "| 1 | %.2f s | %d |\n| %d | %.2f s | %d |\n\n"
        "Ratio: %.2f× faster with --jobs %d (wanted: at least %.0f×). The two JSON reports are %s "
        "once `elapsed_ms` and `generated` are left out.\n",
        n, FIXTURES, PER_FIXTURE, DELAY_MS, DELAY_MS, w1, c1, JOBS, w8, c8, ratio, JOBS, WANT_RATIO,
        same ? "byte-identical" : "DIFFERENT");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_jobs: could not remove %s\n", dir);
    return ratio >= WANT_RATIO && same && c1 == 0 && c8 == 0 ? 0 : 1;
}
