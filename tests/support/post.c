/* One request to a server the test started: see post.h. */
#include "post.h"

#include <criterion/criterion.h>
#include <string.h>

int tw_test_post(const char *base_url, const char *path, const tw_kv *h, size_t nh,
                 const char *body, tw_http_response *r)
{
    tw_client_opts o;
    memset(&o, 0, sizeof o);
    o.base_url = base_url;
    o.total_timeout_ms = 10000;
    tw_client *c = tw_client_new(&o);
    cr_assert_not_null(c);
    tw_status st = tw_client_send(c, "POST", path, h, nh, body, strlen(body), r);
    tw_client_free(c);
    cr_assert_eq(st, TW_OK, "POST %s: %s", path, r->transport_error);
    return r->status;
}
