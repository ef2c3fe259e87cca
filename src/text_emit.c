/*
 * What the text decoder's layers send out (text_layers.h): content, held
 * back as the think layer asks and delivered as an event, and diagnostics
 * through the shared sink (calls.h). Below every layer: no layer and not
 * text.c's entry points are used from here.
 */
#include "alloc.h"
#include "toolwire/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_layers.h"
#include "utf8.h"
#include "wire_common.h"
#include "work.h"

tw_status tw_text_add_diag(tw_text_dec *d, bool error, tw_status code, int64_t off, const char *msg)
{
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    return tw_wire_diag(&k, error, code, off, msg);
}

/* ===================== content emission ===================== */

/*
 * Append to a result buffer: one copy, in pieces of at most 256 KiB, so
 * that a long text is not copied with the cache-bypassing stores a single
 * large memcpy uses (slower into a buffer already in the cache, as a
 * recycled one is).
 */
tw_status tw_text_out_append(tw_buf *b, const char *p, size_t n)
{
    enum { PIECE = 256 * 1024 };
    if (n <= PIECE)
        return tw_buf_append(b, p, n);
    tw_status st = tw_buf_reserve(b, n);
    if (st != TW_OK)
        return st;
    for (size_t off = 0; off < n; off += PIECE)
        memcpy(b->data + b->len + off, p + off, n - off < PIECE ? n - off : PIECE);
    b->len += n;
    b->data[b->len] = '\0';
    return TW_OK;
}

static tw_status content_out(tw_text_dec *d, const char *p, size_t n)
{
    tw_status st = tw_text_out_append(&d->res.msg.content, p, n);
    if (st == TW_OK)
        tw_text_fire(d, TW_EV_CONTENT, p, n, NULL, NULL);
    return st;
}

/* Content is trimmed lazily: leading whitespace is dropped, trailing
 * whitespace is held until something else follows it. */
tw_status tw_text_emit_content(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    tw_status st = TW_OK;
    if (d->calls.bare.hold) {
        for (size_t i = 0; !d->calls.bare.nonws && i < n; i++)
            if (!tw_is_space((unsigned char)p[i])) {
                d->calls.bare.off = off + i;
                d->calls.bare.nonws = true;
            }
        return tw_buf_append(&d->calls.bare.buf, p, n);
    }
    while (n && st == TW_OK) {
        if (!d->calls.any) {
            while (n && tw_is_space((unsigned char)*p)) {
                p++;
                n--;
            }
            if (!n)
                break;
        }
        size_t end = n;
        while (end && tw_is_space((unsigned char)p[end - 1]))
            end--;
        if (end == 0) {
            st = tw_buf_append(&d->calls.ws, p, n);
            break;
        }
        if (d->calls.ws.len) {
            st = content_out(d, d->calls.ws.data, d->calls.ws.len);
            tw_buf_reset(&d->calls.ws);
        }
        if (st == TW_OK)
            st = content_out(d, p, end);
        d->calls.any = true;
        if (st == TW_OK && end < n)
            st = tw_buf_append(&d->calls.ws, p + end, n - end);
        break;
    }
    return st;
}

/* ===================== public API ===================== */

/* The input offset of calls.blk[idx]. */
uint64_t tw_text_blk_input_off(const tw_text_dec *d, size_t idx)
{
    size_t n = d->calls.seg.len / sizeof(blk_seg);
    blk_seg sg = {0, d->calls.block_off};
    for (size_t k = 0; k < n; k++) {
        blk_seg x;
        memcpy(&x, d->calls.seg.data + k * sizeof x, sizeof x);
        if (x.idx > idx)
            break;
        sg = x;
    }
    return sg.off + (idx - sg.idx);
}
