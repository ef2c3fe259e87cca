/* The libcurl client: URL joining, Retry-After, keys, caps, failures. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "mock.h"

Test(client, url_join)
{
    char *u = tw_url_join("https://openrouter.ai/api/v1", "/v1/chat/completions");
    cr_assert_str_eq(u, "https://openrouter.ai/api/v1/chat/completions");
    free(u);
    u = tw_url_join("http://127.0.0.1:8080/", "/generate");
    cr_assert_str_eq(u, "http://127.0.0.1:8080/generate");
    free(u);
    u = tw_url_join("https://api.anthropic.com", "/v1/messages");
    cr_assert_str_eq(u, "https://api.anthropic.com/v1/messages");
    free(u);
}

Test(client, retry_after)
{
    cr_assert_eq(tw_parse_retry_after("2"), 2000);
    cr_assert_eq(tw_parse_retry_after(" 0 "), 0);
    cr_assert_eq(tw_parse_retry_after("soon"), -1);
    cr_assert_eq(tw_parse_retry_after(NULL), -1);
    cr_assert_eq(tw_parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), 0, "a past date: no wait");
}

Test(client, reserved_headers)
{
    cr_assert(tw_client_header_reserved("Authorization"));
    cr_assert(tw_client_header_reserved("x-api-key"));
    cr_assert(tw_client_header_reserved("Content-Length"));
    cr_assert_not(tw_client_header_reserved("X-Session-Id"));
}

Test(client, missing_key_variable)
{
    tw_client_opts o;
    memset(&o, 0, sizeof o);
    o.base_url = "http://127.0.0.1:9";
    o.key_env = "TOOLWIRE_TEST_KEY_THAT_IS_NOT_SET";
    unsetenv(o.key_env);
    tw_client *c = tw_client_new(&o);
    cr_assert(c);
    tw_http_response r;
    cr_assert_eq(tw_client_send(c, "POST", "/v1/chat/completions", NULL, 0, "{}", 2, &r),
                 TW_ERR_INVALID);
    cr_assert(strstr(r.transport_error, "TOOLWIRE_TEST_KEY_THAT_IS_NOT_SET"));
    tw_http_response_free(&r);
    tw_client_free(c);
}

/* A server that is gone: connection errors are retried, then reported. */
Test(client, connection_refused_is_retried)
{
    tw_fixture none;
    memset(&none, 0, sizeof none);
    tw_mock *m;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_mock_start(&none, 0, NULL, &m, &why), TW_OK);
    char url[64];
    snprintf(url, sizeof url, "%s", tw_mock_url(m));
    tw_mock_stop(m);
    tw_client_opts o;
    memset(&o, 0, sizeof o);
    o.base_url = url;
    o.max_retries = 2;
    o.backoff_ms = 5;
    o.connect_timeout_ms = 2000;
    tw_client *c = tw_client_new(&o);
    tw_http_response r;
    cr_assert_eq(tw_client_send(c, "POST", "/v1/chat/completions", NULL, 0, "{}", 2, &r),
                 TW_ERR_IO);
    cr_assert_eq(r.status, 0);
    cr_assert_eq(r.nattempts, 3);
    cr_assert_neq(r.transport_error[0], 0);
    tw_http_response_free(&r);
    tw_client_free(c);
}

Test(client, body_cap_and_key_never_in_response)
{
    /* the mock answers 404 with an error envelope to any unknown request */
    tw_fixture none;
    memset(&none, 0, sizeof none);
    tw_mock *m;
    tw_error why = {.offset = -1};
    cr_assert_eq(tw_mock_start(&none, 0, NULL, &m, &why), TW_OK);
    setenv("TOOLWIRE_TEST_KEY", "sk-test-0123456789abcdef", 1);
    tw_client_opts o;
    memset(&o, 0, sizeof o);
    o.base_url = tw_mock_url(m);
    o.key_env = "TOOLWIRE_TEST_KEY";
    o.max_retries = 0;
    o.max_bytes = 16;
    tw_client *c = tw_client_new(&o);
    tw_http_response r;
    cr_assert_eq(tw_client_send(c, "POST", "/v1/messages", NULL, 0, "{\"messages\":[]}", 15, &r),
                 TW_OK);
    cr_assert_eq(r.status, 404);
    cr_assert(r.truncated);
    cr_assert_eq(r.body.len, 16);
    cr_assert(strstr(r.transport_error, "larger than 16 bytes"));
    for (size_t i = 0; i < r.nheaders; i++)
        cr_assert_null(strstr(r.headers[i].value, "sk-test-0123456789abcdef"));
    tw_http_response_free(&r);
    tw_client_free(c);
    tw_mock_stop(m);
    unsetenv("TOOLWIRE_TEST_KEY");
}
