/*
 * Every list of formats agrees with the one table (src/format_table.h): the
 * registry, the mock's profiles and path kinds, the fuzz targets as both
 * fuzz builds read them (fuzz/table.cmake, fuzz/build.sh --list), the fuzz
 * folders (corpus/<target>, fuzz/<target>.dict and .options, fuzz/seeds,
 * fuzz/regressions), the --help texts and the lists in the docs. A list that
 * drifts fails here with the names it lacks or has too many; the drift
 * tests plant one in each kind of list and see it found.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../src/format_table.h"
#include "apis.h"
#include "mock.h"
#include "toolwire/registry.h"
#include "name_lists.h"
#include "twtest.h"

#define EXPECT_NO_DRIFT(table, list, ordered, what)                                                \
    do {                                                                                           \
        char why_[2048];                                                                           \
        cr_expect_eq(tw_names_drift(&(table), &(list), ordered, why_, sizeof why_), 0,             \
                     "%s drifts from src/format_table.h:%s", what, why_);                          \
    } while (0)

/* ---- the table's own lists, as the C code sees them ---- */

#define X_NONE3(a, b, c)
#define X_NONE4(a, b, c, d)

static names table_decoders(void)
{
    names l = {0};
#define X_DEC(sym, nm, fam, fuzz) tw_names_add(&l, nm);
    TW_FORMAT_TABLE(X_DEC, X_NONE4, X_NONE3)
#undef X_DEC
    return l;
}

static names table_modules(void)
{
    names l = {0};
#define X_DEC(sym, nm, fam, fuzz) tw_names_add(&l, nm);
#define X_ENC(sym, nm, fam, in) tw_names_add(&l, nm);
#define X_READ(sym, nm, fam) tw_names_add(&l, nm);
    TW_FORMAT_TABLE(X_DEC, X_ENC, X_READ)
#undef X_DEC
#undef X_ENC
#undef X_READ
    return l;
}

static names table_readers(void)
{
    names l = {0};
#define X_READ(sym, nm, fam) tw_names_add(&l, nm);
    TW_FORMAT_TABLE(X_NONE4, X_NONE4, X_READ)
#undef X_READ
    return l;
}

static names table_encoders(void)
{
    names l = {0};
#define X_ENC(sym, nm, fam, in) tw_names_add(&l, nm);
    TW_FORMAT_TABLE(X_NONE4, X_ENC, X_NONE3)
#undef X_ENC
    return l;
}

/* "target CONDITION" as the fuzz builds print them */
static names table_target_rows(void)
{
    names l = {0};
    char row[TW_NAMES_LEN];
#define X_T(t, nm, mode) snprintf(row, sizeof row, "%s ALWAYS", #t), tw_names_add(&l, row);
#define X_DEC(sym, nm, fam, fuzz) TW_FUZZ_EACH(X_T, nm, fuzz)
#define X_O(t, cond) snprintf(row, sizeof row, "%s %s", #t, #cond), tw_names_add(&l, row);
    TW_FORMAT_TABLE(X_DEC, X_NONE4, X_NONE3)
    TW_FUZZ_OTHER_TARGETS(X_O)
#undef X_T
#undef X_DEC
#undef X_O
    return l;
}

static names table_targets(void)
{
    names rows = table_target_rows(), l = {0};
    for (size_t i = 0; i < rows.n; i++)
        tw_names_add_n(&l, rows.at[i], strcspn(rows.at[i], " "));
    return l;
}

static names table_profiles(void)
{
    names l = {0};
#define X_P(ID, nm, apis, dec) tw_names_add(&l, nm);
    TW_MOCK_PROFILE_TABLE(X_P)
#undef X_P
    return l;
}

static char *doc(const char *rel)
{
    size_t len;
    return tw_test_slurp(tw_test_src(rel), &len);
}

static const char *bin(void)
{
    const char *b = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(b, "TOOLWIRE_BIN is not set");
    return b;
}

/* ---- the lists agree with the table ---- */

Test(format_table, registry_is_the_table)
{
    names table = table_modules(), reg = {0};
    size_t n;
    const tw_module *m = tw_modules(&n);
    for (size_t i = 0; i < n; i++)
        tw_names_add(&reg, m[i].name);
    /* a name is both a decoder's and an encoder's: compare in order, by position */
    cr_assert_eq(reg.n, table.n, "the registry has %zu modules, the table %zu", reg.n, table.n);
    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(reg.at[i], table.at[i], "module %zu", i);
    names dec = table_decoders(), formats = {0};
    for (const tw_format_ops *const *f = tw_formats(); *f; f++)
        tw_names_add(&formats, (*f)->name);
    EXPECT_NO_DRIFT(dec, formats, true, "tw_formats()");
}

Test(format_table, mock_profiles_and_path_kinds)
{
    names table = table_profiles(), mock = {0};
    for (const char *const *p = tw_mock_profiles(); *p; p++)
        tw_names_add(&mock, *p);
    EXPECT_NO_DRIFT(table, mock, true, "tw_mock_profiles()");
    /* each row's path says its kind, and its decoders are registered */
#define X_A(ID, code, be, p1, p2, how, resp, strm, sc, fams)                                       \
    cr_expect_eq(tw_path_kind("/x/" p1), TW_API_##ID, "%s", p1);                                   \
    cr_expect(!p2 || tw_path_kind(p2) == TW_API_##ID, "%s", #ID);                                  \
    cr_expect_not_null(tw_format_find(resp), "%s", resp);                                          \
    cr_expect_not_null(tw_format_find(strm), "%s", strm);
    TW_API_TABLE(X_A)
#undef X_A
    cr_expect_eq(tw_path_kind("/v1/models"), TW_API_NONE);
    cr_expect_eq(tw_path_kind(NULL), TW_API_NONE);
}

/* import's recognition, as it was before the table: the path's ending
 * after a '/', Gemini's stream only with alt=sse */
Test(format_table, import_recognition)
{
    static const struct {
        const char *path;
        bool sse;
        const char *want;
    } cases[] = {
        {"/v1/chat/completions", false, "openai-response"},
        {"/v1/chat/completions?x=1", true, "openai-stream"},
        {"/v1/xchat/completions", false, NULL},
        {"/v1/messages#frag", true, "anthropic-stream"},
        {"/v1/messages", false, "anthropic-response"},
        {"/generate", true, "vllm-generate"},
        {"/regenerate", false, NULL},
        {"/v1/responses", false, "openai-responses"},
        {"/v1/responses", true, "openai-responses-stream"},
        {"/v1beta/models/g:streamGenerateContent?alt=sse", true, "gemini-stream"},
        {"/v1beta/models/g:streamGenerateContent", false, NULL},
        {"/v1beta/models/g:generateContent", false, "gemini"},
        {"/v1beta/models/g:generateContent", true, NULL},
        {"/v1/embeddings", false, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = tw_api_recorded_decoder(cases[i].path, cases[i].sse);
        if (!cases[i].want)
            cr_expect_null(got, "%s: %s", cases[i].path, got);
        else
            cr_expect(got && strcmp(got, cases[i].want) == 0, "%s: %s, not %s", cases[i].path,
                      got ? got : "(none)", cases[i].want);
    }
    cr_expect_str_eq(tw_api_backend_of("openai-responses-stream"), "openai");
    cr_expect_str_eq(tw_api_backend_of("vllm-generate"), "vllm-native");
    cr_expect_null(tw_api_backend_of("hermes"));
}

Test(format_table, fuzz_builds_read_the_table)
{
    names table = table_target_rows();
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "bash '%s' --list", tw_test_src("fuzz/build.sh"));
    names sh = tw_names_command_lines(cmd);
    EXPECT_NO_DRIFT(table, sh, true, "fuzz/build.sh --list");
    snprintf(cmd, sizeof cmd, "cmake -P '%s'", tw_test_src("fuzz/table.cmake"));
    names cm = tw_names_command_lines(cmd);
    EXPECT_NO_DRIFT(table, cm, true, "fuzz/table.cmake");
}

Test(format_table, fuzz_folders)
{
    names t = table_targets();
    names corpus = tw_names_dir_entries(tw_test_src("corpus"), true, NULL);
    EXPECT_NO_DRIFT(t, corpus, false, "corpus/");
    names dicts = tw_names_dir_entries(tw_test_src("fuzz"), false, ".dict");
    EXPECT_NO_DRIFT(t, dicts, false, "fuzz/*.dict");
    names opts = tw_names_dir_entries(tw_test_src("fuzz"), false, ".options");
    EXPECT_NO_DRIFT(t, opts, false, "fuzz/*.options");
    /* seeds and regressions: not every target has them, but each is a target's */
    names seeds = tw_names_dir_entries(tw_test_src("fuzz/seeds"), true, NULL);
    names regs = tw_names_dir_entries(tw_test_src("fuzz/regressions"), true, NULL);
    for (size_t i = 0; i < seeds.n; i++)
        cr_expect(tw_names_has(&t, seeds.at[i]), "fuzz/seeds/%s is no target of the table",
                  seeds.at[i]);
    for (size_t i = 0; i < regs.n; i++)
        cr_expect(tw_names_has(&t, regs.at[i]), "fuzz/regressions/%s is no target of the table",
                  regs.at[i]);
}

Test(format_table, help_lists)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' parse --help", bin());
    char *parse = tw_names_command_output(cmd);
    names dec = table_decoders();
    for (size_t i = 0; i < dec.n; i++)
        cr_expect_not_null(strstr(parse, dec.at[i]), "parse --help does not name %s", dec.at[i]);
    names prof = table_profiles();
    static const char *const cmds[] = {"serve", "run"};
    for (size_t c = 0; c < 2; c++) {
        snprintf(cmd, sizeof cmd, "'%s' %s --help", bin(), cmds[c]);
        char *help = tw_names_command_output(cmd);
        for (size_t i = 0; i < prof.n; i++) {
            char word[TW_NAMES_LEN + 2];
            snprintf(word, sizeof word, "%s,", prof.at[i]);
            bool last = i + 1 == prof.n;
            cr_expect_not_null(strstr(help, last ? prof.at[i] : word), "%s --help does not name %s",
                               cmds[c], prof.at[i]);
        }
        free(help);
    }
    /* toolwire main runs a suite per profile that serves fixtures */
    snprintf(cmd, sizeof cmd, "'%s' main --help", bin());
    char *main_help = tw_names_command_output(cmd);
    for (size_t i = 0; i < prof.n; i++) {
        char suite[TW_NAMES_LEN + 8];
        snprintf(suite, sizeof suite, "mock-%s", prof.at[i]);
        cr_expect(strcmp(prof.at[i], "script") == 0 || strstr(main_help, suite),
                  "main --help does not name the suite %s", suite);
    }
    free(main_help);
    free(parse);
}

Test(format_table, docs_lists)
{
    char *fixtures = doc("docs/fixtures.md");
    names dec = table_decoders();
    names fx = tw_names_backticked(fixtures, "| `format` | yes | a registered decoder:");
    /* the line ends with `toolwire parse --help` */
    cr_assert_gt(fx.n, 0);
    fx.n--;
    EXPECT_NO_DRIFT(dec, fx, true, "docs/fixtures.md, the decoders of `format`");
    free(fixtures);

    char *fuzzing = doc("docs/fuzzing.md");
    names t = table_targets(), col = tw_names_first_column(fuzzing, "\n## Targets", false);
    EXPECT_NO_DRIFT(t, col, false, "docs/fuzzing.md, the table of targets");
    names rd = table_readers(),
          req = tw_names_backticked(fuzzing, "| `request` | every request reader");
    names req_readers = {0};
    for (size_t i = 0; i < req.n; i++)
        if (strcmp(req.at[i], "request") != 0 && strncmp(req.at[i], "tests/", 6) != 0 &&
            strncmp(req.at[i], "fixtures/", 9) != 0)
            tw_names_add(&req_readers, req.at[i]);
    EXPECT_NO_DRIFT(rd, req_readers, true, "docs/fuzzing.md, the request target's readers");
    free(fuzzing);

    char *enc = doc("docs/cli-encode.md");
    names encs = table_encoders(),
          ecol = tw_names_first_column(enc, "\n| format | writes |", false);
    EXPECT_NO_DRIFT(encs, ecol, false, "docs/cli-encode.md, the table of encoders");
    free(enc);

    char *harness = doc("docs/harness.md");
    names prof = table_profiles(), hp = tw_names_first_column(harness, "\n### Profiles", true);
    names hp_table = {0};
    for (size_t i = 0; i < hp.n; i++)
        if (strcmp(hp.at[i], "auto") != 0)
            tw_names_add(&hp_table, hp.at[i]);
    EXPECT_NO_DRIFT(prof, hp_table, false, "docs/harness.md, the profiles");
    free(harness);
}

/* ---- a planted drift is found ---- */

Test(format_table, drift_self_test)
{
    names t = table_targets(), l = t;
    char why[512];
    cr_assert_eq(tw_names_drift(&t, &l, true, why, sizeof why), 0);
    tw_names_add(&l, "planted");
    cr_expect_eq(tw_names_drift(&t, &l, true, why, sizeof why), 1);
    cr_expect_not_null(strstr(why, "not in the table planted"), "%s", why);
    l.n--;
    snprintf(l.at[0], TW_NAMES_LEN, "%s", "renamed");
    cr_expect_eq(tw_names_drift(&t, &l, false, why, sizeof why), 2, "%s", why);
    cr_expect_not_null(strstr(why, "missing think"), "%s", why);
    l = t;
    char tmp[TW_NAMES_LEN];
    memcpy(tmp, l.at[0], TW_NAMES_LEN);
    memcpy(l.at[0], l.at[1], TW_NAMES_LEN);
    memcpy(l.at[1], tmp, TW_NAMES_LEN);
    cr_expect_eq(tw_names_drift(&t, &l, true, why, sizeof why), 1, "an order that differs");
    cr_expect_eq(tw_names_drift(&t, &l, false, why, sizeof why), 0);
}

/* A table with one row more: both fuzz builds' readers see the new target,
 * so they differ from the compiled table by it. */
Test(format_table, planted_table_row)
{
    char *dir = tw_test_tmpdir("tw_table");
    size_t len;
    char *text = tw_test_slurp(tw_test_src("src/format_table.h"), &len);
    const char *row = "    D(tw_format_think, \"think\", TEXT, (think, BATCH))";
    char *at = strstr(text, row);
    cr_assert_not_null(at);
    char path[4200];
    snprintf(path, sizeof path, "%s/format_table.h", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fwrite(text, 1, (size_t)(at - text), f);
    fputs("    D(tw_format_planted, \"planted\", TEXT, (planted, BATCH, planted_stream, STREAM)) "
          "\\\n",
          f);
    fputs(at, f);
    fclose(f);
    names table = table_target_rows();
    char cmd[8400], why[512];
    snprintf(cmd, sizeof cmd, "bash '%s' --list '%s'", tw_test_src("fuzz/build.sh"), path);
    names sh = tw_names_command_lines(cmd);
    cr_expect_eq(tw_names_drift(&table, &sh, true, why, sizeof why), 2, "%s", why);
    cr_expect(tw_names_has(&sh, "planted ALWAYS") && tw_names_has(&sh, "planted_stream ALWAYS"));
    snprintf(cmd, sizeof cmd, "cmake -DTW_FZ_TABLE='%s' -P '%s'", path,
             tw_test_src("fuzz/table.cmake"));
    names cm = tw_names_command_lines(cmd);
    cr_expect_eq(tw_names_drift(&table, &cm, true, why, sizeof why), 2, "%s", why);
    cr_expect(tw_names_has(&cm, "planted ALWAYS") && tw_names_has(&cm, "planted_stream ALWAYS"));
    free(text);
    tw_test_rm_tree(dir);
    free(dir);
}

/* A doc whose list lost a name, a corpus with a folder too many. */
Test(format_table, planted_doc_and_folder)
{
    names dec = table_decoders();
    char why[512];
    const char *doc_line = "| `format` | yes | a registered decoder: `think`, `fenced`, "
                           "`toolwire parse --help` |\n";
    names got = tw_names_backticked(doc_line, "a registered decoder:");
    got.n--;
    cr_expect_gt(tw_names_drift(&dec, &got, true, why, sizeof why), 0);
    cr_expect_not_null(strstr(why, "missing hermes"), "%s", why);

    char *dir = tw_test_tmpdir("tw_table_corpus");
    names t = table_targets();
    for (size_t i = 0; i < t.n; i++)
        cr_assert_eq(tw_test_sh("mkdir -p '%s/%s'", dir, t.at[i]), 0);
    names corpus = tw_names_dir_entries(dir, true, NULL);
    cr_expect_eq(tw_names_drift(&t, &corpus, false, why, sizeof why), 0, "%s", why);
    cr_assert_eq(tw_test_sh("mkdir -p '%s/stray' && rmdir '%s/think'", dir, dir), 0);
    corpus = tw_names_dir_entries(dir, true, NULL);
    cr_expect_eq(tw_names_drift(&t, &corpus, false, why, sizeof why), 2, "%s", why);
    cr_expect_not_null(strstr(why, "not in the table stray"), "%s", why);
    tw_test_rm_tree(dir);
    free(dir);
}
