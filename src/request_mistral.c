/*
 * The reader "mistral-small-3.2-prompt" (include/toolwire/mistral.h): a
 * prompt the Mistral Small 3.2 chat template rendered, read back into the
 * neutral request that renders it again (docs/formats/mistral.md). It
 * builds the request's JSON and reads it with tw_request_read.
 */
#include "toolwire/mistral.h"

#include <string.h>

#include "alloc.h"
#include "formats.h"
#include "toolwire/json.h"

#define SMALL "mistral-small-3.2-prompt"
#define SYS_DATE_AT "The current date is "

typedef struct rd {
    const char *p, *end, *buf;
    tw_error *err;
    size_t depth;
} rd;

static bool eat(rd *r, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, lit, n) != 0)
        return false;
    r->p += n;
    return true;
}

static tw_status fail(rd *r, const char *what)
{
    tw_error_set(r->err, TW_ERR_PARSE, (int64_t)(r->p - r->buf), NULL, SMALL ": %s", what);
    return TW_ERR_PARSE;
}

/* The text up to `close` (not included; p moves past it), or NULL. */
static const char *upto(rd *r, const char *close, size_t *n)
{
    const char *hit = tw_memmem(r->p, (size_t)(r->end - r->p), close, strlen(close));
    if (!hit)
        return NULL;
    const char *s = r->p;
    *n = (size_t)(hit - s);
    r->p = hit + strlen(close);
    return s;
}

static cJSON *str_item(const char *s, size_t n)
{
    char *t = tw_strndup(s, n);
    cJSON *v = t ? cJSON_CreateString(t) : NULL;
    tw_free(t);
    return v;
}

/* Add v to o under k; v is freed when that fails (out of memory). */
static bool add_item(cJSON *o, const char *k, cJSON *v)
{
    if (!v)
        return false;
    if (cJSON_AddItemToObject(o, k, v))
        return true;
    cJSON_Delete(v);
    return false;
}

static bool add_str(cJSON *o, const char *k, const char *s, size_t n)
{
    return add_item(o, k, str_item(s, n));
}

/* The default system prompt with some date: the date, else NULL. */
static const char *default_date(const char *s, size_t n, size_t *dn)
{
    static const char tmpl_probe[] = "You are Mistral Small 3, a Large Language Model";
    if (n < sizeof tmpl_probe - 1 || memcmp(s, tmpl_probe, sizeof tmpl_probe - 1) != 0)
        return NULL;
    const char *at = tw_memmem(s, n, SYS_DATE_AT, strlen(SYS_DATE_AT));
    if (!at)
        return NULL;
    const char *d = at + strlen(SYS_DATE_AT);
    const char *dot = memchr(d, '.', (size_t)(s + n - d));
    if (!dot)
        return NULL;
    *dn = (size_t)(dot - d);
    return d;
}

static tw_status turns(rd *r, cJSON *req, cJSON *msgs);

static tw_status body(rd *r, cJSON *req)
{
    cJSON *msgs = cJSON_AddArrayToObject(req, "messages");
    if (!msgs)
        return TW_ERR_NOMEM;
    size_t n = 0;
    const char *s = NULL;
    eat(r, "<s>");
    /* the template always writes one; a prompt without it has no system message */
    if (!eat(r, "[SYSTEM_PROMPT]"))
        return turns(r, req, msgs);
    if (!(s = upto(r, "[/SYSTEM_PROMPT]", &n)))
        return fail(r, "[SYSTEM_PROMPT] is not closed");
    /* the default prompt is the template's own; its date goes to options.today */
    size_t dn;
    const char *date = default_date(s, n, &dn);
    bool is_default = false;
    if (date) {
        tw_request probe;
        memset(&probe, 0, sizeof probe);
        probe.parallel_tool_calls = -1;
        cJSON *opts = cJSON_CreateObject();
        if (!opts || !add_str(opts, "today", date, dn)) {
            cJSON_Delete(opts);
            return TW_ERR_NOMEM;
        }
        probe.options = opts;
        tw_buf again = {0};
        tw_status st = tw_mistral_small_prompt_encode(&probe, NULL, &again);
        probe.options = NULL;
        is_default = st == TW_OK && again.len == n + 35 &&
                     memcmp(again.data + 18, s, n) == 0; /* <s>[SYSTEM_PROMPT] … [/SYSTEM_PROMPT] */
        tw_buf_free(&again);
        if (st == TW_ERR_NOMEM) {
            cJSON_Delete(opts);
            return st;
        }
        if (!is_default)
            cJSON_Delete(opts);
        else if (!add_item(req, "options", opts))
            return TW_ERR_NOMEM;
    }
    if (!is_default) {
        cJSON *m = cJSON_CreateObject();
        if (!m || !cJSON_AddItemToArray(msgs, m) || !cJSON_AddStringToObject(m, "role", "system") ||
            !add_str(m, "content", s, n))
            return TW_ERR_NOMEM;
    }
    return turns(r, req, msgs);
}

/* The turns after the system prompt. */
static tw_status turns(rd *r, cJSON *req, cJSON *msgs)
{
    size_t n, dn;
    const char *s;
    while (r->p < r->end) {
        cJSON *m = cJSON_CreateObject();
        if (!m || !cJSON_AddItemToArray(msgs, m))
            return TW_ERR_NOMEM;
        if (eat(r, "[SYSTEM_PROMPT]")) {
            if (!(s = upto(r, "[/SYSTEM_PROMPT]", &n)))
                return fail(r, "[SYSTEM_PROMPT] is not closed");
            if (!cJSON_AddStringToObject(m, "role", "system") || !add_str(m, "content", s, n))
                return TW_ERR_NOMEM;
        } else if (eat(r, "[AVAILABLE_TOOLS]") || eat(r, "[INST]")) {
            if (r->p[-1] == ']' && r->p[-2] == 'S') { /* [AVAILABLE_TOOLS] */
                if (!(s = upto(r, "[/AVAILABLE_TOOLS]", &n)))
                    return fail(r, "[AVAILABLE_TOOLS] is not closed");
                cJSON *tools = NULL;
                tw_error je = {0};
                if (tw_json_parse(s, n, r->depth, &tools, &je) != TW_OK || !cJSON_IsArray(tools)) {
                    cJSON_Delete(tools);
                    return fail(r, "[AVAILABLE_TOOLS] does not hold a JSON array");
                }
                cJSON *flat = cJSON_CreateArray();
                for (cJSON *t = tools->child; flat && t; t = t->next) {
                    cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
                    cJSON *dup = cJSON_Duplicate(fn ? fn : t, true);
                    if (!dup || !cJSON_AddItemToArray(flat, dup)) {
                        cJSON_Delete(dup);
                        cJSON_Delete(flat);
                        flat = NULL;
                    }
                }
                cJSON_Delete(tools);
                if (!flat)
                    return TW_ERR_NOMEM;
                cJSON_DeleteItemFromObject(req, "tools");
                if (!add_item(req, "tools", flat))
                    return TW_ERR_NOMEM;
                if (!eat(r, "[INST]"))
                    return fail(r, "[AVAILABLE_TOOLS] is not followed by [INST]");
            }
            if (!(s = upto(r, "[/INST]", &n)))
                return fail(r, "[INST] is not closed");
            if (!cJSON_AddStringToObject(m, "role", "user") || !add_str(m, "content", s, n))
                return TW_ERR_NOMEM;
        } else if (eat(r, "[TOOL_RESULTS]")) {
            const char *id = upto(r, "[TOOL_CONTENT]", &dn);
            if (!id || !(s = upto(r, "[/TOOL_RESULTS]", &n)))
                return fail(r, "[TOOL_RESULTS] is not closed");
            if (!cJSON_AddStringToObject(m, "role", "tool") ||
                !add_str(m, "tool_call_id", id, dn) || !add_str(m, "content", s, n))
                return TW_ERR_NOMEM;
        } else if (r->end - r->p >= 12 && memcmp(r->p, "[TOOL_CALLS]", 12) == 0) {
            cJSON *calls = cJSON_CreateArray();
            if (!add_item(m, "tool_calls", calls) ||
                !cJSON_AddStringToObject(m, "role", "assistant") ||
                !cJSON_AddStringToObject(m, "content", ""))
                return TW_ERR_NOMEM;
            while (eat(r, "[TOOL_CALLS]")) {
                const char *name = upto(r, "[CALL_ID]", &n);
                size_t idn;
                const char *id = name ? upto(r, "[ARGS]", &idn) : NULL;
                if (!id)
                    return fail(r, "a call without [CALL_ID] and [ARGS]");
                size_t used = 0;
                tw_jscan js;
                memset(&js, 0, sizeof js);
                js.max_depth = r->depth;
                if (tw_jscan_feed(&js, r->p, (size_t)(r->end - r->p), &used) != TW_JSCAN_DONE)
                    return fail(r, "a call's arguments are not one JSON value");
                cJSON *args = NULL;
                tw_error je = {0};
                if (tw_json_parse(r->p, used, r->depth, &args, &je) != TW_OK)
                    return fail(r, "a call's arguments are not JSON");
                r->p += used;
                cJSON *c = cJSON_CreateObject();
                if (!c || !cJSON_AddItemToArray(calls, c)) {
                    cJSON_Delete(c);
                    cJSON_Delete(args);
                    return TW_ERR_NOMEM;
                }
                if (!add_item(c, "arguments", args) || !add_str(c, "id", id, idn) ||
                    !add_str(c, "name", name, n))
                    return TW_ERR_NOMEM;
            }
            if (!eat(r, "</s>"))
                return fail(r, "the calls are not followed by </s>");
        } else {
            if (!(s = upto(r, "</s>", &n)))
                return fail(r, "an assistant turn without </s>");
            if (!cJSON_AddStringToObject(m, "role", "assistant") || !add_str(m, "content", s, n))
                return TW_ERR_NOMEM;
        }
    }
    return TW_OK;
}

tw_status tw_mistral_small_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_request *out, tw_error *err)
{
    tw_limits L;
    tw_limits_resolve(&L, o ? &o->limits : NULL);
    memset(out, 0, sizeof *out);
    out->parallel_tool_calls = -1;
    if (err) {
        memset(err, 0, sizeof *err);
        err->offset = -1;
    }
    rd r = {buf ? buf : "", (buf ? buf : "") + len, buf ? buf : "", err, L.max_depth};
    if (len > L.max_input_bytes) {
        tw_error_set(err, TW_ERR_LIMIT, -1, NULL,
                     SMALL ": the prompt is more than max_input_bytes");
        return TW_ERR_LIMIT;
    }
    cJSON *req = cJSON_CreateObject();
    tw_status st = req ? body(&r, req) : TW_ERR_NOMEM;
    if (st == TW_OK)
        st = tw_request_read(req, &L, out, err);
    else if (st == TW_ERR_NOMEM)
        tw_error_set(err, st, -1, NULL, SMALL ": out of memory");
    cJSON_Delete(req);
    return st;
}
