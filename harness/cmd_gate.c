/* toolwire gate: exit 1 when a report regresses against a baseline. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

int tw_cmd_gate(int argc, char **argv)
{
    static const struct option longopts[] = {{"baseline", required_argument, NULL, 'b'},
                                             {"summary", required_argument, NULL, 's'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *baseline = NULL, *summary = NULL;
    bool quiet = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "b:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'b': baseline = optarg; break;
        case 's': summary = optarg; break;
        case 'q': quiet = true; break;
        case 'h':
            puts("usage: toolwire gate --baseline BASELINE.json [--summary FILE] [--quiet] REPORT.json\n\n"
                 "Compare a report with a committed baseline, check by check: a regression is a\n"
                 "check that passed in the baseline and fails now. Every regression and every\n"
                 "improvement is listed (Markdown on standard output; --summary FILE appends\n"
                 "it to FILE, e.g. $GITHUB_STEP_SUMMARY); --quiet prints nothing on standard\n"
                 "output unless there is a regression (--summary still gets everything).\n"
                 "Exit status: 1 on any regression, 0 otherwise, 2 on bad usage, an\n"
                 "unreadable report, or a listing that cannot be written (standard output or\n"
                 "--summary FILE).");
            return TW_EXIT_OK;
        default: return tw_cli_usage_error("gate", "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (!baseline)
        return tw_cli_usage_error("gate", "--baseline is required (see --help)");
    if (argc - optind != 1)
        return tw_cli_usage_error("gate", "give exactly one report to judge (see --help)");
    tw_report b, r;
    tw_error why = {.offset = -1};
    if (tw_report_load(baseline, &b, &why) != TW_OK)
        return tw_cli_usage_error("gate", "%s", why.message);
    if (tw_report_load(argv[optind], &r, &why) != TW_OK) {
        tw_report_free(&b);
        return tw_cli_usage_error("gate", "%s", why.message);
    }
    tw_gate_result g;
    tw_status st = tw_gate(&b, &r, 0, &g);
    int rc = g.regressions ? TW_EXIT_FAIL : TW_EXIT_OK;
    if (st != TW_OK) {
        fprintf(stderr, "toolwire gate: cannot render the verdicts: %s\n", tw_code_name(st));
        rc = TW_EXIT_USAGE;
    } else {
        if ((!quiet || g.regressions) && !tw_write_all(stdout, g.text.data ? g.text.data : "", g.text.len)) {
            fprintf(stderr, "toolwire gate: cannot write to standard output\n");
            rc = TW_EXIT_USAGE;
        }
        if (summary && tw_append_file(summary, g.text.data, g.text.len, &why) != TW_OK) {
            fprintf(stderr, "toolwire gate: %s\n", why.message);
            rc = TW_EXIT_USAGE;
        }
    }
    tw_gate_result_free(&g);
    tw_report_free(&b);
    tw_report_free(&r);
    return rc;
}
