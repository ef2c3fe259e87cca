/*
 * Text formats: think-tag splitting and tool-call blocks, as one push
 * decoder in two layers. The think layer (text_think.c) reads raw bytes and
 * passes public text on; the call layer (text_calls.c) reads public text and
 * produces content and calls, reading the JSON payload of a block
 * (text_payload.c) or Qwen3-Coder XML (text_qwen.c); what the layers send
 * out (content, diagnostics) is text_emit.c's. This file holds the push
 * decoder's entry points and the registry glue.
 * Batch decoding is the same machine fed once, so both give one result.
 * The rules are in docs/text-formats.md.
 */
#include "alloc.h"
#include "toolwire/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "hash.h"
#include "text_layers.h"
#include "utf8.h"
#include "wire_common.h"
#include "work.h"
#include "toolwire/decode.h"

/* ===================== diagnostics ===================== */

tw_status tw_text_init(tw_text_dec *d, tw_text_kind kind, const tw_decode_opts *o, tw_event_fn fn,
                       void *user)
{
    TW_DECODER_SETUP(d, o, fn, user);
    d->kind = kind;
    tw_result_init(&d->res, &d->L);
    d->calls.cap = tw_args_text_cap(&d->L);
    d->calls.lit = NPOS;
    d->think.call_at = NPOS;
    d->think.nolt = NPOS;
    d->calls.bare.hold = d->o.bare_json && kind != TW_TEXT_THINK;
    if (d->o.forced_open) {
        d->think.state = TW_THINK_INSIDE;
        d->think.tag = TW_THINK_TAG_EITHER;
        d->think.forced_start = true;
        d->think.open_off = 0;
    }
    return TW_OK;
}

tw_status tw_text_feed(tw_text_dec *d, const char *buf, size_t len)
{
    if (d->finished)
        return TW_ERR_STATE;
    if (d->stop != TW_OK)
        return d->stop;
    len = tw_input_clip(&d->L, d->fed, len, &d->too_large);
    if (len == 0)
        return TW_OK;
    tw_status st = tw_text_think_feed(d, buf, len);
    d->fed += len;
    if (st != TW_OK && d->stop == TW_OK)
        d->stop = st; /* a failure ends the decode: later feeds and finish fail too */
    return st == TW_OK ? d->stop : st;
}

static tw_status bare_json_finish(tw_text_dec *d)
{
    /* content was held; decide whether it is one call */
    d->calls.bare.hold = false;
    const char *p = d->calls.bare.buf.data ? d->calls.bare.buf.data : "";
    size_t n = d->calls.bare.buf.len;
    const char *t = p;
    size_t tn = n;
    tw_trim(&t, &tn);
    if (d->calls.blocks == 0 && tn && t[0] == '{') {
        tw_error e;
        tw_json_lint lint;
        cJSON *v = NULL;
        tw_status ps = tw_json_parse_lint(t, tn, d->L.max_depth, &v, &e, &lint);
        if (ps == TW_ERR_NOMEM)
            return ps;
        if (ps == TW_OK && cJSON_IsObject(v) &&
            (cJSON_IsString(tw_json_get(v, "name")) || tw_json_tainted(v))) {
            /* offset: where the JSON starts in the input is not tracked
             * through the layers; the bare text's first byte is */
            int64_t off = (int64_t)d->calls.bare.off;
            size_t before = d->res.msg.ncalls;
            tw_status st = TW_OK;
            if (lint.nonstd_offset >= 0) {
                char m[160];
                snprintf(m, sizeof m, "bare JSON is not RFC 8259: %s at its byte %lld",
                         lint.nonstd_what, (long long)lint.nonstd_offset);
                st = tw_text_add_diag(d, false, TW_D_JSON_NOT_RFC8259, off, m);
            }
            if (st == TW_OK)
                st = tw_text_take_call(d, v, off, tn);
            cJSON_Delete(v);
            if (st != TW_OK)
                return st;
            if (d->res.msg.ncalls > before)
                st = tw_text_add_diag(d, false, TW_D_BARE_JSON, off, NULL);
            tw_buf_free(&d->calls.bare.buf);
            return st;
        }
        cJSON_Delete(v);
    }
    tw_status st = tw_text_emit_content(d, p, n, d->calls.bare.off);
    tw_buf_free(&d->calls.bare.buf);
    return st;
}

tw_status tw_text_finish(tw_text_dec *d, tw_result *out)
{
    tw_status st = TW_OK;
    if (d->finished) {
        tw_result_init(out, &d->L); /* *out is empty on every failure */
        return TW_ERR_STATE;
    }
    d->finished = true;
    st = d->stop; /* a callback stopped the decode */
    if (st == TW_OK && d->think.state == TW_THINK_INSIDE && d->think.forced_start)
        tw_text_forced_start(d, true);
    if (st == TW_OK)
        st = tw_text_think_process(d, true);
    if (st == TW_OK && d->think.state == TW_THINK_INSIDE)
        st = tw_text_think_finish_block(d);
    if (st == TW_OK && tw_text_hlen(d)) {
        st = tw_text_calls_feed(d, tw_text_hdata(d), tw_text_hlen(d), d->think.hold_off);
        tw_text_hold_consume(d, tw_text_hlen(d));
    }
    if (st == TW_OK)
        st = tw_text_calls_finish(d);
    if (st == TW_OK && d->calls.bare.hold)
        st = bare_json_finish(d);
    if (st == TW_OK && d->too_large)
        st = tw_text_add_diag(d, true, TW_D_INPUT_TOO_LARGE, (int64_t)d->L.max_input_bytes, NULL);
    if (st == TW_OK) {
        tw_wire_sort_diags(&d->res);
        const char *fr = d->kind == TW_TEXT_THINK
                             ? (d->o.finish == TW_FINISH_LENGTH ? "length" : "stop")
                             : tw_text_finish_reason(d->res.msg.ncalls, d->o.finish);
        tw_free(d->res.finish_reason);
        d->res.finish_reason = tw_strdup(fr);
        if (!d->res.finish_reason)
            st = TW_ERR_NOMEM;
        if (!d->res.msg.content.data)
            st = st == TW_OK ? tw_buf_append(&d->res.msg.content, "", 0) : st;
        if (!d->res.msg.thinking.data)
            st = st == TW_OK ? tw_buf_append(&d->res.msg.thinking, "", 0) : st;
    }
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

void tw_text_release(tw_text_dec *d)
{
    tw_result_free(&d->res);
    tw_buf_free(&d->think.hold);
    tw_buf_free(&d->think.ws);
    tw_buf_free(&d->calls.hold);
    tw_buf_free(&d->calls.blk);
    tw_buf_free(&d->calls.spare);
    tw_buf_free(&d->calls.seg);
    tw_buf_free(&d->calls.ws);
    tw_buf_free(&d->calls.bare.buf);
    tw_buf_free(&d->qwen.ev);
}

void tw_text_bufs(tw_text_dec *d, tw_buf *b[TEXT_NBUFS])
{
    b[0] = &d->think.hold, b[1] = &d->think.ws, b[2] = &d->calls.hold, b[3] = &d->calls.blk;
    b[4] = &d->calls.seg, b[5] = &d->calls.ws, b[6] = &d->calls.bare.buf, b[7] = &d->qwen.ev;
    b[8] = &d->calls.spare;
}

tw_status tw_text_reset(tw_text_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    /* the decoder's own buffers, then the result's content and thinking
     * (allocations a recycled result gave back, or a decode cut short) */
    tw_buf *b[TEXT_NBUFS + 2], keep[TEXT_NBUFS + 2];
    tw_text_bufs(d, b);
    b[TEXT_NBUFS] = &d->res.msg.content;
    b[TEXT_NBUFS + 1] = &d->res.msg.thinking;
    tw_bufs_detach(b, keep, TEXT_NBUFS + 2);
    tw_text_release(d);
    tw_status st = tw_text_init(d, d->kind, o, fn, user);
    tw_bufs_attach(b, keep, TEXT_NBUFS + 2);
    return st;
}

void tw_text_recycle(tw_text_dec *d, tw_result *r)
{
    if (!r)
        return;
    tw_result_clear(r, &d->L);
    tw_buf *mine[2] = {&d->res.msg.content, &d->res.msg.thinking};
    tw_buf *theirs[2] = {&r->msg.content, &r->msg.thinking};
    for (size_t i = 0; i < 2; i++) {
        if (mine[i]->data || !theirs[i]->data)
            continue; /* the decoder has one already (a decode under way): r's is freed */
        mine[i]->data = theirs[i]->data;
        mine[i]->cap = theirs[i]->cap;
        mine[i]->len = 0;
        memset(theirs[i], 0, sizeof *theirs[i]);
    }
    tw_result_free(r);
}

TW_DECODER_ADAPTERS(gen, tw_text, tw_text_dec)

static tw_status batch(tw_text_kind k, const char *buf, size_t len, const tw_decode_opts *o,
                       tw_result *out)
{
    tw_text_dec d;
    return tw_decode_batch(&d, tw_text_init(&d, k, o, NULL, NULL), gen_feed, gen_finish,
                           gen_release, buf, len, out);
}

tw_status tw_think_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                 tw_result *out)
{
    return batch(TW_TEXT_THINK, buf, len, o, out);
}

tw_status tw_hermes_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                  tw_result *out)
{
    return batch(TW_TEXT_HERMES, buf, len, o, out);
}

tw_status tw_fenced_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                  tw_result *out)
{
    return batch(TW_TEXT_FENCED, buf, len, o, out);
}

tw_status tw_qwen3_coder_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                       tw_result *out)
{
    return batch(TW_TEXT_QWEN_XML, buf, len, o, out);
}

/* ===================== the opaque decoder ===================== */

tw_text_dec *tw_text_dec_new(tw_text_kind kind, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_text_dec *d = tw_malloc(sizeof *d);
    if (d && tw_text_init(d, kind, o, fn, user) != TW_OK) {
        tw_text_dec_free(d);
        d = NULL;
    }
    return d;
}

tw_status tw_text_dec_feed(tw_text_dec *d, const char *buf, size_t len)
{
    return tw_text_feed(d, buf, len);
}

tw_status tw_text_dec_finish(tw_text_dec *d, tw_result *out)
{
    return tw_text_finish(d, out);
}

tw_status tw_text_dec_reset(tw_text_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    return tw_text_reset(d, o, fn, user);
}

void tw_text_dec_recycle(tw_text_dec *d, tw_result *r)
{
    tw_text_recycle(d, r);
}

void tw_text_dec_free(tw_text_dec *d)
{
    if (!d)
        return;
    tw_text_release(d);
    tw_free(d);
}

/* ===================== registry glue ===================== */

static void *think_new(const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_dec_new(TW_TEXT_THINK, o, fn, u);
}
static void *hermes_new(const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_dec_new(TW_TEXT_HERMES, o, fn, u);
}
static void *fenced_new(const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_dec_new(TW_TEXT_FENCED, o, fn, u);
}
static void *qwen3_coder_new(const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_dec_new(TW_TEXT_QWEN_XML, o, fn, u);
}
static tw_status gen_reset(void *d, const tw_decode_opts *o, tw_event_fn fn, void *u)
{
    return tw_text_reset(d, o, fn, u);
}
static void gen_recycle(void *d, tw_result *r)
{
    tw_text_recycle(d, r);
}
static void gen_free(void *d)
{
    tw_text_dec_free(d);
}

const tw_format_ops tw_format_think = {"think",
                                       "raw model text: <think>/<thinking> blocks",
                                       tw_think_output_decode,
                                       think_new,
                                       gen_feed,
                                       gen_finish,
                                       gen_reset,
                                       gen_free,
                                       gen_recycle};
const tw_format_ops tw_format_hermes = {
    "hermes",
    "raw model text: think blocks, then <tool_call> blocks (Hermes/Qwen)",
    tw_hermes_output_decode,
    hermes_new,
    gen_feed,
    gen_finish,
    gen_reset,
    gen_free,
    gen_recycle};
const tw_format_ops tw_format_fenced = {
    "fenced",
    "raw model text: think blocks, then ```tool_call fenced blocks",
    tw_fenced_output_decode,
    fenced_new,
    gen_feed,
    gen_finish,
    gen_reset,
    gen_free,
    gen_recycle};
const tw_format_ops tw_format_qwen3_coder = {
    "qwen3-coder",
    "raw model text: think blocks, then <tool_call><function=NAME><parameter=KEY> XML blocks "
    "(Qwen3-Coder, Qwen3.5)",
    tw_qwen3_coder_output_decode,
    qwen3_coder_new,
    gen_feed,
    gen_finish,
    gen_reset,
    gen_free,
    gen_recycle};
