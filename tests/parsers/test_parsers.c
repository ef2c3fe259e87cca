/* toolwire parsers and toolwire parser-driver as whole programs (TOOLWIRE_BIN): the reference
 * decoders through the protocol pass every fixture; drivers that misbehave are each their
 * finding; an expected-differences file moves a finding apart; the pieces. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parsers.h"
#include "twtest.h"

static char *dir;

static void fini(void)
{
    if (dir)
        tw_test_rm_tree(dir);
    free(dir);
    dir = NULL;
}

TestSuite(parsers, .fini = fini);

#define OUT_MAX (1 << 20)

static char out[OUT_MAX], err[OUT_MAX];

static const char *bin(void)
{
    const char *b = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(b, "TOOLWIRE_BIN is not set");
    return b;
}

/* `toolwire parsers ARGS --out DIR/reports` in DIR; its exit status, out and err filled. */
static int parsers(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int parsers(const char *fmt, ...)
{
    char args[6000], all[7000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(all, sizeof all, "parsers %s --out %s/reports", args, dir);
    return tw_test_run_bin_in(dir, all, "", out, sizeof out, err, sizeof err);
}

static bool have_python(void)
{
    return tw_test_sh("command -v python3 >/dev/null 2>&1") == 0;
}

/* A misbehaving driver over one fixture (a content, two calls), --timeout 2. */
static int misbehave(const char *mode, const char *more)
{
    return parsers("--parser bad=\"python3 %s %s %s\" --fixtures %s --timeout 2 %s",
                   tw_test_src("tests/data/parsers/misbehave.py"), bin(), mode,
                   tw_test_src("tests/data/decode/hermes/content_between_blocks.json"), more);
}

/* One decode fixture in four of every format's folder (the first, the fifth,
 * …), linked into DIR/fx: each dialect's rules sampled, one driver process
 * per fixture and way of feeding kept to a few hundred. */
static const char *sample_fixtures(void)
{
    static char fx[700];
    snprintf(fx, sizeof fx, "%s/fx", dir);
    char cmd[2400];
    snprintf(cmd, sizeof cmd,
             "set -e; cd '%s'; for d in */; do mkdir -p '%s'/\"$d\"; "
             "ls \"$d\" | awk 'NR %% 4 == 1' | while read -r f; do "
             "ln -s \"$PWD/$d$f\" '%s'/\"$d$f\"; done; done",
             tw_test_src("tests/data/decode"), fx, fx);
    cr_assert_eq(tw_test_sh("%s", cmd), 0, "cannot link the fixtures into %s", fx);
    return fx;
}

Test(parsers, own_driver_passes_the_fixtures, .timeout = 600)
{
    dir = tw_test_tmpdir("tw_parsers_own");
    int rc =
        parsers("--parser toolwire=\"%s parser-driver\" --fixtures %s", bin(), sample_fixtures());
    cr_assert_eq(rc, 0, "exit %d\nstdout:\n%.3000s\nstderr:\n%.3000s", rc, out, err);
    cr_assert(strstr(out, "parser toolwire (toolwire "), "%s", out);
    cr_assert(strstr(out, ": ok, "), "%s", out);
    cr_assert(strstr(out, " 0 fail, 0 expected differences"), "%s", out);
    /* a progress line as each dialect ends */
    cr_assert(strstr(err, "toolwire parsers: toolwire hermes: "), "%s", err);
    cr_assert(strstr(err, " 0 findings, "), "%s", err);
    /* every text dialect ran; the ones whose options are toolwire's own are skipped */
    char p[600];
    snprintf(p, sizeof p, "%s/reports/toolwire.json", dir);
    size_t n;
    char *rep = tw_test_slurp(p, &n);
    size_t nd;
    const char *const *d = tw_parser_dialects(&nd);
    cr_assert_geq(nd, 10);
    for (size_t i = 0; i < nd; i++) {
        char row[80];
        snprintf(row, sizeof row, "\"%s/", d[i]);
        cr_assert(strstr(rep, row), "no row of dialect %s", d[i]);
    }
    cr_assert(strstr(rep, "nothing retracted"));
    cr_assert(strstr(rep, "the streamed final message equals the one-piece one"));
    cr_assert(strstr(rep, "is toolwire's own: the protocol does not carry it"));
    cr_assert_null(strstr(rep, "\"verdict\": \"fail\""));
    free(rep);
    snprintf(p, sizeof p, "%s/reports/comparison.md", dir);
    char *cmp = tw_test_slurp(p, &n);
    cr_assert(strstr(cmp, "parser"), "%s", cmp);
    free(cmp);
    snprintf(p, sizeof p, "%s/reports/toolwire.junit.xml", dir);
    free(tw_test_slurp(p, &n));
    snprintf(p, sizeof p, "%s/reports/toolwire.html", dir);
    free(tw_test_slurp(p, &n));
}

Test(parsers, retracted_content_is_prs06)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_retract");
    int rc = misbehave("retract", "");
    cr_assert_eq(rc, 1, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(out, "[stream]"), "%s", out);
    cr_assert(strstr(out, "PRS-06"), "%s", out);
    cr_assert(strstr(out, "retracts: content"), "%s", out);
    /* one piece: nothing to retract, and the final message is right */
    cr_assert_null(strstr(out, "[whole]"), "%s", out);
}

Test(parsers, renamed_call_is_prs06)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_rename");
    int rc = misbehave("rename", "");
    cr_assert_eq(rc, 1, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(out, "PRS-06"), "%s", out);
    cr_assert(strstr(out, "call 0 renamed \\\"a_renamed\\\" to \\\"a\\\"") ||
                  strstr(out, "call 0 renamed \"a_renamed\" to \"a\""),
              "%s", out);
    cr_assert_null(strstr(out, "PRS-01"), "%s", out);
}

Test(parsers, call_read_differently_is_prs02)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_differ");
    int rc = misbehave("differ", "");
    cr_assert_eq(rc, 1, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(out, "[whole]"), "%s", out);
    cr_assert(strstr(out, "[stream]"), "%s", out);
    cr_assert(strstr(out, "PRS-02"), "%s", out);
    cr_assert(strstr(out, "extra"), "%s", out);
    cr_assert_null(strstr(out, "PRS-06"), "%s", out);
}

Test(parsers, expected_difference_is_shown_apart)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_expected");
    char p[600];
    snprintf(p, sizeof p, "%s/expected.json", dir);
    tw_test_spit(p, "{\"parser\": \"misbehave-differ\", \"differences\": ["
                    "{\"dialect\": \"hermes\", \"fixture\": \"content_between_*\", "
                    "\"checks\": [\"PRS-02\"], \"what\": \"an extra member\", "
                    "\"reason\": \"the parser adds one on purpose\"},"
                    "{\"dialect\": \"glm\", \"checks\": [\"PRS-03\"], \"what\": \"stale\", "
                    "\"reason\": \"matches nothing\"}]}");
    char more[700];
    snprintf(more, sizeof more, "--expected %s", p);
    int rc = misbehave("differ", more);
    cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(out, ": ok, "), "%s", out);
    cr_assert(strstr(out, "2 expected differences"), "%s", out);
    cr_assert(strstr(out, "expected hermes/content_between_blocks [whole] PRS-02"), "%s", out);
    cr_assert(strstr(out, "(expected difference: an extra member; the parser adds one on purpose)"),
              "%s", out);
    /* the reports count them apart and mark each verdict with its declaration */
    char rp[600];
    size_t n;
    snprintf(rp, sizeof rp, "%s/reports/bad.json", dir);
    char *rep = tw_test_slurp(rp, &n);
    cr_assert(strstr(rep, "\"expected_differences\": 2,"), "%s", rep);
    cr_assert(strstr(rep, "\"declared\": \"an extra member; the parser adds one on purpose\""),
              "%s", rep);
    cr_assert_null(strstr(rep, "(expected difference"), "the evidence is the check's own");
    free(rep);
    snprintf(rp, sizeof rp, "%s/reports/bad.md", dir);
    rep = tw_test_slurp(rp, &n);
    cr_assert(strstr(rep, "## Expected differences (declared in --expected, with the reason)"),
              "%s", rep);
    free(rep);
    snprintf(rp, sizeof rp, "%s/reports/bad.html", dir);
    rep = tw_test_slurp(rp, &n);
    cr_assert(strstr(rep, "<b>Expected differences: 2</b>"), "%s", rep);
    cr_assert_null(strstr(rep, "class=\"http"), "a parser's rows have no HTTP cell");
    free(rep);
    /* a declaration that matched nothing is named */
    cr_assert(strstr(err, "differences[1] (stale) matched no finding"), "%s", err);
    /* but not one of a dialect --dialect left out: it was never tried */
    snprintf(more, sizeof more, "--expected %s --dialect hermes", p);
    rc = misbehave("differ", more);
    cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, err);
    cr_assert_null(strstr(err, "matched no finding"), "%s", err);
}

Test(parsers, arguments_as_json_text_pass)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_strargs");
    int rc = misbehave("stringargs", "");
    cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(out, ": ok, 2 rows, 0 skipped,"), "%s", out);
}

Test(parsers, crash_is_prs08)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_crash");
    int rc = misbehave("crash", "");
    cr_assert_eq(rc, 1, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(out, "PRS-08: expected pass or skip, got fail: crash: the driver exited with "
                          "status -1 (killed by a signal)"),
              "%s", out);
}

Test(parsers, hang_is_prs08, .timeout = 120)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_hang");
    int rc = misbehave("hang", "");
    cr_assert_eq(rc, 1, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(out, "PRS-08: expected pass or skip, got fail: hang: killed after 2000 ms"),
              "%s", out);
}

Test(parsers, garbage_is_prs08)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_garbage");
    int rc = misbehave("garbage", "");
    cr_assert_eq(rc, 1, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(
        strstr(out,
               "PRS-08: expected pass or skip, got fail: bad output: line 2 is not a JSON object"),
        "%s", out);
}

Test(parsers, final_line_alone_says_what_was_expected)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_finalonly");
    int rc = misbehave("finalonly", "");
    cr_assert_eq(rc, 1, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(out, "bad output: line 1: expected the piece line of piece 0 of 1 "
                          "({\\\"piece\\\": 0, …}), got the final line") ||
                  strstr(out, "bad output: line 1: expected the piece line of piece 0 of 1 "
                              "({\"piece\": 0, …}), got the final line"),
              "%s", out);
}

Test(parsers, describe_garbage_is_shown)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_descgarbage");
    int rc = misbehave("describegarbage", "");
    cr_assert_eq(rc, 2, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(err, "--describe did not print one JSON object; it printed 42 bytes, "
                          "beginning \"usage: parser [--help]\\x09no \\x22describe\\x22 "
                          "here\\x0a\""),
              "%s", err);
}

/* An --out that cannot be a directory: refused once, before any driver runs. */
Test(parsers, unwritable_out_is_refused_before_any_driver)
{
    dir = tw_test_tmpdir("tw_parsers_badout");
    char p[600], drv[700];
    snprintf(p, sizeof p, "%s/reports", dir); /* --out DIR/reports: a regular file */
    tw_test_spit(p, "x");
    snprintf(drv, sizeof drv, "%s/drv.sh", dir);
    tw_test_spit(drv, "#!/bin/sh\ntouch \"$(dirname \"$0\")/ran\"\nexec \"$TOOLWIRE_BIN\" "
                      "parser-driver \"$@\"\n");
    cr_assert_eq(tw_test_sh("chmod +x '%s'", drv), 0);
    int rc = parsers("--parser own=%s --fixtures %s", drv,
                     tw_test_src("tests/data/decode/hermes/content_between_blocks.json"));
    cr_assert_eq(rc, 2, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(err, "toolwire parsers: --out: cannot create directory ") &&
                  strstr(err, "/reports: Not a directory\n"),
              "%s", err);
    const char *second = strstr(err, "cannot");
    cr_assert_null(strstr(second + 1, "cannot"), "one message: %s", err);
    cr_assert_null(strstr(out, "->"), "%s", out);
    snprintf(p, sizeof p, "%s/ran", dir);
    cr_assert_neq(access(p, F_OK), 0, "a driver ran");
}

Test(parsers, refusals_are_exit_2)
{
    if (!have_python())
        cr_skip("python3 is not installed");
    dir = tw_test_tmpdir("tw_parsers_refused");
    int rc = misbehave("baddialect", "");
    cr_assert_eq(rc, 2, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(err, "'nonesuch' is not a text decoder"), "%s", err);
    char p[600], more[700];
    snprintf(p, sizeof p, "%s/bad.json", dir);
    tw_test_spit(p, "{\"parser\": \"bad\", \"differences\": [{\"checks\": [\"PRS-99\"], "
                    "\"what\": \"x\", \"reason\": \"y\"}]}");
    snprintf(more, sizeof more, "--expected %s", p);
    rc = misbehave("differ", more);
    cr_assert_eq(rc, 2, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(err, "PRS-99 is not a parser check"), "%s", err);
    rc = parsers("--parser x=true --dialect json");
    cr_assert_eq(rc, 2, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(err, "unknown --dialect (a text decoder) 'json' (one of: "), "%s", err);
    rc = parsers("--parser x=true --dialect hermez");
    cr_assert_eq(rc, 2, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(err, "did you mean 'hermes'?"), "%s", err);
    /* a failed --describe: its log's last line, without the line end */
    rc = parsers("--parser x=nonexistent_prog_of_no_one --fixtures %s",
                 tw_test_src("tests/data/decode/hermes/content_between_blocks.json"));
    cr_assert_eq(rc, 2, "exit %d\n%s\n%s", rc, out, err);
    cr_assert(strstr(err, "--describe exited with status 127: "), "%s", err);
    cr_assert_null(strstr(err, "\\x0A"), "%s", err);
}

Test(parsers, own_driver_speaks_the_protocol)
{
    char buf[8192];
    int rc = tw_test_run_bin("parser-driver --describe", "", buf, sizeof buf, false);
    cr_assert_eq(rc, 0);
    cr_assert(strstr(buf, "{\"dialect\":\"hermes\""), "%s", buf);
    const char *req = "{\"protocol\":1,\"dialect\":\"hermes\",\"pieces\":[\"<think>r</th\","
                      "\"ink>Hi <tool_\",\"call>{\\\"name\\\": \\\"f\\\", \\\"arguments\\\": "
                      "{\\\"a\\\": 1}}</tool_call>\"],\"options\":{\"reasoning\":true}}";
    rc = tw_test_run_bin("parser-driver --parse", req, buf, sizeof buf, false);
    cr_assert_eq(rc, 0, "%s", buf);
    cr_assert(strstr(buf, "{\"piece\":0,\"message\":{\"content\":\"\""), "%s", buf);
    cr_assert(strstr(buf, "{\"piece\":2,"), "%s", buf);
    cr_assert(strstr(buf, "{\"final\":true,\"message\":{\"content\":\"Hi\",\"reasoning\":\"r\","
                          "\"tool_calls\":[{\"name\":\"f\",\"arguments\":{\"a\":1},\"id\":"),
              "%s", buf);
    cr_assert(strstr(buf, "\"error\":null}}\n"), "%s", buf);
    /* a dialect toolwire has no decoder of */
    rc = tw_test_run_bin("parser-driver --parse",
                         "{\"protocol\":1,\"dialect\":\"json\","
                         "\"pieces\":[\"x\"]}",
                         buf, sizeof buf, true);
    cr_assert_eq(rc, 2, "%s", buf);
    cr_assert(strstr(buf, "not a text decoder"), "%s", buf);
}

Test(parsers, pieces)
{
    const char *t = "Hello <tool_call>{\"name\": \"f\"}</tool_call> caf\xc3\xa9 [TOOL_CALLS] end";
    size_t len = strlen(t), cuts[200], again[200];
    size_t n = tw_parser_cut(t, len, 7, cuts);
    cr_assert_gt(n, 5);
    cr_assert_eq(cuts[n - 1], len);
    bool in_call = false, in_mistral = false;
    const char *tc = strstr(t, "<tool_call>"), *mc = strstr(t, "[TOOL_CALLS]");
    for (size_t i = 0, p = 0; i < n; p = cuts[i], i++) {
        cr_assert_gt(cuts[i], p, "piece %zu is empty", i);
        /* a piece is at most 8 bytes, but to end a character or cut a token */
        cr_assert_leq(cuts[i] - p, TW_PARSER_TOKEN_MAX + 4, "piece %zu", i);
        cr_assert_neq((unsigned char)t[cuts[i] < len ? cuts[i] : 0] & 0xC0, 0x80,
                      "a cut inside é at %zu", cuts[i]);
        size_t c = cuts[i];
        in_call = in_call || (c > (size_t)(tc - t) && c < (size_t)(tc - t) + 11);
        in_mistral = in_mistral || (c > (size_t)(mc - t) && c < (size_t)(mc - t) + 12);
    }
    cr_assert(in_call, "no cut inside <tool_call>");
    cr_assert(in_mistral, "no cut inside [TOOL_CALLS]");
    /* the same seed, the same cuts; another seed, other cuts */
    cr_assert_eq(tw_parser_cut(t, len, 7, again), n);
    cr_assert_arr_eq(again, cuts, n * sizeof *cuts);
    size_t m = tw_parser_cut(t, len, 8, again);
    cr_assert(m != n || memcmp(again, cuts, n * sizeof *cuts) != 0);
    cr_assert(tw_parser_text_ok("caf\xc3\xa9", 5));
    cr_assert_not(tw_parser_text_ok("caf\xc3", 4));
    cr_assert_not(tw_parser_text_ok("a\0b", 3));
    cr_assert_not(tw_parser_text_ok("\xed\xa0\x80", 3)); /* a surrogate */
}
