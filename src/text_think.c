/*
 * The think layer of the text decoders: splits <think>/<thinking> blocks
 * out of the raw bytes, emits their text as thinking and passes the public
 * text on to the call layer (docs/text-formats.md).
 */
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

static const char OPEN_THINK[] = "<think>";
static const char OPEN_THINKING[] = "<thinking>";
static const char CLOSE_THINK[] = "</think>";
static const char CLOSE_THINKING[] = "</thinking>";

static tw_status thinking_out(tw_text_dec *d, const char *p, size_t n)
{
    tw_status st = tw_text_out_append(&d->res.msg.thinking, p, n);
    if (st == TW_OK)
        tw_text_fire(d, TW_EV_THINKING, p, n, NULL, NULL);
    return st;
}

/* Per block: leading whitespace dropped, trailing held; non-empty blocks
 * are joined with "\n". `closes`: p ends the block, so its trailing
 * whitespace is skipped, never held. */
static tw_status emit_thinking(tw_text_dec *d, const char *p, size_t n, bool closes)
{
    tw_status st = TW_OK;
    if (!d->think.block) {
        while (n && tw_is_space((unsigned char)*p)) {
            p++;
            n--;
        }
        if (!n)
            return TW_OK;
    }
    size_t end = n;
    while (end && tw_is_space((unsigned char)p[end - 1]))
        end--;
    if (end == 0)
        return closes ? TW_OK : tw_buf_append(&d->think.ws, p, n);
    if (!d->think.block) {
        if (d->think.any)
            st = thinking_out(d, "\n", 1);
        d->think.block = true;
        d->think.any = true;
    } else if (d->think.ws.len) {
        st = thinking_out(d, d->think.ws.data, d->think.ws.len);
    }
    tw_buf_reset(&d->think.ws);
    if (st == TW_OK)
        st = thinking_out(d, p, end);
    if (st == TW_OK && end < n && !closes)
        st = tw_buf_append(&d->think.ws, p + end, n - end);
    return st;
}

static void end_thinking_block(tw_text_dec *d)
{
    d->think.block = false;
    tw_buf_reset(&d->think.ws);
}

/* ===================== the think layer ===================== */

static bool tag_enabled(const tw_text_dec *d, int tag)
{
    unsigned m = d->o.think_tags ? d->o.think_tags : (TW_TAG_THINK | TW_TAG_THINKING);
    return (m & (unsigned)tag) != 0;
}

static tw_status think_open(tw_text_dec *d, tw_think_tag tag, size_t raw_at, size_t text_at)
{
    d->think.state = TW_THINK_INSIDE;
    d->think.tag = tag;
    d->think.raw_start = raw_at;
    d->think.text_start = text_at;
    d->think.scan = text_at;
    d->think.call_at = NPOS;
    d->think.open_off = (int64_t)(d->think.hold_off + raw_at);
    end_thinking_block(d);
    return TW_OK;
}

/* No closing tag starts in the held bytes [run, len - 6): note them as
 * searched. */
static void clear_note(tw_text_dec *d, size_t run, size_t len)
{
    uint64_t lo = d->think.hold_off + run, hi = d->think.hold_off + (len >= 6 ? len - 6 : 0);
    if (hi > lo && lo <= d->think.clear_hi && hi >= d->think.clear_lo) {
        /* overlapping or adjacent: one range */
        d->think.clear_lo = lo < d->think.clear_lo ? lo : d->think.clear_lo;
        d->think.clear_hi = hi > d->think.clear_hi ? hi : d->think.clear_hi;
    } else if (hi > lo) {
        d->think.clear_lo = lo;
        d->think.clear_hi = hi;
    }
}

/* Where the closing-tag search resumes: think.scan, past the bytes already
 * searched to no avail (when a block opens inside them after another was
 * resolved at the end of input), which are not searched again. */
static size_t close_from(const tw_text_dec *d)
{
    size_t from = d->think.scan;
    uint64_t abs = d->think.hold_off + from;
    if (abs >= d->think.clear_lo && abs < d->think.clear_hi)
        from = (size_t)(d->think.clear_hi - d->think.hold_off);
    return from;
}

/* Find the block's closing tag in think.hold from think.scan. Returns its index and
 * length, or NPOS. */
static size_t find_close(tw_text_dec *d, size_t *taglen)
{
    const char *h = tw_text_hdata(d);
    size_t len = tw_text_hlen(d);
    size_t from = close_from(d);
    size_t run = from; /* no closing tag of either kind starts in [run, from) */
    size_t from0 = from;
    bool any = false; /* a '<' in [from0, len) */
    d->think.nolt = NPOS;
    for (;;) {
        const char *f = tw_text_find_tag_any(h + from, len - from, "</think", 7, &any);
        if (!f) {
            clear_note(d, run, len);
            if (!any)
                d->think.nolt = from0;
            break;
        }
        size_t at = (size_t)(f - h);
        size_t rest = len - at;
        bool is_think = rest >= SLEN(CLOSE_THINK) && memcmp(f, CLOSE_THINK, SLEN(CLOSE_THINK)) == 0;
        bool is_thinking =
            rest >= SLEN(CLOSE_THINKING) && memcmp(f, CLOSE_THINKING, SLEN(CLOSE_THINKING)) == 0;
        if ((d->think.tag & TW_THINK_TAG_THINK) && is_think) {
            *taglen = SLEN(CLOSE_THINK);
            return at;
        }
        if ((d->think.tag & TW_THINK_TAG_THINKING) && is_thinking) {
            *taglen = SLEN(CLOSE_THINKING);
            return at;
        }
        if (rest < SLEN(CLOSE_THINKING)) {
            /* may still become a closing tag: rescan from here next time */
            d->think.scan = at;
            return NPOS;
        }
        if (is_think || is_thinking)
            run = at + 1; /* the other kind's closing tag */
        from = at + 1;
    }
    d->think.scan = len >= 6 ? len - 6 : 0; /* "</thin" may straddle the next feed */
    if (d->think.scan < d->think.text_start)
        d->think.scan = d->think.text_start;
    return NPOS;
}

/* Forced-open start: drop whitespace and one repeated opening tag. Returns
 * false while the start is undecided. */
bool tw_text_forced_start(tw_text_dec *d, bool final)
{
    const char *h = tw_text_hdata(d);
    size_t len = tw_text_hlen(d);
    size_t i = d->think.text_start;
    while (i < len && tw_is_space((unsigned char)h[i]))
        i++;
    if (i == len && !final)
        return false;
    size_t rest = len - i;
    const char *tags[2] = {OPEN_THINK, OPEN_THINKING};
    int bits[2] = {TW_TAG_THINK, TW_TAG_THINKING};
    for (int k = 0; k < 2; k++) {
        size_t tl = strlen(tags[k]);
        if (!tag_enabled(d, bits[k]))
            continue;
        if (rest >= tl && memcmp(h + i, tags[k], tl) == 0) {
            d->think.text_start = i + tl;
            d->think.scan = d->think.text_start;
            d->think.forced_start = false;
            return true;
        }
        if (rest < tl && memcmp(h + i, tags[k], rest) == 0 && !final)
            return false;
    }
    d->think.forced_start = false;
    return true;
}

/*
 * Public text in which the think layer found no '<': tw_text_calls_feed, without its
 * second search when that search is for '<' too. Between blocks, with no
 * partial opener held, a Hermes or Qwen3-Coder opener cannot start in it,
 * so it is content as it stands (what tw_text_calls_feed would find).
 */
static tw_status calls_feed_plain(tw_text_dec *d, const char *p, size_t n, uint64_t off)
{
    size_t olen;
    if (d->calls.state == TW_BLOCK_OUTSIDE && d->calls.hold.len == 0 &&
        tw_text_opener(d, &olen)[0] == '<')
        return tw_text_emit_content(d, p, n, off);
    return tw_text_calls_feed(d, p, n, off);
}

tw_status tw_text_think_feed(tw_text_dec *d, const char *p, size_t n)
{
    /* drop consumed bytes once per feed: what stays held is short except
     * inside a held block, where nothing is consumed until it closes */
    if (d->think.cur) {
        tw_buf_consume(&d->think.hold, d->think.cur);
        d->think.cur = 0;
    }
    if (tw_text_hlen(d) == 0) {
        /* nothing held and no '<' in p: no think tag starts or ends in it,
         * so it goes on as it stands, as tw_text_think_process below would pass it
         * (a byte fed alone in plain text or thinking costs a few calls) */
        if (!memchr(p, '<', n)) {
            if (d->think.state == TW_THINK_OUTSIDE) {
                d->think.hold_off = d->fed + n;
                return calls_feed_plain(d, p, n, d->fed);
            }
            size_t olen;
            const char *open = tw_text_opener(d, &olen);
            if (!d->think.forced_start && d->o.unterminated != TW_UNTERM_DIRECT &&
                d->think.call_at == NPOS && (open[0] == '<' || !memchr(p, open[0], n))) {
                /* inside a block: neither a closing tag nor an tw_text_opener (nor
                 * a partial one) is in p, so all of it is thinking */
                d->think.hold_off = d->fed + n;
                d->think.text_start = d->think.raw_start = d->think.scan = 0;
                return emit_thinking(d, p, n, false);
            }
        }
        /* read the caller's bytes in place and keep only what stays
         * undecided (a partial tag, an open block), so text passes through
         * with one copy, into the result */
        d->think.hold_off = d->fed;
        d->think.ext = p;
        d->think.ext_len = n;
        tw_status st = tw_text_think_process(d, false);
        size_t used = d->think.cur;
        d->think.ext = NULL;
        d->think.ext_len = 0;
        d->think.cur = 0;
        if (st == TW_OK && used < n)
            st = tw_buf_append(&d->think.hold, p + used, n - used);
        return st;
    }
    tw_status st = tw_buf_append(&d->think.hold, p, n);
    if (st != TW_OK)
        return st;
    if (d->think.state == TW_THINK_INSIDE && !d->think.forced_start &&
        (d->think.call_at != NPOS || d->o.unterminated == TW_UNTERM_DIRECT)) {
        /* a block held whole (an opener in it, or direct): unless a '<' is
         * where the closing-tag search resumes or in p, no closing tag
         * ends in it, and nothing else is decided before the end; the
         * search's bookkeeping as tw_text_think_process would leave it */
        size_t len = d->think.hold.len, from = close_from(d);
        if (!memchr(d->think.hold.data + from, '<', len - from)) {
            clear_note(d, from, len);
            d->think.scan = len >= 6 ? len - 6 : 0;
            if (d->think.scan < d->think.text_start)
                d->think.scan = d->think.text_start;
            return TW_OK;
        }
    }
    return tw_text_think_process(d, false);
}

/* Drop think.hold[0, k) and shift the indexes. */
void tw_text_hold_consume(tw_text_dec *d, size_t k)
{
    if (k == 0)
        return;
    d->think.cur += k; /* no memmove here: tw_text_think_feed compacts once per feed */
    d->think.hold_off += k;
    d->think.text_start = d->think.text_start > k ? d->think.text_start - k : 0;
    d->think.raw_start = d->think.raw_start > k ? d->think.raw_start - k : 0;
    d->think.scan = d->think.scan > k ? d->think.scan - k : 0;
    if (d->think.call_at != NPOS)
        d->think.call_at = d->think.call_at > k ? d->think.call_at - k : 0;
}

/*
 * Where, after h[0] (a '<' that opens no think block), the next think tag
 * may start: the next "<think", or a '<' near the end that may begin one,
 * else len. The bytes before it go to the call layer in one piece (a
 * tool-call block with them), as they would one '<' at a time.
 */
static size_t next_think_at(const char *h, size_t len)
{
    static const char pre[] = "<think"; /* begins <think> and <thinking> */
    const char *f = tw_text_find_tag(h + 1, len - 1, pre, SLEN(pre));
    if (f)
        return (size_t)(f - h);
    for (size_t k = len > SLEN(pre) ? len - SLEN(pre) + 1 : 1; k < len; k++)
        if (memcmp(h + k, pre, len - k) == 0)
            return k;
    return len;
}

tw_status tw_text_think_process(tw_text_dec *d, bool final)
{
    tw_status st = TW_OK;
    size_t olen;
    const char *open = tw_text_opener(d, &olen);
    while (st == TW_OK) {
        const char *h = tw_text_hdata(d);
        size_t len = tw_text_hlen(d);
        if (d->think.state == TW_THINK_OUTSIDE) {
            if (len == 0)
                return TW_OK;
            const char *lt = memchr(h, '<', len);
            if (!lt) {
                st = calls_feed_plain(d, h, len, d->think.hold_off);
                tw_text_hold_consume(d, len);
                return st;
            }
            size_t i = (size_t)(lt - h);
            if (i) {
                st = calls_feed_plain(d, h, i, d->think.hold_off);
                if (st != TW_OK)
                    return st;
                tw_text_hold_consume(d, i);
                continue;
            }
            /* h[0] == '<' */
            tw_think_tag tag = TW_THINK_TAG_NONE;
            size_t tl = 0;
            bool maybe = false;
            if (tag_enabled(d, TW_TAG_THINKING) && len >= SLEN(OPEN_THINKING) &&
                memcmp(h, OPEN_THINKING, SLEN(OPEN_THINKING)) == 0) {
                tag = TW_THINK_TAG_THINKING;
                tl = SLEN(OPEN_THINKING);
            } else if (tag_enabled(d, TW_TAG_THINK) && len >= SLEN(OPEN_THINK) &&
                       memcmp(h, OPEN_THINK, SLEN(OPEN_THINK)) == 0) {
                tag = TW_THINK_TAG_THINK;
                tl = SLEN(OPEN_THINK);
            } else if (!final) {
                if (len < SLEN(OPEN_THINKING) && memcmp(h, OPEN_THINKING, len) == 0 &&
                    tag_enabled(d, TW_TAG_THINKING))
                    maybe = true;
                if (len < SLEN(OPEN_THINK) && memcmp(h, OPEN_THINK, len) == 0 &&
                    tag_enabled(d, TW_TAG_THINK))
                    maybe = true;
            }
            if (maybe)
                return TW_OK; /* partial tag held back */
            if (!tag) {
                size_t j = next_think_at(h, len);
                st = tw_text_calls_feed(d, h, j, d->think.hold_off);
                tw_text_hold_consume(d, j);
                continue;
            }
            think_open(d, tag, 0, tl);
            continue;
        }
        /* inside a block */
        if (d->think.forced_start && !tw_text_forced_start(d, final))
            return TW_OK;
        size_t tagl = 0;
        size_t c = find_close(d, &tagl);
        if (c != NPOS) {
            st = emit_thinking(d, h + d->think.text_start, c - d->think.text_start, true);
            end_thinking_block(d);
            d->think.state = TW_THINK_OUTSIDE;
            tw_text_hold_consume(d, c + tagl);
            continue;
        }
        if (final)
            return TW_OK; /* the unterminated block is resolved by the caller */
        /* no close yet: pass thinking on, holding what may still matter */
        if (d->o.unterminated == TW_UNTERM_DIRECT)
            return TW_OK; /* direct: the block may become content; hold it */
        if (d->think.call_at == NPOS) {
            size_t from = d->think.text_start;
            /* the closing-tag search just found no '<' from think.nolt on: when
             * that covers the text and the opener starts with '<', neither
             * an opener nor a partial tag can be there */
            bool none = d->think.nolt <= from && open[0] == '<';
            const char *f = none ? NULL : tw_text_find_tag(h + from, len - from, open, olen);
            size_t upto;
            if (none) {
                upto = len;
            } else if (f) {
                d->think.call_at = (size_t)(f - h);
                upto = d->think.call_at;
            } else {
                /* keep a suffix that may start a closing tag or an opener */
                size_t keep =
                    tw_partial_suffix(h + from, len - from, CLOSE_THINKING, SLEN(CLOSE_THINKING));
                size_t k2 = tw_partial_suffix(h + from, len - from, open, olen);
                if (k2 > keep)
                    keep = k2;
                upto = len - keep;
            }
            if (upto > d->think.text_start) {
                st = emit_thinking(d, h + d->think.text_start, upto - d->think.text_start, false);
                if (st != TW_OK)
                    return st;
                /* drop what was emitted, but keep the raw start for nothing:
                 * synthesize never needs the raw bytes back */
                size_t k = upto;
                d->think.raw_start = k;
                d->think.text_start = k;
                tw_text_hold_consume(d, k);
            }
        }
        return TW_OK;
    }
    return st;
}

/* End of input inside a block: implicit end, synthesize or direct. */
tw_status tw_text_think_finish_block(tw_text_dec *d)
{
    size_t olen;
    const char *open = tw_text_opener(d, &olen);
    const char *h = tw_text_hdata(d);
    size_t len = tw_text_hlen(d);
    tw_status st = TW_OK;
    /* §1.7: the first opener that starts a complete, valid block. One pass:
     * the closing tag and the bracket each opener needs are found by
     * searches that only move forward, and once no closing tag follows,
     * no later opener can start a block. */
    size_t clen;
    const char *close = tw_text_closer(d, &clen);
    size_t from = d->think.text_start;
    /* lit: the first closing tag at or after the current payload; brace,
     * brack: the first '{' and '[' there (len when none). 0: not searched. */
    size_t lit = 0, brace = 0, brack = 0;
    /* quote: the first '"' there (len when none; 0: not searched); memo_br,
     * memo_lit: the bracket and closing tag of the last payload found
     * invalid whose bytes before the bracket are inert, so that a later
     * opener with the same bracket, closing tag and inert head is not
     * parsed again (tw_text_payload_head_inert) */
    size_t quote = 0, memo_br = NPOS, memo_lit = NPOS;
    for (int tries = 0; tries < 64 && from < len; tries++) {
        const char *f = tw_memmem(h + from, len - from, open, olen);
        if (!f)
            break;
        size_t at = (size_t)(f - h), pay = at + olen;
        if (lit < pay) {
            const char *c = tw_memmem(h + pay, len - pay, close, clen);
            if (!c)
                break; /* no closing tag from here on */
            lit = (size_t)(c - h);
        }
        if (brace < pay) {
            const char *b = memchr(h + pay, '{', len - pay);
            brace = b ? (size_t)(b - h) : len;
        }
        if (brack < pay) {
            const char *b = memchr(h + pay, '[', len - pay);
            brack = b ? (size_t)(b - h) : len;
        }
        size_t br = brace < brack ? brace : brack;
        bool inert = false;
        if (d->kind != TW_TEXT_QWEN_XML && br < lit) {
            if (quote < pay) {
                const char *q = memchr(h + pay, '"', len - pay);
                quote = q ? (size_t)(q - h) : len;
            }
            inert = quote > br && tw_text_payload_head_inert(h + pay, br - pay);
        }
        bool valid = false;
        if (!inert || br != memo_br || lit != memo_lit) {
            valid = tw_text_block_valid_at(d, f, len - at, h + lit, br < lit, &st);
            if (st != TW_OK)
                return st;
            if (inert && !valid)
                memo_br = br, memo_lit = lit;
        }
        if (valid) {
            st = emit_thinking(d, h + d->think.text_start, at - d->think.text_start, true);
            end_thinking_block(d);
            if (st == TW_OK)
                st = tw_text_add_diag(d, false, TW_D_THINK_IMPLICIT_END,
                                      (int64_t)(d->think.hold_off + at), NULL);
            d->think.state = TW_THINK_OUTSIDE;
            tw_text_hold_consume(d, at);
            if (st == TW_OK)
                st = tw_text_think_process(d, true);
            if (st == TW_OK && d->think.state == TW_THINK_INSIDE)
                return tw_text_think_finish_block(d);
            if (st == TW_OK && tw_text_hlen(d)) {
                st = tw_text_calls_feed(d, tw_text_hdata(d), tw_text_hlen(d), d->think.hold_off);
                tw_text_hold_consume(d, tw_text_hlen(d));
            }
            return st;
        }
        from = at + 1;
    }
    st = tw_text_add_diag(d, true, TW_D_THINK_UNTERMINATED, d->think.open_off, NULL);
    if (st != TW_OK)
        return st;
    if (d->o.unterminated == TW_UNTERM_DIRECT) {
        /* the block's raw bytes, opening tag included, are public text */
        end_thinking_block(d);
        d->think.state = TW_THINK_OUTSIDE;
        st = tw_text_calls_feed(d, h + d->think.raw_start, len - d->think.raw_start,
                                d->think.hold_off + d->think.raw_start);
    } else {
        st = emit_thinking(d, h + d->think.text_start, len - d->think.text_start, true);
        end_thinking_block(d);
        d->think.state = TW_THINK_OUTSIDE;
    }
    tw_text_hold_consume(d, len);
    return st;
}
