/* One request to a server the test started (the mock, a reference server):
 * shared by the suites that drive them through the libcurl client. */
#ifndef TW_TEST_POST_H
#define TW_TEST_POST_H

#include <stddef.h>

#include "client.h"

/* POST body to base_url + path with the headers h[0, nh), through a fresh
 * client (no retries, 10 s in all); a transport failure fails the test. The
 * answer in *r (tw_http_response_free it); its HTTP status. */
int tw_test_post(const char *base_url, const char *path, const tw_kv *h, size_t nh,
                 const char *body, tw_http_response *r);

#endif
