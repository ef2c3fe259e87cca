/* The backend checks on one crafted exchange: see judge.h. */
#include "judge.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twtest.h"

static tw_kv json_ct[] = {{"content-type", "application/json"}};
static tw_kv sse_ct[] = {{"content-type", "text/event-stream"}};

static tw_verdict judge(const tw_fx_exchange *ex, const char *path, const char *req, int status,
                        const char *body, bool sse, const tw_limits *L, tw_check_id id, char *ev,
                        size_t evn, bool every_check)
{
    cJSON *rq = req ? cJSON_Parse(req) : NULL;
    tw_judge_input in;
    memset(&in, 0, sizeof in);
    in.ex = ex;
    in.path = path;
    in.req_body = rq;
    in.status = status;
    in.resp_headers = sse ? sse_ct : json_ct;
    in.nresp_headers = 1;
    in.limits = L;
    char *exact = tw_test_exact(body, strlen(body));
    in.body = exact;
    in.body_len = strlen(body);
    tw_check_set s = {0};
    tw_checks_backend(&in, &s);
    const tw_check_result *r = tw_check_set_get(&s, id);
    cr_assert(r, "%s has a verdict", tw_check_name(id));
    tw_verdict v = r->verdict;
    if (ev)
        snprintf(ev, evn, "%s", r->evidence);
    if (every_check) {
        size_t n;
        const tw_check_def *defs = tw_checks_catalog(&n);
        for (size_t i = 0; i < n; i++)
            if (!defs[i].client && defs[i].family != TW_CHF_PARSER) /* parsers/ judges those */
                cr_assert(tw_check_set_get(&s, defs[i].chk), "%s missing", defs[i].id);
    }
    tw_check_set_free(&s);
    free(exact);
    cJSON_Delete(rq);
    return v;
}

tw_verdict tw_test_judge(const char *path, const char *req, int status, const char *body, bool sse,
                         const tw_limits *L, tw_check_id id, char *ev, size_t evn, bool every_check)
{
    return judge(NULL, path, req, status, body, sse, L, id, ev, evn, every_check);
}

tw_verdict tw_test_judge_ex(const tw_fx_exchange *ex, const char *path, const char *req, int status,
                            const char *body, bool sse, tw_check_id id, char *ev, size_t evn)
{
    return judge(ex, path, req, status, body, sse, NULL, id, ev, evn, true);
}
