/* toolwire main: the quick-start job. Runs every conformance fixture against
 * every embedded mock profile that fits it, and the live suites against the
 * script reference servers (reports and the comparison page under
 * reports/latest/), and checks every decode fixture of
 * tests/data/decode (batch and every chunking) into decode-summary.md. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "datadir.h"
#include "report.h"
#include "run.h"
#include "shard.h"
#include "decode_fixtures.h"

/* Decode fixtures: returns 0 when all match, 1 on a mismatch, 2 when one
 * cannot be read or the summary cannot be written; counts into pass/fail/bad. */
static int decode_fixtures(const char *dir, const char *outdir, bool quiet, long *pass, long *fail,
                           long *bad)
{
    char **files = NULL;
    long n = tw_list_files(dir, ".json", &files);
    if (n < 0)
        return tw_cli_usage_error("main", "cannot read fixtures directory '%s'", dir);
    if (n == 0) {
        free(files);
        return tw_cli_usage_error("main", "'%s' holds no decode fixture (no *.json file)", dir);
    }
    tw_buf md = {0};
    tw_status st = tw_buf_printf(
        &md, "# toolwire decode fixtures\n\n| fixture | verdict | detail |\n|---|---|---|\n");
    *pass = *fail = *bad = 0;
    for (long i = 0; i < n; i++) {
        tw_error de = {.offset = -1};
        int rc = tw_decode_fixture_check(files[i], &de);
        const char *detail = de.message;
        const char *v = rc == TW_FIX_PASS ? "pass" : rc == TW_FIX_MISMATCH ? "FAIL" : "BAD";
        if (rc == TW_FIX_PASS)
            (*pass)++;
        else if (rc == TW_FIX_MISMATCH)
            (*fail)++;
        else
            (*bad)++;
        if (rc != TW_FIX_PASS)
            fprintf(stderr, "%s: %s\n", v, detail);
        if (st == TW_OK)
            st = tw_buf_printf(&md, "| %s | %s | %s |\n", files[i], v, detail);
    }
    if (st == TW_OK)
        st = tw_buf_printf(&md, "\n%ld passed, %ld failed, %ld bad fixtures\n", *pass, *fail, *bad);
    char path[4200];
    tw_error why = {.offset = -1};
    if (!tw_path_join(path, sizeof path, outdir, "decode-summary.md")) {
        tw_error_file(&why, TW_ERR_LIMIT, -1, outdir, "%.400s: the path is too long", outdir);
        st = TW_ERR_LIMIT;
    } else if (st != TW_OK) {
        tw_error_file(&why, st, -1, path, "cannot render %.400s: %s", path, tw_code_name(st));
    }
    bool ok = st == TW_OK && tw_write_atomic(path, md.data, md.len, &why) == TW_OK;
    if (!ok)
        fprintf(stderr, "toolwire main: %s\n", why.message);
    if (!quiet || *fail || *bad)
        printf("decode fixtures: %ld passed, %ld failed, %ld bad (%s)\n", *pass, *fail, *bad, path);
    tw_buf_free(&md);
    tw_free_list(files, n);
    return (*bad || !ok) ? TW_EXIT_USAGE : *fail ? TW_EXIT_FAIL : TW_EXIT_OK;
}

int tw_cmd_main(int argc, char **argv)
{
    static const struct option longopts[] = {{"quiet", no_argument, NULL, 'q'},
                                             {"fixtures", required_argument, NULL, 'f'},
                                             {"conformance", required_argument, NULL, 'c'},
                                             {"out", required_argument, NULL, 'o'},
                                             {"shard", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"jobs", required_argument, NULL, 'j'},
                                             TW_SEL_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    bool quiet = false, bad_sel = false;
    size_t jobs = 1;
    tw_selection_opts so;
    tw_selection_opts_init(&so);
    tw_error why = {.offset = -1};
    const char *dir = "tests/data/decode";
    const char *conf = "fixtures";
    const char *outdir = "reports/latest";
    tw_shard shard = {0, 0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "qhf:o:c:s:j:", longopts, NULL)) != -1) {
        if (tw_selection_option(&so, c, optarg, &bad_sel, &why)) {
            if (bad_sel)
                return tw_cli_usage_error("main", "%s", why.message);
            continue;
        }
        switch (c) {
        case 'q': quiet = true; break;
        case 'j':
            if (!tw_jobs_option(optarg, NULL, &jobs, &why))
                return tw_cli_usage_error("main", "%s", why.message);
            break;
        case 'f': dir = optarg; break;
        case 'c': conf = optarg; break;
        case 'o': outdir = optarg; break;
        case 's':
            if (!tw_shard_parse(optarg, &shard, &why))
                return tw_cli_usage_error("main", "%s", why.message);
            break;
        case 'h':
            puts("usage: toolwire main [--quiet] [--conformance DIR] [--fixtures DIR] [--out DIR]\n"
                 "                    [--jobs N] [--tag T] [--exclude-tag T] [--filter PATTERN]\n"
                 "                    [--shard K/N]\n\n"
                 "The main job:\n"
                 "1. run every conformance fixture under --conformance (default fixtures/) not\n"
                 "   tagged live or clients against every embedded mock profile that fits it\n"
                 "   (mock-replay, mock-hermes, mock-qwen3-coder, mock-anthropic, "
                 "mock-vllm-native,\n"
                 "   mock-gemini, mock-gemma4), and each live\n"
                 "   suite against the script reference server of its endpoint (ref-openai: tags\n"
                 "   live+openai without responses, ref-openai-responses: live+responses,\n"
                 "   ref-anthropic: live+anthropic, ref-vllm-native: live+vllm-native),\n"
                 "   and the Anthropic live suite through the embedded reference proxy\n"
                 "   anthropic:openai with a script upstream (ref-proxy, docs/proxies.md); write\n"
                 "   <backend>.json/.md/.junit.xml/.html and comparison.md/.html under --out\n"
                 "   (default reports/latest);\n"
                 "2. decode every fixture under --fixtures (default tests/data/decode) in batch\n"
                 "   and at chunk sizes 1, 2, 3, 7 and 64, compare with each fixture's\n"
                 "   expectation and write decode-summary.md under --out.\n"
                 "--shard K/N runs shard K of N of the conformance fixtures (as run --shard;\n"
                 "toolwire merge joins the reports) and the decode fixtures in shard 1 only.\n"
                 "Both inputs are checked before anything runs; when a relative fixtures/ or\n"
                 "tests/data/decode path is not there, it is looked up in $TOOLWIRE_DATA, the\n"
                 "current directory, ../share/toolwire beside the program, then the installed\n"
                 "data directory (docs/harness.md). --quiet prints only what went\n"
                 "wrong (mismatch lines naming their backend, failing decode fixtures), and no\n"
                 "progress on stderr.\n"
                 "\n"
                 "  --jobs N                   run N conformance fixtures at once (each fixture's\n"
                 "                             exchanges in order; the reports are the same as\n"
                 "                             with --jobs 1; default 1)\n" TW_SEL_HELP
                 "The selection applies to the conformance fixtures (step 1) only.\n"
                 "\n"
                 "Exit status: 0 when every verdict and every decode matches the fixtures'\n"
                 "expectations, 1 on a mismatch, 2 when something could not be judged: bad\n"
                 "usage, a directory that cannot be read or holds no fixture, a selection that\n"
                 "keeps no conformance fixture, a fixture that\n"
                 "cannot be loaded, a backend that cannot start, a report that cannot be written.");
            return TW_EXIT_OK;
        default: return tw_cli_option_error("main", longopts, argv[optind - 1]);
        }
    }
    /* the arguments first: nothing is run or written for a path that is not there */
    char conf_buf[8400], dir_buf[8400];
    tw_data_resolve(conf, conf_buf, sizeof conf_buf);
    tw_data_resolve(dir, dir_buf, sizeof dir_buf);
    conf = conf_buf;
    dir = dir_buf;
    struct stat sb;
    if (stat(conf, &sb) != 0)
        return tw_cli_usage_error("main", "cannot read --conformance '%s': %s", conf,
                                  strerror(errno));
    if (stat(dir, &sb) != 0)
        return tw_cli_usage_error("main", "cannot read --fixtures '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return tw_cli_usage_error("main", "--fixtures '%s' is not a directory", dir);
    if (optind < argc)
        return tw_cli_usage_error("main", "unexpected argument '%s' (see --help)", argv[optind]);
    if (!tw_mkdirs(outdir))
        return tw_cli_usage_error("main", "cannot create '%s'", outdir);
    /* 1: conformance */
    /* the live suites run only against the reference servers, each its own suite */
    /* client scenarios are for toolwire clients */
    static const char *const not_live[] = {"live", "clients"};
    static const char *const live_openai[] = {"live", "openai"};
    static const char *const responses[] = {"responses"};
    static const char *const live_responses[] = {"live", "responses"};
    static const char *const live_anthropic[] = {"live", "anthropic"};
    static const char *const live_vllm[] = {"live", "vllm-native"};
    static const tw_backend_spec backends[] = {
        {.name = "mock-replay", .profile = "replay", .suite = {.xtags = not_live, .nxtags = 2}},
        {.name = "mock-hermes", .profile = "hermes", .suite = {.xtags = not_live, .nxtags = 2}},
        {.name = "mock-qwen3-coder",
         .profile = "qwen3-coder",
         .suite = {.xtags = not_live, .nxtags = 2}},
        {.name = "mock-anthropic",
         .profile = "anthropic",
         .suite = {.xtags = not_live, .nxtags = 2}},
        {.name = "mock-vllm-native",
         .profile = "vllm-native",
         .suite = {.xtags = not_live, .nxtags = 2}},
        {.name = "mock-gemini", .profile = "gemini", .suite = {.xtags = not_live, .nxtags = 2}},
        {.name = "mock-gemma4", .profile = "gemma4", .suite = {.xtags = not_live, .nxtags = 2}},
        {.name = "ref-openai",
         .profile = "script",
         .suite = {.tags = live_openai, .ntags = 2, .xtags = responses, .nxtags = 1}},
        {.name = "ref-openai-responses",
         .profile = "script",
         .suite = {.tags = live_responses, .ntags = 2}},
        {.name = "ref-anthropic",
         .profile = "script",
         .suite = {.tags = live_anthropic, .ntags = 2}},
        {.name = "ref-vllm-native", .profile = "script", .suite = {.tags = live_vllm, .ntags = 2}},
        /* the Anthropic live suite through the reference proxy (docs/proxies.md) */
        {.name = "ref-proxy", .suite = {.tags = live_anthropic, .ntags = 2}}};
    static const tw_backend_upstream proxied[] = {{"ref-proxy", "openai", 0, "anthropic:openai"}};
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    o.client.max_retries = 2;
    o.client.max_wait_ms = 10000;
    o.quiet = quiet;
    o.cmd = "main";
    o.progress = !quiet;
    o.out = stdout;
    o.upstreams = proxied;
    o.nupstreams = 1;
    o.shard = shard.n ? &shard : NULL;
    o.unfit_ok = true; /* each profile serves the fixtures it fits */
    o.sel = so.sel;
    o.jobs = jobs;
    char *paths[] = {(char *)conf};
    size_t mism = 0;
    int rc_conf =
        tw_run_all(backends, sizeof backends / sizeof backends[0], paths, 1, outdir, &o, &mism);
    /* 2: decode fixtures */
    long pass = 0, fail = 0, bad = 0;
    int rc_dec = TW_EXIT_OK;
    if (shard.k <= 1)
        rc_dec = decode_fixtures(dir, outdir, quiet, &pass, &fail, &bad);
    else if (!quiet)
        printf("decode fixtures: run by shard 1/%u\n", shard.n);
    if (rc_dec == TW_EXIT_USAGE && shard.k <= 1 && pass + fail + bad == 0)
        return rc_dec; /* the directory could not be read or holds none: said */
    if (!quiet || rc_conf || rc_dec)
        printf("main: conformance %s (%zu mismatches, reports in %s), decode fixtures %s\n",
               rc_conf == 0                            ? "ok"
               : rc_conf == TW_EXIT_USAGE && mism == 0 ? "NOT JUDGED (said above)"
                                                       : "FAILED",
               mism, outdir, rc_dec == 0 ? "ok" : "FAILED");
    /* 2 (something could not be judged) over 1 (mismatches) over 0 */
    return rc_conf > rc_dec ? rc_conf : rc_dec;
}
