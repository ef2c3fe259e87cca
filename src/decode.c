/* The generic stream wrapper over any registered decoder (the registry is
 * in registry.c). */
#include "alloc.h"
#include "toolwire/decode.h"

#include <stdlib.h>
#include <string.h>

struct tw_stream {
    const tw_format_ops *f;
    void *d;          /* the decoder (f->new_dec) */
    bool live;        /* between new or reset and finish */
    tw_limits limits; /* for an empty *out when finish cannot run */
};

tw_stream *tw_stream_new(const tw_format_ops *f, const tw_decode_opts *o, tw_event_fn fn,
                         void *user)
{
    tw_stream *s = tw_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->f = f;
    tw_limits_resolve(&s->limits, o ? &o->limits : NULL);
    s->d = f->new_dec(o, fn, user);
    if (!s->d) {
        tw_free(s);
        return NULL;
    }
    s->live = true;
    return s;
}

tw_status tw_stream_feed(tw_stream *s, const char *buf, size_t len)
{
    if (!s->live)
        return TW_ERR_STATE;
    return s->f->feed(s->d, buf, len);
}

tw_status tw_stream_finish(tw_stream *s, tw_result *out)
{
    if (!s->live) {
        tw_result_init(out, &s->limits);
        return TW_ERR_STATE;
    }
    s->live = false;
    return s->f->finish(s->d, out);
}

tw_status tw_stream_reset(tw_stream *s, const tw_decode_opts *o, tw_event_fn fn, void *user)
{
    tw_limits_resolve(&s->limits, o ? &o->limits : NULL);
    tw_status st = s->f->reset(s->d, o, fn, user);
    s->live = st == TW_OK;
    return st;
}

void tw_stream_recycle(tw_stream *s, tw_result *r)
{
    s->f->recycle(s->d, r);
}

void tw_format_recycle_free(void *d, tw_result *r)
{
    (void)d;
    if (r)
        tw_result_free(r);
}

void tw_stream_free(tw_stream *s)
{
    if (!s)
        return;
    s->f->free_dec(s->d);
    tw_free(s);
}

tw_status tw_decode_chunked(const tw_format_ops *f, const char *buf, size_t len, size_t chunk,
                            const tw_decode_opts *o, tw_result *out)
{
    tw_stream *s = tw_stream_new(f, o, NULL, NULL);
    if (!s) {
        tw_result_init(out, o ? &o->limits : NULL);
        return TW_ERR_NOMEM;
    }
    if (chunk == 0)
        chunk = len ? len : 1;
    tw_status st = TW_OK;
    for (size_t off = 0; st == TW_OK && off < len; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        /* exact-size copy so a read past the piece is caught by sanitizers */
        char *piece = tw_malloc(n);
        if (!piece) {
            st = TW_ERR_NOMEM;
            break;
        }
        memcpy(piece, buf + off, n);
        st = tw_stream_feed(s, piece, n);
        tw_free(piece);
    }
    if (st == TW_OK)
        st = tw_stream_finish(s, out);
    else
        tw_result_init(out, &s->limits); /* *out is empty on every failure */
    tw_stream_free(s);
    return st;
}
