/*
 * The client checks (CLI-*): what a client sends in its requests, and how
 * it retries.
 */
#include "checks_int.h"

/* ================================================================ client checks */

static bool name_ok(const char *s)
{
    if (!s)
        return false;
    size_t n = strlen(s);
    if (n < 1 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

static bool schema_object(const cJSON *p)
{
    const char *t = tw_json_get_str(p, "type");
    return cJSON_IsObject(p) && (!t || strcmp(t, "object") == 0);
}

static void cli_tools(tw_api_kind kind, const cJSON *body, tw_check_set *out)
{
    const cJSON *tools = tw_json_get(body, "tools");
    if (!cJSON_IsArray(tools) || !tools->child) {
        PUT(out, TW_CHK_CLI_03, TW_V_SKIP, -1, "no tools");
        PUT(out, TW_CHK_CLI_06, TW_V_SKIP, -1, "no tools");
        return;
    }
    size_t i = 0;
    for (const cJSON *t = tools->child; t; t = t->next, i++) {
        char ex[120];
        if (kind == TW_API_GENERATE) {
            const cJSON *fn = tw_json_get(t, "function");
            const cJSON *def = fn ? fn : t;
            if (!name_ok(tw_json_get_str(def, "name"))) {
                tw_chk_excerpt_json(ex, sizeof ex, tw_json_get(def, "name"));
                PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1, "tools[%zu].name %s", i, ex);
                goto par;
            }
            const cJSON *p = tw_json_get(def, "parameters");
            if (p && !schema_object(p)) {
                PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1,
                    "tools[%zu].parameters is not an object schema", i);
                goto par;
            }
        } else if (kind == TW_API_ANTHROPIC) {
            const char *ty = tw_json_get_str(t, "type");
            if (ty && strcmp(ty, "custom") != 0)
                continue; /* Anthropic server tools (web_search_…) have their own shape */
            if (!name_ok(tw_json_get_str(t, "name"))) {
                tw_chk_excerpt_json(ex, sizeof ex, tw_json_get(t, "name"));
                PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1, "tools[%zu].name %s", i, ex);
                goto par;
            }
            if (!schema_object(tw_json_get(t, "input_schema"))) {
                PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1,
                    "tools[%zu].input_schema is not an object schema", i);
                goto par;
            }
        } else {
            const char *ty = tw_json_get_str(t, "type");
            const cJSON *fn = tw_json_get(t, "function");
            if (!ty || strcmp(ty, "function") != 0) {
                PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1, "tools[%zu].type is %.40s", i,
                    ty ? ty : "(absent)");
                goto par;
            }
            if (!name_ok(tw_json_get_str(fn, "name"))) {
                tw_chk_excerpt_json(ex, sizeof ex, tw_json_get(fn, "name"));
                PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1, "tools[%zu].function.name %s", i, ex);
                goto par;
            }
            const cJSON *p = tw_json_get(fn, "parameters");
            if (p && !schema_object(p)) {
                PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1,
                    "tools[%zu].function.parameters is not an object schema", i);
                goto par;
            }
        }
    }
    /* the usual counts as literals: no formatting, no copy */
    static const char *const ndefs[] = {
        "0 tool definition(s)", "1 tool definition(s)", "2 tool definition(s)",
        "3 tool definition(s)", "4 tool definition(s)", "5 tool definition(s)",
        "6 tool definition(s)", "7 tool definition(s)", "8 tool definition(s)"};
    if (i < sizeof ndefs / sizeof ndefs[0])
        tw_check_set_put_static(out, TW_CHK_CLI_03, TW_V_PASS, -1, ndefs[i]);
    else
        PUT(out, TW_CHK_CLI_03, TW_V_PASS, -1, "%zu tool definition(s)", i);
par:
    if (kind == TW_API_ANTHROPIC || kind == TW_API_GENERATE)
        PUT(out, TW_CHK_CLI_06, TW_V_SKIP, -1, "%s",
            kind == TW_API_ANTHROPIC ? "Anthropic request" : "/generate request");
    else if (tw_json_get(body, "parallel_tool_calls"))
        PUT(out, TW_CHK_CLI_06, TW_V_PASS, -1,
            cJSON_IsTrue(tw_json_get(body, "parallel_tool_calls")) ? "parallel_tool_calls: true"
                                                                   : "parallel_tool_calls: false");
    else
        PUT(out, TW_CHK_CLI_06, TW_V_FAIL, -1, "tools present, parallel_tool_calls not set");
}

/* A client check that did not fail on the way: pass when it had something
 * to judge, skip when not (the texts are literals). */
static void put_unfailed(tw_check_set *out, tw_check_id id, bool unfailed, bool judged,
                         const char *pass_why, const char *skip_why)
{
    if (unfailed)
        tw_check_set_put_static(out, id, judged ? TW_V_PASS : TW_V_SKIP, -1,
                                judged ? pass_why : skip_why);
}

/* A client check that could not build its id index. */
static void put_nomem(tw_check_set *out, tw_check_id id, bool *unfailed)
{
    if (*unfailed)
        PUT(out, id, TW_V_SKIP, -1, "out of memory while indexing ids");
    *unfailed = false;
}

static void cli_openai(const cJSON *msgs, tw_check_set *out)
{
    bool any_tool = false, any_calls = false, c01 = true, c02 = true, c04 = true;
    const cJSON *prev_asst = NULL; /* the assistant message the current tool run answers */
    id_index asst_ids = {0};       /* ids of prev_asst's calls */
    size_t i = 0;
    for (const cJSON *m = msgs->child; m; m = m->next, i++) {
        const char *role = tw_json_get_str(m, "role");
        if (!role)
            continue;
        if (strcmp(role, "assistant") == 0) {
            /* calls of the previous assistant message must be answered by now */
            prev_asst = m;
            const cJSON *tcs = tw_json_get(m, "tool_calls");
            tw_chk_idx_free(&asst_ids);
            tw_chk_idx_of_list(&asst_ids, tcs, "id");
            if (asst_ids.nomem)
                put_nomem(out, TW_CHK_CLI_01, &c01);
            /* the run of tool messages that follows, read once for all the calls */
            id_index run = {0};
            bool moved_on = false, any_after = m->next != NULL;
            if (cJSON_IsArray(tcs) && tcs->child) {
                for (const cJSON *n = m->next; n; n = n->next) {
                    const char *r = tw_json_get_str(n, "role");
                    if (!r || strcmp(r, "tool") != 0) {
                        moved_on = true;
                        break;
                    }
                    tw_chk_idx_add(&run, tw_json_get_str(n, "tool_call_id"));
                }
                tw_chk_idx_seal(&run);
                if (run.nomem)
                    put_nomem(out, TW_CHK_CLI_02, &c02);
            }
            size_t k = 0;
            for (const cJSON *c = cJSON_IsArray(tcs) ? tcs->child : NULL; c; c = c->next, k++) {
                any_calls = true;
                const cJSON *a = tw_json_get(tw_json_get(c, "function"), "arguments");
                cJSON *v = cJSON_IsString(a)
                               ? tw_chk_parse_json(a->valuestring, strlen(a->valuestring), 64)
                               : NULL;
                if (c04 && !cJSON_IsObject(v)) {
                    char ex[120];
                    tw_chk_excerpt_json(ex, sizeof ex, a);
                    PUT(out, TW_CHK_CLI_04, TW_V_FAIL, -1,
                        "messages[%zu].tool_calls[%zu].function.arguments %s: %s", i, k,
                        cJSON_IsString(a) ? "is not a JSON object string" : "is not a string", ex);
                    c04 = false;
                }
                cJSON_Delete(v);
                /* CLI-02: answered by the tool messages that follow, before the next turn */
                const char *id = tw_json_get_str(c, "id");
                bool answered = tw_chk_idx_has(&run, id);
                if (!answered && any_after && c02) {
                    PUT(out, TW_CHK_CLI_02, TW_V_FAIL, -1,
                        "tool call %.64s of messages[%zu] is not answered%s", id ? id : "(no id)",
                        i, moved_on ? " before the next turn" : "");
                    c02 = false;
                }
            }
            tw_chk_idx_free(&run);
        } else if (strcmp(role, "tool") == 0) {
            any_tool = true;
            const char *id = tw_json_get_str(m, "tool_call_id");
            if (c01 && (!prev_asst || !tw_chk_idx_has(&asst_ids, id))) {
                PUT(out, TW_CHK_CLI_01, TW_V_FAIL, -1,
                    "messages[%zu] answers %.64s, not a call of the previous assistant message", i,
                    id ? id : "(no tool_call_id)");
                c01 = false;
            }
        } else if (strcmp(role, "user") == 0) {
            prev_asst = NULL;
            tw_chk_idx_free(&asst_ids);
        }
    }
    tw_chk_idx_free(&asst_ids);
    put_unfailed(out, TW_CHK_CLI_01, c01, any_tool, "every tool message answers a call",
                 "no tool messages");
    put_unfailed(out, TW_CHK_CLI_02, c02, any_calls, "every call answered in time",
                 "no tool calls in history");
    put_unfailed(out, TW_CHK_CLI_04, c04, any_calls, "arguments are JSON strings",
                 "no tool calls in history");
    PUT(out, TW_CHK_CLI_05, TW_V_SKIP, -1, "OpenAI request");
}

static void cli_anthropic(const cJSON *msgs, tw_check_set *out)
{
    bool any_use = false, any_result = false, c01 = true, c02 = true, c05 = true;
    const cJSON *last_other = NULL; /* the last message before m whose role is not user */
    const cJSON *indexed = NULL;    /* the message prev_ids indexes */
    id_index prev_ids = {0};
    size_t i = 0;
    for (const cJSON *m = msgs->child; m; m = m->next, i++) {
        const char *role = tw_json_get_str(m, "role");
        const cJSON *content = tw_json_get(m, "content");
        const cJSON *prev = last_other;
        if (!role || strcmp(role, "user") != 0)
            last_other = m;
        if (!role || !cJSON_IsArray(content))
            continue;
        if (strcmp(role, "assistant") == 0) {
            const cJSON *next = m->next;
            /* results may sit in the user messages up to the next assistant turn:
             * their ids are read once for all of this message's tool_use blocks */
            id_index results = {0};
            bool indexed_results = false;
            for (const cJSON *b = content->child; b; b = b->next) {
                const char *t = tw_json_get_str(b, "type");
                if (!t || strcmp(t, "tool_use") != 0)
                    continue;
                any_use = true;
                if (!next)
                    continue; /* pending: the request asks for this turn */
                if (!indexed_results) {
                    indexed_results = true;
                    for (const cJSON *u = next; u; u = u->next) {
                        const char *ur = tw_json_get_str(u, "role");
                        if (!ur || strcmp(ur, "user") != 0)
                            break;
                        const cJSON *uc = tw_json_get(u, "content");
                        for (const cJSON *r = cJSON_IsArray(uc) ? uc->child : NULL; r; r = r->next)
                            if (tw_json_get_str(r, "type") &&
                                strcmp(tw_json_get_str(r, "type"), "tool_result") == 0)
                                tw_chk_idx_add(&results, tw_json_get_str(r, "tool_use_id"));
                    }
                    tw_chk_idx_seal(&results);
                    if (results.nomem)
                        put_nomem(out, TW_CHK_CLI_02, &c02);
                }
                const char *id = tw_json_get_str(b, "id");
                bool found = tw_chk_idx_has(&results, id);
                if (!found && c02) {
                    PUT(out, TW_CHK_CLI_02, TW_V_FAIL, -1,
                        "tool_use %.64s of messages[%zu] is not answered before the next assistant "
                        "turn",
                        id ? id : "(no id)", i);
                    c02 = false;
                }
            }
            tw_chk_idx_free(&results);
        } else if (strcmp(role, "user") == 0) {
            bool seen_other = false;
            size_t k = 0;
            const cJSON *pcontent = prev ? tw_json_get(prev, "content") : NULL;
            if (prev != indexed) {
                /* the ids of the assistant message these results answer, once */
                indexed = prev;
                tw_chk_idx_free(&prev_ids);
                tw_chk_idx_of_list(&prev_ids, pcontent, "id");
                if (prev_ids.nomem)
                    put_nomem(out, TW_CHK_CLI_01, &c01);
            }
            for (const cJSON *b = content->child; b; b = b->next, k++) {
                const char *t = tw_json_get_str(b, "type");
                bool is_res = t && strcmp(t, "tool_result") == 0;
                if (!is_res) {
                    seen_other = true;
                    continue;
                }
                any_result = true;
                if (seen_other && c05) {
                    PUT(out, TW_CHK_CLI_05, TW_V_FAIL, -1,
                        "messages[%zu].content[%zu]: tool_result after other blocks", i, k);
                    c05 = false;
                }
                const char *id = tw_json_get_str(b, "tool_use_id");
                const char *prole = prev ? tw_json_get_str(prev, "role") : NULL;
                if (c01 && (!prole || strcmp(prole, "assistant") != 0 || !cJSON_IsArray(pcontent) ||
                            !tw_chk_idx_has(&prev_ids, id))) {
                    PUT(out, TW_CHK_CLI_01, TW_V_FAIL, -1,
                        "messages[%zu].content[%zu] answers %.64s, not a tool_use of the previous "
                        "assistant message",
                        i, k, id ? id : "(no tool_use_id)");
                    c01 = false;
                }
            }
        }
    }
    tw_chk_idx_free(&prev_ids);
    /* results split over several user messages */
    if (c05) {
        const cJSON *prev_user_with_results = NULL;
        for (const cJSON *m = msgs->child; m; m = m->next) {
            const char *role = tw_json_get_str(m, "role");
            bool has_res = false;
            const cJSON *content = tw_json_get(m, "content");
            for (const cJSON *b = cJSON_IsArray(content) ? content->child : NULL; b; b = b->next)
                if (tw_json_get_str(b, "type") &&
                    strcmp(tw_json_get_str(b, "type"), "tool_result") == 0)
                    has_res = true;
            if (role && strcmp(role, "user") == 0 && has_res) {
                if (prev_user_with_results && prev_user_with_results->next == m) {
                    PUT(out, TW_CHK_CLI_05, TW_V_FAIL, -1,
                        "tool results split over consecutive user messages");
                    c05 = false;
                    break;
                }
                prev_user_with_results = m;
            }
        }
    }
    put_unfailed(out, TW_CHK_CLI_01, c01, any_result, "every tool_result answers a tool_use",
                 "no tool results");
    put_unfailed(out, TW_CHK_CLI_02, c02, any_use, "every tool_use answered",
                 "no tool_use in history");
    put_unfailed(out, TW_CHK_CLI_05, c05, any_result, "tool_result blocks first, one message",
                 "no tool results");
    PUT(out, TW_CHK_CLI_04, TW_V_SKIP, -1, "Anthropic request (input is an object)");
}

void tw_chk_cli_chat(tw_api_kind kind, const cJSON *body, tw_check_set *out)
{
    PUT(out, TW_CHK_CLI_08, TW_V_SKIP, -1, "not a Responses request");
    const cJSON *msgs = tw_json_get(body, "messages");
    if (!cJSON_IsObject(body) || (kind != TW_API_OPENAI && kind != TW_API_ANTHROPIC) ||
        !cJSON_IsArray(msgs)) {
        static const tw_check_id ids[] = {TW_CHK_CLI_01, TW_CHK_CLI_02, TW_CHK_CLI_03,
                                          TW_CHK_CLI_04, TW_CHK_CLI_05, TW_CHK_CLI_06};
        cli_tools(kind == TW_API_ANTHROPIC || kind == TW_API_GENERATE ? kind : TW_API_OPENAI, body,
                  out);
        tw_chk_skip_ids(out, ids, 6,
                        kind == TW_API_GENERATE ? "/generate request" : "not a chat request");
        return;
    }
    cli_tools(kind, body, out);
    if (kind == TW_API_ANTHROPIC)
        cli_anthropic(msgs, out);
    else
        cli_openai(msgs, out);
}

/* A retry this much before the Retry-After ran out still honours it (clock
 * granularity and scheduling on the mock's side). */
#define TW_RETRY_SLACK_MS 50

void tw_checks_client_retry(long due_ms, long asked_ms, long now_ms, tw_check_set *out)
{
    if (!due_ms) {
        PUT(out, TW_CHK_CLI_07, TW_V_SKIP, -1, "no Retry-After pending");
        return;
    }
    long early = due_ms - now_ms;
    if (early > TW_RETRY_SLACK_MS)
        PUT(out, TW_CHK_CLI_07, TW_V_FAIL, -1, "retried %ld ms early (Retry-After asked %ld ms)",
            early, asked_ms);
    else
        PUT(out, TW_CHK_CLI_07, TW_V_PASS, -1, "retried after the %ld ms Retry-After asked",
            asked_ms);
}

void tw_checks_client_retry_waited(long asked_ms, long waited_ms, tw_check_set *out)
{
    if (asked_ms < 0)
        PUT(out, TW_CHK_CLI_07, TW_V_SKIP, -1, "no retry after 429/503");
    else
        PUT(out, TW_CHK_CLI_07, waited_ms >= asked_ms ? TW_V_PASS : TW_V_FAIL, -1,
            "waited %ld ms, Retry-After asked %ld ms", waited_ms, asked_ms);
}

/* ================================================================ thinking signatures */

void tw_chk_ref_signature(const char *s, size_t n, char out[TW_REF_SIG_MAX])
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a, 64 bits */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    snprintf(out, TW_REF_SIG_MAX, "toolwire-sig-%016llx", (unsigned long long)h);
}

/* s kept in keep (an array the caller deletes), added to x. */
static void sig_keep(id_index *x, const char *s, size_t n, cJSON *keep)
{
    if (!s || !n || !keep)
        return;
    char *t = tw_strndup(s, n);
    cJSON *c = t ? cJSON_CreateString(t) : NULL;
    free(t);
    if (!c || !cJSON_AddItemToArray(keep, c)) {
        cJSON_Delete(c);
        x->nomem = true;
        return;
    }
    tw_chk_idx_add(x, c->valuestring);
}

/* The signatures (and redacted_thinking data) of one messages response's content. */
static void ant_given_blocks(const cJSON *content, id_index *x, cJSON *keep)
{
    for (const cJSON *b = cJSON_IsArray(content) ? content->child : NULL; b; b = b->next) {
        const char *ty = tw_json_get_str(b, "type");
        const char *s = !ty                                    ? NULL
                        : strcmp(ty, "thinking") == 0          ? tw_json_get_str(b, "signature")
                        : strcmp(ty, "redacted_thinking") == 0 ? tw_json_get_str(b, "data")
                                                               : NULL;
        if (s)
            sig_keep(x, s, strlen(s), keep);
    }
}

/* What the recorded answers of exchanges [0, xi) gave: each thinking block's
 * signature (a stream's signature_delta pieces of one block joined) and each
 * redacted_thinking block's data. */
static void ant_given(const tw_fixture *f, size_t xi, size_t depth, id_index *x, cJSON *keep)
{
    tw_buf sig = {0};
    for (size_t k = 0; f && k < xi && k < f->nexchanges; k++) {
        const tw_fx_response *r = &f->exchanges[k].resp;
        if (!f->exchanges[k].has_response || r->status >= 400)
            continue;
        if (!r->nevents) {
            ant_given_blocks(tw_json_get(r->body, "content"), x, keep);
            continue;
        }
        for (size_t e = 0; e < r->nevents; e++) {
            const char *d = r->events[e].data;
            size_t n = d ? strlen(d) : 0;
            if (!n || (!tw_memmem(d, n, "signature", 9) && !tw_memmem(d, n, "redacted", 8) &&
                       !tw_memmem(d, n, "content_block_st", 16)))
                continue;
            cJSON *v = tw_chk_parse_json(d, n, depth);
            const char *ty = tw_json_get_str(v, "type");
            if (ty && strcmp(ty, "content_block_start") == 0) {
                sig.len = 0;
                const cJSON *cb = tw_json_get(v, "content_block");
                const char *s = tw_json_get_str(cb, "signature");
                if (!s)
                    s = tw_json_get_str(cb, "data"); /* redacted_thinking comes whole */
                if (s)
                    (void)tw_buf_puts(&sig, s);
            } else if (ty && strcmp(ty, "content_block_delta") == 0) {
                const cJSON *dl = tw_json_get(v, "delta");
                const char *dt = tw_json_get_str(dl, "type");
                const char *s = tw_json_get_str(dl, "signature");
                if (dt && strcmp(dt, "signature_delta") == 0 && s)
                    (void)tw_buf_puts(&sig, s);
            } else if (ty && strcmp(ty, "content_block_stop") == 0) {
                sig_keep(x, sig.data, sig.len, keep);
                sig.len = 0;
            }
            cJSON_Delete(v);
        }
    }
    tw_buf_free(&sig);
}

void tw_checks_client_anthropic(const cJSON *body, const tw_fixture *f, size_t xi, bool model_signs,
                                const tw_limits *limits, tw_check_set *out)
{
    const cJSON *msgs = tw_json_get(body, "messages");
    if (!cJSON_IsArray(msgs))
        return; /* tw_checks_client judged the shape */
    tw_limits L;
    tw_limits_resolve(&L, limits);
    cJSON *keep = cJSON_CreateArray();
    id_index given = {0};
    if (!model_signs && f && xi > 0)
        ant_given(f, xi, L.max_depth, &given, keep);
    tw_chk_idx_seal(&given);
    size_t nsent = 0, i = 0;
    bool failed = false;
    for (const cJSON *m = msgs->child; m && !failed; m = m->next, i++) {
        const char *role = tw_json_get_str(m, "role");
        const cJSON *content = tw_json_get(m, "content");
        if (!role || strcmp(role, "assistant") != 0 || !cJSON_IsArray(content))
            continue;
        size_t k = 0;
        for (const cJSON *b = content->child; b && !failed; b = b->next, k++) {
            const char *ty = tw_json_get_str(b, "type");
            bool red = ty && strcmp(ty, "redacted_thinking") == 0;
            if (!ty || (strcmp(ty, "thinking") != 0 && !red))
                continue;
            nsent++;
            const char *s = tw_json_get_str(b, red ? "data" : "signature");
            if (!s || !s[0]) {
                PUT(out, TW_CHK_CLI_10, TW_V_FAIL, -1,
                    "messages[%zu].content[%zu]: a %s block sent back without its %s", i, k, ty,
                    red ? "data" : "signature");
                failed = true;
            } else if (model_signs && !red) {
                /* the reference server's signature is a function of the text */
                char want[TW_REF_SIG_MAX];
                const char *t = tw_json_get_str(b, "thinking");
                tw_chk_ref_signature(t ? t : "", t ? strlen(t) : 0, want);
                if (strcmp(s, want) != 0) {
                    PUT(out, TW_CHK_CLI_10, TW_V_FAIL, -1,
                        "messages[%zu].content[%zu]: signature \"%.40s\" is not the one the server "
                        "gave this thinking text (altered text or signature, or another vendor's)",
                        i, k, s);
                    failed = true;
                }
            } else if (!model_signs && given.n && !tw_chk_idx_has(&given, s)) {
                PUT(out, TW_CHK_CLI_10, TW_V_FAIL, -1,
                    "messages[%zu].content[%zu]: %s \"%.40s\" is none an earlier answer gave "
                    "(altered, or another vendor's)",
                    i, k, red ? "redacted_thinking data" : "signature", s);
                failed = true;
            }
        }
    }
    if (!failed) {
        const char *why = !nsent        ? "no thinking blocks sent back"
                          : model_signs ? "every thinking block carries the signature of its text"
                          : given.n     ? "every signature sent back is one an earlier answer gave"
                          : !f || xi == 0 ? "the first turn of its fixture"
                                          : "the earlier answers gave no signature";
        bool judged = nsent && (model_signs || given.n);
        PUT(out, TW_CHK_CLI_10, judged ? TW_V_PASS : TW_V_SKIP, -1, "%s", why);
    }
    tw_chk_idx_free(&given);
    cJSON_Delete(keep);
}
