/* The base of the JSON event-stream decoders (see wire_stream.h). */
#include "alloc.h"
#include "wire_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tw_status tw_wire_stream_diag(tw_wire_stream *w, bool error, tw_status code, int64_t off,
                              const char *msg)
{
    tw_wire_sink k = tw_wire_stream_sink(w);
    return tw_wire_diag(&k, error, code, off, msg);
}

/* The tree of e's data, parsed into w's arena with max_depth + kind->depth
 * and its lint diagnostics given; on a failure nothing is left to drop. */
static tw_status parse(tw_wire_stream *w, tw_wire_event *e)
{
    tw_json_lint lint;
    e->parsed = tw_json_parse_lint_in(e->data, e->len, w->L.max_depth + w->kind->depth, &e->j,
                                      &e->err, &lint, &w->arena);
    if (e->parsed == TW_ERR_NOMEM)
        return TW_ERR_NOMEM;
    if (e->parsed != TW_OK)
        return TW_OK;
    tw_wire_sink k = tw_wire_stream_sink(w);
    tw_status st = tw_wire_lint_diags(&k, &lint, e->off, false, &w->nonstd_warned);
    if (st != TW_OK)
        tw_json_arena_drop(&w->arena, e->j);
    return st;
}

static tw_status on_sse_event(void *user, const tw_sse_event *ev)
{
    tw_wire_stream *w = user;
    const tw_wire_stream_kind *kind = w->kind;
    if (w->stop != TW_OK)
        return w->stop; /* a callback stopped the decode */
    if (!kind->read_after_end && kind->ended(w))
        return TW_OK; /* nothing after the end belongs to the message */
    w->any_event = true;
    tw_wire_event e;
    e.sse = ev;
    e.data = ev->data;
    e.len = ev->data_len;
    e.off = (int64_t)ev->offset;
    e.j = NULL;
    if (kind->done_marker) {
        tw_trim(&e.data, &e.len);
        if (e.len == 6 && memcmp(e.data, "[DONE]", 6) == 0) {
            w->done = true;
            return TW_OK;
        }
    }
    tw_status st = parse(w, &e);
    if (st != TW_OK)
        return st;
    st = kind->event(w, &e);
    tw_json_arena_drop(&w->arena, e.j);
    return st;
}

static tw_status on_sse_diag(void *user, tw_status code, uint64_t off)
{
    return tw_wire_stream_diag(user, true, code, (int64_t)off, NULL);
}

tw_status tw_wire_stream_init(tw_wire_stream *w, const tw_wire_stream_kind *kind,
                              const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    memset(w, 0, kind->size);
    TW_DECODER_SETUP(w, o, fn, user);
    w->kind = kind;
    w->head.max = w->L.max_event_bytes;
    tw_result_init(&w->res, &w->L);
    if (kind->init)
        kind->init(w);
    return tw_sse_init(&w->sse, &w->L, true, on_sse_event, on_sse_diag, w);
}

void *tw_wire_stream_new(const tw_wire_stream_kind *kind, const tw_decode_opts *o, tw_event_fn fn,
                         void *user)
{
    tw_wire_stream *w = tw_malloc(kind->size);
    if (w && tw_wire_stream_init(w, kind, o, fn, user) != TW_OK) {
        tw_wire_stream_free(w);
        w = NULL;
    }
    return w;
}

tw_status tw_wire_stream_feed(void *s, const char *buf, size_t len)
{
    tw_wire_stream *w = s;
    if (w->finished)
        return TW_ERR_STATE;
    if (w->stop != TW_OK)
        return w->stop;
    tw_status st =
        tw_wire_sse_feed(&w->sse, &w->L, &w->fed, &w->too_large, &w->head, &w->head_off, buf, len);
    return st == TW_OK ? w->stop : st;
}

tw_status tw_wire_stream_finish(void *s, tw_result *out)
{
    tw_wire_stream *w = s;
    const tw_wire_stream_kind *kind = w->kind;
    if (w->finished) {
        tw_result_init(out, &w->L); /* *out is empty on every failure */
        return TW_ERR_STATE;
    }
    w->finished = true;
    tw_wire_sink k = tw_wire_stream_sink(w);
    tw_status st = w->stop != TW_OK ? w->stop : tw_sse_finish(&w->sse);
    if (st == TW_OK && kind->close)
        st = kind->close(w);
    bool envelope = false;
    if (st == TW_OK && !w->any_event && !w->head_off)
        st = tw_wire_error_body(&k, w->head.data ? w->head.data : "", w->head.len, &envelope);
    if (st == TW_OK && !kind->ended(w) && !envelope)
        st = tw_wire_diag(&k, true, TW_D_STREAM_TRUNCATED, (int64_t)w->fed,
                          w->any_event ? kind->unended : tw_wire_no_event(&w->head));
    if (st == TW_OK)
        st = kind->end(w);
    if (st == TW_OK)
        st = tw_wire_close(&k, w->too_large);
    if (st == TW_OK)
        st = w->stop; /* a callback stopped the decode */
    if (st == TW_OK) {
        *out = w->res;
        memset(&w->res, 0, sizeof w->res);
    } else {
        tw_result_init(out, &w->L);
    }
    return st;
}

void tw_wire_stream_release(void *s)
{
    tw_wire_stream *w = s;
    tw_sse_release(&w->sse);
    if (w->kind->release)
        w->kind->release(w);
    tw_json_arena_free(&w->arena);
    tw_buf_free(&w->head);
    tw_result_free(&w->res);
}

tw_status tw_wire_stream_reset(void *s, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_wire_stream *w = s;
    const tw_wire_stream_kind *kind = w->kind;
    /* kept: the allocations of head and of the kind's buffers */
    tw_buf *b[3] = {&w->head};
    size_t n = 1;
    for (size_t i = 0; i < kind->nkeep; i++)
        b[n++] = (tw_buf *)((char *)s + kind->keep[i]);
    tw_buf keep[3];
    tw_bufs_detach(b, keep, n);
    tw_json_arena arena = w->arena; /* kept too: its largest block */
    memset(&w->arena, 0, sizeof w->arena);
    tw_wire_stream_release(w);
    tw_status st = tw_wire_stream_init(w, kind, o, fn, user);
    w->arena = arena;
    tw_bufs_attach(b, keep, n);
    return st;
}

void tw_wire_stream_free(void *s)
{
    if (!s)
        return;
    tw_wire_stream_release(s);
    tw_free(s);
}

tw_status tw_wire_stream_decode(tw_wire_stream *w, const tw_wire_stream_kind *kind, const char *buf,
                                size_t len, const tw_decode_opts *o, tw_result *out)
{
    tw_status st =
        tw_decode_batch(w, tw_wire_stream_init(w, kind, o, NULL, NULL), tw_wire_stream_feed,
                        tw_wire_stream_finish, tw_wire_stream_release, buf, len, out);
    if (st != TW_OK)
        tw_result_init(out, o ? &o->limits : NULL); /* empty: nothing to free */
    return st;
}

void *tw_wire_room(void *items, size_t *cap, size_t n, size_t sz, size_t first, size_t max)
{
    if (n < *cap)
        return items;
    size_t nc = *cap ? *cap * 2 : first;
    if (nc > max)
        nc = max;
    void *p = tw_realloc(items, nc * sz);
    if (p)
        *cap = nc;
    return p;
}

bool tw_wire_event_is(const tw_wire_event *e, const char *name)
{
    size_t n = strlen(name);
    return e->sse->type_len == n && memcmp(e->sse->type, name, n) == 0;
}

tw_status tw_wire_stream_not_object(tw_wire_stream *w, const tw_wire_event *e)
{
    char msg[200];
    snprintf(msg, sizeof msg, "%s is not a JSON object: %.150s", w->kind->what,
             e->parsed != TW_OK ? e->err.message : "another JSON value");
    return tw_wire_stream_diag(w, true, TW_D_CHUNK_JSON, e->off, msg);
}

tw_status tw_wire_stream_raw_error(tw_wire_stream *w, const tw_wire_event *e)
{
    char msg[240];
    snprintf(msg, sizeof msg, "error event: %.*s", (int)(e->len > 200 ? 200 : e->len), e->data);
    return tw_wire_stream_diag(w, true, TW_D_STREAM_ERROR, e->off, msg);
}
