/*
 * Request decoders: OpenAI and Anthropic request bodies into tw_request.
 * Every refusal names the JSON path of the value at fault; everything the
 * neutral model cannot hold is reported as a not_carried warning.
 */
#include "alloc.h"
#include "toolwire/request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/shims.h"
#include "request_read.h"
#include "tw_macros.h"

/* ===================== context ===================== */

static tw_status dup_str(tw_rq *d, char **dst, const cJSON *v, const char *path, bool required)
{
    if (!v || cJSON_IsNull(v)) {
        if (required)
            return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "missing; a string is required");
        return TW_OK;
    }
    if (!cJSON_IsString(v))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be a string");
    tw_free(*dst);
    *dst = tw_strdup(v->valuestring);
    return *dst ? TW_OK : TW_ERR_NOMEM;
}

/* Tool messages carry the tool's name when an earlier call gives it. */
static tw_status recover_tool_names(tw_request *r)
{
    for (size_t i = 0; i < r->nmessages; i++) {
        tw_message *m = &r->messages[i];
        if (m->role != TW_ROLE_TOOL || m->name || !m->tool_call_id)
            continue;
        for (size_t k = i; k-- > 0;) {
            const tw_message *a = &r->messages[k];
            if (a->role != TW_ROLE_ASSISTANT)
                continue;
            for (size_t c = 0; c < a->ncalls; c++)
                if (a->calls[c].id && a->calls[c].name &&
                    strcmp(a->calls[c].id, m->tool_call_id) == 0) {
                    if (!(m->name = tw_strdup(a->calls[c].name)))
                        return TW_ERR_NOMEM;
                    break;
                }
            break;
        }
    }
    return TW_OK;
}

static tw_status read_tools(tw_rq *d, const cJSON *arr, bool openai)
{
    size_t cnt;
    TRY(tw_rq_tools_begin(d, arr, &cnt));
    size_t i = 0;
    for (const cJSON *t = arr->child; t; t = t->next, i++) {
        char path[64];
        snprintf(path, sizeof path, "tools[%zu]", i);
        if (!cJSON_IsObject(t))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
        const char *type = tw_json_get_str(t, "type");
        if (openai) {
            if (!type || strcmp(type, "function") != 0)
                return tw_rq_fail(d, TW_ERR_INVALID, -1, path,
                                  "only {\"type\": \"function\"} tools are "
                                  "supported");
            if (!cJSON_IsObject(tw_json_get(t, "function")))
                return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "'function' must be an object");
            if (tw_json_get(tw_json_get(t, "function"), "strict"))
                TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s.function.strict: not carried", path));
        } else if (!tw_json_get(t, "input_schema") && type && strcmp(type, "custom") != 0) {
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED,
                           "%s: server tool of type '%s' has no input_schema; kept by name only",
                           path, type));
        }
        TRY(tw_rq_read_tool(d, t, path));
    }
    return TW_OK;
}

/* Arguments given as a string: parsed defensively (shims). */
static tw_status string_args(tw_rq *d, const cJSON *a, const char *path, tw_call *c)
{
    size_t n = strlen(a->valuestring);
    tw_error se;
    tw_status st = tw_shim_parse_args(a->valuestring, n, &d->l, &c->arguments, NULL, &se);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK)
        return tw_rq_refuse(d, st, se.code, -1, path, "%.150s (%s)", se.message,
                            tw_code_name(se.code));
    return TW_OK;
}

static tw_status add_call(tw_rq *d, tw_message *m, tw_call *c, const char *path)
{
    if (m->ncalls >= d->l.max_calls) {
        tw_call_free(c);
        return tw_rq_fail(d, TW_ERR_LIMIT, -1, path, "more than max_calls (%zu) tool calls",
                          d->l.max_calls);
    }
    tw_status st = tw_message_add_call(m, c);
    if (st != TW_OK)
        tw_call_free(c);
    return st;
}

/* ===================== OpenAI ===================== */

static const char *const openai_option_keys[] = {"temperature",
                                                 "top_p",
                                                 "max_tokens",
                                                 "stop",
                                                 "seed",
                                                 "n",
                                                 "presence_penalty",
                                                 "frequency_penalty",
                                                 "logit_bias",
                                                 "user",
                                                 "stream",
                                                 "stream_options",
                                                 "response_format",
                                                 "reasoning_effort",
                                                 NULL};

/* content: string, null, or an array of parts whose text parts are joined. */
static tw_status openai_content(tw_rq *d, const cJSON *v, tw_buf *b, const char *path)
{
    if (!v || cJSON_IsNull(v))
        return TW_OK;
    if (cJSON_IsString(v))
        return tw_buf_puts(b, v->valuestring);
    if (!cJSON_IsArray(v))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path,
                          "must be a string, null or an array of parts");
    size_t j = 0;
    for (const cJSON *p = v->child; p; p = p->next, j++) {
        const char *type = tw_json_get_str(p, "type");
        const char *text = tw_json_get_str(p, "text");
        if (type && strcmp(type, "text") == 0 && text) {
            TRY(tw_buf_puts(b, text));
        } else if (type && strcmp(type, "refusal") == 0) {
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s[%zu]: refusal part not carried", path, j));
        } else {
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s[%zu]: content part of type '%s' not carried",
                           path, j, type ? type : "?"));
        }
    }
    return TW_OK;
}

static tw_status openai_call(tw_rq *d, tw_message *m, const cJSON *tc, const char *path)
{
    char p[200];
    if (!cJSON_IsObject(tc))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
    const char *type = tw_json_get_str(tc, "type");
    if (type && strcmp(type, "function") != 0)
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "only function tool calls are supported");
    const cJSON *fn = tw_json_get(tc, "function");
    snprintf(p, sizeof p, "%s.function", path);
    if (!cJSON_IsObject(fn))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be an object");
    tw_call c;
    memset(&c, 0, sizeof c);
    c.offset = -1;
    snprintf(p, sizeof p, "%s.id", path);
    tw_status st = dup_str(d, &c.id, tw_json_get(tc, "id"), p, false);
    snprintf(p, sizeof p, "%s.function.name", path);
    if (st == TW_OK)
        st = dup_str(d, &c.name, tw_json_get(fn, "name"), p, true);
    if (st == TW_OK && !c.name[0])
        st = tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must not be empty");
    const cJSON *a = tw_json_get(fn, "arguments");
    snprintf(p, sizeof p, "%s.function.arguments", path);
    if (st == TW_OK) {
        if (!a || cJSON_IsNull(a)) {
            if (!(c.arguments = cJSON_CreateObject()))
                st = TW_ERR_NOMEM;
        } else if (cJSON_IsString(a)) {
            st = string_args(d, a, p, &c);
        } else if (cJSON_IsObject(a)) {
            if (!(c.arguments = cJSON_Duplicate(a, 1)))
                st = TW_ERR_NOMEM;
            else
                st = tw_rq_warn(d, TW_D_ARGUMENTS_AS_OBJECT, "%s: an object, not a JSON string", p);
        } else {
            st = tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a string holding a JSON object");
        }
    }
    if (st != TW_OK) {
        tw_call_free(&c);
        return st;
    }
    return add_call(d, m, &c, path);
}

static tw_status openai_message(tw_rq *d, const cJSON *j, size_t i)
{
    char path[64], p[128];
    const char *role;
    TRY(tw_rq_message_head(d, j, i, path, sizeof path, p, sizeof p, &role));
    tw_role rl;
    if (!tw_role_from_name(role, &rl))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "unknown role '%s'", role);
    tw_message *m;
    TRY(tw_rq_push(d, path, &m));
    m->role = rl;
    snprintf(p, sizeof p, "%s.content", path);
    TRY(openai_content(d, tw_json_get(j, "content"), &m->content, p));
    if (rl == TW_ROLE_ASSISTANT) {
        const cJSON *rc = tw_json_get(j, "reasoning_content");
        const cJSON *rs = tw_json_get(j, "reasoning");
        const cJSON *t = cJSON_IsString(rc) ? rc : rs;
        if (cJSON_IsString(t))
            TRY(tw_buf_puts(&m->thinking, t->valuestring));
        const cJSON *tcs = tw_json_get(j, "tool_calls");
        snprintf(p, sizeof p, "%s.tool_calls", path);
        if (tcs && !cJSON_IsNull(tcs)) {
            if (!cJSON_IsArray(tcs))
                return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be an array");
            size_t k = 0;
            for (const cJSON *tc = tcs->child; tc; tc = tc->next, k++) {
                char cp[160];
                snprintf(cp, sizeof cp, "%s[%zu]", p, k);
                TRY(openai_call(d, m, tc, cp));
            }
        }
        const cJSON *fc = tw_json_get(j, "function_call");
        if (cJSON_IsObject(fc)) {
            /* legacy: one call with a generated id */
            snprintf(p, sizeof p, "%s.function_call", path);
            cJSON *wrap = cJSON_CreateObject();
            cJSON *dup = cJSON_Duplicate(fc, 1);
            if (!wrap || !dup || !cJSON_AddItemToObject(wrap, "function", dup)) {
                cJSON_Delete(wrap);
                cJSON_Delete(dup);
                return TW_ERR_NOMEM;
            }
            char idbuf[32];
            snprintf(idbuf, sizeof idbuf, "call_%zu", m->ncalls + 1);
            tw_status st = cJSON_AddStringToObject(wrap, "id", idbuf) ? TW_OK : TW_ERR_NOMEM;
            if (st == TW_OK)
                st = openai_call(d, m, wrap, p);
            cJSON_Delete(wrap);
            TRY(st);
            TRY(tw_rq_warn(d, TW_D_LEGACY_FUNCTION_CALL, "%s: converted to a tool call", p));
        }
        if (tw_json_get(j, "refusal") && !cJSON_IsNull(tw_json_get(j, "refusal")))
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s.refusal: not carried", path));
    }
    if (rl == TW_ROLE_TOOL) {
        snprintf(p, sizeof p, "%s.tool_call_id", path);
        TRY(dup_str(d, &m->tool_call_id, tw_json_get(j, "tool_call_id"), p, true));
        snprintf(p, sizeof p, "%s.name", path);
        TRY(dup_str(d, &m->name, tw_json_get(j, "name"), p, false));
    } else if (tw_json_get(j, "name")) {
        TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s.name: participant names are not carried", path));
    }
    return TW_OK;
}

static tw_status openai_choice(tw_rq *d, const cJSON *tc)
{
    tw_request *r = d->req;
    if (cJSON_IsString(tc))
        return tw_rq_choice_word(d, tc->valuestring);
    if (!cJSON_IsObject(tc))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice", "must be a string or an object");
    const char *name = tw_json_get_str(tw_json_get(tc, "function"), "name");
    if (!name)
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice.function.name",
                          "missing; a string is required");
    r->choice = TW_CHOICE_NAMED;
    return (r->choice_name = tw_strdup(name)) ? TW_OK : TW_ERR_NOMEM;
}

static tw_status openai_body(tw_rq *d, const cJSON *j)
{
    tw_request *r = d->req;
    TRY(tw_rq_root(d, j));
    TRY(dup_str(d, &r->model, tw_json_get(j, "model"), "model", false));
    const cJSON *msgs = tw_json_get(j, "messages");
    if (!cJSON_IsArray(msgs))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "messages", "missing; an array is required");
    size_t cnt = (size_t)cJSON_GetArraySize(msgs);
    if (cnt > d->l.max_messages)
        return tw_rq_fail(d, TW_ERR_LIMIT, -1, "messages", "more than max_messages (%zu) messages",
                          d->l.max_messages);
    size_t i = 0;
    for (const cJSON *m = msgs->child; m; m = m->next, i++)
        TRY(openai_message(d, m, i));
    for (const cJSON *c = j->child; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        if (strcmp(k, "model") == 0 || strcmp(k, "messages") == 0)
            continue;
        if (strcmp(k, "tools") == 0) {
            if (!cJSON_IsNull(c))
                TRY(read_tools(d, c, true));
        } else if (strcmp(k, "tool_choice") == 0) {
            if (!cJSON_IsNull(c))
                TRY(openai_choice(d, c));
        } else if (strcmp(k, "parallel_tool_calls") == 0) {
            if (cJSON_IsNull(c))
                continue;
            if (!cJSON_IsBool(c))
                return tw_rq_fail(d, TW_ERR_INVALID, -1, k, "must be a boolean");
            r->parallel_tool_calls = cJSON_IsTrue(c) ? 1 : 0;
        } else if (strcmp(k, "max_completion_tokens") == 0) {
            TRY(tw_rq_put_option(d, "max_tokens", c));
        } else {
            bool known = false;
            for (size_t o = 0; openai_option_keys[o] && !known; o++)
                known = strcmp(openai_option_keys[o], k) == 0;
            if (known)
                TRY(tw_rq_put_option(d, k, c));
            else
                TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s: not carried by the neutral request", k));
        }
    }
    return recover_tool_names(r);
}

/* ===================== Anthropic ===================== */

static const char *const anthropic_option_keys[] = {
    "max_tokens", "temperature", "top_p", "top_k", "metadata", "stream", "thinking", NULL};

/* Text of a tool_result's content: a string or text blocks (joined). */
static tw_status result_text(tw_rq *d, const cJSON *v, tw_buf *b, const char *path)
{
    if (!v || cJSON_IsNull(v))
        return TW_OK;
    if (cJSON_IsString(v))
        return tw_buf_puts(b, v->valuestring);
    if (!cJSON_IsArray(v))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be a string or an array of blocks");
    size_t k = 0;
    for (const cJSON *x = v->child; x; x = x->next, k++) {
        const char *type = tw_json_get_str(x, "type");
        const char *text = tw_json_get_str(x, "text");
        if (type && strcmp(type, "text") == 0 && text)
            TRY(tw_buf_puts(b, text));
        else
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s[%zu]: block of type '%s' not carried", path, k,
                           type ? type : "?"));
    }
    return TW_OK;
}

static tw_status anthropic_user(tw_rq *d, const cJSON *content, const char *path)
{
    tw_message *m;
    char p[200];
    snprintf(p, sizeof p, "%s.content", path);
    if (cJSON_IsString(content)) {
        TRY(tw_rq_push(d, path, &m));
        m->role = TW_ROLE_USER;
        return tw_buf_puts(&m->content, content->valuestring);
    }
    if (!cJSON_IsArray(content))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a string or an array of blocks");
    tw_message *text = NULL; /* the user message collecting consecutive text */
    bool any = false;
    size_t k = 0;
    for (const cJSON *b = content->child; b; b = b->next, k++) {
        char bp[224];
        snprintf(bp, sizeof bp, "%s[%zu]", p, k);
        if (!cJSON_IsObject(b))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, bp, "must be a content block object");
        const char *type = tw_json_get_str(b, "type");
        if (type && strcmp(type, "tool_result") == 0) {
            text = NULL;
            TRY(tw_rq_push(d, bp, &m));
            any = true;
            m->role = TW_ROLE_TOOL;
            char fp[240];
            snprintf(fp, sizeof fp, "%s.tool_use_id", bp);
            TRY(dup_str(d, &m->tool_call_id, tw_json_get(b, "tool_use_id"), fp, true));
            snprintf(fp, sizeof fp, "%s.content", bp);
            TRY(result_text(d, tw_json_get(b, "content"), &m->content, fp));
            const cJSON *e = tw_json_get(b, "is_error");
            snprintf(fp, sizeof fp, "%s.is_error", bp);
            if (e && !cJSON_IsNull(e) && !cJSON_IsBool(e))
                return tw_rq_fail(d, TW_ERR_INVALID, -1, fp, "must be a boolean");
            m->is_error = cJSON_IsTrue(e);
        } else if (type && strcmp(type, "text") == 0) {
            const char *t = tw_json_get_str(b, "text");
            if (!t)
                return tw_rq_fail(d, TW_ERR_INVALID, -1, bp, "a text block needs a string 'text'");
            if (!text) {
                TRY(tw_rq_push(d, bp, &text));
                text->role = TW_ROLE_USER;
                any = true;
            }
            TRY(tw_buf_puts(&text->content, t));
        } else {
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s: block of type '%s' not carried", bp,
                           type ? type : "?"));
        }
    }
    if (!any) {
        TRY(tw_rq_push(d, path, &m));
        m->role = TW_ROLE_USER;
    }
    return TW_OK;
}

static tw_status anthropic_assistant(tw_rq *d, const cJSON *content, const char *path)
{
    tw_message *m;
    char p[200];
    snprintf(p, sizeof p, "%s.content", path);
    TRY(tw_rq_push(d, path, &m));
    m->role = TW_ROLE_ASSISTANT;
    if (cJSON_IsString(content))
        return tw_buf_puts(&m->content, content->valuestring);
    if (!cJSON_IsArray(content))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a string or an array of blocks");
    size_t k = 0;
    for (const cJSON *b = content->child; b; b = b->next, k++) {
        char bp[224], fp[240];
        snprintf(bp, sizeof bp, "%s[%zu]", p, k);
        if (!cJSON_IsObject(b))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, bp, "must be a content block object");
        const char *type = tw_json_get_str(b, "type");
        if (!type)
            return tw_rq_fail(d, TW_ERR_INVALID, -1, bp, "a block needs a string 'type'");
        if (strcmp(type, "text") == 0) {
            const char *t = tw_json_get_str(b, "text");
            if (!t)
                return tw_rq_fail(d, TW_ERR_INVALID, -1, bp, "a text block needs a string 'text'");
            TRY(tw_buf_puts(&m->content, t));
        } else if (strcmp(type, "thinking") == 0) {
            const char *t = tw_json_get_str(b, "thinking");
            if (!t)
                return tw_rq_fail(d, TW_ERR_INVALID, -1, bp,
                                  "a thinking block needs a string 'thinking'");
            if (m->thinking.len)
                TRY(tw_buf_putc(&m->thinking, '\n'));
            TRY(tw_buf_puts(&m->thinking, t));
            const char *sig = tw_json_get_str(b, "signature");
            if (sig && m->thinking_signature)
                TRY(tw_rq_warn(d, TW_D_NOT_CARRIED,
                               "%s.signature: only the first thinking "
                               "signature is kept",
                               bp));
            else if (sig && !(m->thinking_signature = tw_strdup(sig)))
                return TW_ERR_NOMEM;
        } else if (strcmp(type, "redacted_thinking") == 0) {
            if (!m->redacted_thinking && !(m->redacted_thinking = cJSON_CreateArray()))
                return TW_ERR_NOMEM;
            cJSON *dup = cJSON_Duplicate(b, 1);
            if (!dup || !cJSON_AddItemToArray(m->redacted_thinking, dup)) {
                cJSON_Delete(dup);
                return TW_ERR_NOMEM;
            }
            m->has_redacted_thinking = true;
        } else if (strcmp(type, "tool_use") == 0) {
            tw_call c;
            memset(&c, 0, sizeof c);
            c.offset = -1;
            snprintf(fp, sizeof fp, "%s.id", bp);
            tw_status st = dup_str(d, &c.id, tw_json_get(b, "id"), fp, true);
            snprintf(fp, sizeof fp, "%s.name", bp);
            if (st == TW_OK)
                st = dup_str(d, &c.name, tw_json_get(b, "name"), fp, true);
            if (st == TW_OK && !c.name[0])
                st = tw_rq_fail(d, TW_ERR_INVALID, -1, fp, "must not be empty");
            const cJSON *in = tw_json_get(b, "input");
            snprintf(fp, sizeof fp, "%s.input", bp);
            if (st == TW_OK) {
                if (!in || cJSON_IsNull(in))
                    c.arguments = cJSON_CreateObject();
                else if (cJSON_IsObject(in))
                    c.arguments = cJSON_Duplicate(in, 1);
                else
                    st = tw_rq_fail(d, TW_ERR_INVALID, -1, fp, "must be an object");
                if (st == TW_OK && !c.arguments)
                    st = TW_ERR_NOMEM;
            }
            if (st == TW_OK && tw_json_size(c.arguments, d->l.max_args_bytes) > d->l.max_args_bytes)
                st = tw_rq_refuse(d, TW_ERR_LIMIT, TW_D_ARGS_TOO_LARGE, -1, fp,
                                  "more than max_args_bytes (%zu)", d->l.max_args_bytes);
            if (st != TW_OK) {
                tw_call_free(&c);
                return st;
            }
            TRY(add_call(d, m, &c, bp));
        } else {
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s: block of type '%s' not carried", bp, type));
        }
    }
    return TW_OK;
}

static tw_status anthropic_system(tw_rq *d, const cJSON *s)
{
    tw_message *m;
    TRY(tw_rq_push(d, "system", &m));
    m->role = TW_ROLE_SYSTEM;
    if (cJSON_IsString(s))
        return tw_buf_puts(&m->content, s->valuestring);
    if (!cJSON_IsArray(s))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "system",
                          "must be a string or an array of text blocks");
    size_t k = 0;
    for (const cJSON *b = s->child; b; b = b->next, k++) {
        const char *t = tw_json_get_str(b, "text");
        if (!t) {
            char p[48];
            snprintf(p, sizeof p, "system[%zu]", k);
            return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a text block");
        }
        if (k)
            TRY(tw_buf_append(&m->content, "\n\n", 2));
        TRY(tw_buf_puts(&m->content, t));
    }
    return TW_OK;
}

static tw_status anthropic_choice(tw_rq *d, const cJSON *tc)
{
    tw_request *r = d->req;
    if (!cJSON_IsObject(tc))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice", "must be an object");
    const char *type = tw_json_get_str(tc, "type");
    if (!type)
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice.type",
                          "missing; a string is required");
    if (strcmp(type, "auto") == 0) {
        r->choice = TW_CHOICE_AUTO;
    } else if (strcmp(type, "any") == 0) {
        r->choice = TW_CHOICE_REQUIRED;
    } else if (strcmp(type, "none") == 0) {
        r->choice = TW_CHOICE_NONE;
    } else if (strcmp(type, "tool") == 0) {
        const char *name = tw_json_get_str(tc, "name");
        if (!name)
            return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice.name",
                              "missing; a string is required");
        r->choice = TW_CHOICE_NAMED;
        if (!(r->choice_name = tw_strdup(name)))
            return TW_ERR_NOMEM;
    } else {
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice.type", "unknown value '%s'", type);
    }
    const cJSON *dp = tw_json_get(tc, "disable_parallel_tool_use");
    if (dp && !cJSON_IsNull(dp)) {
        if (!cJSON_IsBool(dp))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice.disable_parallel_tool_use",
                              "must be a boolean");
        r->parallel_tool_calls = cJSON_IsTrue(dp) ? 0 : 1;
    }
    return TW_OK;
}

static tw_status anthropic_body(tw_rq *d, const cJSON *j)
{
    tw_request *r = d->req;
    TRY(tw_rq_root(d, j));
    TRY(dup_str(d, &r->model, tw_json_get(j, "model"), "model", false));
    const cJSON *sys = tw_json_get(j, "system");
    if (sys && !cJSON_IsNull(sys))
        TRY(anthropic_system(d, sys));
    const cJSON *msgs = tw_json_get(j, "messages");
    if (!cJSON_IsArray(msgs))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "messages", "missing; an array is required");
    size_t i = 0;
    for (const cJSON *m = msgs->child; m; m = m->next, i++) {
        char path[64], p[80];
        const char *role;
        TRY(tw_rq_message_head(d, m, i, path, sizeof path, p, sizeof p, &role));
        const cJSON *content = tw_json_get(m, "content");
        if (strcmp(role, "user") == 0)
            TRY(anthropic_user(d, content, path));
        else if (strcmp(role, "assistant") == 0)
            TRY(anthropic_assistant(d, content, path));
        else
            return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be user or assistant, got '%s'",
                              role);
    }
    for (const cJSON *c = j->child; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        if (strcmp(k, "model") == 0 || strcmp(k, "messages") == 0 || strcmp(k, "system") == 0)
            continue;
        if (strcmp(k, "tools") == 0) {
            if (!cJSON_IsNull(c))
                TRY(read_tools(d, c, false));
        } else if (strcmp(k, "tool_choice") == 0) {
            if (!cJSON_IsNull(c))
                TRY(anthropic_choice(d, c));
        } else if (strcmp(k, "stop_sequences") == 0) {
            TRY(tw_rq_put_option(d, "stop", c));
        } else {
            bool known = false;
            for (size_t o = 0; anthropic_option_keys[o] && !known; o++)
                known = strcmp(anthropic_option_keys[o], k) == 0;
            if (known)
                TRY(tw_rq_put_option(d, k, c));
            else
                TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s: not carried by the neutral request", k));
        }
    }
    return recover_tool_names(r);
}

/* ===================== entry points ===================== */

static tw_status run(const cJSON *j, const tw_decode_opts *o, tw_request *out, tw_error *err,
                     tw_status (*body)(tw_rq *, const cJSON *))
{
    tw_rq d;
    tw_rq_begin(&d, o, out, err);
    tw_status st = body(&d, j);
    if (st == TW_ERR_NOMEM && err && !err->message[0])
        tw_rq_fail(&d, st, -1, "", "out of memory");
    if (st != TW_OK)
        tw_request_free(out);
    return st;
}

static tw_status decode(const char *buf, size_t len, const tw_decode_opts *o, tw_request *out,
                        tw_error *err, tw_status (*body)(tw_rq *, const cJSON *))
{
    tw_limits l;
    tw_limits_resolve(&l, o ? &o->limits : NULL);
    memset(out, 0, sizeof *out);
    out->parallel_tool_calls = -1;
    tw_error_clear(err);
    if (len > l.max_input_bytes) {
        tw_error_set(err, TW_ERR_LIMIT, -1, "",
                     "the body is %zu bytes, more than max_input_bytes (%zu)", len,
                     l.max_input_bytes);
        return TW_ERR_LIMIT;
    }
    cJSON *j = NULL;
    tw_error je;
    tw_status st = tw_json_parse(buf, len, l.max_depth, &j, &je);
    if (st != TW_OK) {
        tw_error_set(err, je.code, je.offset, "", "%s", je.message);
        return st;
    }
    st = run(j, o, out, err, body);
    cJSON_Delete(j);
    return st;
}

tw_status tw_openai_request_from_json(const cJSON *j, const tw_decode_opts *o, tw_request *out,
                                      tw_error *err)
{
    return run(j, o, out, err, openai_body);
}

tw_status tw_anthropic_request_from_json(const cJSON *j, const tw_decode_opts *o, tw_request *out,
                                         tw_error *err)
{
    return run(j, o, out, err, anthropic_body);
}

tw_status tw_openai_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                   tw_request *out, tw_error *err)
{
    return decode(buf, len, o, out, err, openai_body);
}

tw_status tw_anthropic_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                      tw_request *out, tw_error *err)
{
    return decode(buf, len, o, out, err, anthropic_body);
}
