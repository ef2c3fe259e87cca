/*
 * The session checks (SES-*).
 */
#include "checks_int.h"

/* ================================================================ sessions */

/* Did a stream carry any content or a tool call? */
static bool stream_has_answer(const char *b, size_t n, size_t depth)
{
    sse_list ev;
    tw_limits L = {0};
    L.max_line_bytes = L.max_event_bytes = n + 1; /* the whole body may be one event */
    tw_chk_sse_parse(b, n, &L, &ev);
    bool any = false;
    for (size_t i = 0; i < ev.n && !any; i++) {
        cJSON *c = tw_chk_parse_json(ev.v[i].data, ev.v[i].data_len, depth);
        const cJSON *ch = tw_json_get(c, "choices");
        for (const cJSON *x = cJSON_IsArray(ch) ? ch->child : NULL; x; x = x->next) {
            const cJSON *d = tw_json_get(x, "delta");
            const char *t = tw_json_get_str(d, "content");
            if ((t && *t) || cJSON_GetArraySize(tw_json_get(d, "tool_calls")) > 0)
                any = true;
        }
        cJSON_Delete(c);
    }
    tw_chk_sse_free(&ev);
    return any;
}

static bool header_is(const tw_judge_input *in, const char *name, const char *value)
{
    const char *v = tw_chk_header(in->req_headers, in->nreq_headers, name);
    return v && strcasecmp(v, value) == 0;
}

void tw_chk_ses_checks(judge *j, bool stream, const cJSON *body)
{
    const tw_judge_input *in = j->in;
    tw_check_set *out = j->out;
    static const tw_check_id ids[] = {TW_CHK_SES_01, TW_CHK_SES_02, TW_CHK_SES_03};
    bool strict = header_is(in, "X-Tool-Event-Format", "openai");
    const char *sid = tw_chk_header(in->req_headers, in->nreq_headers, "X-Session-Id");
    if (!strict && !sid) {
        tw_chk_skip_ids(out, ids, 3, "not a strict-mode session request");
        return;
    }
    bool envelope = cJSON_IsObject(tw_json_get(body, "error")) &&
                    cJSON_IsString(tw_json_get(tw_json_get(body, "error"), "message"));
    if (strict && (!sid || !sid[0])) {
        if (in->status == 400 && envelope)
            PUT(out, TW_CHK_SES_03, TW_V_PASS, -1, "refused with 400");
        else
            PUT(out, TW_CHK_SES_03, TW_V_FAIL, -1, "HTTP %d%s without X-Session-Id", in->status,
                in->status == 400 ? " (no error envelope)" : "");
    } else {
        PUT(out, TW_CHK_SES_03, TW_V_SKIP, -1, "the session header is present");
    }
    /* continuation: tool messages after the last assistant message with calls */
    const cJSON *msgs = tw_json_get(in->req_body, "messages");
    const cJSON *last_asst = NULL;
    for (const cJSON *m = cJSON_IsArray(msgs) ? msgs->child : NULL; m; m = m->next) {
        const char *role = tw_json_get_str(m, "role");
        if (role && strcmp(role, "assistant") == 0 &&
            cJSON_GetArraySize(tw_json_get(m, "tool_calls")) > 0)
            last_asst = m;
    }
    size_t ntool = 0, unknown = 0, answered = 0, pending = 0;
    char ex[200] = "";
    id_index call_ids = {0};
    if (last_asst) {
        const cJSON *tcs = tw_json_get(last_asst, "tool_calls");
        pending = (size_t)cJSON_GetArraySize(tcs);
        tw_chk_idx_of_list(&call_ids, tcs, "id");
        for (const cJSON *m = last_asst->next; m; m = m->next) {
            const char *role = tw_json_get_str(m, "role");
            if (!role || strcmp(role, "tool") != 0)
                continue;
            ntool++;
            const char *id = tw_json_get_str(m, "tool_call_id");
            bool ok = tw_chk_idx_has(&call_ids, id);
            if (ok)
                answered++;
            else {
                if (!unknown) {
                    char cb[112];
                    snprintf(ex, sizeof ex, "tool_call_id %s",
                             tw_chk_clip(cb, sizeof cb, id ? id : "(missing)", 100));
                }
                unknown++;
            }
        }
    }
    bool nomem = call_ids.nomem;
    tw_chk_idx_free(&call_ids);
    if (nomem) {
        PUT(out, TW_CHK_SES_01, TW_V_SKIP, -1, "out of memory while indexing ids");
        PUT(out, TW_CHK_SES_02, TW_V_SKIP, -1, "out of memory while indexing ids");
        return;
    }
    if (in->session_pending < 0 && last_asst && ntool) {
        PUT(out, TW_CHK_SES_01, TW_V_SKIP, -1, "no run of this session paused earlier");
        PUT(out, TW_CHK_SES_02, TW_V_SKIP, -1, "no run of this session paused earlier");
        return;
    }
    if (!last_asst || ntool == 0 || (strict && (!sid || !sid[0]))) {
        PUT(out, TW_CHK_SES_01, TW_V_SKIP, -1, "not a continuation");
        PUT(out, TW_CHK_SES_02, TW_V_SKIP, -1, "not a continuation");
        return;
    }
    bool complete = unknown == 0 && answered >= pending;
    if (complete) {
        PUT(out, TW_CHK_SES_02, TW_V_SKIP, -1, "every pending call answered");
        bool ok = in->status == 200;
        if (ok && !stream) {
            const cJSON *m = tw_chk_oai_message(body);
            tw_buf t = {0};
            if (m)
                tw_chk_content_text(tw_json_get(m, "content"), &t);
            ok = m && (t.len > 0 || cJSON_GetArraySize(tw_json_get(m, "tool_calls")) > 0);
            tw_buf_free(&t);
        } else if (ok && stream) {
            ok = in->body && tw_memmem(in->body, in->body_len, "[DONE]", 6) != NULL &&
                 !in->transport_error && stream_has_answer(in->body, in->body_len, 64);
        }
        if (ok)
            PUT(out, TW_CHK_SES_01, TW_V_PASS, -1,
                "%zu result(s) accepted, HTTP 200 with an answer", answered);
        else
            PUT(out, TW_CHK_SES_01, TW_V_FAIL, -1, "continuation with %zu result(s) got HTTP %d%s",
                answered, in->status,
                in->status == 200 ? " without a final answer (no content, no tool call)" : "");
    } else {
        PUT(out, TW_CHK_SES_01, TW_V_SKIP, -1, "a pending call is not answered");
        if (in->status == 400 && envelope)
            PUT(out, TW_CHK_SES_02, TW_V_PASS, -1, "refused with 400 (%s)",
                ex[0] ? ex : "missing result");
        else
            PUT(out, TW_CHK_SES_02, TW_V_FAIL, -1, "HTTP %d for a continuation with %s", in->status,
                ex[0] ? ex : "a missing result");
    }
}
