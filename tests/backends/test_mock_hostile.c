/* The mock backend under hostile clients: slow connections, unfinished bodies,
 * forged log lines, a long request log, exchanges named across paths. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "mock.h"
#include "mock_log.h"
#include "sockets.h"

#define FAST_BODY "{\"messages\":[{\"role\":\"user\",\"content\":\"fast\"}]}"
#define SLOW_BODY "{\"messages\":[{\"role\":\"user\",\"content\":\"slow\"}],\"stream\":true}"
#define LATE_BODY "{\"messages\":[{\"role\":\"user\",\"content\":\"late\"}]}"

#define CHUNK(s)                                                                                   \
    "{\"data\":\"{\\\"choices\\\":[{\\\"index\\\":0,\\\"delta\\\":{\\\"content\\\":\\\"" s         \
    "\\\"}}]}\""

static const char fx_json[] =
    "{\"fixture_version\":1,\"name\":\"t/hostile\",\"description\":\"d\",\"backend\":\"openai\","
    "\"provenance\":{\"source\":\"hand-made\"},\"exchanges\":["
    "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":" FAST_BODY "},"
    "\"response\":{\"status\":200,\"body\":{\"id\":\"fast-1\",\"object\":\"chat.completion\","
    "\"choices\":[]}}},"
    "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":" SLOW_BODY "},"
    "\"response\":{\"status\":200,\"headers\":{\"content-type\":\"text/"
    "event-stream\"},\"events\":[" CHUNK("one") "}," CHUNK(
        "two") ",\"delay_ms\":1500},"
               "{\"data\":\"[DONE]\"}]}},"
               "{\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/"
               "completions\",\"body\":" LATE_BODY "},"
               "\"faults\":{\"delay_ms\":3000},"
               "\"response\":{\"status\":200,\"body\":{\"id\":\"late-1\",\"object\":\"chat."
               "completion\",\"choices\":[]}}}"
               "]}";

static tw_fixture fx;
static tw_mock *mock;

static void start(tw_mock_opts *o)
{
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_fixture_parse(fx_json, strlen(fx_json), "inline", NULL, &fx, &why), TW_OK,
                 "fixture: %s", why.message);
    cr_assert_eq(tw_mock_start(&fx, 1, o, &mock, &why), TW_OK, "%s", why.message);
}

static void stop(void)
{
    tw_mock_stop(mock);
    mock = NULL;
    tw_fixture_free(&fx);
}

static tw_client *client(long timeout_ms)
{
    tw_client_opts o;
    memset(&o, 0, sizeof o);
    o.base_url = tw_mock_url(mock);
    o.max_retries = 0;
    o.connect_timeout_ms = timeout_ms;
    o.total_timeout_ms = timeout_ms;
    tw_client *c = tw_client_new(&o);
    cr_assert(c);
    return c;
}

static tw_status post(tw_client *c, const char *path, const tw_kv *h, size_t nh, const char *body,
                      tw_http_response *r)
{
    return tw_client_send(c, "POST", path, h, nh, body, strlen(body), r);
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return; /* the server may have closed it: the reads say so */
        p += w;
        n -= (size_t)w;
    }
}

/* Read the whole answer of a raw request (the server closes: Connection: close). */
static void read_all(int fd, tw_buf *out)
{
    char b[4096];
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 5000) <= 0)
            break;
        ssize_t r = recv(fd, b, sizeof b, 0);
        if (r <= 0)
            break;
        tw_buf_append(out, b, (size_t)r);
    }
    tw_buf_putc(out, '\0');
}

TestSuite(hostile, .fini = stop);

#define NSLOW 1000
#define DEADLINE_MS 2000

Test(hostile, slow_connections_do_not_lock_out_and_meet_the_deadline)
{
    /* both ends of every connection live in this process */
    if (!tw_test_room_for_fds(2 * NSLOW + 256))
        cr_skip_test("RLIMIT_NOFILE cannot be raised to %d", 2 * NSLOW + 256);
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.max_per_ip = 2 * NSLOW; /* the event loop, not the address limit, keeps the door open */
    o.max_connections = 4 * NSLOW;
    o.request_deadline_ms = DEADLINE_MS;
    start(&o);
    static int fds[NSLOW];
    long opened = tw_test_now_ms();
    for (int i = 0; i < NSLOW; i++) {
        fds[i] = tw_test_raw_connect("127.0.0.2", tw_mock_port(mock));
        if (fds[i] < 0) {
            for (int k = 0; k < i; k++)
                close(fds[k]);
            cr_skip_test("cannot bind a client socket to 127.0.0.2");
        }
        static const char head[] = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n";
        send_all(fds[i], head, sizeof head - 1);
    }
    /* a trickled line on every connection */
    for (int i = 0; i < NSLOW; i++)
        send_all(fds[i], "X-A: 1\r\n", 8);

    tw_client *c = client(5000);
    tw_http_response r;
    long t0 = tw_test_now_ms();
    cr_assert_eq(post(c, "/v1/chat/completions", NULL, 0, FAST_BODY, &r), TW_OK);
    long latency = tw_test_now_ms() - t0;
    printf("hostile: with %d slow connections open, a request was answered in %ld ms\n", NSLOW,
           latency);
    cr_assert_eq(r.status, 200, "status %d (%s)", r.status, r.transport_error);
    cr_assert(r.body.data && strstr(r.body.data, "\"fast-1\""));
    cr_assert_lt(latency, 5000);
    tw_http_response_free(&r);
    tw_client_free(c);

    /* a connection that keeps trickling is still closed at the deadline */
    bool closed = false;
    long closed_at = 0;
    while (!closed && tw_test_now_ms() - opened < DEADLINE_MS + 4000) {
        send_all(fds[0], "X-B: 2\r\n", 8);
        closed = tw_test_closed_by_server(fds[0], 200);
        closed_at = tw_test_now_ms();
    }
    cr_assert(closed, "a trickling connection outlived the request deadline");
    cr_assert_geq(closed_at - opened, DEADLINE_MS - 100, "closed before the deadline");
    printf("hostile: the trickling connection was closed after %ld ms (deadline %d ms)\n",
           closed_at - opened, DEADLINE_MS);
    /* and so are all the others */
    int still_open = 0;
    for (int i = 1; i < NSLOW; i++)
        still_open += !tw_test_closed_by_server(fds[i], 1000);
    cr_assert_eq(still_open, 0);
    cr_assert_geq(tw_mock_deadline_cuts(mock), NSLOW, "%lu cut", tw_mock_deadline_cuts(mock));
    for (int i = 0; i < NSLOW; i++)
        close(fds[i]);
}

Test(hostile, per_address_connection_limit)
{
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.max_per_ip = 8;
    start(&o);
    int fds[20];
    int refused = 0;
    for (int i = 0; i < 20; i++) {
        fds[i] = tw_test_raw_connect("127.0.0.2", tw_mock_port(mock));
        if (fds[i] < 0) {
            for (int k = 0; k < i; k++)
                close(fds[k]);
            cr_skip_test("cannot bind a client socket to 127.0.0.2");
        }
    }
    for (int i = 0; i < 20; i++)
        refused += tw_test_closed_by_server(fds[i], 300);
    cr_assert_eq(refused, 12, "%d of 20 connections refused past a limit of 8", refused);
    /* another address is not affected */
    tw_client *c = client(5000);
    tw_http_response r;
    cr_assert_eq(post(c, "/v1/chat/completions", NULL, 0, FAST_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    tw_http_response_free(&r);
    tw_client_free(c);
    for (int i = 0; i < 20; i++)
        close(fds[i]);
}

Test(hostile, inflight_budget_answers_503)
{
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.inflight_budget = 64 * 1024;
    start(&o);
    /* an unfinished 1 MiB body holds 60 KiB of the 64 KiB budget */
    int hold = tw_test_raw_connect(NULL, tw_mock_port(mock));
    static const char head[] = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                               "Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n";
    send_all(hold, head, sizeof head - 1);
    static char pad[60 * 1024];
    memset(pad, ' ', sizeof pad);
    send_all(hold, pad, sizeof pad);
    long t0 = tw_test_now_ms();
    while (tw_mock_inflight(mock) < sizeof pad && tw_test_now_ms() - t0 < 5000)
        tw_test_sleep_ms(10);
    cr_assert_eq(tw_mock_inflight(mock), sizeof pad);

    /* a whole 8 KiB request does not fit: 503, Retry-After, a JSON error */
    tw_buf big = {0};
    tw_buf_puts(&big, "{\"messages\":[{\"role\":\"user\",\"content\":\"");
    for (int i = 0; i < 8192; i++)
        tw_buf_putc(&big, 'x');
    tw_buf_puts(&big, "\"}]}");
    tw_client *c = client(5000);
    tw_http_response r;
    cr_assert_eq(post(c, "/v1/chat/completions", NULL, 0, big.data, &r), TW_OK);
    cr_assert_eq(r.status, 503);
    cr_assert_str_eq(tw_kv_get(r.headers, r.nheaders, "retry-after"), "1");
    cJSON *j = cJSON_Parse(r.body.data);
    cr_assert(j, "a JSON body: %s", r.body.data);
    cr_assert_str_eq(cJSON_GetStringValue(tw_json_get(tw_json_get(j, "error"), "code")), "busy");
    cJSON_Delete(j);
    tw_http_response_free(&r);
    cr_assert_eq(tw_mock_inflight(mock), sizeof pad, "the refused body holds nothing");

    /* the held bytes come back when that connection goes */
    close(hold);
    t0 = tw_test_now_ms();
    while (tw_mock_inflight(mock) && tw_test_now_ms() - t0 < 5000)
        tw_test_sleep_ms(10);
    cr_assert_eq(tw_mock_inflight(mock), 0);
    cr_assert_eq(post(c, "/v1/chat/completions", NULL, 0, big.data, &r), TW_OK);
    cr_assert_eq(r.status, 404, "fits the budget again (and matches no exchange)");
    tw_http_response_free(&r);
    cr_assert_eq(post(c, "/v1/chat/completions", NULL, 0, FAST_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    tw_http_response_free(&r);
    tw_client_free(c);
    tw_buf_free(&big);
    t0 = tw_test_now_ms();
    while (tw_mock_inflight(mock) && tw_test_now_ms() - t0 < 5000)
        tw_test_sleep_ms(10);
    cr_assert_eq(tw_mock_inflight(mock), 0, "every finished request gave its bytes back");
}

Test(hostile, log_lines_escape_control_bytes)
{
    FILE *log = tmpfile();
    cr_assert(log);
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.log = log;
    start(&o);
    int fd = tw_test_raw_connect(NULL, tw_mock_port(mock));
    static const char req[] =
        "POST /v1/x%0A%23999%20forged%1B[31m%FF%C2%9B\\ HTTP/1.1\r\nHost: x\r\n"
        "Content-Length: 2\r\nConnection: close\r\n\r\n{}";
    send_all(fd, req, sizeof req - 1);
    tw_buf ans = {0};
    read_all(fd, &ans);
    close(fd);
    cr_assert(strstr(ans.data, " 404 "), "%s", ans.data);
    tw_buf_free(&ans);
    stop(); /* flushes nothing further; the line is written before the answer */
    rewind(log);
    char text[1024];
    size_t n = fread(text, 1, sizeof text - 1, log);
    fclose(log);
    text[n] = 0;
    cr_assert(n > 0);
    cr_assert_eq(text[n - 1], '\n');
    for (size_t i = 0; i + 1 < n; i++)
        cr_assert(((unsigned char)text[i] >= 0x20 && (unsigned char)text[i] < 0x7F),
                  "byte 0x%02X at %zu in the log line: %s", (unsigned char)text[i], i, text);
    cr_assert(strstr(text, "/v1/x\\x0A#999 forged\\x1B[31m\\xFF\\xC2\\x9B\\\\ -> (no match) 404"),
              "%s", text);
}

Test(hostile, log_escape_keeps_utf8_and_escapes_the_rest)
{
    static const struct {
        const char *in;
        const char *out;
    } cases[] = {
        {"plain/ascii", "plain/ascii"},
        {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
        {"a\nb\rc\td", "a\\x0Ab\\x0Dc\\x09d"},
        {"\x1B]0;title\x07", "\\x1B]0;title\\x07"},
        {"\x7F", "\\x7F"},
        {"\xC2\x9B"
         "2J",
         "\\xC2\\x9B2J"},                             /* C1 CSI */
        {"\xC0\xAF", "\\xC0\\xAF"},                   /* overlong */
        {"\xED\xA0\x80", "\\xED\\xA0\\x80"},          /* surrogate */
        {"\xF4\x90\x80\x80", "\\xF4\\x90\\x80\\x80"}, /* past U+10FFFF */
        {"\xE2\x82", "\\xE2\\x82"},                   /* cut */
        {"back\\slash", "back\\\\slash"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tw_buf b = {0};
        tw_log_escape(&b, cases[i].in, strlen(cases[i].in));
        tw_buf_putc(&b, '\0');
        cr_assert_str_eq(b.data, cases[i].out, "case %zu", i);
        tw_buf_free(&b);
    }
    /* a NUL inside the bytes */
    tw_buf b = {0};
    tw_log_escape(&b, "a\0b", 3);
    tw_buf_putc(&b, '\0');
    cr_assert_str_eq(b.data, "a\\x00b");
    tw_buf_free(&b);
}

Test(hostile, request_log_ring_is_constant_work_per_request)
{
    /* 200,000 requests into a log of 100,000: one slot written per request
     * (moving the whole log each time would copy ~3 TB here) */
    tw_mock_ring g;
    tw_mock_ring_init(&g, 100000);
    size_t bytes_full = 0;
    for (unsigned long s = 1; s <= 200000; s++) {
        tw_mock_record rec;
        memset(&rec, 0, sizeof rec);
        rec.seq = s;
        rec.status = 200;
        snprintf(rec.path, sizeof rec.path, "/v1/chat/completions");
        if (s % 1000 == 0)
            tw_check_set_put(&rec.checks, TW_CHK_CLI_01, TW_V_FAIL, -1, "request %06lu", s);
        cr_assert(tw_mock_ring_push(&g, &rec));
        if (s == 100000)
            bytes_full = g.bytes;
    }
    /* memory: the bytes held stay where they were once the ring was full, and
     * a record holds its strings, not the fixed-size buffers of tw_mock_record */
    cr_assert_eq(g.bytes, bytes_full);
    cr_assert_lt(g.bytes, (size_t)100000 * 128, "bytes held: %zu", g.bytes);
    cr_assert_lt(g.bytes, (size_t)100000 * sizeof(tw_mock_record) / 2);
    cr_assert_eq(g.writes, 200000);
    cr_assert_eq(g.n, 100000);
    cr_assert_eq(g.alloc, 100000, "memory stays at the cap");
    tw_mock_record *r;
    size_t n;
    cr_assert(tw_mock_ring_since(&g, 0, &r, &n));
    cr_assert_eq(n, 100000);
    cr_assert_eq(r[0].seq, 100001);
    cr_assert_eq(r[n - 1].seq, 200000);
    for (size_t i = 1; i < n; i++)
        cr_assert_eq(r[i].seq, r[i - 1].seq + 1);
    cr_assert_eq(r[n - 1].checks.len, 1);
    cr_assert_str_eq(r[n - 1].checks.items[0].evidence, "request 200000");
    tw_mock_records_free(r, n);
    cr_assert(tw_mock_ring_since(&g, 199990, &r, &n));
    cr_assert_eq(n, 10);
    cr_assert_eq(r[0].seq, 199991);
    tw_mock_records_free(r, n);
    cr_assert(tw_mock_ring_since(&g, 200000, &r, &n));
    cr_assert_eq(n, 0);
    cr_assert_null(r);
    tw_mock_ring_free(&g);
}

Test(hostile, request_log_keeps_the_newest_records)
{
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.max_records = 3;
    start(&o);
    tw_client *c = client(5000);
    for (int i = 0; i < 5; i++) {
        tw_http_response r;
        cr_assert_eq(post(c, "/v1/chat/completions", NULL, 0, FAST_BODY, &r), TW_OK);
        cr_assert_eq(r.status, 200);
        tw_http_response_free(&r);
    }
    tw_client_free(c);
    tw_mock_record *rec;
    size_t n;
    cr_assert_eq(tw_mock_records(mock, 0, &rec, &n), TW_OK);
    cr_assert_eq(n, 3);
    cr_assert_eq(rec[0].seq, 3);
    cr_assert_eq(rec[2].seq, 5);
    tw_mock_records_free(rec, n);
    cr_assert_eq(tw_mock_records(mock, 4, &rec, &n), TW_OK);
    cr_assert_eq(n, 1);
    cr_assert_eq(rec[0].seq, 5);
    tw_mock_records_free(rec, n);
}

Test(hostile, exchange_header_stays_within_method_and_path)
{
    start(NULL);
    tw_client *c = client(5000);
    tw_kv h[] = {{TW_MOCK_EXCHANGE_HEADER, "t/hostile#0"}};
    tw_http_response r;
    /* naming a chat-completions exchange from /v1/messages */
    cr_assert_eq(post(c, "/v1/messages", h, 1, "{\"messages\":[]}", &r), TW_OK);
    cr_assert_eq(r.status, 404);
    cr_assert(strstr(r.body.data, "another method or path"), "%s", r.body.data);
    cr_assert_null(strstr(r.body.data, "chat.completion"));
    tw_http_response_free(&r);
    /* a name that no served exchange has says so, rather than "no match" */
    tw_kv typo[] = {{TW_MOCK_EXCHANGE_HEADER, "t/hostile#7"}};
    cr_assert_eq(post(c, "/v1/chat/completions", typo, 1, "{\"messages\":[]}", &r), TW_OK);
    cr_assert_eq(r.status, 404);
    cr_assert(strstr(r.body.data, "no served exchange has the name given in"), "%s", r.body.data);
    tw_http_response_free(&r);
    /* from its own path the header still selects it, whatever the body */
    cr_assert_eq(post(c, "/v1/chat/completions", h, 1, "{\"messages\":[]}", &r), TW_OK);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body.data, "\"fast-1\""));
    tw_http_response_free(&r);
    tw_client_free(c);
    tw_mock_record *rec;
    size_t n;
    cr_assert_eq(tw_mock_records(mock, 0, &rec, &n), TW_OK);
    cr_assert_eq(n, 3);
    cr_assert_eq(rec[0].status, 404);
    cr_assert_eq(rec[0].exchange, -1);
    cr_assert_eq(rec[1].status, 404);
    cr_assert_eq(rec[2].exchange, 0);
    tw_mock_records_free(rec, n);
}

/* ---- delays hold no thread ---- */

typedef struct bg_req {
    const char *body;
    tw_http_response r;
    tw_status st;
    long done_ms;
} bg_req;

static void *bg_post(void *arg)
{
    bg_req *b = arg;
    tw_client *c = client(10000);
    b->st = post(c, "/v1/chat/completions", NULL, 0, b->body, &b->r);
    b->done_ms = tw_test_now_ms();
    tw_client_free(c);
    return NULL;
}

static void delayed_does_not_block(const char *slow_body, const char *want)
{
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.threads = 1; /* one event loop for everything */
    o.timing = true;
    start(&o);
    bg_req slow;
    memset(&slow, 0, sizeof slow);
    slow.body = slow_body;
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, bg_post, &slow), 0);
    /* wait until the slow request has arrived and is waiting */
    long t0 = tw_test_now_ms();
    while (tw_mock_seq(mock) == 0 && !slow.done_ms && tw_test_now_ms() - t0 < 1000)
        tw_test_sleep_ms(5);
    tw_test_sleep_ms(100);
    tw_client *c = client(10000);
    tw_http_response r;
    cr_assert_eq(post(c, "/v1/chat/completions", NULL, 0, FAST_BODY, &r), TW_OK);
    long fast_done = tw_test_now_ms();
    cr_assert_eq(r.status, 200);
    tw_http_response_free(&r);
    tw_client_free(c);
    pthread_join(t, NULL);
    cr_assert_eq(slow.st, TW_OK);
    cr_assert_eq(slow.r.status, 200);
    cr_assert(slow.r.body.data && strstr(slow.r.body.data, want), "%s", slow.r.body.data);
    cr_assert_lt(fast_done, slow.done_ms, "the quick request waited for the delayed one");
    tw_http_response_free(&slow.r);
}

Test(hostile, stream_delays_hold_no_thread)
{
    delayed_does_not_block(SLOW_BODY, "[DONE]");
}

Test(hostile, fault_delay_holds_no_thread)
{
    delayed_does_not_block(LATE_BODY, "\"late-1\"");
}

Test(hostile, stop_while_answers_are_suspended)
{
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.timing = true;
    start(&o);
    bg_req b[2];
    pthread_t t[2];
    memset(b, 0, sizeof b);
    b[0].body = SLOW_BODY; /* suspended between two events */
    b[1].body = LATE_BODY; /* suspended before its answer */
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, bg_post, &b[i]), 0);
    long t0 = tw_test_now_ms();
    while (tw_mock_seq(mock) == 0 && tw_test_now_ms() - t0 < 2000)
        tw_test_sleep_ms(5);
    tw_test_sleep_ms(200);
    /* stopping resumes them (a daemon must not stop with suspended connections) */
    stop();
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        cr_assert(b[i].done_ms);
    }
    cr_assert_null(strstr(b[0].r.body.data ? b[0].r.body.data : "", "[DONE]"),
                   "the stream was cut");
    for (int i = 0; i < 2; i++)
        tw_http_response_free(&b[i].r);
}

Test(hostile, deadline_covers_the_body_not_the_answer)
{
    tw_mock_opts o;
    memset(&o, 0, sizeof o);
    o.request_deadline_ms = 500;
    o.timing = true;
    start(&o);
    /* whole headers, then a body one byte at a time */
    int fd = tw_test_raw_connect(NULL, tw_mock_port(mock));
    static const char head[] = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                               "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n";
    long t0 = tw_test_now_ms();
    send_all(fd, head, sizeof head - 1);
    bool closed = false;
    for (int i = 0; i < 40 && !closed; i++) {
        send_all(fd, " ", 1);
        closed = tw_test_closed_by_server(fd, 100);
    }
    long after = tw_test_now_ms() - t0;
    close(fd);
    cr_assert(closed, "a trickled body outlived the deadline");
    cr_assert_geq(after, 400);
    cr_assert_eq(tw_mock_deadline_cuts(mock), 1);
    /* a stream that takes longer than the deadline to answer is not cut */
    tw_client *c = client(10000);
    tw_http_response r;
    cr_assert_eq(post(c, "/v1/chat/completions", NULL, 0, SLOW_BODY, &r), TW_OK);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(r.transport_error, "");
    cr_assert(strstr(r.body.data, "[DONE]"), "%s", r.body.data);
    tw_http_response_free(&r);
    tw_client_free(c);
    cr_assert_eq(tw_mock_deadline_cuts(mock), 1);
}

Test(hostile, serve_limit_options_are_checked)
{
    static const char *const bad[][2] = {
        {"--threads", "0"},           {"--threads", "257"},          {"--max-connections", "0"},
        {"--max-per-ip", "-1"},       {"--max-per-ip", "1000001"},   {"--request-deadline", "99"},
        {"--request-deadline", "5x"}, {"--inflight-budget", "1023"}, {"--inflight-budget", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *argv[] = {"serve", (char *)bad[i][0], (char *)bad[i][1], "fixtures", NULL};
        cr_assert_eq(tw_cmd_serve(4, argv), TW_EXIT_USAGE, "%s %s", bad[i][0], bad[i][1]);
    }
}
