/* toolwire serve: serve fixtures from the embedded mock backend. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "mock.h"
#include "run.h"

bool tw_parse_match_mode(const char *s, tw_match_mode *m);

int tw_cmd_serve(int argc, char **argv)
{
    static const struct option longopts[] = {{"port", required_argument, NULL, 'p'},
                                             {"profile", required_argument, NULL, 'P'},
                                             {"match", required_argument, NULL, 'm'},
                                             {"timing", no_argument, NULL, 't'},
                                             {"fault", required_argument, NULL, 'f'},
                                             {"for", required_argument, NULL, 'F'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    tw_mock_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.profile = "replay";
    long seconds = 0;
    bool quiet = false;
    cJSON *fault = NULL;
    optind = 1;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "p:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'p': {
            long v = strtol(optarg, &end, 10);
            if (*end || v < 0 || v > 65535) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "bad --port '%s'", optarg);
            }
            mo.port = (unsigned short)v;
            break;
        }
        case 'P': mo.profile = optarg; break;
        case 'm':
            if (!tw_parse_match_mode(optarg, &mo.match)) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "--match wants normalised, exact or path");
            }
            break;
        case 't': mo.timing = true; break;
        case 'f':
            cJSON_Delete(fault);
            fault = NULL;
            if (tw_json_parse(optarg, strlen(optarg), 8, &fault, NULL) != TW_OK || !cJSON_IsObject(fault)) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "--fault wants a JSON object such as "
                                                   "'{\"status\": 429, \"retry_after\": 1}'");
            }
            break;
        case 'F':
            seconds = strtol(optarg, &end, 10);
            if (*end || seconds < 1 || seconds > 86400 * 7) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "bad --for '%s'", optarg);
            }
            break;
        case 'q': quiet = true; break;
        case 'h':
            puts("usage: toolwire serve [--port N] [--profile P] [options] FIXTURES…\n\n"
                 "Serve the fixtures (files or directories) from the embedded mock backend on\n"
                 "127.0.0.1 until interrupted: POST /v1/chat/completions, /v1/messages, /generate.\n"
                 "\n"
                 "  --port N        port (default 0: any free port, printed on start)\n"
                 "  --profile P     replay (default), hermes, anthropic, vllm-native\n"
                 "  --match MODE    normalised (default: ignores stream, model, temperature, …),\n"
                 "                  exact, path\n"
                 "  --timing        replay the recorded delays between stream events\n"
                 "  --fault JSON    faults for every exchange that has none, e.g.\n"
                 "                  '{\"status\": 503, \"retry_after\": 2}', '{\"drop_after_events\": 3}',\n"
                 "                  '{\"truncate_sse_after_bytes\": 100}', '{\"malformed_chunk_at\": 1}',\n"
                 "                  '{\"delay_ms\": 500}'\n"
                 "  --for SECONDS   stop after this long\n"
                 "  --quiet         no per-request log on standard error\n"
                 "\n"
                 "Each request is logged with the fixture exchange it matched and the client\n"
                 "checks (CLI-01..CLI-07) it failed.");
            return TW_EXIT_OK;
        default:
            cJSON_Delete(fault);
            return tw_cli_usage_error("serve", "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (!tw_mock_profile_known(mo.profile)) {
        cJSON_Delete(fault);
        return tw_cli_usage_error("serve", "unknown profile '%s'", mo.profile);
    }
    if (optind >= argc) {
        cJSON_Delete(fault);
        return tw_cli_usage_error("serve", "give fixtures to serve (see --help)");
    }
    mo.faults = fault;
    mo.log = quiet ? NULL : stderr;
    tw_fixture_set fs;
    char why[600];
    if (!tw_fixture_set_load(&fs, argv + optind, (size_t)(argc - optind), NULL, why, sizeof why)) {
        cJSON_Delete(fault);
        tw_fixture_set_free(&fs);
        return tw_cli_usage_error("serve", "%s", why);
    }
    for (size_t i = 0; i < fs.nbad; i++)
        fprintf(stderr, "toolwire serve: skipping %s: %s\n", fs.bad_files[i], fs.bad_why[i]);
    size_t fits = 0;
    for (size_t i = 0; i < fs.n; i++)
        fits += tw_mock_profile_fits(mo.profile, &fs.fx[i]);
    /* block the stop signals before the server threads start: they inherit the mask */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    tw_mock *m = NULL;
    if (tw_mock_start(fs.fx, fs.n, &mo, &m, why, sizeof why) != TW_OK) {
        fprintf(stderr, "toolwire serve: %s\n", why);
        cJSON_Delete(fault);
        tw_fixture_set_free(&fs);
        return TW_EXIT_FAIL;
    }
    printf("serving %zu fixture(s) with profile %s on %s\n", fits, mo.profile, tw_mock_url(m));
    fflush(stdout);
    if (seconds) {
        struct timespec ts = {seconds, 0};
        while (sigtimedwait(&set, NULL, &ts) < 0 && errno == EINTR) {
        }
    } else {
        int sig;
        sigwait(&set, &sig);
    }
    unsigned long n = tw_mock_seq(m);
    tw_mock_stop(m);
    if (!quiet)
        fprintf(stderr, "toolwire serve: %lu request(s) served\n", n);
    cJSON_Delete(fault);
    tw_fixture_set_free(&fs);
    return TW_EXIT_OK;
}
