/* Fit for CI and live servers, through the real binary: `run --jobs N` gives
 * the report `--jobs 1` gives and is faster against a slow server; progress
 * lines on a standard error that is not a terminal (--quiet silences them);
 * --filter/--tag/--exclude-tag on every command that takes fixtures, a
 * selection that keeps nothing is exit 2 naming it. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "twtest.h"
#include "replay_suite.h"

static const char *bin(void)
{
    const char *b = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(b, "TOOLWIRE_BIN is not set");
    return b;
}

/* `toolwire ARGS` with stdout and stderr into DIR/out and DIR/err; its exit status. */
static int tw(const char *dir, const char *args)
{
    return tw_test_sh("cd '%s' && '%s' %s > '%s/out' 2> '%s/err'", dir, bin(), args, dir, dir);
}

static char *err_of(const char *dir)
{
    char p[400];
    snprintf(p, sizeof p, "%s/err", dir);
    size_t n = 0;
    return tw_test_slurp(p, &n);
}

/* `toolwire ARGS` exits rc and says `said` on stderr. */
static void expect_said(const char *dir, const char *args, int rc, const char *said)
{
    cr_expect_eq(tw(dir, args), rc, "%s", args);
    char *e = err_of(dir);
    cr_expect(strstr(e, said), "%s: %s", args, e);
    free(e);
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n fixtures "slow/NN" of per exchanges each (replayable answers) under dir/fx. */
static void write_suite(const char *dir, int n, int per)
{
    tw_test_sh("mkdir -p '%s/fx'", dir);
    for (int fi = 0; fi < n; fi++) {
        char path[400];
        snprintf(path, sizeof path, "%s/fx/slow-%02d.json", dir, fi);
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        char name[32];
        snprintf(name, sizeof name, "slow/%02d", fi);
        cr_assert_eq(
            replay_suite_write(f, name, fi % 2 ? "\"odd\"" : "\"even\"", (long)fi * per, per), 0);
    }
}

/* The whole fixtures/ tree on every mock profile at once (auto) and the script
 * server: --jobs 4 writes the JSON --jobs 1 writes, once the times are left out. */
Test(run_jobs, same_report_as_one_job, .timeout = 300)
{
    char *d = tw_test_tmpdir("twjobs");
    const char *fx = tw_test_src("fixtures");
    char args[2000];
    for (int j = 1; j <= 4; j += 3) {
        snprintf(
            args, sizeof args,
            "run --backend a=mock:auto --backend s=mock:script --jobs %d --quiet --out j%d '%s'", j,
            j, fx);
        cr_assert_eq(tw(d, args), 0, "--jobs %d", j);
    }
    for (int b = 0; b < 2; b++) {
        const char *name = b ? "s" : "a";
        cr_expect_eq(tw_test_sh("cd '%s' && for j in 1 4; do sed -E "
                                "'/\"(elapsed_ms|generated)\":/d' j$j/%s.json > %s$j; done"
                                " && test $(wc -l < %s1) -gt 1000 && cmp %s1 %s4",
                                d, name, name, name, name, name),
                     0, "the reports of backend %s differ between --jobs 1 and --jobs 4", name);
    }
    tw_test_rm_tree(d);
    free(d);
}

/* Against a separately started server that answers after 300 ms: 8 fixtures
 * of 2 exchanges with --jobs 8 take two answers' time, not sixteen. */
Test(run_jobs, faster_against_a_slow_server, .timeout = 120)
{
    char *d = tw_test_tmpdir("twjobslow");
    write_suite(d, 8, 2);
    cr_assert_eq(
        tw_test_sh("cd '%s' && ('%s' serve --port 0 --profile replay --fault '{\"delay_ms\": 300}' "
                   "--quiet fx"
                   " > serve.out 2>&1 & echo $! > serve.pid) && for i in $(seq 100); do"
                   " grep -q http serve.out && break; sleep 0.1; done; grep -q http serve.out",
                   d, bin()),
        0);
    char path[400];
    snprintf(path, sizeof path, "%s/serve.out", d);
    size_t n = 0;
    char *so = tw_test_slurp(path, &n);
    char url[200] = "";
    const char *h = strstr(so, "http://");
    cr_assert_not_null(h);
    snprintf(url, sizeof url, "%.*s", (int)strcspn(h, " \r\n"), h);
    free(so);
    double w[2];
    for (int i = 0; i < 2; i++) {
        char args[600];
        snprintf(args, sizeof args, "run --backend slow=%s --jobs %d --quiet --out o%d fx", url,
                 i ? 8 : 1, i);
        double t0 = now();
        cr_expect_eq(tw(d, args), 0, "%s", args);
        w[i] = now() - t0;
    }
    tw_test_sh("cd '%s' && kill $(cat serve.pid)", d);
    /* 16 × 0.3 s one at a time; 2 × 0.3 s with 8 at once: 4.2 s saved, whatever the
     * start-up and report writing cost (a sanitizer build, a loaded machine); the
     * ratio itself is measured by bench_jobs (docs/performance.md) */
    cr_expect_gt(w[0], 4.5);
    cr_expect_gt(w[0] - w[1], 3.0, "--jobs 1: %.2f s, --jobs 8: %.2f s", w[0], w[1]);
    cr_expect_gt(w[0] / w[1], 2.0, "--jobs 1: %.2f s, --jobs 8: %.2f s", w[0], w[1]);
    tw_test_rm_tree(d);
    free(d);
}

Test(run_jobs, capped_by_the_limits)
{
    char *d = tw_test_tmpdir("twjobcap");
    expect_said(d, "run --backend m=mock:replay --jobs 65 fixtures", 2,
                "--jobs wants a whole number from 1 to 64 (the limit max_jobs), got '65'");
    expect_said(d, "run --backend m=mock:replay --jobs 0 fixtures", 2, "got '0'");
    expect_said(d, "main --jobs 100", 2, "toolwire main: --jobs wants");
    tw_test_rm_tree(d);
    free(d);
}

/* stderr is a file here (not a terminal): one line per fixture with its counts,
 * a line every 50 exchanges inside a long fixture; --quiet: none. */
Test(run_progress, one_line_per_fixture)
{
    char *d = tw_test_tmpdir("twprog");
    write_suite(d, 3, 1);
    /* one fixture of 120 exchanges */
    tw_test_sh("cd '%s' && mkdir -p long && python3 - <<'PY'\n"
               "import json\n"
               "f=json.load(open('fx/slow-00.json'))\n"
               "x=f['exchanges'][0]\n"
               "f['name']='long/one'\n"
               "f['exchanges']=[json.loads(json.dumps(x).replace('question 0','question %%d'%%i)) "
               "for i in range(120)]\n"
               "json.dump(f,open('long/one.json','w'))\n"
               "PY",
               d);
    cr_assert_eq(tw(d, "run --backend m=mock:replay --out o --jobs 2 fx long"), 0);
    char *e = err_of(d);
    cr_expect_eq(count(e, "toolwire run: ["), 4 + 2, "%s", e);
    cr_expect(strstr(e, "] m slow/01: 1 exchange, 0 mismatches, "), "%s", e);
    cr_expect(strstr(e, "] m long/one: 120 exchanges, 0 mismatches, "), "%s", e);
    cr_expect(strstr(e, "m long/one: 50 of 120 exchanges sent"), "%s", e);
    cr_expect(strstr(e, "m long/one: 100 of 120 exchanges sent"), "%s", e);
    cr_expect(strstr(e, "[4/4]"), "%s", e);
    free(e);
    cr_assert_eq(tw(d, "run --backend m=mock:replay --out o --quiet fx long"), 0);
    e = err_of(d);
    cr_expect_str_eq(e, "");
    free(e);
    tw_test_rm_tree(d);
    free(d);
}

/* --filter: by name, by a file's tail, any of several, with tags; nothing selected: exit 2. */
Test(run_select, filter)
{
    char *d = tw_test_tmpdir("twfilter");
    write_suite(d, 6, 1);
    cr_assert_eq(tw(d, "run --backend m=mock:replay --quiet --out o --filter 'slow/0[12]' fx"), 0);
    cr_expect_eq(tw_test_sh("cd '%s' && grep -c '\"name\": \"slow/' o/m.json | grep -qx 2", d), 0);
    cr_assert_eq(tw(d, "run --backend m=mock:replay --quiet --out o --filter fx/slow-03.json "
                       "--filter '*/slow-05.json' fx"),
                 0);
    cr_expect_eq(tw_test_sh("cd '%s' && grep -c '\"name\": \"slow/' o/m.json | grep -qx 2 && grep "
                            "-q 'slow/05' o/m.json",
                            d),
                 0);
    /* tags and filters both hold: slow/01..05 odd ones */
    cr_assert_eq(tw(d, "run --backend m=mock:replay --quiet --out o --filter 'slow/*' --tag odd "
                       "--exclude-tag even fx"),
                 0);
    cr_expect_eq(tw_test_sh("cd '%s' && grep -c '\"name\": \"slow/' o/m.json | grep -qx 3", d), 0);
    expect_said(
        d, "run --backend m=mock:replay --out o2 --filter 'nosuch*' --tag odd fx", 2,
        "toolwire run: no fixture is selected by --tag odd --filter 'nosuch*' (nothing run)");
    cr_expect_neq(tw_test_sh("test -e '%s/o2/m.json'", d), 0, "no report is written");
    expect_said(d, "run --backend m=mock:replay --filter '' fx", 2,
                "--filter wants a pattern of 1 to 512 bytes");
    tw_test_rm_tree(d);
    free(d);
}

/* The same options on every command that takes fixtures. */
Test(run_select, every_command)
{
    char *d = tw_test_tmpdir("twselcmd");
    write_suite(d, 2, 1);
    struct {
        const char *args;
        const char *said;
    } cmds[] = {
        {"main --quiet --conformance fx --fixtures DECODE --filter 'nosuch*' --out m",
         "toolwire main: no fixture is selected by --filter 'nosuch*'"},
        {"serve --port 0 --for 1 --filter 'nosuch*' fx",
         "toolwire serve: no fixture is selected by --filter 'nosuch*'"},
        {"serve --port 0 --for 1 --tag nosuch fx",
         "toolwire serve: no fixture is selected by --tag nosuch"},
        {"record --backend http://127.0.0.1:9 --out r --filter 'nosuch*' fx",
         "toolwire record: no fixture is selected by --filter 'nosuch*'"},
        {"record --backend http://127.0.0.1:9 --out r --exclude-tag odd --exclude-tag even fx",
         "toolwire record: no fixture is selected by --exclude-tag odd --exclude-tag even"},
        {"clients --client x=true --out c --filter 'nosuch*' fx",
         "no scenario (fixture tagged clients) is selected by --filter 'nosuch*'"},
        {"run --backend p=http://127.0.0.1:9 --upstream openai@18099 --filter 'nosuch*' fx",
         "toolwire run: no fixture is selected by --filter 'nosuch*'"},
    };
    char args[2000];
    const char *dec = tw_test_src("tests/data/decode");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const char *at = strstr(cmds[i].args, "DECODE");
        if (at)
            snprintf(args, sizeof args, "%.*s'%s'%s", (int)(at - cmds[i].args), cmds[i].args, dec,
                     at + 6);
        else
            snprintf(args, sizeof args, "%s", cmds[i].args);
        expect_said(d, args, 2, cmds[i].said);
    }
    /* serve keeps what the filter selects: one fixture served */
    cr_expect_eq(tw(d, "serve --port 0 --for 1 --quiet --filter slow/01 fx"), 0);
    cr_expect_eq(tw_test_sh("grep -q 'serving 1 fixture(s)' '%s/out'", d), 0);
    /* main runs only the selected conformance fixtures */
    snprintf(args, sizeof args,
             "main --quiet --conformance fx --fixtures '%s' --filter slow/01 --jobs 2 --out m",
             dec);
    cr_expect_eq(tw(d, args), 0);
    cr_expect_eq(
        tw_test_sh("cd '%s' && grep -c '\"name\": \"slow/' m/mock-replay.json | grep -qx 1", d), 0);
    /* without --quiet, main's progress names each backend's fixtures */
    snprintf(args, sizeof args, "main --conformance fx --fixtures '%s' --filter slow/01 --out m",
             dec);
    expect_said(d, args, 0, "toolwire main: [1/1] mock-replay slow/01: 1 exchange, 0 mismatches, ");
    char *e = err_of(d);
    cr_expect(
        strstr(e, "toolwire main: [1/1] mock-hermes slow/01: does not fit the hermes profile"),
        "%s", e);
    free(e);
    tw_test_rm_tree(d);
    free(d);
}
