/*
 * The Mistral model-output dialect (include/toolwire/mistral.h,
 * docs/formats/mistral.md) on the dialect engine (dialect.h):
 *
 *   text      content; [THINK] opens the reasoning, [TOOL_CALLS] a call;
 *             </s> and stray [/THINK], [ARGS], [CALL_ID] are dropped
 *   think     reasoning up to [/THINK] (a [TOOL_CALLS] ends it: warning
 *             think_implicit_end; </s> and [THINK] are dropped)
 *   name      after [TOOL_CALLS]: NAME up to [ARGS], [CALL_ID] or '{';
 *             a '[' that starts no token opens the older JSON array form
 *   id        after [CALL_ID]: ID up to [ARGS]
 *   args      one JSON value, its end found by tw_jscan
 *   skip      after a malformed call: dropped up to the next [TOOL_CALLS],
 *             [THINK] or </s>
 */
#include "toolwire/mistral.h"

#include <string.h>

#include "dialect.h"
#include "utf8.h"
#include "toolwire/json.h"

#define NAME_CAP 256 /* bytes of a name before [ARGS] */
#define ID_CAP 64    /* bytes of an id before [ARGS] */

enum { S_TEXT = 0, S_THINK, S_NAME, S_ID, S_ARGS, S_SKIP };

typedef struct mistral {
    tw_dl dl;
    int st;
    uint64_t resume; /* the current search's resume point (0: none) */
    uint64_t think_at;
    uint64_t sect;    /* the [TOOL_CALLS] of the open call */
    uint64_t name_at; /* name [name_at, name_end) */
    uint64_t name_end;
    uint64_t id_at; /* id [id_at, id_end), id_at 0: none */
    uint64_t id_end;
    uint64_t args_at; /* the first byte of the value (after white space) */
    uint64_t jfed;    /* bytes up to it went through the scanner */
    bool name_seen;   /* name_at is past the leading white space */
    bool args_started;
    bool array_form; /* [TOOL_CALLS][{…}, …] */
    tw_jscan js;
} mistral;

/* the tokens (macros: clang wants constant initialisers) */
#define T_CALLS "[TOOL_CALLS]"
#define T_ARGS "[ARGS]"
#define T_ID "[CALL_ID]"
#define LEN(t) (sizeof(t) - 1)
#define K_CALLS TW_DL_MARK(T_CALLS)
#define K_THINK TW_DL_MARK("[THINK]")
#define K_ENDTHINK TW_DL_MARK("[/THINK]")
#define K_ARGS TW_DL_MARK(T_ARGS)
#define K_ID TW_DL_MARK(T_ID)
#define K_EOS TW_DL_MARK("</s>")
#define K_BRACE TW_DL_MARK("{")

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void start(tw_dl *d)
{
    mistral *m = (mistral *)d;
    if (d->o.forced_open) {
        m->st = S_THINK;
        m->think_at = 0;
    }
}

static tw_status open_call(mistral *m, uint64_t at)
{
    tw_dl *d = &m->dl;
    m->sect = at;
    m->name_at = at + LEN(T_CALLS);
    m->name_end = m->name_at;
    m->id_at = m->id_end = 0;
    m->name_seen = false;
    m->args_started = false;
    m->array_form = false;
    m->resume = 0;
    d->pos = m->name_at;
    m->st = S_NAME;
    return TW_OK;
}

/* A malformed call: the error, then what follows is dropped up to the next
 * call, reasoning or end token. */
static tw_status bad_call(mistral *m, tw_status code, const char *msg, uint64_t drop_to)
{
    tw_dl *d = &m->dl;
    tw_status st = tw_dl_diag(d, true, code, (int64_t)m->sect, msg);
    d->pos = drop_to;
    m->resume = 0;
    m->st = S_SKIP;
    return st;
}

/* A call that ended before its arguments at offset at (a token, or the end). */
static tw_status unterminated(mistral *m, uint64_t at, const char *msg)
{
    tw_dl *d = &m->dl;
    tw_status st = tw_dl_diag(d, true, TW_D_TOOL_CALL_UNTERMINATED, (int64_t)m->sect, msg);
    d->pos = at;
    m->resume = 0;
    m->st = S_TEXT;
    return st;
}

/* A name (or id) is printable ASCII or valid UTF-8 without white space,
 * quotes, brackets or '<': nothing a token could start inside it. */
static bool name_ok(const char *p, size_t n)
{
    size_t first;
    if (tw_utf8_invalid(p, n, &first) != 0)
        return false; /* written as U+FFFD it would be another, longer name */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c <= 0x20 || c == 0x7F || c == '"' || c == '[' || c == ']' || c == '{' || c == '}' ||
            c == '<')
            return false;
    }
    return true;
}

/* The calls of the older array form [{"name", "arguments", "id"}, …] (or one object). */
static tw_status array_calls(mistral *m, const char *p, size_t n)
{
    tw_dl *d = &m->dl;
    cJSON *v = NULL;
    tw_error err = {0};
    tw_status st = tw_json_parse(p, n, d->L.max_depth, &v, &err);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK || !v)
        return tw_dl_diag(d, true, TW_D_TOOL_CALL_JSON, (int64_t)m->sect,
                          "the [TOOL_CALLS] array is not valid JSON");
    const cJSON *items = cJSON_IsArray(v) ? v->child : v;
    for (const cJSON *it = items; it && st == TW_OK; it = cJSON_IsArray(v) ? it->next : NULL) {
        if (!cJSON_IsObject(it)) {
            st = tw_dl_diag(d, true, TW_D_TOOL_CALL_JSON, (int64_t)m->sect,
                            "an item of the [TOOL_CALLS] array is not an object");
            continue;
        }
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(it, "arguments");
        const char *name = cJSON_IsString(nm) ? nm->valuestring : "";
        const char *ident = cJSON_IsString(id) ? id->valuestring : "";
        if (name[0] && !name_ok(name, strlen(name))) {
            st = tw_dl_diag(d, true, TW_D_MISSING_NAME, (int64_t)m->sect,
                            "the call's \"name\" is not a tool name");
            continue;
        }
        if (!name_ok(ident, strlen(ident)))
            ident = ""; /* not an id the Mistral form can carry: one is made */
        if (cJSON_IsString(args)) {
            st = tw_dl_diag(d, false, TW_D_ARGUMENTS_AS_STRING, (int64_t)m->sect, NULL);
            if (st == TW_OK)
                st = tw_dl_call(d, name, strlen(name), ident, strlen(ident), args->valuestring,
                                strlen(args->valuestring), (int64_t)m->sect);
        } else if (!args || cJSON_IsNull(args)) {
            st = tw_dl_call(d, name, strlen(name), ident, strlen(ident), NULL, 0, (int64_t)m->sect);
        } else {
            st = tw_dl_call_value(d, name, strlen(name), ident, strlen(ident), args, n,
                                  (int64_t)m->sect);
        }
    }
    cJSON_Delete(v);
    return st;
}

/* The call whose arguments are [args_at, end). */
static tw_status make_call(mistral *m, uint64_t end)
{
    tw_dl *d = &m->dl;
    const char *args = tw_dl_at(d, m->args_at);
    size_t alen = (size_t)(end - m->args_at);
    if (m->array_form)
        return array_calls(m, args, alen);
    /* the name and id, trimmed */
    uint64_t a = m->name_at, b = m->name_end;
    while (b > a && is_ws(*tw_dl_at(d, b - 1)))
        b--;
    const char *name = tw_dl_at(d, a);
    size_t nlen = (size_t)(b - a);
    if (nlen && !name_ok(name, nlen))
        return tw_dl_diag(d, true, TW_D_MISSING_NAME, (int64_t)m->sect,
                          "the text after [TOOL_CALLS] is not a tool name");
    const char *id = NULL;
    size_t idlen = 0;
    if (m->id_at) {
        uint64_t i = m->id_at, j = m->id_end;
        while (i < j && is_ws(*tw_dl_at(d, i)))
            i++;
        while (j > i && is_ws(*tw_dl_at(d, j - 1)))
            j--;
        id = tw_dl_at(d, i);
        idlen = (size_t)(j - i);
        if (idlen && !name_ok(id, idlen))
            return tw_dl_diag(d, true, TW_D_TOOL_CALL_JSON, (int64_t)m->sect,
                              "the call's [CALL_ID] is not an id");
    }
    return tw_dl_call(d, name, nlen, id, idlen, args, alen, (int64_t)m->sect);
}

static tw_status scan_text(mistral *m, bool final, bool *more)
{
    static const tw_dl_mark mk[] = {K_CALLS, K_THINK, K_ENDTHINK, K_ARGS, K_ID, K_EOS};
    tw_dl *d = &m->dl;
    uint64_t at;
    size_t w = 0;
    tw_dl_hit h = tw_dl_find(d, d->pos, NULL, mk, 6, final, &at, &w);
    tw_status st = tw_dl_text(d, TW_DL_CONTENT, d->pos, (size_t)(at - d->pos));
    d->pos = at;
    if (st != TW_OK || h == TW_DL_NONE) {
        *more = false;
        return st;
    }
    if (w == 0)
        return open_call(m, at);
    d->pos = at + mk[w].n;
    if (w == 1) {
        m->think_at = at;
        m->st = S_THINK;
    }
    return TW_OK; /* [/THINK], [ARGS], [CALL_ID], </s> out of place: dropped */
}

static tw_status scan_think(mistral *m, bool final, bool *more)
{
    static const tw_dl_mark mk[] = {K_ENDTHINK, K_CALLS, K_EOS, K_THINK};
    tw_dl *d = &m->dl;
    uint64_t at;
    size_t w = 0;
    tw_dl_hit h = tw_dl_find(d, d->pos, NULL, mk, 4, final, &at, &w);
    tw_status st = tw_dl_text(d, TW_DL_THINKING, d->pos, (size_t)(at - d->pos));
    d->pos = at;
    if (st != TW_OK || h == TW_DL_NONE) {
        *more = false;
        return st;
    }
    if (w >= 2) { /* </s>, or [THINK] again (forced-open and the model opens it too) */
        d->pos = at + mk[w].n;
        return TW_OK;
    }
    tw_dl_gap(d, TW_DL_THINKING);
    if (w == 1) {
        st = tw_dl_diag(d, false, TW_D_THINK_IMPLICIT_END, (int64_t)at, NULL);
        return st == TW_OK ? open_call(m, at) : st;
    }
    d->pos = at + mk[w].n;
    m->st = S_TEXT;
    return TW_OK;
}

static tw_status scan_name(mistral *m, bool final, bool *more)
{
    tw_dl *d = &m->dl;
    uint64_t end = tw_dl_end(d);
    if (!m->name_seen) {
        while (m->name_at < end && is_ws(*tw_dl_at(d, m->name_at)))
            m->name_at++;
        if (m->name_at == end && !final) {
            *more = false;
            return TW_OK;
        }
        if (m->name_at < end && *tw_dl_at(d, m->name_at) == '{') {
            m->array_form = true; /* one call object */
            m->args_at = m->name_at;
            m->st = S_ARGS;
        } else if (m->name_at < end && *tw_dl_at(d, m->name_at) == '[') {
            /* a token, or the older JSON array */
            static const tw_dl_mark tok[] = {K_ARGS, K_ID, K_CALLS, K_THINK};
            int any = 0;
            for (size_t i = 0; i < 4; i++) {
                int s = tw_dl_starts(d, m->name_at, tok[i].s, tok[i].n, final);
                if (s == 1 || (s == -1 && any == 0))
                    any = s;
                if (s == 1)
                    break;
            }
            if (any == -1) {
                *more = false;
                return TW_OK;
            }
            if (any == 0) {
                m->array_form = true;
                m->args_at = m->name_at;
                m->st = S_ARGS;
            }
        }
        m->name_seen = true;
        if (m->st == S_ARGS)
            return TW_OK;
    }
    static const tw_dl_mark mk[] = {K_ARGS, K_ID, K_BRACE, K_CALLS, K_THINK, K_EOS};
    uint64_t at;
    size_t w = 0;
    tw_dl_hit h = tw_dl_find(d, m->name_at, &m->resume, mk, 6, final, &at, &w);
    if (h == TW_DL_NONE) {
        *more = false;
        if (at - m->name_at > NAME_CAP)
            return bad_call(m, TW_D_TOOL_CALL_UNTERMINATED,
                            "no [ARGS] after the call's name within 256 bytes", at);
        if (final)
            return unterminated(m, end, "the input ends before the call's [ARGS]");
        return TW_OK;
    }
    if (at - m->name_at > NAME_CAP) /* first, as a split input decides it */
        return bad_call(m, TW_D_TOOL_CALL_UNTERMINATED,
                        "no [ARGS] after the call's name within 256 bytes", at);
    if (w >= 3)
        return unterminated(m, at, "a token before the call's [ARGS]");
    m->name_end = at;
    m->resume = 0;
    if (w == 1) {
        m->id_at = at + LEN(T_ID);
        m->st = S_ID;
    } else {
        m->args_at = w == 0 ? at + LEN(T_ARGS) : at;
        m->st = S_ARGS;
    }
    return TW_OK;
}

static tw_status scan_id(mistral *m, bool final, bool *more)
{
    static const tw_dl_mark mk[] = {K_ARGS, K_BRACE, K_CALLS, K_THINK, K_EOS};
    tw_dl *d = &m->dl;
    uint64_t at;
    size_t w = 0;
    tw_dl_hit h = tw_dl_find(d, m->id_at, &m->resume, mk, 5, final, &at, &w);
    if (h == TW_DL_NONE || at - m->id_at > ID_CAP) {
        *more = false;
        if (at - m->id_at > ID_CAP)
            return bad_call(m, TW_D_TOOL_CALL_UNTERMINATED,
                            "no [ARGS] after the call's id within 64 bytes", at);
        if (final)
            return unterminated(m, tw_dl_end(d), "the input ends before the call's [ARGS]");
        return TW_OK;
    }
    if (w >= 2)
        return unterminated(m, at, "a token before the call's [ARGS]");
    m->id_end = at;
    m->args_at = w == 0 ? at + LEN(T_ARGS) : at;
    m->resume = 0;
    m->st = S_ARGS;
    return TW_OK;
}

static tw_status scan_args(mistral *m, bool final, bool *more)
{
    tw_dl *d = &m->dl;
    uint64_t end = tw_dl_end(d);
    if (!m->args_started) {
        while (m->args_at < end && is_ws(*tw_dl_at(d, m->args_at)))
            m->args_at++;
        if (m->args_at == end) {
            *more = false;
            return final ? unterminated(m, end, "the input ends before the call's arguments")
                         : TW_OK;
        }
        memset(&m->js, 0, sizeof m->js);
        m->js.max_depth = d->L.max_depth;
        m->jfed = m->args_at;
        m->args_started = true;
    }
    /* the scanner reads at most cap + 1 bytes of the value: past them it
     * is too large, however the input was split */
    uint64_t cap = 2 * (uint64_t)d->L.max_args_bytes + 4096;
    uint64_t lim = m->args_at + cap + 1;
    uint64_t upto = end < lim ? end : lim;
    size_t used = 0;
    tw_jscan_result r =
        tw_jscan_feed(&m->js, tw_dl_at(d, m->jfed), (size_t)(upto - m->jfed), &used);
    if (r == TW_JSCAN_MORE) {
        m->jfed = upto;
        *more = false;
        if (upto == lim)
            return bad_call(m, TW_D_ARGS_TOO_LARGE, NULL, lim);
        if (final)
            return unterminated(m, end, "the input ends inside the call's arguments");
        return TW_OK;
    }
    uint64_t stop = m->jfed + used;
    if (r == TW_JSCAN_INVALID)
        return bad_call(m, TW_D_TOOL_CALL_JSON,
                        m->array_form ? "the [TOOL_CALLS] array is not valid JSON"
                                      : "the call's arguments are not valid JSON",
                        stop);
    if (r == TW_JSCAN_TOO_DEEP)
        return bad_call(m, TW_D_JSON_TOO_DEEP, NULL, stop);
    tw_status st = make_call(m, stop);
    d->pos = stop;
    m->resume = 0;
    m->st = S_TEXT;
    return st;
}

static tw_status scan_skip(mistral *m, bool final, bool *more)
{
    static const tw_dl_mark mk[] = {K_CALLS, K_THINK, K_EOS};
    tw_dl *d = &m->dl;
    uint64_t at;
    tw_dl_hit h = tw_dl_find(d, d->pos, NULL, mk, 3, final, &at, NULL);
    d->pos = at;
    if (h == TW_DL_NONE)
        *more = false;
    else
        m->st = S_TEXT;
    return TW_OK;
}

static tw_status scan(tw_dl *d, bool final)
{
    mistral *m = (mistral *)d;
    bool more = true;
    tw_status st = TW_OK;
    while (st == TW_OK && more) {
        switch (m->st) {
        case S_TEXT: st = scan_text(m, final, &more); break;
        case S_THINK: st = scan_think(m, final, &more); break;
        case S_NAME: st = scan_name(m, final, &more); break;
        case S_ID: st = scan_id(m, final, &more); break;
        case S_ARGS: st = scan_args(m, final, &more); break;
        default: st = scan_skip(m, final, &more); break;
        }
    }
    /* the bytes of an open call are held from its [TOOL_CALLS] */
    if (m->st == S_NAME || m->st == S_ID || m->st == S_ARGS)
        d->pos = m->sect;
    return st;
}

static tw_status end(tw_dl *d)
{
    mistral *m = (mistral *)d;
    if (m->st == S_THINK)
        return tw_dl_diag(d, true, TW_D_THINK_UNTERMINATED, (int64_t)m->think_at, NULL);
    return TW_OK;
}

static const tw_dialect mistral_dialect = {"mistral", sizeof(mistral), start, scan, end};

TW_DIALECT_MODULE(mistral, mistral_dialect, tw_format_mistral, "mistral",
                  "Mistral model text: [THINK] reasoning, [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{json}")
