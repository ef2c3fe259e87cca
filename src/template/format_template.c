/*
 * The template a new format module copies (docs/architecture.md, "Adding a
 * format"). It is not part of the library: tests/lib/test_template.c builds it
 * and drives it through the same contract checks as every registered
 * decoder, so the template stays correct as the library changes.
 *
 * The example format, "lines": the input is lines of text; a line
 *     CALL <name>[@<id>] [<JSON object>]
 * is a tool call, every other line is content. The module only cuts a call
 * line into its pieces; whether the call is accepted is decided by the
 * rules every decoder shares (src/calls.h, tw_wire_take_call), so a refused
 * call is an error diagnostic with the shared code and text, and an accepted
 * one gets the shared unique id and warnings. Nothing in the input makes the
 * decode fail (a failure is an allocation failure only).
 *
 * To make a real module from it: copy it to src/<format>.c, rename
 * "template"/"lines" to the format's name, keep the state struct's
 * definition in the module (the installed header has only
 * `typedef struct tw_<format>_dec tw_<format>_dec;`), add the format's
 * row to TW_FORMAT_TABLE in src/format_table.h, declare the batch function and
 * the opaque decoder's tw_<format>_dec_new, _feed, _finish, _reset and
 * _free in include/toolwire/<format>.h with contract comments, add decode
 * fixtures under tests/data/decode/<format>/ and a page under
 * docs/formats/.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "wire_common.h"
#include "toolwire/decode.h"
#include "toolwire/json.h"

/* The decoder's state: private to the module. The installed header only
 * names the type (typedef struct tw_lines_dec tw_lines_dec;); callers hold
 * a pointer from tw_lines_dec_new, the registry hands it around as void *. */
typedef struct tw_lines_dec {
    tw_decode_opts o; /* the options, copied by init */
    tw_limits L;      /* resolved limits: every cap comes from here */
    tw_event_fn fn;   /* event sink (may be NULL) and its user pointer */
    void *user;
    tw_buf in;      /* the input so far, capped at max_input_bytes */
    bool too_large; /* bytes past max_input_bytes were dropped */
    bool finished;
    tw_status stop; /* what a callback returned to stop the decode; TW_OK while none */
} tw_lines_dec;

/* The public functions, as include/toolwire/<format>.h declares them (with
 * contract comments: each parameter, ownership, what NULL means). */
tw_lines_dec *tw_lines_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user);
tw_status tw_lines_dec_feed(tw_lines_dec *d, const char *buf, size_t len);
tw_status tw_lines_dec_finish(tw_lines_dec *d, tw_result *out);
tw_status tw_lines_dec_reset(tw_lines_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user);
void tw_lines_dec_free(tw_lines_dec *d);
tw_status tw_lines_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                 tw_result *out);

/* Set up a new decode on *d (what it held is overwritten, not freed). */
static tw_status lines_init(tw_lines_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    TW_DECODER_SETUP(d, o, fn, user); /* zero, copy options, resolve limits */
    d->in.max = d->L.max_input_bytes;
    return TW_OK;
}

/* Free what *d holds (safe after finish and after a failure). */
static void lines_release(tw_lines_dec *d)
{
    tw_buf_free(&d->in);
}

tw_status tw_lines_dec_feed(tw_lines_dec *d, const char *buf, size_t len)
{
    if (d->finished)
        return TW_ERR_STATE;
    if (d->stop != TW_OK)
        return d->stop; /* a callback stopped the decode: it stays failed */
    /* over a cap: keep what fits, say so at finish (a diagnostic, not a failure) */
    len = tw_input_clip(&d->L, d->in.len, len, &d->too_large);
    return len ? tw_buf_append(&d->in, buf, len) : TW_OK;
}

/* A content event to the callback; a callback that returns anything but
 * TW_OK stops the decode (tw_event_deliver keeps its status in d->stop).
 * Calls and diagnostics fire their events through the sink below. */
static void fire_content(tw_lines_dec *d, const char *text, size_t len)
{
    tw_event ev = {TW_EV_CONTENT, text, len, NULL, NULL};
    tw_event_deliver(d->fn, d->user, &d->stop, &ev);
}

/* The sink the shared call rules write into: the result, the options and
 * limits, the event callback and the decoder's stop status. */
static tw_wire_sink sink_of(tw_lines_dec *d, tw_result *res)
{
    tw_wire_sink k = {res, &d->o, &d->L, d->fn, d->user, &d->stop};
    return k;
}

/*
 * One "CALL name[@id] {…}" line (p, n: after "CALL ") at input offset `off`.
 * The module only cuts the line into name, id and argument text; every rule
 * (missing name, declared tool, arguments parsed and checked, repeated keys,
 * max_args_bytes, schema, max_calls, a unique id, the warnings) is the shared
 * one of tw_wire_take_call, which appends the call or adds the refusal.
 * A call here is one line, so at most one is open at a time; a format whose
 * calls arrive in pieces holds each call's text under tw_args_text_cap and
 * its open calls under tw_open_calls_cap (src/openai.c, src/anthropic.c).
 */
static tw_status take_call(tw_lines_dec *d, tw_result *res, const char *p, size_t n, size_t off)
{
    tw_wire_sink k = sink_of(d, res);
    const char *sp = memchr(p, ' ', n);
    size_t tlen = sp ? (size_t)(sp - p) : n; /* the name[@id] token */
    const char *at = memchr(p, '@', tlen);
    size_t nlen = at ? (size_t)(at - p) : tlen;
    /* the name and id as the rules want them: NUL-terminated copies */
    char *name = tw_strndup(p, nlen);
    char *id = at ? tw_strndup(at + 1, tlen - nlen - 1) : NULL;
    if (!name || (at && !id)) {
        tw_free(name);
        tw_free(id);
        return TW_ERR_NOMEM;
    }
    tw_wire_call c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.id = id; /* NULL or "": the rules make call_<n> */
    c.offset = (int64_t)off;
    if (sp) { /* the argument text; none at all is an empty object */
        c.has_args_str = true;
        c.args_str = sp + 1;
        c.args_len = n - tlen - 1;
        /* past the text cap the call is refused as args_too_large unparsed */
        if (c.args_len > tw_args_text_cap(&d->L)) {
            c.args_len = tw_args_text_cap(&d->L);
            c.args_oversize = true;
        }
    }
    tw_status st = tw_wire_take_call(&k, &c);
    tw_free(name);
    tw_free(id);
    return st;
}

static tw_status lines_decode_all(tw_lines_dec *d, tw_result *res)
{
    const char *b = d->in.data ? d->in.data : "";
    size_t n = d->in.len;
    tw_status st = TW_OK;
    for (size_t i = 0; st == TW_OK && d->stop == TW_OK && i < n;) {
        const char *nl = memchr(b + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - b) : n;
        size_t next = nl ? end + 1 : n;
        if (end - i >= 5 && memcmp(b + i, "CALL ", 5) == 0) {
            st = take_call(d, res, b + i + 5, end - i - 5, i);
        } else {
            st = tw_buf_append(&res->msg.content, b + i, next - i);
            if (st == TW_OK)
                fire_content(d, b + i, next - i);
        }
        i = next;
    }
    tw_wire_sink k = sink_of(d, res);
    if (st == TW_OK && d->too_large)
        st = tw_wire_diag(&k, true, TW_D_INPUT_TOO_LARGE, (int64_t)d->L.max_input_bytes, NULL);
    if (st == TW_OK)
        st = tw_buf_append(&res->msg.content, "", 0); /* content is "" rather than absent */
    if (st == TW_OK)
        res->finish_reason = tw_strdup(res->msg.ncalls ? "tool_calls" : "stop");
    if (st == TW_OK && !res->finish_reason)
        st = TW_ERR_NOMEM;
    return st;
}

/* End of input: the result into *out; the buffers stay for a reset. */
tw_status tw_lines_dec_finish(tw_lines_dec *d, tw_result *out)
{
    tw_result_init(out, &d->L); /* *out is valid and empty from here on */
    if (d->finished)
        return TW_ERR_STATE;
    d->finished = true;
    tw_status st = d->stop;
    if (st == TW_OK)
        st = lines_decode_all(d, out);
    if (st == TW_OK)
        st = d->stop; /* a callback stopped the decode: it fails with that status */
    if (st != TW_OK) {
        tw_result_free(out); /* nothing partial on failure */
        tw_result_init(out, &d->L);
    }
    return st;
}

/* ---- the opaque decoder: new, reset (keeping the buffers), free ---- */

tw_lines_dec *tw_lines_dec_new(const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_lines_dec *d = tw_malloc(sizeof *d);
    if (d && lines_init(d, o, fn, user) != TW_OK) {
        tw_lines_dec_free(d);
        d = NULL;
    }
    return d;
}

tw_status tw_lines_dec_reset(tw_lines_dec *d, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_buf *const b[] = {&d->in}; /* every tw_buf of the state that a reset keeps */
    tw_buf keep[1];
    tw_bufs_detach(b, keep, 1);
    lines_release(d); /* what is not kept */
    tw_status st = lines_init(d, o, fn, user);
    tw_bufs_attach(b, keep, 1);
    return st;
}

void tw_lines_dec_free(tw_lines_dec *d)
{
    if (!d)
        return;
    lines_release(d);
    tw_free(d);
}

/* Batch: the push decoder over the whole input (one code path for both). */
tw_status tw_lines_output_decode(const char *buf, size_t len, const tw_decode_opts *o,
                                 tw_result *out)
{
    tw_lines_dec d; /* inside the module the state may live on the stack */
    tw_status st = lines_init(&d, o, NULL, NULL);
    if (st == TW_OK)
        st = tw_lines_dec_feed(&d, buf, len);
    if (st == TW_OK)
        st = tw_lines_dec_finish(&d, out);
    else
        tw_result_init(out, o ? &o->limits : NULL); /* *out is empty on every failure */
    lines_release(&d);
    return st;
}

/* The registry's void * steps over the typed ones. */
TW_DECODER_OPS(lines, tw_lines_dec, tw_lines_dec)

/* The registry object. A real module adds
 *     D(tw_format_lines, "lines", TEXT, (lines, BATCH))
 * to TW_FORMAT_TABLE in src/format_table.h and drops `static`
 * (tests/lib/test_template.c builds the template so, TW_TEMPLATE_AS_MODULE). */
#ifndef TW_TEMPLATE_AS_MODULE
static
#endif
    const tw_format_ops tw_format_lines = {
        "lines",
        "template: CALL <name> <JSON object> lines, the rest content",
        tw_lines_output_decode,
        lines_new,
        lines_feed,
        lines_finish,
        lines_reset,
        lines_free,
        tw_format_recycle_free};
