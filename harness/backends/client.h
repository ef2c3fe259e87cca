/*
 * The live HTTP client (libcurl): any base URL, the API key read from a
 * named environment variable at request time (never stored in a fixture,
 * report or log), connect and total timeouts, retries with exponential
 * backoff that honour Retry-After, and a cap on the bytes read. Proxies come
 * from the usual environment variables (curl's default).
 *
 * One tw_client is used by one thread at a time; create one per thread.
 */
#ifndef TOOLWIRE_CLIENT_H
#define TOOLWIRE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "fixture.h"
#include "toolwire/core.h"
#include "url.h"

typedef enum tw_auth_style {
    TW_AUTH_AUTO = 0,  /* by path: /v1/messages -> Anthropic, …:generateContent and
                        * …:streamGenerateContent -> Google, else Bearer */
    TW_AUTH_BEARER,    /* Authorization: Bearer KEY */
    TW_AUTH_ANTHROPIC, /* x-api-key: KEY, anthropic-version */
    TW_AUTH_NONE,
    TW_AUTH_GOOGLE /* x-goog-api-key: KEY (never a key= query parameter) */
} tw_auth_style;

typedef struct tw_client_opts {
    const char *base_url; /* "http://127.0.0.1:8080", "https://api.openai.com" */
    const char *key_env;  /* environment variable holding the key, or NULL */
    tw_auth_style auth;
    long connect_timeout_ms;       /* 0: 10000 */
    long total_timeout_ms;         /* 0: 120000 (one attempt) */
    int max_retries;               /* retries after the first attempt; -1: 2 */
    long backoff_ms;               /* first backoff; doubles each retry; 0: 250 */
    long max_wait_ms;              /* longest wait honoured (Retry-After or backoff); 0: 60000 */
    size_t max_bytes;              /* cap on the response body; 0: limits.max_input_bytes */
    const char *anthropic_version; /* 0: "2023-06-01" unless the request sets one */
    /* Asked during a transfer (libcurl's progress callback: at least about once a
     * second) and before every attempt and wait: true abandons the call, which
     * then returns TW_ERR_IO with transport_error "abandoned: …" and no retry.
     * NULL: never abandoned. */
    bool (*abandon)(void *user);
    void *abandon_user;
} tw_client_opts;

/* One attempt, for the retry log. */
typedef struct tw_attempt {
    int status;          /* 0: no HTTP status */
    long retry_after_ms; /* from the response, -1 when none */
    long waited_ms;      /* wait before the next attempt (0 for the last) */
    char error[128];     /* transport error, "" when none */
} tw_attempt;

#define TW_CLIENT_MAX_ATTEMPTS 8

typedef struct tw_http_response {
    int status;     /* 0: no response */
    tw_kv *headers; /* owned; names lower-cased as received */
    size_t nheaders;
    tw_buf body;               /* owned */
    bool truncated;            /* the body hit max_bytes and the read stopped */
    char transport_error[256]; /* "" when the transfer completed */
    long elapsed_ms;           /* whole call, retries included */
    tw_attempt attempts[TW_CLIENT_MAX_ATTEMPTS];
    int nattempts;
} tw_http_response;

typedef struct tw_client tw_client;

/* NULL on allocation failure or a missing base URL. */
tw_client *tw_client_new(const tw_client_opts *o);
void tw_client_free(tw_client *c);

/*
 * Send one request: method, path (joined to the base URL by tw_url_join:
 * before the base's query, without doubling "/v1"), extra headers (fixture headers; credentials,
 * Host and Content-Length among them are ignored), body bytes. Fills *out (free with
 * tw_http_response_free) even on failure. Returns TW_OK when an HTTP
 * response arrived (any status), TW_ERR_IO when none did, TW_ERR_INVALID
 * when key_env names an unset variable.
 */
tw_status tw_client_send(tw_client *c, const char *method, const char *path, const tw_kv *headers,
                         size_t nheaders, const char *body, size_t len, tw_http_response *out);
void tw_http_response_free(tw_http_response *r);

/* Retry-After as milliseconds ("120" or an HTTP date), -1 when absent or bad. */
long tw_parse_retry_after(const char *v);

/* Is this header one the client never forwards from a fixture? */
bool tw_client_header_reserved(const char *name);

#endif
