/* The format registry and the generic stream wrapper. */
#include "toolwire/decode.h"

#include <stdlib.h>
#include <string.h>

#include "formats.h"

static const tw_format_ops *const all_formats[] = {
#define TW_X_FORMAT(sym) &sym,
    TW_FORMAT_LIST(TW_X_FORMAT)
#undef TW_X_FORMAT
        NULL};

const tw_format_ops *const *tw_formats(void) { return all_formats; }

const tw_format_ops *tw_format_find(const char *name)
{
    for (size_t i = 0; all_formats[i]; i++)
        if (strcmp(all_formats[i]->name, name) == 0)
            return all_formats[i];
    return NULL;
}

struct tw_stream {
    const tw_format_ops *f;
    bool live;
    max_align_t state[];
};

tw_stream *tw_stream_new(const tw_format_ops *f, const tw_decode_opts *o, tw_event_fn fn,
                         void *user)
{
    tw_stream *s = calloc(1, sizeof *s + f->state_size);
    if (!s)
        return NULL;
    s->f = f;
    if (f->init(s->state, o, fn, user) != TW_OK) {
        f->release(s->state);
        free(s);
        return NULL;
    }
    s->live = true;
    return s;
}

tw_status tw_stream_feed(tw_stream *s, const char *buf, size_t len)
{
    if (!s->live)
        return TW_ERR_STATE;
    return s->f->feed(s->state, buf, len);
}

tw_status tw_stream_finish(tw_stream *s, tw_result *out)
{
    if (!s->live)
        return TW_ERR_STATE;
    s->live = false;
    return s->f->finish(s->state, out);
}

void tw_stream_free(tw_stream *s)
{
    if (!s)
        return;
    s->f->release(s->state);
    free(s);
}

tw_status tw_decode_chunked(const tw_format_ops *f, const char *buf, size_t len, size_t chunk,
                            const tw_decode_opts *o, tw_result *out)
{
    tw_stream *s = tw_stream_new(f, o, NULL, NULL);
    if (!s)
        return TW_ERR_NOMEM;
    if (chunk == 0)
        chunk = len ? len : 1;
    tw_status st = TW_OK;
    for (size_t off = 0; st == TW_OK && off < len; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        /* exact-size copy so a read past the piece is caught by sanitizers */
        char *piece = malloc(n);
        if (!piece) {
            st = TW_ERR_NOMEM;
            break;
        }
        memcpy(piece, buf + off, n);
        st = tw_stream_feed(s, piece, n);
        free(piece);
    }
    if (st == TW_OK)
        st = tw_stream_finish(s, out);
    tw_stream_free(s);
    return st;
}
