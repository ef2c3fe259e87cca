/*
 * OpenAI chat completions: the chat.completion body and the
 * chat.completion.chunk stream, plus the call-acceptance rules shared with
 * the Anthropic decoders. Both OpenAI decoders gather the same pieces
 * (content, reasoning, refusal, calls as the wire gave them, finish_reason)
 * and close them through the same functions, so the stream's result equals
 * the response's. The rules are in docs/formats/openai.md.
 */
#include "alloc.h"
#include "toolwire/openai.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "hash.h"
#include "json_marks.h"
#include "wire_common.h"
#include "wire_stream.h"
#include "work.h"
#include "toolwire/decode.h"

/* Initial capacity of the per-stream call table; it grows up to 2 * max_calls + 16. */
#define TW_OAI_SLOTS_INIT 8

typedef struct tw_oai_slot tw_oai_slot;

/*
 * The state of a chat.completion.chunk stream decoder (opaque in
 * toolwire/openai.h). Memory it holds is bounded:
 * one SSE line and event (max_line_bytes, max_event_bytes), each open call's
 * argument text (2 * max_args_bytes + 4096) and the decoded text, which the
 * max_input_bytes cap on the input bounds.
 */
struct tw_openai_stream {
    tw_wire_stream w;   /* first: the state every event stream keeps */
    tw_oai_slot *slots; /* open calls, in order of their first delta */
    size_t nslots;
    size_t cap_slots;
    size_t slots_created; /* since the last time calls were closed */
    tw_buf refusal;
    int64_t refusal_off;
    char *finish_reason;
    /* lookup of the open calls: 1 + slot position by delta index and by id
     * (the latest slot of each), and the latest non-legacy slot */
    size_t *by_index;
    size_t *by_id;
    size_t ntab; /* a power of two, at least twice nslots; 0 before the first slot */
    size_t last_plain;
};

#define SLEN(s) (sizeof(s) - 1)

/* ===================== pieces shared by response and stream ===================== */

static tw_status fire_text(tw_wire_sink *k, tw_event_kind kind, tw_buf *b, size_t from)
{
    if (k->fn && b->len > from) {
        tw_event ev = {kind, b->data + from, b->len - from, NULL, NULL};
        tw_event_deliver(k->fn, k->user, k->stop, &ev);
    }
    return TW_OK;
}

/* content: a string, null, or an array of parts ({type: text} joined;
 * {type: refusal} parts go to the refusal text). */
static tw_status take_content(tw_wire_sink *k, const cJSON *c, tw_buf *refusal)
{
    tw_buf *out = &k->res->msg.content;
    size_t from = out->len;
    tw_status st = TW_OK;
    if (cJSON_IsString(c)) {
        st = tw_buf_puts(out, c->valuestring);
    } else if (cJSON_IsArray(c)) {
        for (const cJSON *p = c->child; st == TW_OK && p; p = p->next) {
            const char *type = tw_json_get_str(p, "type");
            const char *text = tw_json_get_str(p, "text");
            const char *ref = tw_json_get_str(p, "refusal");
            if (text && (!type || strcmp(type, "text") == 0))
                st = tw_buf_puts(out, text);
            else if (ref && type && strcmp(type, "refusal") == 0)
                st = tw_buf_puts(refusal, ref);
        }
    }
    if (st == TW_OK)
        fire_text(k, TW_EV_CONTENT, out, from);
    return st;
}

/* Reasoning: reasoning_content when it is a non-empty string, else
 * reasoning. A different non-empty reasoning next to it is dropped (error
 * reasoning_field). */
static tw_status take_reasoning(tw_wire_sink *k, const cJSON *obj, int64_t off_rc, int64_t off_r)
{
    const char *rc = tw_json_get_str(obj, "reasoning_content");
    const char *r = tw_json_get_str(obj, "reasoning");
    const char *use = NULL;
    const char *field = NULL;
    tw_status st = TW_OK;
    if (rc && rc[0]) {
        use = rc;
        field = "reasoning_content";
        if (r && r[0] && strcmp(r, rc) != 0)
            st = tw_wire_diag(k, true, TW_D_REASONING_FIELD, off_r >= 0 ? off_r : off_rc,
                              "'reasoning' differs from 'reasoning_content' and was dropped");
    } else if (r && r[0]) {
        use = r;
        field = "reasoning";
    }
    if (st != TW_OK || !use)
        return st;
    if (!k->res->reasoning_field)
        k->res->reasoning_field = field;
    tw_buf *out = &k->res->msg.thinking;
    size_t from = out->len;
    st = tw_buf_puts(out, use);
    if (st == TW_OK)
        fire_text(k, TW_EV_THINKING, out, from);
    return st;
}

/* The refusal and finish_reason, once everything else is in. */
static tw_status close_message(tw_wire_sink *k, tw_buf *refusal, int64_t refusal_off,
                               const char *finish)
{
    tw_status st = TW_OK;
    if (refusal->len) {
        tw_buf *out = &k->res->msg.content;
        size_t from = out->len;
        st = tw_buf_append(out, refusal->data, refusal->len);
        if (st == TW_OK)
            fire_text(k, TW_EV_CONTENT, out, from);
        if (st == TW_OK)
            st = tw_wire_diag(k, false, TW_D_REFUSAL, refusal_off,
                              "the model refused; the refusal text is the content");
        finish = "content_filter";
    }
    /* the legacy finish reason of a function_call is tool_calls in the neutral model */
    if (finish && strcmp(finish, "function_call") == 0)
        finish = "tool_calls";
    return tw_wire_set_finish(k->res, st, finish);
}

/* One tool_calls element of a message, or a legacy function_call object. */
static tw_status take_call_object(tw_wire_sink *k, const cJSON *tc, int64_t off, bool legacy)
{
    if (!cJSON_IsObject(tc))
        return tw_wire_diag(k, true, TW_D_TOOL_CALL_JSON, off, "tool call is not a JSON object");
    const cJSON *fn = legacy ? tc : tw_json_get(tc, "function");
    tw_wire_call c;
    memset(&c, 0, sizeof c);
    c.offset = off;
    c.legacy = legacy;
    tw_error why;
    if (tw_call_object_check(tc, &why) || (fn != tc && tw_call_object_check(fn, &why))) {
        c.refuse = why.code;
        c.refuse_why = why.message;
    }
    c.id = legacy ? NULL : tw_json_get_str(tc, "id");
    c.name = tw_json_get_str(fn, "name");
    const cJSON *a = tw_json_get(fn, "arguments");
    if (cJSON_IsString(a)) {
        c.has_args_str = true;
        c.args_str = a->valuestring;
        c.args_len = strlen(a->valuestring);
        c.args_oversize = c.args_len > tw_args_text_cap(k->L);
    } else {
        c.args_value = a;
    }
    return tw_wire_take_call(k, &c);
}

/* ===================== response ===================== */

static tw_status oai_response_tree(tw_wire_sink *k, const char *buf, size_t len, cJSON **root,
                                   tw_buf *marks, tw_json_arena *arena);
static tw_status oai_response_read(tw_wire_sink *k, const char *buf, size_t len, cJSON *root,
                                   const tw_buf *marks);

static tw_status oai_response(tw_wire_sink *k, const char *buf, size_t len)
{
    cJSON *root = NULL;
    tw_buf marks = {0};
    /* the body's tree is read and dropped whole (every value kept is copied) */
    tw_json_arena arena = {0};
    tw_status st = oai_response_tree(k, buf, len, &root, &marks, &arena);
    if (st == TW_OK && root)
        st = oai_response_read(k, buf, len, root, &marks);
    tw_json_arena_drop(&arena, root);
    tw_json_arena_free(&arena);
    tw_buf_free(&marks);
    return st;
}

/* The body parsed (NULL *root: refused, with its diagnostic), with where its
 * containers begin. */
static tw_status oai_response_tree(tw_wire_sink *k, const char *buf, size_t len, cJSON **root,
                                   tw_buf *marks, tw_json_arena *arena)
{
    tw_error e;
    tw_json_lint lint;
    tw_status st = tw_json_parse_lint_marked(buf, len, k->L->max_depth + TW_WIRE_ENVELOPE_DEPTH,
                                             root, &e, &lint, marks, arena);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK)
        return tw_wire_diag(k, true, TW_D_RESPONSE_JSON, e.offset >= 0 ? e.offset : 0, e.message);
    return tw_wire_lint_diags(k, &lint, 0, true, NULL);
}

static tw_status oai_response_read(tw_wire_sink *k, const char *buf, size_t len, cJSON *root,
                                   const tw_buf *marks)
{
    tw_status st = TW_OK;
    const cJSON *err = tw_json_get(root, "error");
    const cJSON *choices = tw_json_get(root, "choices");
    if (err && !cJSON_IsNull(err) && !choices) {
        static const tw_wire_error_shape shape = {{"type", NULL}, true, false};
        tw_wire_step p[] = {{"error", 0}};
        char msg[300];
        tw_wire_error_text(err, &shape, msg, sizeof msg);
        return tw_wire_diag(k, true, TW_D_ERROR_RESPONSE, tw_wire_locate(buf, len, p, 1), msg);
    }
    const cJSON *choice = NULL;
    size_t ci = 0, i = 0;
    for (const cJSON *c = cJSON_IsArray(choices) ? choices->child : NULL; c; c = c->next, i++) {
        const cJSON *ix = tw_json_get(c, "index");
        int64_t zero;
        if (!ix || tw_json_exact_int(ix, 0, 0, &zero)) {
            choice = c;
            ci = i;
            break;
        }
    }
    const cJSON *msg = tw_json_get(choice, "message");
    if (!cJSON_IsObject(msg)) {
        return tw_wire_diag(k, true, TW_D_RESPONSE_SHAPE, 0,
                            choice ? "choices[0].message is not an object"
                                   : "no choice with index 0 in 'choices'");
    }
    tw_wire_step base[8] = {{"choices", 0}, {NULL, ci}, {"message", 0}};
    tw_buf refusal = {0};
    int64_t refusal_off = -1;
    /* where the two reasoning fields lie is read only when both are there,
     * the one case a diagnostic names them */
    int64_t off_rc = -1, off_r = -1;
    const char *rc0 = tw_json_get_str(msg, "reasoning_content");
    const char *r0 = tw_json_get_str(msg, "reasoning");
    if (rc0 && rc0[0] && r0 && r0[0]) {
        base[3].key = "reasoning_content";
        off_rc = tw_wire_locate(buf, len, base, 4);
        base[3].key = "reasoning";
        off_r = tw_wire_locate(buf, len, base, 4);
    }
    st = take_reasoning(k, msg, off_rc, off_r);
    if (st == TW_OK)
        st = take_content(k, tw_json_get(msg, "content"), &refusal);
    const char *ref = tw_json_get_str(msg, "refusal");
    if (st == TW_OK && ref)
        st = tw_buf_puts(&refusal, ref);
    if (refusal.len) {
        base[3].key = ref ? "refusal" : "content";
        refusal_off = tw_wire_locate(buf, len, base, 4);
    }
    const cJSON *tcs = tw_json_get(msg, "tool_calls");
    base[3].key = "tool_calls";
    if (st == TW_OK && (cJSON_IsArray(tcs) || cJSON_IsObject(tcs))) {
        /* the elements (or members) in document order, as cJSON keeps them */
        tw_wire_elems el;
        tw_wire_elems_open(&el, marks, tcs, buf, len, base, 4);
        for (const cJSON *tc = tcs->child; st == TW_OK && tc; tc = tc->next)
            st = take_call_object(k, tc, tw_wire_elems_next(&el, tc), false);
    } else if (st == TW_OK && tcs && !cJSON_IsNull(tcs)) {
        st = tw_wire_diag(k, true, TW_D_TOOL_CALL_JSON, tw_wire_locate(buf, len, base, 4),
                          "tool_calls is neither an array nor an object");
    }
    const cJSON *fc = tw_json_get(msg, "function_call");
    if (st == TW_OK && fc && !cJSON_IsNull(fc)) {
        base[3].key = "function_call";
        st = take_call_object(k, fc, tw_wire_locate(buf, len, base, 4), true);
    }
    if (st == TW_OK)
        st = close_message(k, &refusal, refusal_off, tw_json_get_str(choice, "finish_reason"));
    tw_buf_free(&refusal);
    return st;
}

/* The response format streams through the shared body-buffering decoder. */
TW_BODY_FORMAT(resp, tw_openai_response_decode, oai_response)

/* ===================== stream ===================== */

struct tw_oai_slot {
    int64_t index;
    bool has_index;
    bool legacy;
    char *id;
    char *name;
    tw_buf args;
    bool args_seen;
    bool oversize;
    cJSON *args_value;
    int64_t offset;
    tw_status refuse; /* json_nul or call_duplicate_key seen in one of its deltas */
    tw_error why;     /* its text */
};

static void slot_free(tw_oai_slot *s)
{
    tw_free(s->id);
    tw_free(s->name);
    tw_buf_free(&s->args);
    cJSON_Delete(s->args_value);
    memset(s, 0, sizeof *s);
}

static tw_wire_sink sink_of(tw_openai_stream *d)
{
    return tw_wire_stream_sink(&d->w);
}

/* Close every open call: tool_calls slots in order, then the legacy one. */
static tw_status close_calls(tw_openai_stream *d)
{
    tw_wire_sink k = sink_of(d);
    tw_status st = TW_OK;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; st == TW_OK && i < d->nslots; i++) {
            tw_oai_slot *s = &d->slots[i];
            if (s->legacy != (pass == 1))
                continue;
            tw_wire_call c;
            memset(&c, 0, sizeof c);
            c.id = s->id;
            c.name = s->name;
            c.legacy = s->legacy;
            c.offset = s->offset;
            c.refuse = s->refuse;
            c.refuse_why = s->why.message;
            if (s->args_seen) {
                c.has_args_str = true;
                c.args_str = s->args.data ? s->args.data : "";
                c.args_len = s->args.len;
                c.args_buf = &s->args;
                c.args_oversize = s->oversize;
            } else {
                c.args_value = s->args_value;
            }
            st = tw_wire_take_call(&k, &c);
        }
    }
    for (size_t i = 0; i < d->nslots; i++)
        slot_free(&d->slots[i]);
    d->nslots = 0;
    d->slots_created = 0;
    d->last_plain = 0;
    if (d->ntab) {
        memset(d->by_index, 0, d->ntab * sizeof *d->by_index);
        memset(d->by_id, 0, d->ntab * sizeof *d->by_id);
    }
    return st;
}

/* ---- slot lookup: open addressing over slot positions ---- */

/* The by_index entry for delta index idx: its slot, or the empty one where it goes. */
static size_t *tab_index(const tw_openai_stream *d, int64_t idx)
{
    size_t mask = d->ntab - 1, h = (size_t)tw_hash_mix((uint64_t)idx) & mask;
    for (;; h = (h + 1) & mask) {
        TW_WORK(1);
        size_t v = d->by_index[h];
        if (!v || d->slots[v - 1].index == idx)
            return &d->by_index[h];
    }
}

static size_t *tab_id(const tw_openai_stream *d, const char *id)
{
    size_t mask = d->ntab - 1, h = (size_t)tw_hash_str(id) & mask;
    for (;; h = (h + 1) & mask) {
        TW_WORK(1);
        size_t v = d->by_id[h];
        if (!v || strcmp(d->slots[v - 1].id, id) == 0)
            return &d->by_id[h];
    }
}

/* Slot pos is the latest with its index and id (a slot's index never
 * changes; its id is set once). */
static void tab_note(tw_openai_stream *d, size_t pos)
{
    tw_oai_slot *s = &d->slots[pos];
    if (s->legacy)
        return;
    if (s->has_index) {
        size_t *e = tab_index(d, s->index);
        if (*e < pos + 1)
            *e = pos + 1;
    }
    if (s->id) {
        size_t *e = tab_id(d, s->id);
        if (*e < pos + 1)
            *e = pos + 1;
    }
}

/* Room in the tables for one more slot. */
static tw_status tab_grow(tw_openai_stream *d)
{
    if (2 * (d->nslots + 1) <= d->ntab)
        return TW_OK;
    size_t n = d->ntab ? d->ntab * 2 : 32;
    size_t *a = tw_calloc(n, sizeof *a), *b = tw_calloc(n, sizeof *b);
    if (!a || !b) {
        tw_free(a);
        tw_free(b);
        return TW_ERR_NOMEM;
    }
    tw_free(d->by_index);
    tw_free(d->by_id);
    d->by_index = a;
    d->by_id = b;
    d->ntab = n;
    for (size_t i = 0; i < d->nslots; i++)
        tab_note(d, i);
    return TW_OK;
}

static tw_oai_slot *new_slot(tw_openai_stream *d, int64_t off, tw_status *st)
{
    size_t cap = tw_open_calls_cap(&d->w.L);
    if (d->nslots >= cap) {
        tw_wire_sink k = sink_of(d);
        *st = tw_wire_diag(&k, true, TW_D_TOO_MANY_CALLS, off,
                           "more open tool calls than 2 * max_calls + 16");
        return NULL;
    }
    if ((*st = tab_grow(d)) != TW_OK)
        return NULL;
    tw_oai_slot *ns =
        tw_wire_room(d->slots, &d->cap_slots, d->nslots, sizeof *ns, TW_OAI_SLOTS_INIT, cap);
    if (!ns) {
        *st = TW_ERR_NOMEM;
        return NULL;
    }
    d->slots = ns;
    tw_oai_slot *s = &d->slots[d->nslots++];
    memset(s, 0, sizeof *s);
    s->offset = off;
    s->args.max = tw_args_text_cap(&d->w.L);
    d->slots_created++;
    return s;
}

/* Merge one delta's function fields into a slot (delta: the element that holds them). */
static tw_status slot_apply(tw_oai_slot *s, const char *id, const cJSON *delta, const cJSON *fn)
{
    if (!s->refuse && (tw_call_object_check(delta, &s->why) ||
                       (fn && fn != delta && tw_call_object_check(fn, &s->why))))
        s->refuse = s->why.code;
    if (id && id[0] && !s->id && !(s->id = tw_strdup(id)))
        return TW_ERR_NOMEM;
    const char *name = tw_json_get_str(fn, "name");
    if (name && name[0] && !s->name && !(s->name = tw_strdup(name)))
        return TW_ERR_NOMEM;
    const cJSON *a = tw_json_get(fn, "arguments");
    if (cJSON_IsString(a)) {
        s->args_seen = true;
        if (!s->oversize) {
            tw_status st = tw_buf_puts(&s->args, a->valuestring);
            if (st == TW_ERR_LIMIT) {
                s->oversize = true;
                tw_buf_free(&s->args);
            } else if (st != TW_OK) {
                return st;
            }
        }
    } else if (a && !cJSON_IsNull(a) && !s->args_seen && !s->args_value) {
        if (!(s->args_value = cJSON_Duplicate(a, 1)))
            return TW_ERR_NOMEM;
    }
    return TW_OK;
}

static tw_status merge_tool_delta(tw_openai_stream *d, const cJSON *tc, int64_t off)
{
    tw_status st = TW_OK;
    if (!cJSON_IsObject(tc)) {
        tw_wire_sink k = sink_of(d);
        return tw_wire_diag(&k, true, TW_D_TOOL_CALL_JSON, off, "tool call delta is not an object");
    }
    const cJSON *ix = tw_json_get(tc, "index");
    const char *id = tw_json_get_str(tc, "id");
    bool has_id = id && id[0];
    tw_oai_slot *s = NULL;
    int64_t idx = 0;
    if (cJSON_IsNumber(ix) && !tw_json_exact_int(ix, INT64_MIN, INT64_MAX, &idx)) {
        /* 1.5 and 1 must not name one call: match this delta as one
         * without an index, and say so */
        tw_wire_sink k = sink_of(d);
        if ((st = tw_wire_diag(&k, false, TW_D_RESPONSE_SHAPE, off,
                               "tool call delta index is not an integer: matched by id "
                               "instead")) != TW_OK)
            return st;
        ix = NULL;
    }
    /* the latest open call with this index (or id, or the latest at all) */
    if (ix && cJSON_IsNumber(ix)) {
        size_t at = d->ntab ? *tab_index(d, idx) : 0;
        s = at ? &d->slots[at - 1] : NULL;
        if (s && has_id && s->id && strcmp(s->id, id) != 0)
            s = NULL; /* one index reused by another call: split by id */
        if (!s) {
            if (!(s = new_slot(d, off, &st)))
                return st;
            s->has_index = true;
            s->index = idx;
        }
    } else {
        size_t at = !d->ntab ? 0 : has_id ? *tab_id(d, id) : d->last_plain;
        s = at ? &d->slots[at - 1] : NULL;
        if (!s && !(s = new_slot(d, off, &st)))
            return st;
    }
    size_t pos = (size_t)(s - d->slots);
    d->last_plain = pos + 1 > d->last_plain ? pos + 1 : d->last_plain;
    st = slot_apply(s, id, tc, tw_json_get(tc, "function"));
    if (st == TW_OK)
        tab_note(d, pos);
    return st;
}

static tw_status merge_legacy(tw_openai_stream *d, const cJSON *fc, int64_t off)
{
    tw_status st = TW_OK;
    tw_oai_slot *s = NULL;
    for (size_t i = 0; i < d->nslots; i++)
        if (d->slots[i].legacy)
            s = &d->slots[i];
    if (!s) {
        if (!(s = new_slot(d, off, &st)))
            return st;
        s->legacy = true;
    }
    return slot_apply(s, NULL, fc, fc);
}

/* An error in place of a chunk: "<code>: <message>", the error string, or
 * the event's data. */
static tw_status stream_error(tw_wire_stream *w, const cJSON *err, const tw_wire_event *e)
{
    char msg[300];
    const char *m = tw_json_get_str(err, "message");
    const char *code = tw_json_get_str(err, "code");
    if (m)
        snprintf(msg, sizeof msg, "%.60s%s%.220s", code ? code : "", code ? ": " : "", m);
    else if (cJSON_IsString(err))
        snprintf(msg, sizeof msg, "%.250s", err->valuestring);
    else
        return tw_wire_stream_raw_error(w, e);
    return tw_wire_stream_diag(w, true, TW_D_STREAM_ERROR, e->off, msg);
}

static tw_status on_chunk(tw_openai_stream *d, const cJSON *j, int64_t off)
{
    tw_wire_sink k = sink_of(d);
    tw_status st = TW_OK;
    const cJSON *choices = tw_json_get(j, "choices");
    const cJSON *choice = NULL;
    for (const cJSON *c = cJSON_IsArray(choices) ? choices->child : NULL; c; c = c->next) {
        const cJSON *ix = tw_json_get(c, "index");
        int64_t zero;
        if (!ix || tw_json_exact_int(ix, 0, 0, &zero)) {
            choice = c;
            break;
        }
    }
    if (!choice)
        return TW_OK; /* usage chunk, or another choice */
    const cJSON *delta = tw_json_get(choice, "delta");
    if (cJSON_IsObject(delta)) {
        st = take_reasoning(&k, delta, off, off);
        if (st == TW_OK)
            st = take_content(&k, tw_json_get(delta, "content"), &d->refusal);
        const char *ref = tw_json_get_str(delta, "refusal");
        if (st == TW_OK && ref && ref[0])
            st = tw_buf_puts(&d->refusal, ref);
        if (d->refusal.len && d->refusal_off < 0)
            d->refusal_off = off;
        const cJSON *tcs = tw_json_get(delta, "tool_calls");
        if (cJSON_IsArray(tcs)) {
            for (const cJSON *tc = tcs->child; st == TW_OK && tc; tc = tc->next)
                st = merge_tool_delta(d, tc, off);
        } else if (st == TW_OK && tcs && !cJSON_IsNull(tcs)) {
            st = tw_wire_diag(&k, true, TW_D_TOOL_CALL_JSON, off,
                              "tool_calls delta is not an array");
        }
        const cJSON *fc = tw_json_get(delta, "function_call");
        if (st == TW_OK && cJSON_IsObject(fc))
            st = merge_legacy(d, fc, off);
    }
    const char *fr = tw_json_get_str(choice, "finish_reason");
    /* the first finish_reason wins; a second one is a violation (OAI-S06) */
    if (st == TW_OK && fr && !d->finish_reason) {
        tw_free(d->finish_reason);
        if (!(d->finish_reason = tw_strdup(fr)))
            return TW_ERR_NOMEM;
        st = close_calls(d);
    }
    return st;
}

static tw_status on_event(tw_wire_stream *w, const tw_wire_event *e)
{
    const cJSON *err = tw_json_get(e->j, "error");
    if (tw_wire_event_is(e, "error"))
        return stream_error(w, err ? err : e->j, e);
    if (e->parsed != TW_OK || !cJSON_IsObject(e->j))
        return tw_wire_stream_not_object(w, e);
    if (err && !cJSON_IsNull(err))
        return stream_error(w, err, e);
    return on_chunk((tw_openai_stream *)w, e->j, e->off);
}

static void stream_init(tw_wire_stream *w)
{
    ((tw_openai_stream *)w)->refusal_off = -1;
}

static tw_status stream_close(tw_wire_stream *w)
{
    return close_calls((tw_openai_stream *)w);
}

static bool stream_ended(const tw_wire_stream *w)
{
    return w->done; /* nothing after [DONE] is part of the completion */
}

static tw_status stream_end(tw_wire_stream *w)
{
    tw_openai_stream *d = (tw_openai_stream *)w;
    tw_wire_sink k = sink_of(d);
    return close_message(&k, &d->refusal, d->refusal_off, d->finish_reason);
}

static void stream_release(tw_wire_stream *w)
{
    tw_openai_stream *d = (tw_openai_stream *)w;
    for (size_t i = 0; i < d->nslots; i++)
        slot_free(&d->slots[i]);
    tw_free(d->slots);
    d->slots = NULL;
    d->nslots = d->cap_slots = 0;
    tw_free(d->by_index);
    tw_free(d->by_id);
    d->by_index = d->by_id = NULL;
    d->ntab = 0;
    tw_buf_free(&d->refusal);
    tw_free(d->finish_reason);
    d->finish_reason = NULL;
}

static const tw_wire_stream_kind OAI_STREAM = {
    .size = sizeof(tw_openai_stream),
    .depth = TW_WIRE_ENVELOPE_DEPTH,
    .what = "chunk data",
    .unended = "stream ended without data: [DONE]",
    .done_marker = true,
    .nkeep = 1,
    .keep = {offsetof(tw_openai_stream, refusal)},
    .init = stream_init,
    .event = on_event,
    .close = stream_close,
    .ended = stream_ended,
    .end = stream_end,
    .release = stream_release,
};

TW_WIRE_STREAM_API(tw_openai_stream, tw_openai_stream, OAI_STREAM)
TW_WIRE_STREAM_FORMAT(tw_openai_stream, OAI_STREAM)

/* ===================== registry glue ===================== */

const tw_format_ops tw_format_openai_response = {"openai-response",
                                                 "OpenAI chat.completion body (or error envelope)",
                                                 tw_openai_response_decode,
                                                 tw_body_new,
                                                 tw_body_feed,
                                                 resp_finish,
                                                 tw_body_reset,
                                                 tw_body_free,
                                                 tw_format_recycle_free};
const tw_format_ops tw_format_openai_stream = {
    "openai-stream",         "OpenAI chat.completion.chunk SSE stream",
    tw_openai_stream_decode, tw_openai_stream_open,
    tw_wire_stream_feed,     tw_wire_stream_finish,
    tw_wire_stream_reset,    tw_wire_stream_free,
    tw_format_recycle_free};
