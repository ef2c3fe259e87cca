/*
 * The OpenAI chat completions checks (OAI-*): the non-streamed body, the
 * assembled stream, the streamed result against the non-streamed one and the
 * error envelope.
 */
#include "checks_int.h"

/* ================================================================ OpenAI */

void tw_chk_ostream_free(ostream *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].id);
        free(s->v[i].type);
        free(s->v[i].name);
        tw_buf_free(&s->v[i].args);
    }
    free(s->v);
    free(s->slot);
    tw_buf_free(&s->content);
    free(s->finish);
    memset(s, 0, sizeof *s);
}

/* Slot of a stream index: a seeded mix, so chosen indexes cannot pile up in one chain. */
static size_t ostream_hash(const ostream *s, long index)
{
    static const char seed_anchor = 0;
    uint64_t x = (uint64_t)index ^ (uint64_t)(uintptr_t)&seed_anchor;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 31;
    return (size_t)x & (s->nslot - 1);
}

/* Point the index's slot at position pos (its latest call). */
static void ostream_link(ostream *s, size_t pos)
{
    size_t h = ostream_hash(s, s->v[pos].index);
    while (s->slot[h] && s->v[s->slot[h] - 1].index != s->v[pos].index)
        h = (h + 1) & (s->nslot - 1);
    s->slot[h] = pos + 1;
}

static sidx *ostream_new(ostream *s, long index, size_t off)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 8;
        sidx *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        s->v = nv;
        s->cap = nc;
    }
    if (2 * (s->n + 1) > s->nslot) {
        size_t ns = s->nslot ? s->nslot * 2 : 16;
        size_t *nt = calloc(ns, sizeof *nt);
        if (!nt)
            return NULL;
        free(s->slot);
        s->slot = nt;
        s->nslot = ns;
        for (size_t i = 0; i < s->n; i++)
            ostream_link(s, i);
    }
    sidx *x = &s->v[s->n];
    memset(x, 0, sizeof *x);
    x->index = index;
    x->off = off;
    ostream_link(s, s->n++);
    return x;
}

/* The latest call with this stream index, or a new one (*fresh). */
sidx *tw_chk_ostream_idx(ostream *s, long index, size_t off, bool *fresh)
{
    if (s->nslot) {
        size_t h = ostream_hash(s, index);
        for (; s->slot[h]; h = (h + 1) & (s->nslot - 1))
            if (s->v[s->slot[h] - 1].index == index) {
                *fresh = false;
                return &s->v[s->slot[h] - 1];
            }
    }
    *fresh = true;
    return ostream_new(s, index, off);
}

void tw_chk_ocall_checks(judge *j, const ocall *c, size_t n, const char *finish, int64_t fin_off,
                         const char *content, size_t clen, int64_t content_off,
                         const char *reasoning, bool streamed, size_t legacy_calls,
                         const char *shape_error)
{
    const tw_judge_input *in = j->in;
    tw_check_set *out = j->out;
    tw_error why = {.offset = -1};
    char ex[200];
    /* R02 */
    int64_t bad = -1;
    /* the first call whose id an earlier call already has, from one sorted index */
    size_t first_repeat = SIZE_MAX;
    id_index ids = {0};
    for (size_t i = 0; i < n; i++)
        tw_chk_idx_add(&ids, c[i].id && c[i].id[0] ? c[i].id : "");
    tw_chk_idx_seal(&ids);
    for (size_t i = 1; i < ids.n; i++)
        if (ids.v[i].id[0] && strcmp(ids.v[i].id, ids.v[i - 1].id) == 0 &&
            ids.v[i].pos < first_repeat)
            first_repeat = ids.v[i].pos;
    bool ids_nomem = ids.nomem;
    tw_chk_idx_free(&ids);
    for (size_t i = 0; i < n && bad < 0; i++) {
        if (!c[i].id || !c[i].id[0])
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "tool_calls[%zu] has no id", i), bad = (int64_t)c[i].off;
        else if (!c[i].type || strcmp(c[i].type, "function") != 0)
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "tool_calls[%zu].type is %.80s", i,
                     c[i].type ? c[i].type : "(absent)"),
                bad = (int64_t)c[i].off;
        else if (!c[i].name || !c[i].name[0])
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "tool_calls[%zu] has no name", i), bad = (int64_t)c[i].off;
        else if (i == first_repeat) {
            char cb[112];
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "id %s repeated at tool_calls[%zu]", tw_chk_clip(cb, sizeof cb, c[i].id, 100), i);
            bad = (int64_t)c[i].off;
        }
    }
    if (shape_error)
        PUT(out, TW_CHK_OAI_R02, TW_V_FAIL, tw_chk_find_off(in, "\"tool_calls\""), "%s", shape_error);
    else if (ids_nomem)
        PUT(out, TW_CHK_OAI_R02, TW_V_SKIP, -1, "out of memory while indexing ids");
    else if (n == 0)
        PUT(out, TW_CHK_OAI_R02, TW_V_SKIP, -1, "no tool calls");
    else if (bad >= 0 || why.message[0])
        PUT(out, TW_CHK_OAI_R02, TW_V_FAIL, bad, "%s", why.message);
    else
        PUT(out, TW_CHK_OAI_R02, TW_V_PASS, -1, "%zu call(s)", n);

    /* R03: names among the request's tools */
    const cJSON *tools = tw_json_get(in->req_body, "tools");
    const cJSON *choice = tw_json_get(in->req_body, "tool_choice");
    const char *only = tw_json_get_str(tw_json_get(choice, "function"), "name");
    if (!only)
        only = tw_json_get_str(choice, "name");
    if (n == 0)
        PUT(out, TW_CHK_OAI_R03, TW_V_SKIP, -1, "no tool calls");
    else if (cJSON_IsString(choice) && strcmp(choice->valuestring, "none") == 0)
        PUT(out, TW_CHK_OAI_R03, TW_V_FAIL, (int64_t)c[0].off, "tool_choice is none, yet %zu call(s) (%.64s)", n,
            c[0].name ? c[0].name : "");
    else if (only && c[0].name && strcmp(only, c[0].name) != 0)
        PUT(out, TW_CHK_OAI_R03, TW_V_FAIL, (int64_t)c[0].off, "tool_choice names %.64s, the call is %.64s", only,
            c[0].name);
    else if (!cJSON_IsArray(tools))
        PUT(out, TW_CHK_OAI_R03, TW_V_SKIP, -1, "the request declares no tools");
    else {
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++) {
            bool found = false;
            for (const cJSON *t = tools->child; t && !found; t = t->next) {
                const char *tn = tw_json_get_str(tw_json_get(t, "function"), "name");
                if (!tn)
                    tn = tw_json_get_str(t, "name");
                found = tn && c[i].name && strcmp(tn, c[i].name) == 0;
            }
            if (!found) {
                ok = false;
                char cb[112];
                PUT(out, TW_CHK_OAI_R03, TW_V_FAIL, (int64_t)c[i].off, "tool_calls[%zu].name %s is not declared",
                    i, tw_chk_clip(cb, sizeof cb, c[i].name ? c[i].name : "(absent)", 100));
            }
        }
        if (ok)
            PUT(out, TW_CHK_OAI_R03, TW_V_PASS, -1, "every name declared");
    }

    /* R04 + R05 */
    bool r04 = true, r05_any = false, r05 = true;
    for (size_t i = 0; i < n; i++) {
        const cJSON *a = c[i].args;
        if (!cJSON_IsString(a)) {
            tw_chk_excerpt_json(ex, sizeof ex, a);
            if (r04 && !streamed)
                PUT(out, TW_CHK_OAI_R04, TW_V_FAIL, (int64_t)c[i].off,
                    "tool_calls[%zu].arguments is not a string: %s", i, ex);
            r04 = false;
            continue;
        }
        cJSON *v = tw_chk_parse_json(a->valuestring, strlen(a->valuestring), j->L.max_depth);
        if (!cJSON_IsObject(v)) {
            tw_chk_excerpt(ex, sizeof ex, a->valuestring, strlen(a->valuestring));
            if (r04 && !streamed)
                PUT(out, TW_CHK_OAI_R04, TW_V_FAIL, (int64_t)c[i].off, "tool_calls[%zu].arguments %s: %s", i,
                    !v                 ? "is not JSON"
                    : cJSON_IsString(v) ? "is double-encoded"
                                        : "is not an object",
                    ex);
            r04 = false;
            cJSON_Delete(v);
            continue;
        }
        /* schema */
        if (cJSON_IsArray(tools))
            for (const cJSON *t = tools->child; t; t = t->next) {
                const cJSON *fn = tw_json_get(t, "function");
                const char *tn = tw_json_get_str(fn ? fn : t, "name");
                const cJSON *schema = tw_json_get(fn ? fn : t, "parameters");
                if (!schema)
                    schema = tw_json_get(t, "input_schema");
                if (!tn || !c[i].name || strcmp(tn, c[i].name) != 0 || !cJSON_IsObject(schema))
                    continue;
                r05_any = true;
                tw_error se;
                if (r05 && !tw_schema_validate(schema, v, j->L.max_depth, &se)) {
                    PUT(out, TW_CHK_OAI_R05, TW_V_FAIL, (int64_t)c[i].off, "tool_calls[%zu] (%.64s): %s", i,
                        c[i].name, se.message);
                    r05 = false;
                }
                break;
            }
        cJSON_Delete(v);
    }
    if (streamed && n > 0)
        PUT(out, TW_CHK_OAI_R04, TW_V_SKIP, -1, "streamed: the argument fragments are judged by OAI-S04");
    if (n == 0) {
        PUT(out, TW_CHK_OAI_R04, TW_V_SKIP, -1, "no tool calls");
        PUT(out, TW_CHK_OAI_R05, TW_V_SKIP, -1, "no tool calls");
    } else {
        if (r04 && !streamed)
            PUT(out, TW_CHK_OAI_R04, TW_V_PASS, -1, "every arguments value is a JSON object string");
        if (r05 && r05_any)
            PUT(out, TW_CHK_OAI_R05, TW_V_PASS, -1, "arguments satisfy the declared schemas");
        else if (r05)
            PUT(out, TW_CHK_OAI_R05, TW_V_SKIP, -1, "no schema to check against");
    }

    /* R06 (a legacy function_call is a call too) */
    n += legacy_calls;
    if (n > 0 && (!finish || strcmp(finish, "tool_calls") != 0))
        PUT(out, TW_CHK_OAI_R06, TW_V_FAIL, fin_off, "%zu call(s) but finish_reason %.64s", n,
            finish ? finish : "(absent)");
    else if (n == 0 && finish && strcmp(finish, "tool_calls") == 0)
        PUT(out, TW_CHK_OAI_R06, TW_V_FAIL, fin_off, "finish_reason tool_calls without calls");
    else
        PUT(out, TW_CHK_OAI_R06, TW_V_PASS, -1, "finish_reason %.64s", finish ? finish : "(absent)");

    /* R07 */
    static const char *const marks[] = {"<tool_call>", "</tool_call>", "<think>", "</think>",
                                        "<thinking>", "</thinking>"};
    const char *hit = NULL;
    size_t hit_at = 0;
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++) {
        const char *p = content ? tw_memmem(content, clen, marks[k], strlen(marks[k])) : NULL;
        if (p && (!hit || (size_t)(p - content) < hit_at)) {
            hit = marks[k];
            hit_at = (size_t)(p - content);
        }
    }
    if (hit) {
        tw_chk_excerpt(ex, sizeof ex, content + hit_at, clen - hit_at < 80 ? clen - hit_at : 80);
        int64_t off = content_off >= 0 ? content_off : tw_chk_find_off(in, hit);
        PUT(out, TW_CHK_OAI_R07, TW_V_FAIL, off, "%s at content offset %zu: %s", hit, hit_at, ex);
    } else {
        PUT(out, TW_CHK_OAI_R07, TW_V_PASS, -1, "no markup in %zu bytes of content", clen);
    }

    /* R08 */
    if (reasoning)
        PUT(out, TW_CHK_OAI_R08, TW_V_PASS, tw_chk_find_off(in, reasoning), "reasoning field: %s", reasoning);
    else
        PUT(out, TW_CHK_OAI_R08, TW_V_SKIP, -1, "no reasoning field");
}

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
        PUT(out, TW_CHK_OAI_R01, TW_V_FAIL, tw_chk_find_off(j->in, "\"choices\""), "no choice with a message");
    else if (!tw_json_get_str(m, "role") || strcmp(tw_json_get_str(m, "role"), "assistant") != 0)
        PUT(out, TW_CHK_OAI_R01, TW_V_FAIL, tw_chk_find_off(j->in, "\"role\""), "message role is %.40s",
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
    tw_chk_ocall_checks(j, calls, n, fr, tw_chk_find_off(j->in, "\"finish_reason\""), content.data, content.len,
                 -1, reasoning, false, cJSON_IsObject(legacy) ? 1 : 0,
                 tc && !cJSON_IsArray(tc) && !cJSON_IsNull(tc) ? "tool_calls is not an array" : NULL);
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
                PUT(out, TW_CHK_OAI_S01, TW_V_FAIL, (int64_t)e->off, "event data is not JSON: %s", ex);
                s01 = false;
            }
            continue;
        }
        if (tw_json_get(c, "error") && s08) {
            tw_chk_excerpt_json(ex, sizeof ex, tw_json_get(c, "error"));
            PUT(out, TW_CHK_OAI_S08, TW_V_FAIL, (int64_t)e->off, "error object in the stream: %s", ex);
            s08 = false;
        }
        const cJSON *choices = tw_json_get(c, "choices");
        const cJSON *ch0 = cJSON_IsArray(choices) ? choices->child : NULL;
        if (after_finish && ch0) {
            if (!after_finish_bad++ && s06)
                PUT(out, TW_CHK_OAI_S06, TW_V_FAIL, (int64_t)e->off, "a choice chunk follows the finish_reason chunk");
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
                    PUT(out, TW_CHK_OAI_S02, TW_V_FAIL, (int64_t)e->off, "first delta role is %.40s",
                        role ? role : "(absent)");
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
                                PUT(out, TW_CHK_OAI_S03, TW_V_FAIL, (int64_t)e->off, "tool-call delta without index");
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
                            x = ostream_new(st, ix, e->off);
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
                                    !id || !id[0] ? "id" : !type || strcmp(type, "function") ? "type function" : "name");
                                s03 = false;
                            }
                            x->id = tw_strdup(id ? id : "");
                            x->type = tw_strdup(type ? type : "");
                            x->name = tw_strdup(name ? name : "");
                        } else {
                            if (id && strcmp(id, x->id) != 0 && s03) {
                                PUT(out, TW_CHK_OAI_S03, TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes id from \"%.64s\" to \"%.64s\"", x->index, x->id, id);
                                s03 = false;
                            } else if (name && strcmp(name, x->name) != 0 && s03) {
                                PUT(out, TW_CHK_OAI_S03, TW_V_FAIL, (int64_t)e->off,
                                    "index %ld changes name from \"%.64s\" to \"%.64s\"", x->index, x->name, name);
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
                    PUT(out, TW_CHK_OAI_S06, TW_V_FAIL, (int64_t)e->off, "a second finish_reason: %.40s",
                        fr->valuestring);
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
        PUT(out, TW_CHK_OAI_S03, st->n ? TW_V_PASS : TW_V_SKIP, -1, "%zu tool-call index(es)", st->n);
    /* S04 */
    bool s04 = true;
    for (size_t i = 0; i < st->n && s04; i++) {
        cJSON *v = tw_chk_parse_json(st->v[i].args.data ? st->v[i].args.data : "", st->v[i].args.len,
                              j->L.max_depth);
        if (!cJSON_IsObject(v)) {
            tw_chk_excerpt(ex, sizeof ex, st->v[i].args.data ? st->v[i].args.data : "", st->v[i].args.len);
            PUT(out, TW_CHK_OAI_S04, TW_V_FAIL, (int64_t)st->v[i].off,
                "index %ld arguments are not one JSON object: %s", st->v[i].index, ex);
            s04 = false;
        }
        cJSON_Delete(v);
    }
    if (s04)
        PUT(out, TW_CHK_OAI_S04, st->n ? TW_V_PASS : TW_V_SKIP, -1, "%zu argument string(s)", st->n);
    if (s05)
        PUT(out, TW_CHK_OAI_S05, st->n > 1 ? TW_V_PASS : TW_V_SKIP, -1, "%zu call(s) on distinct indexes",
            st->n);
    bool cut = !done || in->transport_error;
    if (s06 && finish_chunks == 0 && (!s08 || cut)) {
        PUT(out, TW_CHK_OAI_S06, TW_V_SKIP, -1, "%s", !s08 ? "the stream carried an error (see OAI-S08)"
                                                    : "the stream was cut before its end (see OAI-S01)");
    } else if (s06) {
        if (finish_chunks == 0)
            PUT(out, TW_CHK_OAI_S06, TW_V_FAIL, (int64_t)in->body_len, "no chunk carries a finish_reason");
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
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%zu call(s) streamed, %zu not streamed", a->ncalls, b->ncalls);
        return false;
    }
    for (size_t i = 0; i < a->ncalls; i++) {
        if (strcmp(a->calls[i].name, b->calls[i].name) != 0) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "call %zu name %.64s vs %.64s", i, a->calls[i].name, b->calls[i].name);
            return false;
        }
        if (strcmp(a->calls[i].id, b->calls[i].id) != 0) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "call %zu id %.64s vs %.64s", i, a->calls[i].id, b->calls[i].id);
            return false;
        }
        if (!a->calls[i].args || !b->calls[i].args ||
            !tw_json_equal(a->calls[i].args, b->calls[i].args)) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "call %zu (%.64s) arguments differ", i, a->calls[i].name);
            return false;
        }
    }
    return true;
}

static bool results_equal(const tw_result *a, const tw_result *b, tw_error *err)
{
    if (a->msg.content.len != b->msg.content.len ||
        (a->msg.content.len && memcmp(a->msg.content.data, b->msg.content.data, a->msg.content.len))) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "content differs (%zu vs %zu bytes)", a->msg.content.len, b->msg.content.len);
        return false;
    }
    if (a->msg.thinking.len != b->msg.thinking.len ||
        (a->msg.thinking.len &&
         memcmp(a->msg.thinking.data, b->msg.thinking.data, a->msg.thinking.len))) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "thinking differs");
        return false;
    }
    if (a->msg.ncalls != b->msg.ncalls) {
        tw_error_set(err, TW_ERR_INVALID, -1, NULL, "%zu call(s) streamed, %zu not streamed", a->msg.ncalls, b->msg.ncalls);
        return false;
    }
    for (size_t i = 0; i < a->msg.ncalls; i++) {
        const tw_call *x = &a->msg.calls[i], *y = &b->msg.calls[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0 ||
            strcmp(x->id ? x->id : "", y->id ? y->id : "") != 0 ||
            !tw_json_equal(x->arguments, y->arguments)) {
            tw_error_set(err, TW_ERR_INVALID, -1, NULL, "call %zu (%.64s) differs", i, x->name ? x->name : "");
            return false;
        }
    }
    const char *fa = a->finish_reason ? a->finish_reason : "", *fb = b->finish_reason ? b->finish_reason : "";
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
    tw_status sb = sa == TW_OK ? tw_decode_response(in->path, false, in->pair_body, in->pair_len, &o, &b)
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
                  tw_chk_parse_json(st->v[i].args.data ? st->v[i].args.data : "", st->v[i].args.len,
                             j->L.max_depth),
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
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "content differs (%zu vs %zu bytes)", s.content.len, p.content.len);
            eq = false;
        } else if (!calls_equal_view(&s, &p, &why)) {
            eq = false;
        } else if (strcmp(s.finish ? s.finish : "", p.finish ? p.finish : "") != 0) {
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "finish_reason %.40s vs %.40s", s.finish ? s.finish : "",
                     p.finish ? p.finish : "");
            eq = false;
        }
        PUT(j->out, TW_CHK_OAI_S07, eq ? TW_V_PASS : TW_V_FAIL, -1, "%s", eq ? "streamed equals non-streamed" : why.message);
    }
    tw_chk_rview_free(&s);
    tw_chk_rview_free(&p);
}

/* OAI-E01: the error envelope. */
void tw_chk_oai_error(judge *j, const cJSON *body)
{
    const cJSON *e = tw_json_get(body, "error");
    char ex[200];
    if (!cJSON_IsObject(e)) {
        tw_chk_excerpt(ex, sizeof ex, j->in->body ? j->in->body : "", j->in->body_len);
        PUT(j->out, TW_CHK_OAI_E01, TW_V_FAIL, 0, "HTTP %d without an error object: %s", j->in->status, ex);
        return;
    }
    if (!cJSON_IsString(tw_json_get(e, "message"))) {
        PUT(j->out, TW_CHK_OAI_E01, TW_V_FAIL, tw_chk_find_off(j->in, "\"error\""), "error.message is not a string");
        return;
    }
    static const char *const keys[] = {"type", "param", "code"};
    for (size_t i = 0; i < 3; i++)
        if (!tw_json_get(e, keys[i])) {
            PUT(j->out, TW_CHK_OAI_E01, TW_V_FAIL, tw_chk_find_off(j->in, "\"error\""), "error.%s is absent", keys[i]);
            return;
        }
    char cb[132];
    PUT(j->out, TW_CHK_OAI_E01, TW_V_PASS, -1, "HTTP %d, error envelope: %s", j->in->status,
        tw_chk_clip(cb, sizeof cb, tw_json_get_str(e, "message"), 120));
}
