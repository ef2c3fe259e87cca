/* run --shard K/N and toolwire merge, through the real program (TOOLWIRE_BIN). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/json.h"
#include "twtest.h"

static const char *bin(void)
{
    const char *b = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(b, "TOOLWIRE_BIN is set by ctest");
    return b;
}

static cJSON *load(const char *path)
{
    size_t n = 0;
    char *s = tw_test_slurp(path, &n);
    cJSON *j = cJSON_ParseWithLength(s, n);
    free(s);
    cr_assert_not_null(j, "%s is JSON", path);
    return j;
}

static void save(const char *path, const cJSON *j)
{
    char *s = cJSON_Print(j);
    tw_test_spit(path, s);
    free(s);
}

/* The fixtures' files of a report, as one string "f1\nf2\n…". */
static char *files_of(const char *report)
{
    cJSON *j = load(report);
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(cap, 1);
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(j, "fixtures"))
    {
        const char *file = cJSON_GetStringValue(cJSON_GetObjectItem(f, "file"));
        cr_assert(len + strlen(file) + 2 < cap);
        len += (size_t)sprintf(out + len, "%s\n", file);
    }
    cJSON_Delete(j);
    return out;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Is line (without its newline) one of the lines of s? */
static bool has_line(const char *s, const char *line)
{
    size_t l = strlen(line);
    for (const char *p = s; (p = strstr(p, line)); p++)
        if ((p == s || p[-1] == '\n') && p[l] == '\n')
            return true;
    return false;
}

/* Remove what differs between two runs of the same fixtures: times. */
static void strip_times(cJSON *j)
{
    cJSON_DeleteItemFromObject(j, "generated");
    cJSON_DeleteItemFromObject(j, "elapsed_ms");
    cJSON *c;
    cJSON_ArrayForEach(c, j) strip_times(c);
}

/* Reports dir/want and dir/got are equal but for their times; on a difference both are written
 * to dir/want.cmp and dir/got.cmp (with their times removed) for diff. */
static void assert_same_report(const char *dir, const char *want, const char *got, const char *what)
{
    char path[4200], pw[4200] = "", pg[4200] = "";
    snprintf(path, sizeof path, "%s/%s", dir, want);
    cJSON *a = load(path);
    snprintf(path, sizeof path, "%s/%s", dir, got);
    cJSON *m = load(path);
    strip_times(a);
    strip_times(m);
    bool same = cJSON_Compare(a, m, true);
    if (!same) {
        char *sa = cJSON_Print(a), *sm = cJSON_Print(m);
        snprintf(pw, sizeof pw, "%s/%s.cmp", dir, want);
        tw_test_spit(pw, sa);
        snprintf(pg, sizeof pg, "%s/%s.cmp", dir, got);
        tw_test_spit(pg, sm);
        free(sa);
        free(sm);
    }
    cJSON_Delete(a);
    cJSON_Delete(m);
    cr_assert(same, "%s: %s differs from %s (diff %s %s)", what, got, want, pw, pg);
}

/* A fixture tree: a copy of fixtures/openai and one file that does not load. */
static char *make_tree(const char *prefix)
{
    char *dir = tw_test_tmpdir(prefix);
    cr_assert_eq(
        tw_test_sh(
            "mkdir -p '%s/fx' && cp -r '%s'/* '%s/fx/' && printf '{not json' >'%s/fx/broken.json'",
            dir, tw_test_src("fixtures/openai"), dir, dir),
        0);
    return dir;
}

static int run(const char *dir, const char *out, const char *extra)
{
    return tw_test_sh(
        "cd '%s' && '%s' run --quiet --backend replay=mock:replay --out '%s' %s fx >/dev/null 2>&1",
        dir, bin(), out, extra);
}

Test(shard, shards_cover_each_fixture_once_and_merge_to_the_whole_run, .timeout = 300)
{
    char *dir = make_tree("tw-shard");
    int whole = run(dir, "all", "");
    /* the broken file cannot be judged: exit 2, every other fixture judged and written */
    cr_assert_eq(whole, 2, "the unsharded run (exit %d)", whole);
    char path[4200];
    snprintf(path, sizeof path, "%s/all/replay.json", dir);
    char *all = files_of(path);
    size_t nall = count_lines(all);
    cr_assert_gt(nall, 40, "the whole run holds every fixture and the broken file");
    char *shard[3];
    size_t total = 0;
    int broken_in = 0;
    for (int k = 1; k <= 3; k++) {
        char out[32], opt[32];
        snprintf(out, sizeof out, "s%d", k);
        snprintf(opt, sizeof opt, "--shard %d/3", k);
        int rc = run(dir, out, opt);
        /* 2 in the one shard that holds the broken file */
        broken_in += rc == 2;
        cr_assert(rc <= 2, "shard %d/3 (exit %d)", k, rc);
        snprintf(path, sizeof path, "%s/s%d/replay.json", dir, k);
        shard[k - 1] = files_of(path);
        size_t n = count_lines(shard[k - 1]);
        cr_assert(n > 0 && n < nall, "shard %d/3 holds a part: %zu of %zu", k, n, nall);
        total += n;
    }
    cr_assert_eq(total, nall, "the shards hold %zu fixtures, the whole run %zu", total, nall);
    cr_assert_eq(broken_in, 1, "one shard holds the broken file and exits 2");
    /* every fixture of the whole run, the broken file too, in exactly one shard */
    for (char *line = all, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        int in = has_line(shard[0], line) + has_line(shard[1], line) + has_line(shard[2], line);
        cr_assert_eq(in, 1, "%s is in %d shards", line, in);
        *nl = '\n';
    }

    /* the merge equals the unsharded run, times aside, in every kind */
    int rc = tw_test_sh("cd '%s' && '%s' merge --out merged s2/replay.json s3/replay.json "
                        "s1/replay.json >merge.out 2>&1",
                        dir, bin());
    /* the reports hold the broken file as a fixture that was not judged: a mismatch */
    cr_assert_eq(rc, 1, "merge exits 1 (the broken file's row), got %d", rc);
    assert_same_report(dir, "all/replay.json", "merged/replay.json", "the merge of the shards");
    cr_assert_eq(tw_test_sh("cd '%s/merged' && test -s replay.md && test -s replay.junit.xml && "
                            "test -s replay.html",
                            dir),
                 0, "merge writes every kind");
    cr_assert_eq(
        tw_test_sh("grep -q 'merged replay (mock:replay): 3 report(s)' '%s/merge.out'", dir), 0);
    /* a shard given twice: its fixtures once */
    rc = tw_test_sh(
        "cd '%s' && '%s' merge --quiet --out twice s1/replay.json s2/replay.json s1/replay.json "
        "s3/replay.json >/dev/null 2>&1; rc=$?; grep -v '\"generated\"' twice/replay.json >t1 && "
        "grep -v '\"generated\"' merged/replay.json >t2 && cmp -s t1 t2 || exit 9; exit $rc",
        dir, bin());
    cr_assert_eq(rc, 1, "a shard given twice merges to the same report");
    free(all);
    for (int k = 0; k < 3; k++)
        free(shard[k]);
    tw_test_rm_tree(dir);
    free(dir);
}

Test(shard, a_fixture_keeps_its_shard_when_fixtures_are_added_or_the_tree_moves, .timeout = 300)
{
    char *dir = make_tree("tw-shard-stable");
    cr_assert(run(dir, "before", "--shard 2/3") <=
              2); /* 2: the tree holds a file that does not load */
    /* the same tree elsewhere, with fixtures added before and among the others */
    cr_assert_eq(tw_test_sh("cd '%s' && mkdir -p moved/deeper && cp -r fx moved/deeper/fx && "
                            "for n in 000_first aaa_new mmm_middle; do "
                            "cp fx/nonstream_single_call.json moved/deeper/fx/$n.json; done",
                            dir),
                 0);
    int rc = tw_test_sh(
        "cd '%s/moved/deeper' && '%s' run --quiet --backend replay=mock:replay --shard 2/3 "
        "--out '%s/after' '%s/moved/deeper/fx' >/dev/null 2>&1",
        dir, bin(), dir, dir);
    cr_assert(rc <= 2);
    char path[4200];
    snprintf(path, sizeof path, "%s/before/replay.json", dir);
    char *before = files_of(path);
    snprintf(path, sizeof path, "%s/after/replay.json", dir);
    char *after = files_of(path);
    /* every fixture of shard 2 stays in shard 2, and nothing else joins it but added files */
    for (char *line = before, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        char moved[4200];
        snprintf(moved, sizeof moved, "%s/moved/deeper/%s", dir, line);
        cr_assert(has_line(after, moved), "%s left shard 2 when fixtures were added", line);
        *nl = '\n';
    }
    cr_assert_leq(count_lines(after), count_lines(before) + 3);
    free(before);
    free(after);
    tw_test_rm_tree(dir);
    free(dir);
}

/* merge DIR FILES… in dir: its exit status; its stderr in dir/err. */
static int merge(const char *dir, const char *files)
{
    return tw_test_sh("cd '%s' && '%s' merge --out m %s >out 2>err", dir, bin(), files);
}

static bool err_says(const char *dir, const char *what)
{
    return tw_test_sh("grep -qF -- '%s' '%s/err'", what, dir) == 0;
}

/* Report a with one field of its first fixture's first exchange's first check (or the report's own
 * field when path is NULL) set to a string, written to dir/name. */
static void edit(const char *dir, const char *from, const char *name, const char *key,
                 const char *value, bool in_check)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, from);
    cJSON *j = load(path);
    cJSON *obj = j;
    if (in_check) {
        /* the first fixture with a check */
        const cJSON *f;
        obj = NULL;
        cJSON_ArrayForEach(f, cJSON_GetObjectItem(j, "fixtures"))
        {
            cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItem(f, "exchanges"), 0);
            cJSON *c = x ? cJSON_GetArrayItem(cJSON_GetObjectItem(x, "checks"), 0) : NULL;
            if (c) {
                obj = c;
                break;
            }
        }
        cr_assert_not_null(obj, "%s has a check", path);
    }
    if (strcmp(key, "version") == 0)
        cJSON_ReplaceItemInObject(obj, key, cJSON_CreateNumber(atof(value)));
    else
        cJSON_ReplaceItemInObject(obj, key, cJSON_CreateString(value));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    save(path, j);
    cJSON_Delete(j);
}

Test(shard, merge_refuses_what_does_not_merge, .timeout = 300)
{
    char *dir = make_tree("tw-merge-refuse");
    cr_assert(run(dir, "s1", "--shard 1/2") <= 2); /* 2: the tree holds a file that does not load */
    cr_assert(run(dir, "s2", "--shard 2/2") <= 2); /* 2: the tree holds a file that does not load */
    /* two shards merge */
    int ok = merge(dir, "s1/replay.json s2/replay.json");
    cr_assert(ok == 0 || ok == 1, "two shards merge (exit %d)", ok);

    /* another report version */
    edit(dir, "s2/replay.json", "v0.json", "version", "0", false);
    cr_assert_eq(merge(dir, "s1/replay.json v0.json"), 2);
    cr_assert(err_says(dir, "is report version 1, v0.json version 0"));
    /* another toolwire */
    edit(dir, "s2/replay.json", "tw.json", "toolwire", "0.0.1-other", false);
    cr_assert_eq(merge(dir, "s1/replay.json tw.json"), 2);
    cr_assert(err_says(dir, "by toolwire 0.0.1-other"));
    /* one backend name, two servers */
    edit(dir, "s2/replay.json", "other.json", "target", "http://127.0.0.1:9/v1", false);
    cr_assert_eq(merge(dir, "s1/replay.json other.json"), 2);
    cr_assert(err_says(
        dir, "backend replay is mock:replay in one and http://127.0.0.1:9/v1 in the other"));
    /* one fixture in two shards with different verdicts */
    edit(dir, "s1/replay.json", "flipped.json", "verdict", "fail", true);
    cr_assert_eq(tw_test_sh("cmp -s '%s/s1/replay.json' '%s/flipped.json'", dir, dir), 1);
    cr_assert_eq(merge(dir, "s1/replay.json s2/replay.json flipped.json"), 2);
    cr_assert(err_says(dir, "with different verdicts"));
    cr_assert(err_says(dir, "s1/replay.json and in flipped.json"));
    cr_assert_eq(tw_test_sh("test -e '%s/m/replay.json' && grep -q flipped '%s/err'", dir, dir), 0,
                 "the refusal names the report (the earlier good merge's files stay)");
    /* two names that make one file */
    edit(dir, "s2/replay.json", "case.json", "backend", "REPLAY", false);
    cr_assert_eq(tw_test_sh("cd '%s' && '%s' merge --out m2 s1/replay.json case.json >out 2>err",
                            dir, bin()),
                 2);
    cr_assert(err_says(dir, "REPLAY"));
    cr_assert_eq(tw_test_sh("test -e '%s/m2/replay.json'", dir), 1, "nothing written on a refusal");
    /* usage */
    cr_assert_eq(tw_test_sh("cd '%s' && '%s' merge s1/replay.json 2>err", dir, bin()), 2);
    cr_assert(err_says(dir, "--out DIR is needed"));
    cr_assert_eq(merge(dir, "s1/replay.json nothere.json"), 2);
    cr_assert(err_says(dir, "nothere.json"));
    tw_test_rm_tree(dir);
    free(dir);
}

Test(shard, merge_of_several_backends_writes_the_comparison, .timeout = 300)
{
    char *dir = make_tree("tw-merge-two");
    for (int k = 1; k <= 2; k++)
        cr_assert(
            tw_test_sh(
                "cd '%s' && '%s' run --quiet --backend replay=mock:replay --backend auto=mock:auto "
                "--shard %d/2 --out s%d fx >/dev/null 2>&1",
                dir, bin(), k, k) <= 2); /* 2: the tree holds a file that does not load */
    cr_assert(
        tw_test_sh(
            "cd '%s' && '%s' run --quiet --backend replay=mock:replay --backend auto=mock:auto "
            "--out all fx >/dev/null 2>&1",
            dir, bin()) <= 2); /* 2: the tree holds a file that does not load */
    int rc = merge(dir, "s1/replay.json s1/auto.json s2/auto.json s2/replay.json");
    cr_assert(rc <= 2, "exit %d", rc);
    cr_assert_eq(tw_test_sh("cd '%s' && test -s m/comparison.md && test -s m/comparison.html && "
                            "cmp -s m/comparison.md all/comparison.md",
                            dir),
                 0, "the merged comparison is the whole run's");
    cr_assert_eq(tw_test_sh("grep -c '^merged ' '%s/out' | grep -qx 2", dir), 0,
                 "one line per backend");
    tw_test_rm_tree(dir);
    free(dir);
}

Test(shard, shard_option_is_checked)
{
    const char *bad[] = {"0/3", "4/3", "3", "a/b", "1/0", "1/1001", "/3", "1/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(
            tw_test_sh(
                "'%s' run --backend r=mock:replay --shard '%s' --out /nonexistent/x 2>/dev/null",
                bin(), bad[i]),
            2, "--shard %s is refused", bad[i]);
        cr_assert_eq(
            tw_test_sh("'%s' run --backend r=mock:replay --shard '%s' 2>&1 | grep -q -- '--shard'",
                       bin(), bad[i]),
            0, "the message for %s names --shard", bad[i]);
    }
    cr_assert_eq(tw_test_sh("'%s' clients --shard 2/1 2>&1 | grep -q 'K must be'", bin()), 0);
    cr_assert_eq(tw_test_sh("'%s' merge --help | grep -q 'run --shard K/N'", bin()), 0);
    cr_assert_eq(tw_test_sh("'%s' --help | grep -q '^  merge '", bin()), 0);
}

Test(shard, main_shards_its_conformance_fixtures_and_the_merge_is_the_whole_job, .timeout = 300)
{
    char *dir = make_tree("tw-shard-main");
    /* the broken file is a conformance fixture that does not load: main fails on it in one shard */
    const char *decode = tw_test_src("tests/data/decode");
    int whole = tw_test_sh(
        "cd '%s' && '%s' main --quiet --conformance fx --fixtures '%s' --out all >/dev/null 2>&1",
        dir, bin(), decode);
    cr_assert_eq(whole, 2, "main: the broken file is not judged (exit %d)", whole);
    for (int k = 1; k <= 2; k++)
        cr_assert(
            tw_test_sh(
                "cd '%s' && '%s' main --conformance fx --fixtures '%s' --shard %d/2 --out s%d "
                ">main%d.out 2>&1",
                dir, bin(), decode, k, k,
                k) <= 2); /* 2: the tree holds a file that does not load */
    cr_assert_eq(
        tw_test_sh("test -s '%s/s1/decode-summary.md' && test ! -e '%s/s2/decode-summary.md' && "
                   "grep -q 'decode fixtures: run by shard 1/2' '%s/main2.out'",
                   dir, dir, dir),
        0, "the decode fixtures run in shard 1 only");
    /* every backend's merged report is the whole job's, times aside */
    int rc = tw_test_sh("cd '%s' && '%s' merge --quiet --out m s1/*.json s2/*.json >/dev/null 2>&1",
                        dir, bin());
    cr_assert(rc <= 2, "merge exit %d", rc);
    cr_assert_eq(tw_test_sh("cd '%s' && for f in all/*.json; do b=${f#all/}; "
                            "grep -v -e '\"generated\"' -e '\"elapsed_ms\"' \"$f\" >x1; "
                            "grep -v -e '\"generated\"' -e '\"elapsed_ms\"' \"m/$b\" >x2; "
                            "cmp -s x1 x2 || { echo \"$b differs\"; exit 1; }; done; "
                            "test $(ls all/*.json | wc -l) -ge 10",
                            dir),
                 0, "the merged reports are the whole job's");
    tw_test_rm_tree(dir);
    free(dir);
}

Test(shard, clients_shards_its_scenarios_and_the_merge_is_the_whole_run, .timeout = 300)
{
    char *dir = tw_test_tmpdir("tw-shard-clients");
    char path[4200];
    snprintf(path, sizeof path, "%s/driver.sh", dir);
    /* a stand-in client library: the same answer to every scenario (verdicts pass and fail) */
    tw_test_spit(
        path,
        "if [ \"$1\" = --describe ]; then echo "
        "'{\"protocol\":1,\"client\":\"stand-in\",\"version\":\"1\","
        "\"endpoint\":\"openai\",\"modes\":[\"create\",\"stream\"]}'; exit 0; fi\ncat >/dev/null\n"
        "echo '{\"content\":\"\",\"reasoning\":null,\"tool_calls\":[{\"id\":\"c1\",\"name\":"
        "\"get_weather\",\"arguments\":{}}],\"finish_reason\":\"tool_calls\",\"error\":null,"
        "\"requests\":1}'\n");
    const char *scen = tw_test_src("fixtures/clients");
    int whole = tw_test_sh(
        "cd '%s' && '%s' clients --quiet --client stand-in='sh driver.sh' --out all '%s' "
        ">/dev/null 2>&1",
        dir, bin(), scen);
    cr_assert(whole == 0 || whole == 1, "clients judged (exit %d)", whole);
    for (int k = 1; k <= 2; k++)
        cr_assert(
            tw_test_sh(
                "cd '%s' && '%s' clients --quiet --client stand-in='sh driver.sh' --shard %d/2 "
                "--out s%d '%s' >/dev/null 2>&1",
                dir, bin(), k, k, scen) <= 2); /* 2: the tree holds a file that does not load */
    snprintf(path, sizeof path, "%s/s1/stand-in.json", dir);
    char *s1 = files_of(path);
    snprintf(path, sizeof path, "%s/s2/stand-in.json", dir);
    char *s2 = files_of(path);
    cr_assert(count_lines(s1) > 0 && count_lines(s2) > 0, "both shards hold scenarios");
    int rc = tw_test_sh(
        "cd '%s' && '%s' merge --quiet --out m s2/stand-in.json s1/stand-in.json >/dev/null 2>&1",
        dir, bin());
    cr_assert_eq(rc, whole, "merge exits as the whole run did");
    assert_same_report(dir, "all/stand-in.json", "m/stand-in.json",
                       "the merged client report (rows of a scenario's modes in their order)");
    /* a shard given twice: each scenario's rows once */
    rc = tw_test_sh(
        "cd '%s' && '%s' merge --quiet --out m2 s1/stand-in.json s2/stand-in.json s1/stand-in.json "
        ">/dev/null 2>&1",
        dir, bin());
    cr_assert_eq(rc, whole);
    assert_same_report(dir, "all/stand-in.json", "m2/stand-in.json", "a client shard given twice");
    free(s1);
    free(s2);
    tw_test_rm_tree(dir);
    free(dir);
}
