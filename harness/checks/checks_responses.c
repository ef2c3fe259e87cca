/*
 * The OpenAI Responses checks (ORS-*): the non-streamed `response` object
 * and the typed event stream of `…/responses`, and the client checks of a
 * Responses request (input items: function_call, function_call_output,
 * reasoning). Streams are framed by the library's SSE parser
 * (tw_chk_sse_parse); every count is bounded by the limits.
 */
#include "checks_int.h"

/* The first failure of one check, kept until the end of the judgement. */
typedef struct ors_slot {
    bool failed;
    int64_t off;
    char ev[320];
} ors_slot;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
ors_fail(ors_slot *s, int64_t off, const char *fmt, ...)
{
    if (s->failed)
        return;
    s->failed = true;
    s->off = off;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->ev, sizeof s->ev, fmt, ap);
    va_end(ap);
}

static void ors_put(tw_check_set *out, tw_check_id id, const ors_slot *s, const char *pass)
{
    if (s->failed)
        PUT(out, id, TW_V_FAIL, s->off, "%s", s->ev);
    else
        PUT(out, id, TW_V_PASS, -1, "%s", pass);
}

static const tw_check_id ORS_IDS[] = {TW_CHK_ORS_01, TW_CHK_ORS_02, TW_CHK_ORS_03,
                                      TW_CHK_ORS_04, TW_CHK_ORS_05, TW_CHK_ORS_06,
                                      TW_CHK_ORS_07, TW_CHK_ORS_08, TW_CHK_ORS_09};
#define ORS_NIDS (sizeof ORS_IDS / sizeof ORS_IDS[0])

/* ---- the request's function tools, for the declared-name rule ---- */

static void declared_tools(const cJSON *req, id_index *x, bool *any)
{
    *any = false;
    const cJSON *tools = tw_json_get(req, "tools");
    if (!cJSON_IsArray(tools))
        return;
    for (const cJSON *t = tools->child; t; t = t->next) {
        const char *ty = tw_json_get_str(t, "type");
        if (!ty || strcmp(ty, "function") != 0)
            continue;
        const char *name = tw_json_get_str(t, "name");
        if (name) {
            tw_chk_idx_add(x, name);
            *any = true;
        }
    }
    tw_chk_idx_seal(x);
}

/* ---- one function_call item: ORS-05 (call_id, name) and ORS-06 (arguments) ---- */

typedef struct ors_judge {
    judge *j;
    ors_slot s[ORS_NIDS];
    id_index tools;
    bool any_tools;
    id_index call_ids; /* call ids seen (strings outlive the judgement), sealed once at the end */
    size_t ncalls;
} ors_judge;

#define SLOT(oj, n) (&(oj)->s[(n)-1])

static void judge_call_item(ors_judge *oj, const cJSON *item, int64_t off, const char *where)
{
    char ex[120];
    oj->ncalls++;
    const char *call_id = tw_json_get_str(item, "call_id");
    const char *name = tw_json_get_str(item, "name");
    if (!call_id || !*call_id)
        ors_fail(SLOT(oj, 5), off, "%s: function_call without a call_id", where);
    if (!name || !*name)
        ors_fail(SLOT(oj, 5), off, "%s: function_call without a name", where);
    else if (oj->any_tools && !tw_chk_idx_has(&oj->tools, name))
        ors_fail(SLOT(oj, 5), off, "%s: %.80s is not a function tool of the request", where, name);
    const cJSON *a = tw_json_get(item, "arguments");
    if (!cJSON_IsString(a)) {
        tw_chk_excerpt_json(ex, sizeof ex, a);
        ors_fail(SLOT(oj, 6), off, "%s: arguments is not a string: %s", where, a ? ex : "(absent)");
        return;
    }
    cJSON *v = tw_chk_parse_json(a->valuestring, strlen(a->valuestring), oj->j->L.max_depth);
    if (!cJSON_IsObject(v)) {
        tw_chk_excerpt(ex, sizeof ex, a->valuestring, strlen(a->valuestring));
        ors_fail(SLOT(oj, 6), off, "%s: arguments %s one JSON object: %s", where,
                 v ? "are JSON but not" : "are not", ex);
    }
    cJSON_Delete(v);
}

/* ORS-05: a call_id given to two calls, found in the sorted index. */
static void repeated_call_ids(ors_judge *oj)
{
    id_index *x = &oj->call_ids;
    tw_chk_idx_seal(x);
    for (size_t i = 1; i < x->n; i++)
        if (strcmp(x->v[i - 1].id, x->v[i].id) == 0) {
            ors_fail(SLOT(oj, 5), -1, "call_id %.80s given to two calls", x->v[i].id);
            return;
        }
}

/* ORS-08: the response object's status against its details. */
static void judge_status(ors_judge *oj, const cJSON *resp, int64_t off, const char *terminal)
{
    const char *st = tw_json_get_str(resp, "status");
    const cJSON *inc = tw_json_get(resp, "incomplete_details");
    const cJSON *err = tw_json_get(resp, "error");
    bool inc_set = inc && !cJSON_IsNull(inc);
    bool err_set = err && !cJSON_IsNull(err);
    if (!st) {
        ors_fail(SLOT(oj, 8), off, "the response has no status");
        return;
    }
    if (terminal) {
        char want[48];
        snprintf(want, sizeof want, "response.%.30s", st);
        if (strcmp(want, terminal) != 0)
            ors_fail(SLOT(oj, 8), off, "%s carries status %.40s", terminal, st);
    }
    if (strcmp(st, "completed") == 0) {
        if (inc_set)
            ors_fail(SLOT(oj, 8), off, "status completed with incomplete_details set");
        else if (err_set)
            ors_fail(SLOT(oj, 8), off, "status completed with an error set");
    } else if (strcmp(st, "incomplete") == 0) {
        if (!cJSON_IsString(tw_json_get(inc, "reason")))
            ors_fail(SLOT(oj, 8), off, "status incomplete without incomplete_details.reason");
    } else if (strcmp(st, "failed") == 0) {
        if (!cJSON_IsObject(err))
            ors_fail(SLOT(oj, 8), off, "status failed without an error object");
        char cb[128];
        ors_fail(SLOT(oj, 9), off, "the response failed: %s",
                 tw_chk_clip(cb, sizeof cb,
                             tw_json_get_str(err, "message") ? tw_json_get_str(err, "message")
                                                             : "(no message)",
                             120));
    } else if (terminal) {
        ors_fail(SLOT(oj, 8), off, "final status %.40s (expected completed, incomplete or failed)",
                 st);
    }
}

/* ================================================================ body */

static void ors_body(ors_judge *oj, const cJSON *body)
{
    const tw_judge_input *in = oj->j->in;
    const char *obj = tw_json_get_str(body, "object");
    const cJSON *output = tw_json_get(body, "output");
    if (!cJSON_IsObject(body))
        ors_fail(SLOT(oj, 1), 0, "the body is not a JSON object");
    else if (!obj || strcmp(obj, "response") != 0)
        ors_fail(SLOT(oj, 1), tw_chk_find_off(in, "\"object\""),
                 "object is %.40s, not \"response\"", obj ? obj : "(absent)");
    else if (!cJSON_IsArray(output))
        ors_fail(SLOT(oj, 1), -1, "output is not an array");
    else if (!cJSON_IsString(tw_json_get(body, "status")))
        ors_fail(SLOT(oj, 1), -1, "status is not a string");
    if (SLOT(oj, 1)->failed) {
        for (size_t i = 1; i < ORS_NIDS; i++)
            PUT(oj->j->out, ORS_IDS[i], TW_V_SKIP, -1, "the body is not a response object");
        ors_put(oj->j->out, TW_CHK_ORS_01, SLOT(oj, 1), "");
        return;
    }
    size_t i = 0;
    char where[48];
    for (const cJSON *it = output->child; it; it = it->next, i++) {
        const char *ty = tw_json_get_str(it, "type");
        if (ty && strcmp(ty, "function_call") == 0) {
            snprintf(where, sizeof where, "output[%zu]", i);
            const char *cid = tw_json_get_str(it, "call_id");
            judge_call_item(oj, it, cid ? tw_chk_find_off(in, cid) : -1, where);
            if (cid && *cid)
                tw_chk_idx_add(&oj->call_ids, cid);
        }
    }
    repeated_call_ids(oj);
    judge_status(oj, body, tw_chk_find_off(in, "\"status\""), NULL);
    tw_check_set *out = oj->j->out;
    ors_put(out, TW_CHK_ORS_01, SLOT(oj, 1), "a response object with an output array");
    static const tw_check_id stream_only[] = {TW_CHK_ORS_02, TW_CHK_ORS_03, TW_CHK_ORS_04,
                                              TW_CHK_ORS_07};
    tw_chk_skip_ids(out, stream_only, 4, "not streamed");
    if (oj->ncalls) {
        ors_put(out, TW_CHK_ORS_05, SLOT(oj, 5),
                "every function_call has a call_id and a declared name");
        ors_put(out, TW_CHK_ORS_06, SLOT(oj, 6),
                "every function_call's arguments are one JSON object");
    } else {
        PUT(out, TW_CHK_ORS_05, TW_V_SKIP, -1, "no function_call");
        PUT(out, TW_CHK_ORS_06, TW_V_SKIP, -1, "no function_call");
    }
    ors_put(out, TW_CHK_ORS_08, SLOT(oj, 8), "status agrees with incomplete_details and error");
    ors_put(out, TW_CHK_ORS_09, SLOT(oj, 9), "the response did not fail");
}

/* ================================================================ stream */

/* One output item of the stream, found by output_index through a hash. */
typedef struct oitem {
    long index;
    char *id;       /* the item's id, or NULL */
    bool call;      /* a function_call */
    bool done;      /* output_item.done seen */
    bool args_done; /* function_call_arguments.done seen */
    tw_buf deltas;  /* concatenated argument deltas, capped at max_args_bytes */
    bool deltas_over;
    char *done_args;
    char *call_id; /* of the done function_call item, for the repeat rule */
    size_t off;
} oitem;

typedef struct oitems {
    oitem *v;
    size_t n, cap, max;
    size_t *slot; /* 1 + position, 0 empty; nslot a power of two >= 2 * max */
    size_t nslot;
} oitems;

static size_t hash_index(long i)
{
    return (size_t)((uint64_t)i * 0x9E3779B97F4A7C15ull >> 7);
}

static oitem *oitems_find(const oitems *t, long index)
{
    if (!t->nslot)
        return NULL;
    for (size_t h = hash_index(index) & (t->nslot - 1);; h = (h + 1) & (t->nslot - 1)) {
        size_t s = t->slot[h];
        if (!s)
            return NULL;
        if (t->v[s - 1].index == index)
            return &t->v[s - 1];
    }
}

/* NULL when the cap is reached or out of memory (*nomem says which). */
static oitem *oitems_add(oitems *t, long index, bool *nomem)
{
    *nomem = false;
    if (t->n >= t->max)
        return NULL;
    if (!t->slot) {
        size_t ns = 16;
        while (ns < 2 * t->max)
            ns *= 2;
        t->slot = calloc(ns, sizeof *t->slot);
        if (!t->slot) {
            *nomem = true;
            return NULL;
        }
        t->nslot = ns;
    }
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 8;
        oitem *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv) {
            *nomem = true;
            return NULL;
        }
        t->v = nv;
        t->cap = nc;
    }
    oitem *it = &t->v[t->n++];
    memset(it, 0, sizeof *it);
    it->index = index;
    size_t h = hash_index(index) & (t->nslot - 1);
    while (t->slot[h])
        h = (h + 1) & (t->nslot - 1);
    t->slot[h] = t->n;
    return it;
}

static void oitems_free(oitems *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].id);
        free(t->v[i].done_args);
        free(t->v[i].call_id);
        tw_buf_free(&t->v[i].deltas);
    }
    free(t->v);
    free(t->slot);
}

static bool is_terminal(const char *ty)
{
    return strcmp(ty, "response.completed") == 0 || strcmp(ty, "response.incomplete") == 0 ||
           strcmp(ty, "response.failed") == 0;
}

static void ors_stream(ors_judge *oj)
{
    judge *j = oj->j;
    const tw_judge_input *in = j->in;
    sse_list ev = {0};
    tw_chk_sse_parse(in->body ? in->body : "", in->body_len, &j->L, &ev);
    oitems items = {0};
    items.max = 2 * j->L.max_calls + 16;
    if (!tw_chk_ctype_is(in, "text/event-stream"))
        ors_fail(SLOT(oj, 1), -1, "Content-Type is not text/event-stream");
    if (ev.capped)
        ors_fail(SLOT(oj, 1), -1, "more events than the judge keeps");
    bool seen_created = false, any_seq = false, all_seq = true, any_event = false;
    double last_seq = 0;
    bool have_last_seq = false;
    const char *terminal = NULL;
    size_t terminal_at = 0;
    char ex[120];
    for (size_t i = 0; i < ev.n; i++) {
        const sse_ev *e = &ev.v[i];
        int64_t off = (int64_t)e->off;
        if (e->over_cap != TW_OK) {
            ors_fail(SLOT(oj, 1), off, "event dropped: over the line or event cap");
            continue;
        }
        cJSON *d = tw_chk_parse_json(e->data, e->data_len, j->L.max_depth);
        const char *ty = tw_json_get_str(d, "type");
        if (!cJSON_IsObject(d) || !ty) {
            tw_chk_excerpt(ex, sizeof ex, e->data, e->data_len);
            ors_fail(SLOT(oj, 1), off, "event data is not a JSON object with a type: %s", ex);
            cJSON_Delete(d);
            continue;
        }
        if (e->type && strcmp(e->type, "message") != 0 && strcmp(e->type, ty) != 0)
            ors_fail(SLOT(oj, 1), off, "event: %.60s carries type %.60s", e->type, ty);
        if (!any_event && strcmp(ty, "response.created") != 0)
            ors_fail(SLOT(oj, 2), off, "the first event is %.60s, not response.created", ty);
        any_event = true;
        if (strcmp(ty, "response.created") == 0) {
            if (seen_created)
                ors_fail(SLOT(oj, 2), off, "a second response.created");
            seen_created = true;
        }
        if (terminal)
            ors_fail(SLOT(oj, 2), off, "%.60s after the terminal %s", ty, terminal);
        /* ORS-03 */
        const cJSON *sq = tw_json_get(d, "sequence_number");
        if (cJSON_IsNumber(sq)) {
            any_seq = true;
            if (have_last_seq && !(sq->valuedouble > last_seq))
                ors_fail(SLOT(oj, 3), off, "sequence_number %.0f after %.0f", sq->valuedouble,
                         last_seq);
            last_seq = sq->valuedouble;
            have_last_seq = true;
        } else {
            all_seq = false;
        }
        /* ORS-09: an error event */
        if (strcmp(ty, "error") == 0) {
            const char *msg = tw_json_get_str(d, "message");
            if (!msg)
                msg = tw_json_get_str(tw_json_get(d, "error"), "message");
            char cb[168];
            ors_fail(SLOT(oj, 9), off, "error event: %s",
                     tw_chk_clip(cb, sizeof cb, msg ? msg : "(no message)", 160));
        }
        if (is_terminal(ty)) {
            if (!terminal) {
                terminal = strcmp(ty, "response.completed") == 0    ? "response.completed"
                           : strcmp(ty, "response.incomplete") == 0 ? "response.incomplete"
                                                                    : "response.failed";
                terminal_at = i;
                judge_status(oj, tw_json_get(d, "response"), off, terminal);
            } else {
                ors_fail(SLOT(oj, 2), off, "a second terminal event %.60s", ty);
            }
        }
        /* ORS-04, ORS-07: events of one output item */
        const cJSON *oi = tw_json_get(d, "output_index");
        if (cJSON_IsNumber(oi)) {
            long idx = (long)oi->valuedouble;
            oitem *it = oitems_find(&items, idx);
            const char *item_id = tw_json_get_str(d, "item_id");
            if (strcmp(ty, "response.output_item.added") == 0) {
                const cJSON *item = tw_json_get(d, "item");
                if (it) {
                    ors_fail(SLOT(oj, 4), off, "output_index %ld added twice", idx);
                } else {
                    bool nomem;
                    it = oitems_add(&items, idx, &nomem);
                    if (!it) {
                        ors_fail(SLOT(oj, 4), off,
                                 nomem ? "out of memory"
                                       : "more than %zu output items (limits: 2 x max_calls + 16)",
                                 items.max);
                    } else {
                        it->off = (size_t)off;
                        const char *iid = tw_json_get_str(item, "id");
                        it->id = iid ? tw_strdup(iid) : NULL;
                        const char *ity = tw_json_get_str(item, "type");
                        it->call = ity && strcmp(ity, "function_call") == 0;
                        it->deltas.max = j->L.max_args_bytes;
                    }
                }
            } else if (!it) {
                ors_fail(SLOT(oj, 2), off,
                         "%.60s for output_index %ld before its output_item.added", ty, idx);
                ors_fail(SLOT(oj, 4), off, "%.60s names output_index %ld, never added", ty, idx);
            } else {
                if (it->done)
                    ors_fail(SLOT(oj, 2), off,
                             "%.60s for output_index %ld after its output_item.done", ty, idx);
                const char *iid = item_id;
                if (strcmp(ty, "response.output_item.done") == 0)
                    iid = tw_json_get_str(tw_json_get(d, "item"), "id");
                if (iid && it->id && strcmp(iid, it->id) != 0)
                    ors_fail(SLOT(oj, 4), off,
                             "output_index %ld is item %.60s, this event names %.60s", idx, it->id,
                             iid);
                if (strcmp(ty, "response.function_call_arguments.delta") == 0) {
                    const char *dl = tw_json_get_str(d, "delta");
                    if (!it->call)
                        ors_fail(SLOT(oj, 4), off,
                                 "argument delta for output_index %ld, not a function_call", idx);
                    else if (it->args_done)
                        ors_fail(SLOT(oj, 2), off,
                                 "argument delta after function_call_arguments.done");
                    if (dl && !it->deltas_over && tw_buf_puts(&it->deltas, dl) != TW_OK)
                        it->deltas_over = true;
                } else if (strcmp(ty, "response.function_call_arguments.done") == 0) {
                    const char *args = tw_json_get_str(d, "arguments");
                    it->args_done = true;
                    if (it->deltas_over)
                        ors_fail(SLOT(oj, 7), off,
                                 "argument deltas of output_index %ld past max_args_bytes", idx);
                    else if (!args)
                        ors_fail(SLOT(oj, 7), off,
                                 "function_call_arguments.done without arguments");
                    else if (it->deltas.len && strcmp(args, it->deltas.data) != 0) {
                        tw_chk_excerpt(ex, sizeof ex, it->deltas.data, it->deltas.len);
                        ors_fail(
                            SLOT(oj, 7), off,
                            "output_index %ld: .done arguments %.80s differ from the deltas %s",
                            idx, args, ex);
                    }
                    free(it->done_args);
                    it->done_args = args ? tw_strdup(args) : NULL;
                } else if (strcmp(ty, "response.output_item.done") == 0) {
                    const cJSON *item = tw_json_get(d, "item");
                    it->done = true;
                    const char *ity = tw_json_get_str(item, "type");
                    if (ity && strcmp(ity, "function_call") == 0) {
                        char where[48];
                        snprintf(where, sizeof where, "output_index %ld", idx);
                        judge_call_item(oj, item, off, where);
                        const char *cid = tw_json_get_str(item, "call_id");
                        if (cid && *cid && !it->call_id && (it->call_id = tw_strdup(cid)) != NULL)
                            tw_chk_idx_add(&oj->call_ids, it->call_id);
                        const char *a = tw_json_get_str(item, "arguments");
                        const char *want = it->done_args    ? it->done_args
                                           : it->deltas.len ? it->deltas.data
                                                            : NULL;
                        if (a && want && !it->deltas_over && strcmp(a, want) != 0)
                            ors_fail(SLOT(oj, 7), off,
                                     "output_index %ld: the done item's arguments %.80s differ "
                                     "from the streamed %.80s",
                                     idx, a, want);
                    }
                }
            }
        }
        cJSON_Delete(d);
    }
    if (!any_event)
        ors_fail(SLOT(oj, 2), 0, "no event");
    else if (!terminal)
        ors_fail(SLOT(oj, 2), (int64_t)in->body_len,
                 "no terminal event (response.completed, response.incomplete or "
                 "response.failed)%s%.100s",
                 in->transport_error ? ": " : "", in->transport_error ? in->transport_error : "");
    else if (terminal_at + 1 < ev.n && !SLOT(oj, 2)->failed)
        ors_fail(SLOT(oj, 2), (int64_t)ev.v[terminal_at + 1].off, "events after the terminal %s",
                 terminal);
    for (size_t i = 0; i < items.n && terminal; i++)
        if (!items.v[i].done)
            ors_fail(SLOT(oj, 2), (int64_t)items.v[i].off,
                     "output_index %ld never gets output_item.done", items.v[i].index);
    repeated_call_ids(oj);
    if (any_seq && !all_seq)
        ors_fail(SLOT(oj, 3), -1, "some events carry sequence_number, others do not");
    tw_check_set *out = j->out;
    ors_put(out, TW_CHK_ORS_01, SLOT(oj, 1), "an event stream of typed JSON events");
    ors_put(out, TW_CHK_ORS_02, SLOT(oj, 2),
            "response.created first, items added before use, one terminal event last");
    if (any_seq)
        ors_put(out, TW_CHK_ORS_03, SLOT(oj, 3), "sequence_number strictly increasing");
    else
        PUT(out, TW_CHK_ORS_03, TW_V_SKIP, -1, "no event carries sequence_number");
    ors_put(out, TW_CHK_ORS_04, SLOT(oj, 4),
            "every event names an added output_index and its item_id");
    if (oj->ncalls || SLOT(oj, 7)->failed) {
        ors_put(out, TW_CHK_ORS_05, SLOT(oj, 5),
                "every function_call has a call_id and a declared name");
        ors_put(out, TW_CHK_ORS_06, SLOT(oj, 6),
                "every function_call's arguments are one JSON object");
        ors_put(out, TW_CHK_ORS_07, SLOT(oj, 7),
                "the .done arguments equal the concatenated deltas");
    } else {
        PUT(out, TW_CHK_ORS_05, TW_V_SKIP, -1, "no function_call completed");
        PUT(out, TW_CHK_ORS_06, TW_V_SKIP, -1, "no function_call completed");
        PUT(out, TW_CHK_ORS_07, TW_V_SKIP, -1, "no function_call completed");
    }
    if (terminal || SLOT(oj, 8)->failed)
        ors_put(out, TW_CHK_ORS_08, SLOT(oj, 8), "the terminal status agrees with its details");
    else
        PUT(out, TW_CHK_ORS_08, TW_V_SKIP, -1, "no terminal event");
    ors_put(out, TW_CHK_ORS_09, SLOT(oj, 9), "no error event, the response did not fail");
    oitems_free(&items);
    tw_chk_sse_free(&ev);
}

void tw_chk_ors_checks(judge *j, bool stream, const cJSON *body)
{
    ors_judge oj;
    memset(&oj, 0, sizeof oj);
    oj.j = j;
    declared_tools(j->in->req_body, &oj.tools, &oj.any_tools);
    if (stream)
        ors_stream(&oj);
    else
        ors_body(&oj, body);
    tw_chk_idx_free(&oj.tools);
    tw_chk_idx_free(&oj.call_ids);
}

void tw_chk_ors_skip(tw_check_set *out, const char *why)
{
    tw_chk_skip_ids(out, ORS_IDS, ORS_NIDS, why);
}

/* ================================================================ client */

/* The entry of id with the lowest position (the index sorts by id, then
 * position), or NULL. */
static const idx_ent *idx_first(const id_index *x, const char *id)
{
    size_t lo = 0, hi = x->n;
    while (id && lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(x->v[mid].id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return id && lo < x->n && strcmp(x->v[lo].id, id) == 0 ? &x->v[lo] : NULL;
}

/*
 * A Responses request: CLI-01 (every function_call_output answers a
 * function_call earlier in input, by call_id), CLI-02 (every function_call
 * of input is answered before the next user message; a pending call at the
 * end is allowed), CLI-03 (function tools: name and parameters), CLI-04
 * (history arguments a string holding one JSON object), CLI-06
 * (parallel_tool_calls), CLI-08 (reasoning carried back with its encrypted
 * content when store is false). With previous_response_id the earlier turns
 * are kept by the server: calls answered from there are not judged; nor is
 * an output whose call_id is in no function_call of input when an
 * item_reference (a stored item, sent by id) comes before it.
 */
void tw_chk_cli_responses(const cJSON *body, tw_check_set *out)
{
    char ex[120];
    const cJSON *tools = tw_json_get(body, "tools");
    if (!cJSON_IsArray(tools) || !tools->child) {
        PUT(out, TW_CHK_CLI_03, TW_V_SKIP, -1, "no tools");
        PUT(out, TW_CHK_CLI_06, TW_V_SKIP, -1, "no tools");
    } else {
        bool ok = true;
        size_t i = 0;
        for (const cJSON *t = tools->child; t && ok; t = t->next, i++) {
            const char *ty = tw_json_get_str(t, "type");
            if (!ty) {
                PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1, "tools[%zu] has no type", i);
                ok = false;
            } else if (strcmp(ty, "function") == 0) {
                const char *name = tw_json_get_str(t, "name");
                size_t n = name ? strlen(name) : 0;
                bool nok = n >= 1 && n <= 64;
                for (size_t k = 0; k < n && nok; k++)
                    nok = (name[k] >= 'a' && name[k] <= 'z') ||
                          (name[k] >= 'A' && name[k] <= 'Z') ||
                          (name[k] >= '0' && name[k] <= '9') || name[k] == '_' || name[k] == '-';
                const cJSON *p = tw_json_get(t, "parameters");
                const char *pty = tw_json_get_str(p, "type");
                if (!nok) {
                    tw_chk_excerpt_json(ex, sizeof ex, tw_json_get(t, "name"));
                    PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1, "tools[%zu].name %s", i, ex);
                    ok = false;
                } else if (p && !cJSON_IsNull(p) &&
                           (!cJSON_IsObject(p) || (pty && strcmp(pty, "object") != 0))) {
                    PUT(out, TW_CHK_CLI_03, TW_V_FAIL, -1,
                        "tools[%zu].parameters is not an object schema", i);
                    ok = false;
                }
            }
        }
        if (ok)
            PUT(out, TW_CHK_CLI_03, TW_V_PASS, -1, "function tools well formed");
        const cJSON *par = tw_json_get(body, "parallel_tool_calls");
        if (cJSON_IsBool(par))
            PUT(out, TW_CHK_CLI_06, TW_V_PASS, -1, "parallel_tool_calls: %s",
                cJSON_IsTrue(par) ? "true" : "false");
        else
            PUT(out, TW_CHK_CLI_06, TW_V_FAIL, -1, "parallel_tool_calls is not set");
    }
    PUT(out, TW_CHK_CLI_05, TW_V_SKIP, -1, "Responses request");
    const cJSON *input = tw_json_get(body, "input");
    if (!cJSON_IsArray(input)) {
        static const tw_check_id ids[] = {TW_CHK_CLI_01, TW_CHK_CLI_02, TW_CHK_CLI_04,
                                          TW_CHK_CLI_08};
        tw_chk_skip_ids(out, ids, 4, "input is not a list of items");
        return;
    }
    bool chained = tw_chk_str_nonempty(tw_json_get(body, "previous_response_id"));
    bool stateless = cJSON_IsFalse(tw_json_get(body, "store"));
    bool asked_encrypted = false;
    const cJSON *inc = tw_json_get(body, "include");
    if (cJSON_IsArray(inc))
        for (const cJSON *s = inc->child; s; s = s->next)
            if (cJSON_IsString(s) && strcmp(s->valuestring, "reasoning.encrypted_content") == 0)
                asked_encrypted = true;
    /* pass 1: the call ids and the output ids with their positions in
     * input, each index sorted once; pass 2 judges every item by lookups */
    id_index calls = {0}, outputs = {0};
    size_t last_other = 0; /* 1 + position of the last item that is not a function_call */
    size_t i = 0;
    for (const cJSON *it = input->child; it; it = it->next, i++) {
        const char *ty = tw_json_get_str(it, "type");
        const char *cid = tw_json_get_str(it, "call_id");
        bool call = ty && strcmp(ty, "function_call") == 0;
        if (!call)
            last_other = i + 1;
        id_index *x = call                                            ? &calls
                      : ty && strcmp(ty, "function_call_output") == 0 ? &outputs
                                                                      : NULL;
        if (x && cid) {
            tw_chk_idx_add(x, cid);
            if (x->n && !x->nomem)
                x->v[x->n - 1].pos = i;
        }
    }
    tw_chk_idx_seal(&calls);
    tw_chk_idx_seal(&outputs);
    bool any_call = false, any_output = false, any_reasoning = false, any_ref = false,
         by_ref = false;
    bool f01 = false, f02 = false, f04 = false, f08 = false;
    i = 0;
    for (const cJSON *it = input->child; it; it = it->next, i++) {
        const char *ty = tw_json_get_str(it, "type");
        if (!ty && tw_json_get(it, "role"))
            ty = "message";
        if (!ty)
            continue;
        const char *cid = tw_json_get_str(it, "call_id");
        if (strcmp(ty, "function_call") == 0) {
            any_call = true;
            const cJSON *a = tw_json_get(it, "arguments");
            cJSON *v = cJSON_IsString(a)
                           ? tw_chk_parse_json(a->valuestring, strlen(a->valuestring), 64)
                           : NULL;
            if (!f04 && !cJSON_IsObject(v)) {
                tw_chk_excerpt_json(ex, sizeof ex, a);
                PUT(out, TW_CHK_CLI_04, TW_V_FAIL, -1, "input[%zu].arguments %s", i,
                    a ? ex : "(absent)");
                f04 = true;
            }
            cJSON_Delete(v);
            const idx_ent *o = idx_first(&outputs, cid);
            if (!f02 && i < last_other && (!o || o->pos < i)) {
                PUT(out, TW_CHK_CLI_02, TW_V_FAIL, -1,
                    "input[%zu]: function_call %.80s is never answered", i,
                    cid ? cid : "(without call_id)");
                f02 = true;
            }
            if (!f08 && stateless && asked_encrypted && !any_reasoning) {
                PUT(out, TW_CHK_CLI_08, TW_V_FAIL, -1,
                    "input[%zu]: a function_call of a stateless turn (store: false, "
                    "reasoning.encrypted_content "
                    "asked for) without the reasoning item before it",
                    i);
                f08 = true;
            }
        } else if (strcmp(ty, "function_call_output") == 0) {
            any_output = true;
            const idx_ent *c = idx_first(&calls, cid);
            if (!c && any_ref) {
                by_ref = true; /* its call may be the stored item an item_reference names */
            } else if (!f01 && !chained && (!c || c->pos > i)) {
                PUT(out, TW_CHK_CLI_01, TW_V_FAIL, -1,
                    "input[%zu]: function_call_output call_id %.80s answers no earlier "
                    "function_call",
                    i, cid ? cid : "(absent)");
                f01 = true;
            }
        } else if (strcmp(ty, "reasoning") == 0) {
            any_reasoning = true;
            if (!f08 && stateless && !tw_chk_str_nonempty(tw_json_get(it, "encrypted_content"))) {
                PUT(out, TW_CHK_CLI_08, TW_V_FAIL, -1,
                    "input[%zu]: a reasoning item without its encrypted_content while store is "
                    "false",
                    i);
                f08 = true;
            }
        } else if (strcmp(ty, "message") == 0) {
            /* the reasoning before a turn's calls belongs to that turn; the
             * turn's own assistant text (output order: reasoning, message,
             * function_call) does not end it */
            const char *role = tw_json_get_str(it, "role");
            if (!role || strcmp(role, "assistant") != 0)
                any_reasoning = false;
        } else if (strcmp(ty, "item_reference") == 0) {
            any_ref = true;
        }
    }
    tw_chk_idx_free(&calls);
    tw_chk_idx_free(&outputs);
    if (!f01)
        PUT(out, TW_CHK_CLI_01, any_output ? (chained ? TW_V_SKIP : TW_V_PASS) : TW_V_SKIP, -1,
            "%s",
            !any_output ? "no function_call_output"
            : chained   ? "previous_response_id keeps the calls"
            : by_ref ? "every function_call_output answers a call (or follows an item_reference to "
                       "a stored item)"
                     : "every function_call_output answers a call");
    if (!f02)
        PUT(out, TW_CHK_CLI_02, any_call ? TW_V_PASS : TW_V_SKIP, -1, "%s",
            any_call ? "every function_call answered" : "no function_call in input");
    if (!f04)
        PUT(out, TW_CHK_CLI_04, any_call ? TW_V_PASS : TW_V_SKIP, -1, "%s",
            any_call ? "history arguments are JSON strings" : "no function_call in input");
    if (!f08)
        PUT(out, TW_CHK_CLI_08, stateless && any_call ? TW_V_PASS : TW_V_SKIP, -1, "%s",
            !stateless ? "the server stores the response (store is not false)"
            : any_call ? "reasoning carried back with its encrypted content"
                       : "no function_call in input");
}

/* ================================================================ across turns */

static void issued_add(id_index *x, const cJSON *item)
{
    const char *ty = tw_json_get_str(item, "type");
    const char *cid = tw_json_get_str(item, "call_id");
    if (ty && strcmp(ty, "function_call") == 0 && cid && *cid)
        tw_chk_idx_add(x, cid);
}

/* The call ids the recorded answers of exchanges [0, xi) issued: body output
 * items, and the items of the streams' output_item.done events. The strings
 * stay in *keep (deleted by the caller). */
static void issued_ids(const tw_fixture *f, size_t xi, size_t depth, id_index *x, cJSON *keep)
{
    for (size_t k = 0; k < xi && k < f->nexchanges; k++) {
        const tw_fx_response *r = &f->exchanges[k].resp;
        if (!f->exchanges[k].has_response || r->status >= 400)
            continue;
        if (!r->stream) {
            const cJSON *out = tw_json_get(r->body, "output");
            for (const cJSON *it = cJSON_IsArray(out) ? out->child : NULL; it; it = it->next)
                issued_add(x, it);
            continue;
        }
        for (size_t e = 0; e < r->nevents; e++) {
            const char *d = r->events[e].data;
            size_t n = d ? strlen(d) : 0;
            if (!n || !tw_memmem(d, n, "response.output_item.done", 25))
                continue;
            cJSON *v = tw_chk_parse_json(d, n, depth);
            const cJSON *item = tw_json_get(v, "item");
            if (item && tw_json_get_str(item, "call_id"))
                issued_add(x, item);
            if (v && !cJSON_AddItemToArray(keep, v))
                cJSON_Delete(v);
        }
    }
}

void tw_checks_client_history(const cJSON *body, const tw_fixture *f, size_t xi,
                              const tw_limits *limits, tw_check_set *out)
{
    tw_limits L;
    tw_limits_resolve(&L, limits);
    const cJSON *input = tw_json_get(body, "input");
    if (!cJSON_IsArray(input) || !f || xi == 0) {
        PUT(out, TW_CHK_CLI_09, TW_V_SKIP, -1, "%s",
            !cJSON_IsArray(input) ? "input is not a list of items"
                                  : "the first turn of its fixture");
        return;
    }
    cJSON *keep = cJSON_CreateArray();
    if (!keep)
        return;
    id_index issued = {0};
    issued_ids(f, xi, L.max_depth, &issued, keep);
    tw_chk_idx_seal(&issued);
    if (!issued.n) {
        PUT(out, TW_CHK_CLI_09, TW_V_SKIP, -1, "no earlier answer of the fixture made a call");
    } else {
        bool judged = false, failed = false;
        size_t i = 0;
        for (const cJSON *it = input->child; it && !failed; it = it->next, i++) {
            const char *ty = tw_json_get_str(it, "type");
            if (!ty ||
                (strcmp(ty, "function_call") != 0 && strcmp(ty, "function_call_output") != 0))
                continue;
            judged = true;
            const char *cid = tw_json_get_str(it, "call_id");
            if (!cid || !tw_chk_idx_has(&issued, cid)) {
                PUT(out, TW_CHK_CLI_09, TW_V_FAIL, -1,
                    "input[%zu]: %s call_id %.80s is none the earlier answers issued (such as "
                    "%.80s)",
                    i, ty, cid ? cid : "(absent)", issued.v[0].id);
                failed = true;
            }
        }
        if (!failed)
            PUT(out, TW_CHK_CLI_09, judged ? TW_V_PASS : TW_V_SKIP, -1, "%s",
                judged ? "every call_id sent back was issued by an earlier answer"
                       : "no call sent back");
    }
    tw_chk_idx_free(&issued);
    cJSON_Delete(keep);
}
