/* toolwire merge: join the reports of a sharded run (run --shard K/N) into one per backend. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "run.h"

static const char merge_help[] =
    "usage: toolwire merge --out DIR [--quiet] REPORT.json REPORT.json …\n"
    "\n"
    "Join the reports of a sharded run (toolwire run --shard K/N, or clients\n"
    "--shard K/N, on several machines) into one report per backend or client:\n"
    "<DIR>/<name>.json, .md, .junit.xml and .html, as one run writes them, and\n"
    "comparison.md/.html when the reports are of several backends. Reports are\n"
    "grouped by their backend (or client) name; a group's fixtures are put in the\n"
    "order one run over the same fixture directory gives them (files that did not\n"
    "load first, then by file path, a file's rows - a client's modes - in their\n"
    "report's order). A fixture reported by two shards with the same verdicts is\n"
    "kept once.\n"
    "\n"
    "  --out DIR       where the merged reports go (required)\n"
    "  --quiet         no summary line per merged report\n"
    "\n"
    "Refused (nothing written): reports of different report versions or toolwire\n"
    "versions, reports of one name with different targets (two servers under one\n"
    "backend name), names whose report files would be one file, and a fixture\n"
    "reported by two shards with different verdicts.\n"
    "\n"
    "Exit status: 0 when every merged report matches the fixtures' expectations,\n"
    "1 when one has mismatches, 2 on bad usage, an unreadable report or a refusal.";

/* At most this many reports are merged in one call. */
#define TW_MERGE_MAX_REPORTS 4096

/* One fixture of the merged report: where it came from, for the order and the messages. */
typedef struct mfx {
    const tw_rep_fixture *f; /* owned by its report */
    const char *from;        /* the report file */
    size_t seq;              /* position among every fixture read: keeps a file's rows in order */
} mfx;

static bool load_failed(const tw_rep_fixture *f)
{
    /* a fixture file that did not load is reported under its own path, without a backend */
    return f->backend[0] == 0 && strcmp(f->name, f->file) == 0 && f->nex == 0;
}

static int mfx_cmp(const void *a, const void *b)
{
    const mfx *x = a, *y = b;
    bool bx = load_failed(x->f), by = load_failed(y->f);
    if (bx != by)
        return bx ? -1 : 1;
    int c = strcmp(x->f->file, y->f->file);
    if (c)
        return c;
    /* one file's rows (a client's modes) in the order their report has them */
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool str_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Do two shards' rows of one fixture hold the same verdicts? (Evidence and
 * times may differ between two runs of a live server.) what names the first
 * difference. */
static bool same_verdicts(const tw_rep_fixture *a, const tw_rep_fixture *b, char *what, size_t n)
{
    if (a->skipped != b->skipped || !str_eq(a->note, b->note)) {
        snprintf(what, n, "skipped or not: %s / %s", a->note ? a->note : "run",
                 b->note ? b->note : "run");
        return false;
    }
    if (a->nex != b->nex) {
        snprintf(what, n, "%zu exchange(s) / %zu", a->nex, b->nex);
        return false;
    }
    for (size_t k = 0; k < a->nex; k++) {
        const tw_rep_exchange *x = &a->ex[k], *y = &b->ex[k];
        if (x->result != y->result) {
            snprintf(what, n, "exchange #%zu result %s / %s", x->index, tw_verdict_name(x->result),
                     tw_verdict_name(y->result));
            return false;
        }
        if (x->nchecks != y->nchecks) {
            snprintf(what, n, "exchange #%zu: %zu check(s) / %zu", x->index, x->nchecks,
                     y->nchecks);
            return false;
        }
        for (size_t c = 0; c < x->nchecks; c++)
            if (strcmp(x->checks[c].id, y->checks[c].id) != 0 ||
                x->checks[c].verdict != y->checks[c].verdict) {
                snprintf(what, n, "exchange #%zu %s %s / %s %s", x->index, x->checks[c].id,
                         tw_verdict_name(x->checks[c].verdict), y->checks[c].id,
                         tw_verdict_name(y->checks[c].verdict));
                return false;
            }
    }
    return true;
}

/* A merged report's own parts: its fixtures stay owned by the reports they were read from. */
static void merged_free(tw_report *m)
{
    free(m->fx);
    m->fx = NULL;
    m->nfx = 0;
    tw_report_free(m);
}

/*
 * Merge the reports r[idx[0..n)] (one backend name) into *out (merged_free),
 * whose fixtures are those of the reports, not copies. false with why on a
 * refusal.
 */
static bool merge_group(tw_report *r, char *const *files, const size_t *idx, size_t n,
                        tw_report *out, tw_error *why)
{
    const tw_report *first = &r[idx[0]];
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const tw_report *x = &r[idx[i]];
        if (!str_eq(x->target, first->target)) {
            tw_error_set(
                why, TW_ERR_INVALID, -1, NULL,
                "%s and %s: backend %s is %s in one and %s in the other (reports of two servers "
                "under one name do not merge; give them different names)",
                files[idx[0]], files[idx[i]], first->backend, first->target ? first->target : "",
                x->target ? x->target : "");
            return false;
        }
        total += x->nfx;
    }
    mfx *all = calloc(total ? total : 1, sizeof *all);
    if (!all) {
        tw_error_set(why, TW_ERR_NOMEM, -1, NULL, "out of memory");
        return false;
    }
    size_t m = 0;
    const char *generated = first->generated;
    for (size_t i = 0; i < n; i++) {
        const tw_report *x = &r[idx[i]];
        for (size_t k = 0; k < x->nfx; k++, m++)
            all[m] = (mfx){&x->fx[k], files[idx[i]], m};
        if (x->generated && (!generated || strcmp(x->generated, generated) > 0))
            generated = x->generated;
    }
    qsort(all, m, sizeof *all, mfx_cmp);
    bool ok = true;
    memset(out, 0, sizeof *out);
    out->version = first->version;
    out->backend = tw_strdup(first->backend ? first->backend : "");
    out->target = tw_strdup(first->target ? first->target : "");
    out->generated = tw_strdup(generated ? generated : "");
    out->toolwire = tw_strdup(first->toolwire ? first->toolwire : "");
    out->fx = calloc(m ? m : 1, sizeof *out->fx);
    if (!out->backend || !out->target || !out->generated || !out->toolwire || !out->fx) {
        tw_error_set(why, TW_ERR_NOMEM, -1, NULL, "out of memory");
        ok = false;
    }
    out->fx_cap = m ? m : 1;
    /* the rows of one file are together: a row whose file and name are kept already is the
     * same fixture from another report */
    for (size_t i = 0, file_start = 0, kept_start = 0; ok && i < m; i++) {
        const tw_rep_fixture *f = all[i].f;
        if (strcmp(all[file_start].f->file, f->file) != 0) {
            file_start = i;
            kept_start = out->nfx;
        }
        size_t dup = kept_start;
        while (dup < out->nfx && strcmp(out->fx[dup].name, f->name) != 0)
            dup++;
        if (dup == out->nfx) {
            out->fx[out->nfx++] = *f;
            continue;
        }
        char what[300];
        if (!same_verdicts(&out->fx[dup], f, what, sizeof what)) {
            const char *first_from = all[file_start].from;
            for (size_t k = file_start; k < i; k++)
                if (strcmp(all[k].f->name, f->name) == 0) {
                    first_from = all[k].from;
                    break;
                }
            tw_error_set(why, TW_ERR_INVALID, -1, NULL,
                         "fixture %s (%s) is in %s and in %s with different verdicts (%s): "
                         "were the shards run with one --shard N and one version of the fixtures?",
                         f->name, f->file, first_from, all[i].from, what);
            ok = false;
        }
    }
    free(all);
    tw_report_summarise(out);
    return ok;
}

/* Check what every report must share, load order kept; false with why. */
static bool compatible(const tw_report *r, char *const *files, size_t n, tw_error *why)
{
    for (size_t i = 1; i < n; i++) {
        if (r[i].version != r[0].version) {
            tw_error_set(why, TW_ERR_INVALID, -1, NULL,
                         "%s is report version %d, %s version %d: they do not merge", files[0],
                         r[0].version, files[i], r[i].version);
            return false;
        }
        if (!str_eq(r[i].toolwire, r[0].toolwire)) {
            tw_error_set(
                why, TW_ERR_INVALID, -1, NULL,
                "%s was written by toolwire %s, %s by toolwire %s: run every shard with one build",
                files[0], r[0].toolwire ? r[0].toolwire : "?", files[i],
                r[i].toolwire ? r[i].toolwire : "?");
            return false;
        }
    }
    return true;
}

static int merge_all(char *const *files, size_t n, const char *outdir, bool quiet)
{
    tw_report *r = calloc(n, sizeof *r);
    tw_report *merged = calloc(n, sizeof *merged);
    size_t *idx = calloc(n, sizeof *idx);
    bool *taken = calloc(n, sizeof *taken);
    const char **names = calloc(n, sizeof *names);
    int rc = TW_EXIT_OK;
    size_t loaded = 0, groups = 0;
    tw_error why = {.offset = -1};
    if (!r || !merged || !idx || !taken || !names) {
        fprintf(stderr, "toolwire merge: out of memory\n");
        rc = TW_EXIT_USAGE;
    }
    for (size_t i = 0; rc == TW_EXIT_OK && i < n; i++) {
        if (tw_report_load(files[i], &r[i], &why) != TW_OK)
            rc = tw_cli_usage_error("merge", "%s", why.message);
        else
            loaded++;
    }
    if (rc == TW_EXIT_OK && !compatible(r, files, n, &why))
        rc = tw_cli_usage_error("merge", "%s", why.message);
    /* one group per backend name, in the order the names first appear */
    for (size_t i = 0; rc == TW_EXIT_OK && i < n; i++) {
        if (taken[i])
            continue;
        size_t ng = 0;
        for (size_t k = i; k < n; k++)
            if (!taken[k] && str_eq(r[k].backend, r[i].backend)) {
                taken[k] = true;
                idx[ng++] = k;
            }
        if (!merge_group(r, files, idx, ng, &merged[groups], &why))
            rc = tw_cli_usage_error("merge", "%s", why.message);
        names[groups] = merged[groups].backend;
        groups++;
    }
    if (rc == TW_EXIT_OK &&
        !tw_report_names_ok(names, groups, sizeof *names, "backend", outdir, &why))
        rc = tw_cli_usage_error("merge", "%s", why.message);
    for (size_t g = 0; rc != TW_EXIT_USAGE && g < groups; g++) {
        const tw_report *m = &merged[g];
        if (tw_report_write_all(m, outdir, &why) != TW_OK) {
            fprintf(stderr, "toolwire merge: %s\n", why.message);
            rc = TW_EXIT_USAGE;
            break;
        }
        if (!m->ok)
            rc = TW_EXIT_FAIL;
        if (!quiet) {
            char base[TW_REPORT_BASE_MAX];
            tw_report_file_base(m->backend, base, sizeof base);
            size_t from = 0;
            for (size_t i = 0; i < n; i++)
                from += str_eq(r[i].backend, m->backend);
            printf(
                "merged %s (%s): %zu report(s), %zu fixtures, %zu exchanges, %zu pass, %zu fail, "
                "%zu skip, %zu mismatches -> %s/%s.json\n",
                m->backend, m->target, from, m->n_fixtures, m->n_exchanges, m->n_pass, m->n_fail,
                m->n_skip, m->n_mismatch, outdir, base);
        }
    }
    if (rc != TW_EXIT_USAGE && groups > 1 &&
        tw_write_comparison(merged, groups, outdir, &why) != TW_OK) {
        fprintf(stderr, "toolwire merge: %s\n", why.message);
        rc = TW_EXIT_USAGE;
    }
    for (size_t i = 0; i < loaded; i++)
        tw_report_free(&r[i]);
    for (size_t g = 0; g < groups; g++)
        merged_free(&merged[g]);
    free(r);
    free(merged);
    free(idx);
    free(taken);
    free(names);
    return rc;
}

int tw_cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {{"out", required_argument, NULL, 'o'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *outdir = NULL;
    bool quiet = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': outdir = optarg; break;
        case 'q': quiet = true; break;
        case 'h': puts(merge_help); return TW_EXIT_OK;
        default: return tw_cli_option_error("merge", longopts, argv[optind - 1]);
        }
    }
    if (!outdir)
        return tw_cli_usage_error("merge", "--out DIR is needed (see --help)");
    if (optind >= argc)
        return tw_cli_usage_error("merge", "give the reports to merge (see --help)");
    if (argc - optind > TW_MERGE_MAX_REPORTS)
        return tw_cli_usage_error("merge", "at most %d reports", TW_MERGE_MAX_REPORTS);
    return merge_all(argv + optind, (size_t)(argc - optind), outdir, quiet);
}
