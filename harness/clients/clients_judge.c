/* Client conformance: the driver protocol and the client checks CLT-* (clients.h). */
#include "clients.h"
#include "redact.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "toolwire/json.h"

/* ---- the protocol ---- */

static bool copy_str(const cJSON *o, const char *key, char *dst, size_t n, bool need)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return !need;
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= n)
        return false;
    snprintf(dst, n, "%s", v->valuestring);
    return true;
}

bool tw_driver_mode_streams(const char *mode)
{
    for (const char *p = mode; *p; p++)
        if (strncasecmp(p, "stream", 6) == 0)
            return true;
    return false;
}

static bool mode_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > TW_DRIVER_MODE_LEN)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-'))
            return false;
    return true;
}

bool tw_driver_describe_parse(const char *text, size_t len, tw_driver_info *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *j = NULL;
    if (tw_json_parse(text, len, 16, &j, NULL) != TW_OK || !cJSON_IsObject(j)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe did not print one JSON object");
        cJSON_Delete(j);
        return false;
    }
    bool ok = false;
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(j, "protocol");
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(j, "modes");
    if (!cJSON_IsNumber(pr) || pr->valuedouble != TW_DRIVER_PROTOCOL)
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe: \"protocol\" is not %d",
                     TW_DRIVER_PROTOCOL);
    else if (!copy_str(j, "client", out->client, sizeof out->client, true) ||
             !copy_str(j, "version", out->version, sizeof out->version, true))
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--describe: \"client\" and \"version\" must be strings of 1..63 bytes");
    else if (!copy_str(j, "endpoint", out->endpoint, sizeof out->endpoint, true) ||
             (strcmp(out->endpoint, "openai") != 0 && strcmp(out->endpoint, "anthropic") != 0))
        tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                     "--describe: \"endpoint\" must be \"openai\" or \"anthropic\"");
    else if (!cJSON_IsArray(modes) || cJSON_GetArraySize(modes) < 1 ||
             cJSON_GetArraySize(modes) > TW_DRIVER_MAX_MODES)
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "--describe: \"modes\" must list 1..%d modes",
                     TW_DRIVER_MAX_MODES);
    else {
        ok = true;
        for (const cJSON *m = modes->child; ok && m; m = m->next) {
            if (!cJSON_IsString(m) || !mode_name_ok(m->valuestring)) {
                tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                             "--describe: a mode must match [A-Za-z0-9_-]{1,%d}",
                             TW_DRIVER_MODE_LEN);
                ok = false;
                break;
            }
            for (size_t k = 0; k < out->nmodes; k++)
                if (strcmp(out->modes[k], m->valuestring) == 0) {
                    tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                                 "--describe: mode '%s' listed twice", m->valuestring);
                    ok = false;
                }
            snprintf(out->modes[out->nmodes++], TW_DRIVER_MODE_LEN + 1, "%s", m->valuestring);
        }
    }
    cJSON_Delete(j);
    return ok;
}

static bool str_or_null(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return !v || cJSON_IsNull(v) || cJSON_IsString(v);
}

bool tw_driver_output_valid(const cJSON *out, tw_error *err)
{
    if (!cJSON_IsObject(out)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "the output is not a JSON object");
        return false;
    }
    static const char *const strs[] = {"content", "reasoning", "finish_reason", NULL};
    for (size_t i = 0; strs[i]; i++)
        if (!str_or_null(out, strs[i])) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "\"%s\" is neither a string nor null",
                         strs[i]);
            return false;
        }
    /* without these two the output would read as "no call" or "no error":
     * leaving either out is the driver's failure, not the library's */
    static const char *const need[] = {"tool_calls", "error", NULL};
    for (size_t i = 0; need[i]; i++)
        if (!cJSON_GetObjectItemCaseSensitive(out, need[i])) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                         "\"%s\" is missing (null or [] when there is none)", need[i]);
            return false;
        }
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(out, "tool_calls");
    if (!cJSON_IsNull(tc) && !cJSON_IsArray(tc)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "\"tool_calls\" is not an array");
        return false;
    }
    size_t i = 0;
    for (const cJSON *c = tc->child; c; c = c->next, i++) {
        const cJSON *inv =
            cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "invalid") : NULL;
        if (!cJSON_IsObject(c) || !str_or_null(c, "id") || !str_or_null(c, "name")) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL,
                         "tool_calls[%zu] is not {\"id\", \"name\", \"arguments\"}", i);
            return false;
        }
        if ((inv && !cJSON_IsNull(inv) && !cJSON_IsBool(inv)) ||
            !str_or_null(c, "invalid_reason")) {
            tw_error_set(
                err, TW_ERR_INVALID, -1, NULL,
                "tool_calls[%zu]: \"invalid\" is not a boolean or \"invalid_reason\" not a string",
                i);
            return false;
        }
    }
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(out, "error");
    if (!cJSON_IsNull(e) && !cJSON_IsObject(e)) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "\"error\" is neither an object nor null");
        return false;
    }
    return true;
}

/* ---- the checks ---- */

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *raised(const cJSON *out)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(out, "error");
    return cJSON_IsObject(e) ? e : NULL;
}

void tw_driver_quote(tw_buf *b, const char *s)
{
    tw_buf_putc(b, '"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            tw_buf_printf(b, "\\%c", c);
        else if (c < 0x20)
            tw_buf_printf(b, "\\u%04x", c);
        else
            tw_buf_putc(b, (char)c);
    }
    tw_buf_putc(b, '"');
}

/* A quoted excerpt of s: its first 120 bytes or so, scrubbed first and cut
 * after (tw_secret_clip). */
static void excerpt(tw_buf *b, const char *s)
{
    if (!s) {
        tw_buf_printf(b, "null");
        return;
    }
    size_t n = strlen(s);
    char *c = tw_secret_clip(s, 120);
    tw_driver_quote(b, c ? c : TW_REDACTED);
    free(c);
    if (n > 120)
        tw_buf_printf(b, " (%zu bytes)", n);
}

static void json_excerpt(tw_buf *b, const cJSON *v)
{
    if (!v) {
        tw_buf_printf(b, "(none)");
        return;
    }
    if (cJSON_IsString(v)) {
        excerpt(b, v->valuestring);
        return;
    }
    char *p = cJSON_PrintUnformatted(v);
    char *c = p ? tw_secret_clip(p, 117) : NULL;
    tw_buf_printf(b, "%s", c ? c : p ? TW_REDACTED : "?");
    free(c);
    free(p);
}

static void calls_summary(tw_buf *b, const cJSON *calls)
{
    int n = cJSON_GetArraySize(calls);
    tw_buf_printf(b, "%d call%s", n, n == 1 ? "" : "s");
    int i = 0;
    for (const cJSON *c = calls ? calls->child : NULL; c && i < 8; c = c->next, i++) {
        tw_buf_printf(b, "%s%s %s(", i ? ", " : ": ", jstr(c, "id") ? jstr(c, "id") : "(no id)",
                      jstr(c, "name") ? jstr(c, "name") : "(no name)");
        json_excerpt(b, cJSON_GetObjectItemCaseSensitive(c, "arguments"));
        tw_buf_putc(b, ')');
        /* the library handed the call on but told its caller it is broken */
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "invalid"))) {
            tw_buf_puts(b, " [flagged invalid");
            if (jstr(c, "invalid_reason")) {
                tw_buf_puts(b, ": ");
                excerpt(b, jstr(c, "invalid_reason"));
            }
            tw_buf_putc(b, ']');
        }
    }
    if (n > 8)
        tw_buf_printf(b, ", …");
}

void tw_driver_output_summary(const cJSON *out, tw_buf *b)
{
    const cJSON *e = raised(out);
    if (e) {
        tw_buf_printf(b, "raised %s", jstr(e, "type") ? jstr(e, "type") : "an error");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(e, "status");
        if (cJSON_IsNumber(st))
            tw_buf_printf(b, " (HTTP %d)", st->valueint);
        tw_buf_printf(b, ": ");
        excerpt(b, jstr(e, "message") ? jstr(e, "message") : "");
        return;
    }
    tw_buf_printf(b, "returned ");
    calls_summary(b, cJSON_GetObjectItemCaseSensitive(out, "tool_calls"));
    tw_buf_printf(b, "; content ");
    excerpt(b, jstr(out, "content") ? jstr(out, "content") : "");
    tw_buf_printf(b, "; finish ");
    excerpt(b, jstr(out, "finish_reason"));
}

/* Arguments as a value: a string holding JSON is read; other strings stay strings. */
static cJSON *args_value(const cJSON *a)
{
    if (cJSON_IsString(a)) {
        cJSON *p = NULL;
        const char *s = a->valuestring;
        if (tw_json_parse(s, strlen(s), 64, &p, NULL) == TW_OK &&
            (cJSON_IsObject(p) || cJSON_IsArray(p)))
            return p;
        cJSON_Delete(p);
    }
    return a ? cJSON_Duplicate(a, true) : cJSON_CreateNull();
}

static void put_buf(tw_check_set *s, tw_check_id id, tw_verdict v, tw_buf *b)
{
    tw_check_set_put(s, id, v, -1, "%s", b->data ? b->data : "");
    tw_buf_reset(b);
}

/* CLT-01 on a returned (not raised) output. */
static void judge_calls(const cJSON *want, const cJSON *got, tw_check_set *set)
{
    tw_buf b = {0};
    const cJSON *wc = cJSON_GetObjectItemCaseSensitive(want, "tool_calls");
    const cJSON *gc = cJSON_GetObjectItemCaseSensitive(got, "tool_calls");
    int nw = cJSON_GetArraySize(wc), ng = cJSON_GetArraySize(gc);
    const char *bad = NULL;
    int at = -1;
    const cJSON *w = wc ? wc->child : NULL, *g = gc ? gc->child : NULL;
    for (int i = 0; !bad && w && g; i++, w = w->next, g = g->next) {
        at = i;
        const char *wi = jstr(w, "id"), *gi = jstr(g, "id");
        if (wi && (!gi || strcmp(wi, gi) != 0))
            bad = "id";
        else if (strcmp(jstr(w, "name") ? jstr(w, "name") : "",
                        jstr(g, "name") ? jstr(g, "name") : "") != 0)
            bad = "name";
        else {
            cJSON *wa = args_value(cJSON_GetObjectItemCaseSensitive(w, "arguments"));
            cJSON *ga = args_value(cJSON_GetObjectItemCaseSensitive(g, "arguments"));
            if (!wa || !ga || !tw_json_equal(wa, ga))
                bad = "arguments";
            cJSON_Delete(wa);
            cJSON_Delete(ga);
        }
    }
    if (!bad && nw != ng)
        bad = "count";
    if (!bad) {
        tw_buf_printf(&b, "every call as sent: ");
        calls_summary(&b, gc);
        put_buf(set, TW_CHK_CLT_01, TW_V_PASS, &b);
    } else {
        if (strcmp(bad, "count") == 0)
            tw_buf_printf(&b, "%d calls handed on, %d sent; ", ng, nw);
        else
            tw_buf_printf(&b, "call %d: wrong %s; ", at, bad);
        tw_buf_printf(&b, "client ");
        calls_summary(&b, gc);
        tw_buf_printf(&b, "; right ");
        calls_summary(&b, wc);
        put_buf(set, TW_CHK_CLT_01, TW_V_FAIL, &b);
    }
    tw_buf_free(&b);
}

static void judge_text(tw_check_id id, const char *what, const char *want, const char *got,
                       bool skip_empty, tw_check_set *set)
{
    tw_buf b = {0};
    if (skip_empty && (!want || !*want)) {
        tw_check_set_put(set, id, TW_V_SKIP, -1, "the server sent no %s", what);
        return;
    }
    bool ok = strcmp(want ? want : "", got ? got : "") == 0;
    tw_buf_printf(&b, ok ? "%s as sent: " : "%s changed: client ", what);
    excerpt(&b, got ? got : "");
    if (!ok) {
        tw_buf_printf(&b, "; right ");
        excerpt(&b, want ? want : "");
    }
    put_buf(set, id, ok ? TW_V_PASS : TW_V_FAIL, &b);
    tw_buf_free(&b);
}

static bool has_stream_fault(const cJSON *f)
{
    return f && (cJSON_GetObjectItemCaseSensitive(f, "drop_after_events") ||
                 cJSON_GetObjectItemCaseSensitive(f, "truncate_sse_after_bytes") ||
                 cJSON_GetObjectItemCaseSensitive(f, "malformed_chunk_at"));
}

/* Does the request hand tool results back? */
static bool has_tool_results(const cJSON *body)
{
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(body, "messages");
    for (const cJSON *m = msgs ? msgs->child : NULL; m; m = m->next) {
        const char *role = jstr(m, "role");
        if (role && strcmp(role, "tool") == 0)
            return true;
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
        for (const cJSON *bl = cJSON_IsArray(c) ? c->child : NULL; bl; bl = bl->next)
            if (jstr(bl, "type") && strcmp(jstr(bl, "type"), "tool_result") == 0)
                return true;
    }
    return false;
}

static void judge_from_records(const tw_fx_exchange *x, const tw_mock_record *recs, size_t nrec,
                               tw_check_set *set)
{
    /* CLT-06: the mock's CLI-07 verdict on the retry */
    const cJSON *fsj = x->faults ? cJSON_GetObjectItemCaseSensitive(x->faults, "status") : NULL;
    long fs = cJSON_IsNumber(fsj) ? (long)fsj->valuedouble : 0;
    bool asked = x->faults && cJSON_GetObjectItemCaseSensitive(x->faults, "retry_after") &&
                 (fs == 429 || fs == 503);
    const tw_check_result *cli07 = NULL;
    for (size_t i = 0; i < nrec; i++) {
        const tw_check_result *r = tw_check_set_get(&recs[i].checks, TW_CHK_CLI_07);
        if (r && r->verdict != TW_V_SKIP && (!cli07 || r->verdict == TW_V_FAIL))
            cli07 = r;
    }
    if (!asked)
        tw_check_set_put(set, TW_CHK_CLT_06, TW_V_SKIP, -1,
                         "no 429/503 with Retry-After in this scenario");
    else if (!cli07)
        tw_check_set_put(set, TW_CHK_CLT_06, TW_V_SKIP, -1,
                         "the client did not retry (%zu request%s)", nrec, nrec == 1 ? "" : "s");
    else
        tw_check_set_put(set, TW_CHK_CLT_06, cli07->verdict, -1,
                         "HTTP %ld, Retry-After honoured? mock CLI-07: %s", fs, cli07->evidence);
    /* CLT-07: the mock's CLI-01/02 verdicts on the requests that carried the results */
    if (!has_tool_results(x->req.body)) {
        tw_check_set_put(set, TW_CHK_CLT_07, TW_V_SKIP, -1,
                         "the request hands no tool results back");
        return;
    }
    const tw_check_result *bad = NULL;
    size_t judged = 0;
    for (size_t i = 0; i < nrec && !bad; i++)
        for (tw_check_id id = TW_CHK_CLI_01; id <= TW_CHK_CLI_02; id++) {
            const tw_check_result *r = tw_check_set_get(&recs[i].checks, id);
            if (r && r->verdict == TW_V_FAIL) {
                bad = r;
                break;
            }
            judged += r && r->verdict == TW_V_PASS;
        }
    if (bad)
        tw_check_set_put(set, TW_CHK_CLT_07, TW_V_FAIL, -1, "mock %s: %s", bad->id, bad->evidence);
    else if (judged)
        tw_check_set_put(set, TW_CHK_CLT_07, TW_V_PASS, -1,
                         "every tool result names its call (mock CLI-01/02, %zu request%s)", nrec,
                         nrec == 1 ? "" : "s");
    else
        tw_check_set_put(set, TW_CHK_CLT_07, TW_V_SKIP, -1,
                         "no request of the client reached the mock");
}

void tw_clients_judge(const tw_fx_exchange *x, const cJSON *out, const tw_mock_record *recs,
                      size_t nrec, tw_check_set *set)
{
    const cJSON *ec = x->expect_client;
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(ec, "result");
    const cJSON *err = raised(out);
    tw_buf what = {0}, b = {0};
    tw_driver_output_summary(out, &what);
    if (!what.data)
        tw_buf_printf(&what, "%s", err ? "raised" : "returned");
    if (!what.data) {
        for (tw_check_id k = TW_CHK_CLT_01; k <= TW_CHK_CLT_07; k++)
            tw_check_set_put(set, k, TW_V_SKIP, -1, "out of memory");
        return;
    }
    if (!want) {
        /* an error raised to the caller is the right answer */
        tw_check_id id =
            has_stream_fault(x->faults) || !x->resp.stream ? TW_CHK_CLT_04 : TW_CHK_CLT_05;
        tw_check_id other = id == TW_CHK_CLT_04 ? TW_CHK_CLT_05 : TW_CHK_CLT_04;
        /* the driver's own watchdog (error type DriverTimeout) is no raise: the
         * library neither returned nor raised, it hung */
        const char *et = err ? jstr(err, "type") : NULL;
        bool hung = et && strcmp(et, "DriverTimeout") == 0;
        if (hung)
            err = NULL;
        tw_buf_printf(&b, "client %s; right: raise", what.data);
        if (hung)
            tw_buf_puts(&b, " (the library hung: neither an answer nor an error came back)");
        else if (!err)
            tw_buf_printf(&b, x->resp.stream ? " (the stream %s)" : " (%s)",
                          has_stream_fault(x->faults) ? "was cut or damaged"
                          : x->resp.stream            ? "carried an error event"
                                                      : "the answer is broken");
        put_buf(set, id, err ? TW_V_PASS : TW_V_FAIL, &b);
        tw_check_set_put(set, other, TW_V_SKIP, -1, "not this fault");
        for (tw_check_id k = TW_CHK_CLT_01; k <= TW_CHK_CLT_03; k++)
            tw_check_set_put(set, k, TW_V_SKIP, -1, "an error is the right answer");
    } else {
        tw_check_set_put(set, TW_CHK_CLT_04, TW_V_SKIP, -1, "the answer is whole");
        tw_check_set_put(set, TW_CHK_CLT_05, TW_V_SKIP, -1, "no error event");
        bool may = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ec, "may_raise"));
        const char *wt = jstr(want, "thinking");
        if (err && may) {
            for (tw_check_id k = TW_CHK_CLT_01; k <= TW_CHK_CLT_03; k++)
                tw_check_set_put(set, k, TW_V_SKIP, -1, "client %s (raising is right here too)",
                                 what.data);
        } else if (err) {
            tw_buf_printf(&b, "client %s; right: ", what.data);
            calls_summary(&b, cJSON_GetObjectItemCaseSensitive(want, "tool_calls"));
            put_buf(set, TW_CHK_CLT_01, TW_V_FAIL, &b);
            tw_check_set_put(set, TW_CHK_CLT_02, TW_V_FAIL, -1, "client %s; nothing handed on",
                             what.data);
            if (wt && *wt)
                tw_check_set_put(set, TW_CHK_CLT_03, TW_V_FAIL, -1,
                                 "client %s; the reasoning was lost", what.data);
            else
                tw_check_set_put(set, TW_CHK_CLT_03, TW_V_SKIP, -1, "the server sent no reasoning");
        } else {
            judge_calls(want, out, set);
            judge_text(TW_CHK_CLT_02, "content", jstr(want, "content"), jstr(out, "content"), false,
                       set);
            judge_text(TW_CHK_CLT_03, "reasoning", wt, jstr(out, "reasoning"), true, set);
        }
    }
    judge_from_records(x, recs, nrec, set);
    tw_check_set_sort(set);
    tw_buf_free(&what);
    tw_buf_free(&b);
}
