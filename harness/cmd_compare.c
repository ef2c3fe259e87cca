/* toolwire compare: where backends differ, check by check. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

int tw_cmd_compare(int argc, char **argv)
{
    static const struct option longopts[] = {{"html", required_argument, NULL, 'H'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *html = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'H': html = optarg; break;
        case 'h':
            puts("usage: toolwire compare [--html FILE] REPORT.json REPORT.json …\n\n"
                 "Put backend reports side by side: a summary per backend and, check by check,\n"
                 "every verdict that differs between backends (Markdown on standard output;\n"
                 "--html FILE writes a self-contained page too). Reports of toolwire clients\n"
                 "are compared the same way, as client libraries.\n"
                 "Exit status: 0 when the comparison was written (compare judges nothing: it\n"
                 "never exits 1); 2 on bad usage, an unreadable report, or a comparison that\n"
                 "cannot be written (standard output or FILE).");
            return TW_EXIT_OK;
        default: return tw_cli_usage_error("compare", "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    int n = argc - optind;
    if (n < 1)
        return tw_cli_usage_error("compare", "give at least one report (see --help)");
    if (n > TW_CMP_MAX_REPORTS)
        return tw_cli_usage_error("compare", "at most %d reports", TW_CMP_MAX_REPORTS);
    tw_report *r = calloc((size_t)n, sizeof *r);
    if (!r)
        return tw_cli_usage_error("compare", "out of memory");
    int rc = TW_EXIT_OK;
    int loaded = 0;
    tw_error why = {.offset = -1};
    for (int i = 0; i < n; i++) {
        if (tw_report_load(argv[optind + i], &r[i], &why) != TW_OK) {
            rc = tw_cli_usage_error("compare", "%s", why.message);
            break;
        }
        loaded++;
    }
    if (rc == TW_EXIT_OK) {
        tw_buf md = {0};
        tw_status st = tw_compare_markdown(r, (size_t)n, &md);
        if (st != TW_OK) {
            fprintf(stderr, "toolwire compare: cannot render the comparison: %s\n", tw_code_name(st));
            rc = TW_EXIT_USAGE;
        } else if (!tw_write_all(stdout, md.data ? md.data : "", md.len)) {
            fprintf(stderr, "toolwire compare: cannot write to standard output\n");
            rc = TW_EXIT_USAGE;
        }
        tw_buf_free(&md);
        if (html && rc == TW_EXIT_OK) {
            tw_buf h = {0};
            st = tw_compare_html(r, (size_t)n, &h);
            if (st != TW_OK)
                tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "cannot render %s: %s", html, tw_code_name(st));
            else
                st = tw_write_atomic(html, h.data ? h.data : "", h.len, &why);
            if (st != TW_OK) {
                fprintf(stderr, "toolwire compare: %s\n", why.message);
                rc = TW_EXIT_USAGE;
            }
            tw_buf_free(&h);
        }
    }
    for (int i = 0; i < loaded; i++)
        tw_report_free(&r[i]);
    free(r);
    return rc;
}
