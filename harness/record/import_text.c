/* Model text among imported traffic (import_text.h). */
#include "import_text.h"

#include <string.h>

#include "apis.h"
#include "checks.h"
#include "toolwire/encode.h"
#include "toolwire/json.h"
#include "toolwire/registry.h"

/* Does t hold a Qwen3-Coder XML call: <tool_call> then, after optional
 * whitespace, <function=. */
static bool holds_qwen_xml(const char *t, size_t n)
{
    const char *p = t;
    while ((p = tw_memmem(p, n - (size_t)(p - t), "<tool_call>", 11)) != NULL) {
        p += 11;
        const char *q = p;
        while (q < t + n && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t'))
            q++;
        if ((size_t)(t + n - q) >= 10 && memcmp(q, "<function=", 10) == 0)
            return true;
    }
    return false;
}

/* Append the string s (when it is one) to b. */
static tw_status put_str(tw_buf *b, const cJSON *s)
{
    return cJSON_IsString(s) ? tw_buf_puts(b, s->valuestring) : TW_OK;
}

/* The text the model wrote as the recorded response shows it: a chat
 * completion's content (the stream's content deltas joined) with its
 * reasoning, or a /generate body's response (or text[0]). Bounded by
 * max_input_bytes. */
static tw_status recorded_text(const tw_fx_exchange *x, const tw_limits *L, tw_buf *content,
                               tw_buf *reasoning)
{
    content->max = reasoning->max = L->max_input_bytes;
    tw_api_kind kind = tw_path_kind(x->req.path);
    const tw_fx_response *r = &x->resp;
    tw_status st = TW_OK;
    if (kind == TW_API_GENERATE && r->body) {
        const cJSON *t = tw_json_get(r->body, "response");
        if (!cJSON_IsString(t))
            t = cJSON_GetArrayItem(tw_json_get(r->body, "text"), 0);
        st = put_str(content, t);
        if (st == TW_OK)
            st = put_str(reasoning, tw_json_get(r->body, "thinking"));
        return st;
    }
    if (kind != TW_API_OPENAI)
        return TW_OK;
    if (r->body) {
        const cJSON *m =
            tw_json_get(cJSON_GetArrayItem(tw_json_get(r->body, "choices"), 0), "message");
        st = put_str(content, tw_json_get(m, "content"));
        const cJSON *rs = tw_json_get(m, "reasoning_content");
        if (st == TW_OK)
            st = put_str(reasoning, cJSON_IsString(rs) ? rs : tw_json_get(m, "reasoning"));
        return st;
    }
    for (size_t i = 0; i < r->nevents && st == TW_OK; i++) {
        const char *d = r->events[i].data;
        if (!d || d[0] != '{')
            continue;
        cJSON *ev = NULL;
        if (tw_json_parse(d, strlen(d), L->max_depth, &ev, NULL) != TW_OK)
            continue;
        const cJSON *dl = tw_json_get(cJSON_GetArrayItem(tw_json_get(ev, "choices"), 0), "delta");
        st = put_str(content, tw_json_get(dl, "content"));
        const cJSON *rs = tw_json_get(dl, "reasoning_content");
        if (st == TW_OK)
            st = put_str(reasoning, cJSON_IsString(rs) ? rs : tw_json_get(dl, "reasoning"));
        cJSON_Delete(ev);
    }
    return st;
}

/* Does the decoder f read the text as its dialect: a call, a refused call
 * section, or reasoning outside a <think> block (which the Hermes reading
 * already takes). */
static tw_status reads_as(const tw_format_ops *f, const tw_limits *L, const char *t, size_t n,
                          const tw_tool *tools, size_t ntools, bool *yes)
{
    tw_decode_opts o;
    memset(&o, 0, sizeof o);
    o.limits = *L;
    o.tools = tools;
    o.ntools = ntools;
    o.allow_unknown_tool = true;
    tw_result r;
    tw_status st = f->decode(t, n, &o, &r);
    if (st != TW_OK)
        return st;
    *yes = r.msg.ncalls > 0 || tw_diag_has(&r.errors, TW_D_TOOL_CALL_UNTERMINATED) ||
           tw_diag_has(&r.errors, TW_D_TOOL_CALL_JSON) ||
           (r.msg.thinking.len > 0 && !tw_memmem(t, n, "<think", 6));
    tw_result_free(&r);
    return TW_OK;
}

/* The first dialect of the table of formats whose decoder reads c as its
 * own, or NULL. */
static tw_status which_dialect(const tw_limits *L, const char *c, size_t n, const char **fmt)
{
    *fmt = NULL;
    if (holds_qwen_xml(c, n)) {
        *fmt = "qwen3-coder";
        return TW_OK;
    }
    for (size_t p = 0; p < TW_NPROFILES; p++) {
        const char *dec = tw_profile_decoder((tw_profile)p);
        const tw_format_ops *f = tw_profile_is_dialect((tw_profile)p) ? tw_format_find(dec) : NULL;
        if (!f || strcmp(dec, "qwen3-coder") == 0)
            continue;
        bool yes = false;
        tw_status st = reads_as(f, L, c, n, NULL, 0, &yes);
        if (st != TW_OK)
            return st;
        if (yes) {
            *fmt = f->name;
            return TW_OK;
        }
    }
    return TW_OK;
}

/* The reasoning r[0, n) as the dialect fmt writes it before its text: a
 * think block for qwen3-coder, else the dialect's output encoder (an
 * encoder of results named as the decoder) on a result holding only it;
 * nothing when it has none. */
static tw_status write_reasoning(tw_buf *mt, const char *fmt, const char *r, size_t n,
                                 const tw_limits *L)
{
    if (!n)
        return TW_OK;
    if (strcmp(fmt, "qwen3-coder") == 0)
        return tw_buf_printf(mt, "<think>\n%.*s\n</think>\n\n", (int)n, r);
    const tw_encoder_ops *e = tw_encoder_find(fmt);
    if (!e || e->input != TW_ENC_RESULT)
        return TW_OK;
    tw_result res;
    tw_result_init(&res, L);
    tw_status st = tw_buf_append(&res.msg.thinking, r, n);
    tw_encode_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.limits = *L;
    if (st == TW_OK)
        st = e->encode_result(&res, &eo, mt);
    tw_result_free(&res);
    return st == TW_ERR_NOMEM ? st : TW_OK;
}

/* A chat completion or /generate answer whose text holds a call in a text
 * dialect becomes an exchange of that dialect: model_text is what the model
 * wrote (the reasoning as the dialect writes it, then the text), decoded by
 * the dialect's decoder with the request's tools. */
tw_status tw_import_detect_text(tw_fx_arena *a, const tw_limits *L, tw_fx_exchange *x,
                                const char **format)
{
    *format = NULL;
    tw_buf c = {0}, rs = {0}, mt = {0};
    const char *fmt = NULL;
    tw_status st = recorded_text(x, L, &c, &rs);
    if (st == TW_ERR_LIMIT)
        st = TW_OK; /* past the cap: not imported as model text */
    else if (st == TW_OK && c.len)
        st = which_dialect(L, c.data, c.len, &fmt);
    if (st == TW_OK && fmt) {
        mt.max = 2 * L->max_input_bytes + 32;
        st = write_reasoning(&mt, fmt, rs.data, rs.len, L);
        if (st == TW_OK)
            st = tw_buf_append(&mt, c.data, c.len);
        const cJSON *tools = tw_json_get(x->req.body, "tools");
        cJSON *opts = cJSON_CreateObject();
        if (st == TW_OK &&
            (!opts || (cJSON_IsArray(tools) &&
                       !cJSON_AddItemToObject(opts, "tools", cJSON_Duplicate(tools, 1)))))
            st = TW_ERR_NOMEM;
        if (st == TW_OK) {
            x->decode_options = tw_fx_arena_json(a, opts);
            opts = NULL;
            x->model_text = tw_fx_arena_strn(a, mt.data ? mt.data : "", mt.len);
            x->decode_format = fmt;
            if (!x->decode_options || !x->model_text)
                st = TW_ERR_NOMEM;
            if (st == TW_OK)
                *format = fmt;
        }
        cJSON_Delete(opts);
    }
    tw_buf_free(&c);
    tw_buf_free(&rs);
    tw_buf_free(&mt);
    return st;
}
