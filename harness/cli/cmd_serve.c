/* toolwire serve: serve fixtures from the embedded mock backend. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli.h"
#include "mock.h"
#include "refproxy.h"
#include "run.h"
#include "url.h"

bool tw_parse_match_mode(const char *s, tw_match_mode *m);

/* An unsigned option value in [lo, hi]. */
static bool parse_count(const char *s, unsigned long long lo, unsigned long long hi,
                        unsigned long long *out)
{
    char *end;
    if (!s[0] || s[0] == '-')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Room for every allowed connection's socket, as far as the hard limit lets. */
static void raise_nofile(unsigned conns)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t want = (rlim_t)conns + 64;
    if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max)
        want = rl.rlim_max;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        rl.rlim_cur = want;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* block SIGINT and SIGTERM (before any server thread starts: they inherit the
 * mask) and wait for one of them, or for `seconds` when not 0 */
static void wait_stop(long seconds, bool block_only)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (block_only) {
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        return;
    }
    if (seconds) {
        struct timespec ts = {seconds, 0};
        while (sigtimedwait(&set, NULL, &ts) < 0 && errno == EINTR) {
        }
    } else {
        int sig;
        sigwait(&set, &sig);
    }
}

/* The options of the fixtures served (the mock's), by getopt value; NULL for others. */
static const char *fixture_option(int c)
{
    switch (c) {
    case 'P': return "--profile";
    case 'm': return "--match";
    case 't': return "--timing";
    case 'f': return "--fault";
    case TW_SEL_OPT_TAG: return "--tag";
    case TW_SEL_OPT_XTAG: return "--exclude-tag";
    case TW_SEL_OPT_FILTER: return "--filter";
    case 'L': return "--log-bodies";
    case 'M': return "--log-body-max";
    default: return NULL;
    }
}

/* The reference proxy's own options (its server takes serve's hostile-client options). */
typedef struct proxy_opts {
    long timeout_s;   /* one upstream attempt, whole transfer */
    int retries;      /* upstream retries after the first attempt */
    unsigned workers; /* requests waiting on the upstream at once */
} proxy_opts;

#define PROXY_DEFAULT_TIMEOUT_S 60
#define PROXY_DEFAULT_RETRIES 1
#define PROXY_DEFAULT_WORKERS 16

static int serve_proxy(const char *proxy, const char *upstream, const char *key_env,
                       const tw_mock_opts *mo, const proxy_opts *px, long seconds, bool quiet,
                       bool operands, const char *fixture_opt)
{
    char from[16], to[16];
    tw_error why = {.offset = -1};
    if (!proxy || !upstream)
        return tw_cli_usage_error("serve",
                                  "--proxy FROM:TO and --upstream URL go together (see --help)");
    if (operands)
        return tw_cli_usage_error("serve", "--proxy serves no fixtures");
    if (fixture_opt)
        return tw_cli_usage_error(
            "serve", "%s is an option of the fixtures served, not of --proxy (see --help)",
            fixture_opt);
    if (!tw_refproxy_spec_parse(proxy, from, sizeof from, to, sizeof to, &why))
        return tw_cli_usage_error("serve", "%s", why.message);
    if (strncmp(upstream, "http://", 7) != 0 && strncmp(upstream, "https://", 8) != 0)
        return tw_cli_usage_error("serve", "--upstream must be an http:// or https:// URL");
    if (!tw_url_base_ok(upstream, "--upstream", &why))
        return tw_cli_usage_error("serve", "%s", why.message);
    if (key_env && (!getenv(key_env) || !*getenv(key_env)))
        return tw_cli_usage_error("serve", "environment variable %s is not set or empty", key_env);
    tw_refproxy_opts po;
    memset(&po, 0, sizeof po);
    po.from = from;
    po.to = to;
    po.upstream = upstream;
    po.port = mo->port;
    po.max_connections = mo->max_connections;
    po.max_per_ip = mo->max_per_ip;
    po.threads = mo->threads;
    po.request_deadline_ms = mo->request_deadline_ms;
    po.inflight_budget = mo->inflight_budget;
    po.workers = px->workers;
    po.client.key_env = key_env;
    po.client.total_timeout_ms = px->timeout_s * 1000;
    po.client.connect_timeout_ms = px->timeout_s * 1000 < 10000 ? px->timeout_s * 1000 : 10000;
    po.client.max_retries = px->retries;
    po.client.max_wait_ms = 10000;
    po.log = quiet ? NULL : stderr;
    wait_stop(0, true);
    raise_nofile(mo->max_connections ? mo->max_connections : TW_MOCK_DEFAULT_MAX_CONNECTIONS);
    tw_refproxy *p = NULL;
    if (tw_refproxy_start(&po, &p, &why) != TW_OK) {
        fprintf(stderr, "toolwire serve: %s\n", why.message);
        return TW_EXIT_USAGE;
    }
    char *shown = tw_url_shown(upstream);
    printf("serving the reference proxy %s on %s (upstream %s)\n", proxy, tw_refproxy_url(p),
           shown ? shown : "");
    free(shown);
    fflush(stdout);
    wait_stop(seconds, false);
    unsigned long n = tw_refproxy_count(p);
    tw_refproxy_stop(p);
    if (!quiet)
        fprintf(stderr, "toolwire serve: %lu request(s) proxied\n", n);
    return TW_EXIT_OK;
}

int tw_cmd_serve(int argc, char **argv)
{
    static const struct option longopts[] = {{"port", required_argument, NULL, 'p'},
                                             {"profile", required_argument, NULL, 'P'},
                                             {"match", required_argument, NULL, 'm'},
                                             {"timing", no_argument, NULL, 't'},
                                             {"fault", required_argument, NULL, 'f'},
                                             {"for", required_argument, NULL, 'F'},
                                             {"threads", required_argument, NULL, 'T'},
                                             {"max-connections", required_argument, NULL, 'C'},
                                             {"max-per-ip", required_argument, NULL, 'I'},
                                             {"request-deadline", required_argument, NULL, 'D'},
                                             {"inflight-budget", required_argument, NULL, 'B'},
                                             {"log-bodies", no_argument, NULL, 'L'},
                                             {"log-body-max", required_argument, NULL, 'M'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"proxy", required_argument, NULL, 'X'},
                                             {"upstream", required_argument, NULL, 'U'},
                                             {"key-env", required_argument, NULL, 'K'},
                                             {"upstream-timeout", required_argument, NULL, 'O'},
                                             {"upstream-retries", required_argument, NULL, 'R'},
                                             {"workers", required_argument, NULL, 'W'},
                                             TW_SEL_LONGOPTS,
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    tw_mock_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.profile = "auto";
    long seconds = 0;
    bool quiet = false;
    cJSON *fault = NULL;
    const char *proxy = NULL, *upstream = NULL, *key_env = NULL;
    proxy_opts px = {PROXY_DEFAULT_TIMEOUT_S, PROXY_DEFAULT_RETRIES, PROXY_DEFAULT_WORKERS};
    const char *proxy_only = NULL;  /* a --proxy option given, for the error without --proxy */
    const char *fixture_opt = NULL; /* an option of the fixtures served, refused with --proxy */
    tw_selection_opts so;
    tw_selection_opts_init(&so);
    bool bad_sel = false;
    tw_error swhy = {.offset = -1};
    optind = 1;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "p:qh", longopts, NULL)) != -1) {
        if (fixture_option(c))
            fixture_opt = fixture_option(c);
        if (tw_selection_option(&so, c, optarg, &bad_sel, &swhy)) {
            if (bad_sel) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "%s", swhy.message);
            }
            continue;
        }
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
            tw_error why = {.offset = -1};
            if (tw_fixture_check_faults(optarg, strlen(optarg), "--fault", &fault, &why) != TW_OK)
                return tw_cli_usage_error("serve",
                                          "%s (--fault wants a JSON object such as "
                                          "'{\"status\": 429, \"retry_after\": 1}')",
                                          why.message);
            break;
        case 'F':
            seconds = strtol(optarg, &end, 10);
            if (*end || seconds < 1 || seconds > 86400 * 7) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "bad --for '%s'", optarg);
            }
            break;
        case 'T':
        case 'C':
        case 'I':
        case 'D':
        case 'B': {
            unsigned long long v;
            bool ok = c == 'T'   ? parse_count(optarg, 1, 256, &v)
                      : c == 'C' ? parse_count(optarg, 1, 1000000, &v)
                      : c == 'I' ? parse_count(optarg, 1, 1000000, &v)
                      : c == 'D' ? parse_count(optarg, 100, 3600000, &v)
                                 : parse_count(optarg, 1024, (unsigned long long)1 << 40, &v);
            if (!ok) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "bad --%s '%s' (see --help)",
                                          c == 'T'   ? "threads"
                                          : c == 'C' ? "max-connections"
                                          : c == 'I' ? "max-per-ip"
                                          : c == 'D' ? "request-deadline"
                                                     : "inflight-budget",
                                          optarg);
            }
            if (c == 'T')
                mo.threads = (unsigned)v;
            else if (c == 'C')
                mo.max_connections = (unsigned)v;
            else if (c == 'I')
                mo.max_per_ip = (unsigned)v;
            else if (c == 'D')
                mo.request_deadline_ms = (unsigned)v;
            else
                mo.inflight_budget = (size_t)v;
            break;
        }
        case 'L': mo.log_bodies = true; break;
        case 'M': {
            unsigned long long v;
            if (!parse_count(optarg, 1, (unsigned long long)1 << 30, &v)) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "bad --log-body-max '%s' (1 to 2^30 bytes)",
                                          optarg);
            }
            mo.log_body_max = (size_t)v;
            break;
        }
        case 'q': quiet = true; break;
        case 'X': proxy = optarg; break;
        case 'U':
            /* its credentials are secrets before anything is written */
            upstream = optarg;
            if (tw_url_learn_secrets(upstream) != TW_OK) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "out of memory");
            }
            break;
        case 'K': key_env = optarg; break;
        case 'O':
        case 'R':
        case 'W': {
            unsigned long long v;
            bool ok = c == 'O'   ? parse_count(optarg, 1, 3600, &v)
                      : c == 'R' ? parse_count(optarg, 0, TW_CLIENT_MAX_ATTEMPTS - 1, &v)
                                 : parse_count(optarg, 1, 1024, &v);
            const char *name = c == 'O'   ? "upstream-timeout"
                               : c == 'R' ? "upstream-retries"
                                          : "workers";
            if (!ok) {
                cJSON_Delete(fault);
                return tw_cli_usage_error("serve", "bad --%s '%s' (%s)", name, optarg,
                                          c == 'O'   ? "seconds, 1 to 3600"
                                          : c == 'R' ? "0 to 7"
                                                     : "1 to 1024");
            }
            if (c == 'O')
                px.timeout_s = (long)v;
            else if (c == 'R')
                px.retries = (int)v;
            else
                px.workers = (unsigned)v;
            proxy_only = c == 'O'   ? "--upstream-timeout"
                         : c == 'R' ? "--upstream-retries"
                                    : "--workers";
            break;
        }
        case 'h':
            tw_cli_print_help(
                "usage: toolwire serve [--port N] [--profile P] [options] FIXTURES…\n"
                "       toolwire serve --profile script [--port N] [options]\n\n"
                "Serve the fixtures (files or directories) from the embedded mock backend on\n"
                "127.0.0.1 until interrupted: POST /v1/chat/completions, /v1/messages,\n"
                "/v1/responses (the Responses API; \"stream\": true gets its typed events),\n"
                "/generate, /v1beta/models/M:generateContent and M:streamGenerateContent?alt=sse\n"
                "(Gemini; without alt=sse: 400, the JSON-array stream is not served).\n"
                "\n"
                "  --port N        port (default 0: any free port, printed on start)\n"
                "  --profile P     auto (default: each fixture with the first of the others that\n"
                "                  fits it), %PROFILES%;\n"
                "                  a model's profile (qwen3-coder, harmony, …) is that model's\n"
                "                  reference server: chat completions as hermes, /generate as\n"
                "                  vllm-native, the model text read by that model's decoder\n"
                "                  (docs/harness.md);\n"
                "                  script answers every request with the scripted reference\n"
                "                  model (docs/script.md) and needs no FIXTURES\n"
                "  --match MODE    normalised (default: ignores stream, model, temperature, …,\n"
                "                  and what SDKs add without changing the request: $schema,\n"
                "                  additionalProperties false, strict false, tool_choice auto,\n"
                "                  parallel_tool_calls true), exact, path; the path is\n"
                "                  compared without its query; of\n"
                "                  equal matches the first 2xx exchange without faults answers\n"
                "  --timing        replay the recorded delays between stream events\n"
                "  --fault JSON    faults for every exchange that has none, e.g.\n"
                "                  '{\"status\": 503, \"retry_after\": 2}', "
                "'{\"drop_after_events\": 3}',\n"
                "                  '{\"truncate_sse_after_bytes\": 100}', "
                "'{\"malformed_chunk_at\": 1}',\n"
                "                  '{\"delay_ms\": 500}' (only these keys, integers; status "
                "100-599)\n"
                "  --for SECONDS   stop after this long\n"
                "  --tag T         serve only fixtures tagged T (repeatable: every one given)\n"
                "  --exclude-tag T serve no fixture tagged T (repeatable)\n"
                "  --filter PATTERN  serve only fixtures whose name or file matches the glob\n"
                "                  (fnmatch, e.g. 'openai/*stream*'; repeatable: any of them)\n"
                "  --quiet         no per-request log on standard error\n"
                "  --log-bodies    each log line also holds the request body (credential fields\n"
                "                  redacted), cut after --log-body-max bytes\n"
                "  --log-body-max BYTES  (default 4096, 1 to 2^30)\n"
                "\n"
                "Hostile clients:\n"
                "  --threads N               event-loop threads (default 4, at most 256)\n"
                "  --max-connections N       open connections in all (default 4096, at most "
                "1000000)\n"
                "  --max-per-ip N            open connections from one address (default 128,\n"
                "                            at most 1000000)\n"
                "  --request-deadline MS     a request must arrive whole, headers and body,\n"
                "                            within MS of the connection opening or the previous\n"
                "                            answer ending, else the connection is closed\n"
                "                            (default 30000, 100 to 3600000)\n"
                "  --inflight-budget BYTES   request body bytes held across all connections;\n"
                "                            past it a request gets 503 with Retry-After: 1\n"
                "                            (default 67108864 = 64 MiB, 1024 to 2^40)\n"
                "\n"
                "Each request is logged with the fixture exchange it matched and the client\n"
                "checks (CLI-01..CLI-07) it failed; a request that matches nothing gets 404\n"
                "naming the nearest exchange of its method and path and the first differences.\n"
                "Control bytes and bytes that are not UTF-8 are written as \\xHH.\n"
                "\n"
                "usage: toolwire serve --proxy FROM:TO --upstream URL [--port N] [--key-env NAME]\n"
                "                      [--upstream-timeout S] [--upstream-retries N] [--workers "
                "N]\n"
                "                      [--for SECONDS] [--quiet] [hostile-client options]\n"
                "\n"
                "The reference proxy (docs/proxies.md): answer FROM's requests (anthropic:\n"
                "POST /v1/messages, openai: POST /v1/chat/completions) by translating them with\n"
                "toolwire's request and response decoders and encoders to TO's format\n"
                "(anthropic:openai or openai:anthropic) and forwarding them to the upstream base\n"
                "URL (a query it carries stays after the path; credentials in it, user:pass@\n"
                "or key=…, are sent and never written); streaming requests are answered as a\n"
                "stream. --key-env NAME sends $NAME as the upstream's API key; what the proxy\n"
                "relays to its clients (error messages, bodies, streamed text) is scrubbed of\n"
                "that key.\n"
                "\n"
                "  --upstream-timeout S  one upstream attempt, connection to last byte, in "
                "seconds\n"
                "                        (default 60, 1 to 3600)\n"
                "  --upstream-retries N  retries of an attempt refused, timed out or answered\n"
                "                        429, 500, 502, 503 or 504 (default 1, 0 to 7)\n"
                "  --workers N           requests waiting on the upstream at once (default 16,\n"
                "                        1 to 1024); further requests wait their turn with their\n"
                "                        connection suspended\n"
                "\n"
                "The proxy's server is serve's: the hostile-client options above apply to it\n"
                "with the same defaults. The upstream transfer stops once its client has closed\n"
                "the connection (checked at least about once a second), and --for stops the\n"
                "proxy within about a second whatever is in flight. The fixture options\n"
                "(--profile, --match, --timing, --fault, --tag, --exclude-tag, --log-bodies,\n"
                "--log-body-max) are refused with --proxy.\n"
                "\n"
                "Exit status: 0 after serving until interrupted or --for; 2 when nothing could be\n"
                "served: bad usage, a port in use (\"127.0.0.1:8080: Address already in use\"),\n"
                "a fixture that cannot be loaded, a --profile that fits none of the fixtures\n"
                "given (named), a selection that keeps none. serve judges nothing: never 1.",
                18);
            return TW_EXIT_OK;
        default:
            cJSON_Delete(fault);
            return tw_cli_option_error("serve", longopts, argv[optind - 1]);
        }
    }
    if (proxy || upstream) {
        cJSON_Delete(fault);
        return serve_proxy(proxy, upstream, key_env, &mo, &px, seconds, quiet, optind < argc,
                           fixture_opt);
    }
    if (proxy_only) {
        cJSON_Delete(fault);
        return tw_cli_usage_error("serve", "%s is an option of --proxy (see --help)", proxy_only);
    }
    if (!tw_mock_profile_known(mo.profile)) {
        cJSON_Delete(fault);
        tw_error why = {.offset = -1};
        tw_mock_profile_error(&why, "profile", mo.profile);
        return tw_cli_usage_error("serve", "%s", why.message);
    }
    bool script = strcmp(mo.profile, "script") == 0;
    if (optind >= argc && !script) {
        cJSON_Delete(fault);
        return tw_cli_usage_error("serve", "give fixtures to serve (see --help)");
    }
    mo.faults = fault;
    mo.log = quiet ? NULL : stderr;
    tw_fixture_set fs;
    tw_error why = {.offset = -1};
    memset(&fs, 0, sizeof fs);
    if (optind < argc &&
        !tw_fixture_set_load(&fs, argv + optind, (size_t)(argc - optind), NULL, &why)) {
        cJSON_Delete(fault);
        tw_fixture_set_free(&fs);
        return tw_cli_usage_error("serve", "%s", why.message);
    }
    if (!script && !tw_fixture_set_select_cmd(&fs, &so.sel, "serve")) {
        cJSON_Delete(fault);
        tw_fixture_set_free(&fs);
        return TW_EXIT_USAGE;
    }
    for (size_t i = 0; i < fs.nbad; i++) {
        tw_buf line = {0};
        tw_buf_puts(&line, "toolwire serve: cannot load fixture ");
        tw_log_escape(&line, fs.bad_files[i], strlen(fs.bad_files[i]));
        tw_buf_puts(&line, ": ");
        tw_log_escape(&line, fs.bad_why[i], strlen(fs.bad_why[i]));
        if (line.data)
            fprintf(stderr, "%s\n", line.data);
        tw_buf_free(&line);
    }
    if (!script && fs.nbad) {
        /* a server missing some of the fixtures it was given would answer
         * their exchanges 404: refused, like any input that cannot be read */
        fprintf(stderr,
                "toolwire serve: no fixture to serve: %zu of the %zu file(s) given could not be "
                "loaded (above); fix them or leave them out\n",
                fs.nbad, fs.nbad + fs.n);
        cJSON_Delete(fault);
        tw_fixture_set_free(&fs);
        return TW_EXIT_USAGE;
    }
    size_t fits = 0;
    tw_buf unfit = {0}; /* the first few that do not fit, by file */
    for (size_t i = 0; i < fs.n; i++) {
        if (tw_mock_profile_fits(mo.profile, &fs.fx[i]))
            fits++;
        else if (i - fits < 5)
            tw_buf_printf(&unfit, "%s%s", i == fits ? "" : ", ", fs.fx[i].path);
    }
    char more[48] = "";
    if (fs.n - fits > 5)
        snprintf(more, sizeof more, ", … (%zu more)", fs.n - fits - 5);
    if (!script && !fits) {
        fprintf(stderr, "toolwire serve: none of the %zu fixture(s) given fits profile %s: %s%s\n",
                fs.n, mo.profile, unfit.data ? unfit.data : "", more);
        tw_buf_free(&unfit);
        cJSON_Delete(fault);
        tw_fixture_set_free(&fs);
        return TW_EXIT_USAGE;
    }
    wait_stop(0, true); /* before the server threads start: they inherit the mask */
    raise_nofile(mo.max_connections ? mo.max_connections : TW_MOCK_DEFAULT_MAX_CONNECTIONS);
    tw_mock *m = NULL;
    if (tw_mock_start(fs.fx, fs.n, &mo, &m, &why) != TW_OK) {
        fprintf(stderr, "toolwire serve: %s\n", why.message);
        tw_buf_free(&unfit);
        cJSON_Delete(fault);
        tw_fixture_set_free(&fs);
        return TW_EXIT_USAGE;
    }
    bool partial = false;
    size_t shared = tw_mock_shared_bodies(fs.fx, fs.n, &mo, &partial);
    if (shared)
        fprintf(stderr,
                "toolwire serve: %s%zu request %s shared by several exchanges; such a "
                "request is answered by the first clean exchange (2xx, no faults, no check "
                "expected to fail; else the first success, else the first in file order); "
                "name one with " TW_MOCK_EXCHANGE_HEADER ": FIXTURE#N\n",
                partial ? "at least " : "", shared, shared == 1 ? "body is" : "bodies are");
    if (script && fs.n + fs.nbad)
        fprintf(stderr,
                "toolwire serve: the script profile answers every request itself; the "
                "%zu fixture(s) given are not served\n",
                fs.n + fs.nbad);
    if (!script && fits < fs.n)
        fprintf(stderr,
                "toolwire serve: %zu of the %zu fixture(s) given do not fit profile %s and are "
                "not served (the auto profile serves each with a profile that fits it): %s%s\n",
                fs.n - fits, fs.n, mo.profile, unfit.data ? unfit.data : "", more);
    tw_buf_free(&unfit);
    if (script)
        printf("serving the scripted model with profile script on %s\n", tw_mock_url(m));
    else
        printf("serving %zu fixture(s) with profile %s on %s\n", fits, mo.profile, tw_mock_url(m));
    fflush(stdout);
    wait_stop(seconds, false);
    unsigned long n = tw_mock_seq(m);
    tw_mock_stop(m);
    if (!quiet)
        fprintf(stderr, "toolwire serve: %lu request(s) served\n", n);
    cJSON_Delete(fault);
    tw_fixture_set_free(&fs);
    return TW_EXIT_OK;
}
