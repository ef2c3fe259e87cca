/* Parser conformance: the parser checks PRS-01..PRS-07 and the expected differences (parsers.h). */
#include "parsers.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "redact.h"
#include "toolwire/json.h"

/* How much of a text the evidence quotes. */
#define EXCERPT 80

/* ---- reading a message ---- */

static const char *text_of(const cJSON *m, const char *key)
{
    const char *s = tw_json_get_str(m, key);
    return s ? s : "";
}

static const cJSON *calls_of(const cJSON *m)
{
    return tw_json_get(m, "tool_calls");
}

static const char *error_of(const cJSON *m, char *buf, size_t n)
{
    const cJSON *e = tw_json_get(m, "error");
    if (!cJSON_IsObject(e))
        return NULL;
    snprintf(buf, n, "%s: %s", text_of(e, "type"), text_of(e, "message"));
    return buf;
}

/* s[0, n) JSON-quoted onto b, at most EXCERPT bytes of it from `from`, scrubbed. */
static void quote(tw_buf *b, const char *s, size_t n, size_t from)
{
    if (from > n)
        from = n;
    size_t take = n - from < EXCERPT ? n - from : EXCERPT;
    char *c = tw_strndup(s + from, take);
    char *x = c ? tw_secret_clip(c, take) : NULL;
    if (from)
        tw_buf_puts(b, "…");
    tw_json_write_str(b, x ? x : "", x ? strlen(x) : 0, 0);
    if (from + take < n)
        tw_buf_puts(b, "…");
    free(x);
    free(c);
}

/* ---- PRS-01..PRS-05 ---- */

static void names_list(tw_buf *b, const cJSON *calls, const tw_result *ref)
{
    size_t n = calls ? (size_t)cJSON_GetArraySize(calls) : ref->msg.ncalls, i = 0;
    tw_buf_printf(b, "%zu call%s", n, n == 1 ? "" : "s");
    const cJSON *c = calls ? calls->child : NULL;
    for (; i < n && i < 8; i++) {
        const char *nm = calls ? text_of(c, "name") : ref->msg.calls[i].name;
        tw_buf_printf(b, "%s%.60s", i ? ", " : ": ", nm ? nm : "");
        if (c)
            c = c->next;
    }
    if (i < n)
        tw_buf_puts(b, ", …");
}

/* The parser's arguments as a JSON value: an object as is, a string parsed
 * (*owned set to free); NULL when a string does not parse. */
static const cJSON *args_value(const cJSON *a, size_t max_depth, cJSON **owned)
{
    *owned = NULL;
    if (!cJSON_IsString(a))
        return a;
    if (tw_json_parse(a->valuestring, strlen(a->valuestring), max_depth, owned, NULL) != TW_OK)
        return NULL;
    return *owned;
}

static void text_check(tw_check_set *set, tw_check_id id, const char *what, const char *got,
                       const char *want, size_t wlen)
{
    size_t glen = strlen(got);
    if (glen == wlen && memcmp(got, want, glen) == 0) {
        tw_check_set_put(set, id, TW_V_PASS, -1, "%s equal (%zu bytes)", what, glen);
        return;
    }
    size_t at = 0;
    while (at < glen && at < wlen && got[at] == want[at])
        at++;
    size_t from = at > 20 ? at - 20 : 0;
    tw_buf b = {0};
    tw_buf_printf(&b, "%s: parser ", what);
    quote(&b, got, glen, from);
    tw_buf_puts(&b, ", reference ");
    quote(&b, want, wlen, from);
    tw_buf_printf(&b, " (they part at byte %zu)", at);
    tw_check_set_put(set, id, TW_V_FAIL, -1, "%s", b.data ? b.data : what);
    tw_buf_free(&b);
}

void tw_parser_judge_final(const cJSON *m, const tw_result *ref, size_t max_depth,
                           tw_check_set *set)
{
    const cJSON *calls = calls_of(m);
    size_t n = (size_t)cJSON_GetArraySize(calls), nr = ref->msg.ncalls;
    /* PRS-01: count and names */
    bool names = n == nr;
    const cJSON *c = calls->child;
    for (size_t i = 0; names && i < n; i++, c = c->next)
        names =
            strcmp(text_of(c, "name"), ref->msg.calls[i].name ? ref->msg.calls[i].name : "") == 0;
    tw_buf b = {0};
    tw_buf_puts(&b, "parser ");
    names_list(&b, calls, ref);
    tw_buf_puts(&b, "; reference ");
    names_list(&b, NULL, ref);
    tw_check_set_put(set, TW_CHK_PRS_01, names ? TW_V_PASS : TW_V_FAIL, -1, "%s",
                     b.data ? b.data : "");
    tw_buf_free(&b);
    /* PRS-02: arguments, pair by pair */
    size_t np = n < nr ? n : nr;
    bool args_ok = true;
    c = calls->child;
    for (size_t i = 0; args_ok && i < np; i++, c = c->next) {
        cJSON *owned = NULL;
        const cJSON *a = tw_json_get(c, "arguments");
        const cJSON *v = args_value(a, max_depth, &owned);
        if (!v || !tw_json_equal(v, ref->msg.calls[i].arguments)) {
            args_ok = false;
            char *gs = cJSON_IsString(a) ? NULL : tw_json_print(a, NULL);
            char *rs = tw_json_print(ref->msg.calls[i].arguments, NULL);
            tw_buf_printf(&b, "call %zu %.60s: parser ", i, text_of(c, "name"));
            const char *g = cJSON_IsString(a) ? a->valuestring : gs ? gs : "";
            quote(&b, g, strlen(g), 0);
            tw_buf_puts(&b, !v                  ? " (a string that is not JSON)"
                            : cJSON_IsString(a) ? " (a string)"
                                                : "");
            tw_buf_puts(&b, ", reference ");
            quote(&b, rs ? rs : "", rs ? strlen(rs) : 0, 0);
            free(gs);
            free(rs);
        }
        cJSON_Delete(owned);
    }
    if (!args_ok)
        tw_check_set_put(set, TW_CHK_PRS_02, TW_V_FAIL, -1, "%s", b.data ? b.data : "");
    else if (np == 0 && (n || nr))
        tw_check_set_put(set, TW_CHK_PRS_02, TW_V_SKIP, -1, "no pair of calls to compare (PRS-01)");
    else
        tw_check_set_put(set, TW_CHK_PRS_02, TW_V_PASS, -1, "%zu call%s with equal arguments", np,
                         np == 1 ? "" : "s");
    tw_buf_free(&b);
    /* PRS-03, PRS-04 */
    text_check(set, TW_CHK_PRS_03, "content", text_of(m, "content"),
               ref->msg.content.data ? ref->msg.content.data : "", ref->msg.content.len);
    text_check(set, TW_CHK_PRS_04, "reasoning", text_of(m, "reasoning"),
               ref->msg.thinking.data ? ref->msg.thinking.data : "", ref->msg.thinking.len);
    /* PRS-05: a throw where the reference refuses nothing */
    char eb[300];
    const char *err = error_of(m, eb, sizeof eb);
    char *ec = err ? tw_secret_clip(err, 200) : NULL;
    if (!err)
        tw_check_set_put(set, TW_CHK_PRS_05, TW_V_PASS, -1, "the parser did not throw");
    else if (ref->errors.len)
        tw_check_set_put(set, TW_CHK_PRS_05, TW_V_PASS, -1,
                         "the parser threw (%s) where the reference refuses too (%s)",
                         ec ? ec : TW_REDACTED, tw_code_name(ref->errors.items[0].code));
    else
        tw_check_set_put(set, TW_CHK_PRS_05, TW_V_FAIL, -1,
                         "the parser threw (%s); the reference reads the text without an error",
                         ec ? ec : TW_REDACTED);
    free(ec);
}

/* ---- PRS-06: never retract ---- */

static bool is_prefix(const char *a, const char *b)
{
    size_t n = strlen(a);
    return strncmp(a, b, n) == 0;
}

/* Does b retract a? why says what when it does. */
static bool retracts(const cJSON *a, const cJSON *b, tw_buf *why)
{
    static const char *const texts[] = {"content", "reasoning"};
    for (size_t i = 0; i < 2; i++) {
        const char *x = text_of(a, texts[i]), *y = text_of(b, texts[i]);
        if (!is_prefix(x, y)) {
            size_t at = 0;
            while (x[at] && x[at] == y[at])
                at++;
            size_t from = at > 20 ? at - 20 : 0;
            tw_buf_printf(why, "%s ", texts[i]);
            quote(why, x, strlen(x), from);
            tw_buf_puts(why, " then ");
            quote(why, y, strlen(y), from);
            return true;
        }
    }
    const cJSON *ca = calls_of(a), *cb = calls_of(b);
    int na = cJSON_GetArraySize(ca), nb = cJSON_GetArraySize(cb);
    if (nb < na) {
        tw_buf_printf(why, "%d call%s shown, then %d", na, na == 1 ? "" : "s", nb);
        return true;
    }
    const cJSON *x = ca->child, *y = cb->child;
    for (int i = 0; x; i++, x = x->next, y = y->next) {
        const char *nx = text_of(x, "name"), *ny = text_of(y, "name");
        if (nx[0] && strcmp(nx, ny) != 0) {
            tw_buf_printf(why, "call %d renamed \"%.60s\" to \"%.60s\"", i, nx, ny);
            return true;
        }
        const cJSON *ax = tw_json_get(x, "arguments"), *ay = tw_json_get(y, "arguments");
        const char *what = NULL;
        if (cJSON_IsString(ax) && cJSON_IsString(ay) &&
            !is_prefix(ax->valuestring, ay->valuestring))
            what = "no longer extend the ones shown";
        else if (cJSON_IsObject(ax) && cJSON_IsString(ay))
            what = "went back from an object to a string";
        else if (cJSON_IsObject(ax) && !tw_json_equal(ax, ay))
            what = "changed after they were shown as an object";
        if (what) {
            char *sx = cJSON_IsString(ax) ? NULL : tw_json_print(ax, NULL);
            char *sy = cJSON_IsString(ay) ? NULL : tw_json_print(ay, NULL);
            const char *px = sx ? sx : cJSON_IsString(ax) ? ax->valuestring : "";
            const char *py = sy ? sy : cJSON_IsString(ay) ? ay->valuestring : "";
            tw_buf_printf(why, "call %d (%.60s): its arguments %s: ", i, ny, what);
            quote(why, px, strlen(px), 0);
            tw_buf_puts(why, " then ");
            quote(why, py, strlen(py), 0);
            free(sx);
            free(sy);
            return true;
        }
    }
    return false;
}

void tw_parser_judge_stream(const cJSON *const *msgs, size_t n, tw_check_set *set)
{
    tw_buf why = {0};
    for (size_t i = 0; i + 1 < n; i++) {
        if (retracts(msgs[i], msgs[i + 1], &why)) {
            char at[64];
            if (i + 2 == n)
                snprintf(at, sizeof at, "the final message after piece %zu", i);
            else
                snprintf(at, sizeof at, "piece %zu after piece %zu", i + 1, i);
            tw_check_set_put(set, TW_CHK_PRS_06, TW_V_FAIL, -1, "%s retracts: %s", at,
                             why.data ? why.data : "");
            tw_buf_free(&why);
            return;
        }
    }
    tw_check_set_put(set, TW_CHK_PRS_06, TW_V_PASS, -1, "%zu messages, nothing retracted", n);
}

/* ---- PRS-07: streamed final = one-piece final ---- */

void tw_parser_judge_same(const cJSON *streamed, const cJSON *whole, tw_check_set *set)
{
    static const char *const texts[] = {"content", "reasoning"};
    tw_buf why = {0};
    for (size_t i = 0; i < 2 && !why.len; i++) {
        const char *x = text_of(streamed, texts[i]), *y = text_of(whole, texts[i]);
        if (strcmp(x, y) != 0) {
            size_t at = 0;
            while (x[at] && x[at] == y[at])
                at++;
            size_t from = at > 20 ? at - 20 : 0;
            tw_buf_printf(&why, "%s: streamed ", texts[i]);
            quote(&why, x, strlen(x), from);
            tw_buf_puts(&why, ", one piece ");
            quote(&why, y, strlen(y), from);
        }
    }
    const cJSON *cs = calls_of(streamed), *cw = calls_of(whole);
    if (!why.len && cJSON_GetArraySize(cs) != cJSON_GetArraySize(cw))
        tw_buf_printf(&why, "streamed %d calls, one piece %d", cJSON_GetArraySize(cs),
                      cJSON_GetArraySize(cw));
    const cJSON *x = cs->child, *y = cw->child;
    for (int i = 0; !why.len && x && y; i++, x = x->next, y = y->next) {
        if (strcmp(text_of(x, "name"), text_of(y, "name")) != 0)
            tw_buf_printf(&why, "call %d: streamed \"%.60s\", one piece \"%.60s\"", i,
                          text_of(x, "name"), text_of(y, "name"));
        else if (!tw_json_equal(tw_json_get(x, "arguments"), tw_json_get(y, "arguments"))) {
            char *sx = tw_json_print(tw_json_get(x, "arguments"), NULL);
            char *sy = tw_json_print(tw_json_get(y, "arguments"), NULL);
            tw_buf_printf(&why, "call %d (%.60s) arguments: streamed ", i, text_of(x, "name"));
            quote(&why, sx ? sx : "", sx ? strlen(sx) : 0, 0);
            tw_buf_puts(&why, ", one piece ");
            quote(&why, sy ? sy : "", sy ? strlen(sy) : 0, 0);
            free(sx);
            free(sy);
        }
    }
    char e1[300], e2[300];
    const char *es = error_of(streamed, e1, sizeof e1), *ew = error_of(whole, e2, sizeof e2);
    if (!why.len && (es != NULL) != (ew != NULL))
        tw_buf_printf(&why, "the parser threw %s",
                      es ? "streamed, not in one piece" : "in one piece, not streamed");
    if (why.len)
        tw_check_set_put(set, TW_CHK_PRS_07, TW_V_FAIL, -1, "%s", why.data);
    else
        tw_check_set_put(set, TW_CHK_PRS_07, TW_V_PASS, -1,
                         "the streamed final message equals the one-piece one");
    tw_buf_free(&why);
}

/* ---- expected differences ---- */

void tw_parser_expect_free(tw_parser_expect *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->d[i].fixture);
        free(e->d[i].rule);
        free(e->d[i].what);
        free(e->d[i].reason);
    }
    free(e->d);
    free(e->path);
    memset(e, 0, sizeof *e);
}

/* A string member: absent gives dflt (NULL: required); false when of the wrong type or empty. */
static bool str_member(const cJSON *o, const char *key, const char *dflt, char **out)
{
    const cJSON *v = tw_json_get(o, key);
    *out = NULL;
    if (!v && dflt)
        return (*out = tw_strdup(dflt)) != NULL;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return false;
    return (*out = tw_strdup(v->valuestring)) != NULL;
}

static bool read_diff(const cJSON *o, tw_parser_diff *d, char *why, size_t n)
{
    const cJSON *checks = tw_json_get(o, "checks");
    char *dialect = NULL, *mode = NULL;
    bool ok = false;
    if (!cJSON_IsObject(o))
        snprintf(why, n, "not an object");
    else if (!str_member(o, "dialect", "*", &dialect) ||
             (strcmp(dialect, "*") != 0 && !tw_parser_is_dialect(dialect)))
        snprintf(why, n, "dialect must be a text decoder's name or *");
    else if (!str_member(o, "fixture", "*", &d->fixture))
        snprintf(why, n, "fixture must be a non-empty glob");
    else if (tw_json_get(o, "rule") && !str_member(o, "rule", NULL, &d->rule))
        snprintf(why, n, "rule must be a non-empty glob");
    else if (tw_json_get(o, "mode") &&
             (!str_member(o, "mode", NULL, &mode) ||
              (strcmp(mode, "whole") != 0 && strcmp(mode, "stream") != 0)))
        snprintf(why, n, "mode must be whole or stream");
    else if (!str_member(o, "what", NULL, &d->what) || !str_member(o, "reason", NULL, &d->reason))
        snprintf(why, n, "what and reason are required, non-empty strings");
    else if (!cJSON_IsArray(checks) || cJSON_GetArraySize(checks) < 1 ||
             cJSON_GetArraySize(checks) > TW_PARSER_DIFF_CHECKS)
        snprintf(why, n, "checks must be an array of 1-%d PRS ids", TW_PARSER_DIFF_CHECKS);
    else {
        ok = true;
        for (const cJSON *c = checks->child; c && ok; c = c->next) {
            tw_check_id id;
            const tw_check_def *def;
            if (!cJSON_IsString(c) || !tw_check_from_name(c->valuestring, &id) ||
                !(def = tw_check_def_of(id)) || def->family != TW_CHF_PARSER) {
                snprintf(why, n, "checks: %.40s is not a parser check (PRS-01..PRS-08)",
                         cJSON_IsString(c) ? c->valuestring : "a non-string");
                ok = false;
            } else {
                d->checks[d->nchecks++] = id;
            }
        }
    }
    if (ok) {
        snprintf(d->dialect, sizeof d->dialect, "%s", dialect);
        d->mode = !mode ? 0 : strcmp(mode, "whole") == 0 ? 1 : 2;
    }
    free(dialect);
    free(mode);
    return ok;
}

static bool copy_parser(const cJSON *v, char dst[64])
{
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= 64)
        return false;
    snprintf(dst, 64, "%s", v->valuestring);
    return true;
}

bool tw_parser_expect_load(const char *path, size_t max_depth, tw_parser_expect *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    cJSON *j = tw_load_json_file(path, (size_t)4 << 20, max_depth, err);
    if (!j)
        return false;
    const cJSON *diffs = tw_json_get(j, "differences");
    char why[200] = "";
    if (!cJSON_IsObject(j) || !copy_parser(tw_json_get(j, "parser"), out->parser))
        snprintf(why, sizeof why, "parser must be a string of 1-63 bytes");
    else if (!cJSON_IsArray(diffs) || cJSON_GetArraySize(diffs) > TW_PARSER_MAX_DIFFS)
        snprintf(why, sizeof why, "differences must be an array of at most %d entries",
                 TW_PARSER_MAX_DIFFS);
    else if (!(out->path = tw_strdup(path)) ||
             !(out->d = calloc((size_t)cJSON_GetArraySize(diffs) + 1, sizeof *out->d)))
        snprintf(why, sizeof why, "out of memory");
    else {
        size_t i = 0;
        char w[160];
        for (const cJSON *d = diffs->child; d && !why[0]; d = d->next, i++) {
            out->n++;
            if (!read_diff(d, &out->d[i], w, sizeof w))
                snprintf(why, sizeof why, "differences[%zu]: %s", i, w);
        }
    }
    cJSON_Delete(j);
    if (why[0]) {
        tw_error_file(err, TW_ERR_INVALID, -1, path, "%s: %s", path, why);
        tw_parser_expect_free(out);
        return false;
    }
    return true;
}

tw_parser_diff *tw_parser_expect_match(tw_parser_expect *e, const char *dialect,
                                       const char *fixture, const char *rule, bool stream,
                                       tw_check_id c)
{
    for (size_t i = 0; e && i < e->n; i++) {
        tw_parser_diff *d = &e->d[i];
        if ((d->mode == 1 && stream) || (d->mode == 2 && !stream))
            continue;
        if (strcmp(d->dialect, "*") != 0 && strcmp(d->dialect, dialect) != 0)
            continue;
        if (fnmatch(d->fixture, fixture, 0) != 0)
            continue;
        if (d->rule && (!rule || fnmatch(d->rule, rule, 0) != 0))
            continue;
        for (size_t k = 0; k < d->nchecks; k++)
            if (d->checks[k] == c)
                return d;
    }
    return NULL;
}
