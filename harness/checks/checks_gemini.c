/*
 * The Gemini generateContent checks (GEM-*): the shape of bodies and of
 * streamGenerateContent?alt=sse events, function calls, the finish reason,
 * streamed partialArgs (assembled by the library's gemini-stream decoder)
 * and blocked prompts. Rules: docs/checks.md.
 */
#include "checks_int.h"

/* What the responses of one exchange (a body, or each event) showed. */
typedef struct gem_seen {
    size_t calls;       /* functionCall parts with a name */
    size_t responses;   /* response objects judged */
    const char *finish; /* the last finishReason seen (not owned: copied below) */
    char finish_buf[48];
    int64_t finish_off;
    bool shape_bad, call_bad;
    bool blocked; /* promptFeedback.blockReason seen */
    char block_reason[48];
    bool empty;     /* a response without candidates */
    bool partial;   /* partialArgs or willContinue seen */
    bool open_call; /* the last functionCall said willContinue: the next continues it */
} gem_seen;

static void one_response(judge *j, const cJSON *r, int64_t off, gem_seen *s)
{
    s->responses++;
    const char *br = tw_json_get_str(tw_json_get(r, "promptFeedback"), "blockReason");
    if (br) {
        s->blocked = true;
        snprintf(s->block_reason, sizeof s->block_reason, "%s", br);
    }
    const cJSON *cands = tw_json_get(r, "candidates");
    if (!cands || (cJSON_IsArray(cands) && !cands->child)) {
        s->empty = true;
        if (!br && !tw_json_get(r, "usageMetadata") && !s->shape_bad) {
            s->shape_bad = true;
            PUT(j->out, TW_CHK_GEM_01, TW_V_FAIL, off,
                "a response with no candidates and no "
                "promptFeedback.blockReason");
        }
        return;
    }
    if (!cJSON_IsArray(cands)) {
        if (!s->shape_bad)
            PUT(j->out, TW_CHK_GEM_01, TW_V_FAIL, off, "candidates is not an array");
        s->shape_bad = true;
        return;
    }
    size_t ci = 0;
    for (const cJSON *c = cands->child; c; c = c->next, ci++) {
        const char *fr = tw_json_get_str(c, "finishReason");
        if (fr) {
            snprintf(s->finish_buf, sizeof s->finish_buf, "%s", fr);
            s->finish = s->finish_buf;
            s->finish_off = off;
        }
        const cJSON *content = tw_json_get(c, "content");
        const cJSON *parts = tw_json_get(content, "parts");
        if (!content && fr)
            continue; /* a candidate cut by SAFETY, RECITATION, … may carry no content */
        if (!cJSON_IsObject(content) || (parts && !cJSON_IsArray(parts))) {
            if (!s->shape_bad)
                PUT(j->out, TW_CHK_GEM_01, TW_V_FAIL, off,
                    "candidates[%zu].content is not an object with a parts array", ci);
            s->shape_bad = true;
            continue;
        }
        size_t pi = 0;
        for (const cJSON *p = parts ? parts->child : NULL; p; p = p->next, pi++) {
            if (!cJSON_IsObject(p)) {
                if (!s->shape_bad)
                    PUT(j->out, TW_CHK_GEM_01, TW_V_FAIL, off,
                        "candidates[%zu].content.parts[%zu] is not an object", ci, pi);
                s->shape_bad = true;
                continue;
            }
            const cJSON *fc = tw_json_get(p, "functionCall");
            if (!fc)
                continue;
            bool partial =
                tw_json_get(fc, "partialArgs") || tw_json_get(fc, "willContinue") || s->open_call;
            s->partial |= partial;
            s->open_call = cJSON_IsTrue(tw_json_get(fc, "willContinue"));
            const cJSON *name = tw_json_get(fc, "name");
            const cJSON *args = tw_json_get(fc, "args");
            if (tw_chk_str_nonempty(name))
                s->calls++;
            else if (!partial && !s->call_bad) {
                s->call_bad = true;
                PUT(j->out, TW_CHK_GEM_02, TW_V_FAIL, off,
                    "candidates[%zu].content.parts[%zu].functionCall has no name", ci, pi);
            }
            if (args && !cJSON_IsObject(args) && !s->call_bad) {
                char ex[96];
                tw_chk_excerpt_json(ex, sizeof ex, args);
                s->call_bad = true;
                PUT(j->out, TW_CHK_GEM_02, TW_V_FAIL, off,
                    "candidates[%zu].content.parts[%zu].functionCall.args is not an object: %s", ci,
                    pi, ex);
            }
        }
    }
}

static void judge_finish(judge *j, const gem_seen *s, bool stream)
{
    if (s->finish && (strcmp(s->finish, "MALFORMED_FUNCTION_CALL") == 0 ||
                      strcmp(s->finish, "UNEXPECTED_TOOL_CALL") == 0 ||
                      strcmp(s->finish, "TOO_MANY_TOOL_CALLS") == 0))
        PUT(j->out, TW_CHK_GEM_03, TW_V_FAIL, s->finish_off,
            "finishReason %s: the model's call was refused by the server", s->finish);
    else if (s->calls && s->finish && strcmp(s->finish, "STOP") != 0)
        PUT(j->out, TW_CHK_GEM_03, TW_V_FAIL, s->finish_off,
            "%zu call(s) with finishReason %s: the calls may be cut", s->calls, s->finish);
    else if (s->finish)
        PUT(j->out, TW_CHK_GEM_03, TW_V_PASS, s->finish_off,
            "%zu call(s), finishReason %s (Gemini ends a call turn with STOP)", s->calls,
            s->finish);
    else if (!stream && !s->empty)
        PUT(j->out, TW_CHK_GEM_03, TW_V_FAIL, -1, "no finishReason");
    if (s->blocked)
        PUT(j->out, TW_CHK_GEM_06, TW_V_PASS, -1, "prompt blocked: %s", s->block_reason);
    else if (s->empty && !s->finish && s->calls == 0)
        PUT(j->out, TW_CHK_GEM_06, TW_V_FAIL, -1,
            "no candidates and no promptFeedback.blockReason");
    else
        PUT(j->out, TW_CHK_GEM_06, TW_V_SKIP, -1, "the prompt was not blocked");
}

static void gem_stream(judge *j)
{
    const tw_judge_input *in = j->in;
    gem_seen s;
    memset(&s, 0, sizeof s);
    s.finish_off = -1;
    bool s04 = false;
    if (!tw_chk_ctype_is(in, "text/event-stream")) {
        PUT(j->out, TW_CHK_GEM_04, TW_V_FAIL, 0, "Content-Type is not text/event-stream");
        s04 = true;
    }
    sse_list ev;
    tw_chk_sse_parse(in->body ? in->body : "", in->body_len, &j->L, &ev);
    for (size_t i = 0; i < ev.n; i++) {
        cJSON *r = tw_chk_parse_json(ev.v[i].data, ev.v[i].data_len, j->L.max_depth);
        if (!cJSON_IsObject(r) || tw_json_get(r, "error")) {
            if (!s04) {
                char ex[112];
                tw_chk_excerpt(ex, sizeof ex, ev.v[i].data, ev.v[i].data_len);
                PUT(j->out, TW_CHK_GEM_04, TW_V_FAIL, (int64_t)ev.v[i].off, "event %zu %s: %s", i,
                    cJSON_IsObject(r) ? "carries an error" : "is not a JSON object", ex);
            }
            s04 = true;
        } else {
            one_response(j, r, (int64_t)ev.v[i].off, &s);
        }
        cJSON_Delete(r);
    }
    if (!s04 && !s.finish)
        PUT(j->out, TW_CHK_GEM_04, TW_V_FAIL, (int64_t)in->body_len,
            "the stream ends without a finishReason%s%s", in->transport_error ? ": " : "",
            in->transport_error ? in->transport_error : "");
    else if (!s04)
        PUT(j->out, TW_CHK_GEM_04, TW_V_PASS, -1, "%zu events, finishReason %s", ev.n, s.finish);
    tw_chk_sse_free(&ev);
    /* GEM-05: the library's stream decoder assembles partialArgs */
    if (!s.partial) {
        PUT(j->out, TW_CHK_GEM_05, TW_V_SKIP, -1, "no partialArgs streamed");
    } else {
        tw_decode_opts o;
        memset(&o, 0, sizeof o);
        o.limits = j->L;
        o.allow_unknown_tool = true;
        tw_result r;
        tw_status st =
            tw_decode_response(in->path, true, in->body ? in->body : "", in->body_len, &o, &r);
        const tw_diag *bad = NULL;
        for (size_t i = 0; st == TW_OK && i < r.errors.len && !bad; i++)
            if (r.errors.items[i].code != TW_D_STREAM_ERROR)
                bad = &r.errors.items[i];
        if (st != TW_OK)
            PUT(j->out, TW_CHK_GEM_05, TW_V_FAIL, -1, "the gemini-stream decoder failed: %s",
                tw_code_name(st));
        else if (bad) {
            char cb[160];
            PUT(j->out, TW_CHK_GEM_05, TW_V_FAIL, bad->offset, "%s: %s", tw_code_name(bad->code),
                tw_chk_clip(cb, sizeof cb, bad->message, 150));
        } else
            PUT(j->out, TW_CHK_GEM_05, TW_V_PASS, -1, "%zu call(s) assembled", r.msg.ncalls);
        if (st == TW_OK)
            tw_result_free(&r);
    }
    if (!s.calls && !s.call_bad)
        PUT(j->out, TW_CHK_GEM_02, TW_V_SKIP, -1, "no function calls");
    else if (!s.call_bad)
        PUT(j->out, TW_CHK_GEM_02, TW_V_PASS, -1, "%zu call(s)", s.calls);
    if (!s.shape_bad)
        PUT(j->out, TW_CHK_GEM_01, TW_V_PASS, -1, "%zu responses", s.responses);
    judge_finish(j, &s, true);
}

void tw_chk_gem_checks(judge *j, const cJSON *body, bool stream)
{
    if (stream) {
        gem_stream(j);
        return;
    }
    gem_seen s;
    memset(&s, 0, sizeof s);
    s.finish_off = -1;
    if (!cJSON_IsObject(body)) {
        PUT(j->out, TW_CHK_GEM_01, TW_V_FAIL, 0, "the body is not a JSON object");
        return;
    }
    one_response(j, body, 0, &s);
    if (!s.shape_bad)
        PUT(j->out, TW_CHK_GEM_01, TW_V_PASS, -1, "%zu candidate response", s.responses);
    if (!s.calls && !s.call_bad)
        PUT(j->out, TW_CHK_GEM_02, TW_V_SKIP, -1, "no function calls");
    else if (!s.call_bad)
        PUT(j->out, TW_CHK_GEM_02, TW_V_PASS, -1, "%zu call(s)", s.calls);
    PUT(j->out, TW_CHK_GEM_04, TW_V_SKIP, -1, "not streamed");
    PUT(j->out, TW_CHK_GEM_05, TW_V_SKIP, -1, "not streamed");
    judge_finish(j, &s, false);
}

/* ================================================================ client requests */

/* The functionCall parts of a model turn indexed by id and by name. */
static void index_calls(const cJSON *parts, id_index *ids, id_index *names, size_t *ncalls)
{
    *ncalls = 0;
    for (const cJSON *p = cJSON_IsArray(parts) ? parts->child : NULL; p; p = p->next) {
        const cJSON *fc = tw_json_get(p, "functionCall");
        if (!cJSON_IsObject(fc))
            continue;
        ++*ncalls;
        const char *id = tw_json_get_str(fc, "id");
        const char *name = tw_json_get_str(fc, "name");
        if (id)
            tw_chk_idx_add(ids, id);
        if (name)
            tw_chk_idx_add(names, name);
    }
    tw_chk_idx_seal(ids);
    tw_chk_idx_seal(names);
}

void tw_chk_gem_client(const cJSON *body, tw_check_set *out)
{
    const cJSON *contents = tw_json_get(body, "contents");
    if (!cJSON_IsArray(contents)) {
        PUT(out, TW_CHK_GEM_C01, TW_V_SKIP, -1, "no contents array");
        PUT(out, TW_CHK_GEM_C02, TW_V_SKIP, -1, "no contents array");
        return;
    }
    bool c01 = false;
    size_t results = 0, call_turns = 0, i = 0;
    const cJSON *prev_model = NULL;
    for (const cJSON *t = contents->child; t; t = t->next, i++) {
        const char *role = tw_json_get_str(t, "role");
        const cJSON *parts = tw_json_get(t, "parts");
        if (role && strcmp(role, "model") == 0) {
            prev_model = parts;
            const cJSON *first = NULL;
            for (const cJSON *p = cJSON_IsArray(parts) ? parts->child : NULL; p && !first;
                 p = p->next)
                if (tw_json_get(p, "functionCall"))
                    first = p;
            if (first)
                call_turns++;
            continue;
        }
        /* a user turn: its functionResponse parts answer prev_model's calls */
        id_index ids = {0}, names = {0};
        size_t ncalls = 0, answered = 0, k = 0;
        index_calls(prev_model, &ids, &names, &ncalls);
        for (const cJSON *p = cJSON_IsArray(parts) ? parts->child : NULL; p; p = p->next, k++) {
            const cJSON *fr = tw_json_get(p, "functionResponse");
            if (!fr)
                continue;
            results++;
            answered++;
            const char *id = tw_json_get_str(fr, "id");
            const char *name = tw_json_get_str(fr, "name");
            bool ok = id && ids.n ? tw_chk_idx_has(&ids, id) : name && tw_chk_idx_has(&names, name);
            if (!ok && !c01) {
                c01 = true;
                PUT(out, TW_CHK_GEM_C01, TW_V_FAIL, -1,
                    "contents[%zu].parts[%zu]: functionResponse %s \"%.64s\" answers no call of "
                    "the model turn before it",
                    i, k, id && ids.n ? "id" : "name",
                    id && ids.n ? id
                    : name      ? name
                                : "");
            }
        }
        if (ncalls && answered < ncalls && !c01) {
            c01 = true;
            PUT(out, TW_CHK_GEM_C01, TW_V_FAIL, -1,
                "contents[%zu]: %zu of the %zu calls of the model turn before it are answered", i,
                answered, ncalls);
        }
        tw_chk_idx_free(&ids);
        tw_chk_idx_free(&names);
        prev_model = NULL;
    }
    if (!c01)
        PUT(out, TW_CHK_GEM_C01, results ? TW_V_PASS : TW_V_SKIP, -1,
            results ? "%zu functionResponse part(s), each answering a call"
                    : "no function "
                      "responses",
            results);
    /* judged against the answers the model gave (tw_checks_client_gemini) */
    PUT(out, TW_CHK_GEM_C02, TW_V_SKIP, -1, "%s",
        call_turns ? "the model's answers before this request are not known"
                   : "no call turns sent back");
}

/* A signature in the standard base64 alphabet without padding, kept in
 * *keep: the URL-safe spelling of the same bytes (as a client library may
 * send it back) compares equal. NULL when out of memory. */
static const char *sig_key(const char *sig, cJSON *keep)
{
    cJSON *c = cJSON_CreateString(sig);
    if (!c || !cJSON_AddItemToArray(keep, c)) {
        cJSON_Delete(c);
        return NULL;
    }
    char *p = c->valuestring;
    size_t n = strlen(p);
    while (n && p[n - 1] == '=')
        p[--n] = '\0';
    for (size_t i = 0; i < n; i++)
        p[i] = p[i] == '-' ? '+' : p[i] == '_' ? '/' : p[i];
    return p;
}

static void sig_add(id_index *x, const char *sig, cJSON *keep)
{
    const char *k = sig && sig[0] && keep ? sig_key(sig, keep) : NULL;
    if (k)
        tw_chk_idx_add(x, k);
}

/* The thoughtSignatures of the functionCall parts of one response. */
static void signed_calls(const cJSON *resp, id_index *x, cJSON *keep)
{
    const cJSON *cands = tw_json_get(resp, "candidates");
    for (const cJSON *c = cJSON_IsArray(cands) ? cands->child : NULL; c; c = c->next) {
        const cJSON *parts = tw_json_get(tw_json_get(c, "content"), "parts");
        for (const cJSON *p = cJSON_IsArray(parts) ? parts->child : NULL; p; p = p->next) {
            if (tw_json_get(p, "functionCall"))
                sig_add(x, tw_json_get_str(p, "thoughtSignature"), keep);
        }
    }
}

/* The signatures the recorded answers of exchanges [0, xi) gave on calls:
 * bodies (one response or an array of them) and stream events; the keys
 * stay in *keep (deleted by the caller). */
static void given_signatures(const tw_fixture *f, size_t xi, size_t depth, id_index *x, cJSON *keep)
{
    for (size_t k = 0; f && k < xi && k < f->nexchanges; k++) {
        const tw_fx_response *r = &f->exchanges[k].resp;
        if (!f->exchanges[k].has_response || r->status >= 400)
            continue;
        if (!r->nevents) {
            if (cJSON_IsArray(r->body))
                for (const cJSON *e = r->body->child; e; e = e->next)
                    signed_calls(e, x, keep);
            else
                signed_calls(r->body, x, keep);
            continue;
        }
        for (size_t e = 0; e < r->nevents; e++) {
            const char *d = r->events[e].data;
            size_t n = d ? strlen(d) : 0;
            if (!n || !tw_memmem(d, n, "thoughtSignature", 16))
                continue;
            cJSON *v = tw_chk_parse_json(d, n, depth);
            signed_calls(v, x, keep);
            cJSON_Delete(v);
        }
    }
}

void tw_checks_client_gemini(const cJSON *body, const tw_fixture *f, size_t xi, bool model_signs,
                             const tw_limits *limits, tw_check_set *out)
{
    const cJSON *contents = tw_json_get(body, "contents");
    if (!cJSON_IsArray(contents))
        return; /* tw_chk_gem_client said so */
    tw_limits L;
    tw_limits_resolve(&L, limits);
    /* what the request sends back: the signatures of its model turns, and
     * the first call turn whose first functionCall part is unsigned */
    cJSON *keep = cJSON_CreateArray();
    id_index sent = {0};
    size_t call_turns = 0, i = 0, unsigned_turn = SIZE_MAX;
    for (const cJSON *t = contents->child; t; t = t->next, i++) {
        const char *role = tw_json_get_str(t, "role");
        if (!role || strcmp(role, "model") != 0)
            continue;
        const cJSON *parts = tw_json_get(t, "parts");
        const cJSON *first = NULL;
        for (const cJSON *p = cJSON_IsArray(parts) ? parts->child : NULL; p; p = p->next) {
            sig_add(&sent, tw_json_get_str(p, "thoughtSignature"), keep);
            if (!first && tw_json_get(p, "functionCall"))
                first = p;
        }
        if (first) {
            call_turns++;
            if (!tw_json_get_str(first, "thoughtSignature") && unsigned_turn == SIZE_MAX)
                unsigned_turn = i;
        }
    }
    tw_chk_idx_seal(&sent);
    if (model_signs) {
        /* a reference server signs every call turn it answers */
        if (unsigned_turn != SIZE_MAX)
            PUT(out, TW_CHK_GEM_C02, TW_V_FAIL, -1,
                "contents[%zu]: the first functionCall part has no thoughtSignature (the "
                "reference server signs every call turn)",
                unsigned_turn);
        else
            PUT(out, TW_CHK_GEM_C02, call_turns ? TW_V_PASS : TW_V_SKIP, -1, "%s",
                call_turns ? "every call turn sent back signed" : "no call turns sent back");
        tw_chk_idx_free(&sent);
        cJSON_Delete(keep);
        return;
    }
    id_index given = {0};
    if (keep)
        given_signatures(f, xi, L.max_depth, &given, keep);
    tw_chk_idx_seal(&given);
    const char *missing = NULL;
    for (size_t k = 0; k < given.n && !missing; k++)
        if (!tw_chk_idx_has(&sent, given.v[k].id))
            missing = given.v[k].id;
    if (missing)
        PUT(out, TW_CHK_GEM_C02, TW_V_FAIL, -1,
            "the thoughtSignature \"%.24s\" an earlier answer gave on its call is not sent back",
            missing);
    else if (given.n)
        PUT(out, TW_CHK_GEM_C02, TW_V_PASS, -1,
            "the %zu thoughtSignature(s) the earlier answers gave on calls are sent back", given.n);
    else
        PUT(out, TW_CHK_GEM_C02, TW_V_SKIP, -1, "%s",
            !f || xi == 0 ? "the first turn of its fixture"
                          : "the earlier answers gave no thoughtSignature on a call");
    tw_chk_idx_free(&given);
    tw_chk_idx_free(&sent);
    cJSON_Delete(keep);
}
