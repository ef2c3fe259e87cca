/* Qwen3-Coder recordings among imported traffic (import_qwen.h). */
#include "import_qwen.h"

#include <string.h>

#include "checks.h"
#include "toolwire/json.h"

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

/* A chat completion or /generate answer whose text holds a Qwen3-Coder XML
 * call becomes a qwen3-coder exchange: model_text is what the model wrote
 * (the reasoning in a think block, then the text), decoded by qwen3-coder
 * with the request's tools. *found says whether it did. */
tw_status tw_import_detect_qwen(tw_fx_arena *a, const tw_limits *L, tw_fx_exchange *x, bool *found)
{
    *found = false;
    tw_buf c = {0}, rs = {0}, mt = {0};
    tw_status st = recorded_text(x, L, &c, &rs);
    if (st == TW_ERR_LIMIT)
        st = TW_OK; /* past the cap: not imported as model text */
    else if (st == TW_OK && c.len && holds_qwen_xml(c.data, c.len)) {
        mt.max = 2 * L->max_input_bytes + 32;
        if (rs.len)
            st = tw_buf_printf(&mt, "<think>\n%.*s\n</think>\n\n", (int)rs.len, rs.data);
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
            x->decode_format = "qwen3-coder";
            if (!x->decode_options || !x->model_text)
                st = TW_ERR_NOMEM;
            *found = st == TW_OK;
        }
        cJSON_Delete(opts);
    }
    tw_buf_free(&c);
    tw_buf_free(&rs);
    tw_buf_free(&mt);
    return st;
}
