/*
 * The call layer of the text decoders: finds tool-call blocks in the public
 * text, collects their bytes (within the block cap) and decides each block,
 * by its JSON payload (text_payload.c) or by the Qwen3-Coder XML reader
 * (text_qwen.c); the rest is content (docs/text-formats.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "formats.h"
#include "hash.h"
#include "text_layers.h"
#include "utf8.h"
#include "wire_common.h"
#include "work.h"
#include "toolwire/decode.h"

/* ===================== the call layer ===================== */

void tw_text_block_reset(tw_text_dec *d)
{
    d->calls.state = TW_BLOCK_OUTSIDE;
    tw_buf_reset(&d->calls.blk);
    tw_buf_reset(&d->calls.seg);
    d->calls.oversize = false;
    d->calls.lit = NPOS;
    d->calls.lit_scan = 0;
    d->calls.tail_len = 0;
    d->calls.json.phase = TW_JP_PRE;
    d->calls.json.pos = 0;
    d->calls.json.vstart = d->calls.json.vend = 0;
    d->calls.json.post = 0;
    d->calls.json.too_deep = false;
    memset(&d->calls.json.scan, 0, sizeof d->calls.json.scan);
    d->qwen.state = TW_Q_OUT;
    d->qwen.pos = d->qwen.scan = 0;
    d->qwen.stray = d->qwen.cand = NPOS;
    d->qwen.nfunc = 0;
    d->qwen.tool = NULL;
    d->qwen.record = true;
    tw_buf_reset(&d->qwen.ev);
}

/* Note that the next bytes appended to calls.blk start at input offset off. */
static tw_status seg_note(tw_text_dec *d, uint64_t off)
{
    size_t n = d->calls.seg.len / sizeof(blk_seg);
    if (n) {
        blk_seg last;
        memcpy(&last, d->calls.seg.data + (n - 1) * sizeof last, sizeof last);
        if (last.off + (d->calls.blk.len - last.idx) == off)
            return TW_OK;
    }
    blk_seg sg = {d->calls.blk.len, off};
    return tw_buf_append(&d->calls.seg, &sg, sizeof sg);
}

/* The block is decided: emit its outcome, replay bytes after its end. */
tw_status tw_text_block_done(tw_text_dec *d, size_t end, bool via_json)
{
    tw_status st;
    size_t clen;
    tw_text_closer(d, &clen);
    if (d->kind == TW_TEXT_QWEN_XML) {
        /* read by the XML reader, or cut at the block cap */
        if (via_json) {
            st = tw_text_q_decode(d);
        } else {
            char m[128];
            snprintf(m, sizeof m, "tool call block exceeds %zu bytes", d->calls.cap);
            st = tw_text_add_diag(d, true, TW_D_ARGS_TOO_LARGE, d->calls.block_off, m);
        }
    } else if (via_json) {
        tw_error e;
        tw_json_lint lint;
        cJSON *v = NULL;
        const char *vp = d->calls.blk.data + d->calls.json.vstart;
        size_t vn = d->calls.json.vend - d->calls.json.vstart;
        tw_text_trim_ctl(&vp, &vn);
        tw_status ps = tw_json_parse_lint(vp, vn, d->L.max_depth, &v, &e, &lint);
        if (ps == TW_ERR_NOMEM)
            return ps;
        if (ps != TW_OK) {
            /* the scanner accepted what the parser refuses: fall back */
            tw_text_lit_advance(d);
            if (d->calls.lit == NPOS || d->calls.lit > end)
                return TW_ERR_STATE; /* cannot happen: the close tag is literal */
            return tw_text_block_done(d, d->calls.lit + clen, false);
        }
        st = tw_text_take_payload(d, v, d->calls.block_off, &lint, vn);
        cJSON_Delete(v);
    } else {
        st = tw_text_decide_payload(d, d->calls.blk.data, d->calls.lit, true, TW_D_TOOL_CALL_JSON);
    }
    d->calls.blocks++;
    /* bytes after the block's end go back through the layer, run by run,
     * each with its own offset; copied first (calls.blk takes them and the
     * blocks they open) into the spare buffer the decoder keeps, taken out
     * while in use, as a block among them replays its own bytes in turn */
    size_t rest = d->calls.blk.len - end;
    tw_buf held = {0};
    blk_seg seg_local[8], *segs = seg_local;
    size_t nseg = d->calls.seg.len / sizeof(blk_seg);
    if (st == TW_OK && rest) {
        held = d->calls.spare;
        memset(&d->calls.spare, 0, sizeof d->calls.spare);
        tw_buf_reset(&held);
        st = tw_buf_append(&held, d->calls.blk.data + end, rest);
        if (st == TW_OK && nseg > sizeof seg_local / sizeof seg_local[0]) {
            segs = tw_malloc(nseg * sizeof *segs);
            if (!segs) {
                segs = seg_local;
                st = TW_ERR_NOMEM;
            }
        }
        if (st == TW_OK)
            memcpy(segs, d->calls.seg.data, nseg * sizeof *segs);
    }
    size_t total = d->calls.blk.len;
    tw_text_block_reset(d);
    for (size_t k = 0; st == TW_OK && rest && k < nseg; k++) {
        size_t a = segs[k].idx, b = k + 1 < nseg ? segs[k + 1].idx : total;
        if (b <= end)
            continue;
        if (a < end)
            a = end;
        st = tw_text_calls_feed(d, held.data + (a - end), b - a, segs[k].off + (a - segs[k].idx));
    }
    if (segs != seg_local)
        tw_free(segs);
    if (held.data && !d->calls.spare.data) {
        tw_buf_reset(&held);
        d->calls.spare = held;
    } else {
        tw_buf_free(&held);
    }
    return st;
}

/* Try to decide the open block with what is buffered. */
static tw_status block_step(tw_text_dec *d)
{
    size_t clen;
    tw_text_closer(d, &clen);
    if (d->kind == TW_TEXT_QWEN_XML) {
        tw_status st = tw_text_q_advance(d, false);
        if (st == TW_OK && d->qwen.state == TW_Q_DONE)
            st = tw_text_block_done(d, d->qwen.end, true);
        return st;
    }
    tw_text_jpath_advance(d);
    if (d->calls.json.phase == TW_JP_DONE)
        return tw_text_block_done(d, d->calls.json.pos, true);
    if (d->calls.json.phase < TW_JP_DONE && d->calls.blk.len >= d->calls.cap) {
        d->calls.json.phase = TW_JP_FAILED; /* too large to be a call by the JSON-aware rule */
    }
    if (d->calls.json.phase == TW_JP_FAILED) {
        tw_text_lit_advance(d);
        if (d->calls.lit != NPOS && !(d->calls.oversize))
            return tw_text_block_done(d, d->calls.lit + clen, false);
    }
    return TW_OK;
}

/* Oversize block: bytes are no longer kept; look for the literal close only. */
static tw_status oversize_feed(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    size_t clen;
    const char *close = tw_text_closer(d, &clen);
    /* the tail and the start of p may hold the close tag across the seam */
    char seam[32];
    size_t t = d->calls.tail_len;
    size_t k = n < clen - 1 ? n : clen - 1;
    memcpy(seam, d->calls.tail, t);
    memcpy(seam + t, p, k);
    const char *f = tw_memmem(seam, t + k, close, clen);
    size_t end_in_p = NPOS;
    if (f)
        end_in_p = (size_t)(f - seam) + clen - t;
    else {
        f = tw_memmem(p, n, close, clen);
        if (f)
            end_in_p = (size_t)(f - p) + clen;
    }
    if (end_in_p == NPOS) {
        /* keep the last clen-1 bytes */
        char nt[32];
        size_t total = t + n;
        size_t keep = total < clen - 1 ? total : clen - 1;
        for (size_t i = 0; i < keep; i++) {
            size_t src = total - keep + i;
            nt[i] = src < t ? d->calls.tail[src] : p[src - t];
        }
        memcpy(d->calls.tail, nt, keep);
        d->calls.tail_len = keep;
        return TW_OK;
    }
    char m[128];
    snprintf(m, sizeof m, "tool call block exceeds %zu bytes", d->calls.cap);
    tw_status st = tw_text_add_diag(d, true, TW_D_ARGS_TOO_LARGE, d->calls.block_off, m);
    d->calls.blocks++;
    tw_text_block_reset(d);
    if (st == TW_OK && end_in_p < n)
        st = tw_text_calls_feed(d, p + end_in_p, n - end_in_p, off + end_in_p);
    return st;
}

static tw_status block_feed_piece(tw_text_dec *d, const char *p, size_t n, uint64_t off);

/*
 * Bytes of an open block. They are taken in pieces no larger than the block
 * so far (at least 256), so when the block ends inside a piece the bytes
 * replayed after it are bounded by the block's own size: linear overall.
 */
static tw_status block_feed(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    while (n) {
        if (d->calls.state != TW_BLOCK_INSIDE)
            return tw_text_calls_feed(d, p, n, off);
        size_t piece = d->calls.blk.len > 256 ? d->calls.blk.len : 256;
        if (d->calls.oversize || piece > n)
            piece = n;
        tw_status st = block_feed_piece(d, p, piece, off);
        if (st != TW_OK)
            return st;
        p += piece;
        n -= piece;
        off += piece;
    }
    return TW_OK;
}

static tw_status block_feed_piece(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    if (d->calls.oversize)
        return oversize_feed(d, p, n, off);
    if (d->calls.blk.len + n > d->calls.cap) {
        /* keep up to the cap, decide with that if possible, else go oversize */
        size_t room = d->calls.cap - d->calls.blk.len;
        tw_status st = seg_note(d, off);
        if (st == TW_OK)
            st = tw_buf_append(&d->calls.blk, p, room);
        if (st != TW_OK)
            return st;
        st = block_step(d);
        if (st != TW_OK || d->calls.state == TW_BLOCK_OUTSIDE) {
            /* decided: the rest of p follows the replayed bytes */
            if (st == TW_OK && room < n)
                st = tw_text_calls_feed(d, p + room, n - room, off + room);
            return st;
        }
        /* not decided within the cap: the JSON-aware path has failed and no
         * literal close was seen; refuse once the close arrives */
        tw_text_lit_advance(d);
        if (d->calls.lit != NPOS) {
            size_t clen;
            tw_text_closer(d, &clen);
            st = tw_text_block_done(d, d->calls.lit + clen, false);
            if (st == TW_OK && room < n)
                st = tw_text_calls_feed(d, p + room, n - room, off + room);
            return st;
        }
        d->calls.oversize = true;
        size_t clen;
        tw_text_closer(d, &clen);
        size_t keep = d->calls.blk.len < clen - 1 ? d->calls.blk.len : clen - 1;
        memcpy(d->calls.tail, d->calls.blk.data + d->calls.blk.len - keep, keep);
        d->calls.tail_len = keep;
        tw_buf_reset(&d->calls.blk);
        return oversize_feed(d, p + room, n - room, off + room);
    }
    tw_status st = seg_note(d, off);
    if (st == TW_OK)
        st = tw_buf_append(&d->calls.blk, p, n);
    if (st != TW_OK)
        return st;
    return block_step(d);
}

/*
 * A block that opened at the start of p and ends within p, decided in one
 * pass over p itself: when p, past the whitespace the JSON-aware path
 * skips, starts an object or array that tw_json_parse_prefix reads (RFC
 * 8259 text within max_depth) and the close tag follows as that path
 * wants it, within the block cap, the block is the JSON-aware path's
 * decision (its scanner ends such a value at the same bracket and its
 * parser gives the same tree), without copying the block, scanning it and
 * parsing it again. *took is the bytes of p the block took, 0 when it is
 * left to the buffered path (any other payload, or the end not in p).
 */
static tw_status block_direct(tw_text_dec *d, const char *p, size_t n, size_t *took)
{
    *took = 0;
    if (d->kind == TW_TEXT_QWEN_XML || d->calls.blk.len || d->calls.oversize ||
        d->calls.json.phase != TW_JP_PRE)
        return TW_OK;
    size_t lim = n < d->calls.cap ? n : d->calls.cap, i = 0;
    while (i < lim && tw_is_space((unsigned char)p[i]))
        i++;
    if (i == lim || (p[i] != '{' && p[i] != '['))
        return TW_OK;
    cJSON *v;
    size_t used;
    if (!tw_json_parse_prefix(p + i, lim - i, d->L.max_depth, &v, &used))
        return TW_OK;
    /* what TW_JP_POST takes: whitespace and ``` fences (Hermes), then the tag */
    size_t clen, j = i + used, post = 0;
    const char *close = tw_text_closer(d, &clen);
    while (j < lim && post < clen) {
        unsigned char c = (unsigned char)p[j];
        if (post == 0 && tw_is_space(c)) {
            j++;
        } else if (post == 0 && c == '`' && d->kind != TW_TEXT_FENCED) {
            if (lim - j < 3 || memcmp(p + j, "```", 3) != 0)
                break;
            j += 3;
        } else if (c == (unsigned char)close[post]) {
            post++;
            j++;
        } else {
            break;
        }
    }
    if (post < clen) {
        cJSON_Delete(v);
        return TW_OK;
    }
    tw_json_lint lint = {0};
    lint.nul_offset = -1;
    lint.nonstd_offset = -1;
    tw_status st = tw_text_take_payload(d, v, d->calls.block_off, &lint, used);
    cJSON_Delete(v);
    d->calls.blocks++;
    tw_text_block_reset(d);
    *took = j;
    return st;
}

/* A block opened: --bare-json no longer applies; release held content. */
static tw_status bare_release(tw_text_dec *d)
{
    if (!d->calls.bare.hold)
        return TW_OK;
    d->calls.bare.hold = false;
    tw_status st = tw_text_emit_content(d, d->calls.bare.buf.data ? d->calls.bare.buf.data : "",
                                        d->calls.bare.buf.len, d->calls.bare.off);
    tw_buf_free(&d->calls.bare.buf);
    return st;
}

/* Hold bytes of a possible opener, each with its own offset. */
static tw_status hold_bytes(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    size_t h = d->calls.hold.len;
    for (size_t i = 0; i < n && h + i < 16; i++)
        d->calls.hold_offs[h + i] = off + i;
    return tw_buf_append(&d->calls.hold, p, n);
}

/* An opener was recognised; the block starts after it. */
static tw_status open_block(tw_text_dec *d, int64_t at)
{
    d->calls.block_off = at;
    tw_text_block_reset(d);
    d->calls.state = TW_BLOCK_INSIDE;
    return bare_release(d);
}

/* Public text into the call layer. `off` is the offset of p[0]. */
tw_status tw_text_calls_feed(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    if (d->kind == TW_TEXT_THINK)
        return tw_text_emit_content(d, p, n, off);
    /* more bytes of a block under way (one piece of block_feed's size; the
     * one-pass decision of block_direct applies to a block's first bytes
     * only): straight to the block, as the loop below would take them */
    if (d->calls.state == TW_BLOCK_INSIDE && (d->calls.blk.len || d->calls.oversize) &&
        n <= (d->calls.blk.len > 256 ? d->calls.blk.len : 256))
        return block_feed_piece(d, p, n, off);
    size_t olen;
    const char *open = tw_text_opener(d, &olen);
    /* fenced openers need one byte after them (not a name character) */
    size_t need = olen + (d->kind == TW_TEXT_FENCED ? 1 : 0);
    tw_status st = TW_OK;
    while (n && st == TW_OK) {
        if (d->calls.state == TW_BLOCK_INSIDE) {
            size_t took;
            st = block_direct(d, p, n, &took);
            if (st != TW_OK || !took)
                return st == TW_OK ? block_feed(d, p, n, off) : st;
            p += took;
            n -= took;
            off += took;
            continue;
        }
        if (d->calls.hold.len) {
            /* a partial opener is held: extend it up to `need` bytes */
            size_t take = need - d->calls.hold.len;
            if (take > n)
                take = n;
            st = hold_bytes(d, p, take, off);
            if (st != TW_OK)
                return st;
            size_t h = d->calls.hold.len;
            size_t cmp = h < olen ? h : olen;
            bool prefix = memcmp(d->calls.hold.data, open, cmp) == 0;
            if (prefix && h < need)
                return TW_OK; /* still undecided: all of p was taken */
            if (prefix && (d->kind != TW_TEXT_FENCED ||
                           !tw_text_ident_char((unsigned char)d->calls.hold.data[olen]))) {
                char look[2];
                size_t extra = h - olen; /* fenced: the lookahead byte, part of the block */
                memcpy(look, d->calls.hold.data + olen, extra);
                uint64_t look_off = extra ? d->calls.hold_offs[olen] : 0;
                tw_buf_reset(&d->calls.hold);
                st = open_block(d, (int64_t)d->calls.hold_offs[0]);
                if (st == TW_OK && extra)
                    st = tw_text_calls_feed(d, look, extra, look_off);
                p += take;
                n -= take;
                off += take;
                continue;
            }
            /* not an opener: the first held byte is text; the other held
             * bytes are read again, each at its own offset, then p */
            char tmp[24];
            uint64_t toffs[16];
            size_t hl = h - take; /* the bytes taken from p are re-read from p */
            memcpy(tmp, d->calls.hold.data, hl);
            memcpy(toffs, d->calls.hold_offs, hl * sizeof toffs[0]);
            tw_buf_reset(&d->calls.hold);
            st = tw_text_emit_content(d, tmp, 1, toffs[0]);
            for (size_t k = 1; st == TW_OK && k < hl; k++)
                st = tw_text_calls_feed(d, tmp + k, 1, toffs[k]);
            continue; /* p unchanged */
        }
        const char *lt = memchr(p, open[0], n);
        if (!lt)
            return tw_text_emit_content(d, p, n, off);
        size_t i = (size_t)(lt - p);
        if (i) {
            st = tw_text_emit_content(d, p, i, off);
            if (st != TW_OK)
                return st;
        }
        size_t avail = n - i;
        size_t cmp = avail < olen ? avail : olen;
        if (memcmp(lt, open, cmp) != 0 || (avail >= need && d->kind == TW_TEXT_FENCED &&
                                           tw_text_ident_char((unsigned char)lt[olen]))) {
            st = tw_text_emit_content(d, lt, 1, off + i);
            p = lt + 1;
            n = avail - 1;
            off += i + 1;
            continue;
        }
        if (avail < need)
            return hold_bytes(d, lt, avail, off + i);
        st = open_block(d, (int64_t)(off + i));
        p = lt + olen;
        n = avail - olen;
        off += i + olen;
    }
    return st;
}

/* End of public text: resolve a held opener and an open block. */
tw_status tw_text_calls_finish(tw_text_dec *d)
{
    tw_status st = TW_OK;
    if (d->kind == TW_TEXT_THINK)
        return TW_OK;
    if (d->calls.hold.len) {
        char tmp[24];
        size_t hl = d->calls.hold.len;
        memcpy(tmp, d->calls.hold.data, hl);
        tw_buf_reset(&d->calls.hold);
        if (d->kind == TW_TEXT_FENCED && hl >= SLEN(FENCED_OPEN) &&
            memcmp(tmp, FENCED_OPEN, SLEN(FENCED_OPEN)) == 0) {
            /* "```tool_call" at the very end: an opener with nothing after it */
            st = open_block(d, (int64_t)d->calls.hold_offs[0]);
        } else {
            st = tw_text_emit_content(d, tmp, hl, d->calls.hold_offs[0]);
        }
    }
    if (st != TW_OK || d->calls.state == TW_BLOCK_OUTSIDE)
        return st;
    size_t clen;
    tw_text_closer(d, &clen);
    if (d->calls.oversize) {
        d->calls.blocks++;
        tw_text_block_reset(d);
        if (d->o.finish == TW_FINISH_STOP)
            return tw_text_add_diag(d, true, TW_D_TOOL_CALL_UNTERMINATED, d->calls.block_off, NULL);
        return tw_text_add_diag(d, true, TW_D_ARGS_TOO_LARGE, d->calls.block_off,
                                "unterminated tool call block exceeds the block cap");
    }
    if (d->kind == TW_TEXT_QWEN_XML)
        return tw_text_q_finish(d);
    tw_text_lit_advance(d);
    if (d->calls.lit != NPOS)
        return tw_text_block_done(d, d->calls.lit + clen, false);
    /* unterminated */
    const char *pl = d->calls.blk.data ? d->calls.blk.data : "";
    size_t pn = d->calls.blk.len;
    if (d->calls.json.phase == TW_JP_POST) {
        pl = d->calls.blk.data + d->calls.json.vstart;
        pn = d->calls.json.vend - d->calls.json.vstart;
    }
    d->calls.blocks++;
    switch (d->o.finish) {
    case TW_FINISH_STOP_SEQUENCE:
        st = tw_text_decide_payload(d, pl, pn, true, TW_D_TOOL_CALL_JSON);
        break;
    case TW_FINISH_LENGTH: {
        tw_error why;
        tw_json_lint lint;
        cJSON *v;
        st = tw_text_parse_payload(d, pl, pn, false, &v, &why, &lint);
        if (st != TW_OK)
            break;
        bool deep = !v && why.code == TW_D_JSON_TOO_DEEP;
        if (v) {
            st = tw_text_take_payload(d, v, d->calls.block_off, &lint, pn);
            cJSON_Delete(v);
        } else {
            st = tw_text_add_diag(
                d, true, deep ? TW_D_JSON_TOO_DEEP : TW_D_TOOL_CALL_UNTERMINATED,
                d->calls.block_off,
                deep ? NULL : "tool call cut by the token limit before its JSON completed");
        }
        break;
    }
    default:
        st = tw_text_add_diag(d, true, TW_D_TOOL_CALL_UNTERMINATED, d->calls.block_off, NULL);
        break;
    }
    tw_text_block_reset(d);
    return st;
}
