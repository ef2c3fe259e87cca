/*
 * The JSON payload of a <tool_call> block (Hermes, fenced): the payload
 * parsed by the literal rule and by the JSON-aware path, its call taken,
 * and whether a complete valid block starts at a place
 * (docs/text-formats.md).
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

/* ===================== calls ===================== */

/* One parsed call object, accepted or refused by the rules every decoder
 * shares (calls.h); its arguments are moved out of it, never copied. The
 * payload was parsed with d->L.max_depth from at most src_len bytes. */
tw_status tw_text_take_call(tw_text_dec *d, cJSON *obj, int64_t off, size_t src_len)
{
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    return tw_call_take_parsed(&k, obj, off, src_len);
}

/* A parsed payload (read from at most src_len bytes): an object is one
 * call, an array several. */
tw_status tw_text_take_payload(tw_text_dec *d, cJSON *v, int64_t off, const tw_json_lint *lint,
                               size_t src_len)
{
    if (lint->nonstd_offset >= 0) {
        char m[160];
        snprintf(m, sizeof m, "tool call payload is not RFC 8259 JSON: %s at its byte %lld",
                 lint->nonstd_what, (long long)lint->nonstd_offset);
        tw_status st = tw_text_add_diag(d, false, TW_D_JSON_NOT_RFC8259, off, m);
        if (st != TW_OK)
            return st;
    }
    if (cJSON_IsArray(v) && tw_json_tainted(v)) {
        /* an element that was a string with U+0000 was removed */
        tw_status st =
            tw_text_add_diag(d, true, TW_D_JSON_NUL, off,
                             "tool call payload array held a string with U+0000; it was refused");
        if (st != TW_OK)
            return st;
    }
    if (cJSON_IsObject(v))
        return tw_text_take_call(d, v, off, src_len);
    if (cJSON_IsArray(v)) {
        tw_status st = TW_OK;
        for (cJSON *e = v->child; st == TW_OK && e; e = e->next)
            st = tw_text_take_call(d, e, off, src_len);
        return st;
    }
    return tw_text_add_diag(d, true, TW_D_TOOL_CALL_JSON, off,
                            "tool call payload is not a JSON object or array");
}

/* Strip whitespace and, for Hermes, one code fence around a payload. */
static void strip_payload(const tw_text_dec *d, const char **p, size_t *n)
{
    tw_trim(p, n);
    if (d->kind == TW_TEXT_FENCED)
        return;
    const char *s = *p;
    size_t len = *n;
    if (len >= 3 && memcmp(s, "```", 3) == 0) {
        s += 3;
        len -= 3;
        if (len >= 4 && memcmp(s, "json", 4) == 0) {
            s += 4;
            len -= 4;
        }
        if (len >= 3 && memcmp(s + len - 3, "```", 3) == 0)
            len -= 3;
        tw_trim(&s, &len);
        *p = s;
        *n = len;
    }
}

/*
 * Parse a payload by rule 2: stripped, then the first balanced value.
 * Returns the value or NULL; *deep tells whether depth was the reason.
 */
/*
 * Control bytes around a payload's value (cJSON skips them as whitespace) lie
 * outside the JSON: drop them before the value is parsed and judged, so a
 * payload gets the same diagnostics whichever path decided its block (the
 * scanner's value range, or the literal closing tag).
 */
void tw_text_trim_ctl(const char **p, size_t *n)
{
    while (*n && (unsigned char)(*p)[0] >= 1 && (unsigned char)(*p)[0] <= 0x20) {
        (*p)++;
        (*n)--;
    }
    while (*n && (unsigned char)(*p)[*n - 1] >= 1 && (unsigned char)(*p)[*n - 1] <= 0x20)
        (*n)--;
}

/*
 * Parse a block's payload (the first-balanced retry when retry is set).
 * TW_OK with *out the value, or *out NULL and the rejection in why (code
 * json_too_deep or tool_call_json, message the parser's reason and where);
 * TW_ERR_NOMEM is the only failure.
 */
tw_status tw_text_parse_payload(const tw_text_dec *d, const char *p, size_t n, bool retry,
                                cJSON **out, tw_error *why, tw_json_lint *lint)
{
    tw_error e;
    cJSON *v = NULL;
    *out = NULL;
    strip_payload(d, &p, &n);
    tw_text_trim_ctl(&p, &n);
    tw_status st = tw_json_parse_lint(p, n, d->L.max_depth, &v, &e, lint);
    if (st == TW_OK) {
        *out = v;
        return TW_OK;
    }
    if (st == TW_ERR_NOMEM)
        return TW_ERR_NOMEM;
    bool deep = e.code == TW_D_JSON_TOO_DEEP;
    tw_status code = deep ? TW_D_JSON_TOO_DEEP : TW_D_TOOL_CALL_JSON;
    size_t eo = e.offset >= 0 ? (size_t)e.offset : 0;
    /* the parser counts inside the payload: say so, and where that is in the
     * input when the payload lies in the block buffer */
    char where[48] = "";
    if (d->calls.blk.data && p >= d->calls.blk.data && p <= d->calls.blk.data + d->calls.blk.len)
        snprintf(
            where, sizeof where, " (byte %llu of the input)",
            (unsigned long long)tw_text_blk_input_off(d, (size_t)(p - d->calls.blk.data) + eo));
    static const char pre[] = "invalid JSON at byte ";
    const char *rest =
        strncmp(e.message, pre, sizeof pre - 1) == 0 ? strstr(e.message, ": ") : NULL;
    if (rest)
        tw_error_set(why, code, (int64_t)eo, NULL, "invalid JSON at byte %zu of the payload%s: %s",
                     eo, where, rest + 2);
    else
        tw_error_set(why, code, (int64_t)eo, NULL, "%.127s, at byte %zu of the payload%s",
                     e.message, eo, where);
    if (!retry || deep)
        return TW_OK;
    size_t a, b;
    if (tw_json_first_balanced(p, n, d->L.max_depth, &a, &b)) {
        st = tw_json_parse_lint(p + a, b - a, d->L.max_depth, &v, &e, lint);
        if (st == TW_OK) {
            *out = v;
            return TW_OK;
        }
        if (st == TW_ERR_NOMEM)
            return TW_ERR_NOMEM;
        if (e.code == TW_D_JSON_TOO_DEEP)
            why->code = TW_D_JSON_TOO_DEEP;
    }
    return TW_OK;
}

tw_status tw_text_decide_payload(tw_text_dec *d, const char *p, size_t n, bool retry,
                                 tw_status fail_code)
{
    tw_error why;
    tw_json_lint lint;
    cJSON *v;
    tw_status st = tw_text_parse_payload(d, p, n, retry, &v, &why, &lint);
    if (st != TW_OK)
        return st;
    if (!v) {
        if (why.code == TW_D_JSON_TOO_DEEP)
            return tw_text_add_diag(d, true, TW_D_JSON_TOO_DEEP, d->calls.block_off,
                                    "tool call payload nested deeper than max_depth");
        char m[400];
        snprintf(m, sizeof m, "%s: %.223s", tw_code_message(fail_code), why.message);
        return tw_text_add_diag(d, true, fail_code, d->calls.block_off, m);
    }
    st = tw_text_take_payload(d, v, d->calls.block_off, &lint, n);
    cJSON_Delete(v);
    return st;
}

/*
 * Advance the JSON-aware path over calls.blk[calls.json.pos, len). It ends in TW_JP_DONE
 * (value followed by the close tag) or TW_JP_FAILED, or waits for more bytes.
 */
void tw_text_jpath_advance(tw_text_dec *d)
{
    const char *b = d->calls.blk.data;
    size_t len = d->calls.blk.len;
    size_t clen;
    const char *close = tw_text_closer(d, &clen);
    while (d->calls.json.pos < len && d->calls.json.phase < TW_JP_DONE) {
        size_t i = d->calls.json.pos;
        if (d->calls.json.phase == TW_JP_PRE) {
            while (i < len && tw_is_space((unsigned char)b[i]))
                i++;
            if (i == len) {
                d->calls.json.pos = i;
                return;
            }
            if (b[i] == '`' && d->kind != TW_TEXT_FENCED) {
                /* optional opener fence: ``` or ```json, then whitespace */
                size_t need = 3;
                if (len - i < need) {
                    if (memcmp(b + i, "```", len - i) != 0)
                        d->calls.json.phase = TW_JP_FAILED;
                    d->calls.json.pos = i;
                    return;
                }
                if (memcmp(b + i, "```", 3) != 0) {
                    d->calls.json.phase = TW_JP_FAILED;
                    return;
                }
                size_t j = i + 3;
                if (len - j < 4) {
                    if (memcmp(b + j, "json", len - j) == 0) {
                        d->calls.json.pos = i; /* undecided */
                        return;
                    }
                } else if (memcmp(b + j, "json", 4) == 0) {
                    j += 4;
                }
                d->calls.json.pos = j;
                d->calls.json.phase = TW_JP_JSON;
                memset(&d->calls.json.scan, 0, sizeof d->calls.json.scan);
                d->calls.json.scan.max_depth = d->L.max_depth;
                continue;
            }
            d->calls.json.pos = i;
            d->calls.json.phase = TW_JP_JSON;
            memset(&d->calls.json.scan, 0, sizeof d->calls.json.scan);
            d->calls.json.scan.max_depth = d->L.max_depth;
            continue;
        }
        if (d->calls.json.phase == TW_JP_JSON) {
            size_t used = 0;
            tw_jscan *s = &d->calls.json.scan;
            size_t before = s->consumed;
            if (before == 0) {
                /* the value starts at the first non-space byte */
                size_t k = i;
                while (k < len && tw_is_space((unsigned char)b[k]))
                    k++;
                d->calls.json.vstart = k;
            }
            tw_jscan_result r = tw_jscan_feed(s, b + i, len - i, &used);
            d->calls.json.pos = i + used;
            if (r == TW_JSCAN_MORE)
                return;
            if (r == TW_JSCAN_DONE) {
                d->calls.json.vend = d->calls.json.pos;
                d->calls.json.phase = TW_JP_POST;
                d->calls.json.post = 0;
                continue;
            }
            if (r == TW_JSCAN_TOO_DEEP)
                d->calls.json.too_deep = true;
            d->calls.json.phase = TW_JP_FAILED;
            return;
        }
        if (d->calls.json.phase == TW_JP_POST) {
            /* whitespace, an optional ``` (Hermes), whitespace, the close tag.
             * calls.json.post counts close-tag bytes matched; fences are skipped. */
            while (i < len) {
                unsigned char c = (unsigned char)b[i];
                if (d->calls.json.post == 0 && tw_is_space(c)) {
                    i++;
                    continue;
                }
                if (d->calls.json.post == 0 && c == '`' && d->kind != TW_TEXT_FENCED) {
                    if (len - i < 3) {
                        if (memcmp(b + i, "```", len - i) != 0)
                            d->calls.json.phase = TW_JP_FAILED;
                        d->calls.json.pos = i;
                        return;
                    }
                    if (memcmp(b + i, "```", 3) != 0) {
                        d->calls.json.phase = TW_JP_FAILED;
                        return;
                    }
                    i += 3;
                    continue;
                }
                if (c != (unsigned char)close[d->calls.json.post]) {
                    d->calls.json.phase = TW_JP_FAILED;
                    d->calls.json.pos = i;
                    return;
                }
                d->calls.json.post++;
                i++;
                if (d->calls.json.post == clen) {
                    d->calls.json.phase = TW_JP_DONE;
                    d->calls.json.pos = i;
                    return;
                }
            }
            d->calls.json.pos = i;
            return;
        }
    }
}

/* Search the first literal close tag in calls.blk from calls.lit_scan. */
void tw_text_lit_advance(tw_text_dec *d)
{
    if (d->calls.lit != NPOS)
        return;
    size_t clen;
    const char *close = tw_text_closer(d, &clen);
    size_t from = d->calls.lit_scan;
    if (!d->calls.blk.data)
        return;
    const char *f = tw_memmem(d->calls.blk.data + from, d->calls.blk.len - from, close, clen);
    if (f) {
        d->calls.lit = (size_t)(f - d->calls.blk.data);
    } else {
        d->calls.lit_scan = d->calls.blk.len >= clen - 1 ? d->calls.blk.len - (clen - 1) : 0;
        if (d->calls.lit_scan < from)
            d->calls.lit_scan = from;
    }
}

/*
 * Can the bytes of a payload before its first bracket (p, n bytes; none of
 * them '{' or '[') not change whether the payload is a valid block? True
 * when they hold no '"' (checked by the caller) and the first of them
 * above 0x20 (cJSON skips the others, NUL included) starts no JSON value,
 * no fence and no UTF-8 byte order mark: then the scan and the parse of the
 * whole payload fail at that byte, the depth check sees only what follows the
 * bracket, and the answer is the first-balanced retry's from the bracket
 * to the closing tag, the same for every payload that shares both.
 */
bool tw_text_payload_head_inert(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (unsigned char)p[i] <= 0x20) /* what cJSON skips, NUL included */
        i++;
    if (i == n)
        return false;
    unsigned char c = (unsigned char)p[i];
    if (c >= 0x80) /* but not the first byte of a UTF-8 byte order mark, which cJSON skips */
        return c != 0xEF;
    return !strchr("{[\"-0123456789tfn`", c);
}

/* ASCII punctuation that neither the scan nor cJSON takes outside a string,
 * whatever came before: no structural byte, quote, backslash, number byte
 * (cJSON reads "1.e5", which the scan refuses), letter or digit. */
static bool refused_outside_strings(unsigned char c)
{
    return c > 0x20 && c < 0x7F && strchr("!#$%&'()*;<=>?@^_`|~/", c);
}

/*
 * After the JSON-aware scan of a payload (p, pn bytes to its first closing
 * tag) failed: did it stop for good? True when the payload starts, after
 * whitespace, at a '{' or '[' where the scan started, and the scan refused a
 * byte of refused_outside_strings before the closing tag with no backslash
 * in the five bytes before it (so not in an escape, and outside any string,
 * where the scan takes every other byte). No JSON reader takes that byte
 * there: the parse of the whole payload fails, and the first-balanced retry
 * scans from the same bracket over the same bytes and stops at the same
 * byte. The payload then yields no value, so it is not parsed.
 */
static bool scan_stopped_for_good(const tw_text_dec *t, const char *p, size_t pn)
{
    size_t v = t->calls.json.vstart, q = t->calls.json.pos;
    if (t->calls.json.phase != TW_JP_FAILED || t->calls.json.scan.result != TW_JSCAN_INVALID ||
        v >= q || q >= pn || (p[v] != '{' && p[v] != '[') ||
        !refused_outside_strings((unsigned char)p[q]))
        return false;
    for (size_t i = 0; i < v; i++)
        if (!tw_is_space((unsigned char)p[i]))
            return false;
    for (size_t i = q - v > 5 ? q - 5 : v; i < q; i++)
        if (p[i] == '\\')
            return false;
    return true;
}

/*
 * Does a payload yield an object or array by tw_text_parse_payload's rule (the
 * whole payload, then its first balanced value unless the whole was nested
 * too deep)? The same answer as tw_text_parse_payload's value, without the trees,
 * the lint and the rejection's message. TW_ERR_NOMEM is the only failure.
 */
static tw_status payload_yields(const tw_text_dec *d, const char *p, size_t n, bool *ok)
{
    *ok = false;
    strip_payload(d, &p, &n);
    tw_text_trim_ctl(&p, &n);
    size_t a, b;
    if (tw_text_payload_head_inert(p, n)) {
        /* no reader takes the first byte, so the whole payload does not
         * read; its depth, checked before it is read, then decides only
         * whether the retry runs: measured only when the retry yields */
        size_t md = d->L.max_depth == 0 || d->L.max_depth > TW_DEPTH_HARD_MAX ? TW_DEPTH_HARD_MAX
                                                                              : d->L.max_depth;
        if (!tw_json_first_balanced(p, n, d->L.max_depth, &a, &b))
            return TW_OK;
        tw_status st = tw_json_reads_container(p + a, b - a, d->L.max_depth, ok);
        if (st == TW_ERR_NOMEM)
            return st;
        *ok = st == TW_OK && *ok && tw_json_depth(p, n, md) <= md;
        return TW_OK;
    }
    tw_status st = tw_json_reads_container(p, n, d->L.max_depth, ok);
    if (st != TW_ERR_PARSE)
        return st == TW_ERR_LIMIT ? TW_OK : st;
    if (!tw_json_first_balanced(p, n, d->L.max_depth, &a, &b))
        return TW_OK;
    st = tw_json_reads_container(p + a, b - a, d->L.max_depth, ok);
    return st == TW_ERR_NOMEM ? st : TW_OK;
}

/*
 * Is there a complete, valid block right after an opener at p (n bytes to the
 * end of the input)? (§1.7) lit is the first closing tag at or after the
 * payload's start. The literal path yields an object or array, directly or
 * by the first-balanced retry, only when the payload holds a '{' or '['
 * (bracket): without one it is not parsed at all.
 */
bool tw_text_block_valid_at(const tw_text_dec *d, const char *p, size_t n, const char *lit,
                            bool bracket, tw_status *st)
{
    *st = TW_OK;
    size_t olen;
    tw_text_opener(d, &olen);
    p += olen;
    n -= olen;
    if (d->kind == TW_TEXT_QWEN_XML) {
        /* the XML reader, not recording, over at most the block cap */
        (void)lit;
        (void)bracket;
        tw_text_dec q;
        memset(&q, 0, sizeof q);
        q.kind = d->kind;
        q.L = d->L;
        q.o = d->o;
        q.calls.blk.data = (char *)(uintptr_t)p; /* read-only view */
        q.calls.blk.len = n < d->calls.cap ? n : d->calls.cap;
        q.qwen.stray = q.qwen.cand = NPOS;
        *st = tw_text_q_advance(&q, false);
        return q.qwen.state == TW_Q_DONE && q.qwen.nfunc > 0;
    }
    /* JSON-aware: scan the value and expect the close tag */
    tw_text_dec t;
    memset(&t, 0, sizeof t);
    t.kind = d->kind;
    t.L = d->L;
    t.calls.blk.data = (char *)(uintptr_t)p; /* read-only view */
    t.calls.blk.len = n;
    t.calls.json.phase = TW_JP_PRE;
    tw_text_jpath_advance(&t);
    cJSON *v = NULL;
    if (t.calls.json.phase == TW_JP_DONE) {
        tw_error e;
        tw_status ps =
            tw_json_parse(p + t.calls.json.vstart, t.calls.json.vend - t.calls.json.vstart,
                          d->L.max_depth, &v, &e);
        if (ps == TW_OK) {
            bool ok = cJSON_IsObject(v) || cJSON_IsArray(v);
            cJSON_Delete(v);
            return ok;
        }
        if (ps == TW_ERR_NOMEM) {
            *st = TW_ERR_NOMEM;
            return false;
        }
    }
    if (!bracket || scan_stopped_for_good(&t, p, (size_t)(lit - p)))
        return false;
    size_t pn = (size_t)(lit - p);
    if (tw_text_payload_head_inert(p, pn)) {
        /* no reader takes the payload's first byte: the whole payload does
         * not parse, and only the first-balanced retry can yield a value.
         * It scans from the first bracket as here: unless that scan ends a
         * value within max_depth, the retry yields none (a value nested too
         * deep is refused by the depth check of its parse) */
        const char *sp = p;
        size_t sn = pn, used = 0;
        strip_payload(d, &sp, &sn);
        tw_text_trim_ctl(&sp, &sn);
        const char *o = memchr(sp, '{', sn), *a = memchr(sp, '[', sn);
        const char *f = o && a ? (o < a ? o : a) : (o ? o : a);
        if (!f)
            return false;
        tw_jscan sc;
        memset(&sc, 0, sizeof sc);
        sc.max_depth = d->L.max_depth;
        if (tw_jscan_feed(&sc, f, sn - (size_t)(f - sp), &used) != TW_JSCAN_DONE)
            return false;
    }
    TW_WORK(pn); /* the literal payload is read in full */
    bool ok;
    *st = payload_yields(d, p, pn, &ok);
    return *st == TW_OK && ok;
}
