/*
 * OpenAI Responses API: the `response` object ("openai-responses") and its
 * typed event stream ("openai-responses-stream"). Both gather one message
 * through the same pieces (struct rs_msg): output_text to content, refusal
 * text held until the end, reasoning summaries to thinking, the first
 * encrypted_content to thinking_signature, function_call items through the
 * shared call rules (calls.h), the items of built-in tools reported; the
 * status sets the finish reason. The stream assembles the same items from
 * their events, so its result equals the decode of its final response
 * object. The rules are in docs/formats/openai-responses.md.
 */
#include "alloc.h"
#include "toolwire/responses.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "json_marks.h"
#include "wire_common.h"
#include "wire_stream.h"
#include "work.h"
#include "toolwire/decode.h"

#define SLEN(s) (sizeof(s) - 1)

const char *tw_responses_finish_reason(const char *status, const char *incomplete_reason,
                                       bool has_calls)
{
    if (!status)
        return NULL;
    if (strcmp(status, "completed") == 0)
        return has_calls ? "tool_calls" : "stop";
    if (strcmp(status, "incomplete") == 0) {
        if (!incomplete_reason)
            return NULL;
        if (strcmp(incomplete_reason, "max_output_tokens") == 0)
            return "length";
        return incomplete_reason; /* content_filter is the neutral name already */
    }
    if (strcmp(status, "failed") == 0)
        return NULL;
    return status;
}

/* ===================== one message, shared by body and stream ===================== */

static bool is_type(const char *type, const char *want)
{
    return type && strcmp(type, want) == 0;
}

typedef struct rs_msg {
    tw_wire_sink k;
    tw_buf refusal; /* refusal text, added to content at the end */
    int64_t refusal_off;
    char *status; /* the response's status, NULL when none was seen */
    char *reason; /* incomplete_details.reason */
    bool warned_signature;
    bool warned_part;
} rs_msg;

static void msg_init(rs_msg *m, tw_wire_sink k)
{
    memset(m, 0, sizeof *m);
    m->k = k;
    m->refusal_off = -1;
}

static void msg_release(rs_msg *m)
{
    tw_buf_free(&m->refusal);
    tw_free(m->status);
    tw_free(m->reason);
    m->status = m->reason = NULL;
}

static tw_status append_fire(rs_msg *m, tw_event_kind kind, const char *s, size_t n)
{
    return tw_wire_text(&m->k, kind, s, n);
}

/*
 * Reasoning text: pieces (summary parts) are joined with "\n". *started
 * says whether the current piece has given text yet: the separator goes
 * before a piece's first byte, so empty pieces add nothing, in a body as in
 * a stream.
 */
static tw_status thinking_text(rs_msg *m, bool *started, const char *s, size_t n)
{
    if (n == 0)
        return TW_OK;
    tw_status st = TW_OK;
    if (!*started && m->k.res->msg.thinking.len > 0)
        st = append_fire(m, TW_EV_THINKING, "\n", 1);
    *started = true;
    return st == TW_OK ? append_fire(m, TW_EV_THINKING, s, n) : st;
}

static tw_status refusal_text(rs_msg *m, const char *s, size_t n, int64_t off)
{
    if (m->refusal_off < 0)
        m->refusal_off = off;
    return tw_buf_append(&m->refusal, s, n);
}

static tw_status keep_signature(rs_msg *m, const char *sig, int64_t off)
{
    return tw_wire_keep_signature(&m->k, sig, sig ? strlen(sig) : 0, &m->warned_signature, off,
                                  "reasoning encrypted_content");
}

/* An item the result has no place for: one warning naming its type and id. */
static tw_status item_not_carried(rs_msg *m, const char *type, const char *id, int64_t off)
{
    char msg[200];
    snprintf(msg, sizeof msg, "output item %.60s (%.80s) has no place in the result",
             type ? type : "(no type)", id ? id : "no id");
    return tw_wire_diag(&m->k, false, TW_D_ITEM_NOT_CARRIED, off, msg);
}

/* A call the model wrapped in the pseudo-tool `parallel`: said, not rewritten. */
static tw_status check_wrapper(rs_msg *m, size_t before, int64_t off)
{
    tw_message *msg = &m->k.res->msg;
    if (msg->ncalls == before)
        return TW_OK;
    const tw_call *c = &msg->calls[msg->ncalls - 1];
    const cJSON *uses = tw_json_get(c->arguments, "tool_uses");
    if (strcmp(c->name, "parallel") != 0 || !cJSON_IsArray(uses))
        return TW_OK;
    char msg_text[220];
    snprintf(msg_text, sizeof msg_text,
             "call %.60s to 'parallel' wraps %d calls in tool_uses[]; kept as one call "
             "(tw_shim_unwrap_parallel unwraps it)",
             c->id, cJSON_GetArraySize(uses));
    return tw_wire_diag(&m->k, false, TW_D_PARALLEL_WRAPPER, off, msg_text);
}

/* One function_call: arguments as text (args_len bytes) or as a JSON value.
 * args_buf, when not NULL, is the buffer args lies in: an accepted call takes
 * its allocation as raw_args. */
static tw_status take_call(rs_msg *m, const cJSON *item, const char *call_id, const char *name,
                           const char *args, size_t args_len, tw_buf *args_buf, bool oversize,
                           int64_t off)
{
    tw_wire_call c;
    memset(&c, 0, sizeof c);
    c.offset = off;
    c.id = call_id;
    c.name = name;
    tw_error why;
    if (item && tw_call_object_check(item, &why)) {
        c.refuse = why.code;
        c.refuse_why = why.message;
    }
    const cJSON *a = item ? tw_json_get(item, "arguments") : NULL;
    if (args) {
        c.has_args_str = true;
        c.args_str = args;
        c.args_len = args_len;
        c.args_buf = args_buf && args == args_buf->data ? args_buf : NULL;
        c.args_oversize = oversize || args_len > tw_args_text_cap(m->k.L);
        if (c.args_oversize && c.args_len > tw_args_text_cap(m->k.L))
            c.args_len = tw_args_text_cap(m->k.L);
    } else {
        c.args_value = a;
    }
    size_t before = m->k.res->msg.ncalls;
    tw_status st = tw_wire_take_call(&m->k, &c);
    return st == TW_OK ? check_wrapper(m, before, off) : st;
}

/* The content parts of a message item: output_text to content, refusal held. */
static tw_status message_parts(rs_msg *m, const cJSON *item, int64_t off)
{
    tw_status st = TW_OK;
    const cJSON *content = tw_json_get(item, "content");
    for (const cJSON *p = cJSON_IsArray(content) ? content->child : NULL; st == TW_OK && p;
         p = p->next) {
        const char *type = tw_json_get_str(p, "type");
        const char *text = tw_json_get_str(p, "text");
        const char *ref = tw_json_get_str(p, "refusal");
        if (type && strcmp(type, "output_text") == 0 && text) {
            st = append_fire(m, TW_EV_CONTENT, text, strlen(text));
        } else if (type && strcmp(type, "refusal") == 0 && ref) {
            st = refusal_text(m, ref, strlen(ref), off);
        } else if (!m->warned_part) {
            m->warned_part = true;
            char msg[160];
            snprintf(msg, sizeof msg,
                     "a message content part of type %.60s has no place in the "
                     "result",
                     type ? type : "(none)");
            st = tw_wire_diag(&m->k, false, TW_D_NOT_CARRIED, off, msg);
        }
    }
    return st;
}

/* The summary parts of a reasoning item, then its reasoning_text content
 * parts (the full reasoning some servers give), each one piece of thinking. */
static tw_status reasoning_summary(rs_msg *m, const cJSON *item)
{
    tw_status st = TW_OK;
    static const char *const lists[] = {"summary", "content"};
    for (size_t l = 0; l < 2; l++) {
        const cJSON *arr = tw_json_get(item, lists[l]);
        for (const cJSON *p = cJSON_IsArray(arr) ? arr->child : NULL; st == TW_OK && p;
             p = p->next) {
            const char *text = tw_json_get_str(p, "text");
            bool started = false;
            if (text && (l == 0 || is_type(tw_json_get_str(p, "type"), "reasoning_text")))
                st = thinking_text(m, &started, text, strlen(text));
        }
    }
    return st;
}

/* One whole output item (a body's, or a stream's final response). */
static tw_status take_item(rs_msg *m, const cJSON *item, int64_t off)
{
    if (!cJSON_IsObject(item))
        return tw_wire_diag(&m->k, true, TW_D_RESPONSE_SHAPE, off,
                            "an output item is not a JSON object");
    const char *type = tw_json_get_str(item, "type");
    if (is_type(type, "message"))
        return message_parts(m, item, off);
    if (is_type(type, "reasoning")) {
        tw_status st = reasoning_summary(m, item);
        return st == TW_OK ? keep_signature(m, tw_json_get_str(item, "encrypted_content"), off)
                           : st;
    }
    if (is_type(type, "function_call")) {
        const cJSON *a = tw_json_get(item, "arguments");
        const char *s = cJSON_IsString(a) ? a->valuestring : NULL;
        return take_call(m, item, tw_json_get_str(item, "call_id"), tw_json_get_str(item, "name"),
                         s, s ? strlen(s) : 0, NULL, false, off);
    }
    return item_not_carried(m, type, tw_json_get_str(item, "id"), off);
}

static void error_message(const cJSON *err, char *msg, size_t n)
{
    static const tw_wire_error_shape shape = {{"code", "type"}, true, false};
    tw_wire_error_text(err, &shape, msg, n);
}

/* The status, incomplete_details and error of a response object. */
static tw_status take_status(rs_msg *m, const cJSON *resp, int64_t err_off)
{
    const char *status = tw_json_get_str(resp, "status");
    const char *reason = tw_json_get_str(tw_json_get(resp, "incomplete_details"), "reason");
    tw_free(m->status);
    tw_free(m->reason);
    m->status = m->reason = NULL;
    if ((status && !(m->status = tw_strdup(status))) ||
        (reason && !(m->reason = tw_strdup(reason))))
        return TW_ERR_NOMEM;
    const cJSON *err = tw_json_get(resp, "error");
    if (is_type(status, "failed") || (err && !cJSON_IsNull(err))) {
        char msg[300];
        error_message(err, msg, sizeof msg);
        return tw_wire_diag(&m->k, true, TW_D_RESPONSE_FAILED, err_off, msg);
    }
    return TW_OK;
}

/* The end of the message: the refusal into content, the finish reason. */
static tw_status msg_end(rs_msg *m)
{
    tw_result *r = m->k.res;
    tw_status st = TW_OK;
    const char *fr = tw_responses_finish_reason(m->status, m->reason, r->msg.ncalls > 0);
    if (m->refusal.len) {
        st = append_fire(m, TW_EV_CONTENT, m->refusal.data, m->refusal.len);
        if (st == TW_OK)
            st = tw_wire_diag(&m->k, false, TW_D_REFUSAL, m->refusal_off,
                              "the model refused; the refusal text is the content");
        fr = "content_filter";
    }
    return tw_wire_set_finish(r, st, fr);
}

/* ===================== the response object ===================== */

static tw_status rs_body_read(tw_wire_sink *k, const char *buf, size_t len, tw_json_arena *arena,
                              tw_buf *marks);

static tw_status rs_body(tw_wire_sink *k, const char *buf, size_t len)
{
    /* the body's tree is read and dropped whole (every value kept is copied);
     * the items' offsets come from where the parse saw them begin */
    tw_json_arena arena = {0};
    tw_buf marks = {0};
    tw_status st = rs_body_read(k, buf, len, &arena, &marks);
    tw_json_arena_free(&arena);
    tw_buf_free(&marks);
    return st;
}

static tw_status rs_body_read(tw_wire_sink *k, const char *buf, size_t len, tw_json_arena *arena,
                              tw_buf *marks)
{
    cJSON *root = NULL;
    tw_error e;
    tw_json_lint lint;
    tw_status st = tw_json_parse_lint_marked(buf, len, k->L->max_depth + TW_WIRE_ENVELOPE_DEPTH,
                                             &root, &e, &lint, marks, arena);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK)
        return tw_wire_diag(k, true, TW_D_RESPONSE_JSON, e.offset >= 0 ? e.offset : 0, e.message);
    if ((st = tw_wire_lint_diags(k, &lint, 0, true, NULL)) != TW_OK) {
        tw_json_arena_drop(arena, root);
        return st;
    }
    const cJSON *err = tw_json_get(root, "error");
    const cJSON *output = tw_json_get(root, "output");
    tw_wire_step p[] = {{"error", 0}};
    if (err && !cJSON_IsNull(err) && !output && !tw_json_get(root, "status")) {
        char msg[300];
        error_message(err, msg, sizeof msg);
        st = tw_wire_diag(k, true, TW_D_ERROR_RESPONSE, tw_wire_locate(buf, len, p, 1), msg);
        tw_json_arena_drop(arena, root);
        return st;
    }
    if (!cJSON_IsObject(root) || !cJSON_IsArray(output)) {
        st = tw_wire_diag(k, true, TW_D_RESPONSE_SHAPE, 0,
                          cJSON_IsObject(root) ? "the response has no output array"
                                               : "the response is not a JSON object");
        tw_json_arena_drop(arena, root);
        return st;
    }
    rs_msg m;
    msg_init(&m, *k);
    tw_wire_step op[] = {{"output", 0}};
    tw_wire_elems el;
    tw_wire_elems_open(&el, marks, output, buf, len, op, 1);
    for (const cJSON *it = output->child; st == TW_OK && it; it = it->next) {
        int64_t off = tw_wire_elems_next(&el, it);
        st = take_item(&m, it, off < 0 ? 0 : off);
    }
    if (st == TW_OK) {
        int64_t eo = tw_wire_locate(buf, len, p, 1);
        st = take_status(&m, root, eo >= 0 ? eo : 0);
    }
    if (st == TW_OK)
        st = msg_end(&m);
    msg_release(&m);
    tw_json_arena_drop(arena, root);
    return st;
}

TW_BODY_FORMAT(body, tw_responses_response_decode, rs_body)

/* ===================== the event stream ===================== */

enum rs_kind { RS_MESSAGE, RS_REASONING, RS_CALL, RS_OTHER };

/*
 * One output item as its events build it. `acc` holds the current piece:
 * a call's argument text (up to tw_args_text_cap), or the text of the
 * current content or summary part (bounded by the input cap), against
 * which a .done value is compared.
 */
typedef struct rs_item {
    int64_t index; /* output_index */
    enum rs_kind kind;
    char *id; /* the item id, NULL when none */
    char *call_id;
    char *name;
    const char *type_name; /* for RS_OTHER: no copy kept, only the kind */
    tw_buf acc;
    bool acc_seen; /* a delta of the current piece came */
    bool acc_done; /* the current piece's .done came */
    bool oversize; /* argument text past its cap */
    bool any_text; /* text of this item reached the result from events */
    bool started;  /* the current thinking piece gave text */
    bool done;     /* output_item.done came */
    int64_t off;
} rs_item;

typedef struct tw_responses_stream {
    tw_wire_stream w; /* first: the state every event stream keeps */
    rs_msg msg;
    rs_item *items;
    size_t nitems;
    size_t cap_items;
    bool terminal; /* response.completed, .incomplete or .failed seen */
    bool sparse;   /* an item's output_index is not its position: lookups scan */
    bool have_seq;
    int64_t last_seq;
} tw_responses_stream;

static void item_free(rs_item *it)
{
    tw_free(it->id);
    tw_free(it->call_id);
    tw_free(it->name);
    tw_buf_free(&it->acc);
    memset(it, 0, sizeof *it);
}

static tw_status diag(tw_responses_stream *d, bool error, tw_status code, int64_t off,
                      const char *msg)
{
    return tw_wire_stream_diag(&d->w, error, code, off, msg);
}

/* The item an event names by output_index (and item_id when given); NULL
 * with stream_item_order when there is none. Items are kept in the order
 * they were added; output_index is their position in a conforming stream,
 * so the lookup is O(1) there and a scan of at most the item cap otherwise. */
static rs_item *find_item(tw_responses_stream *d, const cJSON *j, const char *type, int64_t off,
                          tw_status *st)
{
    const cJSON *ix = tw_json_get(j, "output_index");
    const char *id = tw_json_get_str(j, "item_id");
    rs_item *it = NULL;
    int64_t idx = -1;
    if (cJSON_IsNumber(ix)) { /* 1.5 or -1 names no item: never rounded into a neighbour */
        if (!tw_json_exact_int(ix, 0, INT64_MAX, &idx))
            idx = -1;
        if (idx >= 0 && (uint64_t)idx < d->nitems && d->items[idx].index == idx)
            it = &d->items[idx];
        for (size_t i = 0; !it && idx >= 0 && d->sparse && i < d->nitems; i++) {
            TW_WORK(1);
            if (d->items[i].index == idx)
                it = &d->items[i];
        }
    } else if (id) {
        for (size_t i = 0; !it && i < d->nitems; i++) {
            TW_WORK(1);
            if (d->items[i].id && strcmp(d->items[i].id, id) == 0)
                it = &d->items[i];
        }
    }
    const char *why = NULL;
    if (!it)
        why = "names no output item that was added";
    else if (id && it->id && strcmp(id, it->id) != 0)
        why = "names an item_id other than that of its output_index";
    else if (it->done)
        why = "names an output item that is already done";
    if (!why)
        return it;
    char msg[240];
    snprintf(msg, sizeof msg, "%.60s %s (output_index %.30s, item_id %.60s); the event was dropped",
             type, why, cJSON_IsNumber(ix) ? "given" : "absent", id ? id : "absent");
    *st = diag(d, true, TW_D_STREAM_ITEM_ORDER, off, msg);
    return NULL;
}

static tw_status item_added(tw_responses_stream *d, const cJSON *j, int64_t off)
{
    const cJSON *item = tw_json_get(j, "item");
    const cJSON *ix = tw_json_get(j, "output_index");
    if (!cJSON_IsObject(item))
        return diag(d, true, TW_D_RESPONSE_SHAPE, off,
                    "response.output_item.added has no item object");
    int64_t idx = (int64_t)d->nitems;
    if (cJSON_IsNumber(ix) && !tw_json_exact_int(ix, 0, INT64_MAX, &idx))
        return diag(d, true, TW_D_STREAM_ITEM_ORDER, off,
                    "response.output_item.added: output_index is not a non-negative integer; "
                    "the event was dropped");
    bool dup = idx >= 0 && (uint64_t)idx < d->nitems && d->items[idx].index == idx;
    for (size_t i = 0; !dup && d->sparse && i < d->nitems; i++) {
        TW_WORK(1);
        dup = d->items[i].index == idx;
    }
    if (dup)
        return diag(d, true, TW_D_STREAM_ITEM_ORDER, off,
                    "response.output_item.added adds an output_index twice; the event was "
                    "dropped");
    size_t cap = tw_open_calls_cap(&d->w.L);
    if (d->nitems >= cap)
        return diag(d, true, TW_D_TOO_MANY_CALLS, off,
                    "more output items than 2 * max_calls + 16; the item was dropped");
    rs_item *ni = tw_wire_room(d->items, &d->cap_items, d->nitems, sizeof *ni, 8, cap);
    if (!ni)
        return TW_ERR_NOMEM;
    d->items = ni;
    if (idx != (int64_t)d->nitems)
        d->sparse = true;
    rs_item *it = &d->items[d->nitems++];
    memset(it, 0, sizeof *it);
    it->index = idx;
    it->off = off;
    const char *type = tw_json_get_str(item, "type");
    const char *id = tw_json_get_str(item, "id");
    it->kind = is_type(type, "message")         ? RS_MESSAGE
               : is_type(type, "reasoning")     ? RS_REASONING
               : is_type(type, "function_call") ? RS_CALL
                                                : RS_OTHER;
    it->acc.max = it->kind == RS_CALL ? tw_args_text_cap(&d->w.L) : d->w.L.max_input_bytes;
    if (id && !(it->id = tw_strdup(id)))
        return TW_ERR_NOMEM;
    if (it->kind == RS_CALL) {
        const char *cid = tw_json_get_str(item, "call_id");
        const char *name = tw_json_get_str(item, "name");
        if ((cid && !(it->call_id = tw_strdup(cid))) || (name && !(it->name = tw_strdup(name))))
            return TW_ERR_NOMEM;
        const char *a = tw_json_get_str(item, "arguments");
        if (a && a[0]) { /* arguments given whole at once count as the first delta */
            it->acc_seen = true;
            if (tw_buf_puts(&it->acc, a) == TW_ERR_LIMIT)
                it->oversize = true;
        }
    }
    if (it->kind == RS_OTHER)
        return item_not_carried(&d->msg, type, id, off);
    return TW_OK;
}

/* A new piece (content part, summary part) starts in the item. */
static void piece_start(rs_item *it)
{
    it->acc.len = 0;
    if (it->acc.data)
        it->acc.data[0] = '\0';
    it->acc_seen = it->acc_done = it->started = false;
}

/* A delta of text or arguments. */
static tw_status on_delta(tw_responses_stream *d, rs_item *it, const char *s, size_t n,
                          bool refusal, int64_t off)
{
    it->acc_seen = true;
    if (it->kind == RS_CALL) {
        if (it->oversize)
            return TW_OK;
        tw_status st = tw_buf_append(&it->acc, s, n);
        if (st == TW_ERR_LIMIT) {
            it->oversize = true;
            return TW_OK;
        }
        return st;
    }
    if (!it->oversize) {
        tw_status st = tw_buf_append(&it->acc, s, n);
        if (st == TW_ERR_LIMIT)
            it->oversize = true; /* the input cap bounds the text; only the check is lost */
        else if (st != TW_OK)
            return st;
    }
    it->any_text = true;
    if (refusal)
        return refusal_text(&d->msg, s, n, off);
    if (it->kind == RS_REASONING)
        return thinking_text(&d->msg, &it->started, s, n);
    return append_fire(&d->msg, TW_EV_CONTENT, s, n);
}

/* A .done value (text or arguments): it fills in when no delta came, and
 * is compared with the deltas when they did (the deltas win). */
static tw_status on_done_value(tw_responses_stream *d, rs_item *it, const char *v, bool refusal,
                               const char *type, int64_t off)
{
    if (!v)
        return TW_OK;
    size_t n = strlen(v);
    tw_status st = TW_OK;
    if (!it->acc_seen && !it->acc_done) {
        st = n ? on_delta(d, it, v, n, refusal, off) : TW_OK;
        it->acc_seen = n > 0;
    } else if (!it->oversize &&
               (it->acc.len != n || memcmp(it->acc.data ? it->acc.data : "", v, n) != 0)) {
        char msg[220];
        snprintf(msg, sizeof msg,
                 "%.60s: the value (%zu bytes) differs from the concatenated deltas (%zu bytes); "
                 "the deltas were kept",
                 type, n, it->acc.len);
        st = diag(d, false, TW_D_DONE_MISMATCH, off, msg);
    }
    it->acc_done = true;
    return st;
}

/* The call of a function_call item goes through the shared rules; done_item
 * is its output_item.done item (in that event's tree, read only: what the call
 * keeps is copied), NULL when none came. */
static tw_status close_call(tw_responses_stream *d, rs_item *it, const cJSON *done_item)
{
    /* no text came at all: the done item's arguments as they are (an object is
     * arguments_as_object, as in a body) */
    bool whole = !it->acc_seen && !it->acc_done && done_item;
    const char *args = whole ? NULL : it->acc.data ? it->acc.data : "";
    tw_status st = take_call(&d->msg, done_item, it->call_id, it->name, args, it->acc.len, &it->acc,
                             it->oversize, it->off);
    it->kind = RS_OTHER; /* taken: never again */
    it->done = true;
    return st;
}

static tw_status item_done(tw_responses_stream *d, const cJSON *j, int64_t off)
{
    tw_status st = TW_OK;
    rs_item *it = find_item(d, j, "response.output_item.done", off, &st);
    if (!it)
        return st;
    const cJSON *item = tw_json_get(j, "item");
    if (it->kind == RS_MESSAGE && !it->any_text) {
        st = message_parts(&d->msg, item, off);
    } else if (it->kind == RS_REASONING) {
        if (!it->any_text)
            st = reasoning_summary(&d->msg, item);
        if (st == TW_OK)
            st = keep_signature(&d->msg, tw_json_get_str(item, "encrypted_content"), off);
    } else if (it->kind == RS_CALL) {
        const char *cid = tw_json_get_str(item, "call_id");
        const char *name = tw_json_get_str(item, "name");
        if ((cid && !it->call_id && !(it->call_id = tw_strdup(cid))) ||
            (name && !it->name && !(it->name = tw_strdup(name))))
            return TW_ERR_NOMEM;
        const cJSON *a = tw_json_get(item, "arguments");
        if (cJSON_IsString(a))
            st = on_done_value(d, it, a->valuestring, false, "response.output_item.done", off);
        if (st == TW_OK)
            st = close_call(d, it, cJSON_IsObject(item) ? item : NULL);
    }
    it->done = true;
    return st;
}

/* Every call not closed by its output_item.done is taken at the end. */
static tw_status close_open_calls(tw_responses_stream *d)
{
    tw_status st = TW_OK;
    for (size_t i = 0; st == TW_OK && i < d->nitems; i++)
        if (d->items[i].kind == RS_CALL)
            st = close_call(d, &d->items[i], NULL);
    return st;
}

/* response.completed / .incomplete / .failed: the status, and the output of
 * the final response when no item was streamed. */
static tw_status terminal(tw_responses_stream *d, const cJSON *j, int64_t off)
{
    d->terminal = true;
    const cJSON *resp = tw_json_get(j, "response");
    if (!cJSON_IsObject(resp))
        return diag(d, true, TW_D_RESPONSE_SHAPE, off, "a terminal event has no response object");
    tw_status st = close_open_calls(d);
    const cJSON *output = tw_json_get(resp, "output");
    if (st == TW_OK && d->nitems == 0 && cJSON_IsArray(output))
        for (const cJSON *it = output->child; st == TW_OK && it; it = it->next)
            st = take_item(&d->msg, it, off);
    return st == TW_OK ? take_status(&d->msg, resp, off) : st;
}

/* An error event: the error object (the event itself, or its "error"),
 * else the event's data. */
static tw_status stream_error(tw_wire_stream *w, const tw_wire_event *e)
{
    char msg[300];
    const cJSON *j = e->parsed == TW_OK ? e->j : NULL;
    const cJSON *err = tw_json_get(j, "error");
    if (cJSON_IsObject(j) && (tw_json_get_str(j, "message") || !err))
        error_message(j, msg, sizeof msg);
    else if (err)
        error_message(err, msg, sizeof msg);
    else
        return tw_wire_stream_raw_error(w, e);
    return tw_wire_stream_diag(w, true, TW_D_STREAM_ERROR, e->off, msg);
}

/* The event types that carry text or arguments, and what they feed. */
typedef struct rs_evtype {
    const char *name;
    enum { EV_DELTA, EV_DONE, EV_PART } what;
    const char *field; /* of the value */
    bool refusal;
} rs_evtype;

static const rs_evtype EVTYPES[] = {
    {"response.output_text.delta", EV_DELTA, "delta", false},
    {"response.output_text.done", EV_DONE, "text", false},
    {"response.refusal.delta", EV_DELTA, "delta", true},
    {"response.refusal.done", EV_DONE, "refusal", true},
    {"response.reasoning_summary_text.delta", EV_DELTA, "delta", false},
    {"response.reasoning_summary_text.done", EV_DONE, "text", false},
    {"response.reasoning_text.delta", EV_DELTA, "delta", false},
    {"response.reasoning_text.done", EV_DONE, "text", false},
    {"response.function_call_arguments.delta", EV_DELTA, "delta", false},
    {"response.function_call_arguments.done", EV_DONE, "arguments", false},
    {"response.content_part.added", EV_PART, NULL, false},
    {"response.reasoning_summary_part.added", EV_PART, NULL, false},
};

static tw_status on_event(tw_responses_stream *d, const cJSON *j, const char *type, int64_t off)
{
    const cJSON *seq = tw_json_get(j, "sequence_number");
    tw_status st = TW_OK;
    int64_t s = 0;
    if (cJSON_IsNumber(seq) && !tw_json_exact_int(seq, INT64_MIN, INT64_MAX, &s)) {
        if ((st = diag(d, false, TW_D_SEQUENCE_NUMBER, off,
                       "sequence_number is not an integer; not compared")) != TW_OK)
            return st;
    } else if (cJSON_IsNumber(seq)) {
        if (d->have_seq && s <= d->last_seq) {
            char msg[160];
            snprintf(msg, sizeof msg, "sequence_number %lld after %lld", (long long)s,
                     (long long)d->last_seq);
            if ((st = diag(d, false, TW_D_SEQUENCE_NUMBER, off, msg)) != TW_OK)
                return st;
        }
        d->have_seq = true;
        d->last_seq = s;
    }
    if (strcmp(type, "response.output_item.added") == 0)
        return item_added(d, j, off);
    if (strcmp(type, "response.output_item.done") == 0)
        return item_done(d, j, off);
    if (strcmp(type, "response.completed") == 0 || strcmp(type, "response.incomplete") == 0 ||
        strcmp(type, "response.failed") == 0)
        return terminal(d, j, off);
    for (size_t i = 0; i < sizeof EVTYPES / sizeof *EVTYPES; i++) {
        const rs_evtype *t = &EVTYPES[i];
        if (strcmp(type, t->name) != 0)
            continue;
        rs_item *it = find_item(d, j, type, off, &st);
        if (!it)
            return st;
        if (t->what == EV_PART) {
            piece_start(it);
            return TW_OK;
        }
        const char *v = tw_json_get_str(j, t->field);
        if (t->what == EV_DONE)
            return on_done_value(d, it, v, t->refusal, type, off);
        return v ? on_delta(d, it, v, strlen(v), t->refusal, off) : TW_OK;
    }
    return TW_OK; /* response.created, .in_progress, built-in tools' progress, … */
}

/* An event whose data: type differs from its event: type is followed, and said to be. */
static tw_status type_mismatch(tw_wire_stream *w, const tw_wire_event *e, const char *type)
{
    const tw_sse_event *ev = e->sse;
    if (e->parsed != TW_OK || !type || tw_wire_event_is(e, "message") ||
        (strlen(type) == ev->type_len && memcmp(type, ev->type, ev->type_len) == 0))
        return TW_OK;
    char msg[240];
    snprintf(msg, sizeof msg, "event: %.*s carries data of type %.100s; the type was followed",
             (int)(ev->type_len > 100 ? 100 : ev->type_len), ev->type, type);
    return tw_wire_stream_diag(w, false, TW_D_EVENT_TYPE_MISMATCH, e->off, msg);
}

static tw_status on_sse_event(tw_wire_stream *w, const tw_wire_event *e)
{
    const char *type = tw_json_get_str(e->j, "type");
    tw_status st = type_mismatch(w, e, type);
    if (st != TW_OK)
        return st;
    if (tw_wire_event_is(e, "error") || is_type(type, "error"))
        return stream_error(w, e);
    if (e->parsed != TW_OK || !cJSON_IsObject(e->j))
        return tw_wire_stream_not_object(w, e);
    if (!type)
        return tw_wire_stream_diag(w, true, TW_D_RESPONSE_SHAPE, e->off,
                                   "an event has no type; it was dropped");
    return on_event((tw_responses_stream *)w, e->j, type, e->off);
}

static void rs_init(tw_wire_stream *w)
{
    msg_init(&((tw_responses_stream *)w)->msg, tw_wire_stream_sink(w));
}

static tw_status rs_close(tw_wire_stream *w)
{
    return close_open_calls((tw_responses_stream *)w);
}

static bool rs_ended(const tw_wire_stream *w)
{
    /* nothing after the terminal event is part of the response */
    return ((const tw_responses_stream *)w)->terminal;
}

static tw_status rs_end(tw_wire_stream *w)
{
    return msg_end(&((tw_responses_stream *)w)->msg);
}

static void rs_release(tw_wire_stream *w)
{
    tw_responses_stream *d = (tw_responses_stream *)w;
    for (size_t i = 0; i < d->nitems; i++)
        item_free(&d->items[i]);
    tw_free(d->items);
    d->items = NULL;
    d->nitems = d->cap_items = 0;
    msg_release(&d->msg);
}

static const tw_wire_stream_kind RS_STREAM = {
    .size = sizeof(tw_responses_stream),
    .depth = TW_WIRE_ENVELOPE_DEPTH,
    .what = "event data",
    .unended = "stream ended without response.completed, response.incomplete or response.failed",
    .done_marker = true, /* and dropped: the terminal event ends the stream */
    .nkeep = 1,
    .keep = {offsetof(tw_responses_stream, msg.refusal)},
    .init = rs_init,
    .event = on_sse_event,
    .close = rs_close,
    .ended = rs_ended,
    .end = rs_end,
    .release = rs_release,
};

TW_WIRE_STREAM_FORMAT(tw_responses_stream, RS_STREAM)

/* ===================== registry glue ===================== */

const tw_format_ops tw_format_openai_responses = {"openai-responses",
                                                  "OpenAI Responses API response object (or error "
                                                  "envelope)",
                                                  tw_responses_response_decode,
                                                  tw_body_new,
                                                  tw_body_feed,
                                                  body_finish,
                                                  tw_body_reset,
                                                  tw_body_free,
                                                  tw_format_recycle_free};
const tw_format_ops tw_format_openai_responses_stream = {"openai-responses-stream",
                                                         "OpenAI Responses API typed SSE event "
                                                         "stream",
                                                         tw_responses_stream_decode,
                                                         tw_responses_stream_open,
                                                         tw_wire_stream_feed,
                                                         tw_wire_stream_finish,
                                                         tw_wire_stream_reset,
                                                         tw_wire_stream_free,
                                                         tw_format_recycle_free};
