/* toolwire gate: exit 1 when a report regresses against a baseline. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

enum { OPT_SUMMARY = 1200, OPT_JUNIT, OPT_JSON, OPT_ALLOW_MISSING, OPT_ALL };

static const char gate_help[] =
    "usage: toolwire gate --baseline BASELINE.json [--allow-missing] [--all] [--summary FILE]\n"
    "                     [--junit FILE] [--json FILE] [--quiet] REPORT.json\n\n"
    "Judge a report against a committed baseline, fixture by fixture, check by check.\n"
    "It fails (exit 1) on:\n"
    "  - a regression: a check of error or warn severity (the decoded-result comparison,\n"
    "    RES-01, among them) that passed in the baseline and fails now, or could not be\n"
    "    judged now because nothing came back (no response, a driver that failed);\n"
    "  - a missing fixture: one the baseline ran that the report did not, or of which\n"
    "    an exchange was not run or a check the baseline judged has no verdict now;\n"
    "    --allow-missing accepts these (a report of a part of the suites).\n"
    "Improvements (failed in the baseline, pass now), known failures (failed in the\n"
    "baseline, still fail) and changes of info-level checks (advisory, e.g. CLI-06)\n"
    "never fail it; the last two are counted in one line each, --all lists them.\n\n"
    "Outputs: Markdown on standard output, each row with its severity (--quiet: nothing\n"
    "unless the gate fails); --summary FILE appends the same Markdown to FILE (e.g.\n"
    "$GITHUB_STEP_SUMMARY); --junit FILE writes one testcase per regression, missing\n"
    "fixture, improvement and known failure (only regressions and missing fixtures\n"
    "fail); --json FILE writes the verdicts as JSON (counts, and each row's kind,\n"
    "fixture, file, exchange, check, severity and evidence). When GITHUB_ACTIONS is true,\n"
    "one ::error workflow command per row that fails the gate is printed on standard\n"
    "output, naming the fixture file, so each shows as an annotation.\n"
    "Exit status: 0 when the gate passes; 1 on a regression or a missing fixture; 2 on\n"
    "bad usage, an unreadable report, or an output that cannot be written (standard\n"
    "output, --summary, --junit or --json FILE).";

/* Write one of the gate's files; false (a message on stderr) when it could not be. */
static bool write_out(const char *path, tw_status rendered, const tw_buf *b)
{
    tw_error why = {.offset = -1};
    if (rendered != TW_OK) {
        fprintf(stderr, "toolwire gate: cannot render %s: %s\n", path, tw_code_name(rendered));
        return false;
    }
    if (tw_write_atomic(path, b->data ? b->data : "", b->len, &why) != TW_OK) {
        fprintf(stderr, "toolwire gate: %s\n", why.message);
        return false;
    }
    return true;
}

int tw_cmd_gate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"baseline", required_argument, NULL, 'b'},
        {"summary", required_argument, NULL, OPT_SUMMARY},
        {"junit", required_argument, NULL, OPT_JUNIT},
        {"json", required_argument, NULL, OPT_JSON},
        {"allow-missing", no_argument, NULL, OPT_ALLOW_MISSING},
        {"all", no_argument, NULL, OPT_ALL},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *baseline = NULL, *summary = NULL, *junit = NULL, *json = NULL;
    bool quiet = false;
    tw_gate_opts go = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "b:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'b': baseline = optarg; break;
        case OPT_SUMMARY: summary = optarg; break;
        case OPT_JUNIT: junit = optarg; break;
        case OPT_JSON: json = optarg; break;
        case OPT_ALLOW_MISSING: go.allow_missing = true; break;
        case OPT_ALL: go.all = true; break;
        case 'q': quiet = true; break;
        case 'h': puts(gate_help); return TW_EXIT_OK;
        default: return tw_cli_option_error("gate", longopts, argv[optind - 1]);
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
    tw_status st = tw_gate_with(&b, &r, &go, &g);
    int rc = g.failed ? TW_EXIT_FAIL : TW_EXIT_OK;
    if (st != TW_OK) {
        fprintf(stderr, "toolwire gate: cannot render the verdicts: %s\n", tw_code_name(st));
        rc = TW_EXIT_USAGE;
    } else {
        const char *gha = getenv("GITHUB_ACTIONS");
        if (gha && strcmp(gha, "true") == 0) {
            tw_buf a = {0};
            st = tw_gate_to_annotations(&g, go.allow_missing, &a);
            if (st != TW_OK || !tw_write_all(stdout, a.data ? a.data : "", a.len)) {
                fprintf(stderr, "toolwire gate: cannot write the annotations to standard output\n");
                rc = TW_EXIT_USAGE;
            }
            tw_buf_free(&a);
        }
        if ((!quiet || g.failed) &&
            !tw_write_all(stdout, g.text.data ? g.text.data : "", g.text.len)) {
            fprintf(stderr, "toolwire gate: cannot write to standard output\n");
            rc = TW_EXIT_USAGE;
        }
        if (summary && tw_append_file(summary, g.text.data, g.text.len, &why) != TW_OK) {
            fprintf(stderr, "toolwire gate: %s\n", why.message);
            rc = TW_EXIT_USAGE;
        }
        if (junit) {
            tw_buf j = {0};
            if (!write_out(junit, tw_gate_to_junit(&g, &r, go.allow_missing, &j), &j))
                rc = TW_EXIT_USAGE;
            tw_buf_free(&j);
        }
        if (json) {
            tw_buf j = {0};
            if (!write_out(json, tw_gate_to_json(&g, &b, &r, go.allow_missing, &j), &j))
                rc = TW_EXIT_USAGE;
            tw_buf_free(&j);
        }
    }
    tw_gate_result_free(&g);
    tw_report_free(&b);
    tw_report_free(&r);
    return rc;
}
