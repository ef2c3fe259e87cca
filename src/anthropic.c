/*
 * Anthropic messages: the response body and the event stream. Both read
 * content blocks in order (text joined as is, thinking blocks joined with
 * "\n", tool_use through the shared call rules of openai.c), so the stream's
 * result equals the response's. The rules are in docs/formats/anthropic.md.
 */
#include "alloc.h"
#include "toolwire/anthropic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "json_marks.h"
#include "wire_common.h"
#include "work.h"
#include "toolwire/decode.h"
#include "toolwire/openai.h"

typedef struct tw_ant_block tw_ant_block;

/*
 * The state of a messages event stream decoder (opaque in
 * toolwire/anthropic.h). Memory is bounded like the OpenAI stream: one
 * SSE line and event, each open tool_use block's partial_json (2 *
 * max_args_bytes + 4096), at most 2 * max_calls + 16 open blocks, and the
 * decoded text, bounded by max_input_bytes.
 */
struct tw_anthropic_stream {
    tw_decode_opts o;
    tw_limits L;
    tw_event_fn fn;
    void *user;
    tw_result res;
    tw_sse sse;
    uint64_t fed;
    bool too_large;
    bool finished;
    bool stopped; /* message_stop seen */
    bool any_event;
    bool thinking_block;  /* inside a thinking block that has not emitted yet */
    tw_ant_block *blocks; /* open tool_use and thinking blocks */
    size_t nblocks;
    size_t cap_blocks;
    char *stop_reason;
    tw_buf head; /* the input while no event came yet (<= max_event_bytes) */
    bool head_off;
    bool nonstd_warned; /* json_not_rfc8259 given once per stream */
    tw_json_arena arena; /* each event's tree: read, then dropped whole */
    tw_status stop;       /* a callback's status that stopped the decode; TW_OK while none */
};

const char *tw_anthropic_finish_reason(const char *stop_reason)
{
    if (!stop_reason)
        return NULL;
    if (strcmp(stop_reason, "tool_use") == 0)
        return "tool_calls";
    if (strcmp(stop_reason, "end_turn") == 0 || strcmp(stop_reason, "stop_sequence") == 0)
        return "stop";
    if (strcmp(stop_reason, "max_tokens") == 0)
        return "length";
    if (strcmp(stop_reason, "refusal") == 0)
        return "content_filter";
    return stop_reason;
}

/* ===================== shared pieces ===================== */

static tw_status append_fire(tw_wire_sink *k, tw_event_kind kind, const char *s, size_t n)
{
    if (n == 0)
        return TW_OK;
    tw_buf *b = kind == TW_EV_CONTENT ? &k->res->msg.content : &k->res->msg.thinking;
    tw_status st = tw_buf_append(b, s, n);
    if (st == TW_OK && k->fn) {
        tw_event ev = {kind, b->data + b->len - n, n, NULL, NULL};
        tw_event_deliver(k->fn, k->user, k->stop, &ev);
    }
    return st;
}

/* Thinking text of a block; *new_block says a separator is owed before the
 * block's first non-empty text. */
static tw_status think_text(tw_wire_sink *k, bool *new_block, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0)
        return TW_OK;
    tw_status st = TW_OK;
    if (*new_block && k->res->msg.thinking.len)
        st = append_fire(k, TW_EV_THINKING, "\n", 1);
    *new_block = false;
    return st == TW_OK ? append_fire(k, TW_EV_THINKING, s, n) : st;
}

static tw_status keep_signature(tw_wire_sink *k, const char *sig, size_t n)
{
    if (n == 0 || k->res->msg.thinking_signature)
        return TW_OK;
    k->res->msg.thinking_signature = tw_strndup(sig, n);
    return k->res->msg.thinking_signature ? TW_OK : TW_ERR_NOMEM;
}

static tw_status keep_redacted(tw_wire_sink *k, const cJSON *block)
{
    tw_message *m = &k->res->msg;
    if (!m->redacted_thinking && !(m->redacted_thinking = cJSON_CreateArray()))
        return TW_ERR_NOMEM;
    cJSON *dup = cJSON_Duplicate(block, 1);
    if (!dup || !cJSON_AddItemToArray(m->redacted_thinking, dup)) {
        cJSON_Delete(dup);
        return TW_ERR_NOMEM;
    }
    m->has_redacted_thinking = true;
    return TW_OK;
}

static tw_status set_finish(tw_result *r, const char *stop_reason)
{
    const char *fr = tw_anthropic_finish_reason(stop_reason);
    tw_free(r->finish_reason);
    r->finish_reason = NULL;
    if (fr && !(r->finish_reason = tw_strdup(fr)))
        return TW_ERR_NOMEM;
    return TW_OK;
}

static void error_message(const cJSON *err, char *msg, size_t n)
{
    const char *t = tw_json_get_str(err, "type");
    const char *m = tw_json_get_str(err, "message");
    snprintf(msg, n, "%.60s: %.200s", t ? t : "error", m ? m : "(no message)");
}

/* ===================== response ===================== */

static tw_status ant_response(tw_wire_sink *k, const char *buf, size_t len)
{
    cJSON *root = NULL;
    tw_error e;
    tw_json_lint lint;
    tw_buf marks = {0}; /* where the blocks begin, when the one-pass parse read the body */
    tw_status st = tw_json_parse_lint_marked(buf, len, k->L->max_depth + TW_WIRE_ENVELOPE_DEPTH,
                                             &root, &e, &lint, &marks, NULL);
    if (st != TW_OK)
        tw_buf_free(&marks);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st != TW_OK)
        return tw_wire_diag(k, true, TW_D_RESPONSE_JSON, e.offset >= 0 ? e.offset : 0, e.message);
    if ((st = tw_wire_lint_diags(k, &lint, 0, true, NULL)) != TW_OK) {
        cJSON_Delete(root);
        tw_buf_free(&marks);
        return st;
    }
    const char *type = tw_json_get_str(root, "type");
    const cJSON *err = tw_json_get(root, "error");
    const cJSON *content = tw_json_get(root, "content");
    if ((type && strcmp(type, "error") == 0) || (cJSON_IsObject(err) && !content)) {
        tw_wire_step p[] = {{"error", 0}};
        int64_t off = tw_wire_locate(buf, len, p, 1);
        char msg[300];
        error_message(err, msg, sizeof msg);
        st = tw_wire_diag(k, true, TW_D_ERROR_RESPONSE, off < 0 ? 0 : off, msg);
        cJSON_Delete(root);
        tw_buf_free(&marks);
        return st;
    }
    if (!cJSON_IsArray(content)) {
        st = tw_wire_diag(k, true, TW_D_RESPONSE_SHAPE, 0, "'content' is not an array");
        cJSON_Delete(root);
        tw_buf_free(&marks);
        return st;
    }
    tw_wire_step path[1] = {{"content", 0}};
    tw_wire_elems el; /* the blocks' offsets, in document order */
    tw_wire_elems_open(&el, &marks, content, buf, len, path, 1);
    /* an input lies three levels down (body, content, block): when the body
     * nests at most max_depth + 3 deep, every input is within max_depth, and
     * its written size is bounded by the body's bytes */
    size_t in_src = lint.depth <= k->L->max_depth + 3 ? len : 0;
    for (cJSON *b = content->child; st == TW_OK && b; b = b->next) {
        int64_t at = tw_wire_elems_next(&el, b);
        const char *bt = tw_json_get_str(b, "type");
        if (!bt)
            continue;
        if (strcmp(bt, "text") == 0) {
            const char *t = tw_json_get_str(b, "text");
            st = append_fire(k, TW_EV_CONTENT, t ? t : "", t ? strlen(t) : 0);
        } else if (strcmp(bt, "thinking") == 0) {
            bool nb = true;
            st = think_text(k, &nb, tw_json_get_str(b, "thinking"));
            const char *sig = tw_json_get_str(b, "signature");
            if (st == TW_OK && sig)
                st = keep_signature(k, sig, strlen(sig));
        } else if (strcmp(bt, "redacted_thinking") == 0) {
            st = keep_redacted(k, b);
        } else if (strcmp(bt, "tool_use") == 0) {
            tw_wire_call c;
            memset(&c, 0, sizeof c);
            c.offset = at;
            tw_error why;
            if (tw_call_object_check(b, &why)) {
                c.refuse = why.code;
                c.refuse_why = why.message;
            }
            c.id = tw_json_get_str(b, "id");
            c.name = tw_json_get_str(b, "name");
            c.args_value = tw_json_get(b, "input");
            c.args_native = true;
            c.args_owner = b; /* the body's tree is dropped after: move, not copy */
            c.args_src_len = in_src;
            st = tw_wire_take_call(k, &c);
        }
    }
    if (st == TW_OK)
        st = set_finish(k->res, tw_json_get_str(root, "stop_reason"));
    cJSON_Delete(root);
    tw_buf_free(&marks);
    return st;
}

/* The response format streams through the shared body-buffering decoder. */
static tw_status resp_finish(void *s, tw_result *out)
{
    return tw_body_finish(s, out, ant_response);
}

tw_status tw_anthropic_response_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_result *out)
{
    return tw_body_decode(buf, len, o, out, ant_response);
}

/* ===================== stream ===================== */

enum { BLK_TOOL = 1, BLK_THINK = 2 };

struct tw_ant_block {
    int64_t index;
    int kind;
    char *id;
    char *name;
    cJSON *input; /* content_block.input of the start event */
    tw_buf json;  /* partial_json fragments */
    bool oversize;
    tw_buf sig;
    int64_t offset;
    tw_status refuse; /* json_nul or call_duplicate_key seen in one of its events */
    tw_error why;     /* its text */
};

static void block_free(tw_ant_block *b)
{
    tw_free(b->id);
    tw_free(b->name);
    cJSON_Delete(b->input);
    tw_buf_free(&b->json);
    tw_buf_free(&b->sig);
    memset(b, 0, sizeof *b);
}

static tw_wire_sink sink_of(tw_anthropic_stream *d)
{
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    return k;
}

static tw_ant_block *find_block(tw_anthropic_stream *d, int64_t index)
{
    TW_WORK(d->nblocks); /* at most 2 * max_calls + 16 open blocks */
    for (size_t i = d->nblocks; i-- > 0;)
        if (d->blocks[i].index == index)
            return &d->blocks[i];
    return NULL;
}

/* A block is complete: its call goes through the rules, its signature is
 * kept; the block is freed but stays in the list. */
static tw_status take_block(tw_anthropic_stream *d, tw_ant_block *b)
{
    tw_wire_sink k = sink_of(d);
    tw_status st = TW_OK;
    if (b->kind == BLK_THINK) {
        st = keep_signature(&k, b->sig.data, b->sig.len);
    } else {
        tw_wire_call c;
        memset(&c, 0, sizeof c);
        c.offset = b->offset;
        c.refuse = b->refuse;
        c.refuse_why = b->why.message;
        c.id = b->id;
        c.name = b->name;
        if (b->json.len || b->oversize) {
            c.has_args_str = true;
            c.args_str = b->json.data ? b->json.data : "";
            c.args_len = b->json.len;
            c.args_buf = &b->json;
            c.args_oversize = b->oversize;
        } else {
            c.args_value = b->input;
            c.args_native = true;
        }
        st = tw_wire_take_call(&k, &c);
    }
    block_free(b);
    return st;
}

/* take_block, then the block leaves the list. */
static tw_status close_block(tw_anthropic_stream *d, tw_ant_block *b)
{
    tw_status st = take_block(d, b);
    size_t at = (size_t)(b - d->blocks);
    memmove(&d->blocks[at], &d->blocks[at + 1], (d->nblocks - at - 1) * sizeof *d->blocks);
    d->nblocks--;
    return st;
}

static tw_ant_block *new_block(tw_anthropic_stream *d, int kind, int64_t index, int64_t off,
                               tw_status *st)
{
    size_t cap = tw_open_calls_cap(&d->L);
    if (d->nblocks >= cap) {
        if (kind == BLK_TOOL) {
            tw_wire_sink k = sink_of(d);
            *st = tw_wire_diag(&k, true, TW_D_TOO_MANY_CALLS, off,
                               "more open content blocks than 2 * max_calls + 16");
        }
        return NULL;
    }
    if (d->nblocks == d->cap_blocks) {
        size_t nc = d->cap_blocks ? d->cap_blocks * 2 : 8;
        if (nc > cap)
            nc = cap;
        tw_ant_block *nb = tw_realloc(d->blocks, nc * sizeof *nb);
        if (!nb) {
            *st = TW_ERR_NOMEM;
            return NULL;
        }
        d->blocks = nb;
        d->cap_blocks = nc;
    }
    tw_ant_block *b = &d->blocks[d->nblocks++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->index = index;
    b->offset = off;
    b->json.max = tw_args_text_cap(&d->L);
    b->sig.max = d->L.max_event_bytes;
    return b;
}

static int64_t index_of(const cJSON *j)
{
    /* an index that is not an exact integer names no block (1.5 is not 1):
     * the event is then reported as one for an unknown block */
    int64_t ix = -1;
    if (!tw_json_exact_int(tw_json_get(j, "index"), 0, INT64_MAX, &ix))
        return -1;
    return ix;
}

static tw_status block_start(tw_anthropic_stream *d, cJSON *j, int64_t off)
{
    tw_wire_sink k = sink_of(d);
    cJSON *cb = tw_json_get(j, "content_block");
    const char *bt = tw_json_get_str(cb, "type");
    int64_t index = index_of(j);
    tw_status st = TW_OK;
    d->thinking_block = false;
    if (!bt)
        return TW_OK;
    if (strcmp(bt, "text") == 0) {
        const char *t = tw_json_get_str(cb, "text");
        return append_fire(&k, TW_EV_CONTENT, t ? t : "", t ? strlen(t) : 0);
    }
    if (strcmp(bt, "thinking") == 0) {
        d->thinking_block = true;
        st = think_text(&k, &d->thinking_block, tw_json_get_str(cb, "thinking"));
        tw_ant_block *b = st == TW_OK ? new_block(d, BLK_THINK, index, off, &st) : NULL;
        const char *sig = tw_json_get_str(cb, "signature");
        if (b && sig && sig[0])
            st = tw_buf_puts(&b->sig, sig) == TW_ERR_NOMEM ? TW_ERR_NOMEM : TW_OK;
        return st;
    }
    if (strcmp(bt, "redacted_thinking") == 0)
        return keep_redacted(&k, cb);
    if (strcmp(bt, "tool_use") == 0) {
        tw_ant_block *b = new_block(d, BLK_TOOL, index, off, &st);
        if (!b)
            return st;
        if (tw_call_object_check(cb, &b->why))
            b->refuse = b->why.code;
        const char *id = tw_json_get_str(cb, "id");
        const char *name = tw_json_get_str(cb, "name");
        cJSON *in = tw_json_get(cb, "input");
        if ((id && !(b->id = tw_strdup(id))) || (name && !(b->name = tw_strdup(name))))
            return TW_ERR_NOMEM;
        /* the event's tree is dropped after: the input is moved out of it,
         * or copied when the tree lies in the arena */
        if (in && d->arena.live && !(b->input = cJSON_Duplicate(in, 1)))
            return TW_ERR_NOMEM;
        if (in && !d->arena.live)
            b->input = cJSON_DetachItemViaPointer(cb, in);
    }
    return TW_OK;
}

static tw_status block_delta(tw_anthropic_stream *d, const cJSON *j, int64_t off)
{
    tw_wire_sink k = sink_of(d);
    const cJSON *delta = tw_json_get(j, "delta");
    const char *dt = tw_json_get_str(delta, "type");
    if (!dt)
        return TW_OK;
    if (strcmp(dt, "text_delta") == 0) {
        const char *t = tw_json_get_str(delta, "text");
        return append_fire(&k, TW_EV_CONTENT, t ? t : "", t ? strlen(t) : 0);
    }
    if (strcmp(dt, "thinking_delta") == 0)
        return think_text(&k, &d->thinking_block, tw_json_get_str(delta, "thinking"));
    tw_ant_block *b = find_block(d, index_of(j));
    bool sig = strcmp(dt, "signature_delta") == 0, args = strcmp(dt, "input_json_delta") == 0;
    if (!b && (sig || args))
        /* no started block has this index (or it is not an integer): what
         * the delta carries is dropped, and said to be */
        return tw_wire_diag(&k, false, TW_D_RESPONSE_SHAPE, off,
                            sig ? "a signature_delta for no started block was dropped"
                                : "an input_json_delta for no started block was dropped");
    if (sig) {
        const char *s = tw_json_get_str(delta, "signature");
        if (b && b->kind == BLK_THINK && s && tw_buf_puts(&b->sig, s) == TW_ERR_NOMEM)
            return TW_ERR_NOMEM;
    } else if (args) {
        if (b && b->kind == BLK_TOOL && !b->refuse && (tw_json_tainted(j) || tw_json_tainted(delta))) {
            b->refuse = TW_D_JSON_NUL;
            tw_error_set(&b->why, TW_D_JSON_NUL, -1, NULL,
                         "an input_json_delta of the call held U+0000; cut strings are refused");
        }
        const char *s = tw_json_get_str(delta, "partial_json");
        if (b && b->kind == BLK_TOOL && s && !b->oversize) {
            tw_status st = tw_buf_puts(&b->json, s);
            if (st == TW_ERR_LIMIT) {
                b->oversize = true;
                tw_buf_free(&b->json);
            } else if (st != TW_OK) {
                return st;
            }
        }
    }
    return TW_OK;
}

static tw_status on_message(tw_anthropic_stream *d, cJSON *j, const char *type, int64_t off)
{
    if (strcmp(type, "content_block_start") == 0)
        return block_start(d, j, off);
    if (strcmp(type, "content_block_delta") == 0)
        return block_delta(d, j, off);
    if (strcmp(type, "content_block_stop") == 0) {
        d->thinking_block = false;
        tw_ant_block *b = find_block(d, index_of(j));
        return b ? close_block(d, b) : TW_OK;
    }
    if (strcmp(type, "message_delta") == 0) {
        const char *sr = tw_json_get_str(tw_json_get(j, "delta"), "stop_reason");
        if (sr) {
            tw_free(d->stop_reason);
            if (!(d->stop_reason = tw_strdup(sr)))
                return TW_ERR_NOMEM;
        }
        return TW_OK;
    }
    if (strcmp(type, "message_stop") == 0)
        d->stopped = true;
    /* message_start, ping and unknown types carry nothing decoded */
    return TW_OK;
}

static tw_status on_sse_event(void *user, const tw_sse_event *ev)
{
    tw_anthropic_stream *d = user;
    if (d->stop != TW_OK)
        return d->stop; /* a callback stopped the decode */
    if (d->stopped)
        return TW_OK; /* nothing after message_stop belongs to the message */
    d->any_event = true;
    int64_t off = (int64_t)ev->offset;
    tw_wire_sink k = sink_of(d);
    cJSON *j = NULL;
    tw_error e;
    tw_json_lint lint;
    tw_status st = tw_json_parse_lint_in(ev->data, ev->data_len,
                                         d->L.max_depth + TW_WIRE_ENVELOPE_DEPTH, &j, &e, &lint,
                                         &d->arena);
    if (st == TW_ERR_NOMEM)
        return st;
    if (st == TW_OK) {
        tw_status ls = tw_wire_lint_diags(&k, &lint, off, false, &d->nonstd_warned);
        if (ls != TW_OK) {
            tw_json_arena_drop(&d->arena, j);
            return ls;
        }
    }
    const char *type = tw_json_get_str(j, "type");
    bool sse_error = ev->type_len == 5 && memcmp(ev->type, "error", 5) == 0;
    if (sse_error || (type && strcmp(type, "error") == 0)) {
        char msg[300];
        if (j)
            error_message(tw_json_get(j, "error"), msg, sizeof msg);
        else
            snprintf(msg, sizeof msg, "error event: %.*s",
                     (int)(ev->data_len > 200 ? 200 : ev->data_len), ev->data);
        st = tw_wire_diag(&k, true, TW_D_STREAM_ERROR, off, msg);
    } else if (st != TW_OK || !cJSON_IsObject(j)) {
        char msg[200];
        snprintf(msg, sizeof msg, "event data is not a JSON object: %.150s",
                 st != TW_OK ? e.message : "another JSON value");
        st = tw_wire_diag(&k, true, TW_D_CHUNK_JSON, off, msg);
    } else {
        char tbuf[64];
        if (!type) {
            size_t n = ev->type_len < sizeof tbuf - 1 ? ev->type_len : sizeof tbuf - 1;
            memcpy(tbuf, ev->type, n);
            tbuf[n] = '\0';
            type = tbuf;
        }
        st = on_message(d, j, type, off);
    }
    tw_json_arena_drop(&d->arena, j);
    return st;
}

static tw_status on_sse_diag(void *user, tw_status code, uint64_t off)
{
    tw_anthropic_stream *d = user;
    tw_wire_sink k = sink_of(d);
    return tw_wire_diag(&k, true, code, (int64_t)off, NULL);
}

static tw_status stream_init(tw_anthropic_stream *d, const tw_decode_opts *o, tw_event_fn fn,
                                   void *user)
{
    TW_DECODER_SETUP(d, o, fn, user);
    d->head.max = d->L.max_event_bytes;
    tw_result_init(&d->res, &d->L);
    return tw_sse_init(&d->sse, &d->L, true, on_sse_event, on_sse_diag, d);
}

tw_status tw_anthropic_stream_feed(tw_anthropic_stream *d, const char *buf, size_t len)
{
    if (d->finished)
        return TW_ERR_STATE;
    if (d->stop != TW_OK)
        return d->stop;
    tw_status st = tw_wire_sse_feed(&d->sse, &d->L, &d->fed, &d->too_large, &d->head,
                                    &d->head_off, buf, len);
    return st == TW_OK ? d->stop : st;
}

static void stream_release(tw_anthropic_stream *d)
{
    tw_sse_release(&d->sse);
    for (size_t i = 0; i < d->nblocks; i++)
        block_free(&d->blocks[i]);
    tw_free(d->blocks);
    d->blocks = NULL;
    d->nblocks = d->cap_blocks = 0;
    tw_free(d->stop_reason);
    d->stop_reason = NULL;
    tw_json_arena_free(&d->arena);
    tw_buf_free(&d->head);
    tw_result_free(&d->res);
}

tw_status tw_anthropic_stream_finish(tw_anthropic_stream *d, tw_result *out)
{
    if (d->finished) {
        tw_result_init(out, &d->L); /* *out is empty on every failure */
        return TW_ERR_STATE;
    }
    d->finished = true;
    tw_wire_sink k = sink_of(d);
    tw_status st = d->stop != TW_OK ? d->stop : tw_sse_finish(&d->sse);
    /* the blocks still open, in order (release frees the rest on a failure) */
    size_t taken = 0;
    for (; st == TW_OK && taken < d->nblocks; taken++)
        st = take_block(d, &d->blocks[taken]);
    if (st == TW_OK)
        d->nblocks = 0;
    bool envelope = false;
    if (st == TW_OK && !d->any_event && !d->head_off)
        st = tw_wire_error_body(&k, d->head.data ? d->head.data : "", d->head.len, &envelope);
    if (st == TW_OK && !d->stopped && !envelope)
        st = tw_wire_diag(&k, true, TW_D_STREAM_TRUNCATED, (int64_t)d->fed,
                          d->any_event ? "stream ended without message_stop"
                                       : tw_wire_no_event(&d->head));
    if (st == TW_OK)
        st = set_finish(&d->res, d->stop_reason);
    if (st == TW_OK)
        st = tw_wire_close(&k, d->too_large);
    if (st == TW_OK)
        st = d->stop; /* a callback stopped the decode */
    if (st == TW_OK) {
        *out = d->res;
        memset(&d->res, 0, sizeof d->res);
    } else {
        tw_result_init(out, &d->L);
    }
    return st;
}

/* ===================== the opaque decoder ===================== */

tw_anthropic_stream *tw_anthropic_stream_new(const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_anthropic_stream *d = tw_malloc(sizeof *d);
    if (d && stream_init(d, o, fn, user) != TW_OK) {
        tw_anthropic_stream_free(d);
        d = NULL;
    }
    return d;
}

tw_status tw_anthropic_stream_reset(tw_anthropic_stream *d, const tw_decode_opts *o, tw_event_fn fn,
                                    void *user)
{
    tw_buf *const b[] = {&d->head}; /* kept: the allocations of the buffers */
    tw_buf keep[1];
    tw_bufs_detach(b, keep, 1);
    tw_json_arena arena = d->arena; /* kept too: its largest block */
    memset(&d->arena, 0, sizeof d->arena);
    stream_release(d);
    tw_status st = stream_init(d, o, fn, user);
    d->arena = arena;
    tw_bufs_attach(b, keep, 1);
    return st;
}

void tw_anthropic_stream_free(tw_anthropic_stream *d)
{
    if (!d)
        return;
    stream_release(d);
    tw_free(d);
}

tw_status tw_anthropic_stream_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                     tw_result *out)
{
    tw_anthropic_stream d;
    tw_status st = stream_init(&d, o, NULL, NULL);
    if (st == TW_OK)
        st = tw_anthropic_stream_feed(&d, buf, len);
    if (st == TW_OK)
        st = tw_anthropic_stream_finish(&d, out);
    else
        tw_result_init(out, o ? &o->limits : NULL); /* *out is empty on every failure */
    stream_release(&d);
    return st;
}

TW_DECODER_OPS(st, tw_anthropic_stream, tw_anthropic_stream)

/* ===================== registry glue ===================== */

const tw_format_ops tw_format_anthropic_response = {
    "anthropic-response",
    "Anthropic messages response body (or error envelope)",
    tw_anthropic_response_decode,
    tw_body_new,
    tw_body_feed,
    resp_finish,
    tw_body_reset,
    tw_body_free, tw_format_recycle_free};
const tw_format_ops tw_format_anthropic_stream = {"anthropic-stream",
                                                  "Anthropic messages SSE event stream",
                                                  tw_anthropic_stream_decode,
                                                  st_new,
                                                  st_feed,
                                                  st_finish,
                                                  st_reset,
                                                  st_free, tw_format_recycle_free};
