/*
 * What the OpenAI-shaped families share (checks_int.h), below every family:
 * the index of a stream's calls, the per-call checks of a chat answer
 * (OpenAI chat and the tool-call text of any format), and the OpenAI error
 * envelope (chat completions and Responses).
 */
#include "checks_int.h"

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

sidx *tw_chk_ostream_new(ostream *s, long index, size_t off)
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
    return tw_chk_ostream_new(s, index, off);
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
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "tool_calls[%zu] has no id", i),
                bad = (int64_t)c[i].off;
        else if (!c[i].type || strcmp(c[i].type, "function") != 0)
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "tool_calls[%zu].type is %.80s", i,
                         c[i].type ? c[i].type : "(absent)"),
                bad = (int64_t)c[i].off;
        else if (!c[i].name || !c[i].name[0])
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "tool_calls[%zu] has no name", i),
                bad = (int64_t)c[i].off;
        else if (i == first_repeat) {
            char cb[112];
            tw_error_set(&why, TW_ERR_INVALID, -1, NULL, "id %s repeated at tool_calls[%zu]",
                         tw_chk_clip(cb, sizeof cb, c[i].id, 100), i);
            bad = (int64_t)c[i].off;
        }
    }
    if (shape_error)
        PUT(out, TW_CHK_OAI_R02, TW_V_FAIL, tw_chk_find_off(in, "\"tool_calls\""), "%s",
            shape_error);
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
        PUT(out, TW_CHK_OAI_R03, TW_V_FAIL, (int64_t)c[0].off,
            "tool_choice is none, yet %zu call(s) (%.64s)", n, c[0].name ? c[0].name : "");
    else if (only && c[0].name && strcmp(only, c[0].name) != 0)
        PUT(out, TW_CHK_OAI_R03, TW_V_FAIL, (int64_t)c[0].off,
            "tool_choice names %.64s, the call is %.64s", only, c[0].name);
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
                PUT(out, TW_CHK_OAI_R03, TW_V_FAIL, (int64_t)c[i].off,
                    "tool_calls[%zu].name %s is not declared", i,
                    tw_chk_clip(cb, sizeof cb, c[i].name ? c[i].name : "(absent)", 100));
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
                PUT(out, TW_CHK_OAI_R04, TW_V_FAIL, (int64_t)c[i].off,
                    "tool_calls[%zu].arguments %s: %s", i,
                    !v                  ? "is not JSON"
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
                    PUT(out, TW_CHK_OAI_R05, TW_V_FAIL, (int64_t)c[i].off,
                        "tool_calls[%zu] (%.64s): %s", i, c[i].name, se.message);
                    r05 = false;
                }
                break;
            }
        cJSON_Delete(v);
    }
    if (streamed && n > 0)
        PUT(out, TW_CHK_OAI_R04, TW_V_SKIP, -1,
            "streamed: the argument fragments are judged by OAI-S04");
    if (n == 0) {
        PUT(out, TW_CHK_OAI_R04, TW_V_SKIP, -1, "no tool calls");
        PUT(out, TW_CHK_OAI_R05, TW_V_SKIP, -1, "no tool calls");
    } else {
        if (r04 && !streamed)
            PUT(out, TW_CHK_OAI_R04, TW_V_PASS, -1,
                "every arguments value is a JSON object string");
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
        PUT(out, TW_CHK_OAI_R06, TW_V_PASS, -1, "finish_reason %.64s",
            finish ? finish : "(absent)");

    /* R07 */
    static const char *const marks[] = {"<tool_call>", "</tool_call>", "<think>",
                                        "</think>",    "<thinking>",   "</thinking>"};
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
        PUT(out, TW_CHK_OAI_R08, TW_V_PASS, tw_chk_find_off(in, reasoning), "reasoning field: %s",
            reasoning);
    else
        PUT(out, TW_CHK_OAI_R08, TW_V_SKIP, -1, "no reasoning field");
}

/* OAI-E01: the error envelope. */
void tw_chk_oai_error(judge *j, const cJSON *body)
{
    const cJSON *e = tw_json_get(body, "error");
    char ex[200];
    if (!cJSON_IsObject(e)) {
        tw_chk_excerpt(ex, sizeof ex, j->in->body ? j->in->body : "", j->in->body_len);
        PUT(j->out, TW_CHK_OAI_E01, TW_V_FAIL, 0, "HTTP %d without an error object: %s",
            j->in->status, ex);
        return;
    }
    if (!cJSON_IsString(tw_json_get(e, "message"))) {
        PUT(j->out, TW_CHK_OAI_E01, TW_V_FAIL, tw_chk_find_off(j->in, "\"error\""),
            "error.message is not a string");
        return;
    }
    static const char *const keys[] = {"type", "param", "code"};
    for (size_t i = 0; i < 3; i++)
        if (!tw_json_get(e, keys[i])) {
            PUT(j->out, TW_CHK_OAI_E01, TW_V_FAIL, tw_chk_find_off(j->in, "\"error\""),
                "error.%s is absent", keys[i]);
            return;
        }
    char cb[132];
    PUT(j->out, TW_CHK_OAI_E01, TW_V_PASS, -1, "HTTP %d, error envelope: %s", j->in->status,
        tw_chk_clip(cb, sizeof cb, tw_json_get_str(e, "message"), 120));
}
