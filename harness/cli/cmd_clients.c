/* toolwire clients: judge client libraries through their drivers, write per-client reports. */
#include <dirent.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "clients.h"
#include "run.h"
#include "shard.h"

static const char clients_help[] =
    "usage: toolwire clients [--client NAME=CMD …] [options] [SCENARIOS…]\n"
    "\n"
    "Judge client libraries (SDKs, agent frameworks) on what they hand to their\n"
    "caller. Each client is run through a driver program (docs/clients.md): for\n"
    "every scenario exchange (fixtures tagged clients, files or directories;\n"
    "default fixtures/clients) of the driver's endpoint and every mode of the\n"
    "driver, the embedded mock backend serves the scenario on 127.0.0.1, the\n"
    "driver sends the exchange's request with its library and prints what the\n"
    "library returned or raised; the client checks CLT-01..CLT-07 judge it\n"
    "against the exchange's expect.client. Reports under --out (default\n"
    "reports/clients): <client>.json, .md, .junit.xml, .html (one row per\n"
    "exchange and mode) and comparison.md/.html; toolwire compare and toolwire\n"
    "gate read them as they read backend reports. Clients whose names give one\n"
    "file name (each byte outside A-Z a-z 0-9 . _ - written '_', case aside),\n"
    "or a client named comparison, are refused.\n"
    "\n"
    "  --client NAME=CMD          a driver: /bin/sh -c 'exec CMD \"$@\"' runs it with\n"
    "                             --describe, then once per exchange and mode with\n"
    "                             --run (repeatable, at most 32)\n"
    "  --drivers DIR              without --client: every DIR/NAME/driver.mjs (but\n"
    "                             DIR/lib, shared code), run with node (default\n"
    "                             clients); their node modules missing (DIR has a\n"
    "                             package.json and no node_modules, or a driver\n"
    "                             cannot load a module): exit 2 naming the command\n"
    "                             that installs them\n"
    "  --install                  those node modules missing: install them (npm ci\n"
    "                             in DIR) and go on\n"
    "  --out DIR                  report directory (default reports/clients),\n"
    "                             created and checked before any driver runs\n"
    "  --timeout MS               one driver run; killed past it (default 60000)\n"
    "  --client-timeout MS        the timeout_ms handed to the driver (default 20000)\n"
    "  --max-output SIZE          cap on a driver's stdout; killed past it (default "
    "1M)\n" TW_SEL_HELP
    "  --shard K/N                only shard K of N of the selected scenarios, split as\n"
    "                             run --shard splits fixtures (toolwire merge joins them)\n"
    "  --jobs N                   run N scenario files at once (each one's exchanges\n"
    "                             in order; the reports are those of --jobs 1;\n"
    "                             default 1, at most 64)\n"
    "  --quiet                    no summary lines and no progress (driver failures and\n"
    "                             mismatch lines are still listed)\n"
    "\n"
    "Each client's summary line is followed by its mismatch lines, at most 50, then\n"
    "how many more there are and which report holds them.\n"
    "Progress on stderr: on a terminal one line rewritten in place; else (a CI log)\n"
    "one line as each client finishes a scenario file:\n"
    "  toolwire clients: [3/12] openai fixtures/clients/x.json: 1 exchange, 0 mismatches, 0.8 s\n"
    "\n"
    "Exit status: 0 when every client passes every check, 1 when a check fails or\n"
    "a driver fails on an exchange, 2 when a client could not be judged: bad usage\n"
    "(client names refused among it, a command over the limit), no driver found,\n"
    "the drivers' node modules not installed, a driver whose --describe fails, a\n"
    "scenario that cannot be loaded, no scenario selected (in all or for a client's\n"
    "endpoint), an --out that cannot be created or written into, a report that\n"
    "cannot be written.";

enum { O_DRIVERS = 256, O_TO, O_CTO, O_MAXO, O_SHARD, O_JOBS, O_INSTALL };

#define MAX_CLIENTS 32

static bool parse_ms(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 1 || v > 86400000)
        return false;
    *out = v;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every DIR/NAME/driver.mjs, sorted by name: "NAME=node 'DIR/NAME/driver.mjs'" into specs. */
static int find_drivers(const char *dir, char **store, tw_client_spec *specs, size_t *n)
{
    if (strchr(dir, '\''))
        return tw_cli_usage_error("clients", "--drivers: a quote in '%s'", dir);
    DIR *d = opendir(dir);
    if (!d)
        return tw_cli_usage_error("clients", "cannot read --drivers '%s' (give --client NAME=CMD)",
                                  dir);
    char *names[MAX_CLIENTS];
    size_t nn = 0;
    struct dirent *de;
    while ((de = readdir(d)) && nn < MAX_CLIENTS) {
        tw_buf p = {0};
        struct stat sb;
        size_t len = strlen(de->d_name);
        tw_buf_printf(&p, "%s/%s/driver.mjs", dir, de->d_name);
        /* lib/ holds code the drivers share */
        if (de->d_name[0] != '.' && strcmp(de->d_name, "lib") != 0 &&
            tw_cli_name_ok(de->d_name, len) && p.data && stat(p.data, &sb) == 0 &&
            S_ISREG(sb.st_mode))
            names[nn++] = tw_strdup(de->d_name);
        tw_buf_free(&p);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_str);
    for (size_t i = 0; i < nn; i++) {
        size_t len = strlen(dir) * 2 + strlen(names[i]) * 2 + 32;
        store[*n] = malloc(len);
        if (!store[*n]) {
            for (size_t k = i; k < nn; k++)
                free(names[k]);
            return tw_cli_usage_error("clients", "out of memory");
        }
        int nm = (int)strlen(names[i]);
        snprintf(store[*n], len, "%s%cnode '%s/%s/driver.mjs'", names[i], 0, dir, names[i]);
        specs[*n].name = store[*n];
        specs[*n].cmd = store[*n] + nm + 1;
        (*n)++;
        free(names[i]);
    }
    if (*n == 0)
        return tw_cli_usage_error(
            "clients", "no driver found: no %s/*/driver.mjs (give --client NAME=CMD)", dir);
    return -1;
}

int tw_cmd_clients(int argc, char **argv)
{
    static const struct option longopts[] = {{"client", required_argument, NULL, 'c'},
                                             {"drivers", required_argument, NULL, O_DRIVERS},
                                             {"out", required_argument, NULL, 'o'},
                                             {"timeout", required_argument, NULL, O_TO},
                                             {"client-timeout", required_argument, NULL, O_CTO},
                                             {"max-output", required_argument, NULL, O_MAXO},
                                             TW_SEL_LONGOPTS,
                                             {"shard", required_argument, NULL, O_SHARD},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"jobs", required_argument, NULL, O_JOBS},
                                             {"install", no_argument, NULL, O_INSTALL},
                                             {NULL, 0, NULL, 0}};
    tw_selection_opts so;
    tw_selection_opts_init(&so);
    bool bad = false;
    tw_client_spec specs[MAX_CLIENTS];
    char *stores[MAX_CLIENTS];
    size_t nc = 0;
    tw_clients_opts o;
    memset(&o, 0, sizeof o);
    o.out = stdout;
    const char *outdir = "reports/clients", *drivers = "clients";
    int rc = -1;
    optind = 1;
    opterr = 0;
    int c;
    tw_error why = {.offset = -1};
    tw_shard shard = {0, 0};
    while (rc < 0 && (c = getopt_long(argc, argv, "c:o:qh", longopts, NULL)) != -1) {
        if (tw_selection_option(&so, c, optarg, &bad, &why)) {
            if (bad)
                rc = tw_cli_usage_error("clients", "%s", why.message);
            continue;
        }
        switch (c) {
        case 'c':
            if (nc == MAX_CLIENTS)
                rc = tw_cli_usage_error("clients", "at most %d clients", MAX_CLIENTS);
            else if ((rc = tw_cli_name_cmd("clients", "client", "client", optarg, stores, nc,
                                           &specs[nc].name, &specs[nc].cmd)) < 0 ||
                     stores[nc])
                nc++;
            break;
        case O_DRIVERS: drivers = optarg; break;
        case 'o': outdir = optarg; break;
        case 'q': o.quiet = true; break;
        case O_INSTALL: o.install = true; break;
        case O_JOBS: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 1 || v > TW_CLIENTS_MAX_JOBS)
                rc = tw_cli_usage_error("clients", "--jobs wants a count of 1..%d, got '%s'",
                                        TW_CLIENTS_MAX_JOBS, optarg);
            else
                o.jobs = (size_t)v;
            break;
        }
        case O_TO:
            if (!parse_ms(optarg, &o.timeout_ms))
                rc = tw_cli_usage_error("clients", "bad --timeout '%s'", optarg);
            break;
        case O_CTO:
            if (!parse_ms(optarg, &o.client_timeout_ms))
                rc = tw_cli_usage_error("clients", "bad --client-timeout '%s'", optarg);
            break;
        case O_MAXO:
            if (!tw_parse_size(optarg, &o.max_out) || !o.max_out)
                rc = tw_cli_usage_error("clients", "bad --max-output '%s'", optarg);
            break;
        case O_SHARD:
            if (!tw_shard_parse(optarg, &shard, &why))
                rc = tw_cli_usage_error("clients", "%s", why.message);
            o.shard = &shard;
            break;
        case 'h':
            puts(clients_help);
            rc = TW_EXIT_OK;
            break;
        default: rc = tw_cli_option_error("clients", longopts, argv[optind - 1]);
        }
    }
    char *mods = NULL;
    if (rc < 0 && nc == 0) {
        rc = find_drivers(drivers, stores, specs, &nc);
        /* the drivers' npm package: named by its real path in what to run */
        mods = realpath(drivers, NULL);
        o.modules_dir = mods ? mods : drivers;
    }
    o.progress = !o.quiet;
    if (rc < 0) {
        /* a driver that exits before reading its input must not kill toolwire */
        signal(SIGPIPE, SIG_IGN);
        char *dflt[] = {(char *)"fixtures/clients"};
        char **paths = optind < argc ? argv + optind : dflt;
        size_t np = optind < argc ? (size_t)(argc - optind) : 1;
        o.sel = so.sel;
        rc = tw_clients_run_all(specs, nc, paths, np, outdir, &o);
    }
    for (size_t i = 0; i < nc; i++)
        free(stores[i]);
    free(mods);
    return rc;
}
