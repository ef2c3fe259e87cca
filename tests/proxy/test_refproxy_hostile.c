/* The reference proxy (`serve --proxy`) under a hostile peer: an upstream that
 * repeats the proxy's key, an upstream that never answers, clients that give
 * up, slow connections. Real servers on both sides (libmicrohttpd through the
 * loopback server, a bare TCP upstream that holds its connections) and real
 * libcurl clients. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "loopback.h"
#include "refproxy.h"
#include "sockets.h"
#include "upstream.h"

#define KEY_ENV "TW_REFPROXY_TEST_KEY"
#define KEY "sk-proxy-7Hq2XvR9mW4pL8sK3nB6tY1cF5gJ0dZe"
#define ANT_BODY                                                                                   \
    "{\"model\":\"m\",\"max_tokens\":100,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
#define ANT_STREAM_BODY                                                                            \
    "{\"model\":\"m\",\"max_tokens\":100,\"stream\":true,\"messages\":[{\"role\":\"user\","        \
    "\"content\":\"hi\"}]}"

/* Does any 8-byte window of the key stand in s[0, n)? */
static bool holds_key_window(const char *s, size_t n)
{
    static const char key[] = KEY;
    for (size_t i = 0; i + 8 <= sizeof key - 1; i++)
        if (memmem(s, n, key + i, 8))
            return true;
    return false;
}

/* ---- an upstream that repeats the key: a libmicrohttpd server (loopback.h) ---- */

static void event(tw_buf *b, const char *json)
{
    tw_buf_puts(b, "data: ");
    tw_buf_puts(b, json);
    tw_buf_puts(b, "\n\n");
}

#define DELTA(s)                                                                                   \
    "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","           \
    "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" s "\"},\"finish_reason\":null}]}"

/* What the upstream answers is chosen by the client's request (its path in
 * the Anthropic request's user text is not read: the order of the test's
 * requests is, through a counter). */
static atomic_int echo_turn;

static void echo_upstream(void *user, const char *method, const char *url, const char *header,
                          const char *body, size_t len, tw_loop_reply *r)
{
    (void)user, (void)method, (void)url, (void)header, (void)body, (void)len;
    int turn = atomic_fetch_add(&echo_turn, 1);
    switch (turn) {
    case 0: /* 401 with the key in the error message */
        r->status = 401;
        tw_buf_puts(&r->body, "{\"error\":{\"message\":\"Invalid key " KEY ": check your account\","
                              "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}");
        break;
    case 1: /* 500 with the key in plain text, past the first 100 bytes */
        r->status = 500;
        r->ctype = "text/plain";
        tw_buf_puts(
            &r->body,
            "internal error while the gateway checked the credentials of the caller: key " KEY
            " refused");
        break;
    case 2: /* a stream that starts well, then a late error event that repeats the key */
        r->ctype = "text/event-stream";
        event(&r->body, DELTA("Hello"));
        event(&r->body, DELTA(" there"));
        event(&r->body, "{\"error\":{\"message\":\"Invalid key " KEY
                        "\",\"type\":\"invalid_request_error\"}}");
        break;
    case 3: { /* the key split across two events of a stream that succeeds */
        r->ctype = "text/event-stream";
        static const char key[] = KEY;
        char a[512], b[512];
        snprintf(a, sizeof a, DELTA("your key is %.*s"), 17, key);
        snprintf(b, sizeof b, DELTA("%s, keep it"), key + 17);
        event(&r->body, a);
        event(&r->body, b);
        event(&r->body,
              "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
              "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
        tw_buf_puts(&r->body, "data: [DONE]\n\n");
        break;
    }
    default: /* a whole answer that holds the key */
        tw_buf_puts(&r->body,
                    "{\"id\":\"c2\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
                    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
                    "\"the key is " KEY "\"},\"finish_reason\":\"stop\"}]}");
        break;
    }
}

Test(refproxy_hostile, upstream_key_never_reaches_the_client)
{
    cr_assert_eq(setenv(KEY_ENV, KEY, 1), 0);
    tw_loop_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.fn = echo_upstream;
    tw_loop *up = NULL;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_loop_start(&lo, &up, &why), TW_OK, "%s", why.message);
    tw_refproxy_opts po;
    memset(&po, 0, sizeof po);
    po.from = "anthropic";
    po.to = "openai";
    po.upstream = tw_loop_url(up);
    po.client.key_env = KEY_ENV;
    po.client.max_retries = 0;
    tw_refproxy *p = NULL;
    cr_assert_eq(tw_refproxy_start(&po, &p, &why), TW_OK, "%s", why.message);
    /* the client: plain libcurl, no key of its own */
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = tw_refproxy_url(p);
    co.max_retries = 0;
    co.total_timeout_ms = 20000;
    tw_client *cl = tw_client_new(&co);
    cr_assert(cl);
    static const struct {
        const char *body;
        int status;
        const char *what;
    } turns[] = {
        {ANT_BODY, 401, "a 401 whose message repeats the key"},
        {ANT_BODY, 500, "a 500 whose text repeats the key"},
        {ANT_STREAM_BODY, 502, "a stream whose late error event repeats the key"},
        {ANT_STREAM_BODY, 200, "a stream that splits the key across two events"},
        {ANT_BODY, 200, "an answer that holds the key"},
    };
    for (size_t i = 0; i < sizeof turns / sizeof *turns; i++) {
        tw_http_response r;
        cr_assert_eq(tw_client_send(cl, "POST", "/v1/messages", NULL, 0, turns[i].body,
                                    strlen(turns[i].body), &r),
                     TW_OK, "%s: %s", turns[i].what, r.transport_error);
        cr_assert_eq(r.status, turns[i].status, "%s: status %d: %s", turns[i].what, r.status,
                     r.body.data ? r.body.data : "");
        cr_assert(r.body.len > 0, "%s: an answer", turns[i].what);
        cr_assert(!holds_key_window(r.body.data, r.body.len),
                  "%s: the client got part of the key: %s", turns[i].what, r.body.data);
        for (size_t h = 0; h < r.nheaders; h++)
            cr_assert(!holds_key_window(r.headers[h].value, strlen(r.headers[h].value)));
        /* the message is still there, with the key scrubbed out */
        if (i < 3)
            cr_assert(strstr(r.body.data, "[REDACTED]"), "%s: %s", turns[i].what, r.body.data);
        if (i == 3)
            cr_assert(strstr(r.body.data, "your key is ") && strstr(r.body.data, "[REDACTED]"),
                      "%s", r.body.data);
        tw_http_response_free(&r);
    }
    tw_client_free(cl);
    tw_refproxy_stop(p);
    tw_loop_stop(up);
}

/* The key cut in two at every place, across two events: in the text, and in
 * a tool call's arguments. */
static atomic_int split_turn;

static void split_upstream(void *user, const char *method, const char *url, const char *header,
                           const char *body, size_t len, tw_loop_reply *r)
{
    (void)user, (void)method, (void)url, (void)header, (void)body, (void)len;
    static const char key[] = KEY;
    int turn = atomic_fetch_add(&split_turn, 1);
    int n = (int)sizeof key - 1;
    bool call = turn >= n - 1;
    int cut = 1 + (call ? turn - (n - 1) : turn);
    char a[768], b[768];
    r->ctype = "text/event-stream";
    if (!call) {
        snprintf(a, sizeof a, DELTA("key: %.*s"), cut, key);
        snprintf(b, sizeof b, DELTA("%s."), key + cut);
    } else {
        snprintf(a, sizeof a,
                 "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
                 "\"m\",\"choices\":"
                 "[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":"
                 "\"function\","
                 "\"function\":{\"name\":\"lookup\",\"arguments\":\"{\\\"q\\\": \\\"%.*s\"}}]},"
                 "\"finish_reason\":null}]}",
                 cut, key);
        snprintf(
            b, sizeof b,
            "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
            "\"choices\":"
            "[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
            "\"%s\\\"}\"}}]},\"finish_reason\":null}]}",
            key + cut);
    }
    event(&r->body, a);
    event(&r->body, b);
    event(&r->body,
          call
              ? "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}"
              : "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
    tw_buf_puts(&r->body, "data: [DONE]\n\n");
}

Test(refproxy_hostile, upstream_key_split_anywhere_never_reaches_the_client, .timeout = 120)
{
    cr_assert_eq(setenv(KEY_ENV, KEY, 1), 0);
    tw_loop_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.fn = split_upstream;
    tw_loop *up = NULL;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_loop_start(&lo, &up, &why), TW_OK, "%s", why.message);
    tw_refproxy_opts po;
    memset(&po, 0, sizeof po);
    po.from = "anthropic";
    po.to = "openai";
    po.upstream = tw_loop_url(up);
    po.client.key_env = KEY_ENV;
    po.client.max_retries = 0;
    tw_refproxy *p = NULL;
    cr_assert_eq(tw_refproxy_start(&po, &p, &why), TW_OK, "%s", why.message);
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = tw_refproxy_url(p);
    co.max_retries = 0;
    co.total_timeout_ms = 20000;
    tw_client *cl = tw_client_new(&co);
    int n = (int)sizeof KEY - 1;
    for (int i = 0; i < 2 * (n - 1); i++) {
        bool call = i >= n - 1;
        const char *req = ANT_STREAM_BODY;
        tw_http_response r;
        cr_assert_eq(tw_client_send(cl, "POST", "/v1/messages", NULL, 0, req, strlen(req), &r),
                     TW_OK, "%s", r.transport_error);
        cr_assert_eq(r.status, 200, "%s cut after %d bytes: %d %s", call ? "arguments" : "text",
                     1 + (call ? i - (n - 1) : i), r.status, r.body.data ? r.body.data : "");
        cr_assert(!holds_key_window(r.body.data, r.body.len), "%s cut after %d bytes: %s",
                  call ? "arguments" : "text", 1 + (call ? i - (n - 1) : i), r.body.data);
        cr_assert(strstr(r.body.data, call ? "lookup" : "key: "), "%s", r.body.data);
        cr_assert(strstr(r.body.data, "REDACTED"), "%s", r.body.data);
        tw_http_response_free(&r);
    }
    tw_client_free(cl);
    tw_refproxy_stop(p);
    tw_loop_stop(up);
}

/* ---- an upstream that accepts and never answers, until told to ---- */

#define SILENT_MAX 512

typedef struct silent_up {
    int lfd;
    unsigned short port;
    pthread_t th;
    atomic_bool stop;
    atomic_bool answer; /* answer every request from now on */
    atomic_int accepted;
    atomic_int open; /* connections the proxy holds open now */
    atomic_int answered;
} silent_up;

static const char ok_answer[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: "
                                "close\r\nContent-Length: %zu\r\n\r\n%s";
static const char ok_body[] =
    "{\"id\":\"c3\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
    "\"answered\"},\"finish_reason\":\"stop\"}]}";

static void *silent_main(void *arg)
{
    silent_up *u = arg;
    struct pollfd fds[SILENT_MAX + 1];
    size_t got[SILENT_MAX + 1];
    size_t n = 1;
    fds[0] = (struct pollfd){u->lfd, POLLIN, 0};
    while (!atomic_load(&u->stop)) {
        if (poll(fds, n, 20) < 0 && errno != EINTR)
            break;
        if ((fds[0].revents & POLLIN) && n <= SILENT_MAX) {
            int c = accept(u->lfd, NULL, NULL);
            if (c >= 0) {
                fds[n] = (struct pollfd){c, POLLIN, 0};
                got[n++] = 0;
                atomic_fetch_add(&u->accepted, 1);
                atomic_fetch_add(&u->open, 1);
            }
        }
        for (size_t i = 1; i < n; i++) {
            bool gone = false;
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                char b[8192];
                ssize_t r = recv(fds[i].fd, b, sizeof b, MSG_DONTWAIT);
                if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
                    gone = true; /* the proxy closed it: it gave the request up */
                else if (r > 0)
                    got[i] += (size_t)r;
            }
            if (!gone && got[i] && atomic_load(&u->answer)) {
                char a[1024];
                int k = snprintf(a, sizeof a, ok_answer, strlen(ok_body), ok_body);
                (void)!send(fds[i].fd, a, (size_t)k, MSG_NOSIGNAL);
                atomic_fetch_add(&u->answered, 1);
                gone = true;
            }
            if (gone) {
                close(fds[i].fd);
                atomic_fetch_sub(&u->open, 1);
                fds[i] = fds[n - 1];
                got[i] = got[n - 1];
                n--;
                i--;
            }
        }
    }
    for (size_t i = 1; i < n; i++)
        close(fds[i].fd);
    return NULL;
}

static void silent_start(silent_up *u)
{
    memset(u, 0, sizeof *u);
    u->lfd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(u->lfd >= 0);
    int one = 1;
    setsockopt(u->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(u->lfd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(u->lfd, 1024), 0);
    socklen_t al = sizeof a;
    getsockname(u->lfd, (struct sockaddr *)&a, &al);
    u->port = ntohs(a.sin_port);
    cr_assert_eq(pthread_create(&u->th, NULL, silent_main, u), 0);
}

static void silent_stop(silent_up *u)
{
    atomic_store(&u->stop, true);
    pthread_join(u->th, NULL);
    close(u->lfd);
}

/* n requests from libcurl clients that give up after give_up_ms (curl multi, one thread). */
static void clients_that_give_up(const char *url, int n, long give_up_ms)
{
    CURLM *mh = curl_multi_init();
    cr_assert(mh);
    CURL **h = calloc((size_t)n, sizeof *h);
    struct curl_slist *hl = curl_slist_append(NULL, "Content-Type: application/json");
    for (int i = 0; i < n; i++) {
        h[i] = curl_easy_init();
        curl_easy_setopt(h[i], CURLOPT_URL, url);
        curl_easy_setopt(h[i], CURLOPT_POSTFIELDS, ANT_BODY);
        curl_easy_setopt(h[i], CURLOPT_HTTPHEADER, hl);
        curl_easy_setopt(h[i], CURLOPT_TIMEOUT_MS, give_up_ms);
        curl_easy_setopt(h[i], CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h[i], CURLOPT_NOPROXY, "*");
        curl_multi_add_handle(mh, h[i]);
    }
    int running = 1;
    long t0 = tw_test_now_ms();
    while (running && tw_test_now_ms() - t0 < give_up_ms + 10000) {
        curl_multi_perform(mh, &running);
        if (running)
            curl_multi_poll(mh, NULL, 0, 100, NULL);
    }
    for (int i = 0; i < n; i++) {
        long code = 0;
        curl_easy_getinfo(h[i], CURLINFO_RESPONSE_CODE, &code);
        cr_assert_eq(code, 0, "client %d got an answer (%ld) from a silent upstream", i, code);
        curl_multi_remove_handle(mh, h[i]);
        curl_easy_cleanup(h[i]);
    }
    free(h);
    curl_slist_free_all(hl);
    curl_multi_cleanup(mh);
}

#define NGONE 70

Test(refproxy_hostile, clients_that_leave_leave_no_work_behind, .timeout = 120)
{
    silent_up u;
    silent_start(&u);
    char upstream[64];
    snprintf(upstream, sizeof upstream, "http://127.0.0.1:%u", u.port);
    tw_refproxy_opts po;
    memset(&po, 0, sizeof po);
    po.from = "anthropic";
    po.to = "openai";
    po.upstream = upstream;
    /* long enough that only the clients' leaving can explain an end */
    po.client.total_timeout_ms = 60000;
    po.client.max_retries = 2;
    tw_refproxy *p = NULL;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_refproxy_start(&po, &p, &why), TW_OK, "%s", why.message);
    char url[96];
    snprintf(url, sizeof url, "%s/v1/messages", tw_refproxy_url(p));
    clients_that_give_up(url, NGONE, 1500);
    long gone_at = tw_test_now_ms();
    cr_assert_gt(atomic_load(&u.accepted), 0, "the proxy asked the upstream");
    /* the proxy gives up every upstream request whose client has gone */
    while (atomic_load(&u.open) > 0 && tw_test_now_ms() - gone_at < 10000)
        tw_test_sleep_ms(50);
    int open = atomic_load(&u.open);
    printf("refproxy_hostile: %d upstream requests made for %d clients that left; %d still open "
           "after %ld ms\n",
           atomic_load(&u.accepted), NGONE, open, tw_test_now_ms() - gone_at);
    cr_assert_eq(open, 0, "%d upstream requests still held for clients that left", open);
    /* and a normal request is answered once the upstream answers */
    atomic_store(&u.answer, true);
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = tw_refproxy_url(p);
    co.max_retries = 0;
    co.total_timeout_ms = 10000;
    tw_client *cl = tw_client_new(&co);
    tw_http_response r;
    long t0 = tw_test_now_ms();
    cr_assert_eq(
        tw_client_send(cl, "POST", "/v1/messages", NULL, 0, ANT_BODY, strlen(ANT_BODY), &r), TW_OK,
        "%s", r.transport_error);
    cr_assert_eq(r.status, 200, "%d %s", r.status, r.body.data ? r.body.data : r.transport_error);
    cr_assert(strstr(r.body.data, "answered"), "%s", r.body.data);
    cr_assert_lt(tw_test_now_ms() - t0, 10000);
    tw_http_response_free(&r);
    tw_client_free(cl);
    tw_refproxy_stop(p);
    silent_stop(&u);
}

/* ---- `serve --proxy … --for 2` with requests in flight ---- */

static unsigned short free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t al = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &al);
    close(fd);
    return ntohs(a.sin_port);
}

typedef struct inflight {
    unsigned short port;
    int n;
    int fds[16];
    atomic_int sent;
} inflight;

/* Connect to the proxy once it listens and leave n requests waiting. */
static void *send_inflight(void *arg)
{
    inflight *f = arg;
    static const char req[] =
        "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: %zu\r\n\r\n%s";
    char buf[512];
    int k = snprintf(buf, sizeof buf, req, strlen(ANT_BODY), ANT_BODY);
    long t0 = tw_test_now_ms();
    for (int i = 0; i < f->n; i++) {
        f->fds[i] = -1;
        while (tw_test_now_ms() - t0 < 5000) {
            int fd = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in a;
            memset(&a, 0, sizeof a);
            a.sin_family = AF_INET;
            a.sin_port = htons(f->port);
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
                (void)!send(fd, buf, (size_t)k, MSG_NOSIGNAL);
                f->fds[i] = fd;
                atomic_fetch_add(&f->sent, 1);
                break;
            }
            close(fd);
            tw_test_sleep_ms(20);
        }
    }
    return NULL;
}

Test(refproxy_hostile, serve_for_ends_on_time_with_requests_in_flight, .timeout = 120)
{
    silent_up u;
    silent_start(&u);
    char upstream[64], port[16];
    snprintf(upstream, sizeof upstream, "http://127.0.0.1:%u", u.port);
    inflight f;
    memset(&f, 0, sizeof f);
    f.port = free_port();
    f.n = 8;
    snprintf(port, sizeof port, "%u", f.port);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, send_inflight, &f), 0);
    /* two workers: two requests wait on the upstream, six wait for a worker */
    char *argv[] = {"serve",
                    "--proxy",
                    "anthropic:openai",
                    "--upstream",
                    upstream,
                    "--port",
                    port,
                    "--upstream-timeout",
                    "600",
                    "--upstream-retries",
                    "3",
                    "--workers",
                    "2",
                    "--for",
                    "2",
                    "--quiet",
                    NULL};
    long t0 = tw_test_now_ms();
    int rc = tw_cmd_serve(16, argv);
    long took = tw_test_now_ms() - t0;
    pthread_join(th, NULL);
    printf(
        "refproxy_hostile: serve --proxy --for 2 with %d requests in flight ended after %ld ms\n",
        atomic_load(&f.sent), took);
    cr_assert_eq(rc, TW_EXIT_OK);
    cr_assert_eq(atomic_load(&f.sent), f.n, "the requests were sent while the proxy ran");
    cr_assert_geq(took, 1900);
    cr_assert_lt(took, 10000, "--for 2 took %ld ms", took);
    /* what the clients got: nothing (the daemon may close a connection
     * before its answer leaves), or an error in the shape of the endpoint
     * they called (Anthropic's, on /v1/messages) */
    int answered = 0;
    for (int i = 0; i < f.n; i++) {
        if (f.fds[i] < 0)
            continue;
        struct timeval tv = {2, 0};
        setsockopt(f.fds[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        char got[4096];
        size_t n = 0;
        ssize_t k;
        while (n < sizeof got - 1 && (k = recv(f.fds[i], got + n, sizeof got - 1 - n, 0)) > 0)
            n += (size_t)k;
        got[n] = '\0';
        close(f.fds[i]);
        if (!n)
            continue;
        const char *body = strstr(got, "\r\n\r\n");
        cr_expect(body && strncmp(body + 4, "{\"type\":\"error\",\"error\":{", 25) == 0,
                  "request %d got an answer not in Anthropic's error shape: %s", i, got);
        answered++;
    }
    printf("refproxy_hostile: %d of %d requests in flight got an answer before the proxy closed\n",
           answered, f.n);
    silent_stop(&u);
}

Test(refproxy_hostile, proxy_options_are_checked)
{
    static const char *const bad[][2] = {
        {"--upstream-timeout", "0"},  {"--upstream-timeout", "3601"},
        {"--upstream-timeout", "5s"}, {"--upstream-retries", "8"},
        {"--upstream-retries", "-1"}, {"--workers", "0"},
        {"--workers", "1025"},        {"--workers", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *argv[] = {"serve",
                        "--proxy",
                        "anthropic:openai",
                        "--upstream",
                        "http://127.0.0.1:9",
                        (char *)bad[i][0],
                        (char *)bad[i][1],
                        NULL};
        cr_assert_eq(tw_cmd_serve(7, argv), TW_EXIT_USAGE, "%s %s", bad[i][0], bad[i][1]);
    }
    /* an option of the proxy without --proxy */
    char *alone[] = {"serve", "--workers", "4", "fixtures", NULL};
    cr_assert_eq(tw_cmd_serve(4, alone), TW_EXIT_USAGE);
    /* good values are taken */
    char *good[] = {"serve",
                    "--proxy",
                    "anthropic:openai",
                    "--upstream",
                    "http://127.0.0.1:9",
                    "--upstream-timeout",
                    "5",
                    "--upstream-retries",
                    "0",
                    "--workers",
                    "2",
                    "--max-per-ip",
                    "4",
                    "--request-deadline",
                    "1000",
                    "--for",
                    "1",
                    "--quiet",
                    NULL};
    cr_assert_eq(tw_cmd_serve(18, good), TW_EXIT_OK);
}

/* ---- slow clients ---- */

static unsigned short port_of(const char *url)
{
    const char *c = strrchr(url, ':');
    return (unsigned short)atoi(c + 1);
}

/* A proxy in front of the scripted upstream (upstream.h), with opts' server options. */
static void proxy_over_script(tw_refproxy_opts *po, tw_upstream **up, tw_refproxy **p)
{
    tw_upstream_opts uo;
    memset(&uo, 0, sizeof uo);
    uo.format = "openai";
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_upstream_start(&uo, up, &why), TW_OK, "%s", why.message);
    po->from = "anthropic";
    po->to = "openai";
    po->upstream = tw_upstream_url(*up);
    po->client.max_retries = 0;
    cr_assert_eq(tw_refproxy_start(po, p, &why), TW_OK, "%s", why.message);
}

static void answered_from_127_0_0_1(tw_refproxy *p)
{
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = tw_refproxy_url(p);
    co.max_retries = 0;
    co.connect_timeout_ms = 5000;
    co.total_timeout_ms = 5000;
    tw_client *cl = tw_client_new(&co);
    tw_http_response r;
    long t0 = tw_test_now_ms();
    cr_assert_eq(
        tw_client_send(cl, "POST", "/v1/messages", NULL, 0, ANT_BODY, strlen(ANT_BODY), &r), TW_OK,
        "%s", r.transport_error);
    long latency = tw_test_now_ms() - t0;
    cr_assert_eq(r.status, 200, "status %d (%s)", r.status, r.transport_error);
    cr_assert(r.body.data && strstr(r.body.data, "\"type\":\"message\""), "%s", r.body.data);
    cr_assert_lt(latency, 5000);
    printf("refproxy_hostile: a request from 127.0.0.1 was answered in %ld ms\n", latency);
    tw_http_response_free(&r);
    tw_client_free(cl);
}

#define NSLOW 100
#define DEADLINE_MS 2000

Test(refproxy_hostile, slow_connections_do_not_lock_out_and_meet_the_deadline, .timeout = 120)
{
    if (!tw_test_room_for_fds(2 * NSLOW + 256))
        cr_skip_test("RLIMIT_NOFILE cannot be raised to %d", 2 * NSLOW + 256);
    tw_refproxy_opts po;
    memset(&po, 0, sizeof po);
    po.request_deadline_ms = DEADLINE_MS;
    tw_upstream *up = NULL;
    tw_refproxy *p = NULL;
    proxy_over_script(&po, &up, &p);
    unsigned short port = port_of(tw_refproxy_url(p));
    static int fds[NSLOW];
    long opened = tw_test_now_ms();
    for (int i = 0; i < NSLOW; i++) {
        fds[i] = tw_test_raw_connect("127.0.0.2", port);
        if (fds[i] < 0) {
            for (int k = 0; k < i; k++)
                close(fds[k]);
            cr_skip_test("cannot bind a client socket to 127.0.0.2");
        }
        static const char head[] = "POST /v1/messages HTTP/1.1\r\nHost: x\r\n";
        (void)!send(fds[i], head, sizeof head - 1, MSG_NOSIGNAL);
    }
    for (int i = 0; i < NSLOW; i++)
        (void)!send(fds[i], "X-A: 1\r\n", 8, MSG_NOSIGNAL);
    answered_from_127_0_0_1(p);
    /* a connection that keeps trickling is still closed at the deadline */
    bool closed = false;
    long closed_at = 0;
    while (!closed && tw_test_now_ms() - opened < DEADLINE_MS + 6000) {
        (void)!send(fds[0], "X-B: 2\r\n", 8, MSG_NOSIGNAL);
        closed = tw_test_closed_by_server(fds[0], 200);
        closed_at = tw_test_now_ms();
    }
    cr_assert(closed, "a trickling connection outlived the request deadline");
    cr_assert_geq(closed_at - opened, DEADLINE_MS - 100, "closed before the deadline");
    int still_open = 0;
    for (int i = 1; i < NSLOW; i++)
        still_open += !tw_test_closed_by_server(fds[i], 1000);
    cr_assert_eq(still_open, 0);
    for (int i = 0; i < NSLOW; i++)
        close(fds[i]);
    tw_refproxy_stop(p);
    tw_upstream_stop(up);
}

Test(refproxy_hostile, per_address_connection_limit)
{
    tw_refproxy_opts po;
    memset(&po, 0, sizeof po);
    po.max_per_ip = 8;
    tw_upstream *up = NULL;
    tw_refproxy *p = NULL;
    proxy_over_script(&po, &up, &p);
    unsigned short port = port_of(tw_refproxy_url(p));
    int fds[20];
    for (int i = 0; i < 20; i++) {
        fds[i] = tw_test_raw_connect("127.0.0.2", port);
        if (fds[i] < 0) {
            for (int k = 0; k < i; k++)
                close(fds[k]);
            cr_skip_test("cannot bind a client socket to 127.0.0.2");
        }
    }
    int refused = 0;
    for (int i = 0; i < 20; i++)
        refused += tw_test_closed_by_server(fds[i], 300);
    cr_assert_eq(refused, 12, "%d of 20 connections refused past a limit of 8", refused);
    answered_from_127_0_0_1(p);
    for (int i = 0; i < 20; i++)
        close(fds[i]);
    tw_refproxy_stop(p);
    tw_upstream_stop(up);
}

/* ---- a slow answer is not a stalled connection ---- */

static void slow_answer(void *user, const char *method, const char *url, const char *header,
                        const char *body, size_t len, tw_loop_reply *r)
{
    (void)user, (void)method, (void)url, (void)header, (void)body, (void)len;
    tw_test_sleep_ms(2500);
    tw_buf_puts(&r->body, "{\"ok\":true}");
}

/* The no-progress timeout does not cut a request whose answer a worker is
 * still preparing (its connection suspended, as the proxy's while it waits
 * on its upstream): the answer arrives after it. */
Test(refproxy_hostile, a_suspended_answer_outlasts_the_no_progress_timeout, .timeout = 60)
{
    tw_loop_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.fn = slow_answer;
    lo.timeout_s = 1;
    tw_loop *l = NULL;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_loop_start(&lo, &l, &why), TW_OK, "%s", why.message);
    tw_client_opts co;
    memset(&co, 0, sizeof co);
    co.base_url = tw_loop_url(l);
    co.max_retries = 0;
    co.total_timeout_ms = 10000;
    tw_client *cl = tw_client_new(&co);
    tw_http_response r;
    cr_assert_eq(tw_client_send(cl, "POST", "/x", NULL, 0, "{}", 2, &r), TW_OK, "%s",
                 r.transport_error);
    cr_assert_eq(r.status, 200);
    cr_assert(r.body.data && strstr(r.body.data, "\"ok\""));
    tw_http_response_free(&r);
    tw_client_free(cl);
    tw_loop_stop(l);
}
