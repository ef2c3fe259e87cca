/*
 * Qwen3-Coder tool-call blocks: the XML reader of one <tool_call> block
 * (<function=...> with <parameter=...> elements) and its calls
 * (docs/text-formats.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "formats.h"
#include "text_layers.h"
#include "typed_args.h"
#include "wire_common.h"
#include "work.h"
#include "toolwire/decode.h"

/* ===================== qwen3-coder XML blocks ===================== */

/*
 * The XML reader of one <tool_call> block (TW_TEXT_QWEN_XML): it reads
 * calls.blk forward from qwen.pos, resuming where it stopped, and records the
 * elements it finds in qwen.ev. It never reads a byte twice except the bytes
 * of a JSON-aware value that falls back to the XML rule (read once more).
 */
static const char Q_FN_OPEN[] = "<function=";
static const char Q_FN_CLOSE[] = "</function>";
static const char Q_P_OPEN[] = "<parameter=";
static const char Q_P_CLOSE[] = "</parameter>";

enum { QE_FUNC = 1, QE_FEND, QE_PARAM, QE_STRAY };

typedef struct q_elem {
    int kind;
    bool unclosed; /* QE_PARAM: the value has no </parameter> */
    size_t a, b;   /* name (QE_FUNC, QE_PARAM), or the stray byte (QE_STRAY: a) */
    size_t va, vb; /* QE_PARAM: the value as written, between '>' and </parameter> */
} q_elem;

/* 1: p starts with lit; 0: it does not; -1: the n bytes are a proper prefix of lit. */
static int q_match(const char *p, size_t n, const char *lit, size_t ln)
{
    if (n >= ln)
        return memcmp(p, lit, ln) == 0;
    return memcmp(p, lit, n) == 0 ? -1 : 0;
}

static tw_status q_note(tw_text_dec *d, int kind, size_t a, size_t b, size_t va, size_t vb,
                        bool unclosed)
{
    if (!d->qwen.record)
        return TW_OK;
    q_elem e = {kind, unclosed, a, b, va, vb};
    return tw_buf_append(&d->qwen.ev, &e, sizeof e);
}

static tw_status q_flush_stray(tw_text_dec *d)
{
    if (d->qwen.stray == NPOS)
        return TW_OK;
    size_t at = d->qwen.stray;
    d->qwen.stray = NPOS;
    return q_note(d, QE_STRAY, at, at, 0, 0, false);
}

/* The declared tool named calls.blk[a, b) (trimmed), or NULL. */
static const tw_tool *q_find_tool(const tw_text_dec *d, size_t a, size_t b)
{
    return tw_targs_tool(&d->o, d->calls.blk.data + a, b - a);
}

/* A whitespace run: how far from i it goes in calls.blk. */
static size_t q_skip_ws(const char *b, size_t i, size_t len)
{
    while (i < len && tw_is_space((unsigned char)b[i]))
        i++;
    return i;
}

/* What follows a </parameter> (from its end, whitespace skipped): 1 closes the
 * value, 0 does not, -1 undecided. `final`: nothing more will come. */
static int q_follower(const char *b, size_t k, size_t len, bool final)
{
    if (k == len)
        return final ? 1 : -1;
    const char *lits[] = {Q_P_OPEN, Q_FN_CLOSE, HERMES_CLOSE, Q_FN_OPEN};
    const size_t lens[] = {SLEN(Q_P_OPEN), SLEN(Q_FN_CLOSE), SLEN(HERMES_CLOSE), SLEN(Q_FN_OPEN)};
    bool wait = false;
    for (size_t i = 0; i < 4; i++) {
        int r = q_match(b + k, len - k, lits[i], lens[i]);
        if (r == 1)
            return 1;
        if (r < 0)
            wait = true;
    }
    return wait && !final ? -1 : 0;
}

/* A value starts at qwen.vstart: JSON-aware when the schema says object or array. */
static void q_value_begin(tw_text_dec *d)
{
    const cJSON *prop =
        tw_targs_prop(d->qwen.tool, d->calls.blk.data + d->qwen.pa, d->qwen.pb - d->qwen.pa);
    unsigned m = tw_targs_types(prop);
    d->qwen.pos = d->qwen.vstart;
    d->qwen.scan = d->qwen.vstart;
    d->qwen.cand = NPOS;
    d->qwen.state = (m & (TW_TY_OBJECT | TW_TY_ARRAY)) ? TW_Q_VPRE : TW_Q_VAL;
}

/* The XML rule for the open value, from qwen.vstart (also the JSON-aware fallback). */
static void q_value_xml(tw_text_dec *d)
{
    d->qwen.state = TW_Q_VAL;
    d->qwen.scan = d->qwen.vstart;
    d->qwen.cand = NPOS;
}

/*
 * Read calls.blk on from qwen.pos. Stops in TW_Q_DONE (qwen.end set) or when it needs more
 * bytes; `final` resolves what waits for bytes that will not come.
 * TW_ERR_NOMEM is the only failure.
 */
tw_status tw_text_q_advance(tw_text_dec *d, bool final)
{
    const char *b = d->calls.blk.data;
    size_t len = d->calls.blk.len;
    tw_status st = TW_OK;
    if (!b)
        return TW_OK;
    while (st == TW_OK && d->qwen.state != TW_Q_DONE) {
        size_t i = d->qwen.pos;
        switch (d->qwen.state) {
        case TW_Q_OUT: {
            const char *lt = i < len ? memchr(b + i, '<', len - i) : NULL;
            size_t stop = lt ? (size_t)(lt - b) : len;
            TW_WORK(stop - i);
            if (d->qwen.stray == NPOS)
                for (size_t k = i; k < stop; k++)
                    if (!tw_is_space((unsigned char)b[k])) {
                        d->qwen.stray = k;
                        break;
                    }
            d->qwen.pos = stop;
            if (!lt)
                return TW_OK;
            int rc = q_match(lt, len - stop, HERMES_CLOSE, SLEN(HERMES_CLOSE));
            int rf = q_match(lt, len - stop, Q_FN_OPEN, SLEN(Q_FN_OPEN));
            int re = q_match(lt, len - stop, Q_FN_CLOSE, SLEN(Q_FN_CLOSE));
            int rp = q_match(lt, len - stop, Q_P_OPEN, SLEN(Q_P_OPEN));
            if (!final && (rc < 0 || rf < 0 || re < 0 || rp < 0))
                return TW_OK; /* wait at the '<' */
            if (rc == 1) {
                st = q_flush_stray(d);
                d->qwen.end = stop + SLEN(HERMES_CLOSE);
                d->qwen.state = TW_Q_DONE;
            } else if (rf == 1 || rp == 1) {
                st = q_flush_stray(d);
                d->qwen.fn = rf == 1;
                d->qwen.name = stop + (rf == 1 ? SLEN(Q_FN_OPEN) : SLEN(Q_P_OPEN));
                d->qwen.scan = d->qwen.name;
                d->qwen.pos = d->qwen.name;
                d->qwen.state = TW_Q_NAME;
            } else if (re == 1) {
                st = q_flush_stray(d);
                if (st == TW_OK)
                    st = q_note(d, QE_FEND, stop, stop, 0, 0, false);
                d->qwen.tool = NULL;
                d->qwen.pos = stop + SLEN(Q_FN_CLOSE);
            } else {
                if (d->qwen.stray == NPOS)
                    d->qwen.stray = stop;
                d->qwen.pos = stop + 1;
            }
            break;
        }
        case TW_Q_NAME: {
            const char *gt =
                d->qwen.scan < len ? memchr(b + d->qwen.scan, '>', len - d->qwen.scan) : NULL;
            if (!gt) {
                TW_WORK(len - d->qwen.scan);
                d->qwen.scan = len;
                return TW_OK; /* at the end of the input the block is unterminated */
            }
            size_t g = (size_t)(gt - b);
            TW_WORK(g - d->qwen.scan);
            if (d->qwen.fn) {
                d->qwen.nfunc++;
                d->qwen.tool = q_find_tool(d, d->qwen.name, g);
                st = q_note(d, QE_FUNC, d->qwen.name, g, 0, 0, false);
                d->qwen.pos = g + 1;
                d->qwen.state = TW_Q_OUT;
            } else {
                d->qwen.pa = d->qwen.name;
                d->qwen.pb = g;
                d->qwen.vstart = g + 1;
                q_value_begin(d);
            }
            break;
        }
        case TW_Q_VPRE: {
            size_t k = q_skip_ws(b, i, len);
            TW_WORK(k - i);
            d->qwen.pos = k;
            if (k == len) {
                if (!final)
                    return TW_OK;
                q_value_xml(d);
                break;
            }
            if (b[k] != '{' && b[k] != '[') {
                q_value_xml(d);
                break;
            }
            memset(&d->calls.json.scan, 0, sizeof d->calls.json.scan);
            d->calls.json.scan.max_depth = d->L.max_depth;
            d->qwen.jpos = k;
            d->qwen.state = TW_Q_VJSON;
            break;
        }
        case TW_Q_VJSON: {
            size_t used = 0;
            tw_jscan_result r =
                tw_jscan_feed(&d->calls.json.scan, b + d->qwen.jpos, len - d->qwen.jpos, &used);
            TW_WORK(used);
            d->qwen.jpos += used;
            if (r == TW_JSCAN_MORE) {
                if (!final)
                    return TW_OK;
                q_value_xml(d);
            } else if (r == TW_JSCAN_DONE) {
                d->qwen.jend = d->qwen.jpos;
                d->qwen.post = 0;
                d->qwen.state = TW_Q_VJPOST;
            } else {
                q_value_xml(d);
            }
            break;
        }
        case TW_Q_VJPOST: {
            size_t k = d->qwen.jpos;
            while (k < len && d->qwen.post == 0 && tw_is_space((unsigned char)b[k]))
                k++;
            while (k < len && d->qwen.post < SLEN(Q_P_CLOSE) && b[k] == Q_P_CLOSE[d->qwen.post]) {
                k++;
                d->qwen.post++;
            }
            TW_WORK(k - d->qwen.jpos);
            d->qwen.jpos = k;
            if (d->qwen.post == SLEN(Q_P_CLOSE)) {
                st = q_note(d, QE_PARAM, d->qwen.pa, d->qwen.pb, d->qwen.vstart,
                            k - SLEN(Q_P_CLOSE), false);
                d->qwen.pos = k;
                d->qwen.state = TW_Q_OUT;
            } else if (k == len && !final) {
                return TW_OK;
            } else {
                q_value_xml(d); /* something else follows the JSON value */
            }
            break;
        }
        case TW_Q_VAL: {
            if (d->qwen.cand == NPOS) {
                size_t from = d->qwen.scan;
                const char *f =
                    from < len ? tw_memmem(b + from, len - from, Q_P_CLOSE, SLEN(Q_P_CLOSE)) : NULL;
                if (!f) {
                    size_t keep = SLEN(Q_P_CLOSE) - 1;
                    size_t next = len > keep ? len - keep : 0;
                    TW_WORK(len - from);
                    d->qwen.scan = next > from ? next : from;
                    return TW_OK; /* at the end of the input the value is unclosed */
                }
                d->qwen.cand = (size_t)(f - b);
                TW_WORK(d->qwen.cand - from);
                d->qwen.ws = d->qwen.cand + SLEN(Q_P_CLOSE);
            }
            size_t k = q_skip_ws(b, d->qwen.ws, len);
            TW_WORK(k - d->qwen.ws);
            d->qwen.ws = k;
            int r = q_follower(b, k, len, final);
            if (r < 0)
                return TW_OK;
            if (r == 1) {
                st = q_note(d, QE_PARAM, d->qwen.pa, d->qwen.pb, d->qwen.vstart, d->qwen.cand,
                            false);
                d->qwen.pos = d->qwen.cand + SLEN(Q_P_CLOSE);
                d->qwen.cand = NPOS;
                d->qwen.state = TW_Q_OUT;
            } else {
                d->qwen.scan = d->qwen.cand + 1;
                d->qwen.cand = NPOS;
            }
            break;
        }
        default: return TW_OK;
        }
    }
    return st;
}

/* Is the reader inside a parameter value? */
static bool q_in_value(const tw_text_dec *d)
{
    return d->qwen.state == TW_Q_VPRE || d->qwen.state == TW_Q_VJSON ||
           d->qwen.state == TW_Q_VJPOST || d->qwen.state == TW_Q_VAL;
}

/* One value with one leading and one trailing line break removed (the
 * templates write the value on its own lines): "\n", or "\r\n" when the
 * output uses CRLF. A lone "\r" is not a line break and stays. */
static void q_strip_nl(const char **p, size_t *n)
{
    if (*n >= 2 && (*p)[0] == '\r' && (*p)[1] == '\n') {
        *p += 2;
        *n -= 2;
    } else if (*n && (*p)[0] == '\n') {
        (*p)++;
        (*n)--;
    }
    if (*n && (*p)[*n - 1] == '\n')
        *n -= *n >= 2 && (*p)[*n - 2] == '\r' ? 2 : 1;
}

/* The elements of one function, [from, to) of qwen.ev, as one call. */
typedef struct q_call {
    size_t fa, fb; /* the name */
    bool closed;   /* </function> read */
    bool stray;    /* text between its elements */
} q_call;

static bool q_name_ok(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c <= 0x20 || c == '<' || c == '>' || c == '"' || c == 0x7f)
            return false;
    }
    return true;
}

/* A position in calls.blk as an input offset (tw_targs_take). */
static int64_t q_blk_off(void *ctx, uint64_t pos)
{
    return (int64_t)tw_text_blk_input_off(ctx, (size_t)pos);
}

static tw_status q_take_call(tw_text_dec *d, const q_call *qc, const q_elem *ev, size_t n)
{
    const char *b = d->calls.blk.data;
    const char *np = b + qc->fa;
    size_t nn = qc->fb - qc->fa;
    tw_trim(&np, &nn);
    size_t nparams = 0;
    for (size_t i = 0; i < n; i++)
        nparams += ev[i].kind == QE_PARAM;
    tw_targs a;
    tw_status st =
        tw_targs_begin(&a, nn ? q_find_tool(d, qc->fa, qc->fb) : NULL, nparams, d->L.max_depth);
    if (nn && (!q_name_ok(np, nn) || memchr(np, 0, nn)))
        tw_targs_refuse(&a, TW_D_XML_BAD_NAME,
                        "function name holds a space, '<', '>', '\"' or a control byte");
    size_t np_count = 0;
    for (size_t i = 0; st == TW_OK && i < n; i++) {
        if (ev[i].kind != QE_PARAM)
            continue;
        const char *kp = b + ev[i].a;
        size_t kn = ev[i].b - ev[i].a;
        tw_trim(&kp, &kn);
        np_count++;
        if (ev[i].unclosed)
            tw_targs_refuse(&a, TW_D_XML_PARAM_UNCLOSED, "parameter '%.*s' has no </parameter>",
                            (int)(kn > 64 ? 64 : kn), kp);
        if (!kn || !q_name_ok(kp, kn) || memchr(kp, 0, kn))
            tw_targs_refuse(&a, TW_D_XML_BAD_NAME, "parameter %zu has an empty or invalid name",
                            np_count);
        const char *vp = b + ev[i].va;
        size_t vn = ev[i].vb - ev[i].va;
        q_strip_nl(&vp, &vn);
        st = tw_targs_add(&a, kp, kn, vp, vn, TW_TARGS_TYPED, (uint64_t)(kp - b),
                          (uint64_t)(vp - b));
    }
    bool accepted = false;
    tw_wire_sink k = {&d->res, &d->o, &d->L, d->fn, d->user, &d->stop};
    if (st == TW_OK)
        st = tw_targs_take(&a, &k, np, nn, NULL, d->calls.block_off, q_blk_off, d, &accepted);
    tw_targs_free(&a);
    if (st != TW_OK)
        return st == TW_ERR_LIMIT ? TW_ERR_NOMEM : st;
    /* the reader's warnings belong to an accepted call only */
    if (accepted && !qc->closed)
        st = tw_text_add_diag(d, false, TW_D_XML_FUNCTION_UNCLOSED, d->calls.block_off, NULL);
    if (st == TW_OK && accepted && qc->stray)
        st = tw_text_add_diag(d, false, TW_D_XML_STRAY_TEXT, d->calls.block_off,
                              "text between the elements of a function was dropped");
    return st;
}

/* Turn the elements of a read block into calls. */
tw_status tw_text_q_decode(tw_text_dec *d)
{
    const q_elem *ev = (const q_elem *)(const void *)d->qwen.ev.data;
    size_t n = d->qwen.ev.len / sizeof(q_elem);
    tw_status st = TW_OK;
    bool open = false, outside = false, stray = false, any = false;
    q_call qc = {0, 0, false, false};
    size_t from = 0;
    for (size_t i = 0; st == TW_OK && i <= n; i++) {
        int kind = i < n ? ev[i].kind : 0;
        if (open && (i == n || kind == QE_FUNC || kind == QE_FEND)) {
            qc.closed = kind == QE_FEND;
            st = q_take_call(d, &qc, ev + from, i - from);
            open = false;
            if (kind == QE_FEND)
                continue;
        }
        if (i == n || st != TW_OK)
            break;
        if (kind == QE_FUNC) {
            open = any = true;
            qc.fa = ev[i].a;
            qc.fb = ev[i].b;
            qc.stray = false;
            from = i + 1;
        } else if (kind == QE_STRAY || kind == QE_FEND) {
            if (open)
                qc.stray = true;
            else
                stray = true;
        } else if (kind == QE_PARAM && !open) {
            outside = true;
        }
    }
    if (st == TW_OK && !any)
        st = tw_text_add_diag(d, true, TW_D_TOOL_CALL_JSON, d->calls.block_off,
                              "tool call block holds no <function=NAME> element");
    if (st == TW_OK && outside)
        st = tw_text_add_diag(d, true, TW_D_XML_PARAM_OUTSIDE, d->calls.block_off, NULL);
    if (st == TW_OK && stray && any)
        st =
            tw_text_add_diag(d, false, TW_D_XML_STRAY_TEXT, d->calls.block_off,
                             "text inside the tool call block, outside its functions, was dropped");
    return st;
}

/* Record the open value as unclosed, ending at `end`. */
static tw_status q_note_unclosed(tw_text_dec *d, size_t end)
{
    if (d->qwen.state == TW_Q_NAME || !q_in_value(d))
        return TW_OK;
    return q_note(d, QE_PARAM, d->qwen.pa, d->qwen.pb, d->qwen.vstart, end, true);
}

/*
 * qwen3-coder: the input ended inside a block. A value left open ends at the
 * first literal </tool_call> after its start, if any (its call is refused);
 * otherwise --finish decides, as for Hermes.
 */
tw_status tw_text_q_finish(tw_text_dec *d)
{
    tw_status st = tw_text_q_advance(d, true);
    if (st != TW_OK)
        return st;
    if (d->qwen.state == TW_Q_DONE)
        return tw_text_block_done(d, d->qwen.end, true);
    size_t len = d->calls.blk.len;
    if (q_in_value(d)) {
        const char *f = tw_memmem(d->calls.blk.data + d->qwen.vstart, len - d->qwen.vstart,
                                  HERMES_CLOSE, SLEN(HERMES_CLOSE));
        if (f) {
            size_t at = (size_t)(f - d->calls.blk.data);
            st = q_note_unclosed(d, at);
            return st == TW_OK ? tw_text_block_done(d, at + SLEN(HERMES_CLOSE), true) : st;
        }
    }
    const q_elem *ev = (const q_elem *)(const void *)d->qwen.ev.data;
    size_t n = d->qwen.ev.len / sizeof(q_elem);
    bool complete = d->qwen.state == TW_Q_OUT && n && ev[n - 1].kind == QE_FEND;
    if (d->o.finish == TW_FINISH_STOP_SEQUENCE || (d->o.finish == TW_FINISH_LENGTH && complete)) {
        if (d->qwen.state == TW_Q_NAME && d->qwen.fn) /* a function name never closed by '>' */
            st = q_note(d, QE_FUNC, d->qwen.name, len, 0, 0, false);
        if (st == TW_OK && d->qwen.state == TW_Q_NAME && !d->qwen.fn) {
            d->qwen.pa = d->qwen.name;
            d->qwen.pb = d->qwen.vstart = len;
            st = q_note(d, QE_PARAM, d->qwen.pa, d->qwen.pb, len, len, true);
        }
        if (st == TW_OK)
            st = q_note_unclosed(d, len);
        return st == TW_OK ? tw_text_block_done(d, len, true) : st;
    }
    d->calls.blocks++;
    st = tw_text_add_diag(d, true, TW_D_TOOL_CALL_UNTERMINATED, d->calls.block_off,
                          d->o.finish == TW_FINISH_LENGTH
                              ? "tool call cut by the token limit before its </function>"
                              : NULL);
    tw_text_block_reset(d);
    return st;
}
