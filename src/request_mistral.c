/*
 * The readers "mistral-small-3.2-prompt", "devstral-small-prompt" and
 * "ministral-3-reasoning-prompt" (include/toolwire/mistral.h): a prompt one
 * of the Mistral chat templates rendered, read back into the neutral
 * request that renders it again (docs/formats/mistral.md). One reader over
 * the templates' differences (tw_mistral_tmpl, mistral_text.h); it builds
 * the request's JSON and reads it with tw_request_read.
 */
#include "toolwire/mistral.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "formats.h"
#include "mistral_text.h"
#include "request_read.h"
#include "tw_macros.h"
#include "toolwire/json.h"

#define SYS_DATE_AT "The current date is "

typedef struct rd {
    const char *p, *end, *buf;
    tw_error *err;
    size_t depth;
    const tw_mistral_tmpl *t;
    size_t ncalls;  /* calls read so far (a template without ids: the N of call_N) */
    cJSON *pending; /* the calls of the last call turn, the next one a result answers */
    size_t nmsg;    /* messages read so far */
    /* the texts holding a NUL byte, which a cJSON string ends at: put back
     * into the request as they stand once it is read (at most two a message,
     * max_messages + 1 messages; past that the request is refused anyway) */
    struct nul_text {
        size_t msg;
        bool thinking;
        const char *s;
        size_t n;
    } * nul;
    size_t nnul, nul_cap, nul_max;
} rd;

static bool eat(rd *r, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, lit, n) != 0)
        return false;
    r->p += n;
    return true;
}

static tw_status fail_at(rd *r, const char *at, const char *what)
{
    tw_error_set(r->err, TW_ERR_INVALID, (int64_t)(at - r->buf), NULL, "%s: %s", r->t->name, what);
    return TW_ERR_INVALID;
}

/* A name, an id or JSON cannot hold a NUL byte (a JSON reader takes one
 * between tokens as white space): refused where it is, never cut short. */
static tw_status no_nul(rd *r, const char *s, size_t n, const char *what)
{
    const char *z = memchr(s, '\0', n);
    return z ? fail_at(r, z, what) : TW_OK;
}

/* JSON text [s, s + n): a byte a JSON reader would drop (a NUL, a control
 * byte between tokens: tw_rq_json_stray) is refused where it is, with its
 * code, never dropped. */
static tw_status json_clean(rd *r, const char *s, size_t n, const char *what)
{
    size_t z = tw_rq_json_stray(s, n);
    if (z == n)
        return TW_OK;
    tw_error_set(r->err, s[z] ? TW_D_JSON_NOT_RFC8259 : TW_D_JSON_NUL, (int64_t)(s + z - r->buf),
                 NULL, "%s: %s at byte %zu in %s", r->t->name,
                 s[z] ? "a control byte between JSON tokens" : "a NUL byte",
                 (size_t)(s + z - r->buf), what);
    return TW_ERR_INVALID;
}

static tw_status fail(rd *r, const char *what)
{
    tw_error_set(r->err, TW_ERR_INVALID, (int64_t)(r->p - r->buf), NULL, "%s: %s", r->t->name,
                 what);
    return TW_ERR_INVALID;
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

/* The content or thinking of the message being read; a text holding a NUL
 * byte is noted, to be put back whole. TW_OK or TW_ERR_NOMEM. */
static tw_status add_text(rd *r, cJSON *m, const char *k, const char *s, size_t n)
{
    if (memchr(s, '\0', n) && r->nnul < r->nul_max) {
        if (r->nnul == r->nul_cap) {
            size_t cap = r->nul_cap ? 2 * r->nul_cap : 4;
            struct nul_text *grown = tw_realloc(r->nul, cap * sizeof *grown);
            if (!grown)
                return TW_ERR_NOMEM;
            r->nul = grown;
            r->nul_cap = cap;
        }
        struct nul_text nt = {r->nmsg - 1, strcmp(k, "thinking") == 0, s, n};
        r->nul[r->nnul++] = nt;
    }
    return add_str(m, k, s, n) ? TW_OK : TW_ERR_NOMEM;
}

/* Put the noted texts back into the request read, byte for byte. */
static tw_status put_back_nul(const rd *r, tw_request *out)
{
    for (size_t i = 0; i < r->nnul; i++) {
        const struct nul_text *nt = &r->nul[i];
        if (nt->msg >= out->nmessages)
            continue; /* (one message a JSON message: never) */
        tw_message *m = &out->messages[nt->msg];
        tw_buf *b = nt->thinking ? &m->thinking : &m->content;
        b->len = 0;
        TRY(tw_buf_append(b, nt->s, nt->n));
    }
    return TW_OK;
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

/* Whether s[0, n) is the template's default system prompt: Small's with its
 * date (moved to options.today), the others' as written. */
static tw_status is_default_sys(rd *r, cJSON *req, const char *s, size_t n, bool *yes)
{
    *yes = false;
    if (!r->t->dated) {
        *yes = strlen(r->t->sys) == n && memcmp(r->t->sys, s, n) == 0;
        return TW_OK;
    }
    size_t dn;
    const char *date = default_date(s, n, &dn);
    if (!date)
        return TW_OK;
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
    *yes = st == TW_OK && again.len == n + 35 &&
           memcmp(again.data + 18, s, n) == 0; /* <s>[SYSTEM_PROMPT] … [/SYSTEM_PROMPT] */
    tw_buf_free(&again);
    if (st == TW_ERR_NOMEM || !*yes) {
        cJSON_Delete(opts);
        return st == TW_ERR_NOMEM ? st : TW_OK;
    }
    return add_item(req, "options", opts) ? TW_OK : TW_ERR_NOMEM;
}

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
    /* the default prompt is the template's own: no system message */
    bool is_default = false;
    TRY(is_default_sys(r, req, s, n, &is_default));
    if (!is_default) {
        cJSON *m = cJSON_CreateObject();
        if (!m || !cJSON_AddItemToArray(msgs, m))
            return TW_ERR_NOMEM;
        r->nmsg++;
        if (!cJSON_AddStringToObject(m, "role", "system"))
            return TW_ERR_NOMEM;
        TRY(add_text(r, m, "content", s, n));
    }
    return turns(r, req, msgs);
}

/* [AVAILABLE_TOOLS] (eaten) …[/AVAILABLE_TOOLS]: the request's tools. */
static tw_status read_tools(rd *r, cJSON *req)
{
    size_t n;
    const char *s = upto(r, "[/AVAILABLE_TOOLS]", &n);
    if (!s)
        return fail(r, "[AVAILABLE_TOOLS] is not closed");
    TRY(json_clean(r, s, n, "[AVAILABLE_TOOLS]"));
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
    /* Small writes them right before a user turn */
    if (!r->t->tools_first && !(r->end - r->p >= 6 && memcmp(r->p, "[INST]", 6) == 0))
        return fail(r, "[AVAILABLE_TOOLS] is not followed by [INST]");
    return TW_OK;
}

/* One call after its [TOOL_CALLS] (eaten) into the array calls. */
static tw_status read_call(rd *r, cJSON *calls)
{
    size_t n = 0, idn = 0;
    const char *name = upto(r, r->t->ids ? "[CALL_ID]" : "[ARGS]", &n);
    const char *id = name && r->t->ids ? upto(r, "[ARGS]", &idn) : NULL;
    if (!name || (r->t->ids && !id))
        return fail(r, r->t->ids ? "a call without [CALL_ID] and [ARGS]" : "a call without [ARGS]");
    TRY(no_nul(r, name, n, "a NUL byte in a call's name"));
    if (id)
        TRY(no_nul(r, id, idn, "a NUL byte in a call's id"));
    size_t used = 0;
    tw_jscan js;
    memset(&js, 0, sizeof js);
    js.max_depth = r->depth;
    if (tw_jscan_feed(&js, r->p, (size_t)(r->end - r->p), &used) != TW_JSCAN_DONE)
        return fail(r, "a call's arguments are not one JSON value");
    TRY(json_clean(r, r->p, used, "a call's arguments"));
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
    /* a template without ids: the reader's own, which results take in order */
    char own[32];
    r->ncalls++;
    snprintf(own, sizeof own, "call_%zu", r->ncalls);
    if (!add_item(c, "arguments", args) ||
        !add_str(c, "id", id ? id : own, id ? idn : strlen(own)) || !add_str(c, "name", name, n))
        return TW_ERR_NOMEM;
    return TW_OK;
}

/* An assistant turn, up to and with its </s>, into m. */
static tw_status assistant(rd *r, cJSON *m)
{
    size_t n;
    const char *s;
    if (!cJSON_AddStringToObject(m, "role", "assistant"))
        return TW_ERR_NOMEM;
    if (r->t->think && eat(r, "[THINK]")) {
        if (!(s = upto(r, "[/THINK]", &n)))
            return fail(r, "[THINK] is not closed");
        TRY(add_text(r, m, "thinking", s, n));
    }
    size_t left = (size_t)(r->end - r->p);
    const char *eos = tw_memmem(r->p, left, "</s>", 4);
    /* Small writes calls alone; the others after the content */
    const char *tc = tw_memmem(
        r->p, r->t->content_beside ? (eos ? (size_t)(eos - r->p) : left) : (left < 12 ? left : 12),
        "[TOOL_CALLS]", 12);
    if (!tc) {
        if (!(s = upto(r, "</s>", &n)))
            return fail(r, "an assistant turn without </s>");
        return add_text(r, m, "content", s, n);
    }
    TRY(add_text(r, m, "content", r->p, (size_t)(tc - r->p)));
    r->p = tc;
    cJSON *calls = cJSON_CreateArray();
    if (!add_item(m, "tool_calls", calls))
        return TW_ERR_NOMEM;
    while (eat(r, "[TOOL_CALLS]"))
        TRY(read_call(r, calls));
    r->pending = calls->child;
    if (!eat(r, "</s>"))
        return fail(r, "the calls are not followed by </s>");
    return TW_OK;
}

/* [TOOL_RESULTS] (eaten) …[/TOOL_RESULTS] into m: Small's id as written,
 * else the id of the next call the results have not answered ("" past
 * them). */
static tw_status result(rd *r, cJSON *m)
{
    size_t n = 0, dn = 0;
    const char *s, *id = r->t->ids ? upto(r, "[TOOL_CONTENT]", &dn) : NULL;
    if ((r->t->ids && !id) || !(s = upto(r, "[/TOOL_RESULTS]", &n)))
        return fail(r, "[TOOL_RESULTS] is not closed");
    if (!id) {
        const cJSON *cid = r->pending ? cJSON_GetObjectItemCaseSensitive(r->pending, "id") : NULL;
        id = cJSON_IsString(cid) ? cid->valuestring : "";
        dn = strlen(id);
        r->pending = r->pending ? r->pending->next : NULL;
    }
    if (r->t->ids)
        TRY(no_nul(r, id, dn, "a NUL byte in a result's id"));
    if (!cJSON_AddStringToObject(m, "role", "tool") || !add_str(m, "tool_call_id", id, dn))
        return TW_ERR_NOMEM;
    return add_text(r, m, "content", s, n);
}

/* The turns after the system prompt. */
static tw_status turns(rd *r, cJSON *req, cJSON *msgs)
{
    size_t n;
    const char *s;
    while (r->p < r->end) {
        if (eat(r, "[AVAILABLE_TOOLS]")) {
            TRY(read_tools(r, req));
            continue;
        }
        cJSON *m = cJSON_CreateObject();
        if (!m || !cJSON_AddItemToArray(msgs, m))
            return TW_ERR_NOMEM;
        r->nmsg++;
        if (eat(r, "[SYSTEM_PROMPT]")) {
            if (!(s = upto(r, "[/SYSTEM_PROMPT]", &n)))
                return fail(r, "[SYSTEM_PROMPT] is not closed");
            if (!cJSON_AddStringToObject(m, "role", "system"))
                return TW_ERR_NOMEM;
            TRY(add_text(r, m, "content", s, n));
        } else if (eat(r, "[INST]")) {
            if (!(s = upto(r, "[/INST]", &n)))
                return fail(r, "[INST] is not closed");
            if (!cJSON_AddStringToObject(m, "role", "user"))
                return TW_ERR_NOMEM;
            TRY(add_text(r, m, "content", s, n));
        } else if (eat(r, "[TOOL_RESULTS]")) {
            TRY(result(r, m));
        } else {
            TRY(assistant(r, m));
        }
    }
    return TW_OK;
}

static tw_status decode_with(const tw_mistral_tmpl *t, const char *buf, size_t len,
                             const tw_decode_opts *o, tw_request *out, tw_error *err)
{
    tw_limits L;
    tw_limits_resolve(&L, o ? &o->limits : NULL);
    memset(out, 0, sizeof *out);
    out->parallel_tool_calls = -1;
    if (err) {
        memset(err, 0, sizeof *err);
        err->offset = -1;
    }
    rd r;
    memset(&r, 0, sizeof r);
    r.p = r.buf = buf ? buf : "";
    r.end = r.p + len;
    r.err = err;
    r.depth = L.max_depth;
    r.t = t;
    r.nul_max = 2 * (L.max_messages + 1);
    if (len > L.max_input_bytes) {
        tw_error_set(err, TW_ERR_LIMIT, -1, NULL, "%s: the prompt is more than max_input_bytes",
                     t->name);
        return TW_ERR_LIMIT;
    }
    cJSON *req = cJSON_CreateObject();
    tw_status st = req ? body(&r, req) : TW_ERR_NOMEM;
    if (st == TW_OK)
        st = tw_request_read(req, &L, out, err);
    else if (st == TW_ERR_NOMEM)
        tw_error_set(err, st, -1, NULL, "%s: out of memory", t->name);
    if (st == TW_OK && (st = put_back_nul(&r, out)) != TW_OK) {
        tw_request_free(out);
        tw_error_set(err, st, -1, NULL, "%s: out of memory", t->name);
    }
    cJSON_Delete(req);
    tw_free(r.nul);
    return st;
}

tw_status tw_mistral_small_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                         tw_request *out, tw_error *err)
{
    return decode_with(&tw_mistral_small_tmpl, buf, len, o, out, err);
}

tw_status tw_devstral_small_prompt_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                          tw_request *out, tw_error *err)
{
    return decode_with(&tw_mistral_devstral_tmpl, buf, len, o, out, err);
}

tw_status tw_ministral3_reasoning_prompt_decode(const char *buf, size_t len,
                                                const tw_decode_opts *o, tw_request *out,
                                                tw_error *err)
{
    return decode_with(&tw_mistral_ministral_tmpl, buf, len, o, out, err);
}

const tw_request_reader_ops tw_reader_devstral_small_prompt = {
    "devstral-small-prompt", "the Devstral Small prompt (as its chat template renders it)",
    tw_devstral_small_prompt_decode};
const tw_request_reader_ops tw_reader_ministral3_reasoning_prompt = {
    "ministral-3-reasoning-prompt",
    "the Ministral 3 reasoning prompt (as its chat template renders it)",
    tw_ministral3_reasoning_prompt_decode};
