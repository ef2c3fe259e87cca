/*
 * Fixture validation (fixture.h), the parts that say what an exchange
 * expects: live-run settings, call-id placeholders, the expected calls and
 * checks, client expectations and injected faults.
 */
#include "fixture_int.h"

#include "checks.h"

static bool check_id_ok(const char *s)
{
    /* "OAI-R04", "SES-01", "CLI-07": 3 upper-case letters, '-', then letters/digits */
    size_t n = strlen(s);
    if (n < 5 || n > 16 || s[3] != '-')
        return false;
    for (size_t i = 0; i < 3; i++)
        if (s[i] < 'A' || s[i] > 'Z')
            return false;
    for (size_t i = 4; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
            return false;
    return s[n - 1] >= '0' && s[n - 1] <= '9';
}

/* A boolean member: -1 when absent. */
static tw_status get_bool(vctx *c, const cJSON *obj, const char *path, const char *key, int *out)
{
    *out = -1;
    const cJSON *v = tw_json_get(obj, key);
    if (!v)
        return TW_OK;
    if (!cJSON_IsBool(v)) {
        char kp[TW_JP];
        tw_fix_sub_key(kp, sizeof kp, path, key);
        return tw_fix_fail_at(c, kp, false, "expected true or false, got %s", tw_fix_kind_of(v));
    }
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return TW_OK;
}

static tw_status read_live(vctx *c, const cJSON *j, const char *path, tw_fx_live *lv)
{
    static const char *const keys[] = {"tool_called", "calls", "arguments_valid", "text",
                                       "reasoning", "agrees_with", NULL};
    if (tw_fix_want_object(c, j, path) != TW_OK || tw_fix_only_keys(c, j, path, keys) != TW_OK)
        return TW_ERR_INVALID;
    lv->json = j;
    lv->calls_min = lv->calls_max = lv->agrees_with = -1;
    char kp[TW_JP];
    const cJSON *tc = tw_json_get(j, "tool_called");
    if (tc) {
        tw_fix_sub_key(kp, sizeof kp, path, "tool_called");
        size_t n = cJSON_IsString(tc) ? 1 : cJSON_IsArray(tc) ? (size_t)cJSON_GetArraySize(tc) : 0;
        if (!n)
            return tw_fix_fail_at(c, kp, false, "expected a tool name or a non-empty array of tool names, got %s",
                           cJSON_IsArray(tc) ? "an empty array" : tw_fix_kind_of(tc));
        if (n > c->lim.max_calls)
            return tw_fix_fail_at(c, kp, false, "at most %zu names (max_calls), got %zu", c->lim.max_calls, n);
        lv->tool_called = calloc(n, sizeof *lv->tool_called);
        if (!lv->tool_called)
            return tw_fix_fail_at(c, kp, false, "out of memory");
        size_t i = 0;
        for (const cJSON *t = cJSON_IsString(tc) ? tc : tc->child; t && i < n; t = t->next, i++) {
            char ip[TW_JP];
            if (cJSON_IsArray(tc))
                tw_fix_sub_idx(ip, sizeof ip, kp, i);
            else
                snprintf(ip, sizeof ip, "%s", kp);
            if (!cJSON_IsString(t) || !t->valuestring[0])
                return tw_fix_fail_at(c, ip, false, "expected a non-empty tool name, got %s",
                               cJSON_IsString(t) ? "\"\"" : tw_fix_kind_of(t));
            lv->tool_called[i] = t->valuestring;
            lv->ntool_called = i + 1;
        }
    }
    const cJSON *calls = tw_json_get(j, "calls");
    if (calls) {
        static const char *const ckeys[] = {"min", "max", NULL};
        tw_fix_sub_key(kp, sizeof kp, path, "calls");
        if (tw_fix_want_object(c, calls, kp) != TW_OK || tw_fix_only_keys(c, calls, kp, ckeys) != TW_OK)
            return TW_ERR_INVALID;
        if (!calls->child)
            return tw_fix_fail_at(c, kp, false, "expected 'min', 'max' or both");
        long hi = (long)c->lim.max_calls;
        bool has_min = false, has_max = false;
        if (tw_fix_get_int(c, calls, kp, "min", 0, hi, false, &lv->calls_min, &has_min) != TW_OK ||
            tw_fix_get_int(c, calls, kp, "max", 0, hi, false, &lv->calls_max, &has_max) != TW_OK)
            return TW_ERR_INVALID;
        if (!has_min)
            lv->calls_min = -1;
        if (!has_max)
            lv->calls_max = -1;
        if (has_min && has_max && lv->calls_min > lv->calls_max) {
            char mp[TW_JP];
            tw_fix_sub_key(mp, sizeof mp, kp, "max");
            return tw_fix_fail_at(c, mp, false, "max %ld is below min %ld", lv->calls_max, lv->calls_min);
        }
    }
    int av = -1;
    if (get_bool(c, j, path, "arguments_valid", &av) != TW_OK ||
        get_bool(c, j, path, "text", &lv->text) != TW_OK ||
        get_bool(c, j, path, "reasoning", &lv->reasoning) != TW_OK)
        return TW_ERR_INVALID;
    if (av == 0) {
        tw_fix_sub_key(kp, sizeof kp, path, "arguments_valid");
        return tw_fix_fail_at(c, kp, false, "expected true (leave the key out to not judge arguments)");
    }
    lv->arguments_valid = av == 1;
    bool has_aw = false;
    if (tw_fix_get_int(c, j, path, "agrees_with", 0, (long)c->lim.max_messages, false, &lv->agrees_with,
                &has_aw) != TW_OK)
        return TW_ERR_INVALID;
    if (!has_aw)
        lv->agrees_with = -1;
    return TW_OK;
}

/* Every "$call_id[…]" string of a request body: well formed and naming an
 * earlier exchange. */
tw_status tw_fix_walk_placeholders(vctx *c, const cJSON *v, char *path, size_t k, size_t *count,
                                   size_t depth)
{
    if (depth > c->lim.max_depth)
        return TW_OK; /* the parser already capped the depth */
    if (cJSON_IsString(v)) {
        if (strncmp(v->valuestring, TW_CALL_ID_PLACEHOLDER, strlen(TW_CALL_ID_PLACEHOLDER)) != 0)
            return TW_OK;
        size_t e = 0, call = 0;
        if (!tw_call_id_placeholder(v->valuestring, &e, &call))
            return tw_fix_fail_at(c, path, false,
                           "expected a placeholder \"$call_id[E]\" or \"$call_id[E][C]\", got \"%.80s\"",
                           v->valuestring);
        if (e >= k)
            return tw_fix_fail_at(c, path, false,
                           "\"%.80s\" names exchange %zu: a placeholder names an earlier exchange (below %zu)",
                           v->valuestring, e, k);
        if (call >= c->lim.max_calls)
            return tw_fix_fail_at(c, path, false, "\"%.80s\": call index above max_calls (%zu)",
                           v->valuestring, c->lim.max_calls);
        (*count)++;
        return TW_OK;
    }
    size_t len = strlen(path);
    size_t i = 0;
    for (const cJSON *m = v->child; m; m = m->next, i++) {
        if (cJSON_IsArray(v))
            snprintf(path + len, TW_JP - len, "[%zu]", i);
        else
            snprintf(path + len, TW_JP - len, ".%s", m->string);
        if (tw_fix_walk_placeholders(c, m, path, k, count, depth + 1) != TW_OK)
            return TW_ERR_INVALID;
        path[len] = '\0';
    }
    return TW_OK;
}

/* expect.client: {"result": NEUTRAL RESULT, "may_raise": bool} or {"raises": true} */
static tw_status read_expect_client(vctx *c, const cJSON *j, const char *path)
{
    static const char *const keys[] = {"result", "raises", "may_raise", NULL};
    if (tw_fix_want_object(c, j, path) != TW_OK || tw_fix_only_keys(c, j, path, keys) != TW_OK)
        return TW_ERR_INVALID;
    const cJSON *res = tw_json_get(j, "result");
    const cJSON *raises = tw_json_get(j, "raises");
    const cJSON *may = tw_json_get(j, "may_raise");
    char sp[TW_JP];
    if ((raises && !cJSON_IsBool(raises)) || (may && !cJSON_IsBool(may))) {
        tw_fix_sub_key(sp, sizeof sp, path, raises && !cJSON_IsBool(raises) ? "raises" : "may_raise");
        return tw_fix_fail_at(c, sp, false, "expected true or false");
    }
    bool r = cJSON_IsTrue(raises);
    if (r == (res != NULL))
        return tw_fix_fail_at(c, path, false, "expected either \"result\" or \"raises\": true");
    if (!res)
        return TW_OK;
    /* a neutral result, except that arguments may be a string that is not JSON (what a
     * client hands on unparsed) */
    tw_fix_sub_key(sp, sizeof sp, path, "result");
    static const char *const rkeys[] = {"content", "thinking", "tool_calls", "finish_reason", NULL};
    if (tw_fix_want_object(c, res, sp) != TW_OK || tw_fix_only_keys(c, res, sp, rkeys) != TW_OK)
        return TW_ERR_INVALID;
    for (size_t i = 0; i < 3; i++) {
        static const char *const sk[] = {"content", "thinking", "finish_reason"};
        const cJSON *v = tw_json_get(res, sk[i]);
        if (v && !cJSON_IsString(v))
            return tw_fix_fail_at(c, sp, false, "'%s' must be a string", sk[i]);
    }
    const cJSON *tc = tw_json_get(res, "tool_calls");
    if (tc && (!cJSON_IsArray(tc) || (size_t)cJSON_GetArraySize(tc) > c->lim.max_calls))
        return tw_fix_fail_at(c, sp, false, "'tool_calls' must be an array of at most %zu calls", c->lim.max_calls);
    static const char *const ckeys[] = {"id", "name", "arguments", NULL};
    size_t i = 0;
    for (const cJSON *k = tc ? tc->child : NULL; k; k = k->next, i++) {
        char tp[TW_JP], kp[TW_JP];
        tw_fix_sub_key(tp, sizeof tp, sp, "tool_calls");
        tw_fix_sub_idx(kp, sizeof kp, tp, i);
        const cJSON *a = tw_json_get(k, "arguments");
        if (tw_fix_want_object(c, k, kp) != TW_OK || tw_fix_only_keys(c, k, kp, ckeys) != TW_OK)
            return TW_ERR_INVALID;
        if (!cJSON_IsString(tw_json_get(k, "name")) || (tw_json_get(k, "id") && !cJSON_IsString(tw_json_get(k, "id"))))
            return tw_fix_fail_at(c, kp, false, "a call needs a string 'name' (and 'id', when given, a string)");
        if (!cJSON_IsObject(a) && !cJSON_IsString(a))
            return tw_fix_fail_at(c, kp, false, "'arguments' must be an object or a string");
    }
    return TW_OK;
}

tw_status tw_fix_read_expect(vctx *c, const cJSON *j, const char *path, tw_fx_exchange *x)
{
    static const char *const keys[] = {"result", "failing_checks", "live", "client", NULL};
    if (tw_fix_want_object(c, j, path) != TW_OK || tw_fix_only_keys(c, j, path, keys) != TW_OK)
        return TW_ERR_INVALID;
    const cJSON *cl = tw_json_get(j, "client");
    if (cl) {
        char cp[TW_JP];
        tw_fix_sub_key(cp, sizeof cp, path, "client");
        if (read_expect_client(c, cl, cp) != TW_OK)
            return TW_ERR_INVALID;
        x->expect_client = cl;
    }
    const cJSON *lv = tw_json_get(j, "live");
    if (lv) {
        char lp[TW_JP];
        tw_fix_sub_key(lp, sizeof lp, path, "live");
        if (read_live(c, lv, lp, &x->live) != TW_OK)
            return TW_ERR_INVALID;
    }
    const cJSON *res = tw_json_get(j, "result");
    if (res) {
        char rp[TW_JP];
        tw_fix_sub_key(rp, sizeof rp, path, "result");
        static const char *const rkeys[] = {"content", "thinking", "thinking_signature",
                                            "tool_calls", "finish_reason", "errors",
                                            "warnings", NULL};
        if (tw_fix_want_object(c, res, rp) != TW_OK || tw_fix_only_keys(c, res, rp, rkeys) != TW_OK)
            return TW_ERR_INVALID;
        tw_result tmp;
        tw_error inner;
        if (tw_result_read(res, &c->lim, &tmp, &inner) != TW_OK)
            return tw_fix_fail_at(c, rp, false, "not a neutral result: %s", inner.message);
        tw_result_free(&tmp);
        x->expect_result = res;
    }
    const cJSON *fc = tw_json_get(j, "failing_checks");
    if (!fc)
        return TW_OK;
    char fp[TW_JP];
    tw_fix_sub_key(fp, sizeof fp, path, "failing_checks");
    if (!cJSON_IsArray(fc))
        return tw_fix_fail_at(c, fp, false, "expected an array, got %s", tw_fix_kind_of(fc));
    size_t n = (size_t)cJSON_GetArraySize(fc);
    if (n == 0)
        return TW_OK;
    x->expect_fail = calloc(n, sizeof *x->expect_fail);
    if (!x->expect_fail)
        return tw_fix_fail_at(c, fp, false, "out of memory");
    x->nexpect_fail = n;
    size_t i = 0;
    static const char *const ckeys[] = {"id", "reason", NULL};
    for (const cJSON *e = fc->child; e; e = e->next, i++) {
        char ep[TW_JP];
        tw_fix_sub_idx(ep, sizeof ep, fp, i);
        if (tw_fix_want_object(c, e, ep) != TW_OK || tw_fix_only_keys(c, e, ep, ckeys) != TW_OK)
            return TW_ERR_INVALID;
        if (tw_fix_get_str(c, e, ep, "id", true, true, &x->expect_fail[i].check) != TW_OK ||
            tw_fix_get_str(c, e, ep, "reason", true, true, &x->expect_fail[i].reason) != TW_OK)
            return TW_ERR_INVALID;
        char ip[TW_JP];
        tw_fix_sub_key(ip, sizeof ip, ep, "id");
        if (!check_id_ok(x->expect_fail[i].check))
            return tw_fix_fail_at(c, ip, false, "expected a check id like \"OAI-R04\", got \"%s\"",
                           x->expect_fail[i].check);
        /* a misspelt id would never match a verdict: refused, not skipped */
        if (!tw_check_find(x->expect_fail[i].check))
            return tw_fix_fail_at(c, ip, false, "unknown check id \"%s\" (not in the check catalog)",
                                  x->expect_fail[i].check);
        for (size_t k = 0; k < i; k++)
            if (strcmp(x->expect_fail[k].check, x->expect_fail[i].check) == 0)
                return tw_fix_fail_at(c, ip, false, "check \"%s\" is listed twice",
                               x->expect_fail[i].check);
    }
    return TW_OK;
}

tw_status tw_fix_read_faults(vctx *c, const cJSON *j, const char *path, tw_fx_exchange *x)
{
    static const char *const keys[] = {"delay_ms", "drop_after_events", "truncate_sse_after_bytes",
                                       "status", "retry_after", "malformed_chunk_at", NULL};
    if (tw_fix_want_object(c, j, path) != TW_OK || tw_fix_only_keys(c, j, path, keys) != TW_OK)
        return TW_ERR_INVALID;
    long v;
    if (tw_fix_get_int(c, j, path, "delay_ms", 0, 600000, false, &v, NULL) != TW_OK ||
        tw_fix_get_int(c, j, path, "drop_after_events", 0, 1L << 30, false, &v, NULL) != TW_OK ||
        tw_fix_get_int(c, j, path, "truncate_sse_after_bytes", 0, 1L << 30, false, &v, NULL) != TW_OK ||
        tw_fix_get_int(c, j, path, "status", 100, 599, false, &v, NULL) != TW_OK ||
        tw_fix_get_int(c, j, path, "retry_after", 0, 86400, false, &v, NULL) != TW_OK ||
        tw_fix_get_int(c, j, path, "malformed_chunk_at", 0, 1L << 30, false, &v, NULL) != TW_OK)
        return TW_ERR_INVALID;
    x->faults = j;
    return TW_OK;
}
