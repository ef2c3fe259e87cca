/*
 * Request decoder for OpenAI Responses API request bodies (POST
 * /v1/responses) into tw_request. Every refusal names the JSON path of the
 * value at fault; everything the neutral model cannot hold is reported as a
 * warning (not_carried, item_reference, builtin_tool), never dropped
 * silently. Rules: docs/formats/openai-responses-encode.md.
 */
#include "alloc.h"
#include "toolwire/request_responses.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request_read.h"
#include "toolwire/shims.h"
#include "tw_macros.h"

#define NO_TURN SIZE_MAX

/* The reading state of the input items: the assistant message the next
 * reasoning, message or function_call item belongs to. */
typedef struct rs_turn {
    size_t cur;       /* index of the open assistant message, NO_TURN when none */
    bool cur_message; /* it already holds a message item */
    size_t last;      /* index of the latest assistant message, NO_TURN when none */
} rs_turn;

static bool is_str(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring;
}

static tw_status dup_str(tw_rq *d, char **dst, const cJSON *v, const char *path, bool required)
{
    if (!v || cJSON_IsNull(v)) {
        if (required)
            return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "missing; a string is required");
        return TW_OK;
    }
    if (!is_str(v))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be a string");
    tw_free(*dst);
    *dst = tw_strdup(v->valuestring);
    return *dst ? TW_OK : TW_ERR_NOMEM;
}

/* Every member of an item that is not in `known` and not null is reported. */
static tw_status other_keys(tw_rq *d, const cJSON *it, const char *path, const char *const *known)
{
    for (const cJSON *c = it->child; c; c = c->next) {
        if (!c->string || cJSON_IsNull(c))
            continue;
        bool k = false;
        for (size_t i = 0; known[i] && !k; i++)
            k = strcmp(known[i], c->string) == 0;
        if (!k)
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s.%s: not carried by the neutral request", path,
                           c->string));
    }
    return TW_OK;
}

/* Text of a string or of an array of text parts (joined); other parts are
 * reported. `types` lists the part types that hold text. */
static tw_status part_text(tw_rq *d, const cJSON *v, tw_buf *b, const char *path,
                           const char *const *types)
{
    if (!v || cJSON_IsNull(v))
        return TW_OK;
    if (is_str(v))
        return tw_buf_puts(b, v->valuestring);
    if (!cJSON_IsArray(v))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path,
                          "must be a string, null or an array of parts");
    size_t j = 0;
    for (const cJSON *p = v->child; p; p = p->next, j++) {
        const char *type = tw_json_get_str(p, "type");
        const cJSON *text = tw_json_get(p, "text");
        bool texty = false;
        for (size_t i = 0; type && types[i] && !texty; i++)
            texty = strcmp(types[i], type) == 0;
        if (texty && is_str(text))
            TRY(tw_buf_puts(b, text->valuestring));
        else
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s[%zu]: part of type '%s' not carried", path, j,
                           type ? type : "?"));
    }
    return TW_OK;
}

static const char *const input_parts[] = {"input_text", "output_text", "text", NULL};

/* The assistant message an item joins: the open one, or a new one. */
static tw_status assistant_of(tw_rq *d, rs_turn *t, bool fresh, const char *path, tw_message **out)
{
    tw_request *r = d->req;
    if (!fresh && t->cur != NO_TURN) {
        *out = &r->messages[t->cur];
        return TW_OK;
    }
    TRY(tw_rq_push(d, path, out));
    (*out)->role = TW_ROLE_ASSISTANT;
    t->cur = t->last = r->nmessages - 1;
    t->cur_message = false;
    return TW_OK;
}

static tw_status message_item(tw_rq *d, rs_turn *t, const cJSON *it, const char *path)
{
    static const char *const known[] = {"type", "role", "content", NULL};
    char p[96];
    snprintf(p, sizeof p, "%s.role", path);
    const cJSON *rv = tw_json_get(it, "role");
    if (!is_str(rv))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "missing; a string is required");
    const char *role = rv->valuestring;
    tw_message *m;
    snprintf(p, sizeof p, "%s.content", path);
    if (strcmp(role, "assistant") == 0) {
        bool fresh = t->cur == NO_TURN || t->cur_message || d->req->messages[t->cur].ncalls;
        TRY(assistant_of(d, t, fresh, path, &m));
        t->cur_message = true;
    } else {
        tw_role rl;
        if (strcmp(role, "developer") == 0) {
            rl = TW_ROLE_SYSTEM;
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s.role: developer read as system", path));
        } else if (strcmp(role, "user") == 0) {
            rl = TW_ROLE_USER;
        } else if (strcmp(role, "system") == 0) {
            rl = TW_ROLE_SYSTEM;
        } else {
            snprintf(p, sizeof p, "%s.role", path);
            return tw_rq_fail(d, TW_ERR_INVALID, -1, p,
                              "must be user, assistant, system or developer, got '%.40s'", role);
        }
        TRY(tw_rq_push(d, path, &m));
        m->role = rl;
        t->cur = NO_TURN;
    }
    TRY(part_text(d, tw_json_get(it, "content"), &m->content, p, input_parts));
    return other_keys(d, it, path, known);
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

static tw_status call_args(tw_rq *d, const cJSON *a, const char *path, tw_call *c)
{
    if (!a || cJSON_IsNull(a))
        return (c->arguments = cJSON_CreateObject()) ? TW_OK : TW_ERR_NOMEM;
    if (cJSON_IsObject(a)) {
        if (!(c->arguments = cJSON_Duplicate(a, 1)))
            return TW_ERR_NOMEM;
        return tw_rq_warn(d, TW_D_ARGUMENTS_AS_OBJECT, "%s: an object, not a JSON string", path);
    }
    if (!is_str(a))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be a string holding a JSON object");
    tw_error se;
    tw_status st =
        tw_shim_parse_args(a->valuestring, strlen(a->valuestring), &d->l, &c->arguments, NULL, &se);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK)
        return tw_rq_refuse(d, st, se.code, -1, path, "%.150s (%s)", se.message,
                            tw_code_name(se.code));
    return TW_OK;
}

static tw_status call_item(tw_rq *d, rs_turn *t, const cJSON *it, const char *path)
{
    static const char *const known[] = {"type", "call_id", "name", "arguments", NULL};
    char p[96];
    tw_call c;
    memset(&c, 0, sizeof c);
    c.offset = -1;
    snprintf(p, sizeof p, "%s.call_id", path);
    tw_status st = dup_str(d, &c.id, tw_json_get(it, "call_id"), p, true);
    snprintf(p, sizeof p, "%s.name", path);
    if (st == TW_OK)
        st = dup_str(d, &c.name, tw_json_get(it, "name"), p, true);
    if (st == TW_OK && !c.name[0])
        st = tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must not be empty");
    snprintf(p, sizeof p, "%s.arguments", path);
    if (st == TW_OK)
        st = call_args(d, tw_json_get(it, "arguments"), p, &c);
    tw_message *m = NULL;
    if (st == TW_OK)
        st = assistant_of(d, t, false, path, &m);
    if (st != TW_OK) {
        tw_call_free(&c);
        return st;
    }
    TRY(add_call(d, m, &c, path));
    return other_keys(d, it, path, known);
}

static tw_status output_item(tw_rq *d, rs_turn *t, const cJSON *it, const char *path)
{
    static const char *const known[] = {"type", "call_id", "output", NULL};
    tw_message *m;
    TRY(tw_rq_push(d, path, &m));
    m->role = TW_ROLE_TOOL;
    t->cur = NO_TURN;
    char p[96];
    snprintf(p, sizeof p, "%s.call_id", path);
    TRY(dup_str(d, &m->tool_call_id, tw_json_get(it, "call_id"), p, true));
    snprintf(p, sizeof p, "%s.output", path);
    const cJSON *out = tw_json_get(it, "output");
    if (!out || cJSON_IsNull(out))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "missing; a string or an array is required");
    TRY(part_text(d, out, &m->content, p, input_parts));
    /* the name of the call it answers, among the latest assistant
     * message's calls (at most max_calls) */
    if (t->last != NO_TURN) {
        const tw_message *a = &d->req->messages[t->last];
        for (size_t k = 0; k < a->ncalls; k++)
            if (a->calls[k].id && strcmp(a->calls[k].id, m->tool_call_id) == 0) {
                if (!(m->name = tw_strdup(a->calls[k].name)))
                    return TW_ERR_NOMEM;
                break;
            }
    }
    return other_keys(d, it, path, known);
}

static tw_status reasoning_item(tw_rq *d, rs_turn *t, const cJSON *it, const char *path)
{
    static const char *const known[] = {"type", "summary", "encrypted_content", NULL};
    static const char *const summary_parts[] = {"summary_text", NULL};
    char p[96];
    tw_message *m;
    TRY(assistant_of(d, t, true, path, &m));
    snprintf(p, sizeof p, "%s.summary", path);
    const cJSON *s = tw_json_get(it, "summary");
    if (s && !cJSON_IsNull(s) && !cJSON_IsArray(s))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be an array of parts");
    TRY(part_text(d, s, &m->thinking, p, summary_parts));
    snprintf(p, sizeof p, "%s.encrypted_content", path);
    TRY(dup_str(d, &m->thinking_signature, tw_json_get(it, "encrypted_content"), p, false));
    return other_keys(d, it, path, known);
}

static tw_status read_item(tw_rq *d, rs_turn *t, const cJSON *it, size_t i)
{
    char path[48];
    snprintf(path, sizeof path, "input[%zu]", i);
    if (!cJSON_IsObject(it))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "must be an object");
    const cJSON *tv = tw_json_get(it, "type");
    if (tv && !cJSON_IsNull(tv) && !is_str(tv)) {
        char p[64];
        snprintf(p, sizeof p, "%s.type", path);
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a string");
    }
    const char *type = is_str(tv) ? tv->valuestring : "message";
    if (strcmp(type, "message") == 0)
        return message_item(d, t, it, path);
    if (strcmp(type, "function_call") == 0)
        return call_item(d, t, it, path);
    if (strcmp(type, "function_call_output") == 0)
        return output_item(d, t, it, path);
    if (strcmp(type, "reasoning") == 0)
        return reasoning_item(d, t, it, path);
    if (strcmp(type, "item_reference") == 0)
        return tw_rq_warn(d, TW_D_ITEM_REFERENCE,
                          "%s: item_reference '%.80s' names a stored item; dropped", path,
                          tw_json_get_str(it, "id") ? tw_json_get_str(it, "id") : "?");
    return tw_rq_warn(d, TW_D_NOT_CARRIED, "%s: item of type '%.60s' not carried", path, type);
}

static tw_status read_input(tw_rq *d, const cJSON *in)
{
    if (is_str(in)) {
        tw_message *m;
        TRY(tw_rq_push(d, "input", &m));
        m->role = TW_ROLE_USER;
        return tw_buf_puts(&m->content, in->valuestring);
    }
    if (!cJSON_IsArray(in))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "input",
                          "missing; a string or an array of items is required");
    rs_turn t = {NO_TURN, false, NO_TURN};
    size_t i = 0;
    for (const cJSON *it = in->child; it; it = it->next, i++)
        TRY(read_item(d, &t, it, i));
    return TW_OK;
}

static tw_status read_tools(tw_rq *d, const cJSON *arr)
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
        if (!type)
            return tw_rq_fail(d, TW_ERR_INVALID, -1, path, "missing a string 'type'");
        if (strcmp(type, "function") != 0) {
            TRY(tw_rq_warn(d, TW_D_BUILTIN_TOOL, "%s: built-in tool of type '%.60s' dropped", path,
                           type));
            continue;
        }
        const cJSON *strict = tw_json_get(t, "strict");
        if (strict && !cJSON_IsNull(strict))
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s.strict: not carried", path));
        TRY(tw_rq_read_tool(d, t, path));
    }
    return TW_OK;
}

static tw_status read_choice(tw_rq *d, const cJSON *tc)
{
    tw_request *r = d->req;
    if (is_str(tc))
        return tw_rq_choice_word(d, tc->valuestring);
    if (!cJSON_IsObject(tc))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice", "must be a string or an object");
    const char *type = tw_json_get_str(tc, "type");
    if (!type)
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice.type",
                          "missing; a string is required");
    if (strcmp(type, "function") != 0)
        return tw_rq_warn(d, TW_D_NOT_CARRIED, "tool_choice: a choice of type '%.60s' not carried",
                          type);
    const char *name = tw_json_get_str(tc, "name");
    if (!name)
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice.name",
                          "missing; a string is required");
    r->choice = TW_CHOICE_NAMED;
    return (r->choice_name = tw_strdup(name)) ? TW_OK : TW_ERR_NOMEM;
}

/* Request fields kept in the neutral options as they are. */
static const char *const option_keys[] = {"stream",
                                          "stream_options",
                                          "temperature",
                                          "top_p",
                                          "user",
                                          "metadata",
                                          "store",
                                          "reasoning",
                                          "text",
                                          "truncation",
                                          "include",
                                          "service_tier",
                                          "top_logprobs",
                                          "max_tool_calls",
                                          "prompt_cache_key",
                                          "safety_identifier",
                                          "background",
                                          NULL};

static tw_status body(tw_rq *d, const cJSON *j)
{
    tw_request *r = d->req;
    TRY(tw_rq_root(d, j));
    TRY(dup_str(d, &r->model, tw_json_get(j, "model"), "model", false));
    const cJSON *ins = tw_json_get(j, "instructions");
    if (ins && !cJSON_IsNull(ins)) {
        if (!is_str(ins))
            return tw_rq_fail(d, TW_ERR_INVALID, -1, "instructions", "must be a string");
        tw_message *m;
        TRY(tw_rq_push(d, "instructions", &m));
        m->role = TW_ROLE_SYSTEM;
        TRY(tw_buf_puts(&m->content, ins->valuestring));
    }
    TRY(read_input(d, tw_json_get(j, "input")));
    for (const cJSON *c = j->child; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        if (strcmp(k, "model") == 0 || strcmp(k, "input") == 0 || strcmp(k, "instructions") == 0 ||
            cJSON_IsNull(c))
            continue;
        if (strcmp(k, "tools") == 0) {
            TRY(read_tools(d, c));
        } else if (strcmp(k, "tool_choice") == 0) {
            TRY(read_choice(d, c));
        } else if (strcmp(k, "parallel_tool_calls") == 0) {
            if (!cJSON_IsBool(c))
                return tw_rq_fail(d, TW_ERR_INVALID, -1, k, "must be a boolean");
            r->parallel_tool_calls = cJSON_IsTrue(c) ? 1 : 0;
        } else if (strcmp(k, "max_output_tokens") == 0) {
            TRY(tw_rq_put_option(d, "max_tokens", c));
        } else {
            bool known = false;
            for (size_t o = 0; option_keys[o] && !known; o++)
                known = strcmp(option_keys[o], k) == 0;
            if (known)
                TRY(tw_rq_put_option(d, k, c));
            else
                TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s: not carried by the neutral request", k));
        }
    }
    return TW_OK;
}

static tw_status finish(tw_rq *d, tw_status st)
{
    if (st == TW_ERR_NOMEM && d->err && !d->err->message[0])
        tw_rq_fail(d, st, -1, "", "out of memory");
    if (st != TW_OK) {
        tw_request_free(d->req);
        d->req->parallel_tool_calls = -1;
    }
    return st;
}

tw_status tw_responses_request_from_json(const cJSON *j, const tw_decode_opts *o, tw_request *out,
                                         tw_error *err)
{
    tw_rq d;
    tw_rq_begin(&d, o, out, err);
    return finish(&d, body(&d, j));
}

tw_status tw_responses_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                      tw_request *out, tw_error *err)
{
    tw_rq d;
    tw_rq_begin(&d, o, out, err);
    if (len > d.l.max_input_bytes)
        return tw_rq_fail(&d, TW_ERR_LIMIT, -1, "",
                          "the body is %zu bytes, more than max_input_bytes (%zu)", len,
                          d.l.max_input_bytes);
    cJSON *j = NULL;
    tw_error je;
    tw_status st = tw_json_parse(buf, len, d.l.max_depth, &j, &je);
    if (st != TW_OK)
        return tw_rq_fail_json(&d, st, &je, 0, "");
    st = body(&d, j);
    cJSON_Delete(j);
    return finish(&d, st);
}
