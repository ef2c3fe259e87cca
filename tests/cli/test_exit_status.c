/*
 * One exit-status rule for every command (README "Exit statuses"): 0 judged
 * and nothing wrong, 1 judged with mismatches or regressions, 2 could not
 * judge. Each command, each status it can give, with its message, through
 * the real binary: a port in use (bound here first), a URL where nothing
 * listens ("nobody answered" once), a `toolwire serve` that answers some
 * exchanges and then stops, fixtures that cannot be loaded or fit nothing.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "twtest.h"

typedef struct res {
    int rc;
    char *out;
    char *err;
} res;

static char *dir;

static void setup(void)
{
    dir = tw_test_tmpdir("tw-exit");
}
static void teardown(void)
{
    tw_test_rm_tree(dir);
    free(dir);
}

static void res_free(res *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* `toolwire ARGS` (ARGS printf-style, run by sh in the scratch directory, stdin empty). */
__attribute__((format(printf, 2, 3))) static void tw(res *r, const char *fmt, ...)
{
    const char *bin = getenv("TOOLWIRE_BIN");
    cr_assert_not_null(bin, "TOOLWIRE_BIN is not set");
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    res_free(r); /* the previous command's */
    r->rc = tw_test_sh("cd '%s' && '%s' %s </dev/null >'%s/o' 2>'%s/e'", dir, bin, args, dir, dir);
    char p[600];
    size_t n;
    snprintf(p, sizeof p, "%s/o", dir);
    r->out = tw_test_slurp(p, &n);
    snprintf(p, sizeof p, "%s/e", dir);
    r->err = tw_test_slurp(p, &n);
}

/* Write text to NAME in the scratch directory. */
static void put(const char *name, const char *text)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    tw_test_spit(p, text);
}

/* How many times needle is in s. */
static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* r exited with want and said needle (on either stream; NULL: nothing asked). */
static void expect(const res *r, int want, const char *needle, int line)
{
    cr_expect_eq(r->rc, want, "line %d: exit %d, expected %d\nout: %.2000s\nerr: %.2000s", line,
                 r->rc, want, r->out, r->err);
    if (needle)
        cr_expect(strstr(r->err, needle) || strstr(r->out, needle),
                  "line %d: '%s' is not said\nout: %.2000s\nerr: %.2000s", line, needle, r->out,
                  r->err);
}
#define EXPECT(r, want, needle) expect(&(r), (want), (needle), __LINE__)

/* A socket listening on a free loopback port (close it after). */
static int bind_port(unsigned short *port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(s >= 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    cr_assert_eq(listen(s, 1), 0);
    socklen_t len = sizeof sa;
    cr_assert_eq(getsockname(s, (struct sockaddr *)&sa, &len), 0);
    *port = ntohs(sa.sin_port);
    return s;
}

/* A loopback port nothing listens on (bound, then closed). */
static unsigned short dead_port(void)
{
    unsigned short p;
    close(bind_port(&p));
    return p;
}

/* fixtures/openai/NAME.json of the source tree, copied into the scratch
 * directory's sub (made if need be); with from/to, the first from replaced. */
static void copy_fixture(const char *name, const char *sub, const char *from, const char *to)
{
    size_t n;
    char src[300], dst[600];
    snprintf(src, sizeof src, "fixtures/openai/%s.json", name);
    char *s = tw_test_slurp(tw_test_src(src), &n);
    if (from) {
        char *at = strstr(s, from);
        cr_assert_not_null(at, "%s: no '%s'", src, from);
        char *t = malloc(n + strlen(to) + 1);
        cr_assert_not_null(t);
        sprintf(t, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
        free(s);
        s = t;
    }
    tw_test_sh("mkdir -p '%s/%s'", dir, sub);
    snprintf(dst, sizeof dst, "%s/%s/%s.json", dir, sub, name);
    tw_test_spit(dst, s);
    free(s);
}

/* A passing fixture in good/, the same with a wrong expected finish reason in bad/. */
static void good_and_bad(void)
{
    copy_fixture("nonstream_single_call", "good", NULL, NULL);
    copy_fixture("nonstream_single_call", "bad",
                 "\"finish_reason\": \"tool_calls\",\n          \"errors\"",
                 "\"finish_reason\": \"stop\",\n          \"errors\"");
}

/* `toolwire serve ARGS` in the background: its pid, and its port in *port. */
static pid_t serve(unsigned short *port, const char *args)
{
    char log[600];
    snprintf(log, sizeof log, "%s/serve.out", dir);
    unlink(log);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && exec '%s' serve --quiet --port 0 %s >'%s' 2>'%s/serve.err'", dir,
                 getenv("TOOLWIRE_BIN"), args, log, dir);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 200; i++) {
        FILE *f = fopen(log, "r");
        char line[400] = "";
        if (f) {
            if (!fgets(line, sizeof line, f))
                line[0] = 0;
            fclose(f);
        }
        const char *u = strstr(line, "http://127.0.0.1:");
        if (u) {
            *port = (unsigned short)atoi(u + 17);
            return pid;
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGTERM);
    cr_assert_fail("toolwire serve did not start");
    return -1;
}

static void stop(pid_t pid)
{
    kill(pid, SIGTERM);
    int st;
    waitpid(pid, &st, 0);
}

TestSuite(exit_status, .init = setup, .fini = teardown, .timeout = 120);

Test(exit_status, main)
{
    good_and_bad();
    tw_test_sh("mkdir -p '%s/dec' '%s/empty' && cp '%s' '%s/dec/'", dir, dir,
               tw_test_src("tests/data/decode/hermes/allow_unknown_tool.json"), dir);
    res r = {0};
    tw(&r, "main --quiet --conformance good --fixtures dec --out rep");
    EXPECT(r, 0, NULL);
    cr_expect_str_eq(r.out, "", "a clean quiet main prints nothing");
    tw(&r, "main --quiet --conformance bad --fixtures dec --out rep");
    EXPECT(r, 1, "mismatch openai/nonstream_single_call");
    tw(&r, "main --quiet --conformance nowhere --fixtures dec --out rep");
    EXPECT(r, 2, "cannot read --conformance 'nowhere'");
    tw(&r, "main --quiet --conformance empty --fixtures dec --out rep");
    EXPECT(r, 2, "'empty' holds no fixture");
    tw(&r, "main --quiet --conformance good --fixtures empty --out rep");
    EXPECT(r, 2, "'empty' holds no decode fixture");
    /* a fixture that cannot be loaded beside good ones: not judged */
    put("good/broken.json", "{\"fixture_version\": 1,");
    tw(&r, "main --quiet --conformance good --fixtures dec --out rep");
    EXPECT(r, 2, "cannot load fixture good/broken.json");
    res_free(&r);
}

Test(exit_status, parse)
{
    res r = {0};
    put("in.txt", "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>");
    tw(&r, "parse --format hermes in.txt");
    EXPECT(r, 0, "\"name\":\"f\"");
    tw(&r, "parse --format hermse in.txt");
    EXPECT(r, 2, "unknown format 'hermse' (one of: ");
    cr_expect(strstr(r.err, "did you mean 'hermes'?"), "%s", r.err);
    tw(&r, "parse --format hermes missing.txt");
    EXPECT(r, 2, "missing.txt");
    res_free(&r);
}

Test(exit_status, encode)
{
    res r = {0};
    put("res.json", "{\"content\": \"hi\", \"finish_reason\": \"stop\"}");
    tw(&r, "encode --format openai-response res.json");
    EXPECT(r, 0, "\"content\":\"hi\"");
    put("res.json", "{\"contnt\": \"hi\"}");
    tw(&r, "encode --format openai-response res.json");
    EXPECT(r, 1, "unknown key 'contnt'");
    put("res.json", "{\"content\": ");
    tw(&r, "encode --format openai-response res.json");
    EXPECT(r, 2, "res.json:1:");
    tw(&r, "encode --format opneai res.json");
    EXPECT(r, 2, "did you mean 'openai-response'?");
    /* output that cannot be written: could not finish */
    put("res.json", "{\"content\": \"hi\"}");
    cr_expect_eq(
        tw_test_sh(
            "cd '%s' && '%s' encode --format openai-response res.json >/dev/full 2>/dev/null", dir,
            getenv("TOOLWIRE_BIN")),
        2);
    res_free(&r);
}

Test(exit_status, convert)
{
    res r = {0};
    put("s.sse", "data: "
                 "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":"
                 "\"stop\"}]}\n\n"
                 "data: [DONE]\n\n");
    tw(&r, "convert --from openai-stream --to neutral s.sse");
    EXPECT(r, 0, "\"content\":\"hi\"");
    /* a truncated stream: judged, its errors said, exit 1 */
    put("s.sse", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n");
    tw(&r, "convert --from openai-stream --to anthropic-response s.sse");
    EXPECT(r, 1, "decoder reported");
    tw(&r, "convert --from antrhopic-stream --to neutral s.sse");
    EXPECT(r, 2, "did you mean 'anthropic-stream'?");
    res_free(&r);
}

Test(exit_status, run)
{
    good_and_bad();
    res r = {0};
    tw(&r, "run --quiet --backend m=mock:replay --out rep good");
    EXPECT(r, 0, NULL);
    tw(&r, "run --quiet --backend m=mock:replay --out rep bad");
    EXPECT(r, 1, "mismatch openai/nonstream_single_call");
    /* the server is down: said once, no mismatch lines, exit 2 */
    unsigned short dead = dead_port();
    tw(&r, "run --retries 0 --backend staging=http://127.0.0.1:%u --out rep good", dead);
    EXPECT(r, 2, "nobody answered at http://127.0.0.1:");
    cr_expect_eq(count(r.err, "nobody answered"), 1, "%s", r.err);
    cr_expect_eq(count(r.out, "  mismatch "), 0, "no mismatch line: %s", r.out);
    /* a profile that fits none of the fixtures: named */
    tw(&r, "run --quiet --backend g=mock:gemini --out rep good");
    EXPECT(r, 2, "none of the fixtures given fits profile gemini");
    cr_expect(strstr(r.err, "good/nonstream_single_call.json"), "the fixture is named: %s", r.err);
    /* the upstream's port is in use */
    unsigned short port;
    int s = bind_port(&port);
    tw(&r, "run --quiet --backend p=http://127.0.0.1:%u --upstream openai@%u --out rep good", dead,
       port);
    char want[80];
    snprintf(want, sizeof want, "127.0.0.1:%u: Address already in use", port);
    EXPECT(r, 2, want);
    close(s);
    tw(&r, "run --quiet --backend p=mock:replay --upstream opnai@%u --out rep good", port);
    EXPECT(r, 2, "did you mean 'openai'?");
    /* a directory without fixtures, a fixture that does not load */
    tw_test_sh("mkdir -p '%s/empty'", dir);
    tw(&r, "run --quiet --backend m=mock:replay --out rep empty");
    EXPECT(r, 2, "'empty' holds no fixture");
    put("good/broken.json", "{\"fixture_version\": 1,");
    tw(&r, "run --quiet --backend m=mock:replay --out rep good");
    EXPECT(r, 2, "cannot load fixture good/broken.json");
    tw(&r, "run --backend m=mock:nope --out rep good");
    EXPECT(r, 2, "unknown mock profile 'nope'");
    res_free(&r);
}

/* A server that answers its first request and then drops every connection
 * without a response (a small libmicrohttpd server of the test's own). */
typedef struct dying_server {
    struct MHD_Daemon *d;
    unsigned short port;
    int answered;
} dying_server;

static enum MHD_Result dying_answer(void *cls, struct MHD_Connection *c, const char *url,
                                    const char *method, const char *version, const char *upload,
                                    size_t *upload_size, void **state)
{
    (void)url, (void)method, (void)version, (void)upload;
    dying_server *s = cls;
    if (*state == NULL) { /* the headers: come back with the body */
        *state = s;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return MHD_YES;
    }
    if (__atomic_fetch_add(&s->answered, 1, __ATOMIC_SEQ_CST) > 0)
        return MHD_NO; /* the connection is closed with no response */
    static const char body[] =
        "{\"id\":\"c1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
        "\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}";
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ok = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ok;
}

/* A server that answered some exchanges and then stopped answering: judged, exit 1. */
Test(exit_status, run_server_dies_part_way)
{
    good_and_bad();
    copy_fixture("nonstream_parallel_calls", "good", NULL, NULL);
    copy_fixture("nonstream_arguments_object", "good", NULL, NULL);
    dying_server s = {0};
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, dying_answer, &s,
                           MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_END);
    cr_assert_not_null(s.d, "the test server starts");
    s.port = MHD_get_daemon_info(s.d, MHD_DAEMON_INFO_BIND_PORT)->port;
    res r = {0};
    tw(&r, "run --retries 0 --backend staging=http://127.0.0.1:%u --out rep good", s.port);
    MHD_stop_daemon(s.d);
    EXPECT(r, 1, "without a response");
    cr_expect_null(strstr(r.err, "nobody answered"), "%s", r.err);
    cr_expect(strstr(r.out, "(0 error statuses, 2 without a response)"), "%s", r.out);
    res_free(&r);
}

Test(exit_status, serve)
{
    good_and_bad();
    res r = {0};
    tw(&r, "serve --for 1 --quiet good");
    EXPECT(r, 0, "serving 1 fixture(s) with profile auto on http://127.0.0.1:");
    unsigned short port;
    int s = bind_port(&port);
    tw(&r, "serve --for 1 --port %u good", port);
    char want[80];
    snprintf(want, sizeof want, "toolwire serve: 127.0.0.1:%u: Address already in use", port);
    EXPECT(r, 2, want);
    tw(&r, "serve --proxy anthropic:openai --upstream http://127.0.0.1:9 --for 1 --port %u", port);
    EXPECT(r, 2, want + strlen("toolwire serve: "));
    close(s);
    tw(&r, "serve --for 1 --profile gemini good");
    EXPECT(r, 2,
           "none of the 1 fixture(s) given fits profile gemini: good/nonstream_single_call.json");
    tw(&r, "serve --proxy anthropic:openai --upstream http://127.0.0.1:9 --profile hermes --for 1");
    EXPECT(r, 2, "--profile is an option of the fixtures served, not of --proxy");
    tw(&r, "serve --proxy anthropic:openai --upstream http://127.0.0.1:9 --tag x --for 1");
    EXPECT(r, 2, "--tag is an option of the fixtures served");
    tw(&r, "serve --proxy antropic:openai --upstream http://127.0.0.1:9 --for 1");
    EXPECT(r, 2, "did you mean 'anthropic'?");
    put("good/broken.json", "{\"fixture_version\": 1,");
    tw(&r, "serve --for 1 good");
    EXPECT(r, 2, "cannot load fixture good/broken.json");
    cr_expect_str_eq(r.out, "", "nothing is served");
    res_free(&r);
}

Test(exit_status, record)
{
    good_and_bad();
    copy_fixture("nonstream_parallel_calls", "other", NULL, NULL);
    unsigned short port;
    pid_t pid = serve(&port, "--for 60 good");
    res r = {0};
    /* NAME=URL as run takes it */
    tw(&r, "record --backend staging=http://127.0.0.1:%u --out rec good", port);
    EXPECT(r, 0, "recorded 1 fixture(s)");
    tw(&r, "record --backend http://127.0.0.1:%u --out rec good", port);
    EXPECT(r, 0, "recorded 1 fixture(s)");
    /* an exchange the server answers 404: judged, not written */
    tw(&r, "record --backend staging=http://127.0.0.1:%u --out rec good other", port);
    EXPECT(r, 1, "HTTP 404");
    stop(pid);
    tw(&r, "record --backend staging=http://127.0.0.1:%u --out rec good other", dead_port());
    EXPECT(r, 2, "staging: nobody answered at http://127.0.0.1:");
    cr_expect_eq(count(r.err, "nobody answered"), 1, "%s", r.err);
    cr_expect_eq(count(r.err, "no response"), 0, "said once: %s", r.err);
    tw(&r, "record --backend staging=mock:replay --out rec good");
    EXPECT(r, 2, "--backend wants the server's base URL");
    res_free(&r);
}

Test(exit_status, import)
{
    res r = {0};
    put("x.har", "{}");
    tw(&r, "import --from har --out fx x.har");
    EXPECT(r, 1, "expected a HAR document");
    tw(&r, "import --from har --out fx missing.har");
    EXPECT(r, 2, "cannot open 'missing.har'");
    tw(&r, "import --from cassette x.har");
    EXPECT(r, 2, NULL);
    res_free(&r);
}

Test(exit_status, compare_and_gate)
{
    good_and_bad();
    res r = {0};
    unsigned short dead = dead_port();
    tw(&r, "run --quiet --backend staging=mock:replay --out base good");
    EXPECT(r, 0, NULL);
    tw(&r, "run --quiet --retries 0 --backend staging=http://127.0.0.1:%u --out down good", dead);
    EXPECT(r, 2, "nobody answered");
    tw(&r, "compare base/staging.json down/staging.json");
    EXPECT(r, 0, NULL);
    tw(&r, "compare base/staging.json missing.json");
    EXPECT(r, 2, "missing.json");
    tw(&r, "compare --html /nonexistent/dir/c.html base/staging.json");
    EXPECT(r, 2, "/nonexistent/dir/c.html");
    tw(&r, "gate --baseline base/staging.json base/staging.json");
    EXPECT(r, 0, NULL);
    tw(&r, "gate --baseline base/staging.json down/staging.json");
    EXPECT(r, 1, "openai/nonstream_single_call");
    tw(&r, "gate --baseline missing.json base/staging.json");
    EXPECT(r, 2, "missing.json");
    res_free(&r);
}

Test(exit_status, clients)
{
    put("describe-fails.sh", "echo '{\"protocol\":7}'\n");
    res r = {0};
    tw(&r, "clients --client broken='sh describe-fails.sh' --out rep %s",
       tw_test_src("fixtures/clients"));
    EXPECT(r, 2, "client broken");
    tw(&r, "clients --drivers nowhere --out rep");
    EXPECT(r, 2, "cannot read --drivers 'nowhere'");
    res_free(&r);
}

Test(exit_status, parsers)
{
    put("describe-fails.sh", "echo '{\"protocol\":7}'\n");
    res r = {0};
    tw(&r, "parsers --parser broken='sh describe-fails.sh' --out rep --fixtures %s",
       tw_test_src("tests/data/decode/hermes"));
    EXPECT(r, 2, "parser broken: --describe: protocol must be 1");
    tw(&r, "parsers --out rep");
    EXPECT(r, 2, "give at least one --parser NAME=CMD");
    res_free(&r);
}

Test(exit_status, usage)
{
    static const char *const cmds[] = {"main",    "parse", "encode",  "convert",
                                       "run",     "serve", "record",  "import",
                                       "compare", "gate",  "clients", "parsers"};
    res r = {0};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        tw(&r, "%s --no-such-option", cmds[i]);
        EXPECT(r, 2, "unknown option");
        /* each --help ends with the exit statuses */
        tw(&r, "%s --help", cmds[i]);
        EXPECT(r, 0, "Exit status");
    }
    tw(&r, "no-such-command");
    EXPECT(r, 2, "unknown command 'no-such-command'");
    res_free(&r);
}

/* The README's CI-gate block, as it stands, against a server that is down: run says
 * "nobody answered at URL" once and the block stops with 2 (not a gate pass). */
Test(exit_status, ci_gate_block_with_the_server_down)
{
    char bindir[600];
    snprintf(bindir, sizeof bindir, "%s", getenv("TOOLWIRE_BIN"));
    char *slash = strrchr(bindir, '/');
    cr_assert_not_null(slash);
    *slash = 0;
    unsigned short dead = dead_port();
    int rc = tw_test_sh(
        "awk '/^<!-- ci-gate/ {m=1; next} m && /^```sh$/ {b=1; next} b && /^```$/ {exit} b "
        "{print}' '%s' >'%s/block.sh' && cd '%s' && PATH='%s':\"$PATH\" TOOLWIRE_DATA='%s' "
        "PROVIDER_KEY=k STAGING_URL=http://127.0.0.1:%u/v1 bash -e block.sh >o 2>e",
        tw_test_src("README.md"), dir, dir, bindir, tw_test_src("."), dead);
    size_t n;
    char p[600];
    snprintf(p, sizeof p, "%s/e", dir);
    char *err = tw_test_slurp(p, &n);
    cr_expect_eq(rc, 2, "%s", err);
    char want[100];
    snprintf(want, sizeof want, "nobody answered at http://127.0.0.1:%u/v1 (", dead);
    cr_expect_eq(count(err, want), 1, "said once: %s", err);
    free(err);
}
