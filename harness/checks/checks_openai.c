/*
 * The OpenAI chat completions family (OAI-*): the non-streamed body, the
 * assembled stream and the streamed result against the non-streamed one.
 * The per-call checks and the error envelope it shares with other families
 * are in checks_oai_base.c, below it.
 */
#include "checks_int.h"

void tw_chk_oai_response(judge *j, const cJSON *body)
{
    tw_check_set *out = j->out;
    const cJSON *m = tw_chk_oai_message(body);
    const char *obj = tw_json_get_str(body, "object");
    if (!cJSON_IsObject(body))
        PUT(out, TW_CHK_OAI_R01, TW_V_FAIL, 0, "the body is not a JSON object");
    else if (!obj || strcmp(obj, "chat.completion") != 0)
        PUT(out, TW_CHK_OAI_R01, TW_V_FAIL, tw_chk_find_off(j->in, "\"object\""), "object is %.80s",
            obj ? obj : "(absent)");
    else if (!m)
        PUT(out, TW_CHK_OAI_R01, TW_V_FAIL, tw_chk_find_off(j->in, "\"choices\""),
            "no choice with a message");
    else if (!tw_json_get_str(m, "role") || strcmp(tw_json_get_str(m, "role"), "assistant") != 0)
        PUT(out, TW_CHK_OAI_R01, TW_V_FAIL, tw_chk_find_off(j->in, "\"role\""),
            "message role is %.40s",
            tw_json_get_str(m, "role") ? tw_json_get_str(m, "role") : "(absent)");
    else
        PUT(out, TW_CHK_OAI_R01, TW_V_PASS, -1, "chat.completion with an assistant message");
    if (!m) {
        static const tw_check_id ids[] = {TW_CHK_OAI_R02, TW_CHK_OAI_R03, TW_CHK_OAI_R04,
                                          TW_CHK_OAI_R05, TW_CHK_OAI_R06, TW_CHK_OAI_R07,
                                          TW_CHK_OAI_R08};
        for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
            PUT(out, ids[i], TW_V_SKIP, -1, "no message to judge");
        return;
    }
    const cJSON *tc = tw_json_get(m, "tool_calls");
    size_t n = 0;
    ocall calls[256] = {{0}};
    if (tc && (cJSON_IsArray(tc) || cJSON_IsObject(tc)))
        for (const cJSON *c = tc->child; c && n < 256; c = c->next, n++) {
            const cJSON *fn = tw_json_get(c, "function");
            calls[n] = (ocall){tw_json_get_str(c, "id"), tw_json_get_str(c, "type"),
                               tw_json_get_str(fn, "name"), tw_json_get(fn, "arguments"), 0};
            int64_t o = calls[n].id ? tw_chk_find_off(j->in, calls[n].id) : -1;
            calls[n].off = o < 0 ? 0 : (size_t)o;
        }
    tw_buf content = {0};
    tw_chk_content_text(tw_json_get(m, "content"), &content);
    const char *reasoning = tw_json_get(m, "reasoning_content") ? "reasoning_content"
                            : tw_json_get(m, "reasoning")       ? "reasoning"
                                                                : NULL;
    const char *fr = tw_json_get_str(tw_json_get(body, "choices")->child, "finish_reason");
    const cJSON *legacy = tw_json_get(m, "function_call");
    tw_chk_ocall_checks(j, calls, n, fr, tw_chk_find_off(j->in, "\"finish_reason\""), content.data,
                        content.len, -1, reasoning, false, cJSON_IsObject(legacy) ? 1 : 0,
                        tc && !cJSON_IsArray(tc) && !cJSON_IsNull(tc) ? "tool_calls is not an array"
                                                                      : NULL);
    tw_buf_free(&content);
}

/* Assemble an OpenAI stream and judge S01..S06, S08 and the call checks. */
void tw_chk_oai_stream(judge *j, ostream *st)
{
    const tw_judge_input *in = j->in;
    tw_check_set *out = j->out;
    sse_list ev;
    tw_chk_sse_parse(in->body, in->body_len, &j->L, &ev);
    /* S01 */
    bool s01 = true;
    if (!tw_chk_ctype_is(in, "text/event-stream")) {
        const char *ct = tw_chk_header(in->resp_headers, in->nresp_headers, "Content-Type");
        PUT(out, TW_CHK_OAI_S01, TW_V_FAIL, -1, "Content-Type is %.80s", ct ? ct : "(absent)");
        s01 = false;
    }
    bool done = false;
    size_t done_at = 0;
    bool s02_decided = false, s03 = true, s05 = true, s06 = true, s08 = true;
    size_t finish_chunks = 0;
    size_t after_finish_bad = 0;
    bool after_finish = false;
    char ex[200];
    for (size_t i = 0; i < ev.n; i++) {
        sse_ev *e = &ev.v[i];
        if (e->type && strcmp(e->type, "error") == 0 && s08) {
            tw_chk_excerpt(ex, sizeof ex, e->data, e->data_len);
            PUT(out, TW_CHK_OAI_S08, TW_V_FAIL, (int64_t)e->off, "error event: %s", ex);
            s08 = false;
        }
        if (e->over_cap) {
            if (s01) {
                PUT(out, TW_CHK_OAI_S01, TW_V_FAIL, (int64_t)e->off, "event dropped: %s",
                    tw_code_message(e->over_cap));
                s01 = false;
            }
            continue;
        }
        if (e->data_len == 6 && memcmp(e->data, "[DONE]", 6) == 0) {
            if (!done)
                done_at = i;
            done = true;
            continue;
        }
        if (done && s01) {
            PUT(out, TW_CHK_OAI_S01, TW_V_FAIL, (int64_t)e->off, "data after [DONE]");
            s01 = false;
        }
        cJSON *c = tw_chk_parse_json(e->data, e->data_len, j->L.max_depth);
        if (!c) {
            if (s01) {
                tw_chk_excerpt(ex, sizeof ex, e->data, e->data_len);
                PUT(out, TW_CHK_OAI_S01, TW_V_FAIL, (int64_t)e->off, "event data is not JSON: %s",
                    ex);
                s01 = false;
            }
            continue;
        }
        if (tw_json_get(c, "error") && s08) {
            tw_chk_excerpt_json(ex, sizeof ex, tw_json_get(c, "error"));
            PUT(out, TW_CHK_OAI_S08, TW_V_FAIL, (int64_t)e->off, "error object in the stream: %s",
                ex);
            s08 = false;
        }
        const cJSON *choices = tw_json_get(c, "choices");
        const cJSON *ch0 = cJSON_IsArray(choices) ? choices->child : NULL;
        if (after_finish && ch0) {
            if (!after_finish_bad++ && s06)
                PUT(out, TW_CHK_OAI_S06, TW_V_FAIL, (int64_t)e->off,
                    "a choice chunk follows the finish_reason chunk");
            s06 = false;
        }
        for (const cJSON *ch = ch0; ch; ch = ch->next) {
            const cJSON *delta = tw_json_get(ch, "delta");
            if (!s02_decided && cJSON_IsObject(delta)) {
                s02_decided = true;
                const char *role = tw_json_get_str(delta, "role");
                st->role_first = role && strcmp(role, "assistant") == 0;
                if (st->role_first)
                    PUT(out, TW_CHK_OAI_S02, TW_V_PASS, -1, "first delta carries role assistant");
                else
                    PUT(out, TW_CHK_OAI_S02, TW_V_FAIL, (int64_t)e->off,
                        "first delta role is %.40s", role ? role : "(absent)");
            }
            if (cJSON_IsObject(delta)) {
                tw_chk_content_text(tw_json_get(delta, "content"), &st->content);
                if (!st->reasoning_field) {
                    if (tw_json_get(delta, "reasoning_content"))
                        st->reasoning_field = "reasoning_content";
                    else if (tw_json_get(delta, "reasoning"))
                        st->reasoning_field = "reasoning";
                }
                const cJSON *tcs = tw_json_get(delta, "tool_calls");
                if (cJSON_IsArray(tcs))
                    for (const cJSON *tc = tcs->child; tc; tc = tc->next) {
                        const cJSON *idx = tw_json_get(tc, "index");
                        const cJSON *fn = tw_json_get(tc, "function");
                        const char *id = tw_json_get_str(tc, "id");
                        const char *type = tw_json_get_str(tc, "type");
                        const char *name = tw_json_get_str(fn, "name");
                        const cJSON *args = tw_json_get(fn, "arguments");
                        if (!cJSON_IsNumber(idx)) {
                            if (s03)
                                PUT(out, TW_CHK_OAI_S03, TW_V_FAIL, (int64_t)e->off,
                                    "tool-call delta without index");
                            s03 = false;
                        }
                        long ix = (long)tw_json_int(idx, -1, LONG_MAX, 0);
                        bool fresh = false;
                        sidx *x = tw_chk_ostream_idx(st, ix, e->off, &fresh);
                        if (x && !fresh && id && id[0] && x->id[0] && strcmp(id, x->id) != 0) {
                            /* a different call reusing the index: kept apart (split by id) */
                            if (s05)
                                PUT(out, TW_CHK_OAI_S05, TW_V_FAIL, (int64_t)e->off,
                                    "index %ld reused by id %.64s after %.64s", ix, id, x->id);
                            s05 = false;
                            if (s03)
                                PUT(out, TW_CHK_OAI_S03, TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes id from %.64s to %.64s", ix, x->id, id);
                            s03 = false;
                            st->n_split++;
                            x = tw_chk_ostream_new(st, ix, e->off);
                            if (x) {
                                x->id = tw_strdup(id);
                                x->type = tw_strdup(type ? type : "function");
                                x->name = tw_strdup(name ? name : "");
                                if (cJSON_IsString(args))
                                    tw_buf_puts(&x->args, args->valuestring);
                            }
                            continue;
                        }
                        if (!x)
                            continue;
                        if (fresh) {
                            if (s03 && (!id || !id[0] || !type || strcmp(type, "function") != 0 ||
                                        !name || !name[0])) {
                                PUT(out, TW_CHK_OAI_S03, TW_V_FAIL, (int64_t)e->off,
                                    "first fragment of index %ld lacks %s", x->index,
                                    !id || !id[0]                       ? "id"
                                    : !type || strcmp(type, "function") ? "type function"
                                                                        : "name");
                                s03 = false;
                            }
                            x->id = tw_strdup(id ? id : "");
                            x->type = tw_strdup(type ? type : "");
                            x->name = tw_strdup(name ? name : "");
                        } else {
                            if (id && strcmp(id, x->id) != 0 && s03) {
                                PUT(out, TW_CHK_OAI_S03, TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes id from \"%.64s\" to \"%.64s\"", x->index,
                                    x->id, id);
                                s03 = false;
                            } else if (name && strcmp(name, x->name) != 0 && s03) {
                                PUT(out, TW_CHK_OAI_S03, TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes name from \"%.64s\" to \"%.64s\"", x->index,
                                    x->name, name);
                                s03 = false;
                            } else if (type && strcmp(type, "function") != 0 && s03) {
                                PUT(out, TW_CHK_OAI_S03, TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes type to %.64s", x->index, type);
                                s03 = false;
                            }
                            if (id && id[0] && !x->id[0]) {
                                free(x->id);
                                x->id = tw_strdup(id);
                            }
                            if (name && name[0] && !x->name[0]) {
                                free(x->name);
                                x->name = tw_strdup(name);
                            }
                        }
                        if (cJSON_IsString(args))
                            tw_buf_puts(&x->args, args->valuestring);
                    }
            }
            const cJSON *fr = tw_json_get(ch, "finish_reason");
            if (cJSON_IsString(fr)) {
                finish_chunks++;
                if (finish_chunks == 1) {
                    free(st->finish);
                    st->finish = tw_strdup(fr->valuestring);
                } else if (s06) {
                    PUT(out, TW_CHK_OAI_S06, TW_V_FAIL, (int64_t)e->off,
                        "a second finish_reason: %.40s", fr->valuestring);
                    s06 = false;
                }
                after_finish = true;
            }
        }
        st->any_chunk = true;
        cJSON_Delete(c);
    }
    (void)done_at;
    if (s01 && !done) {
        int64_t off = (int64_t)in->body_len;
        PUT(out, TW_CHK_OAI_S01, TW_V_FAIL, off, "the stream ends without data: [DONE]%s%s",
            in->transport_error ? " (" : "", in->transport_error ? in->transport_error : "");
        s01 = false;
    }
    if (s01)
        PUT(out, TW_CHK_OAI_S01, TW_V_PASS, -1, "%zu events, ends with [DONE]", ev.n);
    if (!s02_decided)
        PUT(out, TW_CHK_OAI_S02, TW_V_SKIP, -1, "no choice delta");
    if (s03)
        PUT(out, TW_CHK_OAI_S03, st->n ? TW_V_PASS : TW_V_SKIP, -1, "%zu tool-call index(es)",
            st->n);
    /* S04 */
    bool s04 = true;
    for (size_t i = 0; i < st->n && s04; i++) {
        cJSON *v = tw_chk_parse_json(st->v[i].args.data ? st->v[i].args.data : "",
                                     st->v[i].args.len, j->L.max_depth);
        if (!cJSON_IsObject(v)) {
            tw_chk_excerpt(ex, sizeof ex, st->v[i].args.data ? st->v[i].args.data : "",
                           st->v[i].args.len);
            PUT(out, TW_CHK_OAI_S04, TW_V_FAIL, (int64_t)st->v[i].off,
                "index %ld arguments are not one JSON object: %s", st->v[i].index, ex);
            s04 = false;
        }
        cJSON_Delete(v);
    }
    if (s04)
        PUT(out, TW_CHK_OAI_S04, st->n ? TW_V_PASS : TW_V_SKIP, -1, "%zu argument string(s)",
            st->n);
    if (s05)
        PUT(out, TW_CHK_OAI_S05, st->n > 1 ? TW_V_PASS : TW_V_SKIP, -1,
            "%zu call(s) on distinct indexes", st->n);
    bool cut = !done || in->transport_error;
    if (s06 && finish_chunks == 0 && (!s08 || cut)) {
        PUT(out, TW_CHK_OAI_S06, TW_V_SKIP, -1, "%s",
            !s08 ? "the stream carried an error (see OAI-S08)"
                 : "the stream was cut before its end (see OAI-S01)");
    } else if (s06) {
        if (finish_chunks == 0)
            PUT(out, TW_CHK_OAI_S06, TW_V_FAIL, (int64_t)in->body_len,
                "no chunk carries a finish_reason");
        else
            PUT(out, TW_CHK_OAI_S06, TW_V_PASS, -1, "one finish_reason: %.40s", st->finish);
    }
    if (s08)
        PUT(out, TW_CHK_OAI_S08, TW_V_PASS, -1, "no error in the stream");
    /* the call-level checks over the assembled message */
    ocall calls[256] = {{0}};
    size_t n = 0;
    cJSON *argstr[256];
    for (size_t i = 0; i < st->n && n < 256; i++, n++) {
        argstr[n] = cJSON_CreateString(st->v[i].args.data ? st->v[i].args.data : "");
        calls[n] = (ocall){st->v[i].id, st->v[i].type, st->v[i].name, argstr[n], st->v[i].off};
    }
    PUT(out, TW_CHK_OAI_R01, TW_V_SKIP, -1, "streamed response (see OAI-S01)");
    tw_chk_ocall_checks(j, calls, n, st->finish, -1, st->content.data, st->content.len, -1,
                        st->reasoning_field, true, 0, NULL);
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(argstr[i]);
    tw_chk_sse_free(&ev);
}

/* OAI-S07: the streamed result against the non-streamed one. */
static bool calls_equal_view(const rview *a, const rview *b, tw_error *err)
{
    if (a->ncalls != b->ncalls) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%zu call(s) streamed, %zu not streamed",
                     a->ncalls, b->ncalls);
        return false;
    }
    for (size_t i = 0; i < a->ncalls; i++) {
        if (strcmp(a->calls[i].name, b->calls[i].name) != 0) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "call %zu name %.64s vs %.64s", i,
                         a->calls[i].name, b->calls[i].name);
            return false;
        }
        if (strcmp(a->calls[i].id, b->calls[i].id) != 0) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "call %zu id %.64s vs %.64s", i,
                         a->calls[i].id, b->calls[i].id);
            return false;
        }
        if (!a->calls[i].args || !b->calls[i].args ||
            !tw_json_equal(a->calls[i].args, b->calls[i].args)) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "call %zu (%.64s) arguments differ", i,
                         a->calls[i].name);
            return false;
        }
    }
    return true;
}

static bool results_equal(const tw_result *a, const tw_result *b, tw_error *err)
{
    if (a->msg.content.len != b->msg.content.len ||
        (a->msg.content.len &&
         memcmp(a->msg.content.data, b->msg.content.data, a->msg.content.len))) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "content differs (%zu vs %zu bytes)",
                     a->msg.content.len, b->msg.content.len);
        return false;
    }
    if (a->msg.thinking.len != b->msg.thinking.len ||
        (a->msg.thinking.len &&
         memcmp(a->msg.thinking.data, b->msg.thinking.data, a->msg.thinking.len))) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "thinking differs");
        return false;
    }
    if (a->msg.ncalls != b->msg.ncalls) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%zu call(s) streamed, %zu not streamed",
                     a->msg.ncalls, b->msg.ncalls);
        return false;
    }
    for (size_t i = 0; i < a->msg.ncalls; i++) {
        const tw_call *x = &a->msg.calls[i], *y = &b->msg.calls[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0 ||
            strcmp(x->id ? x->id : "", y->id ? y->id : "") != 0 ||
            !tw_json_equal(x->arguments, y->arguments)) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "call %zu (%.64s) differs", i,
                         x->name ? x->name : "");
            return false;
        }
    }
    const char *fa = a->finish_reason ? a->finish_reason : "",
               *fb = b->finish_reason ? b->finish_reason : "";
    if (strcmp(fa, fb) != 0) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "finish_reason %.40s vs %.40s", fa, fb);
        return false;
    }
    return true;
}

void tw_chk_oai_s07(judge *j, const ostream *st)
{
    const tw_judge_input *in = j->in;
    if (!in->pair_body) {
        PUT(j->out, TW_CHK_OAI_S07, TW_V_SKIP, -1, "the fixture gives no non-streamed counterpart");
        return;
    }
    tw_error why = {.offset = -1};
    tw_decode_opts o = {0};
    o.limits = j->L;
    o.allow_unknown_tool = true;
    tw_result a, b;
    tw_status sa = tw_decode_response(in->path, true, in->body, in->body_len, &o, &a);
    tw_status sb = sa == TW_OK
                       ? tw_decode_response(in->path, false, in->pair_body, in->pair_len, &o, &b)
                       : TW_ERR_UNSUPPORTED;
    if (sa == TW_OK && sb == TW_OK) {
        bool eq = results_equal(&a, &b, &why);
        PUT(j->out, TW_CHK_OAI_S07, eq ? TW_V_PASS : TW_V_FAIL, -1, "%s",
            eq ? "reference decoders give equal results" : why.message);
        tw_result_free(&a);
        tw_result_free(&b);
        return;
    }
    if (sa == TW_OK)
        tw_result_free(&a);
    /* the reference decoders are not available: compare the light views */
    rview s = {0}, p = {0};
    s.ok = true;
    tw_buf_append(&s.content, st->content.data ? st->content.data : "", st->content.len);
    for (size_t i = 0; i < st->n; i++)
        tw_chk_rview_add(&s, st->v[i].id, st->v[i].name,
                         tw_chk_parse_json(st->v[i].args.data ? st->v[i].args.data : "",
                                           st->v[i].args.len, j->L.max_depth),
                         st->v[i].off);
    s.finish = st->finish ? tw_strdup(st->finish) : NULL;
    cJSON *pb = tw_chk_parse_json(in->pair_body, in->pair_len, j->L.max_depth);
    tw_chk_view_openai(pb, j->L.max_depth, &p);
    cJSON_Delete(pb);
    if (!p.ok) {
        PUT(j->out, TW_CHK_OAI_S07, TW_V_SKIP, -1, "the non-streamed counterpart has no message");
    } else {
        bool eq = true;
        if (s.content.len != p.content.len ||
            (s.content.len && memcmp(s.content.data, p.content.data, s.content.len))) {
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "content differs (%zu vs %zu bytes)",
                         s.content.len, p.content.len);
            eq = false;
        } else if (!calls_equal_view(&s, &p, &why)) {
            eq = false;
        } else if (strcmp(s.finish ? s.finish : "", p.finish ? p.finish : "") != 0) {
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "finish_reason %.40s vs %.40s",
                         s.finish ? s.finish : "", p.finish ? p.finish : "");
            eq = false;
        }
        PUT(j->out, TW_CHK_OAI_S07, eq ? TW_V_PASS : TW_V_FAIL, -1, "%s",
            eq ? "streamed equals non-streamed" : why.message);
    }
    tw_chk_rview_free(&s);
    tw_chk_rview_free(&p);
}
