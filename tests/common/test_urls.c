/* Base URLs (harness/common/url.h) and report names: a request path is joined
 * before a base's query, which reaches the server; a base's credentials
 * (userinfo, key=…) reach the server but no file or stream toolwire writes;
 * two backends or clients whose reports would share a file, or one whose
 * report would be the comparison page, are refused. The commands run
 * against a libmicrohttpd server that notes each request as it arrived. */
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "files.h"
#include "redact.h"
#include "report.h"
#include "url.h"
#include "twtest.h"

/* ---------------------------------------------------------------- helpers */

static bool file_has(const char *path, const char *needle)
{
    size_t n = 0;
    char *b = tw_test_slurp(path, &n);
    bool r = tw_memmem(b, n, needle, strlen(needle)) != NULL;
    free(b);
    return r;
}

static const char *bin(void)
{
    const char *b = getenv("TOOLWIRE_BIN");
    cr_assert(b, "TOOLWIRE_BIN is set by ctest");
    return b;
}

static const char *src(void)
{
    const char *s = getenv("TOOLWIRE_SOURCE_DIR");
    cr_assert(s, "TOOLWIRE_SOURCE_DIR is set by ctest");
    return s;
}

/* The credentials the URLs carry, and what a Basic header makes of them. */
#define PASS "pa55w0rdXYZ"
#define KEY "SECRETVALUE123"
#define BASIC "dXNlcjpwYTU1dzByZFhZWg==" /* base64 of "user:" PASS */
#define QUERY "key=" KEY "&api-version=2024-10-21"

/* Every file under dir (recursively): no 8-byte window of a secret. */
static size_t files_checked;
static void no_window_in_tree(const char *dir)
{
    static const char *const secrets[] = {PASS, KEY, BASIC, NULL};
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        cr_assert_eq(stat(p, &sb), 0);
        if (S_ISDIR(sb.st_mode)) {
            no_window_in_tree(p);
            continue;
        }
        size_t n = 0;
        char *b = tw_test_slurp(p, &n);
        files_checked++;
        for (const char *const *s = secrets; *s; s++)
            for (size_t i = 0; i + 8 <= strlen(*s); i++)
                cr_expect_null(tw_memmem(b, n, *s + i, 8), "%s holds '%.8s' of the secret %s", p,
                               *s + i, *s);
        free(b);
    }
    closedir(d);
}

/* ---------------------------------------------------------------- the server */

/* Each request as it arrived: its request target (path and query as sent)
 * and its Authorization header. */
#define MAX_SEEN 16
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;
static char seen_uri[MAX_SEEN][512];
static char seen_auth[MAX_SEEN][256];
static size_t nseen;

typedef struct conn {
    char uri[512];
    tw_buf body;
} conn;

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls, (void)c;
    conn *k = calloc(1, sizeof *k);
    if (k)
        snprintf(k->uri, sizeof k->uri, "%s", uri);
    return k;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    (void)cls, (void)url, (void)method, (void)version;
    conn *k = *con_cls;
    if (!k)
        return MHD_NO;
    if (*upload_size) {
        tw_buf_append(&k->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    pthread_mutex_lock(&seen_mu);
    if (nseen < MAX_SEEN) {
        snprintf(seen_uri[nseen], sizeof seen_uri[nseen], "%s", k->uri);
        snprintf(seen_auth[nseen], sizeof seen_auth[nseen], "%s", auth ? auth : "");
        nseen++;
    }
    pthread_mutex_unlock(&seen_mu);
    /* the answer echoes the credentials, as a careless server might: the
     * secret set learnt from the URL scrubs them wherever they are written */
    bool basic = auth && strcmp(auth, "Basic " BASIC) == 0;
    tw_buf content = {0};
    tw_buf_printf(&content, "you sent %s with %s, password %s", k->uri, auth ? auth : "nothing",
                  basic ? PASS : "none");
    tw_buf out = {0};
    bool anthropic = strstr(k->uri, "/messages") != NULL;
    if (anthropic)
        tw_buf_printf(
            &out,
            "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
            "\"content\":[{\"type\":\"text\",\"text\":\"%s\"}],\"stop_reason\":\"end_turn\","
            "\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}",
            content.data);
    else
        tw_buf_printf(
            &out,
            "{\"id\":\"c1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
            "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"%s\"},"
            "\"finish_reason\":\"stop\"}]}",
            content.data);
    tw_buf_free(&content);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(out.len, out.data, MHD_RESPMEM_MUST_COPY);
    tw_buf_free(&out);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result rr = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return rr;
}

static void done(void *cls, struct MHD_Connection *c, void **con_cls,
                 enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)c, (void)toe;
    conn *k = *con_cls;
    if (k) {
        tw_buf_free(&k->body);
        free(k);
    }
    *con_cls = NULL;
}

static struct MHD_Daemon *server_start(unsigned *port)
{
    pthread_mutex_lock(&seen_mu);
    nseen = 0;
    pthread_mutex_unlock(&seen_mu);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d =
        MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, answer, NULL,
                         MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL,
                         MHD_OPTION_NOTIFY_COMPLETED, done, NULL, MHD_OPTION_END);
    cr_assert_not_null(d);
    *port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    return d;
}

/* How many requests the server has seen. */
static size_t seen_count(void)
{
    pthread_mutex_lock(&seen_mu);
    size_t n = nseen;
    pthread_mutex_unlock(&seen_mu);
    return n;
}

/* ---------------------------------------------------------------- joining */

Test(urls, join_puts_the_path_before_the_query)
{
    static const char *const cases[][3] = {
        /* base, path, URL sent */
        {"http://h/json?key=X", "/v1/chat/completions", "http://h/json/v1/chat/completions?key=X"},
        {"http://h/json/?" QUERY, "/v1/chat/completions",
         "http://h/json/v1/chat/completions?" QUERY},
        {"https://r.openai.azure.com/openai/deployments/d/v1?api-version=2024-10-21",
         "/v1/chat/completions",
         "https://r.openai.azure.com/openai/deployments/d/v1/chat/"
         "completions?api-version=2024-10-21"},
        {"http://h?key=X", "/v1/messages", "http://h/v1/messages?key=X"},
        {"http://h:8080/?key=X", "/v1/messages", "http://h:8080/v1/messages?key=X"},
        {"http://h/x?key=X", "/v1beta/models/m:streamGenerateContent?alt=sse",
         "http://h/x/v1beta/models/m:streamGenerateContent?alt=sse&key=X"},
        {"http://h/x", "/v1/y?alt=sse", "http://h/x/v1/y?alt=sse"},
        {"http://h/x#frag", "/v1/y", "http://h/x/v1/y"},
        {"http://h/x?k=1#frag", "/v1/y#f", "http://h/x/v1/y?k=1"},
        {"http://h/x?", "/y", "http://h/x/y"},
        {"http://u:p@h:8/x?key=X", "/y", "http://u:p@h:8/x/y?key=X"},
        {"http://h/a/v1?key=X", "/v1/chat/completions", "http://h/a/v1/chat/completions?key=X"},
        {"http://h/a?p=/v1", "/v1/chat/completions", "http://h/a/v1/chat/completions?p=/v1"},
        {"http://h", "", "http://h/"},
        {"http://h/", "generate", "http://h/generate"},
        {"https://openrouter.ai/api/v1", "/v1/chat/completions",
         "https://openrouter.ai/api/v1/chat/completions"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *u = tw_url_join(cases[i][0], cases[i][1]);
        cr_assert_not_null(u);
        cr_expect_str_eq(u, cases[i][2], "%s + %s", cases[i][0], cases[i][1]);
        free(u);
    }
}

Test(urls, a_base_with_a_fragment_or_without_a_host_is_refused)
{
    tw_error why = {.offset = -1};
    cr_expect(tw_url_base_ok("http://u:" PASS "@h:1/json?" QUERY, "--backend", &why), "%s",
              why.message);
    cr_expect_not(tw_url_base_ok("http://h/x#" KEY, "--backend", &why));
    cr_expect(strstr(why.message, "fragment"), "%s", why.message);
    cr_expect_null(strstr(why.message, KEY), "%s", why.message);
    cr_expect_not(tw_url_base_ok("http://u:" PASS "@/x?" QUERY, "--backend", &why));
    cr_expect(strstr(why.message, "no host"), "%s", why.message);
    cr_expect_null(strstr(why.message, PASS), "%s", why.message);
    cr_expect_null(strstr(why.message, KEY), "%s", why.message);
    cr_expect_not(tw_url_base_ok("http://h/a b", "--backend", &why));
    cr_expect_not(tw_url_base_ok("ftp://h/", "--backend", &why));
    /* the longest base is TW_URL_BASE_MAX bytes */
    char *u = malloc(TW_URL_BASE_MAX + 2);
    memcpy(u, "http://h/", 9);
    memset(u + 9, 'a', TW_URL_BASE_MAX - 9);
    u[TW_URL_BASE_MAX] = '\0';
    cr_expect(tw_url_base_ok(u, "--backend", &why), "%s", why.message);
    u[TW_URL_BASE_MAX] = 'a';
    u[TW_URL_BASE_MAX + 1] = '\0';
    cr_expect_not(tw_url_base_ok(u, "--backend", &why));
    cr_expect(strstr(why.message, "longer than 8192 bytes"), "%s", why.message);
    free(u);
}

Test(urls, record_refuses_a_timeout_that_is_not_a_number)
{
    /* read as 0 (the default) before: a typo silently meant no timeout */
    static const char *const bad[] = {"5s", "", "-1", "0", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *argv[] = {"record", "--backend", "http://127.0.0.1:9", "--timeout", (char *)bad[i],
                        "--out",  "/tmp",      "fixtures/openai",    NULL};
        optind = 0;
        cr_expect_eq(tw_cmd_record(8, argv), TW_EXIT_USAGE, "--timeout '%s'", bad[i]);
    }
}

/* ---------------------------------------------------------------- credentials */

Test(urls, the_written_form_hides_userinfo_and_credential_parameters)
{
    static const char *const cases[][2] = {
        {"http://user:" PASS "@127.0.0.1:9/json?" QUERY,
         "http://[REDACTED]@127.0.0.1:9/json?key=[REDACTED]&api-version=2024-10-21"},
        {"echo=http://tok3nvalue@h/", "echo=http://[REDACTED]@h/"},
        {"https://h/"
         "x?sig=abc&sv=2022&Code=zz&X-Amz-Signature=ff&subscription-key=k&api_key=q&token=t&"
         "access_token=a&apiVersion=1&clientSecret=c&k=v",
         "https://h/"
         "x?sig=[REDACTED]&sv=2022&Code=[REDACTED]&X-Amz-Signature=[REDACTED]&subscription-key="
         "[REDACTED]&api_key=[REDACTED]&token=[REDACTED]&access_token=[REDACTED]&apiVersion=1&"
         "clientSecret="
         "[REDACTED]&k=v"},
        {"http://h/p@x?a=1", "http://h/p@x?a=1"},
        {"http://h/x?key=&key", "http://h/x?key=&key"},
        {"http://h/x?%6Bey=v1;token=v2", "http://h/x?%6Bey=[REDACTED];token=[REDACTED]"},
        {"http://h/x#access_token=zzz", "http://h/x"},
        {"http://a@b:c@h/", "http://[REDACTED]@h/"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = tw_url_shown(cases[i][0]);
        cr_assert_not_null(s);
        cr_expect_str_eq(s, cases[i][1], "%s", cases[i][0]);
        free(s);
    }
    cr_expect(tw_url_param_secret("key", 3));
    cr_expect(tw_url_param_secret("signature", 9));
    cr_expect_not(tw_url_param_secret("api-version", 11));
    cr_expect_not(tw_url_param_secret("alt", 3));
}

Test(urls, credentials_are_learnt_as_written_decoded_and_as_basic)
{
    tw_secret_reset();
    cr_assert_eq(tw_url_learn_secrets("b=http://user:" PASS "@h/json?" QUERY), TW_OK);
    cr_assert_eq(tw_url_learn_secrets("http://us%40er:p%21ssword1@h/?api_key=abc%2Fdef9"), TW_OK);
    /* a token as the user: libcurl sends Basic base64("tok3nvalue:") */
    cr_assert_eq(tw_url_learn_secrets("https://tok3nvalue@h/"), TW_OK);
    const char *in =
        "a " PASS " b " KEY " c Basic " BASIC " d 2024-10-21 e p!ssword1 f p%21ssword1 "
        "g abc/def9 h us@er:p!ssword1 i tok3nvalue j Basic dG9rM252YWx1ZTo=";
    tw_buf out = {0};
    cr_assert_eq(tw_secret_scrub(in, strlen(in), &out, NULL), TW_OK);
    cr_expect_str_eq(out.data,
                     "a [REDACTED] b [REDACTED] c Basic [REDACTED] d 2024-10-21 e [REDACTED] "
                     "f [REDACTED] g [REDACTED] h [REDACTED] i [REDACTED] j Basic [REDACTED]");
    tw_buf_free(&out);
    tw_secret_reset();
}

/* ---------------------------------------------------------------- commands */

static void no_secret_anywhere(const char *dir)
{
    files_checked = 0;
    no_window_in_tree(dir);
    cr_expect_geq(files_checked, 3, "%zu files checked", files_checked);
}

Test(urls, run_sends_the_credentials_and_writes_none)
{
    char *dir = tw_test_tmpdir("tw_urls");
    unsigned port;
    struct MHD_Daemon *d = server_start(&port);
    cr_assert_eq(tw_test_sh("mkdir -p '%s/o' '%s/streams'", dir, dir), 0);
    int rc = tw_test_sh(
        "'%s' run --backend 'az=http://user:" PASS "@127.0.0.1:%u/json?" QUERY "' --retries 0 "
        "--out '%s/o/run' '%s/fixtures/openai/nonstream_text_only.json' > '%s/streams/run.out' "
        "2> '%s/streams/run.err'",
        bin(), port, dir, src(), dir, dir);
    cr_expect(rc == 0 || rc == 1, "run exited %d", rc);
    cr_assert_eq(seen_count(), 1);
    cr_expect_str_eq(seen_uri[0], "/json/v1/chat/completions?" QUERY,
                     "the path goes before the query");
    cr_expect_str_eq(seen_auth[0], "Basic " BASIC, "the userinfo reached the server");
    char p[600];
    /* the run wrote its reports, naming the URL without its credentials */
    static const char *const files[] = {"az.json", "az.md",         "az.junit.xml",
                                        "az.html", "comparison.md", "comparison.html"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/o/run/%s", dir, files[i]);
        cr_expect_eq(access(p, R_OK), 0, "%s", p);
    }
    snprintf(p, sizeof p, "%s/o/run/az.json", dir);
    cr_expect(file_has(p, "http://[REDACTED]@127.0.0.1:"),
              "the target is written without its userinfo");
    cr_expect(file_has(p, "/json?key=[REDACTED]&api-version=2024-10-21"), "api-version is kept");
    snprintf(p, sizeof p, "%s/streams/run.out", dir);
    cr_expect(file_has(p, "http://[REDACTED]@127.0.0.1:"), "the summary line names the URL");
    MHD_stop_daemon(d);
    no_secret_anywhere(dir);
    if (!getenv("TW_KEEP"))
        tw_test_sh("rm -rf '%s'", dir);
    free(dir);
}

Test(urls, record_sends_the_credentials_and_writes_none)
{
    char *dir = tw_test_tmpdir("tw_urls");
    unsigned port;
    struct MHD_Daemon *d = server_start(&port);
    cr_assert_eq(tw_test_sh("mkdir -p '%s/o' '%s/streams'", dir, dir), 0);
    int rc = tw_test_sh("'%s' record --backend 'http://user:" PASS "@127.0.0.1:%u/json?" QUERY
                        "' --out '%s/o/rec' "
                        "'%s/fixtures/openai/nonstream_text_only.json' > '%s/streams/rec.out' 2> "
                        "'%s/streams/rec.err'",
                        bin(), port, dir, src(), dir, dir);
    cr_expect_eq(rc, 0, "record exited %d", rc);
    cr_assert_eq(seen_count(), 1);
    cr_expect_str_eq(seen_uri[0], "/json/v1/chat/completions?" QUERY);
    cr_expect_str_eq(seen_auth[0], "Basic " BASIC);
    char p[600];
    snprintf(p, sizeof p, "%s/o/rec/nonstream_text_only.json", dir);
    cr_expect(file_has(p, "http://[REDACTED]@127.0.0.1:"), "the provenance names the URL");
    MHD_stop_daemon(d);
    no_secret_anywhere(dir);
    if (!getenv("TW_KEEP"))
        tw_test_sh("rm -rf '%s'", dir);
    free(dir);
}

static size_t keep(char *p, size_t a, size_t b, void *u)
{
    tw_buf_append(u, p, a * b);
    return a * b;
}

/* Start `serve --proxy openai:anthropic --upstream UP`, send it one request,
 * stop it: its stdout and stderr in dir/streams/serve-TAG.{out,err}, the
 * answer's body in *answer. */
static void proxy_once(const char *dir, const char *up, const char *tag, tw_buf *answer)
{
    char o[600], e[600];
    snprintf(o, sizeof o, "%s/streams/serve-%s.out", dir, tag);
    snprintf(e, sizeof e, "%s/streams/serve-%s.err", dir, tag);
    char url[300];
    char *args[] = {(char *)"--proxy",
                    (char *)"openai:anthropic",
                    (char *)"--upstream",
                    (char *)up,
                    (char *)"--for",
                    (char *)"60",
                    NULL};
    pid_t pid = tw_test_serve_start(o, e, url, sizeof url, args);
    CURL *c = curl_easy_init();
    char full[400];
    snprintf(full, sizeof full, "%s/v1/chat/completions", url);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, full);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS,
                     "{\"model\":\"m\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\","
                     "\"content\":\"hi\"}]}");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, answer);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    cr_expect_eq(curl_easy_perform(c), CURLE_OK);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    kill(pid, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "serve ended with %d", st);
    cr_expect(file_has(o, "(upstream http://[REDACTED]@127.0.0.1:"),
              "the upstream is named without its userinfo");
}

Test(urls, the_reference_proxy_joins_its_upstream_before_the_query)
{
    char *dir = tw_test_tmpdir("tw_urls");
    unsigned port;
    struct MHD_Daemon *d = server_start(&port);
    cr_assert_eq(tw_test_sh("mkdir -p '%s/streams'", dir), 0);
    char up[300];
    snprintf(up, sizeof up, "http://user:" PASS "@127.0.0.1:%u/json?" QUERY, port);
    tw_buf answer = {0};
    proxy_once(dir, up, "ok", &answer);
    cr_assert_eq(seen_count(), 1);
    cr_expect_str_eq(seen_uri[0], "/json/v1/messages?" QUERY);
    cr_expect_str_eq(seen_auth[0], "Basic " BASIC);
    MHD_stop_daemon(d);
    /* an upstream that does not answer: the 502 names it without its
     * credentials (the proxy's client may write the answer to a report) */
    snprintf(up, sizeof up, "http://user:" PASS "@127.0.0.1:%u/json?" QUERY, port);
    tw_buf_reset(&answer);
    proxy_once(dir, up, "down", &answer);
    cr_assert_not_null(answer.data);
    cr_expect(strstr(answer.data, "upstream http://[REDACTED]@127.0.0.1:"), "%s", answer.data);
    char p[600];
    snprintf(p, sizeof p, "%s/streams/answer-down", dir);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fwrite(answer.data, 1, answer.len, f);
    fclose(f);
    tw_buf_free(&answer);
    files_checked = 0;
    no_window_in_tree(dir);
    cr_expect_eq(files_checked, 5);
    if (!getenv("TW_KEEP"))
        tw_test_sh("rm -rf '%s'", dir);
    free(dir);
}

/* ---------------------------------------------------------------- report names */

/* A command that must be refused with exit 2 before writing anything: its
 * standard error names every needle. */
static void refused(const char *dir, const char *args, const char *const *needles)
{
    char e[600], out[600];
    snprintf(e, sizeof e, "%s/err", dir);
    snprintf(out, sizeof out, "%s/o", dir);
    tw_test_sh("rm -rf '%s'", out);
    int rc =
        tw_test_sh("cd '%s' && '%s' %s --out '%s' > /dev/null 2> '%s'", src(), bin(), args, out, e);
    cr_expect_eq(rc, 2, "%s exited %d", args, rc);
    for (const char *const *n = needles; *n; n++)
        cr_expect(file_has(e, *n), "%s: the message names %s", args, *n);
    cr_expect_neq(access(out, F_OK), 0, "%s: nothing was written", args);
}

Test(urls, run_refuses_backend_names_that_share_a_report_file)
{
    char *dir = tw_test_tmpdir("tw_urls");
    const char *fx = "fixtures/openai/nonstream_text_only.json";
    char args[600];
    snprintf(args, sizeof args, "run --backend a/b=mock:replay --backend a_b=mock:replay %s", fx);
    refused(dir, args, (const char *const[]){"'a/b'", "'a_b'", "/o/a_b.json", NULL});
    snprintf(args, sizeof args, "run --backend x=mock:replay --backend comparison=mock:replay %s",
             fx);
    refused(dir, args,
            (const char *const[]){"'comparison'", "/o/comparison.md", "comparison page", NULL});
    snprintf(args, sizeof args, "run --backend GPT=mock:replay --backend gpt=mock:replay %s", fx);
    refused(dir, args, (const char *const[]){"'GPT'", "'gpt'", "ignores case", NULL});
    /* names that stay apart are run side by side */
    char out[600];
    snprintf(out, sizeof out, "%s/ok", dir);
    int rc = tw_test_sh(
        "cd '%s' && '%s' run --quiet --backend a.b=mock:replay --backend a-b=mock:replay "
        "--backend comparisons=mock:replay --out '%s' %s",
        src(), bin(), out, fx);
    cr_expect_eq(rc, 0);
    static const char *const files[] = {"a.b.json", "a-b.json", "comparisons.json", "comparison.md",
                                        NULL};
    for (const char *const *f = files; *f; f++) {
        char p[700];
        snprintf(p, sizeof p, "%s/%s", out, *f);
        cr_expect_eq(access(p, R_OK), 0, "%s", p);
    }
    tw_test_sh("rm -rf '%s'", dir);
    free(dir);
}

Test(urls, clients_refuses_client_names_that_share_a_report_file)
{
    char *dir = tw_test_tmpdir("tw_urls");
    /* the drivers (true) are never run: the names are refused first */
    refused(dir, "clients --client 'a@b=true' --client 'a_b=true'",
            (const char *const[]){"'a@b'", "'a_b'", "/o/a_b.json", NULL});
    refused(dir, "clients --client 'comparison=true'",
            (const char *const[]){"'comparison'", "/o/comparison.md", "comparison page", NULL});
    /* a driver directory named comparison is a client name too */
    char drv[600];
    snprintf(drv, sizeof drv, "%s/drivers/comparison", dir);
    cr_assert_eq(tw_test_sh("mkdir -p '%s' && touch '%s/driver.mjs'", drv, drv), 0);
    char args[700];
    snprintf(args, sizeof args, "clients --drivers '%s/drivers'", dir);
    refused(dir, args, (const char *const[]){"'comparison'", "/o/comparison.md", NULL});
    tw_error why = {.offset = -1};
    const char *ok[] = {"a", "b", "comparisons"};
    cr_expect(tw_report_names_ok(ok, 3, sizeof *ok, "client", "d", &why), "%s", why.message);
    tw_test_sh("rm -rf '%s'", dir);
    free(dir);
}
