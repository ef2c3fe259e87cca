/*
 * The conformance run: replay every fixture exchange against each backend
 * (a live base URL, or the embedded mock backend started in-process on a
 * loopback port), apply the checks, compare the verdicts with the fixtures'
 * expectations and write the reports.
 */
#ifndef TOOLWIRE_RUN_H
#define TOOLWIRE_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "client.h"
#include "mock.h"
#include "report.h"
#include "select.h"

typedef struct tw_backend_spec {
    const char *name;    /* report name */
    const char *url;     /* live base URL, or NULL for a mock */
    const char *profile; /* mock profile, or NULL for a live URL */
    /* the backend's suite: only the fixtures it selects (all when empty) */
    tw_fixture_selection suite;
} tw_backend_spec;

/* Proxies (docs/proxies.md): the upstream reference server started for a
 * backend's run, and optionally the embedded reference proxy as the backend
 * (its spec then has neither url nor profile). */
typedef struct tw_backend_upstream {
    const char *backend; /* the backend's name */
    const char *format;  /* "openai", "anthropic", "vllm-native" */
    unsigned short port; /* 0: any free port */
    const char *proxy;   /* "FROM:TO" for the embedded reference proxy, or NULL */
} tw_backend_upstream;

/* Parse "NAME=URL" or "NAME=mock:PROFILE" (pointers into a copy owned by
 * the caller-provided buffer `store`, of at least strlen(arg)+1 bytes). */
bool tw_backend_spec_parse(const char *arg, char *store, tw_backend_spec *out, tw_error *err);

struct tw_shard; /* shard.h */

/* A set of loaded fixtures; files that failed to load keep their reason. */
typedef struct tw_fixture_set {
    tw_fixture *fx; /* loaded ones */
    size_t n;
    char **bad_files; /* files that did not load */
    char **bad_why;
    size_t nbad;
} tw_fixture_set;

/* Load every *.json under the paths (files or directories; "*schema.json"
 * files are not fixtures). Returns false only when a path cannot be read. */
bool tw_fixture_set_load(tw_fixture_set *s, char *const *paths, size_t npaths,
                         const tw_limits *limits, tw_error *err);
void tw_fixture_set_free(tw_fixture_set *s);

/* Keep only the fixtures sel selects (files that did not load stay listed); returns how many. */
size_t tw_fixture_set_select(tw_fixture_set *s, const tw_fixture_selection *sel);
/* The same for a command: when sel is given and keeps no fixture (and every
 * file loaded), say "toolwire CMD: no fixture is selected by --tag … (nothing
 * run)" on stderr and return false (the caller exits 2). */
bool tw_fixture_set_select_cmd(tw_fixture_set *s, const tw_fixture_selection *sel, const char *cmd);
/* Parse a --jobs value: 1 to limits->max_jobs (NULL: the default limits);
 * false with why otherwise. */
bool tw_jobs_option(const char *arg, const tw_limits *limits, size_t *jobs, tw_error *err);
/* Keep only the fixtures of shard sh (shard.h; defined in shard.c), files that did not load
 * too: each is reported by exactly one shard. roots are the paths the set was loaded from.
 * Applied after the tag selection. Returns how many loaded fixtures are kept; sh NULL keeps
 * every one. */
size_t tw_fixture_shard(tw_fixture_set *s, const struct tw_shard *sh, char *const *roots,
                        size_t nroots);

typedef struct tw_run_opts {
    const char *key_env;   /* live backends: key from this variable */
    tw_client_opts client; /* timeouts, retries (base_url/key_env set per backend) */
    tw_limits limits;
    tw_match_mode match;
    bool timing; /* mock replay: recorded delays */
    bool quiet;
    bool progress;   /* progress line on stderr */
    FILE *out;       /* summary lines (stdout), or NULL */
    const char *cmd; /* the command in messages ("toolwire CMD: …"); NULL: "run" */
    const tw_backend_upstream *upstreams; /* by backend name; NULL: none */
    size_t nupstreams;
    /* --tag / --exclude-tag / --filter: run only the fixtures selected; a
     * selection that keeps no fixture is exit status 2 */
    tw_fixture_selection sel;
    /* --jobs: fixtures run at once (each fixture's exchanges in order); 0 or
     * 1: one at a time; at most limits.max_jobs */
    size_t jobs;
    /* --shard K/N (shard.h), applied after the tags; NULL: every fixture */
    const struct tw_shard *shard;
    /* main: every profile is tried on every fixture, so a mock profile that
     * fits none of them is neither named nor an error (for run it is both) */
    bool unfit_ok;
} tw_run_opts;

/*
 * Run one backend over the fixture set and fill *rep (tw_report_free).
 * Returns TW_OK, or TW_ERR_IO when the backend could not be started.
 */
tw_status tw_run_backend(const tw_fixture_set *fs, const tw_backend_spec *b, const tw_run_opts *o,
                         tw_report *rep, tw_error *err);

/* Write comparison.md and comparison.html for reports into dir. */
tw_status tw_write_comparison(const tw_report *r, size_t n, const char *dir, tw_error *err);

/*
 * The whole run of `toolwire run` and `toolwire main`: load the fixtures,
 * run each backend, write <out>/<backend>.{json,md,junit.xml,html} and
 * comparison.{md,html}, print one summary line per backend (unless quiet).
 * Returns the exit status: 0 when every verdict matches the fixtures'
 * expectations, 1 otherwise, 2 when something could not be judged: a path
 * that cannot be read or holds no fixture, a fixture that cannot be loaded,
 * a tag selection that keeps none, a backend that cannot start, a live
 * backend with which no exchange got a response ("nobody answered at URL",
 * said once instead of its mismatch lines), a mock profile that fits none of
 * the fixtures (unless unfit_ok), a report that cannot be written.
 * *mismatches (optional) gets the total number of mismatches.
 */
int tw_run_all(const tw_backend_spec *b, size_t nb, char *const *paths, size_t npaths,
               const char *outdir, const tw_run_opts *o, size_t *mismatches);

#endif
