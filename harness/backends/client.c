/* The live HTTP client on libcurl (client.h). */
#include "client.h"
#include "checks.h"
#include "redact.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct tw_client {
    tw_client_opts o;
    char *base_url;
    char *anthropic_version;
    CURL *curl;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

tw_client *tw_client_new(const tw_client_opts *o)
{
    if (!o || !o->base_url || !*o->base_url)
        return NULL;
    pthread_once(&curl_once, curl_init_once);
    tw_client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->o = *o;
    c->base_url = tw_strdup(o->base_url);
    c->anthropic_version = tw_strdup(o->anthropic_version ? o->anthropic_version : "2023-06-01");
    c->curl = curl_easy_init();
    if (!c->base_url || !c->anthropic_version || !c->curl) {
        tw_client_free(c);
        return NULL;
    }
    if (!c->o.connect_timeout_ms)
        c->o.connect_timeout_ms = 10000;
    if (!c->o.total_timeout_ms)
        c->o.total_timeout_ms = 120000;
    if (c->o.max_retries < 0)
        c->o.max_retries = 2;
    if (c->o.max_retries > TW_CLIENT_MAX_ATTEMPTS - 1)
        c->o.max_retries = TW_CLIENT_MAX_ATTEMPTS - 1;
    if (!c->o.backoff_ms)
        c->o.backoff_ms = 250;
    if (!c->o.max_wait_ms)
        c->o.max_wait_ms = 60000;
    if (!c->o.max_bytes) {
        tw_limits L;
        tw_limits_default(&L);
        c->o.max_bytes = L.max_input_bytes;
    }
    c->o.base_url = c->base_url;
    c->o.anthropic_version = c->anthropic_version;
    return c;
}

void tw_client_free(tw_client *c)
{
    if (!c)
        return;
    if (c->curl)
        curl_easy_cleanup(c->curl);
    free(c->base_url);
    free(c->anthropic_version);
    free(c);
}

void tw_http_response_free(tw_http_response *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nheaders; i++) {
        free((char *)r->headers[i].name);
        free((char *)r->headers[i].value);
    }
    free(r->headers);
    tw_buf_free(&r->body);
    memset(r, 0, sizeof *r);
}

bool tw_client_header_reserved(const char *name)
{
    static const char *const names[] = {"authorization",
                                        "x-api-key",
                                        "x-goog-api-key",
                                        "api-key",
                                        "host",
                                        "content-length",
                                        "transfer-encoding",
                                        "connection",
                                        "accept-encoding",
                                        "proxy-authorization",
                                        "cookie",
                                        "expect",
                                        NULL};
    for (size_t i = 0; names[i]; i++)
        if (strcasecmp(name, names[i]) == 0)
            return true;
    return false;
}

long tw_parse_retry_after(const char *v)
{
    if (!v)
        return -1;
    while (*v == ' ' || *v == '\t')
        v++;
    if (*v >= '0' && *v <= '9') {
        long s = 0;
        for (; *v >= '0' && *v <= '9'; v++) {
            if (s > 86400)
                return 86400L * 1000;
            s = s * 10 + (*v - '0');
        }
        while (*v == ' ' || *v == '\t')
            v++;
        return *v ? -1 : s * 1000;
    }
    time_t t = curl_getdate(v, NULL);
    if (t < 0)
        return -1;
    time_t now = time(NULL);
    return t > now ? (long)(t - now) * 1000 : 0;
}

/* ---- transfer callbacks ---- */

typedef struct xfer {
    tw_http_response *r;
    size_t max;
} xfer;

static size_t on_body(char *p, size_t size, size_t n, void *user)
{
    xfer *x = user;
    size_t len = size * n;
    size_t room = x->max > x->r->body.len ? x->max - x->r->body.len : 0;
    if (len > room) {
        if (room)
            tw_buf_append(&x->r->body, p, room);
        x->r->truncated = true;
        return 0; /* stop the read: the cap is reached */
    }
    if (tw_buf_append(&x->r->body, p, len) != TW_OK)
        return 0;
    return len;
}

#define TW_CLIENT_MAX_HEADERS 256

static size_t on_header(char *p, size_t size, size_t n, void *user)
{
    xfer *x = user;
    size_t len = size * n;
    tw_http_response *r = x->r;
    if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) {
        /* a new response (after 100-continue or a redirect): start over */
        for (size_t i = 0; i < r->nheaders; i++) {
            free((char *)r->headers[i].name);
            free((char *)r->headers[i].value);
        }
        r->nheaders = 0;
        return len;
    }
    const char *colon = memchr(p, ':', len);
    if (!colon || r->nheaders >= TW_CLIENT_MAX_HEADERS)
        return len;
    size_t nl = (size_t)(colon - p);
    const char *v = colon + 1;
    size_t vl = len - nl - 1;
    while (vl && (*v == ' ' || *v == '\t'))
        v++, vl--;
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
        vl--;
    tw_kv *nh = realloc(r->headers, (r->nheaders + 1) * sizeof *nh);
    if (!nh)
        return 0;
    r->headers = nh;
    char *name = tw_strndup(p, nl), *value = tw_strndup(v, vl);
    if (!name || !value) {
        free(name);
        free(value);
        return 0;
    }
    for (char *q = name; *q; q++)
        if (*q >= 'A' && *q <= 'Z')
            *q = (char)(*q - 'A' + 'a');
    nh[r->nheaders++] = (tw_kv){name, value};
    return len;
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* libcurl's progress callback: a non-zero return aborts the transfer. */
static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    const tw_client_opts *o = user;
    return o->abandon(o->abandon_user) ? 1 : 0;
}

static bool abandoned(const tw_client_opts *o)
{
    return o->abandon && o->abandon(o->abandon_user);
}

/* A wait between attempts, cut short when the caller abandons the call. */
static void wait_ms(const tw_client_opts *o, long ms)
{
    if (!o->abandon) {
        sleep_ms(ms);
        return;
    }
    long end = now_ms() + ms;
    for (long left = ms; left > 0 && !abandoned(o); left = end - now_ms())
        sleep_ms(left < 50 ? left : 50);
}

static bool retryable_status(int s)
{
    return s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

static bool is_loopback_url(const char *u)
{
    const char *p = strstr(u, "://");
    p = p ? p + 3 : u;
    return strncmp(p, "127.0.0.1", 9) == 0 || strncmp(p, "localhost", 9) == 0 ||
           strncmp(p, "[::1]", 5) == 0;
}

tw_status tw_client_send(tw_client *c, const char *method, const char *path, const tw_kv *headers,
                         size_t nheaders, const char *body, size_t len, tw_http_response *out)
{
    memset(out, 0, sizeof *out);
    out->body.max = 0;
    const char *key = NULL;
    if (c->o.key_env && *c->o.key_env) {
        key = getenv(c->o.key_env);
        if (!key || !*key) {
            snprintf(out->transport_error, sizeof out->transport_error,
                     "environment variable %s is not set or empty", c->o.key_env);
            return TW_ERR_INVALID;
        }
        /* whatever echoes the key back, no output of the process shows it */
        tw_secret_add(key);
    }
    tw_auth_style auth = c->o.auth;
    if (auth == TW_AUTH_AUTO) {
        size_t pl = path ? strlen(path) : 0;
        auth =
            pl >= 8 && strcmp(path + pl - 8, "messages") == 0 ? TW_AUTH_ANTHROPIC : TW_AUTH_BEARER;
        if (tw_path_kind(path) == TW_API_GEMINI)
            auth = TW_AUTH_GOOGLE;
    }
    char *url = tw_url_join(c->base_url, path);
    if (!url)
        return TW_ERR_NOMEM;
    struct curl_slist *hl = NULL;
    bool has_ctype = false, has_version = false;
    for (size_t i = 0; i < nheaders; i++) {
        if (!headers[i].name || !headers[i].value || tw_client_header_reserved(headers[i].name))
            continue;
        if (strcasecmp(headers[i].name, "content-type") == 0)
            has_ctype = true;
        if (strcasecmp(headers[i].name, "anthropic-version") == 0)
            has_version = true;
        size_t n = strlen(headers[i].name) + strlen(headers[i].value) + 3;
        char *h = malloc(n);
        if (!h)
            continue;
        snprintf(h, n, "%s: %s", headers[i].name, headers[i].value);
        struct curl_slist *nl = curl_slist_append(hl, h);
        free(h);
        if (nl)
            hl = nl;
    }
    if (!has_ctype && body)
        hl = curl_slist_append(hl, "Content-Type: application/json");
    if (auth == TW_AUTH_ANTHROPIC && !has_version) {
        char h[96];
        snprintf(h, sizeof h, "anthropic-version: %s", c->anthropic_version);
        hl = curl_slist_append(hl, h);
    }
    /* the key goes into one header buffer, wiped after use */
    char *auth_h = NULL;
    size_t auth_len = 0;
    if (key && auth != TW_AUTH_NONE) {
        auth_len = strlen(key) + 32;
        auth_h = malloc(auth_len);
        if (auth_h) {
            snprintf(auth_h, auth_len,
                     auth == TW_AUTH_ANTHROPIC ? "x-api-key: %s"
                     : auth == TW_AUTH_GOOGLE  ? "x-goog-api-key: %s"
                                               : "Authorization: Bearer %s",
                     key);
            struct curl_slist *nl = curl_slist_append(hl, auth_h);
            if (nl)
                hl = nl;
        }
    }
    hl = curl_slist_append(hl, "Expect:");

    long t0 = now_ms();
    tw_status result = TW_ERR_IO;
    for (int attempt = 0; attempt <= c->o.max_retries; attempt++) {
        if (abandoned(&c->o)) {
            snprintf(out->transport_error, sizeof out->transport_error,
                     "abandoned: the caller gave up");
            out->status = 0;
            result = TW_ERR_IO;
            break;
        }
        CURL *h = c->curl;
        curl_easy_reset(h);
        /* every attempt starts from an empty response */
        for (size_t i = 0; i < out->nheaders; i++) {
            free((char *)out->headers[i].name);
            free((char *)out->headers[i].value);
        }
        out->nheaders = 0;
        tw_buf_reset(&out->body);
        out->truncated = false;
        out->transport_error[0] = 0;
        out->status = 0;
        xfer x = {out, c->o.max_bytes};
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method ? method : "POST");
        if (body) {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        } else if (method && strcmp(method, "GET") == 0) {
            curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        }
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->o.connect_timeout_ms);
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->o.total_timeout_ms);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(h, CURLOPT_USERAGENT, "toolwire/" TOOLWIRE_VERSION);
        if (c->o.abandon) {
            curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
            curl_easy_setopt(h, CURLOPT_XFERINFODATA, &c->o);
            curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        }
        /* proxies come from the environment (curl's default); the in-process
         * mock on a loopback address is always reached directly */
        if (is_loopback_url(url))
            curl_easy_setopt(h, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1");
        char ebuf[CURL_ERROR_SIZE];
        ebuf[0] = 0;
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
        CURLcode rc = curl_easy_perform(h);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
        long status = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        out->status = (int)status;
        tw_attempt *a = &out->attempts[out->nattempts++];
        a->status = (int)status;
        a->retry_after_ms =
            tw_parse_retry_after(tw_kv_get(out->headers, out->nheaders, "retry-after"));
        a->waited_ms = 0;
        a->error[0] = 0;
        if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && out->truncated)) {
            /* curl's words for the failure, then its detail (which names the
             * cause: connection refused, timeout after N ms, reset by peer) */
            size_t el = strlen(ebuf);
            while (el && (ebuf[el - 1] == '\n' || ebuf[el - 1] == '\r'))
                ebuf[--el] = 0;
            long oserr = 0;
            curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
            const char *os = oserr ? strerror((int)oserr) : NULL;
            const char *msg = el ? ebuf : curl_easy_strerror(rc);
            bool add_os = os && !strstr(msg, os);
            /* libcurl's words may quote the URL: scrubbed whole, then cut */
            char full[CURL_ERROR_SIZE + 160];
            snprintf(full, sizeof full, "%s%s%s%s", msg, add_os ? " (" : "", add_os ? os : "",
                     add_os ? ")" : "");
            tw_secret_clip_into(out->transport_error, sizeof out->transport_error, full);
            tw_secret_clip_into(a->error, sizeof a->error, full);
        } else if (out->truncated) {
            snprintf(out->transport_error, sizeof out->transport_error,
                     "response larger than %zu bytes: read stopped", c->o.max_bytes);
        }
        if (rc == CURLE_ABORTED_BY_CALLBACK) {
            snprintf(out->transport_error, sizeof out->transport_error,
                     "abandoned: the caller gave up");
            snprintf(a->error, sizeof a->error, "abandoned: the caller gave up");
            result = TW_ERR_IO;
            break;
        }
        /* a response that started and then broke is judged, not retried */
        bool retry = status == 0 ? rc != CURLE_OK : retryable_status((int)status);
        if (rc == CURLE_OPERATION_TIMEDOUT && status != 0)
            retry = false;
        if (!retry || attempt == c->o.max_retries) {
            result = status ? TW_OK : TW_ERR_IO;
            break;
        }
        long wait = c->o.backoff_ms << (attempt < 16 ? attempt : 16);
        if (a->retry_after_ms >= 0)
            wait = a->retry_after_ms; /* the server said when */
        if (wait > c->o.max_wait_ms) {
            result = status ? TW_OK : TW_ERR_IO;
            break; /* longer than we are willing to wait: report as is */
        }
        a->waited_ms = wait;
        wait_ms(&c->o, wait);
    }
    out->elapsed_ms = now_ms() - t0;
    if (out->transport_error[0] && out->nattempts > 1) {
        size_t tl = strlen(out->transport_error);
        snprintf(out->transport_error + tl, sizeof out->transport_error - tl, ", after %d attempts",
                 out->nattempts);
    }
    curl_slist_free_all(hl);
    if (auth_h) {
        volatile char *p = auth_h;
        for (size_t i = 0; i < auth_len; i++)
            p[i] = 0;
        free(auth_h);
    }
    free(url);
    return result;
}
