/*
 * The push machinery of the model-output dialects (dialect.h): the held
 * input, the marker search, trimmed emission, calls and the decoder's
 * steps. The grammar of each dialect is its own module's.
 */
#include "dialect.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "work.h"

/* ===================== markers ===================== */

/* How many bytes of marker m match the held bytes at off (up to the end). */
static size_t match_len(const tw_dl *d, uint64_t off, const tw_dl_mark *m)
{
    size_t have = (size_t)(tw_dl_end(d) - off);
    size_t k = have < m->n ? have : m->n;
    return memcmp(tw_dl_at(d, off), m->s, k) == 0 ? k : (size_t)-1;
}

int tw_dl_starts(const tw_dl *d, uint64_t off, const char *s, size_t n, bool final)
{
    tw_dl_mark m = {s, n};
    size_t k = match_len(d, off, &m);
    if (k == (size_t)-1)
        return 0;
    if (k == n)
        return 1;
    return final ? 0 : -1;
}

tw_dl_hit tw_dl_find(const tw_dl *d, uint64_t from, uint64_t *resume, const tw_dl_mark *marks,
                     size_t n, bool final, uint64_t *at, size_t *which)
{
    uint64_t end = tw_dl_end(d);
    uint64_t p = from;
    if (resume && *resume > p)
        p = *resume;
    /* the markers' distinct first bytes, each found with memchr */
    char firsts[256];
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < nf && firsts[j] != marks[i].s[0])
            j++;
        if (j == nf)
            firsts[nf++] = marks[i].s[0];
    }
    /* with several first bytes, the earliest of them in a window that
     * doubles while none is found (64 bytes to 64 KiB) and is small again
     * after a candidate; each memchr stops at the nearest candidate found
     * so far. A step costs at most twice the bytes up to its candidate for
     * each first byte, never the rest of what is held: linear however
     * often the dialect searches again. */
    size_t win = 64;
    while (p < end) {
        const char *b = tw_dl_at(d, p);
        size_t left = (size_t)(end - p);
        size_t lim = nf == 1 || left < win ? left : win;
        const char *c = NULL;
        for (size_t j = 0; j < nf && lim; j++) {
            const char *h = memchr(b, firsts[j], lim);
            if (h) {
                c = h;
                lim = (size_t)(h - b);
            }
        }
        TW_WORK(c ? (size_t)(c - b) + 1 : lim);
        if (!c && lim == left)
            break;
        if (!c) {
            p += lim;
            if (win < (64u << 10))
                win *= 2;
            continue;
        }
        win = 64;
        uint64_t q = p + (uint64_t)(c - b);
        bool partial = false;
        for (size_t i = 0; i < n; i++) {
            size_t k = match_len(d, q, &marks[i]);
            if (k == marks[i].n) {
                *at = q;
                if (which)
                    *which = i;
                if (resume)
                    *resume = q;
                return TW_DL_FOUND;
            }
            if (k != (size_t)-1)
                partial = true; /* a prefix at the end */
        }
        if (partial && !final) {
            *at = q;
            if (resume)
                *resume = q;
            return TW_DL_NONE;
        }
        p = q + 1;
    }
    *at = end;
    if (resume)
        *resume = end;
    return TW_DL_NONE;
}

/* ===================== emission ===================== */

tw_status tw_dl_text_bytes(tw_dl *d, tw_dl_chan ch, const char *p, size_t n)
{
    tw_dl_out *o = &d->out[ch];
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    tw_event_kind kind = ch == TW_DL_CONTENT ? TW_EV_CONTENT : TW_EV_THINKING;
    size_t i = 0;
    if (!o->any || o->gap) /* leading white space of the channel or block */
        while (i < n && tw_dl_space(p[i]))
            i++;
    if (i == n)
        return TW_OK;
    size_t e = n; /* trailing white space is held */
    while (e > i && tw_dl_space(p[e - 1]))
        e--;
    tw_status st = TW_OK;
    if (e > i) {
        if (o->gap && o->any)
            st = tw_wire_text(&k, kind, "\n", 1);
        else if (o->ws.len)
            st = tw_wire_text(&k, kind, o->ws.data, o->ws.len);
        o->ws.len = 0;
        o->gap = false;
        o->any = true;
        if (st == TW_OK)
            st = tw_wire_text(&k, kind, p + i, e - i);
    }
    if (st == TW_OK && e < n)
        st = tw_buf_append(&o->ws, p + e, n - e);
    return st;
}

tw_status tw_dl_text(tw_dl *d, tw_dl_chan ch, uint64_t off, size_t n)
{
    return n ? tw_dl_text_bytes(d, ch, tw_dl_at(d, off), n) : TW_OK;
}

/* The text from d->pos up to the first of marks to channel ch; *which the
 * marker's index (d->pos at it), n when none is found yet. */
static tw_status chan_text(tw_dl *d, tw_dl_chan ch, uint64_t *resume, const tw_dl_mark *marks,
                           size_t n, bool final, uint64_t *at, size_t *which)
{
    size_t w = 0;
    tw_dl_hit h = tw_dl_find(d, d->pos, resume, marks, n, final, at, &w);
    tw_status st = tw_dl_text(d, ch, d->pos, (size_t)(*at - d->pos));
    d->pos = *at;
    *which = h == TW_DL_FOUND ? w : n;
    return st;
}

tw_status tw_dl_content(tw_dl *d, uint64_t *resume, const tw_dl_mark *marks, size_t n, bool final,
                        uint64_t *at, size_t *which)
{
    return chan_text(d, TW_DL_CONTENT, resume, marks, n, final, at, which);
}

void tw_dl_gap(tw_dl *d, tw_dl_chan ch)
{
    tw_dl_out *o = &d->out[ch];
    o->ws.len = 0;
    if (o->any)
        o->gap = true;
}

tw_status tw_dl_diag(tw_dl *d, bool error, tw_status code, int64_t off, const char *msg)
{
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    return tw_wire_diag(&k, error, code, off, msg);
}

/* ===================== calls ===================== */

static tw_status take(tw_dl *d, tw_wire_call *c, const char *name, size_t nlen, const char *id,
                      size_t idlen)
{
    char *nm = tw_strndup(name ? name : "", name ? nlen : 0);
    char *ident = idlen ? tw_strndup(id, idlen) : NULL;
    if (!nm || (idlen && !ident)) {
        tw_free(nm);
        tw_free(ident);
        return TW_ERR_NOMEM;
    }
    c->name = nm;
    c->id = ident;
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    tw_status st = tw_wire_take_call(&k, c);
    tw_free(nm);
    tw_free(ident);
    return st;
}

tw_status tw_dl_call(tw_dl *d, const char *name, size_t nlen, const char *id, size_t idlen,
                     const char *args, size_t alen, int64_t off)
{
    tw_wire_call c;
    memset(&c, 0, sizeof c);
    c.offset = off;
    if (args) {
        c.has_args_str = true;
        c.args_str = args;
        c.args_len = alen;
        if (alen > tw_args_text_cap(&d->L)) {
            c.args_len = tw_args_text_cap(&d->L);
            c.args_oversize = true;
        }
    }
    return take(d, &c, name, nlen, id, idlen);
}

tw_status tw_dl_call_member(tw_dl *d, const char *name, size_t nlen, const char *id, size_t idlen,
                            cJSON *owner, const cJSON *v, size_t src_len, int64_t off)
{
    tw_wire_call c;
    memset(&c, 0, sizeof c);
    c.offset = off;
    c.args_value = v;
    c.args_owner = owner;
    c.args_native = true;
    c.args_src_len = src_len;
    return take(d, &c, name, nlen, id, idlen);
}

tw_status tw_dl_call_value(tw_dl *d, const char *name, size_t nlen, const char *id, size_t idlen,
                           const cJSON *v, size_t src_len, int64_t off)
{
    return tw_dl_call_member(d, name, nlen, id, idlen, NULL, v, src_len, off);
}

/* ===================== reasoning blocks ===================== */

bool tw_dl_think_forced(tw_dl *d, tw_dl_think *t)
{
    t->lead = d->o.forced_open;
    return t->lead;
}

void tw_dl_think_open(tw_dl *d, tw_dl_think *t, uint64_t at, size_t n)
{
    t->at = at;
    t->lead = false;
    d->pos = at + n;
}

/* d->pos past white space (dropped anyway at the start of a channel);
 * false when the held bytes end first and more may come. */
static bool skip_space(tw_dl *d, bool final)
{
    uint64_t end = tw_dl_end(d);
    while (d->pos < end && tw_dl_space(*tw_dl_at(d, d->pos)))
        d->pos++;
    return d->pos < end || final;
}

int tw_dl_think_lead(tw_dl *d, tw_dl_think *t, const tw_dl_mark *open, bool final)
{
    if (!skip_space(d, final))
        return -1;
    uint64_t p = d->pos;
    int s = tw_dl_starts(d, p, open->s, open->n, final);
    if (s < 0)
        return -1;
    t->lead = false;
    if (s > 0)
        d->pos = p + open->n;
    return s;
}

tw_status tw_dl_think_scan(tw_dl *d, tw_dl_think *t, const tw_dl_mark *open, const tw_dl_mark *ends,
                           size_t n, bool final, uint64_t *at, size_t *which)
{
    *which = n;
    if (t->lead && tw_dl_think_lead(d, t, open, final) < 0)
        return TW_OK;
    tw_status st = chan_text(d, TW_DL_THINKING, NULL, ends, n, final, at, which);
    if (st != TW_OK || *which == n)
        return st;
    tw_dl_gap(d, TW_DL_THINKING);
    if (*which == 0)
        d->pos = *at + ends[0].n;
    return TW_OK;
}

tw_status tw_dl_think_unterminated(tw_dl *d, const tw_dl_think *t, const char *msg)
{
    return tw_dl_diag(d, true, TW_D_THINK_UNTERMINATED, (int64_t)t->at, msg);
}

tw_status tw_dl_think_implicit(tw_dl *d, uint64_t at, const char *msg)
{
    return tw_dl_diag(d, false, TW_D_THINK_IMPLICIT_END, (int64_t)at, msg);
}

int tw_dl_think_start(tw_dl *d, tw_dl_think *t, const tw_dl_think_spec *sp, bool final)
{
    if (!skip_space(d, final))
        return -1;
    uint64_t p = d->pos;
    int open = tw_dl_starts(d, p, sp->open.s, sp->open.n, final);
    int close = tw_dl_starts(d, p, sp->close.s, sp->close.n, final);
    if (open < 0 || close < 0)
        return -1; /* a prefix of a tag: wait */
    t->at = p;
    t->resume = 0;
    if (open > 0) { /* the model opened it (a repeated opener under forced_open) */
        d->pos = p + sp->open.n;
        return 1;
    }
    if (close > 0 && !d->o.forced_open) { /* the thinking-off prompt's empty block */
        d->pos = p + sp->close.n;
        return 0;
    }
    return d->o.forced_open ? 1 : 0;
}

/* A calls opener in the block waits at t->held: a closer after it makes it
 * reasoning text; the end of the output, the block's end. */
static tw_status think_hold(tw_dl *d, tw_dl_think *t, const tw_dl_think_spec *sp, bool final,
                            tw_dl_think_end *end, uint64_t *at)
{
    if (tw_dl_find(d, t->held, &t->resume, &sp->close, 1, final, at, NULL) == TW_DL_FOUND) {
        t->until = *at;
        t->hold = false;
        t->resume = 0;
        d->pos = t->held;
        *end = TW_DL_THINK_ON;
        return TW_OK;
    }
    if (!final)
        return TW_OK;
    tw_dl_gap(d, TW_DL_THINKING);
    t->hold = false;
    t->resume = 0;
    *at = t->held;
    *end = TW_DL_THINK_CALLS;
    return tw_dl_think_implicit(d, t->held, sp->implicit_msg);
}

/* unterminated=direct: whether the block from d->pos is reasoning (a closer
 * ends it) or the answer (the output ends first) is known only then; until
 * then nothing of it is sent. */
static tw_status think_direct(tw_dl *d, tw_dl_think *t, const tw_dl_think_spec *sp, bool final,
                              tw_dl_think_end *end)
{
    uint64_t at;
    if (tw_dl_find(d, d->pos, &t->resume, &sp->close, 1, final, &at, NULL) == TW_DL_FOUND) {
        t->until = at;
        t->closed_known = true;
        t->resume = 0;
        *end = TW_DL_THINK_ON;
        return TW_OK;
    }
    if (!final)
        return TW_OK;
    /* never closed: a direct answer, read as content (calls included) */
    t->resume = 0;
    *end = TW_DL_THINK_CONTENT;
    return tw_dl_think_unterminated(d, t, NULL);
}

tw_status tw_dl_think_step(tw_dl *d, tw_dl_think *t, const tw_dl_think_spec *sp, bool final,
                           tw_dl_think_end *end, uint64_t *at)
{
    *end = TW_DL_THINK_WAIT;
    if (t->hold)
        return think_hold(d, t, sp, final, end, at);
    if (d->o.unterminated == TW_UNTERM_DIRECT && !t->closed_known)
        return think_direct(d, t, sp, final, end);
    const tw_dl_mark marks[3] = {sp->close, sp->calls, sp->eos};
    size_t w;
    tw_status st = chan_text(d, TW_DL_THINKING, &t->resume, marks, 3, final, at, &w);
    if (st != TW_OK || w == 3)
        return st;
    *end = TW_DL_THINK_ON;
    t->resume = 0;
    if (w == 2) { /* the end of sentence */
        d->pos = *at + sp->eos.n;
    } else if (w == 0) {
        tw_dl_gap(d, TW_DL_THINKING);
        d->pos = *at + sp->close.n;
        *end = TW_DL_THINK_CONTENT;
    } else if (*at < t->until) { /* a closer follows: reasoning text */
        st = tw_dl_text(d, TW_DL_THINKING, *at, sp->calls.n);
        d->pos = *at + sp->calls.n;
    } else {
        t->held = *at;
        t->hold = true;
    }
    return st;
}

/* ===================== the end of the turn ===================== */

tw_status tw_dl_after_end(tw_dl *d, bool *warned, const char *msg)
{
    uint64_t end = tw_dl_end(d);
    for (uint64_t p = d->pos; p < end && !*warned; p++)
        if (!tw_dl_space(*tw_dl_at(d, p))) {
            *warned = true;
            tw_status st = tw_dl_diag(d, false, TW_D_TOOL_RESULT_IN_OUTPUT, (int64_t)p, msg);
            if (st != TW_OK)
                return st;
        }
    d->pos = end;
    return TW_OK;
}

/* ===================== the decoder ===================== */

static void setup(tw_dl *d, const tw_dialect *dia, const tw_decode_opts *o, tw_event_fn fn,
                  void *user)
{
    memset((char *)d, 0, dia->size);
    TW_DECODER_SETUP(d, o, fn, user);
    d->dia = dia;
    tw_result_init(&d->res, &d->L);
    if (dia->start)
        dia->start(d);
}

void *tw_dl_new(const tw_dialect *dia, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_dl *d = tw_malloc(dia->size);
    if (d)
        setup(d, dia, o, fn, user);
    return d;
}

static void release(tw_dl *d)
{
    tw_result_free(&d->res);
    tw_buf_free(&d->in);
    tw_buf_free(&d->out[0].ws);
    tw_buf_free(&d->out[1].ws);
}

void tw_dl_free(void *p)
{
    tw_dl *d = p;
    if (!d)
        return;
    release(d);
    tw_free(d);
}

tw_status tw_dl_reset(void *p, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_dl *d = p;
    tw_buf *b[3] = {&d->in, &d->out[0].ws, &d->out[1].ws}, keep[3];
    tw_bufs_detach(b, keep, 3);
    release(d);
    setup(d, d->dia, o, fn, user);
    tw_bufs_attach(b, keep, 3);
    return TW_OK;
}

void tw_dl_recycle(void *d, tw_result *r)
{
    (void)d;
    if (!r) /* nothing handed back */
        return;
    tw_result_free(r);
    memset(r, 0, sizeof *r);
}

/* Drop the read bytes once they are at least half of what is held. */
static void compact(tw_dl *d)
{
    size_t done = (size_t)(d->pos - d->base);
    if (done == 0 || done < d->in.len / 2)
        return;
    memmove(d->in.data, d->in.data + done, d->in.len - done);
    d->in.len -= done;
    d->in.data[d->in.len] = '\0';
    d->base = d->pos;
}

tw_status tw_dl_feed(void *p, const char *buf, size_t len)
{
    tw_dl *d = p;
    if (d->finished)
        return TW_ERR_STATE;
    if (d->stop != TW_OK)
        return d->stop;
    len = tw_input_clip(&d->L, d->fed, len, &d->too_large);
    if (len == 0)
        return TW_OK;
    tw_status st = tw_buf_append(&d->in, buf, len);
    d->fed += len;
    if (st == TW_OK)
        st = d->dia->scan(d, false);
    if (st == TW_OK)
        compact(d);
    if (st != TW_OK && d->stop == TW_OK)
        d->stop = st; /* a failure ends the decode */
    return st == TW_OK ? d->stop : st;
}

tw_status tw_dl_finish(void *p, tw_result *out)
{
    tw_dl *d = p;
    if (d->finished) {
        tw_result_init(out, &d->L);
        return TW_ERR_STATE;
    }
    d->finished = true;
    tw_status st = d->stop;
    if (st == TW_OK)
        st = d->dia->scan(d, true);
    if (st == TW_OK && d->dia->end)
        st = d->dia->end(d);
    if (st == TW_OK) {
        tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
        st = tw_wire_close(&k, d->too_large);
    }
    if (st == TW_OK)
        st = tw_wire_set_finish(&d->res, TW_OK,
                                tw_text_finish_reason(d->res.msg.ncalls, d->o.finish));
    if (st == TW_OK)
        st = d->stop;
    if (st == TW_OK) {
        *out = d->res;
        memset(&d->res, 0, sizeof d->res);
    } else {
        tw_result_init(out, &d->L);
    }
    return st;
}

static tw_status batch_feed(void *s, const char *b, size_t n)
{
    return tw_dl_feed(s, b, n);
}

static tw_status batch_finish(void *s, tw_result *out)
{
    return tw_dl_finish(s, out);
}

static void batch_release(void *s)
{
    release(s);
}

tw_status tw_dl_decode(const tw_dialect *dia, const char *buf, size_t len, const tw_decode_opts *o,
                       tw_result *out)
{
    tw_dl *d = tw_malloc(dia->size);
    if (!d) {
        tw_limits L;
        tw_limits_resolve(&L, o ? &o->limits : NULL);
        tw_result_init(out, &L);
        return TW_ERR_NOMEM;
    }
    setup(d, dia, o, NULL, NULL);
    tw_status st =
        tw_decode_batch_capped(o, d, TW_OK, batch_feed, batch_finish, batch_release, buf, len, out);
    tw_free(d);
    return st;
}
