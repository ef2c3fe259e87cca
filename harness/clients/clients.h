/*
 * Client conformance (docs/clients.md): a real client library is judged
 * through a driver program that runs it. For each scenario exchange (a
 * fixture tagged "clients" whose exchange carries expect.client) and each of
 * the driver's modes, the embedded mock backend serves the fixture, the
 * driver sends the exchange's request with the library and prints what the
 * library handed to its caller; the client checks CLT-01..CLT-07 judge that
 * output against expect.client and the mock's verdicts on the requests the
 * library sent. One report per client, one row per exchange × mode.
 */
#ifndef TOOLWIRE_CLIENTS_H
#define TOOLWIRE_CLIENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "checks.h"
#include "fixture.h"
#include "mock_log.h"
#include "select.h"

#define TW_DRIVER_PROTOCOL 1
#define TW_DRIVER_MAX_MODES 8
/* a mode name: [A-Za-z0-9_-]{1,TW_DRIVER_MODE_LEN} */
#define TW_DRIVER_MODE_LEN 32
/* How much of the end of a driver's log (stderr) a result detail keeps. */
#define TW_CLIENTS_LOG_TAIL 1000u
/* The longest driver command /bin/sh can be given: it is one argument of
 * execve, which Linux caps at 32 pages (MAX_ARG_STRLEN, 131072 bytes), less
 * the "exec " and " \"$@\"" around it. */
#define TW_PROC_MAX_CMD ((size_t)131072 - 16)
/* --jobs: at most this many threads run drivers at once. */
#define TW_CLIENTS_MAX_JOBS 64
/* What installs the drivers' node modules (in the drivers' directory), and how long it may take. */
#define TW_CLIENTS_INSTALL "npm ci --prefer-offline --no-audit --no-fund --loglevel=error"
#define TW_CLIENTS_INSTALL_MS 600000L

/* One driver run: what came back from the process. */
typedef struct tw_proc_result {
    int exit_code;  /* -1 when killed or not exited normally */
    bool timed_out; /* killed at the deadline */
    bool overflow;  /* stdout went past its cap: killed */
    char *out;      /* stdout (owned, NUL-terminated) */
    size_t out_len;
    char *err; /* stderr, at most the stderr cap (owned, NUL-terminated) */
    size_t err_len;
    bool err_cut; /* stderr went past its cap (the rest was read and dropped) */
} tw_proc_result;

/*
 * Run `/bin/sh -c 'exec CMD "$@"' sh ARG` in its own process group with
 * `input` on its stdin: CMD is shell words (quoted as the shell reads them)
 * whose first word is the program that replaces the shell, ARG its last
 * argument (variables go through `env NAME=VALUE prog`, a list or a pipeline
 * through `sh -c '…' sh`). stdout is kept up to max_out bytes (past it the group is killed),
 * stderr up to max_err (the rest is drained and dropped). The group is killed
 * when it runs past timeout_ms. TW_ERR_LIMIT when CMD is longer than
 * TW_PROC_MAX_CMD, TW_ERR_IO when the process cannot be started. Safe to call
 * from several threads at once (the pipes are close-on-exec); the caller
 * ignores SIGPIPE while it runs.
 */
tw_status tw_proc_run(const char *cmd, const char *arg, const char *input, size_t inlen,
                      long timeout_ms, size_t max_out, size_t max_err, tw_proc_result *r);
void tw_proc_result_free(tw_proc_result *r);

/* What a driver says of itself (--describe). */
typedef struct tw_driver_info {
    char client[64];
    char version[64];
    char endpoint[16]; /* "openai" or "anthropic" */
    char modes[TW_DRIVER_MAX_MODES][TW_DRIVER_MODE_LEN + 1];
    size_t nmodes;
} tw_driver_info;

/* Read a --describe object; false with why when it breaks the protocol. */
bool tw_driver_describe_parse(const char *text, size_t len, tw_driver_info *out, tw_error *err);

/* Does the mode stream? (its name contains "stream", any case) */
bool tw_driver_mode_streams(const char *mode);

/*
 * Check a --run output object against the protocol (content, reasoning,
 * tool_calls, finish_reason, error, requests); false with why when it does not
 * hold: the driver failed, there is no verdict.
 */
bool tw_driver_output_valid(const cJSON *out, tw_error *err);

/*
 * The client checks CLT-01..CLT-07 of one driver output (valid by
 * tw_driver_output_valid) for the exchange x, which carries expect.client;
 * recs are the mock's records of the requests the driver's library sent for
 * this run (CLI-01/02/07 verdicts). Every CLT check gets a verdict.
 */
void tw_clients_judge(const tw_fx_exchange *x, const cJSON *out, const tw_mock_record *recs,
                      size_t nrec, tw_check_set *set);

/* s between double quotes, JSON-escaped, onto b. */
void tw_driver_quote(tw_buf *b, const char *s);

/* One line of what the client handed on ("2 calls: f({…}), g(\"x\"); content …"), for evidence. */
void tw_driver_output_summary(const cJSON *out, tw_buf *b);

typedef struct tw_client_spec {
    const char *name; /* report name */
    const char *cmd;  /* the driver command (run with --describe / --run) */
} tw_client_spec;

typedef struct tw_clients_opts {
    long timeout_ms;        /* one driver run, killed past it; 0: 60000 */
    long client_timeout_ms; /* the timeout_ms handed to the driver; 0: 20000 */
    size_t max_out;         /* driver stdout cap; 0: 1 MiB */
    size_t max_err;         /* driver stderr kept; 0: 64 KiB */
    tw_limits limits;
    tw_fixture_selection sel;     /* --tag (besides "clients"), --exclude-tag, --filter */
    const struct tw_shard *shard; /* --shard K/N (shard.h); NULL: every scenario */
    bool quiet;
    FILE *out;               /* summary lines, or NULL */
    bool progress;           /* progress.h: a line a client and scenario file as each ends */
    size_t jobs;             /* scenario files run at once (each one's exchanges in order); 0: 1 */
    const char *modules_dir; /* the drivers' npm package (--drivers DIR), or NULL */
    bool install;            /* its node modules missing: install them (TW_CLIENTS_INSTALL) */
} tw_clients_opts;

/* Milliseconds of a monotonic clock. */
long tw_clients_now_ms(void);

/* Does dir hold a package.json without node_modules beside it? */
bool tw_clients_modules_missing(const char *dir);

/* Run TW_CLIENTS_INSTALL in dir (its output kept, the end of it in err on failure). */
tw_status tw_clients_install(const char *dir, const tw_clients_opts *o, tw_error *err);

/*
 * The whole run of `toolwire clients`: load the scenarios under paths, run
 * every client over those of its endpoint, write <out>/<client>.{json,md,
 * junit.xml,html} and comparison.{md,html}. Returns the exit status: 0 when
 * every client passes every check, 1 otherwise (or a driver failed), 2 when
 * the scenarios cannot be read or none is selected, a command is too long, or
 * the drivers' node modules are missing (and not installed with o->install).
 * The reports do not depend on o->jobs.
 */
int tw_clients_run_all(const tw_client_spec *c, size_t nc, char *const *paths, size_t npaths,
                       const char *outdir, const tw_clients_opts *o);

#endif
