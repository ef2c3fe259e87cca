/* toolwire run: replay fixtures against backends, write conformance reports. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "run.h"
#include "shard.h"
#include "upstream.h"

static const char run_help[] =
    "usage: toolwire run --backend NAME=URL|NAME=mock:PROFILE … [options] [FIXTURES…]\n"
    "\n"
    "Replay every exchange of the fixtures (files or directories; default fixtures/)\n"
    "against each backend, apply the conformance checks, compare the verdicts with\n"
    "each fixture's expectations and write reports under --out (default\n"
    "reports/latest/): <backend>.json, .md, .junit.xml, .html and comparison.md/.html.\n"
    "A relative path under fixtures/ is looked up in $TOOLWIRE_DATA, the current\n"
    "directory, ../share/toolwire beside the program, then the install's data\n"
    "directory (an installed toolwire finds its own fixtures).\n"
    "\n"
    "  --backend NAME=URL         a live server (base URL, e.g. https://api.openai.com;\n"
    "                             a query it carries stays after the request's path;\n"
    "                             credentials in it, user:pass@ or key=…, are sent and\n"
    "                             never written)\n"
    "  --backend NAME=mock:P      the embedded mock backend with profile P\n"
    "                             (auto, replay, hermes, qwen3-coder, anthropic,\n"
    "                             vllm-native, gemini, script, gemma4)\n"
    "  --upstream FORMAT@PORT     the backends are proxies: start the scripted reference\n"
    "                             server (FORMAT openai, anthropic or vllm-native) on\n"
    "                             127.0.0.1:PORT behind each URL backend, judge the request\n"
    "                             that reaches it and the proxy's answer (XLT checks,\n"
    "                             docs/proxies.md)\n"
    "  --key-env NAME             live backends: read the API key from $NAME\n"
    "  --out DIR                  report directory (default reports/latest)\n"
    "  --match MODE               mock matching: normalised (default), exact, path\n"
    "  --timing                   mock replay: keep the recorded delays between events\n"
    "  --connect-timeout MS       (default 10000)\n"
    "  --timeout MS               one attempt, whole transfer (default 120000)\n"
    "  --retries N                retries after 429/5xx/connection errors (default 2)\n"
    "  --max-wait MS              longest Retry-After or backoff honoured (default 10000)\n"
    "  --max-bytes SIZE           cap on one response body (default 16M)\n" TW_SEL_HELP
    "  --jobs N                   run N fixtures of a backend at once, each on its own\n"
    "                             connection, each fixture's exchanges in order (the\n"
    "                             reports are the same as with --jobs 1; default 1;\n"
    "                             at most 64; --upstream runs one at a time)\n"
    "  --shard K/N                only shard K of N of the selected fixtures: a stable\n"
    "                             split by a hash of each fixture's path below the\n"
    "                             directory given (toolwire merge joins the reports)\n"
    "  --quiet                    no progress or summary lines (mismatches are still\n"
    "                             listed, each naming its backend)\n"
    "\n"
    "Progress goes to standard error: on a terminal one line rewritten in place; else\n"
    "(a CI log) one line per fixture, 'toolwire run: [12/48] BACKEND FIXTURE: 2\n"
    "exchanges, 0 mismatches, 0.4 s', and every 50 exchanges of a longer fixture.\n"
    "\n"
    "Each backend's summary line is followed by its mismatch lines, at most 50, then\n"
    "how many more there are and which report holds them. A failure that only follows\n"
    "from an earlier one of its exchange (an error status, no response, no call) is one\n"
    "line under it and counted once: \"2 mismatches (+7 consequences)\".\n"
    "\n"
    "Every request names its exchange in the header X-Toolwire-Exchange: FIXTURE#N,\n"
    "live servers included: a toolwire serve answers that exchange, others ignore it.\n"
    "\n"
    "A report's file name is NAME with each byte outside A-Z a-z 0-9 . _ - as '_':\n"
    "backends whose names give one file name (also when they differ only in case), or\n"
    "a backend named comparison, are refused.\n"
    "\n"
    "Exit status: 0 when every verdict matches the fixtures' expectations; 1 on a\n"
    "mismatch (a server that answered some exchanges and then died included); 2 when\n"
    "something could not be judged: bad usage (backend names refused among it), a\n"
    "selection or directory with no fixture, a fixture that cannot be loaded, a\n"
    "backend that cannot start (a port in use), a live backend with which no exchange\n"
    "got a response (\"nobody answered at URL\", said once), a mock:PROFILE that fits\n"
    "none of the fixtures (named), a report that cannot be written.";

enum {
    O_KEY = 256,
    O_MATCH,
    O_TIMING,
    O_CT,
    O_TO,
    O_RETRIES,
    O_WAIT,
    O_MAXB,
    O_UPSTREAM,
    O_JOBS,
    O_SHARD
};

bool tw_parse_match_mode(const char *s, tw_match_mode *m);
bool tw_parse_match_mode(const char *s, tw_match_mode *m)
{
    if (strcmp(s, "normalised") == 0 || strcmp(s, "normalized") == 0)
        *m = TW_MATCH_NORMALISED;
    else if (strcmp(s, "exact") == 0)
        *m = TW_MATCH_EXACT;
    else if (strcmp(s, "path") == 0 || strcmp(s, "path-only") == 0)
        *m = TW_MATCH_PATH;
    else
        return false;
    return true;
}

int tw_cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {{"backend", required_argument, NULL, 'b'},
                                             {"key-env", required_argument, NULL, O_KEY},
                                             {"out", required_argument, NULL, 'o'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"match", required_argument, NULL, O_MATCH},
                                             {"timing", no_argument, NULL, O_TIMING},
                                             {"connect-timeout", required_argument, NULL, O_CT},
                                             {"timeout", required_argument, NULL, O_TO},
                                             {"retries", required_argument, NULL, O_RETRIES},
                                             {"max-wait", required_argument, NULL, O_WAIT},
                                             {"max-bytes", required_argument, NULL, O_MAXB},
                                             {"help", no_argument, NULL, 'h'},
                                             {"upstream", required_argument, NULL, O_UPSTREAM},
                                             {"jobs", required_argument, NULL, O_JOBS},
                                             TW_SEL_LONGOPTS,
                                             {"shard", required_argument, NULL, O_SHARD},
                                             {NULL, 0, NULL, 0}};
    tw_selection_opts so;
    tw_selection_opts_init(&so);
    tw_backend_spec specs[32];
    char *stores[32];
    size_t nb = 0;
    tw_run_opts o;
    memset(&o, 0, sizeof o);
    o.client.max_retries = 2;
    o.client.max_wait_ms = 10000;
    o.out = stdout;
    o.progress = true;
    const char *outdir = "reports/latest";
    char up_format[16] = "";
    unsigned short up_port = 0;
    tw_backend_upstream ups[32];
    int rc = -1;
    optind = 1;
    opterr = 0;
    int c;
    long v = 0;
    tw_error why = {.offset = -1};
    tw_shard shard = {0, 0};
    bool bad = false;
    while (rc < 0 && (c = getopt_long(argc, argv, "b:o:qh", longopts, NULL)) != -1) {
        if (tw_selection_option(&so, c, optarg, &bad, &why)) {
            if (bad)
                rc = tw_cli_usage_error("run", "%s", why.message);
            continue;
        }
        switch (c) {
        case 'b':
            if (nb == 32) {
                rc = tw_cli_usage_error("run", "at most 32 backends");
                break;
            }
            stores[nb] = malloc(strlen(optarg) + 1);
            if (!stores[nb] || !tw_backend_spec_parse(optarg, stores[nb], &specs[nb], &why)) {
                rc = tw_cli_usage_error("run", "%s", stores[nb] ? why.message : "out of memory");
                free(stores[nb]);
                break;
            }
            nb++;
            break;
        case O_KEY: o.key_env = optarg; break;
        case O_JOBS:
            if (!tw_jobs_option(optarg, NULL, &o.jobs, &why))
                rc = tw_cli_usage_error("run", "%s", why.message);
            break;
        case O_UPSTREAM:
            if (!tw_upstream_spec_parse(optarg, up_format, sizeof up_format, &up_port, &why))
                rc = tw_cli_usage_error("run", "%s", why.message);
            break;
        case 'o': outdir = optarg; break;
        case 'q': o.quiet = true; break;
        case O_MATCH:
            if (!tw_parse_match_mode(optarg, &o.match))
                rc = tw_cli_usage_error("run", "--match wants normalised, exact or path");
            break;
        case O_TIMING: o.timing = true; break;
        case O_CT:
            if (!tw_cli_parse_long(optarg, 1, 3600000, &v))
                rc = tw_cli_usage_error("run", "bad --connect-timeout '%s'", optarg);
            o.client.connect_timeout_ms = v;
            break;
        case O_TO:
            if (!tw_cli_parse_long(optarg, 1, 86400000, &v))
                rc = tw_cli_usage_error("run", "bad --timeout '%s'", optarg);
            o.client.total_timeout_ms = v;
            break;
        case O_RETRIES:
            if (!tw_cli_parse_long(optarg, 0, TW_CLIENT_MAX_ATTEMPTS - 1, &v))
                rc = tw_cli_usage_error("run", "--retries wants 0..%d", TW_CLIENT_MAX_ATTEMPTS - 1);
            o.client.max_retries = (int)v;
            break;
        case O_WAIT:
            if (!tw_cli_parse_long(optarg, 1, 3600000, &v))
                rc = tw_cli_usage_error("run", "bad --max-wait '%s'", optarg);
            o.client.max_wait_ms = v;
            break;
        case O_MAXB:
            if (!tw_parse_size(optarg, &o.client.max_bytes) || !o.client.max_bytes)
                rc = tw_cli_usage_error("run", "bad --max-bytes '%s'", optarg);
            break;
        case O_SHARD:
            if (!tw_shard_parse(optarg, &shard, &why))
                rc = tw_cli_usage_error("run", "%s", why.message);
            o.shard = &shard;
            break;
        case 'h':
            puts(run_help);
            rc = TW_EXIT_OK;
            break;
        default: rc = tw_cli_option_error("run", longopts, argv[optind - 1]);
        }
    }
    if (rc < 0 && nb == 0)
        rc = tw_cli_usage_error("run", "at least one --backend is needed (see --help)");
    for (size_t i = 0; rc < 0 && i < nb; i++) {
        for (size_t k = 0; k < i; k++)
            if (strcmp(specs[i].name, specs[k].name) == 0)
                rc = tw_cli_usage_error("run", "backend name '%s' given twice", specs[i].name);
        if (rc < 0 && specs[i].url && o.key_env && (!getenv(o.key_env) || !*getenv(o.key_env)))
            rc =
                tw_cli_usage_error("run", "environment variable %s is not set or empty", o.key_env);
    }
    for (size_t i = 0; rc < 0 && up_format[0] && i < nb; i++) {
        if (!specs[i].url) {
            rc = tw_cli_usage_error("run",
                                    "--upstream: backend '%s' is a mock; a proxy under test is "
                                    "given as NAME=URL",
                                    specs[i].name);
            break;
        }
        ups[o.nupstreams++] = (tw_backend_upstream){specs[i].name, up_format, up_port, NULL};
    }
    o.upstreams = ups;
    if (rc < 0) {
        char *dflt[] = {(char *)"fixtures"};
        char **paths = optind < argc ? argv + optind : dflt;
        size_t np = optind < argc ? (size_t)(argc - optind) : 1;
        o.progress = !o.quiet;
        o.sel = so.sel;
        rc = tw_run_all(specs, nb, paths, np, outdir, &o, NULL);
    }
    for (size_t i = 0; i < nb; i++)
        free(stores[i]);
    return rc;
}
