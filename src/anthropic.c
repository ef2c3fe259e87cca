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
#include "wire_stream.h"
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
    tw_wire_stream w;     /* first: the state every event stream keeps */
    bool stopped;         /* message_stop seen */
    bool thinking_block;  /* inside a thinking block that has not emitted yet */
    tw_ant_block *blocks; /* open tool_use and thinking blocks */
    size_t nblocks;
    size_t cap_blocks;
    char *stop_reason;
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

/* Thinking text of a block; *new_block says a separator is owed before the
 * block's first non-empty text. */
static tw_status think_text(tw_wire_sink *k, bool *new_block, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0)
        return TW_OK;
    tw_status st = TW_OK;
    if (*new_block && k->res->msg.thinking.len)
        st = tw_wire_text(k, TW_EV_THINKING, "\n", 1);
    *new_block = false;
    return st == TW_OK ? tw_wire_text(k, TW_EV_THINKING, s, n) : st;
}

/* The first signature is kept; later ones are dropped without a word. */
static tw_status keep_signature(tw_wire_sink *k, const char *sig, size_t n)
{
    return tw_wire_keep_signature(k, sig, n, NULL, 0, NULL);
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
    return tw_wire_set_finish(r, TW_OK, tw_anthropic_finish_reason(stop_reason));
}

static void error_message(const cJSON *err, char *msg, size_t n)
{
    static const tw_wire_error_shape shape = {{"type", NULL}, false, false};
    tw_wire_error_text(err, &shape, msg, n);
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
            st = tw_wire_text(k, TW_EV_CONTENT, t ? t : "", t ? strlen(t) : 0);
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
TW_BODY_FORMAT(resp, tw_anthropic_response_decode, ant_response)

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
    return tw_wire_stream_sink(&d->w);
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
    size_t cap = tw_open_calls_cap(&d->w.L);
    if (d->nblocks >= cap) {
        if (kind == BLK_TOOL) {
            tw_wire_sink k = sink_of(d);
            *st = tw_wire_diag(&k, true, TW_D_TOO_MANY_CALLS, off,
                               "more open content blocks than 2 * max_calls + 16");
        }
        return NULL;
    }
    tw_ant_block *nb = tw_wire_room(d->blocks, &d->cap_blocks, d->nblocks, sizeof *nb, 8, cap);
    if (!nb) {
        *st = TW_ERR_NOMEM;
        return NULL;
    }
    d->blocks = nb;
    tw_ant_block *b = &d->blocks[d->nblocks++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->index = index;
    b->offset = off;
    b->json.max = tw_args_text_cap(&d->w.L);
    b->sig.max = d->w.L.max_event_bytes;
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
        return tw_wire_text(&k, TW_EV_CONTENT, t ? t : "", t ? strlen(t) : 0);
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
        if (in && d->w.arena.live && !(b->input = cJSON_Duplicate(in, 1)))
            return TW_ERR_NOMEM;
        if (in && !d->w.arena.live)
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
        return tw_wire_text(&k, TW_EV_CONTENT, t ? t : "", t ? strlen(t) : 0);
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
        if (b && b->kind == BLK_TOOL && !b->refuse &&
            (tw_json_tainted(j) || tw_json_tainted(delta))) {
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

static tw_status on_event(tw_wire_stream *w, const tw_wire_event *e)
{
    const char *type = tw_json_get_str(e->j, "type");
    if (tw_wire_event_is(e, "error") || (type && strcmp(type, "error") == 0)) {
        if (!e->j)
            return tw_wire_stream_raw_error(w, e);
        char msg[300];
        error_message(tw_json_get(e->j, "error"), msg, sizeof msg);
        return tw_wire_stream_diag(w, true, TW_D_STREAM_ERROR, e->off, msg);
    }
    if (e->parsed != TW_OK || !cJSON_IsObject(e->j))
        return tw_wire_stream_not_object(w, e);
    char tbuf[64];
    if (!type) {
        size_t n = e->sse->type_len < sizeof tbuf - 1 ? e->sse->type_len : sizeof tbuf - 1;
        memcpy(tbuf, e->sse->type, n);
        tbuf[n] = '\0';
        type = tbuf;
    }
    return on_message((tw_anthropic_stream *)w, e->j, type, e->off);
}

/* The blocks still open, in order (release frees the rest on a failure). */
static tw_status stream_close(tw_wire_stream *w)
{
    tw_anthropic_stream *d = (tw_anthropic_stream *)w;
    tw_status st = TW_OK;
    for (size_t taken = 0; st == TW_OK && taken < d->nblocks; taken++)
        st = take_block(d, &d->blocks[taken]);
    if (st == TW_OK)
        d->nblocks = 0;
    return st;
}

static bool stream_ended(const tw_wire_stream *w)
{
    return ((const tw_anthropic_stream *)w)->stopped; /* nothing after it belongs to the message */
}

static tw_status stream_end(tw_wire_stream *w)
{
    return set_finish(&w->res, ((tw_anthropic_stream *)w)->stop_reason);
}

static void stream_release(tw_wire_stream *w)
{
    tw_anthropic_stream *d = (tw_anthropic_stream *)w;
    for (size_t i = 0; i < d->nblocks; i++)
        block_free(&d->blocks[i]);
    tw_free(d->blocks);
    d->blocks = NULL;
    d->nblocks = d->cap_blocks = 0;
    tw_free(d->stop_reason);
    d->stop_reason = NULL;
}

static const tw_wire_stream_kind ANT_STREAM = {
    .size = sizeof(tw_anthropic_stream),
    .depth = TW_WIRE_ENVELOPE_DEPTH,
    .what = "event data",
    .unended = "stream ended without message_stop",
    .event = on_event,
    .close = stream_close,
    .ended = stream_ended,
    .end = stream_end,
    .release = stream_release,
};

TW_WIRE_STREAM_API(tw_anthropic_stream, tw_anthropic_stream, ANT_STREAM)
TW_WIRE_STREAM_FORMAT(tw_anthropic_stream, ANT_STREAM)

/* ===================== registry glue ===================== */

const tw_format_ops tw_format_anthropic_response = {
    "anthropic-response",
    "Anthropic messages response body (or error envelope)",
    tw_anthropic_response_decode,
    tw_body_new,
    tw_body_feed,
    resp_finish,
    tw_body_reset,
    tw_body_free,
    tw_format_recycle_free};
const tw_format_ops tw_format_anthropic_stream = {
    "anthropic-stream",         "Anthropic messages SSE event stream",
    tw_anthropic_stream_decode, tw_anthropic_stream_open,
    tw_wire_stream_feed,        tw_wire_stream_finish,
    tw_wire_stream_reset,       tw_wire_stream_free,
    tw_format_recycle_free};
