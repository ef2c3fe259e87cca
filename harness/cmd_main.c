/* toolwire main: the quick-start job. Until the conformance run lands it
 * checks every decode fixture (batch and every chunking) and writes a
 * summary to reports/latest/decode-summary.md. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "textfix.h"

int tw_cmd_main(int argc, char **argv)
{
    static const struct option longopts[] = {{"quiet", no_argument, NULL, 'q'},
                                             {"fixtures", required_argument, NULL, 'f'},
                                             {"out", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    bool quiet = false;
    const char *dir = "tests/data/decode";
    const char *outdir = "reports/latest";
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "qhf:o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = true; break;
        case 'f': dir = optarg; break;
        case 'o': outdir = optarg; break;
        case 'h':
            puts("usage: toolwire main [--quiet] [--fixtures DIR] [--out DIR]\n\n"
                 "Decode every fixture under DIR (default tests/data/decode) in batch and at\n"
                 "chunk sizes 1, 2, 3, 7 and 64, compare with each fixture's expectation and\n"
                 "write DIR/decode-summary.md under --out (default reports/latest).\n"
                 "Exit status: 0 when every fixture matches, 1 otherwise, 2 on bad usage.");
            return TW_EXIT_OK;
        default:
            return tw_cli_usage_error("main", "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    char **files = NULL;
    long n = tw_list_files(dir, ".json", &files);
    if (n < 0)
        return tw_cli_usage_error("main", "cannot read fixtures directory '%s'", dir);
    tw_buf md = {0};
    tw_buf_printf(&md, "# toolwire decode fixtures\n\n| fixture | verdict | detail |\n|---|---|---|\n");
    long pass = 0, fail = 0, bad = 0;
    for (long i = 0; i < n; i++) {
        char detail[1024] = "";
        int rc = tw_decode_fixture_check(files[i], detail, sizeof detail);
        const char *v = rc == TW_FIX_PASS ? "pass" : rc == TW_FIX_MISMATCH ? "FAIL" : "BAD";
        if (rc == TW_FIX_PASS)
            pass++;
        else if (rc == TW_FIX_MISMATCH)
            fail++;
        else
            bad++;
        if (rc != TW_FIX_PASS)
            fprintf(stderr, "%s: %s\n", v, detail);
        tw_buf_printf(&md, "| %s | %s | %s |\n", files[i], v, detail);
    }
    tw_buf_printf(&md, "\n%ld passed, %ld failed, %ld bad fixtures\n", pass, fail, bad);
    mkdir("reports", 0777);
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        tw_buf_free(&md);
        tw_free_list(files, n);
        return tw_cli_usage_error("main", "cannot create '%s'", outdir);
    }
    char path[1024], tmp[1100];
    snprintf(path, sizeof path, "%s/decode-summary.md", outdir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && tw_write_all(f, md.data, md.len);
    if (f)
        fclose(f);
    if (ok)
        ok = rename(tmp, path) == 0;
    if (!ok)
        fprintf(stderr, "toolwire main: cannot write %s\n", path);
    if (!quiet || fail || bad)
        printf("decode fixtures: %ld passed, %ld failed, %ld bad (%s)\n", pass, fail, bad, path);
    tw_buf_free(&md);
    tw_free_list(files, n);
    return (fail || bad || !ok) ? TW_EXIT_FAIL : TW_EXIT_OK;
}
