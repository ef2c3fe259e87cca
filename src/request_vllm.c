/*
 * Request decoder for the vLLM-native GenerateRequest JSON (the inverse of
 * the vllm-generate-request encoder). Rules: docs/formats/vllm-native.md.
 */
#include "toolwire/request_vllm.h"

#include "request_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolwire/json.h"
#include "toolwire/vllm.h"
#include "tw_macros.h"

static const char *const option_keys[] = {
    "temperature",         "two_pass",    "think_tag", "max_thinking_tokens",
    "max_response_tokens", "tool_parser", NULL};

static tw_status read_message(tw_rq *d, const cJSON *j, size_t i)
{
    char path[48], p[72];
    const char *role;
    TRY(tw_rq_message_head(d, j, i, path, sizeof path, p, sizeof p, &role));
    tw_role rl;
    if (!tw_role_from_name(role, &rl) || strcmp(tw_role_name(rl), role) != 0)
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p,
                          "unknown role '%s' (system, user, assistant or tool)", role);
    const cJSON *c = tw_json_get(j, "content");
    snprintf(p, sizeof p, "%s.content", path);
    if (c && !cJSON_IsNull(c) && !cJSON_IsString(c))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, p, "must be a string");
    tw_message *m;
    TRY(tw_rq_push(d, path, &m));
    m->role = rl;
    if (cJSON_IsString(c))
        TRY(tw_buf_puts(&m->content, c->valuestring));
    for (const cJSON *k = j->child; k; k = k->next) {
        const char *key = k->string ? k->string : "";
        if (strcmp(key, "role") != 0 && strcmp(key, "content") != 0)
            TRY(tw_rq_warn(d, TW_D_NOT_CARRIED, "%s.%s: not carried by the neutral request", path,
                           key));
    }
    if (rl == TW_ROLE_ASSISTANT)
        return tw_rq_take_calls(d, m, -1, path);
    return TW_OK;
}

static tw_status read_tools(tw_rq *d, const cJSON *arr)
{
    size_t cnt;
    TRY(tw_rq_tools_begin(d, arr, &cnt));
    for (const cJSON *t = arr->child; t; t = t->next) {
        char path[40];
        snprintf(path, sizeof path, "tools[%zu]", d->req->ntools);
        TRY(tw_rq_read_tool(d, t, path));
    }
    return TW_OK;
}

static tw_status read_choice(tw_rq *d, const cJSON *tc)
{
    tw_request *r = d->req;
    if (cJSON_IsString(tc))
        return tw_rq_choice_word(d, tc->valuestring);
    const char *name = tw_json_get_str(tc, "name");
    if (!cJSON_IsObject(tc) || !name || !name[0])
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "tool_choice",
                          "must be \"auto\", \"none\", \"required\" or {\"name\": X}");
    r->choice = TW_CHOICE_NAMED;
    return (r->choice_name = tw_strdup(name)) ? TW_OK : TW_ERR_NOMEM;
}

static tw_status body(tw_rq *d, const cJSON *j)
{
    TRY(tw_rq_root(d, j));
    const cJSON *msgs = tw_json_get(j, "messages");
    if (!cJSON_IsArray(msgs))
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "messages", "missing; an array is required");
    size_t cnt = (size_t)cJSON_GetArraySize(msgs);
    if (cnt > d->l.max_messages)
        return tw_rq_fail(d, TW_ERR_LIMIT, -1, "messages", "more than max_messages (%zu) messages",
                          d->l.max_messages);
    size_t i = 0;
    for (const cJSON *m = msgs->child; m; m = m->next, i++)
        TRY(read_message(d, m, i));
    for (const cJSON *c = j->child; c; c = c->next) {
        const char *k = c->string ? c->string : "";
        if (strcmp(k, "messages") == 0 || cJSON_IsNull(c))
            continue;
        if (strcmp(k, "tools") == 0) {
            TRY(read_tools(d, c));
        } else if (strcmp(k, "tool_choice") == 0) {
            TRY(read_choice(d, c));
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
    tw_vllm_params p;
    tw_error pe;
    if (tw_vllm_params_read(d->req->options, &p, &pe) != TW_OK)
        return tw_rq_fail(d, TW_ERR_INVALID, -1, "", "%.180s", pe.message);
    return tw_rq_link_results(d, "vllm-generate-request");
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

tw_status tw_vllm_request_from_json(const cJSON *j, const tw_decode_opts *o, tw_request *out,
                                    tw_error *err)
{
    tw_rq d;
    tw_rq_begin(&d, o, out, err);
    return finish(&d, body(&d, j));
}

tw_status tw_vllm_request_decode(const char *buf, size_t len, const tw_decode_opts *o,
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
    st = body(&d, j); /* number spellings kept by tw_json_parse */
    cJSON_Delete(j);
    return finish(&d, st);
}
