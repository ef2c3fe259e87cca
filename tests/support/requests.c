/* Helpers shared by the request-reader suites: see requests.h. */
#include "requests.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "toolwire/registry.h"
#include "twtest.h"

cJSON *tw_test_load_json(const char *path)
{
    tw_error why_e = {0};
    size_t len = 0;
    char *text = tw_read_file(path, (size_t)16 << 20, &len, &why_e);
    cr_assert_not_null(text, "%s: %s", path, why_e.message);
    cJSON *j = NULL;
    tw_error e;
    cr_assert_eq(tw_json_parse(text, len, 256, &j, &e), TW_OK, "%s: %s", path, e.message);
    cr_assert_eq(tw_json_keep_spellings(text, len, j, 256), TW_OK);
    free(text);
    return j;
}

tw_status tw_test_read_request(tw_request_decode_fn f, const char *s, size_t n, const tw_limits *l,
                               tw_request *r, tw_diag_list *w, tw_error *e)
{
    char *copy = tw_test_exact(s, n);
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    if (l)
        o.limits = *l;
    tw_status st = f(copy, n, &o, r, e);
    free(copy);
    if (st != TW_OK)
        cr_expect_eq(r->warnings.len, 0, "no warnings after a failure");
    if (w)
        cr_assert_eq(tw_diag_extend(w, &r->warnings), TW_OK);
    return st;
}

char *tw_test_encode_request(const char *name, const tw_request *r, tw_diag_list *w, size_t *len)
{
    tw_encode_opts o;
    memset(&o, 0, sizeof o);
    o.parallel_tool_calls = -1;
    o.warnings = w;
    tw_buf b = {0};
    tw_status st = tw_encoder_find(name)->encode_request(r, &o, &b);
    cr_assert_eq(st, TW_OK, "%s: %s", name, tw_code_name(st));
    return tw_buf_take(&b, len);
}

bool tw_test_has_warning(const tw_diag_list *w, tw_status code, const char *needle)
{
    for (size_t i = 0; i < w->len; i++)
        if (w->items[i].code == code && strstr(w->items[i].message, needle))
            return true;
    return false;
}
