/* toolwire compare: where backends differ, check by check. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

/* The column names: --label NAME in report order, or --label FILE=NAME for
 * the report read from FILE; a name two reports share, with no label to tell
 * them apart, gets its file in brackets. names[i] is owned (or NULL). */
static int compare_labels(char *const *paths, int n, char **lab, int nlab, const tw_report *r,
                          char **names)
{
    int next = 0;
    for (int i = 0; i < nlab; i++) {
        const char *eq = strchr(lab[i], '='), *name = lab[i];
        size_t plen = eq ? (size_t)(eq - lab[i]) : 0;
        int hit = -1;
        for (int k = 0; eq && k < n && hit < 0; k++)
            if (strlen(paths[k]) == plen && strncmp(paths[k], lab[i], plen) == 0)
                hit = k;
        if (hit >= 0) {
            name = eq + 1;
        } else if (eq && plen >= 5 && strncmp(eq - 5, ".json", 5) == 0) {
            return tw_cli_usage_error("compare", "--label %s: %.*s is not one of the reports given",
                                      lab[i], (int)plen, lab[i]);
        } else {
            while (next < n && names[next])
                next++;
            if (next == n)
                return tw_cli_usage_error("compare", "--label %s: more labels than reports (%d)",
                                          lab[i], n);
            hit = next;
        }
        free(names[hit]);
        if (!(names[hit] = tw_strdup(name)))
            return TW_EXIT_USAGE;
    }
    /* which unlabelled names another column shows too, read before any is changed */
    bool shared[TW_CMP_MAX_REPORTS] = {false};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n && !names[i] && !shared[i]; k++)
            shared[i] = k != i && strcmp(names[k] ? names[k] : r[k].backend, r[i].backend) == 0;
    for (int i = 0; i < n; i++) {
        if (!shared[i])
            continue;
        size_t len = strlen(r[i].backend) + strlen(paths[i]) + 4;
        if (!(names[i] = malloc(len)))
            return TW_EXIT_USAGE;
        snprintf(names[i], len, "%s [%s]", r[i].backend, paths[i]);
    }
    return TW_EXIT_OK;
}

int tw_cmd_compare(int argc, char **argv)
{
    static const struct option longopts[] = {{"html", required_argument, NULL, 'H'},
                                             {"label", required_argument, NULL, 'l'},
                                             {"all", no_argument, NULL, 'a'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *html = NULL;
    char *lab[TW_CMP_MAX_REPORTS];
    int nlab = 0;
    tw_cmp_opts co = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'H': html = optarg; break;
        case 'a': co.all = true; break;
        case 'l':
            if (nlab == TW_CMP_MAX_REPORTS)
                return tw_cli_usage_error("compare", "at most %d labels", TW_CMP_MAX_REPORTS);
            lab[nlab++] = optarg;
            break;
        case 'h':
            puts("usage: toolwire compare [--html FILE] [--label NAME|FILE=NAME]… [--all] "
                 "REPORT.json …\n\n"
                 "Put backend reports side by side: a summary per backend and, check by check,\n"
                 "every verdict that differs between backends, with the check's severity\n"
                 "(Markdown on standard output; --html FILE writes a self-contained page too).\n"
                 "The decoded-result comparison is the check RES-01, listed like any other.\n"
                 "Rows of info-level checks (advisory, e.g. CLI-06) are folded: counted in one\n"
                 "line (--all lists them in the table; the page lists them in a collapsed\n"
                 "section). A column is named by its report's backend name, or by --label:\n"
                 "NAME labels the reports in order, FILE=NAME the report read from FILE; two\n"
                 "reports that share a name and have no label get their file in brackets.\n"
                 "Reports of toolwire clients are compared the same way, as client libraries.\n"
                 "Exit status: 0 when the comparison was written (compare judges nothing: it\n"
                 "never exits 1); 2 on bad usage, an unreadable report, or a comparison that\n"
                 "cannot be written (standard output or FILE).");
            return TW_EXIT_OK;
        default: return tw_cli_option_error("compare", longopts, argv[optind - 1]);
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
    char *names[TW_CMP_MAX_REPORTS] = {0};
    if (rc == TW_EXIT_OK)
        rc = compare_labels(argv + optind, n, lab, nlab, r, names);
    co.labels = (const char *const *)names;
    if (rc == TW_EXIT_OK) {
        tw_buf md = {0};
        tw_status st = tw_compare_markdown_with(r, (size_t)n, &co, &md);
        if (st != TW_OK) {
            fprintf(stderr, "toolwire compare: cannot render the comparison: %s\n",
                    tw_code_name(st));
            rc = TW_EXIT_USAGE;
        } else if (!tw_write_all(stdout, md.data ? md.data : "", md.len)) {
            fprintf(stderr, "toolwire compare: cannot write to standard output\n");
            rc = TW_EXIT_USAGE;
        }
        tw_buf_free(&md);
        if (html && rc == TW_EXIT_OK) {
            tw_buf h = {0};
            st = tw_compare_html_with(r, (size_t)n, &co, &h);
            if (st != TW_OK)
                tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "cannot render %s: %s", html,
                             tw_code_name(st));
            else
                st = tw_write_atomic(html, h.data ? h.data : "", h.len, &why);
            if (st != TW_OK) {
                fprintf(stderr, "toolwire compare: %s\n", why.message);
                rc = TW_EXIT_USAGE;
            }
            tw_buf_free(&h);
        }
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    for (int i = 0; i < loaded; i++)
        tw_report_free(&r[i]);
    free(r);
    return rc;
}
