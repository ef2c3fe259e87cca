/* The neutral model as neutral JSON: results, messages, tools and requests
 * written (tw_*_write) and read back (tw_*_read). */
#include "alloc.h"
#include "toolwire/neutral.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "utf8.h"
#include "tw_macros.h"
#include "work.h"

/* ===================== writing ===================== */

typedef struct jw {
    tw_buf *out;
    int flags;
    int level;
    bool first;
} jw;

static tw_status jw_sep(jw *w)
{
    if (!w->first)
        TRY(tw_buf_putc(w->out, ','));
    w->first = false;
    if (w->flags & TW_JSON_PRETTY) {
        TRY(tw_buf_putc(w->out, '\n'));
        for (int i = 0; i < w->level; i++)
            TRY(tw_buf_append(w->out, "  ", 2));
    } else if (w->flags & TW_JSON_SPACED) {
        /* ", " style: the space goes after the comma, not before the first key */
    }
    return TW_OK;
}

static tw_status jw_key(jw *w, const char *k)
{
    TRY(jw_sep(w));
    if ((w->flags & TW_JSON_SPACED) && !(w->flags & TW_JSON_PRETTY) && w->out->len &&
        w->out->data[w->out->len - 1] == ',')
        TRY(tw_buf_putc(w->out, ' '));
    TRY(tw_json_write_str(w->out, k, strlen(k), w->flags));
    return tw_buf_puts(w->out, (w->flags & (TW_JSON_SPACED | TW_JSON_PRETTY)) ? ": " : ":");
}

static tw_status jw_open(jw *w, char c)
{
    w->level++;
    w->first = true;
    return tw_buf_putc(w->out, c);
}

static tw_status jw_close(jw *w, char c, bool empty)
{
    w->level--;
    if (!empty && (w->flags & TW_JSON_PRETTY)) {
        TRY(tw_buf_putc(w->out, '\n'));
        for (int i = 0; i < w->level; i++)
            TRY(tw_buf_append(w->out, "  ", 2));
    }
    w->first = false;
    return tw_buf_putc(w->out, c);
}

static tw_status jw_str(jw *w, const char *k, const char *s, size_t n)
{
    TRY(jw_key(w, k));
    return tw_json_write_str(w->out, s ? s : "", s ? n : 0, w->flags);
}

static tw_status jw_cstr(jw *w, const char *k, const char *s)
{
    return jw_str(w, k, s, s ? strlen(s) : 0);
}

/* Nested values are written with the writer's own style at the right depth. */
static tw_status jw_value(jw *w, const char *k, const cJSON *v)
{
    TRY(jw_key(w, k));
    if (!(w->flags & TW_JSON_PRETTY))
        return tw_json_write(w->out, v, w->flags);
    /* pretty: re-indent by writing into a temp buffer and shifting lines */
    tw_buf tmp = {0};
    tw_status st = tw_json_write(&tmp, v, w->flags);
    for (size_t i = 0; st == TW_OK && i < tmp.len; i++) {
        st = tw_buf_putc(w->out, tmp.data[i]);
        if (st == TW_OK && tmp.data[i] == '\n')
            for (int j = 0; st == TW_OK && j < w->level; j++)
                st = tw_buf_append(w->out, "  ", 2);
    }
    tw_buf_free(&tmp);
    return st;
}

static tw_status write_calls(jw *w, const tw_call *calls, size_t n)
{
    TRY(jw_key(w, "tool_calls"));
    TRY(jw_open(w, '['));
    for (size_t i = 0; i < n; i++) {
        TRY(jw_sep(w));
        if ((w->flags & TW_JSON_SPACED) && !(w->flags & TW_JSON_PRETTY) && i)
            TRY(tw_buf_putc(w->out, ' '));
        TRY(jw_open(w, '{'));
        TRY(jw_cstr(w, "id", calls[i].id));
        TRY(jw_cstr(w, "name", calls[i].name));
        if (calls[i].arguments) {
            TRY(jw_value(w, "arguments", calls[i].arguments));
        } else {
            TRY(jw_key(w, "arguments"));
            TRY(tw_buf_puts(w->out, "{}"));
        }
        TRY(jw_close(w, '}', false));
    }
    return jw_close(w, ']', n == 0);
}

static tw_status write_diags(jw *w, const char *key, const tw_diag_list *l)
{
    TRY(jw_key(w, key));
    TRY(jw_open(w, '['));
    size_t n = l->len + (l->dropped ? 1 : 0);
    for (size_t i = 0; i < n; i++) {
        TRY(jw_sep(w));
        if ((w->flags & TW_JSON_SPACED) && !(w->flags & TW_JSON_PRETTY) && i)
            TRY(tw_buf_putc(w->out, ' '));
        TRY(jw_open(w, '{'));
        if (i < l->len) {
            TRY(jw_cstr(w, "code", tw_code_name(l->items[i].code)));
            TRY(jw_key(w, "offset"));
            TRY(tw_buf_printf(w->out, "%lld", (long long)l->items[i].offset));
            TRY(jw_cstr(w, "message", l->items[i].message));
        } else {
            TRY(jw_cstr(w, "code", tw_code_name(TW_D_DIAGS_TRUNCATED)));
            TRY(jw_key(w, "offset"));
            TRY(tw_buf_puts(w->out, "-1"));
            char m[96];
            snprintf(m, sizeof m, "%zu more diagnostics were not kept", l->dropped);
            TRY(jw_cstr(w, "message", m));
        }
        TRY(jw_close(w, '}', false));
    }
    return jw_close(w, ']', n == 0);
}

tw_status tw_result_write(tw_buf *out, const tw_result *r, int flags)
{
    jw w = {out, flags, 0, true};
    TRY(jw_open(&w, '{'));
    TRY(jw_str(&w, "content", r->msg.content.data, r->msg.content.len));
    TRY(jw_str(&w, "thinking", r->msg.thinking.data, r->msg.thinking.len));
    if (r->msg.thinking_signature)
        TRY(jw_cstr(&w, "thinking_signature", r->msg.thinking_signature));
    TRY(write_calls(&w, r->msg.calls, r->msg.ncalls));
    TRY(jw_cstr(&w, "finish_reason", r->finish_reason ? r->finish_reason : ""));
    TRY(write_diags(&w, "errors", &r->errors));
    TRY(write_diags(&w, "warnings", &r->warnings));
    return jw_close(&w, '}', false);
}

tw_status tw_tool_write(tw_buf *out, const tw_tool *t, int flags)
{
    jw w = {out, flags, 0, true};
    TRY(jw_open(&w, '{'));
    TRY(jw_cstr(&w, "name", t->name));
    if (t->description)
        TRY(jw_cstr(&w, "description", t->description));
    if (t->parameters)
        TRY(jw_value(&w, "parameters", t->parameters));
    return jw_close(&w, '}', false);
}

static tw_status message_body(jw *w, const tw_message *m)
{
    TRY(jw_cstr(w, "role", tw_role_name(m->role)));
    TRY(jw_str(w, "content", m->content.data, m->content.len));
    if (m->thinking.len)
        TRY(jw_str(w, "thinking", m->thinking.data, m->thinking.len));
    if (m->thinking_signature)
        TRY(jw_cstr(w, "thinking_signature", m->thinking_signature));
    if (m->ncalls)
        TRY(write_calls(w, m->calls, m->ncalls));
    if (m->role == TW_ROLE_TOOL) {
        TRY(jw_cstr(w, "tool_call_id", m->tool_call_id));
        if (m->name)
            TRY(jw_cstr(w, "name", m->name));
        TRY(jw_key(w, "is_error"));
        TRY(tw_buf_puts(w->out, m->is_error ? "true" : "false"));
    }
    return TW_OK;
}

tw_status tw_message_write(tw_buf *out, const tw_message *m, int flags)
{
    jw w = {out, flags, 0, true};
    TRY(jw_open(&w, '{'));
    TRY(message_body(&w, m));
    return jw_close(&w, '}', false);
}

tw_status tw_request_write(tw_buf *out, const tw_request *r, int flags)
{
    jw w = {out, flags, 0, true};
    TRY(jw_open(&w, '{'));
    if (r->model)
        TRY(jw_cstr(&w, "model", r->model));
    TRY(jw_key(&w, "messages"));
    TRY(jw_open(&w, '['));
    for (size_t i = 0; i < r->nmessages; i++) {
        TRY(jw_sep(&w));
        if ((flags & TW_JSON_SPACED) && !(flags & TW_JSON_PRETTY) && i)
            TRY(tw_buf_putc(out, ' '));
        TRY(jw_open(&w, '{'));
        TRY(message_body(&w, &r->messages[i]));
        TRY(jw_close(&w, '}', false));
    }
    TRY(jw_close(&w, ']', r->nmessages == 0));
    if (r->tools_present || r->ntools) {
        TRY(jw_key(&w, "tools"));
        TRY(jw_open(&w, '['));
        for (size_t i = 0; i < r->ntools; i++) {
            TRY(jw_sep(&w));
            if ((flags & TW_JSON_SPACED) && !(flags & TW_JSON_PRETTY) && i)
                TRY(tw_buf_putc(out, ' '));
            TRY(jw_open(&w, '{'));
            TRY(jw_cstr(&w, "name", r->tools[i].name));
            if (r->tools[i].description)
                TRY(jw_cstr(&w, "description", r->tools[i].description));
            if (r->tools[i].parameters)
                TRY(jw_value(&w, "parameters", r->tools[i].parameters));
            TRY(jw_close(&w, '}', false));
        }
        TRY(jw_close(&w, ']', r->ntools == 0));
    }
    switch (r->choice) {
    case TW_CHOICE_AUTO: TRY(jw_cstr(&w, "tool_choice", "auto")); break;
    case TW_CHOICE_NONE: TRY(jw_cstr(&w, "tool_choice", "none")); break;
    case TW_CHOICE_REQUIRED: TRY(jw_cstr(&w, "tool_choice", "required")); break;
    case TW_CHOICE_NAMED:
        TRY(jw_key(&w, "tool_choice"));
        TRY(jw_open(&w, '{'));
        TRY(jw_cstr(&w, "name", r->choice_name));
        TRY(jw_close(&w, '}', false));
        break;
    default: break;
    }
    if (r->parallel_tool_calls >= 0) {
        TRY(jw_key(&w, "parallel_tool_calls"));
        TRY(tw_buf_puts(out, r->parallel_tool_calls ? "true" : "false"));
    }
    if (r->options)
        TRY(jw_value(&w, "options", r->options));
    return jw_close(&w, '}', false);
}

/* ===================== reading ===================== */

static tw_status why_fail(tw_error *err, const char *fmt, const char *arg)
{
    if (err) {
        char m[sizeof err->message];
        snprintf(m, sizeof m, fmt, arg ? arg : "");
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%s", m);
    }
    return TW_ERR_INVALID;
}

/* A part (tool_calls[i], tools[i], messages[i]) failed with st: say which. */
static void why_part(tw_error *err, tw_status st, const char *what, size_t i, const tw_error *inner)
{
    tw_error_set(err, inner->code != TW_OK ? inner->code : st, -1, NULL, "%s[%zu]: %s", what, i,
                 inner->message);
}

static tw_status set_text(tw_buf *b, const cJSON *v, const char *key, tw_error *err)
{
    if (!v || cJSON_IsNull(v))
        return TW_OK;
    if (cJSON_IsString(v))
        return tw_buf_puts(b, v->valuestring);
    if (cJSON_IsArray(v)) {
        /* content parts: join the text of {type:"text"} parts */
        for (const cJSON *p = v->child; p; p = p->next) {
            const char *t = cJSON_IsString(p) ? p->valuestring : tw_json_get_str(p, "text");
            if (!t)
                return why_fail(err, "'%s' parts must carry text", key);
            TRY(tw_buf_puts(b, t));
        }
        return TW_OK;
    }
    return why_fail(err, "'%s' must be a string", key);
}

static tw_status dup_opt_str(char **dst, const cJSON *obj, const char *key, tw_error *err)
{
    const cJSON *v = tw_json_get(obj, key);
    if (!v || cJSON_IsNull(v))
        return TW_OK;
    if (!cJSON_IsString(v))
        return why_fail(err, "'%s' must be a string", key);
    *dst = tw_strdup(v->valuestring);
    return *dst ? TW_OK : TW_ERR_NOMEM;
}

static tw_status read_call(const cJSON *j, tw_call *c, tw_error *err)
{
    memset(c, 0, sizeof *c);
    c->offset = -1;
    if (!cJSON_IsObject(j))
        return why_fail(err, "a tool call must be an object%s", NULL);
    const cJSON *fn = tw_json_get(j, "function");
    const cJSON *src = cJSON_IsObject(fn) ? fn : j;
    tw_status st = dup_opt_str(&c->id, j, "id", err);
    if (st == TW_OK)
        st = dup_opt_str(&c->name, src, "name", err);
    if (st == TW_OK && !c->name)
        st = why_fail(err, "a tool call needs a string 'name'%s", NULL);
    const cJSON *a = tw_json_get(src, "arguments");
    if (st == TW_OK && !a)
        a = tw_json_get(src, "args");
    if (st == TW_OK) {
        if (!a || cJSON_IsNull(a)) {
            c->arguments = cJSON_CreateObject();
        } else if (cJSON_IsObject(a)) {
            c->arguments = cJSON_Duplicate(a, 1);
        } else if (cJSON_IsString(a)) {
            tw_error e;
            if (tw_json_parse(a->valuestring, strlen(a->valuestring), TW_DEPTH_HARD_MAX,
                              &c->arguments, &e) != TW_OK ||
                !cJSON_IsObject(c->arguments)) {
                cJSON_Delete(c->arguments);
                c->arguments = NULL;
                st = why_fail(err, "tool call arguments must be a JSON object%s", NULL);
            }
        } else {
            st = why_fail(err, "tool call arguments must be an object%s", NULL);
        }
        if (st == TW_OK && !c->arguments)
            st = TW_ERR_NOMEM;
    }
    if (st != TW_OK)
        tw_call_free(c);
    return st;
}

static tw_status read_calls(const cJSON *arr, const tw_limits *l, tw_message *m, tw_error *err)
{
    if (!arr || cJSON_IsNull(arr))
        return TW_OK;
    if (!cJSON_IsArray(arr))
        return why_fail(err, "'tool_calls' must be an array%s", NULL);
    size_t i = 0;
    for (const cJSON *x = arr->child; x; x = x->next, i++) {
        if (m->ncalls >= l->max_calls)
            return why_fail(err, "more tool calls than max_calls%s", NULL);
        tw_call c;
        tw_error inner;
        tw_error_clear(&inner);
        tw_status rst = read_call(x, &c, &inner);
        if (rst != TW_OK) {
            /* say which call */
            why_part(err, rst, "tool_calls", i, &inner);
            return rst;
        }
        tw_status st = tw_message_add_call(m, &c);
        if (st != TW_OK) {
            tw_call_free(&c);
            return st;
        }
    }
    return TW_OK;
}

tw_status tw_message_read(const cJSON *j, const tw_limits *limits, tw_message *out, tw_error *err)
{
    tw_limits l;
    tw_limits_resolve(&l, limits);
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(j))
        return why_fail(err, "a message must be an object%s", NULL);
    const char *role = tw_json_get_str(j, "role");
    if (!role)
        return why_fail(err, "a message needs a string 'role'%s", NULL);
    if (!tw_role_from_name(role, &out->role))
        return why_fail(err, "unknown role '%s'", role);
    tw_status st = set_text(&out->content, tw_json_get(j, "content"), "content", err);
    if (st == TW_OK) {
        const cJSON *t = tw_json_get(j, "thinking");
        if (!t)
            t = tw_json_get(j, "reasoning_content");
        st = set_text(&out->thinking, t, "thinking", err);
    }
    if (st == TW_OK)
        st = dup_opt_str(&out->thinking_signature, j, "thinking_signature", err);
    if (st == TW_OK)
        st = read_calls(tw_json_get(j, "tool_calls"), &l, out, err);
    if (st == TW_OK)
        st = dup_opt_str(&out->tool_call_id, j, "tool_call_id", err);
    if (st == TW_OK)
        st = dup_opt_str(&out->name, j, "name", err);
    if (st == TW_OK) {
        const cJSON *e = tw_json_get(j, "is_error");
        if (e && !cJSON_IsBool(e) && !cJSON_IsNull(e))
            st = why_fail(err, "'is_error' must be a boolean%s", NULL);
        out->is_error = cJSON_IsTrue(e);
    }
    if (st == TW_OK && out->role == TW_ROLE_TOOL && !out->tool_call_id)
        st = why_fail(err, "a tool message needs 'tool_call_id'%s", NULL);
    if (st != TW_OK)
        tw_message_free(out);
    return st;
}

tw_status tw_tool_read(const cJSON *j, tw_tool *out, tw_error *err)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(j))
        return why_fail(err, "a tool must be an object%s", NULL);
    const cJSON *fn = tw_json_get(j, "function");
    const cJSON *src = cJSON_IsObject(fn) ? fn : j;
    tw_status st = dup_opt_str(&out->name, src, "name", err);
    if (st == TW_OK && (!out->name || !out->name[0]))
        st = why_fail(err, "a tool needs a non-empty string 'name'%s", NULL);
    if (st == TW_OK)
        st = dup_opt_str(&out->description, src, "description", err);
    if (st == TW_OK) {
        const cJSON *p = tw_json_get(src, "parameters");
        if (!p)
            p = tw_json_get(src, "input_schema");
        if (p && !cJSON_IsNull(p)) {
            if (!cJSON_IsObject(p))
                st = why_fail(err, "tool '%s': 'parameters' must be an object", out->name);
            else if (!(out->parameters = cJSON_Duplicate(p, 1)))
                st = TW_ERR_NOMEM;
        }
    }
    if (st != TW_OK)
        tw_tool_free(out);
    return st;
}

tw_status tw_tools_read(const cJSON *arr, const tw_limits *limits, tw_tool **out, size_t *n,
                        tw_error *err)
{
    tw_limits l;
    tw_limits_resolve(&l, limits);
    *out = NULL;
    *n = 0;
    if (!cJSON_IsArray(arr))
        return why_fail(err, "tools must be a JSON array%s", NULL);
    size_t cnt = (size_t)cJSON_GetArraySize(arr);
    if (cnt > l.max_tools)
        return why_fail(err, "more tools than max_tools%s", NULL);
    if (cnt == 0)
        return TW_OK;
    tw_tool *t = tw_calloc(cnt, sizeof *t);
    if (!t)
        return TW_ERR_NOMEM;
    size_t i = 0;
    for (const cJSON *x = arr->child; x; x = x->next, i++) {
        tw_error inner;
        tw_error_clear(&inner);
        tw_status st = tw_tool_read(x, &t[i], &inner);
        if (st != TW_OK) {
            why_part(err, st, "tools", i, &inner);
            tw_tools_free(t, i);
            return st;
        }
    }
    *out = t;
    *n = cnt;
    return TW_OK;
}

tw_status tw_request_read(const cJSON *j, const tw_limits *limits, tw_request *out, tw_error *err)
{
    tw_limits l;
    tw_limits_resolve(&l, limits);
    memset(out, 0, sizeof *out);
    out->parallel_tool_calls = -1;
    if (!cJSON_IsObject(j))
        return why_fail(err, "a request must be a JSON object%s", NULL);
    tw_status st = dup_opt_str(&out->model, j, "model", err);
    const cJSON *msgs = tw_json_get(j, "messages");
    if (st == TW_OK && msgs && !cJSON_IsArray(msgs))
        st = why_fail(err, "'messages' must be an array%s", NULL);
    if (st == TW_OK && msgs) {
        size_t cnt = (size_t)cJSON_GetArraySize(msgs);
        if (cnt > l.max_messages)
            st = why_fail(err, "more messages than max_messages%s", NULL);
        else if (cnt && !(out->messages = tw_calloc(cnt, sizeof *out->messages)))
            st = TW_ERR_NOMEM;
        size_t i = 0;
        for (const cJSON *m = msgs->child; st == TW_OK && m; m = m->next, i++) {
            tw_error inner;
            tw_error_clear(&inner);
            st = tw_message_read(m, &l, &out->messages[i], &inner);
            if (st == TW_OK)
                out->nmessages++;
            else
                why_part(err, st, "messages", i, &inner);
        }
    }
    const cJSON *tools = tw_json_get(j, "tools");
    if (st == TW_OK && tools && !cJSON_IsNull(tools)) {
        out->tools_present = true;
        st = tw_tools_read(tools, &l, &out->tools, &out->ntools, err);
    }
    const cJSON *tc = tw_json_get(j, "tool_choice");
    if (st == TW_OK && tc && !cJSON_IsNull(tc)) {
        if (cJSON_IsString(tc)) {
            const char *s = tc->valuestring;
            if (strcmp(s, "auto") == 0)
                out->choice = TW_CHOICE_AUTO;
            else if (strcmp(s, "none") == 0)
                out->choice = TW_CHOICE_NONE;
            else if (strcmp(s, "required") == 0 || strcmp(s, "any") == 0)
                out->choice = TW_CHOICE_REQUIRED;
            else
                st = why_fail(err, "unknown tool_choice '%s'", s);
        } else if (cJSON_IsObject(tc)) {
            const cJSON *fn = tw_json_get(tc, "function");
            const char *name = tw_json_get_str(cJSON_IsObject(fn) ? fn : tc, "name");
            if (!name)
                st = why_fail(err, "tool_choice object needs a 'name'%s", NULL);
            else {
                out->choice = TW_CHOICE_NAMED;
                if (!(out->choice_name = tw_strdup(name)))
                    st = TW_ERR_NOMEM;
            }
        } else {
            st = why_fail(err, "'tool_choice' must be a string or an object%s", NULL);
        }
    }
    const cJSON *ptc = tw_json_get(j, "parallel_tool_calls");
    if (st == TW_OK && ptc && !cJSON_IsNull(ptc)) {
        if (!cJSON_IsBool(ptc))
            st = why_fail(err, "'parallel_tool_calls' must be a boolean%s", NULL);
        else
            out->parallel_tool_calls = cJSON_IsTrue(ptc) ? 1 : 0;
    }
    const cJSON *opt = tw_json_get(j, "options");
    if (st == TW_OK && opt && !cJSON_IsNull(opt)) {
        if (!cJSON_IsObject(opt))
            st = why_fail(err, "'options' must be an object%s", NULL);
        else if (!(out->options = cJSON_Duplicate(opt, 1)))
            st = TW_ERR_NOMEM;
    }
    if (st != TW_OK)
        tw_request_free(out);
    return st;
}

tw_status tw_result_read(const cJSON *j, const tw_limits *limits, tw_result *out, tw_error *err)
{
    tw_limits l;
    tw_limits_resolve(&l, limits);
    tw_result_init(out, &l);
    if (!cJSON_IsObject(j))
        return why_fail(err, "a result must be a JSON object%s", NULL);
    tw_status st = set_text(&out->msg.content, tw_json_get(j, "content"), "content", err);
    if (st == TW_OK)
        st = set_text(&out->msg.thinking, tw_json_get(j, "thinking"), "thinking", err);
    if (st == TW_OK)
        st = dup_opt_str(&out->msg.thinking_signature, j, "thinking_signature", err);
    if (st == TW_OK)
        st = read_calls(tw_json_get(j, "tool_calls"), &l, &out->msg, err);
    if (st == TW_OK)
        st = dup_opt_str(&out->finish_reason, j, "finish_reason", err);
    const char *keys[2] = {"errors", "warnings"};
    tw_diag_list *lists[2] = {&out->errors, &out->warnings};
    for (int k = 0; st == TW_OK && k < 2; k++) {
        const cJSON *arr = tw_json_get(j, keys[k]);
        if (!arr || cJSON_IsNull(arr))
            continue;
        if (!cJSON_IsArray(arr)) {
            st = why_fail(err, "'%s' must be an array", keys[k]);
            break;
        }
        for (const cJSON *d = arr->child; st == TW_OK && d; d = d->next) {
            const char *code = tw_json_get_str(d, "code");
            tw_status c;
            if (!code || !tw_code_from_name(code, strlen(code), &c)) {
                st = why_fail(err, "unknown diagnostic code '%s'", code ? code : "");
                break;
            }
            const cJSON *off = tw_json_get(d, "offset");
            int64_t o = tw_json_int(off, -1, INT64_MAX, -1);
            st = tw_diag_add(lists[k], c, o, tw_json_get_str(d, "message"));
        }
    }
    if (st != TW_OK)
        tw_result_free(out);
    return st;
}
